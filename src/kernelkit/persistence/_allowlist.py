"""The allow-list of model files: which estimators a file may hold, which of
their attributes are arrays or JSON, and the check that a restored state is one
consistent fitted model (shapes agree with each other, values are in range).
"""

from __future__ import annotations

import numpy as np

from ..features import ExplicitFeatures, RandomKitchenSinks
from ..features.kitchen_sinks import restore_fitted
from ..kernels import Kernel, parse_kernel
from ..kernels.objects import takes_objects
from ..models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                      KernelRidge, KernelRidgeClassifier, KernelRidgeClassifierCV, KernelRidgeCV,
                      KernelSVC)
from ..models import LearnedKernelRidge
from ..models import (KernelKMeans, KernelKNeighborsClassifier, KernelKNeighborsRegressor,
                      KernelOutlierDetector, KitchenSinksClassifier,
                      KitchenSinksRegressor)
from ._format import fail as _fail
from ._decomposition import KERNEL_PCA_ENTRY
from ._similarity import KERNEL_SIMILARITY_ENTRY


def is_fitted(model):
    kernel = getattr(model, "kernel_", None)
    # a model on objects has no n_features_in_: its kernel, or (a feature map of graphs,
    # WeisfeilerLehmanFeatures) its vocabulary says it is fitted
    return hasattr(model, "n_features_in_") or takes_objects(kernel) or \
        hasattr(model, "vocabulary_")

# The allow-list: estimator name -> (class, array attributes, JSON attributes,
# the check that the restored state is one consistent fitted model).
_KM_ARRAYS = ("dual_coef_", "X_fit_", "coef_", "objective_", "intercept_")
# Kernel ridge's intercept and Falkon's final residual: absent from files written
# before they existed (a missing intercept_ is 0, see _check_ridge_intercept).
_RIDGE_ARRAYS = ("intercept_", "residual_norm_")
_KNN_ARRAYS = ("X_fit_", "y_fit_", "diag_fit_")
_KNN_JSON = ("n_features_in_", "n_samples_fit_", "feature_names_in_")
_KM_JSON = ("representation_", "solver_", "strategy_", "n_iter_", "n_features_in_",
            "feature_names_in_")

# Random kitchen sinks: the feature map's parameters are arrays; a callable
# basis or sampler is refused at save time (it is a parameter, not data).
_RKS_ARRAYS = ("random_weights_", "random_offset_")
_RKS_JSON = ("gamma_", "bandwidth_", "n_components_", "n_features_in_", "feature_names_in_")
_KS_ARRAYS = _RKS_ARRAYS + ("coef_", "intercept_", "objective_")
_KS_JSON = ("gamma_", "bandwidth_", "n_iter_", "converged_", "n_features_in_",
            "feature_names_in_")


def registry():
    table = {
        "KernelRidge": (KernelRidge, ("dual_coef_", "X_fit_", "coef_", "centers_")
                        + _RIDGE_ARRAYS,
                        ("solver_", "jitter_", "n_features_in_", "n_samples_fit_",
                         "feature_names_in_", "n_iter_", "rank_"), _check_ridge_state),
        "KernelRidgeClassifier": (KernelRidgeClassifier,
                                  ("dual_coef_", "X_fit_", "coef_", "centers_") + _RIDGE_ARRAYS,
                                  ("classes_", "solver_", "jitter_", "n_features_in_",
                                   "n_samples_fit_", "feature_names_in_", "n_iter_", "rank_"),
                                  _check_ridge_classifier_state),
        "KernelRidgeCV": (KernelRidgeCV, ("dual_coef_", "X_fit_", "centers_") + _RIDGE_ARRAYS,
                          ("alpha_", "best_score_", "solver_", "rank_", "n_features_in_",
                           "n_samples_fit_", "feature_names_in_"),
                          _check_ridge_state),
        "LearnedKernelRidge": (LearnedKernelRidge,
                               ("dual_coef_", "X_fit_", "coef_", "centers_", "theta_",
                                "y_scale_") + _RIDGE_ARRAYS,
                               ("solver_", "jitter_", "n_features_in_", "n_samples_fit_",
                                "feature_names_in_", "n_iter_", "rank_", "alpha_",
                                "objective_", "objective_value_", "log_marginal_likelihood_"),
                               _check_ridge_state),
        "KernelRidgeClassifierCV": (KernelRidgeClassifierCV,
                                    ("dual_coef_", "X_fit_", "centers_") + _RIDGE_ARRAYS,
                                    ("classes_", "alpha_", "best_score_", "solver_", "rank_",
                                     "n_features_in_", "n_samples_fit_", "feature_names_in_"),
                                    _check_ridge_classifier_state),
        "KernelSVC": (KernelSVC, ("dual_coef_", "support_vectors_", "intercept_", "support_",
                                  "n_support_", "dual_objective_", "duality_gap_", "n_iter_"),
                      ("classes_", "n_features_in_", "feature_names_in_"), _check_svc_state),
        "KernelMachine": (KernelMachine, _KM_ARRAYS, _KM_JSON, _check_kernel_machine_state),
        "KernelMachineClassifier": (KernelMachineClassifier, _KM_ARRAYS, ("classes_",) + _KM_JSON,
                                    _check_kernel_machine_state),
        "KernelLogisticRegression": (KernelLogisticRegression, _KM_ARRAYS,
                                     ("classes_", "multi_class_") + _KM_JSON,
                                     _check_kernel_machine_state),
        "KernelKNeighborsClassifier": (KernelKNeighborsClassifier, _KNN_ARRAYS,
                                       ("classes_",) + _KNN_JSON, _check_neighbors_state),
        "KernelKNeighborsRegressor": (KernelKNeighborsRegressor, _KNN_ARRAYS, _KNN_JSON,
                                      _check_neighbors_state),
        "KernelKMeans": (KernelKMeans, ("labels_", "X_fit_", "dual_coef_", "center_membership_",
                                        "center_norms_", "cluster_centers_", "components_",
                                        "normalization_"),
                         ("inertia_", "n_iter_", "n_features_in_", "feature_names_in_"),
                         _check_kmeans_state),
        "KernelOutlierDetector": (KernelOutlierDetector, ("X_fit_", "diag_fit_"),
                                  ("offset_", "mean_norm_", "n_features_in_",
                                   "feature_names_in_"), _check_outlier_state),
        "RandomKitchenSinks": (RandomKitchenSinks, _RKS_ARRAYS, _RKS_JSON,
                               _check_kitchen_sinks_state),
        "KitchenSinksRegressor": (KitchenSinksRegressor, _KS_ARRAYS, _KS_JSON,
                                  _check_kitchen_sinks_state),
        "KitchenSinksClassifier": (KitchenSinksClassifier, _KS_ARRAYS, ("classes_",) + _KS_JSON,
                                   _check_kitchen_sinks_state),
        "KernelPCA": KERNEL_PCA_ENTRY,
        "KernelSimilarity": KERNEL_SIMILARITY_ENTRY,
    }
    # every estimator's state check ends with the range checks of its numbers
    return {name: (cls, arrays, scalars, _then_check_ranges(check))
            for name, (cls, arrays, scalars, check) in table.items()}


# ---- ranges of the restored numbers ---------------------------------------------
# Which numbers a fitted model can hold, by attribute (every estimator alike: an
# attribute an estimator does not have is skipped). Finiteness of every float is
# checked where it is read (strict JSON, the arrays' reader); these are the ranges.
_POSITIVE = ("gamma_", "bandwidth_")
_NON_NEGATIVE = ("alpha_", "jitter_", "inertia_", "best_score_")
# (squared norms computed as a'Ka, such as center_norms_ and mean_norm_, may round to
# -1e-17: finite only)
_FINITE = ("offset_", "intercept_", "dual_coef_", "coef_", "diag_fit_", "center_norms_",
           "mean_norm_")
_COUNTS = ("n_iter_", "n_support_")  # integers >= 0, one or an array
_INDICES = ("support_",)  # integers >= 0


def _numbers(path, attr, value):
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf" or isinstance(value, bool):
        _fail(path, f"invalid {attr}: expected numbers, got {type(value).__name__} "
                    f"{arr.dtype}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        _fail(path, f"invalid {attr}: NaN or infinity")
    return arr


def check_ranges(path, model):
    """Every restored number in its range; ModelFormatError naming the attribute."""
    present = [a for a in _POSITIVE + _NON_NEGATIVE + _FINITE + _COUNTS + _INDICES
               if getattr(model, a, None) is not None]
    for attr in present:
        arr = _numbers(path, attr, getattr(model, attr))
        if attr in _POSITIVE and not (arr > 0).all():
            _fail(path, f"invalid {attr}: must be > 0, got {getattr(model, attr)!r}")
        if attr in _NON_NEGATIVE and not (arr >= 0).all():
            _fail(path, f"invalid {attr}: must be >= 0, got min {arr.min()!r}")
        if attr in _COUNTS + _INDICES:
            if arr.dtype.kind not in "iu":
                _fail(path, f"invalid {attr}: must hold integers, got {arr.dtype}")
            if arr.size and arr.min() < 0:
                _fail(path, f"invalid {attr}: must be >= 0, got {arr.min()!r}")
    classes = getattr(model, "classes_", None)
    if classes is not None:
        classes = np.asarray(classes)
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            _fail(path, "invalid classes_: NaN or infinity")
        if len(set(classes.tolist())) != len(classes):  # numbers, or str (object arrays)
            _fail(path, f"invalid classes_: repeated labels in {classes.tolist()!r}")
    support = getattr(model, "support_", None)
    n_support = getattr(model, "n_support_", None)
    if support is not None and n_support is not None and \
            int(np.sum(n_support)) != len(support):
        _fail(path, f"invalid n_support_: sums to {int(np.sum(n_support))}, but there are "
                    f"{len(support)} support vectors")


def _then_check_ranges(check):
    def check_state(path, model):
        check(path, model)
        check_ranges(path, model)

    check_state.__doc__ = check.__doc__
    return check_state


def check_common_state(path, model):
    """Sizes are positive integers and ``kernel_`` is a kernel (or 'precomputed')."""
    for attr in ("n_features_in_", "n_samples_fit_"):
        value = getattr(model, attr, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            _fail(path, f"invalid {attr} {value!r}")
    if "kernel" not in model.get_params(deep=False):  # a model without a kernel
        if getattr(model, "kernel_", None) is not None:
            _fail(path, "kernel_ given for a model without a kernel")
        model.__dict__.pop("kernel_", None)
        return
    kernel = getattr(model, "kernel_", None)
    if isinstance(kernel, str):
        if kernel != "precomputed":
            try:
                model.kernel_ = parse_kernel(kernel)
            except ValueError as exc:
                _fail(path, f"invalid kernel_: {exc}")
    elif not isinstance(kernel, Kernel):
        _fail(path, "kernel_ is missing")


def _check_shape(path, model, attr, shape, dtype_kind="f"):
    arr = getattr(model, attr, None)
    if arr is None or arr.shape != shape or arr.dtype.kind != dtype_kind:
        _fail(path, f"{attr} has shape {None if arr is None else arr.shape} and dtype "
                    f"{None if arr is None else arr.dtype}; expected {shape} "
                    f"{ {'i': 'integers', 'U': 'strings', 'O': 'objects'}.get(dtype_kind, 'floats')}")


def _check_svc_state(path, model):
    """KernelSVC: classes, support indices and coefficients agree in shape."""
    model.classes_ = np.asarray(getattr(model, "classes_", []))
    k = len(model.classes_)
    if k < 2:
        _fail(path, f"classes_ has {k} entries, expected at least 2")
    _check_shape(path, model, "n_support_", (k,), "i")
    if (model.n_support_ < 0).any():
        _fail(path, "n_support_ has negative counts")
    n_sv = int(model.n_support_.sum())
    ovr = model.multiclass == "ovr"
    n_problems = 1 if k == 2 else (k if ovr else k * (k - 1) // 2)
    rows = 1 if k == 2 else (k if ovr else k - 1)
    _check_shape(path, model, "support_", (n_sv,), "i")
    _check_shape(path, model, "dual_coef_", (rows, n_sv))
    for attr in ("intercept_", "dual_objective_", "duality_gap_"):
        _check_shape(path, model, attr, (n_problems,))
    _check_shape(path, model, "n_iter_", (n_problems,), "i")
    if _on_strings(model):
        _check_shape(path, model, "support_vectors_", (n_sv,), _rows_kind(model))
    elif model.kernel_ != "precomputed":
        _check_shape(path, model, "support_vectors_", (n_sv, model.n_features_in_))


def _on_strings(model):
    """Whether the model's kernel takes strings or objects (sets, trees, ...), not rows."""
    return takes_objects(getattr(model, "kernel_", None))


def _rows_kind(model):
    """dtype kind of the stored inputs of a kernel on strings ("U") or on objects ("O")."""
    return "U" if model.kernel_.input_kind == "string" else "O"


def _check_kernel_machine_state(path, model):
    """Kernel machines: classes (classifiers), then u + X_fit_ or w, as kernel ridge."""
    if hasattr(model, "classes_"):
        model.classes_ = np.asarray(model.classes_)
        if len(model.classes_) < 2:
            _fail(path, f"classes_ has {len(model.classes_)} entries, expected at least 2")
    if getattr(model, "representation_", None) not in ("dual", "primal"):
        _fail(path, f"invalid representation_ {getattr(model, 'representation_', None)!r}")
    if "fit_intercept" in model.get_params(deep=False):  # KernelMachine(Classifier)
        _check_ridge_intercept(path, model)
    _check_ridge_state(path, model)


def _check_ridge_intercept(path, model):
    """``intercept_``: one number per target column, or absent (an older file: 0,
    and the model is marked as fitted without one)."""
    primal = getattr(model, "representation_", getattr(model, "solver_", None)) == "primal"
    coef = getattr(model, "coef_", None) if primal else getattr(model, "dual_coef_", None)
    cols = () if coef is None or coef.ndim == 1 else (coef.shape[1],)
    for attr in ("intercept_", "residual_norm_"):
        value = getattr(model, attr, None)
        if value is None:
            continue
        value = np.asarray(value, dtype=np.float64)
        if cols == () and value.shape in ((), (1,)):  # a float is saved as shape (1,)
            value = float(value.ravel()[0])
        elif value.shape != cols:
            _fail(path, f"{attr} has shape {value.shape}, expected {cols or '(1,)'}")
        setattr(model, attr, value)
    if getattr(model, "intercept_", None) is None:
        model.intercept_ = 0.0
        if hasattr(model, "fit_intercept"):
            model.fit_intercept = False


def _check_ridge_state(path, model):
    """Kernel ridge: dual coefficients and training inputs, or primal weights, agree."""
    if type(model).__name__.startswith("KernelRidge"):
        _check_ridge_intercept(path, model)
    n_in = getattr(model, "n_features_in_", None)
    kernel = model.kernel_
    solver = getattr(model, "representation_", getattr(model, "solver_", "dual"))
    if solver not in ("dual", "primal", "falkon"):
        _fail(path, f"invalid solver_ {solver!r}")
    if solver == "falkon":
        _check_falkon_state(path, model)
        return
    if solver == "primal":
        coef = getattr(model, "coef_", None)
        if coef is None or not isinstance(kernel, Kernel):
            _fail(path, "a primal model needs coef_ and a kernel")
        try:
            fmap = ExplicitFeatures(kernel).fit(np.zeros((1, n_in)))
        except ValueError as exc:
            _fail(path, f"primal model with a kernel that has no explicit features: {exc}")
        if coef.ndim not in (1, 2) or coef.shape[0] != fmap.n_components_:
            _fail(path, f"coef_ has shape {coef.shape}; the kernel's feature map has "
                        f"{fmap.n_components_} features")
        model.feature_map_ = fmap
        return
    dual = getattr(model, "dual_coef_", None)
    if dual is None or dual.ndim not in (1, 2):
        _fail(path, "dual_coef_ is missing or not 1-D/2-D")
    X_fit = getattr(model, "X_fit_", None)
    if kernel == "precomputed":
        model.X_fit_ = None
        if dual.shape[0] != n_in:
            _fail(path, f"dual_coef_ has {dual.shape[0]} rows but n_features_in_ is {n_in}")
        return
    if _on_strings(model):
        if X_fit is None or X_fit.dtype.kind != _rows_kind(model) or \
                X_fit.shape != (dual.shape[0],):
            _fail(path, f"X_fit_ has shape {None if X_fit is None else X_fit.shape}, expected "
                        f"({dual.shape[0]},) {model.kernel_.input_kind}s from dual_coef_ and "
                        "the kernel")
        return
    if n_in is None:
        _fail(path, "n_features_in_ is missing")
    if X_fit is None or X_fit.ndim != 2 or X_fit.shape != (dual.shape[0], n_in):
        _fail(path, f"X_fit_ has shape {None if X_fit is None else X_fit.shape}, expected "
                    f"({dual.shape[0]}, {n_in}) from dual_coef_ and n_features_in_")


# ---- distance-based models (neighbours, kernel k-means, outliers) ------------------
def _check_inputs(path, model, name, n_rows=None):
    """Stored inputs ``name``: (n, n_features_in_) numbers, or (n,) strings for a string
    kernel; ``n_rows`` if given. Returns n."""
    A = getattr(model, name, None)
    if _on_strings(model):
        ok = A is not None and A.ndim == 1 and A.dtype.kind == _rows_kind(model)
        expected = (f"({'n' if n_rows is None else n_rows},) {model.kernel_.input_kind}s for "
                    "the kernel")
    else:
        n_in = getattr(model, "n_features_in_", None)
        ok = (A is not None and A.ndim == 2 and A.dtype.kind == "f" and n_in is not None
              and A.shape[1] == n_in)
        expected = f"({'n' if n_rows is None else n_rows}, {n_in}) numbers"
    if not ok or (n_rows is not None and A.shape[0] != n_rows):
        _fail(path, f"{name} has shape {None if A is None else A.shape} and dtype "
                    f"{None if A is None else A.dtype}, expected {expected}")
    return A.shape[0]


def _check_fit_inputs(path, model, with_diag=True):
    """X_fit_ (vectors or strings, see _check_inputs) and k(x, x) of shape (n,); returns n."""
    n = _check_inputs(path, model, "X_fit_")
    if with_diag:
        _check_shape(path, model, "diag_fit_", (n,))
    return n


def _check_neighbors_state(path, model):
    """k-NN: training inputs, their k(x, x) and targets (class indices) agree."""
    n = _check_fit_inputs(path, model)
    if getattr(model, "n_samples_fit_", n) != n:
        _fail(path, f"n_samples_fit_ is {model.n_samples_fit_} but X_fit_ has {n} rows")
    y = getattr(model, "y_fit_", None)
    if y is None or y.ndim not in (1, 2) or y.shape[0] != n:
        _fail(path, f"y_fit_ has shape {None if y is None else y.shape}, expected ({n}, ...)")
    if hasattr(model, "classes_"):
        model.classes_ = np.asarray(model.classes_)
        if y.ndim != 1 or y.dtype.kind != "i" or len(model.classes_) < 1 or \
                (y.size and (y.min() < 0 or y.max() >= len(model.classes_))):
            _fail(path, "y_fit_ must hold class indices into classes_")


def _check_kmeans_state(path, model):
    """Kernel k-means: members and weights of each mean, or the Nystroem map and centers."""
    k = model.n_clusters
    labels = model.labels_ = getattr(model, "labels_", None)
    nystroem = getattr(model, "components_", None) is not None
    # labels_ None: a Nystroem model without its training labels (DaskKernelKMeans.to_local)
    if (labels is None and not nystroem) or (labels is not None and (
            labels.ndim != 1 or labels.dtype.kind != "i" or
            (labels.size and (labels.min() < 0 or labels.max() >= k)))):
        _fail(path, f"labels_ must be cluster indices in [0, {k})")
    if nystroem:  # Nystroem approximation
        _check_inputs(path, model, "components_")  # the Nystroem centers
        C = model.components_
        norm = getattr(model, "normalization_", None)
        if norm is None or norm.ndim != 2 or norm.shape[0] != C.shape[0]:
            _fail(path, "normalization_ does not match components_")
        _check_shape(path, model, "cluster_centers_", (k, norm.shape[1]))
        return
    n = labels.shape[0]
    if _check_fit_inputs(path, model, with_diag=False) != n:
        _fail(path, f"X_fit_ has {model.X_fit_.shape[0]} rows but labels_ has {n}")
    _check_shape(path, model, "dual_coef_", (n,))
    _check_shape(path, model, "center_norms_", (k,))
    _check_shape(path, model, "center_membership_", (n,), "i")
    member = model.center_membership_
    if member.size and (member.min() < 0 or member.max() >= k):
        _fail(path, f"center_membership_ must be cluster indices in [0, {k})")


def _check_outlier_state(path, model):
    """Outlier detector: training inputs, k(x, x), and the mean's norm for method='mean'."""
    _check_fit_inputs(path, model)
    if not isinstance(getattr(model, "offset_", None), float):
        _fail(path, "offset_ is missing or not a number")
    if model.method == "mean" and not isinstance(getattr(model, "mean_norm_", None), float):
        _fail(path, "method='mean' needs mean_norm_ (a number)")


def _check_falkon_state(path, model):
    """Falkon ridge: coefficients of the centers, one row per center."""
    dual = getattr(model, "dual_coef_", None)
    if dual is None or dual.ndim not in (1, 2):
        _fail(path, "dual_coef_ is missing or not 1-D/2-D")
    if not isinstance(model.kernel_, Kernel):
        _fail(path, "a falkon model needs a kernel (not 'precomputed')")
    _check_inputs(path, model, "centers_", dual.shape[0])


def _check_ridge_classifier_state(path, model):
    """Kernel ridge classifier: classes, one column per class (one for two), then ridge."""
    model.classes_ = np.asarray(getattr(model, "classes_", []))
    k = len(model.classes_)
    if k < 2:
        _fail(path, f"classes_ has {k} entries, expected at least 2")
    coef = getattr(model, "coef_", None) if model.solver_ == "primal" else \
        getattr(model, "dual_coef_", None)
    cols = 1 if coef is None or coef.ndim == 1 else coef.shape[1]
    if (k == 2 and (coef is None or coef.ndim != 1)) or (k > 2 and cols != k):
        _fail(path, f"coefficients of shape {None if coef is None else coef.shape} do not "
                    f"match {k} classes")
    _check_ridge_state(path, model)


def _check_kitchen_sinks_state(path, model):
    """Random kitchen sinks: the basis parameters fit q and n_features; beta fits q."""
    is_map = isinstance(model, RandomKitchenSinks)
    fmap = RandomKitchenSinks() if is_map else model._feature_map()
    if is_map:
        fmap.set_params(**model.get_params(deep=False))
    for attr in ("gamma_", "bandwidth_"):
        value = getattr(model, attr, None)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                  or not value > 0):
            _fail(path, f"invalid {attr} {value!r}")
    try:
        restore_fitted(fmap, getattr(model, "random_weights_", None),
                       getattr(model, "random_offset_", None), model.n_features_in_,
                       gamma_=getattr(model, "gamma_", None),
                       bandwidth_=getattr(model, "bandwidth_", None))
    except ValueError as exc:
        _fail(path, f"invalid random features: {exc}")
    if is_map:
        if getattr(model, "n_components_", None) != fmap.n_components_:
            _fail(path, f"n_components_ is {getattr(model, 'n_components_', None)!r}, expected "
                        f"{fmap.n_components_}")
        model.random_weights_, model.random_offset_ = fmap.random_weights_, fmap.random_offset_
        return
    q = fmap.n_components_
    coef, icpt = getattr(model, "coef_", None), getattr(model, "intercept_", None)
    if coef is not None and icpt is not None and coef.ndim == 1 and icpt.shape == (1,):
        icpt = icpt.reshape(())  # a float intercept is written as a 1-element array
    if coef is None or icpt is None or coef.ndim not in (1, 2) or coef.shape[0] != q or \
            icpt.shape != coef.shape[1:]:
        _fail(path, f"coef_ {None if coef is None else coef.shape} and intercept_ "
                    f"{None if icpt is None else icpt.shape} do not fit {q} features")
    if np.abs(coef).max() > model.C / q * (1 + 1e-12):
        _fail(path, f"coef_ leaves the box |beta_i| <= C / q = {model.C / q}")
    if hasattr(model, "classes_"):
        model.classes_ = np.asarray(model.classes_)
        k = len(model.classes_)
        if k < 2 or coef.shape[1:] != (() if k == 2 else (k,)):
            _fail(path, f"coef_ has shape {coef.shape} for {k} classes")
    if icpt.ndim == 0:
        model.intercept_ = float(icpt)
    model.feature_map_ = fmap
    model.random_weights_, model.random_offset_ = fmap.random_weights_, fmap.random_offset_
