"""The state checks of the support vector machines (KernelSVC, KernelSVR,
KernelOneClassSVM): support indices, coefficients, intercepts and the optional
attributes agree in shape and range. The allow-list that names them is
:mod:`._allowlist`.
"""

from __future__ import annotations

import numpy as np

from ..kernels import Kernel
from ._checks import check_shape, on_objects, rows_kind
from ._format import fail as _fail

__all__ = ["check_svc_state", "check_svr_state", "check_one_class_state"]


def check_svc_state(path, model):
    """KernelSVC: classes, support indices and coefficients agree in shape; then one
    finite sigmoid per binary problem (with A <= 0 not required: a sigmoid fitted to
    poor decision values may rise) and SMO's final violation, each optional (absent
    from older files; probA_/probB_ only when probability=True)."""
    _check_svc_base(path, model)
    n_problems = model.intercept_.shape[0]
    has = [hasattr(model, a) for a in ("probA_", "probB_")]
    if any(has) and not all(has):
        _fail(path, "probA_ and probB_ come together")
    if all(has) != bool(model.probability):
        _fail(path, f"probability={model.probability!r} but probA_/probB_ are "
              f"{'present' if all(has) else 'absent'}")
    for attr in ("max_violation_", "probA_", "probB_"):
        arr = getattr(model, attr, None)
        if arr is not None and (arr.shape != (n_problems,) or arr.dtype.kind != "f"):
            _fail(path, f"KernelSVC.{attr} has shape {arr.shape} and dtype {arr.dtype}; "
                  f"expected ({n_problems},) floats, one per binary problem")


def _check_svc_base(path, model):
    """KernelSVC: classes, support indices and coefficients agree in shape."""
    model.classes_ = np.asarray(getattr(model, "classes_", []))
    k = len(model.classes_)
    if k < 2:
        _fail(path, f"classes_ has {k} entries, expected at least 2")
    check_shape(path, model, "n_support_", (k,), "i")
    if (model.n_support_ < 0).any():
        _fail(path, "n_support_ has negative counts")
    n_sv = int(model.n_support_.sum())
    ovr = model.multiclass == "ovr"
    n_problems = 1 if k == 2 else (k if ovr else k * (k - 1) // 2)
    rows = 1 if k == 2 else (k if ovr else k - 1)
    check_shape(path, model, "support_", (n_sv,), "i")
    check_shape(path, model, "dual_coef_", (rows, n_sv))
    for attr in ("intercept_", "dual_objective_", "duality_gap_"):
        check_shape(path, model, attr, (n_problems,))
    check_shape(path, model, "n_iter_", (n_problems,), "i")
    if on_objects(model):
        check_shape(path, model, "support_vectors_", (n_sv,), rows_kind(model))
    elif model.kernel_ != "precomputed":
        check_shape(path, model, "support_vectors_", (n_sv, model.n_features_in_))



def check_svr_state(path, model):
    """KernelSVR: one coefficient per support vector, indices within the fit."""
    dual, sup = getattr(model, "dual_coef_", None), getattr(model, "support_", None)
    b = getattr(model, "intercept_", None)
    if dual is None or dual.ndim != 2 or dual.shape[0] != 1 or sup is None or \
            sup.ndim != 1 or sup.shape[0] != dual.shape[1] or sup.dtype.kind != "i" or \
            (sup < 0).any() or b is None or b.shape != (1,):
        _fail(path, "dual_coef_ (1, n_SV), support_ (n_SV,) and intercept_ (1,) disagree")
    sv = getattr(model, "support_vectors_", None)
    if isinstance(model.kernel_, Kernel):
        if sv is None or sv.shape[0] != sup.shape[0]:
            _fail(path, "support_vectors_ must hold one row per support vector")
        if sv.dtype.kind == "f" and (sv.ndim != 2 or sv.shape[1] != model.n_features_in_):
            _fail(path, f"support_vectors_ has shape {sv.shape}")
    else:
        model.support_vectors_ = None
        if (sup >= model.n_features_in_).any():
            _fail(path, "support_ indexes beyond the precomputed training columns")


def check_one_class_state(path, model):
    """KernelOneClassSVM: as KernelSVR, and 0 <= a_i (the box), a finite offset = -intercept."""
    check_svr_state(path, model)
    dual = model.dual_coef_
    if dual.dtype.kind != "f" or not np.isfinite(dual).all() or (dual < 0).any():
        _fail(path, "dual_coef_ of a one-class SVM must be finite and >= 0")
    offset = getattr(model, "offset_", None)
    if not isinstance(offset, float) or not np.isfinite(offset) or \
            offset != -float(model.intercept_[0]):
        _fail(path, "offset_ must be a finite number equal to -intercept_[0]")

