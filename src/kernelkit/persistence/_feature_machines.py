"""Kernel machines that learnt w on a feature map of their own, in model files.

``KernelMachine(features=RandomFourierFeatures(...))`` (and the classifier, and a
features strategy of a kernel without a finite map, which draws random Fourier
features itself; and ``KernelRidgeCV``/``KernelRidgeClassifierCV`` with
``solver="features"``) predict through ``feature_map_.transform(X) @ coef_``: the
file must hold that fitted map. It is written as a nested node ``"feature_map"`` of
the machine's node (an allow-listed feature map with its own arrays under the
member prefix ``feature_map/``, checked by its own entry on load), and the
``features`` parameter, an unfitted transformer, as ``{"estimator": {"name": ...,
"params": {...}}}``. A kernelkit older than this format refuses such a file
("malformed parameter" or "unexpected contents") instead of misreading it.

On load :func:`check_machine_state` checks that the restored map is the one the
parameters describe (same class and parameters as ``features``), that it was
fitted on the machine's inputs (``n_features_in_``), and that ``coef_`` has one
row per feature of the map.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_params
from ..features import ExplicitFeatures, Nystroem, RandomFourierFeatures, RandomKitchenSinks
from ._checks import check_ranges
from ._format import fail, param_from_json, param_to_json

__all__ = ["FEATURE_MAPS", "FEATURE_MAP_KEY", "encode_features_param", "decode_features_param",
           "needs_feature_map_node", "with_feature_map", "MACHINES"]

#: The feature maps a kernel machine's file may hold (each has its own allow-list entry).
FEATURE_MAPS = {cls.__name__: cls for cls in (RandomFourierFeatures, Nystroem,
                                              ExplicitFeatures, RandomKitchenSinks)}
#: The key of the nested node, and the member prefix of its arrays.
FEATURE_MAP_KEY = "feature_map"
#: The estimators whose state may include a feature map of their own.
MACHINES = ("KernelMachine", "KernelMachineClassifier", "KernelLogisticRegression",
            "KernelRidgeCV", "KernelRidgeClassifierCV")  # the last two: solver="features"


def encode_features_param(name, value):
    """The JSON form of a machine's ``features`` parameter (None, or a feature map)."""
    if value is None:
        return {"value": None}
    kind = type(value).__name__
    if FEATURE_MAPS.get(kind) is not type(value):
        raise ValueError(f"cannot save this model: features={value!r} is not one of kernelkit's "
                         f"feature maps ({', '.join(FEATURE_MAPS)}); a model file holds those "
                         "only (a file holds data, never code)")
    params = {k: param_to_json(f"{name}__{k}", v)
              for k, v in value.get_params(deep=False).items()}
    return {"estimator": {"name": kind, "params": params}}


def decode_features_param(path, obj):
    """The unfitted feature map of a stored ``features`` parameter."""
    if not (isinstance(obj, dict) and set(obj) == {"estimator"}):
        return param_from_json(path, obj)  # None, or a malformed value (refused there)
    spec = obj["estimator"]
    if not (isinstance(spec, dict) and set(spec) == {"name", "params"}
            and isinstance(spec["params"], dict)):
        fail(path, f"malformed features parameter {obj!r}")
    cls = FEATURE_MAPS.get(spec["name"]) if isinstance(spec["name"], str) else None
    if cls is None:
        fail(path, f"features must be one of {', '.join(FEATURE_MAPS)}, got {spec['name']!r}")
    params = {k: param_from_json(path, v) for k, v in spec["params"].items()}
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        fail(path, f"unknown parameters {sorted(unknown)} for the features {spec['name']}")
    try:
        fmap = cls(**params)
        check_params(fmap)
    except (TypeError, ValueError) as exc:
        fail(path, f"invalid parameters of the features {spec['name']}: {exc}")
    return fmap


def _primal(model):
    """Whether the model predicts as psi(x)'w (kernel machines' representation_, the
    ridge learners' solver_)."""
    rep = getattr(model, "representation_", None)
    return (rep if rep is not None else getattr(model, "solver_", None)) == "primal"


def needs_feature_map_node(model):
    """Whether ``model`` predicts through a feature map that must be stored: a primal
    kernel machine fitted with ``features=`` or with random features it drew itself
    (an ExplicitFeatures of its own kernel is rebuilt on load, as before)."""
    if type(model).__name__ not in MACHINES or not _primal(model):
        return False
    fmap = getattr(model, "feature_map_", None)
    return getattr(model, "features", None) is not None or \
        not (type(fmap) is ExplicitFeatures and fmap.kernel == model.kernel_)


def _same_params(a, b):
    """Equal parameters, compared in their file form (kernels, numbers, strings)."""
    def form(est):
        return {k: param_to_json(k, v) for k, v in est.get_params(deep=False).items()}
    return type(a) is type(b) and form(a) == form(b)


def _check_primal_with_map(path, model):
    """A machine's primal state on its restored feature map: classes, coef_ rows = D."""
    fmap = model.feature_map_
    features = getattr(model, "features", None)  # KernelLogisticRegression has none
    if not isinstance(fmap, tuple(FEATURE_MAPS.values())):
        fail(path, f"{FEATURE_MAP_KEY}: {type(fmap).__name__} is not a feature map")
    if features is not None and not _same_params(fmap, features):
        fail(path, f"the stored feature map {fmap!r} is not the features parameter "
                   f"{features!r}")
    if features is None and not isinstance(fmap, RandomFourierFeatures):
        fail(path, "without features=, a stored feature map can only be the random Fourier "
                   f"features of the features strategies, got {type(fmap).__name__}")
    n_in = getattr(model, "n_features_in_", None)
    if getattr(fmap, "n_features_in_", None) != n_in:
        fail(path, f"the feature map was fitted on {getattr(fmap, 'n_features_in_', None)!r} "
                   f"input features, the model on {n_in!r}")
    if features is None and fmap.kernel != model.kernel_:
        fail(path, f"the random features' kernel {fmap.kernel!r} is not the model's "
                   f"{model.kernel_!r}")
    if not _primal(model):
        fail(path, "a stored feature map needs a primal model (representation_ or solver_ "
                   "'primal')")
    coef = getattr(model, "coef_", None)
    D = fmap.n_components_
    if not isinstance(coef, np.ndarray) or coef.ndim not in (1, 2) or coef.shape[0] != D:
        fail(path, f"coef_ has shape {None if coef is None else np.shape(coef)}; the feature "
                   f"map has {D} features")
    if hasattr(model, "classes_"):
        model.classes_ = np.asarray(model.classes_)
        k = len(model.classes_)
        if k < 2 or coef.shape[1:] != (() if k == 2 else (k,)):
            fail(path, f"coef_ has shape {coef.shape} for {k} classes")
    icpt = getattr(model, "intercept_", None)
    if icpt is not None:  # a number for one column, else one per column (like coef_'s)
        icpt = np.asarray(icpt, dtype=np.float64)
        if icpt.shape not in ((coef.shape[1:],) if coef.ndim == 2 else ((), (1,))):
            fail(path, f"intercept_ has shape {icpt.shape}; it does not fit coef_ {coef.shape}")
        model.intercept_ = float(icpt.reshape(-1)[0]) if coef.ndim == 1 else icpt
    for attr in ("dual_coef_", "X_fit_"):
        if getattr(model, attr, None) is not None:
            fail(path, f"a primal model on a feature map holds no {attr}")
    check_ranges(path, model)


def with_feature_map(entry):
    """A kernel machine's allow-list entry, its check extended to a restored
    ``feature_map_`` (set by the loader before the check) and ``coef_`` among its
    arrays (the ridge learners' w on random features)."""
    arrays, base_check = entry.arrays, entry.check

    def check(path, model):
        if getattr(model, "feature_map_", None) is None:
            if getattr(model, "features", None) is not None and _primal(model):
                fail(path, "a primal model fitted with features= needs its stored "
                           "feature map")
            base_check(path, model)
        else:
            _check_primal_with_map(path, model)

    check.__doc__ = base_check.__doc__
    if "coef_" not in arrays:
        arrays = tuple(arrays) + ("coef_",)
    return entry._replace(arrays=arrays, check=check)
