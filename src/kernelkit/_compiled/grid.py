"""Compiled passes of RBF's grid route (:mod:`kernelkit.kernels.rbf_grid`).

Rows whose coordinates are integers divided by one scale s (8-bit images,
counts) are multiplied as float32 integers: every product and partial sum of
a pair with ``||a|| ||b|| <= 2**24`` is an integer float32 holds exactly, so
the float32 matrix product is exact. These loops find the integers (and
refuse rows off the grid) and recompute, exactly in float64, the few pairs
whose norms are too large for that proof. Serial and ``nogil``: the tiled
Gram engine runs them from two threads at once. Their plain-numpy twins are
in ``tests/test_gram_grid.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._common import _exp, interruptible

__all__ = ["grid_integers", "grid_shifted", "grid_shifted_norms", "grid_wide_pairs"]

_serial = dict(cache=True, nogil=True, error_model="numpy")
# Integers up to 2^24 are exact in float32.
_FLOAT32_INTEGERS = 16777216.0


# The sums of squared integers are exact in any order (below 2^53): reassociation
# lets the reduction vectorise without changing a bit.
@njit(**_serial, fastmath={"reassoc"})
def _grid_integers(X, scale, out, sq):
    # Branch-free inner loop (it vectorises): a row off the grid is counted, not left early.
    n, d = X.shape
    bad = 0
    for i in range(n):
        acc = 0.0
        for k in range(d):
            a = np.rint(X[i, k] * scale)
            bad += (a / scale != X[i, k]) | (abs(a) > _FLOAT32_INTEGERS)
            out[i, k] = np.float32(a)
            acc += a * a
        sq[i] = acc
        if bad:
            return False
    return True


@interruptible
def grid_integers(X, scale):
    """The integers ``a = rint(X * scale)`` as float32, and their squared row norms.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64, C-contiguous
    scale : float
        The grid's scale s (``X = fl(a / s)``).

    Returns
    -------
    (ndarray of shape (n, d) float32, ndarray of shape (n,) float64) or None
        None when some ``fl(a / s) != x`` (the row is not on the grid) or
        ``|a| > 2**24`` (not exact in float32). The squared norms are sums
        of integers, exact while they stay below 2**53 (the caller checks).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty(X.shape, dtype=np.float32)
    sq = np.empty(X.shape[0])
    if not _grid_integers(X, float(scale), out, sq):
        return None
    return out, sq


# One pass for both entry points: with ``out`` of shape (n, d) it writes the shifted
# rows, with ``sq`` of shape (n,) the shifted rows' squared norms (an empty array
# skips either); ``top[0]`` gets the largest squared norm of the unshifted integers
# (the input rows'). Sums of squared integers are exact in any order: reassociation
# changes no bit.
@njit(**_serial, fastmath={"reassoc"})
def _grid_shift_pass(X, scale, shift, out, sq, top):
    n, d = X.shape
    write, norms = out.shape[0] > 0, sq.shape[0] > 0
    bad = 0
    for i in range(n):
        acc = 0.0
        given = 0.0
        for k in range(d):
            a = np.rint(X[i, k] * scale)
            c = a - shift[k]
            bad += (a / scale != X[i, k]) | (abs(c) > _FLOAT32_INTEGERS)
            if write:
                out[i, k] = c / scale
            acc += c * c
            given += a * a
        if norms:
            sq[i] = acc
        if given > top[0]:
            top[0] = given
        if bad:
            return False
    return True


@interruptible
def grid_shifted(X, scale, shift):
    """Rows on the grid shifted by an integer vector: ``fl((a - shift) / s)``, one pass.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    scale : float
    shift : ndarray of shape (d,), float64 integers

    Returns
    -------
    (ndarray of shape (n, d) float64, float) or None
        The shifted rows and ``max ||a||^2`` over the rows' *unshifted*
        integers (summed in float64, within a relative 2**-53 d of the
        exact integer). None when some coordinate is not ``fl(a / s)`` for
        an integer ``a``, or ``|a - shift| > 2**24``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty(X.shape)
    top = np.zeros(1)
    if not _grid_shift_pass(X, float(scale), np.ascontiguousarray(shift, dtype=np.float64),
                            out, np.empty(0), top):
        return None
    return out, float(top[0])


@interruptible
def grid_shifted_norms(X, scale, shift):
    """The squared norms of the shifted integers ``a - shift`` and ``max ||a||^2``, one
    read-only pass (what :func:`grid_shifted` then :func:`grid_integers` would find).

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    scale : float
    shift : ndarray of shape (d,), float64 integers

    Returns
    -------
    (ndarray of shape (n,), float) or None
        None under the conditions of :func:`grid_shifted`.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    sq = np.empty(X.shape[0])
    top = np.zeros(1)
    if not _grid_shift_pass(X, float(scale), np.ascontiguousarray(shift, dtype=np.float64),
                            np.empty((0, 0)), sq, top):
        return None
    return sq, float(top[0])


@njit(**_serial)
def _grid_wide_pairs(A, B, aa, bb, gamma, diag_offset, out):
    n, m = out.shape
    d = A.shape[1]
    limit = _FLOAT32_INTEGERS * _FLOAT32_INTEGERS
    fixed = 0
    for i in range(n):
        for j in range(m):
            if aa[i] * bb[j] <= limit or (diag_offset >= 0 and j == i + diag_offset):
                continue
            dot = 0.0  # integer products below 2^48, sums below 2^53: exact
            for k in range(d):
                dot += np.float64(A[i, k]) * np.float64(B[j, k])
            dist = aa[i] + bb[j] - 2.0 * dot
            if dist < 0.0:
                dist = 0.0
            out[i, j] = _exp(-gamma * dist)
            fixed += 1
    return fixed


@interruptible
def grid_wide_pairs(A, B, aa, bb, gamma, diag_offset, out):
    """Recompute exactly the RBF values of pairs with ``||a||^2 ||b||^2 > 2**48``.

    ``out[i, j] = exp(-gamma (aa[i] + bb[j] - 2 a_i'b_j))`` with the integer
    product summed in float64 (exact), for the pairs whose float32 product
    the exactness proof does not cover; other entries are left as they are.

    Parameters
    ----------
    A : ndarray of shape (n, d), float32 integers
    B : ndarray of shape (m, d), float32 integers
    aa, bb : ndarray of shape (n,), (m,)
        Squared norms of the rows of A and B.
    gamma : float
        The factor of the integer squared distances (gamma / s^2).
    diag_offset : int
        Entries ``(i, i + diag_offset)`` are a symmetric matrix's exact diagonal: kept.
    out : ndarray of shape (n, m), float64, rows may be strided

    Returns
    -------
    int
        The number of entries recomputed.
    """
    return _grid_wide_pairs(A, B, np.ascontiguousarray(aa, dtype=np.float64),
                            np.ascontiguousarray(bb, dtype=np.float64), float(gamma),
                            int(diag_offset if diag_offset is not None else -1), out)
