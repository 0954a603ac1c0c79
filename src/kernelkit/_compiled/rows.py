"""Compiled passes over whole rows: a 64-bit hash of each row's words, and the
check that rows equal their group's first row (merging repeated rows)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._common import _jit

__all__ = ["row_hashes", "rows_equal"]

# FNV-1a's 64-bit offset basis and prime, and the shift of the xor that folds high bits down.
FOLD = 29
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


@njit(**_jit)
def _row_hashes(W, out):
    offset, prime = np.uint64(FNV_OFFSET), np.uint64(FNV_PRIME)
    for i in prange(W.shape[0]):
        h = offset
        for j in range(W.shape[1]):
            h = (h ^ W[i, j]) * prime
            h ^= h >> np.uint64(29)   # fold high bits down: float words differ high
        out[i] = h
    return out


def row_hashes(W):
    """A hash of each row of a 2-D C-contiguous uint64 array of words.

    FNV-1a over 64-bit words, plus a shift-xor after each multiplication: a
    multiplication only carries bits upward, and float64 words that differ in
    their exponent (0.0 and 1.0 of one-hot columns) differ only in the high
    bits, which plain FNV over words would keep out of the low bits (frequent
    collisions on one-hot data).

    Rows are read contiguously (the numpy twin walks columns, which strides
    across rows and runs ~10x slower on 400k x 118 rows).

    Parameters
    ----------
    W : ndarray of shape (n, w), uint64, C-contiguous

    Returns
    -------
    ndarray of shape (n,), uint64
    """
    if W.dtype != np.uint64 or W.ndim != 2 or not W.flags.c_contiguous:
        raise ValueError("row_hashes needs a 2-D C-contiguous uint64 array")
    return _row_hashes(W, np.empty(W.shape[0], dtype=np.uint64))


@njit(**_jit)
def _rows_equal(W, rows, leaders, out):
    for p in prange(rows.shape[0]):
        a, b = rows[p], leaders[p]
        same = True
        for j in range(W.shape[1]):
            if W[a, j] != W[b, j]:
                same = False
                break
        out[p] = same
    return out


def rows_equal(W, rows, leaders):
    """``out[p] = (W[rows[p]] == W[leaders[p]]).all()`` without gathering the rows.

    Parameters
    ----------
    W : ndarray of shape (n, w), uint64, C-contiguous
    rows, leaders : ndarray of shape (m,), int64

    Returns
    -------
    ndarray of shape (m,), bool
    """
    if W.dtype != np.uint64 or W.ndim != 2 or not W.flags.c_contiguous:
        raise ValueError("rows_equal needs a 2-D C-contiguous uint64 array")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    leaders = np.ascontiguousarray(leaders, dtype=np.int64)
    if rows.shape != leaders.shape:
        raise ValueError("rows and leaders must have the same shape")
    if rows.size and (min(rows.min(), leaders.min()) < 0 or
                      max(rows.max(), leaders.max()) >= W.shape[0]):
        raise IndexError("row index out of range")
    return _rows_equal(W, rows, leaders, np.empty(rows.shape[0], dtype=np.bool_))
