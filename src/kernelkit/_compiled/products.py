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

import threading

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


@njit(inline="always", error_model="numpy", cache=True, fastmath={"reassoc", "contract"})
def _quad_dots(K, Vt, Ot, i):
    """``Ot[:, i:i+4] = Vt @ K[i:i+4].T``: four rows at a time, each load of a column's
    entry serving four rows (1.5x faster than one row at a time with 5 columns at
    m = 12,800); the last 0-3 rows one at a time."""
    m, n = K.shape
    if i + 3 < m:
        r0, r1, r2, r3 = K[i], K[i + 1], K[i + 2], K[i + 3]
        for c in range(Vt.shape[0]):
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


@njit(**_jit_sum)
def _matmat_t(K, Vt, Ot):
    for q in prange((K.shape[0] + 3) // 4):
        _quad_dots(K, Vt, Ot, 4 * q)
    return Ot


# The same loop on the calling thread only: for small matrices (a parallel region
# between the CG's BLAS calls costs more than it saves there, its threads spinning
# against BLAS's) and for callers off the main thread (numba's workqueue layer aborts
# the process when parallel regions are entered from several threads at once). A
# function of its own, as ``_gather_exp_serial``: numba's disk cache would hand back
# the parallel build of a ``py_func``.
@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _matmat_t_serial(K, Vt, Ot):
    for q in range((K.shape[0] + 3) // 4):
        _quad_dots(K, Vt, Ot, 4 * q)
    return Ot


#: Below this many entries of K, :func:`matmat_t` runs on the calling thread: a
#: whole fold's CG (3 alphas, 31-38 iterations, medians of 4 alternating runs on the
#: 2-core machine with a test run beside it) took 0.17 s serial vs 0.19 s parallel at
#: m = 800, 0.50 vs 0.71 s at m = 2000, 2.09 vs 1.93 s at m = 3200.
SERIAL_PRODUCT_ENTRIES = 1 << 22


def matmat_t(K, Vt, Ot, *, serial=None):
    """``Ot = (K @ Vt.T).T``: the product of ``K`` with k columns, reading K once.

    ``K``: (m, n) float64/float32 C-contiguous; ``Vt``: (k, n) float64
    C-contiguous (the columns as rows); ``Ot``: (k, m) float64 C-contiguous, not
    overlapping the others. ``serial``: run on the calling thread only (True), on
    both cores (False), or by default on both cores from the main thread for K of at
    least :data:`SERIAL_PRODUCT_ENTRIES` entries. Returns ``Ot``.
    """
    _check_2d("K", K)
    _check_rows("Vt", Vt, K.shape[1])
    _check_rows("Ot", Ot, K.shape[0], k=Vt.shape[0])
    if np.may_share_memory(Ot, K) or np.may_share_memory(Ot, Vt):
        raise ValueError("matmat_t: Ot overlaps K or Vt; pass a separate output array")
    if serial is None:
        serial = (K.size < SERIAL_PRODUCT_ENTRIES
                  or threading.current_thread() is not threading.main_thread())
    return (_matmat_t_serial if serial else _matmat_t)(K, Vt, Ot)


def _check_rows(name, A, n, k=None):
    if (not isinstance(A, np.ndarray) or A.ndim != 2 or A.dtype != np.float64
            or not A.flags.c_contiguous or A.shape[1] != n
            or (k is not None and A.shape[0] != k)):
        want = f"({'k' if k is None else k}, {n})"
        got = (f"{A.dtype} {A.shape}" if isinstance(A, np.ndarray) else type(A).__name__)
        raise ValueError(f"{name} must be a C-contiguous float64 array of shape {want}, "
                         f"got {got}")
