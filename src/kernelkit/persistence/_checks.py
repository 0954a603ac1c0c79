"""The checks every entry of the model-file allow-list shares: is a model fitted,
are its sizes and kernel sound, are its restored numbers in range, do its stored
inputs and arrays have the shapes the other attributes imply.

The allow-list itself (which classes, which attributes) is :mod:`._allowlist`;
this module and the ``_*_checks`` modules only supply the checks.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ..kernels import Kernel, parse_kernel
from ..kernels.objects import takes_objects
from ._format import fail as _fail

__all__ = ["Entry", "is_fitted", "check_ranges", "then_check_ranges", "check_common_state",
           "check_shape", "on_objects", "rows_kind", "check_inputs", "check_fit_inputs"]


class Entry(NamedTuple):
    """One class a model file may hold: the class, its fitted attributes stored as
    arrays and as JSON, and the check that a restored state is one consistent
    fitted model (``check(path, model)`` raises ``ModelFormatError``)."""

    cls: type
    arrays: tuple
    scalars: tuple
    check: Callable


def is_fitted(model):
    kernel = getattr(model, "kernel_", None)
    # a model on objects has no n_features_in_: its kernel, or (a feature map of graphs,
    # WeisfeilerLehmanFeatures) its vocabulary says it is fitted
    return hasattr(model, "n_features_in_") or takes_objects(kernel) or \
        hasattr(model, "vocabulary_")



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


def then_check_ranges(check):
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


def check_shape(path, model, attr, shape, dtype_kind="f"):
    arr = getattr(model, attr, None)
    if arr is None or arr.shape != shape or arr.dtype.kind != dtype_kind:
        _fail(path, f"{attr} has shape {None if arr is None else arr.shape} and dtype "
                    f"{None if arr is None else arr.dtype}; expected {shape} "
                    f"{ {'i': 'integers', 'U': 'strings', 'O': 'objects'}.get(dtype_kind, 'floats')}")



def on_objects(model):
    """Whether the model's kernel takes strings or objects (sets, trees, ...), not rows."""
    return takes_objects(getattr(model, "kernel_", None))


def rows_kind(model):
    """dtype kind of the stored inputs of a kernel on strings ("U") or on objects ("O")."""
    return "U" if model.kernel_.input_kind == "string" else "O"



# ---- stored inputs (vectors, strings or objects) and their k(x, x) -----------------
def check_inputs(path, model, name, n_rows=None):
    """Stored inputs ``name``: (n, n_features_in_) numbers, or (n,) strings for a string
    kernel; ``n_rows`` if given. Returns n."""
    A = getattr(model, name, None)
    if on_objects(model):
        ok = A is not None and A.ndim == 1 and A.dtype.kind == rows_kind(model)
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


def check_fit_inputs(path, model, with_diag=True):
    """X_fit_ (vectors or strings, see check_inputs) and k(x, x) of shape (n,); returns n."""
    n = check_inputs(path, model, "X_fit_")
    if with_diag:
        check_shape(path, model, "diag_fit_", (n,))
    return n

