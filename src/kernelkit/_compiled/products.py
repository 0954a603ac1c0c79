"""The product of a big matrix with a few columns, reading the matrix once (or half of it).

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

A symmetric K needs only its lower triangle (:func:`symmetric_matmat_t`): each
entry read serves its row's dot product and, as its mirror image, the column's sum,
so the pass reads half the bytes: with 2 columns at m = 12,800, 0.026 s against
0.045 s for :func:`matmat_t` (3 columns 0.030 s against 0.050 s).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from ._common import _check_2d, _one_thread

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
        serial = _one_thread(K.size, SERIAL_PRODUCT_ENTRIES)
    return (_matmat_t_serial if serial else _matmat_t)(K, Vt, Ot)


def _check_rows(name, A, n, k=None):
    if (not isinstance(A, np.ndarray) or A.ndim != 2 or A.dtype != np.float64
            or not A.flags.c_contiguous or A.shape[1] != n
            or (k is not None and A.shape[0] != k)):
        want = f"({'k' if k is None else k}, {n})"
        got = (f"{A.dtype} {A.shape}" if isinstance(A, np.ndarray) else type(A).__name__)
        raise ValueError(f"{name} must be a C-contiguous float64 array of shape {want}, "
                         f"got {got}")


# --------------------------------------------------------------------------
# K V from K's lower triangle (K symmetric)

@njit(inline="always", error_model="numpy", cache=True, fastmath={"reassoc", "contract"})
def _sym_quad(K, Vt, Acc, i):
    """Rows ``i..i+3`` of K's lower triangle into ``Acc`` (k, m): columns ``j < i`` by
    one fused pass (four dot products, and their mirror images added to ``Acc[:, j]``),
    then the 4 x 4 corner on the diagonal."""
    r0, r1, r2, r3 = K[i, :i], K[i + 1, :i], K[i + 2, :i], K[i + 3, :i]
    for c in range(Vt.shape[0]):
        v = Vt[c, :i]
        a = Acc[c, :i]
        w0, w1, w2, w3 = Vt[c, i], Vt[c, i + 1], Vt[c, i + 2], Vt[c, i + 3]
        s0 = s1 = s2 = s3 = 0.0
        for j in range(v.shape[0]):
            x = v[j]
            k0 = np.float64(r0[j])
            k1 = np.float64(r1[j])
            k2 = np.float64(r2[j])
            k3 = np.float64(r3[j])
            s0 += k0 * x
            s1 += k1 * x
            s2 += k2 * x
            s3 += k3 * x
            a[j] += (k0 * w0 + k1 * w1) + (k2 * w2 + k3 * w3)
        for p in range(4):  # the corner, each entry from the lower triangle
            s = 0.0
            for q in range(4):
                e = K[i + p, i + q] if q <= p else K[i + q, i + p]
                s += np.float64(e) * Vt[c, i + q]
            Acc[c, i + p] += s
        Acc[c, i] += s0
        Acc[c, i + 1] += s1
        Acc[c, i + 2] += s2
        Acc[c, i + 3] += s3


@njit(inline="always", error_model="numpy", cache=True, fastmath={"reassoc", "contract"})
def _sym_rows(K, Vt, Acc, start, stop):
    """Rows ``start..stop-1`` of K's lower triangle into ``Acc``: fours, then singles."""
    i = start
    while i + 3 < stop:
        _sym_quad(K, Vt, Acc, i)
        i += 4
    while i < stop:
        r = K[i, :i]
        for c in range(Vt.shape[0]):
            v = Vt[c, :i]
            a = Acc[c, :i]
            w = Vt[c, i]
            s = 0.0
            for j in range(v.shape[0]):
                e = np.float64(r[j])
                s += e * v[j]
                a[j] += e * w
            Acc[c, i] += s + np.float64(K[i, i]) * w
        i += 1


@njit(**_jit_sum)
def _symmetric_matmat_t(K, Vt, Ot, Acc, bounds):
    # thread t takes rows bounds[t]..bounds[t+1]-1 (equal areas of the triangle) into its
    # own accumulator; their sum is the product
    for t in prange(Acc.shape[0]):
        Acc[t] = 0.0
        _sym_rows(K, Vt, Acc[t], bounds[t], bounds[t + 1])
    k, m = Ot.shape
    for c in range(k):
        for i in prange(m):
            s = 0.0
            for t in range(Acc.shape[0]):
                s += Acc[t, c, i]
            Ot[c, i] = s
    return Ot


# The same on the calling thread only (see _matmat_t_serial).
@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _symmetric_matmat_t_serial(K, Vt, Ot):
    Ot[...] = 0.0
    _sym_rows(K, Vt, Ot, 0, K.shape[0])
    return Ot


def symmetric_matmat_t(K, Vt, Ot, *, serial=None):
    """``Ot = (K @ Vt.T).T`` for a symmetric ``K``, reading only its lower triangle.

    ``K``: (m, m) float64/float32 C-contiguous, symmetric: only the entries ``K[i, j]``
    with ``j <= i`` are read (the upper triangle may hold anything). ``Vt``: (k, m)
    float64 C-contiguous (the columns as rows); ``Ot``: (k, m) float64 C-contiguous,
    not overlapping the others. ``serial`` as for :func:`matmat_t`. Returns ``Ot``.

    Each thread sums its rows' mirror images into an accumulator of its own (k m
    float64 per thread), so results do not depend on timing; they differ from
    :func:`matmat_t`'s by rounding only.
    """
    _check_2d("K", K)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square (symmetric), got shape {K.shape}")
    _check_rows("Vt", Vt, K.shape[1])
    _check_rows("Ot", Ot, K.shape[0], k=Vt.shape[0])
    if not Ot.flags.writeable:
        raise ValueError("symmetric_matmat_t: Ot is read-only; pass a writeable array")
    if np.may_share_memory(Ot, K) or np.may_share_memory(Ot, Vt):
        raise ValueError("symmetric_matmat_t: Ot overlaps K or Vt; pass a separate output "
                         "array")
    if serial is None:
        serial = _one_thread(K.size, SERIAL_PRODUCT_ENTRIES)
    if serial:
        return _symmetric_matmat_t_serial(K, Vt, Ot)
    threads = max(1, numba.get_num_threads())
    m = K.shape[0]
    # rows up to m sqrt(t / T) hold a share t / T of the triangle's entries
    bounds = np.array([min(m, int(m * math.sqrt(t / threads))) for t in range(threads)]
                      + [m], dtype=np.int64)
    Acc = np.empty((threads, Vt.shape[0], m))
    return _symmetric_matmat_t(K, Vt, Ot, Acc, bounds)
