"""The state checks of the transformers a model file may hold: kernelkit's feature
maps (on their own or as pipeline steps), and the scikit-learn scalers a kernel
model usually sits behind (StandardScaler, MinMaxScaler, RobustScaler). Each checks
that the restored state is consistent (1-D arrays of one length per input feature,
positive scales, a feature map that matches its kernel). The allow-list that names
them, with their attributes, is :mod:`._allowlist`.

OneHotEncoder and SimpleImputer (and ColumnTransformers of these steps) keep
fitted state in private attributes that change between scikit-learn versions:
their files hold the public state only, rebuilt on load by ``_preprocessors``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import validate_params
from ..features import explicit_feature_dim
from ..features.random_fourier import restore_scale
from ..features.taylor import taylor_feature_dim
from ._format import fail

__all__ = ["SCALER_ARRAYS", "WL_ARRAYS", "check_scaler", "check_random_fourier",
           "check_nystroem", "check_explicit", "check_taylor", "check_wl_features"]

#: The fitted arrays of the scalers and of the Weisfeiler-Lehman vocabulary (their
#: checks look at each of them).
WL_ARRAYS = ("level_sizes_", "label_codes_", "label_offsets_", "signature_values_",
             "signature_offsets_")
SCALER_ARRAYS = {"StandardScaler": ("mean_", "var_", "scale_"),
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


def check_scaler(path, model):
    name = type(model).__name__
    try:
        validate_params(model.get_params(deep=False), _SCALER_PARAMS[name], name)
    except ValueError as exc:
        fail(path, str(exc))
    n = getattr(model, "n_features_in_", None)
    for attr in ("mean_", "var_", "scale_", "center_"):  # None (not stored) means "not used"
        if not hasattr(model, attr) and attr in SCALER_ARRAYS[name]:
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


def check_random_fourier(path, model):
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


def check_nystroem(path, model):
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


def check_explicit(path, model):
    D = explicit_feature_dim(model.kernel_, model.n_features_in_)
    if D is None or D != getattr(model, "n_components_", None):
        fail(path, f"n_components_={getattr(model, 'n_components_', None)!r} does not match "
                   f"the explicit feature map of {model.kernel_!r} ({D})")


def check_taylor(path, model):
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


def check_wl_features(path, model):
    """WeisfeilerLehmanFeatures: a vocabulary whose arrays agree (sizes, offsets, labels)."""
    for attr in WL_ARRAYS:
        arr = getattr(model, attr, None)
        if arr is None or arr.ndim != 1 or arr.dtype != np.int64:
            fail(path, f"WeisfeilerLehmanFeatures.{attr} must be a 1-D int64 array")
    try:
        model._vocabulary_from_arrays()
    except ValueError as exc:
        fail(path, f"WeisfeilerLehmanFeatures: inconsistent vocabulary ({exc})")
