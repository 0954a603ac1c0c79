"""What the kernels on real vectors share: inner products and squared norms of
blocks (float64 accumulation, sparse rows through :mod:`._sparse`), the bound of
|x'y| that proves their values finite, and the width constraints of ``gamma``.

Used by :mod:`.vector` and :mod:`.rbf`; imports neither.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import Interval, Options
from . import _sparse
from .base import max_abs
from .data_dependent import GAMMA_RULES


_POSITIVE = Interval(Real, 0, None, closed="neither")
# A gamma > 0, or scikit-learn's data-dependent rules, fixed at fit by Kernel.resolve(X).
_GAMMA = Options(str, GAMMA_RULES)


def _sq_norms(X):
    if _sparse.is_sparse(X):
        return _sparse.sparse_sq_norms(X)
    return np.einsum("ij,ij->i", X, X)


def _inner_into(X, Y, out):
    """X @ Y.T into ``out`` when it is float64, else into a float64 temporary.

    Accumulation stays float64 whatever the storage dtype of the result.
    Sparse rows: the sparse product, written into the dense block.
    """
    if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
        return _sparse.inner_into(X, Y, out)
    G = out if out.dtype == np.float64 else np.empty(out.shape)
    np.matmul(X, Y.T, out=G)
    return G


def _inner_bound(X, Y):
    """A bound of |x'y| and of every partial sum of it: d max|x| max|y| (inf on overflow)."""
    return X.shape[1] * max_abs(X) * max_abs(Y)
