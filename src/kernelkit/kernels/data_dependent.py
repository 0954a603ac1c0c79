"""Data-dependent kernel parameters: scikit-learn's ``gamma="scale"`` and ``"auto"``.

A kernel may hold ``gamma="scale"`` or ``gamma="auto"`` instead of a number.
The value is then a function of the training inputs, fixed once at fit:
every estimator calls :meth:`Kernel.resolve` on its training X and stores the
returned kernel (numbers only) as ``kernel_``, leaving the user's ``kernel``
parameter as given (so ``clone`` and grid search see what the user wrote).
A kernel still holding such a rule refuses to compute values, with a message
that says to resolve it or pass a number.

The rules are scikit-learn's (``sklearn.svm.SVC``):

- ``"scale"``: ``1 / (n_features * X.var())`` (the variance of all entries of
  X), or 1.0 when that variance is 0;
- ``"auto"``: ``1 / n_features``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GAMMA_RULES", "gamma_from_data", "unresolved_params", "check_resolved"]

#: The data-dependent values a ``gamma`` may take.
GAMMA_RULES = ("scale", "auto")


def _variance(X):
    """Variance of every entry of X in float64 (scipy.sparse: as scikit-learn computes it)."""
    if hasattr(X, "multiply") and hasattr(X, "tocsr"):  # scipy.sparse matrix or array
        return float(X.multiply(X).mean() - X.mean() ** 2)
    return float(np.asarray(X).var(dtype=np.float64))


def gamma_from_data(rule, X):
    """The number a data-dependent gamma stands for, on training inputs X.

    Parameters
    ----------
    rule : {"scale", "auto"}
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The training inputs, already validated.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> gamma_from_data("auto", np.zeros((3, 4)))
    0.25
    >>> gamma_from_data("scale", np.array([[0.0, 2.0], [2.0, 0.0]]))  # var = 1
    0.5
    """
    if rule not in GAMMA_RULES:
        raise ValueError(f"gamma rule must be one of {GAMMA_RULES}, got {rule!r}")
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] == 0:
        raise ValueError(f"gamma={rule!r} needs 2-D numeric training inputs (n_samples, "
                         f"n_features), got shape {shape}")
    d = shape[1]
    if rule == "auto":
        return 1.0 / d
    var = _variance(X)
    return 1.0 / (d * var) if var != 0 else 1.0


def unresolved_params(kernel):
    """Names of ``kernel``'s own parameters still holding a rule such as ``"scale"``."""
    return [name for name in type(kernel)._data_dependent_params
            if isinstance(getattr(kernel, name, None), str)]


def check_resolved(kernel, *, deep=False):
    """Raise ValueError if ``kernel`` (and with ``deep`` its sub-kernels) holds a gamma rule.

    The deep walk is iterative (sums of thousands of terms, no recursion) and
    runs once per :meth:`Kernel.prepare`; :meth:`Kernel.block` checks the
    kernel's own parameters only.
    """
    from .base import Kernel

    stack = [kernel]
    while stack:
        k = stack.pop()
        names = unresolved_params(k)
        if names:
            name = names[0]
            raise ValueError(
                f"{k!r}: {name}={getattr(k, name)!r} depends on the training data, so this "
                "kernel cannot compute values yet. Estimators resolve it in fit (the fitted "
                "kernel is their kernel_); to evaluate the kernel directly, call "
                f"kernel.resolve(X_train) first, or pass a number ({name}=0.5)")
        if deep:
            stack.extend(v for v in vars(k).values() if isinstance(v, Kernel))
