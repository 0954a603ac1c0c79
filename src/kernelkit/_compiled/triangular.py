"""Solving with a Cholesky factor for a few columns at once, reading the factor once
per direction (:func:`cho_solve_t`), or with one of its two triangles
(:func:`tri_solve_t`: Falkon's float32 factors, whose two solves are not adjacent).

The k-fold ridge's conjugate gradient (:mod:`kernelkit.tuning.fold_path`) applies
``(L L')^-1`` to 1-6 columns per iteration, ``L`` a float32 Cholesky factor of
12,800 rows: a memory-bound pass over ``L``'s triangle for each of the two solves.
OpenBLAS's ``strsv`` reads the triangle once per column (0.030 s for both solves of
one column at m = 12,800 on the project's 2-core machine) and its ``strtrs`` with a
few columns several times over. :func:`cho_solve_t` reads it once per solve for all
columns, the triangle split between the cores by blocks of :data:`BLOCK` rows:
2 columns take 0.033 s against 0.060 s, 3 columns 0.039 s against 0.091 s.

Storage: ``U`` is the C-order upper triangle ``U = L'``, i.e. the very memory of a
Fortran-order lower factor as LAPACK's ``potrf`` leaves it (``L.T`` is a view, no
copy). Row ``j`` of ``U`` is column ``j`` of ``L``, contiguous:

- the forward solve ``L z = r`` runs over the columns of ``L`` (rows of ``U``): a
  block of rows' diagonal triangle on one thread, then ``r[below] -= U[block, below]'
  z[block]``, the rows below split between the threads, four rows of ``U`` per pass;
- the backward solve ``L' x = z`` (``U x = z``) from the last block up: the dot
  products of the block's rows with the solved part below, four rows per pass, the
  rows split between the threads, then the block's triangle on one thread.

Arithmetic is float64 whatever the factor's storage (float32 entries are widened as
they are read); sums are reassociated so they vectorise (results differ from a
sequential sum by rounding only; the plain-numpy twin in :mod:`._reference` agrees to
~1e-13 relative for a well-conditioned factor). A zero or non-finite diagonal gives
inf/NaN in the result (numpy's error model): the caller checks.

References
----------
Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed., sec. 3.1
(triangular systems, row- and column-oriented) and 3.2.11 (block forms). Johns
Hopkins University Press.
"""

from __future__ import annotations


import numba
import numpy as np
from numba import njit, prange

from ._common import _check_2d, _one_thread

__all__ = ["cho_solve_t", "tri_solve_t", "BLOCK", "SERIAL_SOLVE_ENTRIES"]

#: Rows per block (a parallel region per block and direction; 64-256 measured within
#: 3 % of each other at m = 12,800).
BLOCK = 64
#: Below this many entries of the factor, :func:`cho_solve_t` and :func:`tri_solve_t` run
#: on the calling thread: the threshold of
#: :data:`kernelkit._compiled.products.SERIAL_PRODUCT_ENTRIES`, which
#: was set on a whole fold's CG (there, parallel regions between numpy's calls cost more
#: than they saved below m = 2048). Alone, the parallel solves were faster from m = 1000
#: (2 columns at m = 2000: 0.82 ms vs 1.19 ms serial; m = 3000: 3.1 vs 3.2 ms), so the
#: threshold errs towards one thread.
SERIAL_SOLVE_ENTRIES = 1 << 22

_fm = {"reassoc", "contract"}
_inline = dict(inline="always", error_model="numpy", cache=True, fastmath=_fm)
_par = dict(parallel=True, cache=True, nogil=True, error_model="numpy", fastmath=_fm)
_ser = dict(cache=True, nogil=True, error_model="numpy", fastmath=_fm)


@njit(**_inline)
def _axpy1(u, z, r):
    """``r -= u * z`` (one row of U, one column)."""
    for i in range(r.shape[0]):
        r[i] -= np.float64(u[i]) * z


@njit(**_inline)
def _axpy4(U, R, c, j, a, b):
    """``R[c, a:b] -= U[j:j+4, a:b]' R[c, j:j+4]``: four rows of U, one column."""
    u0, u1, u2, u3 = U[j, a:b], U[j + 1, a:b], U[j + 2, a:b], U[j + 3, a:b]
    z0, z1, z2, z3 = R[c, j], R[c, j + 1], R[c, j + 2], R[c, j + 3]
    r = R[c, a:b]
    for i in range(r.shape[0]):
        r[i] -= ((np.float64(u0[i]) * z0 + np.float64(u1[i]) * z1)
                 + (np.float64(u2[i]) * z2 + np.float64(u3[i]) * z3))


@njit(**_inline)
def _axpy4x2(U, R, c, j, a, b):
    """:func:`_axpy4` for columns ``c`` and ``c + 1`` in one pass over the four rows."""
    u0, u1, u2, u3 = U[j, a:b], U[j + 1, a:b], U[j + 2, a:b], U[j + 3, a:b]
    y0, y1, y2, y3 = R[c, j], R[c, j + 1], R[c, j + 2], R[c, j + 3]
    z0, z1, z2, z3 = R[c + 1, j], R[c + 1, j + 1], R[c + 1, j + 2], R[c + 1, j + 3]
    ra = R[c, a:b]
    rb = R[c + 1, a:b]
    for i in range(ra.shape[0]):
        v0 = np.float64(u0[i])
        v1 = np.float64(u1[i])
        v2 = np.float64(u2[i])
        v3 = np.float64(u3[i])
        ra[i] -= (v0 * y0 + v1 * y1) + (v2 * y2 + v3 * y3)
        rb[i] -= (v0 * z0 + v1 * z1) + (v2 * z2 + v3 * z3)


@njit(**_inline)
def _forward_diagonal(U, R, j0, j1):
    """Solve the block ``j0..j1-1``'s own triangle (its rows of R below are untouched)."""
    for j in range(j0, j1):
        d = np.float64(U[j, j])
        for c in range(R.shape[0]):
            R[c, j] /= d
            _axpy1(U[j, j + 1:j1], R[c, j], R[c, j + 1:j1])


@njit(**_inline)
def _forward_panel(U, R, j0, j1, a, b):
    """``R[:, a:b] -= U[j0:j1, a:b]' R[:, j0:j1]`` (the solved block's columns)."""
    k = R.shape[0]
    j = j0
    while j + 3 < j1:
        c = 0
        while c + 1 < k:
            _axpy4x2(U, R, c, j, a, b)
            c += 2
        if c < k:
            _axpy4(U, R, c, j, a, b)
        j += 4
    while j < j1:
        for c in range(k):
            _axpy1(U[j, a:b], R[c, j], R[c, a:b])
        j += 1


@njit(**_inline)
def _dots(u, R, c, nc, a, T, jj):
    """``T[jj, c:c+nc] = R[c:c+nc, a:] @ u`` for up to four columns in one pass over u
    (u: a row of U from column ``a`` on)."""
    n = u.shape[0]
    if nc >= 4:
        x0, x1, x2, x3 = R[c, a:], R[c + 1, a:], R[c + 2, a:], R[c + 3, a:]
        s0 = s1 = s2 = s3 = 0.0
        for i in range(n):
            v = np.float64(u[i])
            s0 += v * x0[i]
            s1 += v * x1[i]
            s2 += v * x2[i]
            s3 += v * x3[i]
        T[jj, c], T[jj, c + 1], T[jj, c + 2], T[jj, c + 3] = s0, s1, s2, s3
    elif nc == 3:
        x0, x1, x2 = R[c, a:], R[c + 1, a:], R[c + 2, a:]
        s0 = s1 = s2 = 0.0
        for i in range(n):
            v = np.float64(u[i])
            s0 += v * x0[i]
            s1 += v * x1[i]
            s2 += v * x2[i]
        T[jj, c], T[jj, c + 1], T[jj, c + 2] = s0, s1, s2
    elif nc == 2:
        x0, x1 = R[c, a:], R[c + 1, a:]
        s0 = s1 = 0.0
        for i in range(n):
            v = np.float64(u[i])
            s0 += v * x0[i]
            s1 += v * x1[i]
        T[jj, c], T[jj, c + 1] = s0, s1
    else:
        x0 = R[c, a:]
        s0 = 0.0
        for i in range(n):
            s0 += np.float64(u[i]) * x0[i]
        T[jj, c] = s0


@njit(**_inline)
def _dots_quad(U, R, c, j, a, T, jj):
    """``T[jj:jj+4, c] = U[j:j+4, a:] @ R[c, a:]``: four rows of U, one column; each
    load of the column serves four rows."""
    u0, u1, u2, u3 = U[j, a:], U[j + 1, a:], U[j + 2, a:], U[j + 3, a:]
    x = R[c, a:]
    s0 = s1 = s2 = s3 = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        s0 += np.float64(u0[i]) * v
        s1 += np.float64(u1[i]) * v
        s2 += np.float64(u2[i]) * v
        s3 += np.float64(u3[i]) * v
    T[jj, c], T[jj + 1, c], T[jj + 2, c], T[jj + 3, c] = s0, s1, s2, s3


@njit(**_inline)
def _dots_quad2(U, R, c, j, a, T, jj):
    """``T[jj:jj+4, c:c+2] = U[j:j+4, a:] @ R[c:c+2, a:]'``: four rows of U, two
    columns; each load of a row's entry serves two columns (fewer loads per product
    than :func:`_dots_quad`, which is bound by them)."""
    u0, u1, u2, u3 = U[j, a:], U[j + 1, a:], U[j + 2, a:], U[j + 3, a:]
    x, y = R[c, a:], R[c + 1, a:]
    s0 = s1 = s2 = s3 = 0.0
    t0 = t1 = t2 = t3 = 0.0
    for i in range(x.shape[0]):
        v, w = x[i], y[i]
        e0, e1, e2, e3 = np.float64(u0[i]), np.float64(u1[i]), np.float64(u2[i]), np.float64(u3[i])
        s0 += e0 * v
        s1 += e1 * v
        s2 += e2 * v
        s3 += e3 * v
        t0 += e0 * w
        t1 += e1 * w
        t2 += e2 * w
        t3 += e3 * w
    T[jj, c], T[jj + 1, c], T[jj + 2, c], T[jj + 3, c] = s0, s1, s2, s3
    T[jj, c + 1], T[jj + 1, c + 1], T[jj + 2, c + 1], T[jj + 3, c + 1] = t0, t1, t2, t3


@njit(**_inline)
def _backward_dots(U, R, T, q, j0, j1):
    """Rows ``j0 + 4q ..`` (four, or the block's last 1-3) of the block against the
    solved part below: ``T[jj, :] = R[:, j1:] @ U[j0 + jj, j1:]``."""
    jj = 4 * q
    if jj + 3 < j1 - j0:
        c = 0
        while c + 1 < R.shape[0]:
            _dots_quad2(U, R, c, j0 + jj, j1, T, jj)
            c += 2
        if c < R.shape[0]:
            _dots_quad(U, R, c, j0 + jj, j1, T, jj)
        return
    for r in range(jj, j1 - j0):
        u = U[j0 + r, j1:]
        c = 0
        while c < R.shape[0]:
            _dots(u, R, c, min(4, R.shape[0] - c), j1, T, r)
            c += 4


@njit(**_inline)
def _backward_diagonal(U, R, T, j0, j1):
    """Solve the block ``j0..j1-1``'s own triangle, ``T`` holding its rows' sums below."""
    for j in range(j1 - 1, j0 - 1, -1):
        u = U[j, j + 1:j1]
        for c in range(R.shape[0]):
            x = R[c, j + 1:j1]
            s = 0.0
            for i in range(u.shape[0]):
                s += np.float64(u[i]) * x[i]
            R[c, j] = (R[c, j] - T[j - j0, c] - s) / np.float64(U[j, j])


@njit(**_inline)
def _forward_parallel(U, R, block, threads):
    """``R <- L^-1 R`` (``L = U'``), the rows below each block split between the threads."""
    m = R.shape[1]
    for j0 in range(0, m, block):
        j1 = min(j0 + block, m)
        _forward_diagonal(U, R, j0, j1)
        if j1 < m:
            # rows below split between the threads, bounds on 16-entry boundaries
            step = ((m - j1 + threads - 1) // threads + 15) // 16 * 16
            for t in prange(threads):
                a = j1 + t * step
                b = min(a + step, m)
                if a < b:
                    _forward_panel(U, R, j0, j1, a, b)
    return R


@njit(**_inline)
def _backward_parallel(U, R, block):
    """``R <- L'^-1 R`` (``L' = U``) from the last block up, a block's rows split
    between the threads."""
    k, m = R.shape
    T = np.zeros((block, k))
    for j0 in range((m - 1) // block * block, -1, -block):
        j1 = min(j0 + block, m)
        if j1 < m:
            for q in prange((j1 - j0 + 3) // 4):
                _backward_dots(U, R, T, q, j0, j1)
        else:
            T[:] = 0.0
        _backward_diagonal(U, R, T, j0, j1)
    return R


@njit(**_inline)
def _forward_serial(U, R, block):
    m = R.shape[1]
    for j0 in range(0, m, block):
        j1 = min(j0 + block, m)
        _forward_diagonal(U, R, j0, j1)
        if j1 < m:
            _forward_panel(U, R, j0, j1, j1, m)
    return R


@njit(**_inline)
def _backward_serial(U, R, block):
    k, m = R.shape
    T = np.zeros((block, k))
    for j0 in range((m - 1) // block * block, -1, -block):
        j1 = min(j0 + block, m)
        if j1 < m:
            for q in range((j1 - j0 + 3) // 4):
                _backward_dots(U, R, T, q, j0, j1)
        else:
            T[:] = 0.0
        _backward_diagonal(U, R, T, j0, j1)
    return R


@njit(**_par)
def _cho_solve_t(U, R, block, threads):
    _forward_parallel(U, R, block, threads)  # L z = r
    return _backward_parallel(U, R, block)  # L' x = z


@njit(**_par)
def _forward_t(U, R, block, threads):
    return _forward_parallel(U, R, block, threads)


@njit(**_par)
def _backward_t(U, R, block):
    return _backward_parallel(U, R, block)


# The same on the calling thread only (see products._matmat_t_serial).
@njit(**_ser)
def _cho_solve_t_serial(U, R, block):
    _forward_serial(U, R, block)
    return _backward_serial(U, R, block)


@njit(**_ser)
def _forward_t_serial(U, R, block):
    return _forward_serial(U, R, block)


@njit(**_ser)
def _backward_t_serial(U, R, block):
    return _backward_serial(U, R, block)


def _checked(U, Rt, name, serial):
    """Refuse what the compiled solves cannot take (a clear error, not a crash);
    return whether to run on the calling thread only (``serial``, by default from
    the factor's size)."""
    _check_2d("U", U)
    m = U.shape[0]
    if U.shape[1] != m:
        raise ValueError(f"U must be square, got shape {U.shape}")
    if (not isinstance(Rt, np.ndarray) or Rt.ndim != 2 or Rt.dtype != np.float64
            or not Rt.flags.c_contiguous or not Rt.flags.writeable or Rt.shape[1] != m):
        got = (f"{Rt.dtype} {Rt.shape}" if isinstance(Rt, np.ndarray) else type(Rt).__name__)
        raise ValueError(f"Rt must be a writeable C-contiguous float64 array of shape (k, {m}), "
                         f"got {got}")
    if np.may_share_memory(Rt, U):
        raise ValueError(f"{name}: Rt overlaps U; pass a separate array")
    return _one_thread(U.size, SERIAL_SOLVE_ENTRIES) if serial is None else bool(serial)


def tri_solve_t(U, Rt, *, lower, serial=None):
    """``Rt <- L^-1 Rt`` (``lower=True``) or ``Rt <- L'^-1 Rt`` in place, ``L = U'``.

    One of the two triangular solves of :func:`cho_solve_t`, for a caller whose
    two solves use different factors or are not adjacent (Falkon's
    preconditioner: ``T^-1 A^-1`` and its transpose). The factor is read once
    per solve for all k columns; float32 entries are widened as they are read.

    Parameters
    ----------
    U : ndarray of shape (m, m), float32 or float64, C-contiguous
        Upper triangular (``U = L'``); only the upper triangle, diagonal
        included, is read.
    Rt : ndarray of shape (k, m), float64, C-contiguous
        The right-hand sides as rows; overwritten by the solutions.
    lower : bool
        True: solve with the lower triangular ``L = U'`` (forward substitution);
        False: with the upper triangular ``U`` (backward substitution).
    serial : bool, optional
        As for :func:`cho_solve_t`.

    Returns
    -------
    Rt
    """
    if _checked(U, Rt, "tri_solve_t", serial):
        return (_forward_t_serial if lower else _backward_t_serial)(U, Rt, BLOCK)
    if lower:
        return _forward_t(U, Rt, BLOCK, max(1, numba.get_num_threads()))
    return _backward_t(U, Rt, BLOCK)


def cho_solve_t(U, Rt, *, serial=None):
    """``Rt <- (U' U)^-1 Rt`` in place: a Cholesky solve for k columns.

    Parameters
    ----------
    U : ndarray of shape (m, m), float32 or float64, C-contiguous
        Upper triangular (``U = L'``; ``L.T`` of a Fortran-order lower factor is such
        a view). Only the upper triangle, diagonal included, is read.
    Rt : ndarray of shape (k, m), float64, C-contiguous
        The right-hand sides as rows; overwritten by the solutions.
    serial : bool, optional
        Run on the calling thread only (True), on all numba threads (False), or by
        default on all of them from the main thread for U of at least
        :data:`SERIAL_SOLVE_ENTRIES` entries.

    Returns
    -------
    Rt
    """
    if _checked(U, Rt, "cho_solve_t", serial):
        return _cho_solve_t_serial(U, Rt, BLOCK)
    return _cho_solve_t(U, Rt, BLOCK, max(1, numba.get_num_threads()))
