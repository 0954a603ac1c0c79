"""Compiled elementwise passes over a block of inner products or of values.

A kernel computes its block of inner products with BLAS (``X @ Y.T``) and
hands it to one of these loops, which replaces ``np.exp(-gamma * (...))``
chains that are single-threaded and allocate temporaries. The conventions
(dtypes, ``out``, ``diag_offset``) are in the package docstring
(:mod:`kernelkit._compiled`); each function has a plain-numpy twin in
:mod:`kernelkit._compiled._reference`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._common import _check_2d, _check_out, _exp, _jit, _jit_fma, _norms, _offset
from .tiles import _rbf_row_buffered

__all__ = ["sqdist_from_inner", "rbf_from_inner", "exp_scaled", "scale_add_rows_cols",
           "poly_from_inner", "powf_from_inner", "tanh_from_inner"]


# --------------------------------------------------------------------------
# squared distances and the Gaussian (RBF) kernel

@njit(**_jit)
def _sqdist_from_inner(G, xx, yy, diag_offset, out):
    n, m = G.shape
    for i in prange(n):
        xi = xx[i]
        for j in range(m):
            d = xi + yy[j] - 2.0 * np.float64(G[i, j])
            if d < 0.0:  # round-off; written so that NaN propagates
                d = 0.0
            out[i, j] = d
        j = i + diag_offset
        if diag_offset >= 0 and j < m:
            out[i, j] = 0.0
    return out


@njit(**_jit_fma)
def _rbf_from_inner(G, xx, yy, gamma, diag_offset, out):
    n, m = G.shape
    one = _exp(-gamma * 0.0)  # the diagonal value, 1.0 for finite gamma
    for i in prange(n):
        # Through a contiguous row buffer: when G/out are column blocks of a
        # bigger matrix (row-strided views), numba cannot prove unit stride and
        # the exp loop would not vectorise (4x slower); the copies are in cache.
        buf = np.empty(m)
        _rbf_row_buffered(G[i], xx[i], yy, gamma, buf, out[i])
        j = i + diag_offset
        if diag_offset >= 0 and j < m:
            out[i, j] = one
    return out


def sqdist_from_inner(G, xx, yy, diag_offset, out):
    """Fill ``out[i, j] = max(xx[i] + yy[j] - 2 G[i, j], 0)`` and return it.

    Parameters
    ----------
    G : ndarray of shape (n, m), float64 or float32, C-contiguous
        Inner products ``x_i' y_j``.
    xx : array-like of shape (n,)
        Squared norms of the rows ``x_i`` (converted to float64).
    yy : array-like of shape (m,)
        Squared norms of the rows ``y_j`` (converted to float64).
    diag_offset : int or None
        If ``>= 0``, entries ``(i, i + diag_offset)`` inside the block are
        set to exactly 0 (the block is rows ``diag_offset:diag_offset+n`` of
        a symmetric matrix). Negative or None: no diagonal.
    out : ndarray of shape (n, m), float64 or float32, C-contiguous
        May be ``G`` itself.
    """
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    xx = _norms("xx", xx, G.shape[0])
    yy = _norms("yy", yy, G.shape[1])
    return _sqdist_from_inner(G, xx, yy, _offset(diag_offset), out)


def rbf_from_inner(G, xx, yy, gamma, diag_offset, out):
    """Fill ``out = exp(-gamma * max(xx[i] + yy[j] - 2 G[i, j], 0))``, return it.

    Same arguments as :func:`sqdist_from_inner`, plus ``gamma`` (float).
    Diagonal entries ``(i, i + diag_offset)`` get distance exactly 0, so
    value exactly 1.0; clamping makes every value ``<= 1``.
    """
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    xx = _norms("xx", xx, G.shape[0])
    yy = _norms("yy", yy, G.shape[1])
    return _rbf_from_inner(G, xx, yy, float(gamma), _offset(diag_offset), out)


# --------------------------------------------------------------------------
# exp, scaling

@njit(**_jit_fma)
def _exp_scaled(A, scale, out):
    n, m = A.shape
    for i in prange(n):
        buf = np.empty(m)  # contiguous: the exp loop vectorises (see _rbf_from_inner)
        a = A[i]
        for j in range(m):
            buf[j] = _exp(scale * np.float64(a[j]))
        o = out[i]
        for j in range(m):
            o[j] = buf[j]
    return out


def exp_scaled(A, scale, out):
    """Fill ``out = exp(scale * A)`` on both cores and return it.

    ``A``: (n, m) float64/float32 C-contiguous; ``out`` may be ``A``.
    """
    _check_2d("A", A, rows=True)
    _check_out(out, A.shape, A)
    return _exp_scaled(A, float(scale), out)


@njit(inline="always", error_model="numpy", cache=True, fastmath={"contract"})
def _gather_exp_row(src, cols, scale, buf, o):
    """``o = exp(scale * src[cols])``, gathered first into the contiguous ``buf``: the
    exp loop then vectorises (2.3x faster than exp on the gathered loads, the same
    values)."""
    for j in range(cols.shape[0]):
        buf[j] = src[cols[j]]
    for j in range(cols.shape[0]):
        o[j] = _exp(scale * buf[j])


@njit(**_jit_fma)
def _gather_exp(D2, rows, cols, scale, out):
    for i in prange(rows.shape[0]):
        _gather_exp_row(D2[rows[i]], cols, scale, np.empty(cols.shape[0]), out[i])
    return out


# The same loop on the calling thread only, for callers that run it from several
# Python threads at once: numba's workqueue threading layer (used where neither OpenMP
# nor TBB is available) aborts the process when parallel regions are entered
# concurrently, and two threads of parallel regions would oversubscribe the cores.
# (A function of its own: compiled from ``_gather_exp.py_func``, numba's disk cache
# would hand back the parallel build.)
@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _gather_exp_serial(D2, rows, cols, scale, out):
    buf = np.empty(cols.shape[0])
    for i in range(rows.shape[0]):
        _gather_exp_row(D2[rows[i]], cols, scale, buf, out[i])
    return out


def gather_exp(D2, rows, cols, scale, out, *, serial=False):
    """Fill ``out = exp(scale * D2[np.ix_(rows, cols)])`` on both cores (on the calling
    thread only with ``serial=True``, safe to call from several threads) and return it.

    One pass that gathers a block of a stored squared-distance matrix and applies
    the exponential (an RBF block for ``scale = -gamma``), without the gathered
    copy ``D2[np.ix_(rows, cols)]``.

    ``D2``: (n, m) float64 C-contiguous; ``rows``, ``cols``: 1-D integer index
    arrays within ``D2``'s shape; ``out``: (len(rows), len(cols)) float64
    C-contiguous.
    """
    _check_2d("D2", D2, rows=True)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    cols = np.ascontiguousarray(cols, dtype=np.intp)
    if rows.ndim != 1 or cols.ndim != 1:
        raise ValueError("gather_exp: rows and cols must be 1-D index arrays")
    for name, idx, size in (("rows", rows, D2.shape[0]), ("cols", cols, D2.shape[1])):
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise IndexError(f"gather_exp: {name} index out of range for D2 of shape {D2.shape}")
    _check_out(out, (rows.size, cols.size), D2)
    loop = _gather_exp_serial if serial else _gather_exp
    return loop(D2, rows, cols, float(scale), out)


@njit(**_jit)
def _scale_add_rows_cols(A, f_rows, f_cols, out):
    n, m = A.shape
    for i in prange(n):
        fi = f_rows[i]
        for j in range(m):
            out[i, j] = fi * np.float64(A[i, j]) * f_cols[j]
    return out


def scale_add_rows_cols(A, f_rows, f_cols, out):
    """Fill ``out[i, j] = f_rows[i] * A[i, j] * f_cols[j]`` and return it.

    Used by warped kernels ``f(x) k(x, y) f(y)`` and normalised kernels
    ``k(x, y) / sqrt(k(x, x) k(y, y))``. ``f_rows`` (n,), ``f_cols`` (m,) are
    converted to float64; ``out`` may be ``A``. The product is evaluated
    left to right, ``(f_rows[i] * A[i, j]) * f_cols[j]``.
    """
    _check_2d("A", A, rows=True)
    _check_out(out, A.shape, A)
    f_rows = _norms("f_rows", f_rows, A.shape[0])
    f_cols = _norms("f_cols", f_cols, A.shape[1])
    return _scale_add_rows_cols(A, f_rows, f_cols, out)


# --------------------------------------------------------------------------
# dot-product kernels

@njit(**_jit)
def _poly_from_inner(G, gamma, coef0, degree, out):
    n, m = G.shape
    p = abs(degree)
    for i in prange(n):
        for j in range(m):
            b = gamma * np.float64(G[i, j]) + coef0
            # b ** p by binary exponentiation (p = 3 costs two multiplies)
            r = 1.0
            e = p
            while e > 0:
                if e & 1:
                    r *= b
                b *= b
                e >>= 1
            if degree < 0:
                r = 1.0 / r
            out[i, j] = r
    return out


def poly_from_inner(G, gamma, coef0, degree, out):
    """Fill ``out = (gamma * G + coef0) ** degree`` for an integer degree.

    Computed by repeated squaring in float64 (a few ulp from ``pow``);
    a negative degree gives the reciprocal (``inf`` where the base is 0).
    ``degree`` is converted to int; ``out`` may be ``G``.
    """
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    if int(degree) != degree:
        raise ValueError(f"degree must be an integer, got {degree!r}; "
                         "use powf_from_inner for a float power")
    return _poly_from_inner(G, float(gamma), float(coef0), int(degree), out)


@njit(**_jit)
def _powf_from_inner(G, gamma, coef0, power, out):
    n, m = G.shape
    for i in prange(n):
        for j in range(m):
            out[i, j] = math.pow(gamma * np.float64(G[i, j]) + coef0, power)
    return out


def powf_from_inner(G, gamma, coef0, power, out):
    """Fill ``out = (gamma * G + coef0) ** power`` for a float ``power``.

    Follows C ``pow`` as numpy does for finite values: a negative base with a
    non-integer power gives NaN (no complex result, no error); a negative
    base with an integral power (e.g. 3.0) gives the signed real power;
    ``0 ** negative`` is ``inf``. (The one known difference from numpy is
    ``(-inf) ** 0.5``: ``+inf`` here, NaN in numpy; a finite ``G`` never
    produces it.)
    """
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    return _powf_from_inner(G, float(gamma), float(coef0), float(power), out)


@njit(**_jit)
def _tanh_from_inner(G, gamma, coef0, out):
    n, m = G.shape
    for i in prange(n):
        for j in range(m):
            out[i, j] = math.tanh(gamma * np.float64(G[i, j]) + coef0)
    return out


def tanh_from_inner(G, gamma, coef0, out):
    """Fill ``out = tanh(gamma * G + coef0)`` (sigmoid kernel), return it."""
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    return _tanh_from_inner(G, float(gamma), float(coef0), out)
