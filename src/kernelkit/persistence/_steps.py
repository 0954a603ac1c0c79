"""The allow-list of pipeline steps: kernelkit's feature maps on their own, and the
scikit-learn preprocessors a kernel model usually sits behind (StandardScaler,
MinMaxScaler, RobustScaler). Each entry names the fitted arrays and JSON
attributes and checks that the restored state is consistent (1-D arrays of one
length per input feature, positive scales, a feature map that matches its kernel).

OneHotEncoder and SimpleImputer (and ColumnTransformers of these steps) keep
fitted state in private attributes that change between scikit-learn versions:
their files hold the public state only, rebuilt on load by ``_preprocessors``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler

from .._validation import validate_params
from ..features import ExplicitFeatures, Nystroem, RandomFourierFeatures, explicit_feature_dim
from ..features.random_fourier import restore_scale
from ..features.taylor import TaylorFeatures, taylor_feature_dim
from ..features.weisfeiler_lehman import WeisfeilerLehmanFeatures
from ..kernels import Kernel
from ..models import KernelOneClassSVM, KernelSVR
from ._allowlist import registry as _estimator_registry
from ._format import fail
from ._preprocessors import preprocessor_registry

__all__ = ["step_registry"]

_NAMES = ("n_features_in_", "feature_names_in_")
_WL_ARRAYS = ("level_sizes_", "label_codes_", "label_offsets_", "signature_values_",
              "signature_offsets_")
_ARRAYS = {"StandardScaler": ("mean_", "var_", "scale_"),
           "MinMaxScaler": ("min_", "scale_", "data_min_", "data_max_", "data_range_"),
           "RobustScaler": ("center_", "scale_")}

# The parameters of the scikit-learn steps, declared in kernelkit's terms (they are
# checked only when scikit-learn fits, and a model file is never fitted again).
_SCALER_PARAMS = {
    "StandardScaler": {"copy": ["boolean"], "with_mean": ["boolean"], "with_std": ["boolean"]},
    "MinMaxScaler": {"copy": ["boolean"], "clip": ["boolean"],
                     "feature_range": [list, tuple]},
    "RobustScaler": {"copy": ["boolean"], "with_centering": ["boolean"],
                     "with_scaling": ["boolean"], "unit_variance": ["boolean"],
                     "quantile_range": [list, tuple]},
}


def _check_vector(path, model, attr, n, positive=False):
    arr = getattr(model, attr, None)
    if arr is None:
        return
    if arr.ndim != 1 or arr.shape[0] != n or arr.dtype.kind != "f":
        fail(path, f"{type(model).__name__}.{attr} has shape {arr.shape} and dtype {arr.dtype};"
                   f" expected ({n},) floats, one per input feature")
    if positive and not (arr > 0).all():
        fail(path, f"{type(model).__name__}.{attr} must be > 0 everywhere")


def _check_range(path, model, name):
    value = getattr(model, name, None)
    if value is None:
        return
    if (len(value) != 2 or not all(isinstance(v, Real) and not isinstance(v, bool)
                                   and np.isfinite(v) for v in value)
            or not value[0] < value[1]):
        fail(path, f"{type(model).__name__}.{name} must be two finite numbers, low < high, "
                   f"got {value!r}")
    setattr(model, name, tuple(value))


def _check_scaler(path, model):
    name = type(model).__name__
    try:
        validate_params(model.get_params(deep=False), _SCALER_PARAMS[name], name)
    except ValueError as exc:
        fail(path, str(exc))
    n = getattr(model, "n_features_in_", None)
    for attr in ("mean_", "var_", "scale_", "center_"):  # None (not stored) means "not used"
        if not hasattr(model, attr) and attr in _ARRAYS[name]:
            setattr(model, attr, None)
    for attr in ("mean_", "var_", "min_", "data_min_", "data_max_", "center_"):
        _check_vector(path, model, attr, n)
    for attr in ("scale_", "data_range_"):
        _check_vector(path, model, attr, n, positive=attr == "scale_")
    if name == "StandardScaler" and model.with_mean and getattr(model, "mean_", None) is None:
        fail(path, "StandardScaler.mean_ is missing")
    if name in ("StandardScaler", "RobustScaler") and getattr(model, "with_std", True) and \
            getattr(model, "with_scaling", True) and getattr(model, "scale_", None) is None:
        fail(path, f"{name}.scale_ is missing")
    if name == "MinMaxScaler":
        for attr in ("min_", "scale_", "data_min_", "data_max_", "data_range_"):
            if getattr(model, attr, None) is None:
                fail(path, f"MinMaxScaler.{attr} is missing")
        _check_range(path, model, "feature_range")
    if name == "RobustScaler":
        _check_range(path, model, "quantile_range")
    seen = getattr(model, "n_samples_seen_", None)
    if seen is not None and not (
            (isinstance(seen, Real) and not isinstance(seen, bool) and seen >= 1)
            or (isinstance(seen, np.ndarray) and seen.shape == (n,) and (seen >= 0).all())):
        fail(path, f"{name}.n_samples_seen_ must be a positive count, got {seen!r}")


def _check_random_fourier(path, model):
    W = getattr(model, "random_weights_", None)
    n, D = model.n_features_in_, getattr(model, "n_components_", None)
    if not isinstance(D, int) or isinstance(D, bool) or D < 1:
        fail(path, f"invalid n_components_ {D!r}")
    cols = D if model.variant == "cos_bias" else D // 2
    if W is None or W.ndim != 2 or W.shape != (n, cols) or W.dtype.name != model.dtype:
        fail(path, f"random_weights_ has shape {None if W is None else W.shape}; expected "
                   f"({n}, {cols}) {model.dtype}")
    offset = model.random_offset_ = getattr(model, "random_offset_", None)  # None: not stored
    if (model.variant == "cos_bias") != (offset is not None) or (
            offset is not None and offset.shape != (D,)):
        fail(path, f"random_offset_ does not fit variant={model.variant!r} and {D} components")
    try:
        restore_scale(model)
    except ValueError as exc:
        fail(path, f"the kernel has no random feature map: {exc}")


def _check_nystroem(path, model):
    C, N = getattr(model, "components_", None), getattr(model, "normalization_", None)
    D = getattr(model, "n_components_", None)
    if C is None or N is None or N.ndim != 2 or N.shape[0] != C.shape[0] or N.shape[1] != D:
        fail(path, f"components_ and normalization_ do not agree (shapes "
                   f"{None if C is None else C.shape}, {None if N is None else N.shape}, "
                   f"n_components_={D!r})")
    if isinstance(model.kernel_, str):  # kernel="precomputed": rows of K at the centers
        idx = getattr(model, "component_indices_", None)
        n = getattr(model, "n_features_in_", -1)
        if model.kernel_ != "precomputed" or idx is None or idx.ndim != 1 or \
                idx.dtype.kind != "i" or idx.shape[0] != len(C) or (idx < 0).any() or \
                (idx >= n).any() or C.ndim != 2 or C.dtype.kind != "f" or C.shape[1] != n:
            fail(path, "a precomputed Nystroem needs components_ (M, n_samples_fit) and "
                       "component_indices_ (M,) within the training samples")
        return
    if model.kernel_.input_kind not in ("vector", "any"):
        kind = "U" if model.kernel_.input_kind == "string" else "O"
        if C.ndim != 1 or C.dtype.kind != kind:
            fail(path, f"components_ of a kernel on {model.kernel_.input_kind}s must be "
                       f"{model.kernel_.input_kind}s")
    elif C.ndim != 2 or C.dtype.kind != "f" or C.shape[1] != getattr(model, "n_features_in_", -1):
        fail(path, f"components_ has shape {C.shape}; expected (M, n_features_in_) floats")
    idx = model.component_indices_ = getattr(model, "component_indices_", None)
    if idx is not None and (idx.ndim != 1 or idx.shape[0] != C.shape[0] or idx.dtype.kind != "i"
                            or (idx < 0).any()):
        fail(path, "component_indices_ must be one non-negative index per component")


def _check_explicit(path, model):
    D = explicit_feature_dim(model.kernel_, model.n_features_in_)
    if D is None or D != getattr(model, "n_components_", None):
        fail(path, f"n_components_={getattr(model, 'n_components_', None)!r} does not match "
                   f"the explicit feature map of {model.kernel_!r} ({D})")


def _check_taylor(path, model):
    """TaylorFeatures: a finite gamma_ > 0 and C(d + p, p) components."""
    from .._budget import fits

    g, d = getattr(model, "gamma_", None), getattr(model, "n_features_in_", None)
    if not isinstance(g, float) or not (np.isfinite(g) and g > 0):
        fail(path, f"TaylorFeatures.gamma_ must be a finite number > 0, got {g!r}")
    if not isinstance(d, int) or isinstance(d, bool) or d < 1:
        fail(path, f"TaylorFeatures.n_features_in_ must be a positive count, got {d!r}")
    D = taylor_feature_dim(d, model.degree)
    if getattr(model, "n_components_", None) != D or not fits(8.0 * D * 4):
        fail(path, f"TaylorFeatures.n_components_={getattr(model, 'n_components_', None)!r} "
                   f"is not C({d} + {model.degree}, {model.degree}) = {D}, or its tables "
                   "exceed the memory budget")
    model._build_tables()


def _check_wl_features(path, model):
    """WeisfeilerLehmanFeatures: a vocabulary whose arrays agree (sizes, offsets, labels)."""
    for attr in _WL_ARRAYS:
        arr = getattr(model, attr, None)
        if arr is None or arr.ndim != 1 or arr.dtype != np.int64:
            fail(path, f"WeisfeilerLehmanFeatures.{attr} must be a 1-D int64 array")
    try:
        model._vocabulary_from_arrays()
    except ValueError as exc:
        fail(path, f"WeisfeilerLehmanFeatures: inconsistent vocabulary ({exc})")


def _check_svr(path, model):
    """KernelSVR: one coefficient per support vector, indices within the fit."""
    dual, sup = getattr(model, "dual_coef_", None), getattr(model, "support_", None)
    b = getattr(model, "intercept_", None)
    if dual is None or dual.ndim != 2 or dual.shape[0] != 1 or sup is None or \
            sup.ndim != 1 or sup.shape[0] != dual.shape[1] or sup.dtype.kind != "i" or \
            (sup < 0).any() or b is None or b.shape != (1,):
        fail(path, "dual_coef_ (1, n_SV), support_ (n_SV,) and intercept_ (1,) disagree")
    sv = getattr(model, "support_vectors_", None)
    if isinstance(model.kernel_, Kernel):
        if sv is None or sv.shape[0] != sup.shape[0]:
            fail(path, "support_vectors_ must hold one row per support vector")
        if sv.dtype.kind == "f" and (sv.ndim != 2 or sv.shape[1] != model.n_features_in_):
            fail(path, f"support_vectors_ has shape {sv.shape}")
    else:
        model.support_vectors_ = None
        if (sup >= model.n_features_in_).any():
            fail(path, "support_ indexes beyond the precomputed training columns")


def _check_one_class(path, model):
    """KernelOneClassSVM: as KernelSVR, and 0 <= a_i (the box), a finite offset = -intercept."""
    _check_svr(path, model)
    dual = model.dual_coef_
    if dual.dtype.kind != "f" or not np.isfinite(dual).all() or (dual < 0).any():
        fail(path, "dual_coef_ of a one-class SVM must be finite and >= 0")
    offset = getattr(model, "offset_", None)
    if not isinstance(offset, float) or not np.isfinite(offset) or \
            offset != -float(model.intercept_[0]):
        fail(path, "offset_ must be a finite number equal to -intercept_[0]")


# KernelSVC's entry in _allowlist, with the attributes of probability=True and SMO's
# final violation (optional: absent from older files, and probA_/probB_ only when
# probability=True), kept here while that module is being edited.
_SVC_EXTRA_ARRAYS = ("max_violation_", "probA_", "probB_")


def _check_svc(path, model):
    """KernelSVC: the base entry's check, then one finite sigmoid per binary problem
    (with A <= 0 not required: a sigmoid fitted to poor decision values may rise)."""
    _estimator_registry()["KernelSVC"][3](path, model)
    n_problems = model.intercept_.shape[0]
    has = [hasattr(model, a) for a in ("probA_", "probB_")]
    if any(has) and not all(has):
        fail(path, "probA_ and probB_ come together")
    if all(has) != bool(model.probability):
        fail(path, f"probability={model.probability!r} but probA_/probB_ are "
                   f"{'present' if all(has) else 'absent'}")
    for attr in _SVC_EXTRA_ARRAYS:
        arr = getattr(model, attr, None)
        if arr is not None and (arr.shape != (n_problems,) or arr.dtype.kind != "f"):
            fail(path, f"KernelSVC.{attr} has shape {arr.shape} and dtype {arr.dtype}; "
                       f"expected ({n_problems},) floats, one per binary problem")


def _svc_entry():
    cls, arrays, scalars, _ = _estimator_registry()["KernelSVC"]
    return cls, tuple(arrays) + _SVC_EXTRA_ARRAYS, scalars, _check_svc


def step_registry():
    """Name -> (class, array attributes, JSON attributes, state check)."""
    return {
        "StandardScaler": (StandardScaler, _ARRAYS["StandardScaler"],
                           ("n_samples_seen_",) + _NAMES, _check_scaler),
        "MinMaxScaler": (MinMaxScaler, _ARRAYS["MinMaxScaler"], ("n_samples_seen_",) + _NAMES,
                         _check_scaler),
        "RobustScaler": (RobustScaler, _ARRAYS["RobustScaler"], _NAMES, _check_scaler),
        "RandomFourierFeatures": (RandomFourierFeatures, ("random_weights_", "random_offset_"),
                                  ("n_components_",) + _NAMES, _check_random_fourier),
        "Nystroem": (Nystroem, ("components_", "component_indices_", "normalization_"),
                     ("n_components_",) + _NAMES, _check_nystroem),
        "ExplicitFeatures": (ExplicitFeatures, (), ("n_components_",) + _NAMES,
                             _check_explicit),
        "TaylorFeatures": (TaylorFeatures, (), ("gamma_", "n_components_") + _NAMES,
                           _check_taylor),
        "WeisfeilerLehmanFeatures": (WeisfeilerLehmanFeatures, _WL_ARRAYS, ("n_components_",),
                                     _check_wl_features),
        # an estimator, kept here (not in _allowlist) while that module is being edited
        "KernelSVR": (KernelSVR, ("dual_coef_", "support_vectors_", "intercept_", "support_"),
                      ("n_iter_", "dual_objective_", "duality_gap_") + _NAMES, _check_svr),
        "KernelSVC": _svc_entry(),
        "KernelOneClassSVM": (KernelOneClassSVM,
                              ("dual_coef_", "support_vectors_", "intercept_", "support_"),
                              ("offset_", "n_iter_", "objective_", "max_violation_") + _NAMES,
                              _check_one_class),
        **preprocessor_registry(),  # OneHotEncoder, SimpleImputer
    }
