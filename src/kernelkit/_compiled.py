"""Compiled elementwise loops of Gram matrix computation.

Each public function here fills ``out`` from one block and returns it; a
kernel computes its block of inner products with BLAS (``X @ Y.T``) and
hands it to one of these loops, which replaces ``np.exp(-gamma * (...))``
chains that are single-threaded and allocate temporaries.

Conventions shared by every function
------------------------------------
- ``G`` / ``A`` / ``X`` / ``Y`` are 2-D C-contiguous float64 or float32 arrays.
- ``out`` is a 2-D C-contiguous float64 or float32 array of the block's
  shape. It may be the very same array as ``G`` / ``A`` (in place); any
  other memory overlap is refused.
- Per-element arithmetic is float64 whatever the storage dtype; float32
  storage only rounds the final value.
- Scalars are converted to ``float`` / ``int`` before the call so each
  (input dtype, output dtype) pair compiles exactly once.
- ``diag_offset >= 0`` says the block is rows
  ``[diag_offset, diag_offset + n)`` of a symmetric Gram matrix: entries
  ``(i, i + diag_offset)`` inside the block get squared distance exactly 0.
  ``diag_offset < 0`` (or ``None``) means no diagonal.

Every compiled function ``f`` has a plain-numpy twin ``f_ref`` with the same
signature, used by the tests (STYLE.md habit 8).

Compilation is lazy (first call) and cached on disk (``cache=True``);
importing this module compiles nothing. ``error_model="numpy"`` makes
division by zero give inf/nan as numpy does instead of raising, and lets
LLVM vectorise the loops. ``exp`` is the hand-written ``_exp`` below (within
1 ulp of ``np.exp``, 3x faster than numba's ``math.exp`` without SVML).
``fastmath`` is deliberately off: it does not vectorise ``math.exp`` without
SVML, gains nothing measurable here, and ``nnan`` would license dropping the
NaN propagation that the tests pin down.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "rbf_from_inner", "sqdist_from_inner", "exp_scaled", "l1_exp", "cauchy",
    "poly_from_inner", "powf_from_inner", "tanh_from_inner", "scale_add_rows_cols",
    "rbf_from_inner_ref", "sqdist_from_inner_ref", "exp_scaled_ref", "l1_exp_ref",
    "cauchy_ref", "poly_from_inner_ref", "powf_from_inner_ref", "tanh_from_inner_ref",
    "scale_add_rows_cols_ref", "mirror_lower", "mirror_lower_ref",
    "member_sums", "member_sums_ref", "smallest_k", "smallest_k_ref",
]

_jit = dict(parallel=True, cache=True, nogil=True, error_model="numpy")

# Pairwise (X, Y) loops: a thread takes 4 rows of X at a time and sweeps
# Y.T in tiles of _TILE columns; each element of Y.T loaded feeds the 4 rows'
# accumulators (4 x 2 KiB, in L1), and the innermost loop runs over
# contiguous columns (slices indexed from 0, so no wraparound checks) and
# vectorises to AVX-512: 3-4x faster than one row at a time.
_TILE = 256


# --------------------------------------------------------------------------
# exp that vectorises

# Without SVML (the PyPI llvmlite is not built with it) LLVM turns a
# vectorised math.exp into eight scalar calls to glibc's exp, ~0.2 G/s per
# core; this exp is plain arithmetic, vectorises to AVX-512 and runs ~3x
# faster with the same accuracy (max relative error 2.2e-16 vs np.exp on
# [-708, 0], i.e. <= 1 ulp; subnormal results are rounded once).
# Method (fdlibm's e_exp.c reduction): x = k ln2 + r with |r| <= ln2/2, the
# constant ln2 split in two (Cody-Waite) so k * _LN2_HI is exact; exp(r) by
# its Taylor series to r^13 (truncation < 4e-18 relative); 2^k applied as
# two exact powers of two so results in the subnormal range round only once.
_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42fee00000: 21 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.44269504088896338700e+00


@njit(inline="always", error_model="numpy", cache=True)
def _exp(x):
    if x < -745.2:  # below half the smallest subnormal: result 0
        x = -745.2
    if x > 710.0:  # above log(max float): result inf
        x = 710.0
    k = np.floor(x * _LOG2E + 0.5)
    if k != k:  # x is NaN: keep the integer conversion defined; p is NaN
        k = 0.0
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
        1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (
            1 / 3628800 + r * (1 / 39916800 + r * (1 / 479001600 + r * (
                1 / 6227020800)))))))))))))
    ki = np.int64(k)
    k1 = ki >> 1
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)  # 2^k1, exact
    s2 = np.int64((ki - k1 + 1023) << 52).view(np.float64)  # 2^(k-k1), exact
    return (p * s1) * s2


# --------------------------------------------------------------------------
# argument checks (cheap, once per block)

def _check_2d(name, a, rows=False):
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D numpy array, got {type(a).__name__} "
                         f"with ndim={getattr(a, 'ndim', None)}")
    if a.dtype not in (np.float64, np.float32):
        raise ValueError(f"{name} must be float64 or float32, got {a.dtype}")
    # rows=True also accepts a block of columns of a bigger C array (contiguous
    # rows, a larger row stride): the symmetric Gram engine fills such views.
    row_ok = rows and (a.strides[1] == a.itemsize or a.shape[1] <= 1) and a.strides[0] > 0
    if not (a.flags.c_contiguous or row_ok):
        raise ValueError(f"{name} must be C-contiguous; use np.ascontiguousarray({name})")


def _check_out(out, shape, src=None):
    _check_2d("out", out, rows=True)
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape}, got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    if src is not None and out is not src and np.may_share_memory(out, src):
        same = (out.__array_interface__["data"][0] == src.__array_interface__["data"][0]
                and out.dtype == src.dtype)
        if not same:
            raise ValueError("out overlaps the input without being the same array; "
                             "pass out=G for in place or a separate array")


def _norms(name, v, size):
    v = np.ascontiguousarray(v, dtype=np.float64)
    if v.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {v.shape}")
    return v


def _offset(diag_offset):
    return -1 if diag_offset is None else int(diag_offset)


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


@njit(**_jit)
def _rbf_from_inner(G, xx, yy, gamma, diag_offset, out):
    n, m = G.shape
    one = _exp(-gamma * 0.0)  # the diagonal value, 1.0 for finite gamma
    for i in prange(n):
        # Work in a contiguous row buffer: when G/out are column blocks of a
        # bigger matrix (row-strided views), numba cannot prove unit stride and
        # the exp loop would not vectorise (4x slower); the copies are in cache.
        xi = xx[i]
        buf = np.empty(m)
        g = G[i]
        for j in range(m):
            buf[j] = np.float64(g[j])
        for j in range(m):
            d = xi + yy[j] - 2.0 * buf[j]
            if d < 0.0:
                d = 0.0
            buf[j] = _exp(-gamma * d)
        o = out[i]
        for j in range(m):
            o[j] = buf[j]
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


def sqdist_from_inner_ref(G, xx, yy, diag_offset, out):
    """Plain-numpy twin of :func:`sqdist_from_inner`."""
    n, m = G.shape
    d = np.asarray(xx, np.float64)[:, None] + np.asarray(yy, np.float64)[None, :] \
        - 2.0 * G.astype(np.float64)
    d = np.maximum(d, 0.0)
    diag_offset = _offset(diag_offset)
    if diag_offset >= 0:
        i = np.arange(max(0, min(n, m - diag_offset)))
        d[i, i + diag_offset] = 0.0
    out[...] = d
    return out


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


def rbf_from_inner_ref(G, xx, yy, gamma, diag_offset, out):
    """Plain-numpy twin of :func:`rbf_from_inner`."""
    d = sqdist_from_inner_ref(G, xx, yy, diag_offset, np.empty(G.shape, np.float64))
    out[...] = np.exp(-float(gamma) * d)
    return out


# --------------------------------------------------------------------------
# exp, scaling

@njit(**_jit)
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


def exp_scaled_ref(A, scale, out):
    """Plain-numpy twin of :func:`exp_scaled`."""
    out[...] = np.exp(float(scale) * A.astype(np.float64))
    return out


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


def scale_add_rows_cols_ref(A, f_rows, f_cols, out):
    """Plain-numpy twin of :func:`scale_add_rows_cols`."""
    f_rows = np.asarray(f_rows, np.float64)[:, None]
    f_cols = np.asarray(f_cols, np.float64)[None, :]
    out[...] = f_rows * A.astype(np.float64) * f_cols
    return out


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


def poly_from_inner_ref(G, gamma, coef0, degree, out):
    """Plain-numpy twin of :func:`poly_from_inner` (numpy's ``pow``)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out[...] = (float(gamma) * G.astype(np.float64) + float(coef0)) \
            ** np.float64(int(degree))
    return out


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


def powf_from_inner_ref(G, gamma, coef0, power, out):
    """Plain-numpy twin of :func:`powf_from_inner` (NaN for negative bases
    with a non-integer power, exactly as ``np.power``)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out[...] = np.power(float(gamma) * G.astype(np.float64) + float(coef0),
                            float(power))
    return out


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


def tanh_from_inner_ref(G, gamma, coef0, out):
    """Plain-numpy twin of :func:`tanh_from_inner`."""
    out[...] = np.tanh(float(gamma) * G.astype(np.float64) + float(coef0))
    return out


# --------------------------------------------------------------------------
# kernels of coordinate differences: Laplacian (L1) and Cauchy

@njit(**_jit)
def _l1_exp(X, Yt, gamma, out):
    n, d = X.shape
    m = Yt.shape[1]
    for ib in prange((n + 3) // 4):
        i0 = 4 * ib
        nr = min(4, n - i0)
        acc = np.empty((4, _TILE))
        for j0 in range(0, m, _TILE):
            w = min(_TILE, m - j0)
            acc[:, :] = 0.0
            a0, a1, a2, a3 = acc[0, :w], acc[1, :w], acc[2, :w], acc[3, :w]
            for k in range(d):
                x0 = np.float64(X[i0, k])
                x1 = np.float64(X[i0 + 1, k]) if nr > 1 else 0.0
                x2 = np.float64(X[i0 + 2, k]) if nr > 2 else 0.0
                x3 = np.float64(X[i0 + 3, k]) if nr > 3 else 0.0
                yk = Yt[k, j0:j0 + w]
                for jj in range(w):
                    y = np.float64(yk[jj])
                    a0[jj] += abs(x0 - y)
                    a1[jj] += abs(x1 - y)
                    a2[jj] += abs(x2 - y)
                    a3[jj] += abs(x3 - y)
            for r in range(nr):
                o = out[i0 + r, j0:j0 + w]
                a = acc[r, :w]
                for jj in range(w):
                    o[jj] = _exp(-gamma * a[jj])
    return out


@njit(**_jit)
def _cauchy(X, Yt, g2, out):
    n, d = X.shape
    m = Yt.shape[1]
    for ib in prange((n + 3) // 4):
        i0 = 4 * ib
        nr = min(4, n - i0)
        acc = np.empty((4, _TILE))
        for j0 in range(0, m, _TILE):
            w = min(_TILE, m - j0)
            acc[:, :] = 1.0
            a0, a1, a2, a3 = acc[0, :w], acc[1, :w], acc[2, :w], acc[3, :w]
            for k in range(d):
                x0 = np.float64(X[i0, k])
                x1 = np.float64(X[i0 + 1, k]) if nr > 1 else 0.0
                x2 = np.float64(X[i0 + 2, k]) if nr > 2 else 0.0
                x3 = np.float64(X[i0 + 3, k]) if nr > 3 else 0.0
                yk = Yt[k, j0:j0 + w]
                for jj in range(w):
                    y = np.float64(yk[jj])
                    t0, t1, t2, t3 = x0 - y, x1 - y, x2 - y, x3 - y
                    a0[jj] *= 1.0 / (1.0 + g2 * (t0 * t0))
                    a1[jj] *= 1.0 / (1.0 + g2 * (t1 * t1))
                    a2[jj] *= 1.0 / (1.0 + g2 * (t2 * t2))
                    a3[jj] *= 1.0 / (1.0 + g2 * (t3 * t3))
            for r in range(nr):
                o = out[i0 + r, j0:j0 + w]
                a = acc[r, :w]
                for jj in range(w):
                    o[jj] = a[jj]
    return out


def _check_xy(X, Y, out):
    _check_2d("X", X)
    _check_2d("Y", Y)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must have the same number of features, "
                         f"got {X.shape[1]} and {Y.shape[1]}")
    _check_out(out, (X.shape[0], Y.shape[0]))
    if np.may_share_memory(out, X) or np.may_share_memory(out, Y):
        raise ValueError("out must not overlap X or Y")
    # Y.T contiguous so the inner loop runs over columns; m * d, cheap.
    return np.ascontiguousarray(Y.T)


def l1_exp(X, Y, gamma, out):
    """Laplacian kernel ``out[i, j] = exp(-gamma * sum_k |X[i, k] - Y[j, k]|)``.

    ``X`` (n, d), ``Y`` (m, d): float64 or float32 (accumulated in float64),
    C-contiguous. ``out`` (n, m) float64/float32, must not overlap X or Y.
    """
    Yt = _check_xy(X, Y, out)
    return _l1_exp(X, Yt, float(gamma), out)


def l1_exp_ref(X, Y, gamma, out):
    """Plain-numpy twin of :func:`l1_exp`."""
    X = X.astype(np.float64)
    Y = Y.astype(np.float64)
    d1 = np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=2)
    out[...] = np.exp(-float(gamma) * d1)
    return out


def cauchy(X, Y, gamma, out):
    """Cauchy product kernel ``out[i, j] = prod_k 1 / (1 + gamma^2 (X[i,k] - Y[j,k])^2)``.

    Same arguments and dtypes as :func:`l1_exp`.
    """
    Yt = _check_xy(X, Y, out)
    return _cauchy(X, Yt, float(gamma) ** 2, out)


def cauchy_ref(X, Y, gamma, out):
    """Plain-numpy twin of :func:`cauchy`."""
    X = X.astype(np.float64)
    Y = Y.astype(np.float64)
    t = X[:, None, :] - Y[None, :, :]
    out[...] = np.prod(1.0 / (1.0 + float(gamma) ** 2 * t * t), axis=2)
    return out


# --------------------------------------------------------------------------
# symmetric matrices

_MIRROR_TILE = 64  # 64 x 64 doubles = 32 KiB: a tile and its transpose stay in L1/L2


@njit(**_jit)
def _mirror_lower(A):
    n = A.shape[0]
    t = _MIRROR_TILE
    nt = (n + t - 1) // t
    for bi in prange(nt):  # tile row bi of the upper triangle
        i0 = bi * t
        i1 = min(n, i0 + t)
        for bj in range(bi, nt):
            j0 = bj * t
            j1 = min(n, j0 + t)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    A[i, j] = A[j, i]
    return A


def mirror_lower(A):
    """Copy the strict lower triangle of square ``A`` onto its upper one, in place.

    The symmetric Gram engine computes only ``K[i, j]`` for ``j <= i`` (half
    the matrix products and exps) and then mirrors; tiles keep the transposed
    reads in cache, and both cores share the work.
    """
    _check_2d("A", A)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    return _mirror_lower(A)


def mirror_lower_ref(A):
    """Plain-numpy twin of :func:`mirror_lower`."""
    iu = np.triu_indices(A.shape[0], 1)
    A[iu] = A.T[iu]
    return A


@njit(**_jit)
def _member_sums(K, member, a, out):
    k = out.shape[1]
    for i in prange(K.shape[0]):
        row = np.zeros(k)
        for j in range(K.shape[1]):
            row[member[j]] += K[i, j] * a[j]
        for c in range(k):
            out[i, c] = row[c]
    return out


def member_sums(K, member, a, out):
    """``out[i, c] = sum_{j: member[j] == c} a[j] K[i, j]``: K times a one-hot weight matrix.

    Kernel k-means needs ``K A`` with A one nonzero per row; this reads K once
    with n*m multiply-adds instead of a skinny GEMM of n*m*k (measured ~2x
    faster for k = 26 on 2 cores).
    """
    _check_2d("K", K)
    member = np.ascontiguousarray(member, dtype=np.int64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    if member.shape != (K.shape[1],) or a.shape != (K.shape[1],):
        raise ValueError(f"member and a must have shape ({K.shape[1]},)")
    if member.size and (member.min() < 0 or member.max() >= out.shape[1]):
        raise ValueError(f"member must hold indices in [0, {out.shape[1]})")
    _check_out(out, (K.shape[0], out.shape[1]))
    return _member_sums(K, member, a, out)


def member_sums_ref(K, member, a, out):
    """Plain-numpy twin of :func:`member_sums`."""
    A = np.zeros((K.shape[1], out.shape[1]))
    A[np.arange(K.shape[1]), member] = a
    out[...] = K @ A
    return out


@njit(**_jit)
def _smallest_k(D, k, out):
    m = D.shape[1]
    for i in prange(D.shape[0]):
        vals = np.empty(k)
        ids = np.empty(k, dtype=np.int64)
        cnt = 0
        for j in range(m):
            v = D[i, j]
            if cnt == k and not v < vals[k - 1]:
                continue  # ties keep the smaller index already held
            p = cnt if cnt < k else k - 1
            while p > 0 and vals[p - 1] > v:
                vals[p] = vals[p - 1]
                ids[p] = ids[p - 1]
                p -= 1
            vals[p] = v
            ids[p] = j
            if cnt < k:
                cnt += 1
        for c in range(k):
            out[i, c] = ids[c]
    return out


def smallest_k(D, k):
    """Column indices of the k smallest entries of each row, ordered by (value, index).

    One pass per row keeping a sorted list of k candidates, rows in parallel:
    O(m k) per row, for the small k of nearest-neighbour queries (the k-NN
    estimators use it for k <= 64 and :func:`smallest_k_ref` beyond).
    NaN entries are never selected before a number.

    Parameters
    ----------
    D : ndarray of shape (n, m), float64 or float32
    k : int, 1 <= k <= m

    Returns
    -------
    ndarray of shape (n, k), int64
    """
    _check_2d("D", D)
    if not 1 <= k <= D.shape[1]:
        raise ValueError(f"k must be in [1, {D.shape[1]}], got {k}")
    return _smallest_k(D, int(k), np.empty((D.shape[0], k), dtype=np.int64))


def smallest_k_ref(D, k):
    """Plain-numpy twin of :func:`smallest_k`: a stable sort of each row.

    (argpartition would pick an arbitrary one of several entries tied at the
    k-th value; the stable sort keeps the smallest indices.)"""
    return np.argsort(D, axis=1, kind="stable")[:, :k].astype(np.int64)
