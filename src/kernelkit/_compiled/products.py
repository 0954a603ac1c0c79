"""The product of a big matrix with a few columns, reading the matrix once.

Conjugate gradient for several right-hand sides (the k-fold ridge's alphas) spends
about half its time in ``K V`` with 1-8 columns: at m = 6,400-12,800 rows a
memory-bound pass over an m x m float64 matrix. OpenBLAS reads the matrix once per
column there (GEMM with 2-5 columns took 3-4 matrix-vector products' time; a loop of
matrix-vector products k of them): with 5 columns at m = 12,800 on the 2-core
machine, 0.13 s as one GEMM, 0.17 s as a loop, 0.06 s here (0.034 s for one column).

Arithmetic is float64 whatever the matrix's storage (float32 entries are widened as
they are read). The row sums are reassociated (``fastmath`` ``reassoc``) so they
vectorise: results differ from a sequential sum by rounding only (the plain-numpy
twin in :mod:`._reference` agrees to ~1e-15 relative).

(Blocked triangular solves with a few columns in the same style were tried for the
preconditioner and were no faster than ``strsv`` per column: 0.076 s vs 0.058 s for
the two solves with 2 columns; they are not kept.)
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._common import _check_2d

# Reassociated sums vectorise (no NaN or inf licence: those propagate as in numpy).
_jit_sum = dict(parallel=True, cache=True, nogil=True, error_model="numpy",
                fastmath={"reassoc", "contract"})



@njit(inline="always", error_model="numpy", cache=True, fastmath={"reassoc", "contract"})
def _row_dots(K, Vt, Ot, i):
    """``Ot[:, i] = Vt @ K[i]`` (one row, the tail of :func:`_matmat_t`)."""
    row = K[i]
    for c in range(Vt.shape[0]):
        v = Vt[c]
        s = 0.0
        for j in range(K.shape[1]):
            s += np.float64(row[j]) * v[j]
        Ot[c, i] = s


@njit(**_jit_sum)
def _matmat_t(K, Vt, Ot):
    # four rows at a time: each load of a column's entry serves four rows (1.5x
    # faster than one row at a time with 5 columns at m = 12,800)
    m, n = K.shape
    k = Vt.shape[0]
    for q in prange((m + 3) // 4):
        i = 4 * q
        if i + 3 < m:
            r0, r1, r2, r3 = K[i], K[i + 1], K[i + 2], K[i + 3]
            for c in range(k):
                v = Vt[c]
                s0 = s1 = s2 = s3 = 0.0
                for j in range(n):
                    x = v[j]
                    s0 += np.float64(r0[j]) * x
                    s1 += np.float64(r1[j]) * x
                    s2 += np.float64(r2[j]) * x
                    s3 += np.float64(r3[j]) * x
                Ot[c, i], Ot[c, i + 1], Ot[c, i + 2], Ot[c, i + 3] = s0, s1, s2, s3
        else:
            for r in range(i, m):
                _row_dots(K, Vt, Ot, r)
    return Ot


def matmat_t(K, Vt, Ot):
    """``Ot = (K @ Vt.T).T``: the product of ``K`` with k columns, reading K once.

    ``K``: (m, n) float64/float32 C-contiguous; ``Vt``: (k, n) float64
    C-contiguous (the columns as rows); ``Ot``: (k, m) float64 C-contiguous, not
    overlapping the others. Returns ``Ot``.
    """
    _check_2d("K", K, rows=True)
    _check_rows("Vt", Vt, K.shape[1])
    _check_rows("Ot", Ot, K.shape[0], k=Vt.shape[0])
    return _matmat_t(K, Vt, Ot)


def _check_rows(name, A, n, k=None):
    if (not isinstance(A, np.ndarray) or A.ndim != 2 or A.dtype != np.float64
            or not A.flags.c_contiguous or A.shape[1] != n
            or (k is not None and A.shape[0] != k)):
        want = f"({'k' if k is None else k}, {n})"
        got = (f"{A.dtype} {A.shape}" if isinstance(A, np.ndarray) else type(A).__name__)
        raise ValueError(f"{name} must be a C-contiguous float64 array of shape {want}, "
                         f"got {got}")
