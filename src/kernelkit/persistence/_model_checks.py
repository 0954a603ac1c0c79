"""The state checks of kernelkit's kernel ridge learners, kernel machines, neighbours,
kernel k-means, the outlier detector and random kitchen sinks: that a restored state
is one consistent fitted model (shapes agree with each other). The allow-list that
names them is :mod:`._allowlist`.
"""

from __future__ import annotations

import numpy as np

from ..features import ExplicitFeatures, RandomKitchenSinks
from ..features.kitchen_sinks import restore_fitted
from ..kernels import Kernel
from ._checks import check_fit_inputs, check_inputs, check_shape, on_objects, rows_kind
from ._format import fail as _fail

__all__ = ["check_kernel_machine_state", "check_ridge_state", "check_ridge_classifier_state",
           "check_neighbors_state", "check_kmeans_state", "check_outlier_state",
           "check_kitchen_sinks_state"]


def check_kernel_machine_state(path, model):
    """Kernel machines: classes (classifiers), then u + X_fit_ or w, as kernel ridge."""
    if hasattr(model, "classes_"):
        model.classes_ = np.asarray(model.classes_)
        if len(model.classes_) < 2:
            _fail(path, f"classes_ has {len(model.classes_)} entries, expected at least 2")
    if getattr(model, "representation_", None) not in ("dual", "primal"):
        _fail(path, f"invalid representation_ {getattr(model, 'representation_', None)!r}")
    if "fit_intercept" in model.get_params(deep=False):  # KernelMachine(Classifier)
        _check_ridge_intercept(path, model)
    check_ridge_state(path, model)


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


def check_ridge_state(path, model):
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
    if on_objects(model):
        if X_fit is None or X_fit.dtype.kind != rows_kind(model) or \
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



def check_neighbors_state(path, model):
    """k-NN: training inputs, their k(x, x) and targets (class indices) agree."""
    n = check_fit_inputs(path, model)
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


def check_kmeans_state(path, model):
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
        check_inputs(path, model, "components_")  # the Nystroem centers
        C = model.components_
        norm = getattr(model, "normalization_", None)
        if norm is None or norm.ndim != 2 or norm.shape[0] != C.shape[0]:
            _fail(path, "normalization_ does not match components_")
        check_shape(path, model, "cluster_centers_", (k, norm.shape[1]))
        return
    n = labels.shape[0]
    if check_fit_inputs(path, model, with_diag=False) != n:
        _fail(path, f"X_fit_ has {model.X_fit_.shape[0]} rows but labels_ has {n}")
    check_shape(path, model, "dual_coef_", (n,))
    check_shape(path, model, "center_norms_", (k,))
    check_shape(path, model, "center_membership_", (n,), "i")
    member = model.center_membership_
    if member.size and (member.min() < 0 or member.max() >= k):
        _fail(path, f"center_membership_ must be cluster indices in [0, {k})")


def check_outlier_state(path, model):
    """Outlier detector: training inputs, k(x, x), and the mean's norm for method='mean'."""
    check_fit_inputs(path, model)
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
    check_inputs(path, model, "centers_", dual.shape[0])


def check_ridge_classifier_state(path, model):
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
    check_ridge_state(path, model)


def check_kitchen_sinks_state(path, model):
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
