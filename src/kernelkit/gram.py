"""The Gram engine: kernel matrices in blocks, and a Gram operator that never stores K.

``gram(kernel, X)`` is ``kernel(X)``: the work is split into row blocks whose
temporaries fit the memory budget (``kernelkit.config``), numbers are
accumulated in float64 (float32 inputs included), squared distances are
clamped at 0 and the diagonal of a symmetric distance-kernel Gram matrix is
exact. ``GramOperator`` applies K (or K + shift I) to vectors block by block,
for iterative solvers on problems whose K does not fit in memory.
"""

from __future__ import annotations

import numpy as np

from . import config
from .kernels import resolve_kernel
from .kernels.base import pairwise_blocked, rows_per_block
from ._validation import check_same_n_features

__all__ = ["gram", "GramOperator"]


def _validated(kernel, X, Y):
    kernel = resolve_kernel(kernel)
    X = kernel.check_input(X, "X")
    if Y is not None:
        Y = kernel.check_input(Y, "Y")
        if kernel.input_kind == "vector":
            check_same_n_features(X, Y)
    return kernel, X, Y


def gram(kernel, X, Y=None):
    """Kernel matrix ``K[i, j] = k(X[i], Y[j])`` in blocks within the memory budget.

    Parameters
    ----------
    kernel : Kernel or str
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.
    X : array-like of shape (n_samples_X, n_features), or a list of strings
    Y : same kind as X, optional
        Defaults to X: the symmetric Gram matrix, with an exact diagonal.

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Y)
        float64, or float32 under ``config_context(dtype="float32")`` for
        float32 input.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import gram
    >>> gram("rbf(gamma=0.5)", np.array([[0.0], [1.0]])).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    kernel, X, Y = _validated(kernel, X, Y)
    return pairwise_blocked(kernel, X, Y)


class GramOperator:
    """The linear operator v -> (K(X, Y) + shift I) v, computed block by block.

    K is never stored unless ``cache`` says so: each product recomputes the
    kernel rows of one block at a time, so memory stays within the budget
    whatever n is. It has the ``shape``, ``dtype``, ``matvec`` and ``matmat``
    of a scipy ``LinearOperator`` (see :meth:`aslinearoperator`).

    Parameters
    ----------
    kernel : Kernel or str
    X : array-like of shape (n_samples, n_features)
        Rows of the operator.
    Y : array-like of shape (m_samples, n_features), optional
        Columns (default X: the square Gram matrix).
    shift : float, default=0.0
        Added to the diagonal (the ridge term); only for square operators.
    cache : {"auto", True, False}, default=False
        Store K after the first product: ``True`` always, ``"auto"`` when it
        takes at most half of the memory budget.
    """

    def __init__(self, kernel, X, Y=None, *, shift=0.0, cache=False):
        self.kernel, self._X, Y = _validated(kernel, X, Y)
        self._symmetric = Y is None
        self._Y = self._X if Y is None else Y
        if shift != 0 and not self._symmetric:
            raise ValueError("shift is only defined for a square operator (Y=None)")
        self.shift = float(shift)
        self._Xp, self._Yp = self.kernel._prepare(self._X, self._Y)
        self.shape = (len(self._X), len(self._Y))
        self.dtype = np.dtype(np.float64)
        if cache == "auto":
            cache = self.shape[0] * self.shape[1] * 8 <= config.get_config()["memory"] // 2
        self._cache = bool(cache)
        self._K = None

    def _blocks(self):
        step = rows_per_block(self.shape[1])
        for r0 in range(0, self.shape[0], step):
            r1 = min(self.shape[0], r0 + step)
            yield r0, r1, self.kernel._block(self._Xp[r0:r1], self._Yp,
                                             r0 if self._symmetric else -1)

    def matmat(self, V):
        """(K + shift I) V for V of shape (m_samples, k)."""
        V = np.asarray(V, dtype=np.float64)
        if V.ndim != 2 or V.shape[0] != self.shape[1]:
            raise ValueError(f"V must have shape ({self.shape[1]}, k), got {V.shape}")
        if self._cache and self._K is None:
            K = np.empty(self.shape)
            for r0, r1, block in self._blocks():
                K[r0:r1] = block
            self._K = K  # only once complete: a failed product leaves no half-filled cache
        if self._K is not None:
            out = self._K @ V
        else:
            out = np.empty((self.shape[0], V.shape[1]))
            for r0, r1, block in self._blocks():
                np.matmul(block, V, out=out[r0:r1])
        if self.shift:
            out += self.shift * V
        return out

    def matvec(self, v):
        """(K + shift I) v for v of shape (m_samples,)."""
        v = np.asarray(v, dtype=np.float64)
        if v.ndim != 1:
            raise ValueError(f"v must be 1-D, got shape {v.shape}")
        return self.matmat(v[:, None])[:, 0]

    def __matmul__(self, V):
        V = np.asarray(V)
        return self.matvec(V) if V.ndim == 1 else self.matmat(V)

    def aslinearoperator(self):
        """This operator as a ``scipy.sparse.linalg.LinearOperator``."""
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(self.shape, matvec=self.matvec, matmat=self.matmat,
                              dtype=np.float64)
