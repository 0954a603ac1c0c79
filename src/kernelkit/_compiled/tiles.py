"""Compiled single-thread passes over one tile of a Gram matrix (the tiled engine).

The tiled Gram engine (:mod:`kernelkit.kernels.tiled`) runs one task per tile
on each core: a single-threaded BLAS product of the tile's rows and columns,
then one of these loops while the tile is still in cache, then, for a
symmetric matrix, the tile's mirror image. They are serial and release the
GIL (``nogil``), so two Python threads run them side by side; the parallel
loops of :mod:`.elementwise` must not be called from two threads at once
(numba's default threading layer is not thread safe).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._common import _check_2d, _check_out, _exp, _norms, _offset

__all__ = ["rbf_tile", "mirror_tile"]

_serial = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})  # see _jit_fma
_SUB = 64  # 64 x 64 doubles: a sub-tile and its transpose stay in L1/L2


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def _rbf_row(g, xi, yy, gamma, o):
    # One row; vectorises when g and o are C-contiguous (numba then knows unit stride).
    for j in range(g.shape[0]):
        d = xi + yy[j] - 2.0 * np.float64(g[j])
        if d < 0.0:  # round-off; written so that NaN propagates
            d = 0.0
        o[j] = _exp(-gamma * d)


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def _rbf_row_in_place(o, xi, yy, gamma):
    # One array, not two aliased ones: LLVM's overlap check would pick the scalar loop.
    for j in range(o.shape[0]):
        d = xi + yy[j] - 2.0 * o[j]
        if d < 0.0:
            d = 0.0
        o[j] = _exp(-gamma * d)


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def _rbf_row_buffered(g, xi, yy, gamma, buf, o):
    # Rows of views (a larger row stride): numba cannot prove unit stride, so the
    # row is copied into a contiguous buffer (in L1), where the exp loop vectorises.
    for j in range(buf.shape[0]):
        buf[j] = np.float64(g[j])
    _rbf_row_in_place(buf, xi, yy, gamma)
    for j in range(buf.shape[0]):
        o[j] = buf[j]


@njit(**_serial)
def _rbf_tile_contiguous(G, xx, yy, gamma, diag_offset, out):
    # G and out C-contiguous and distinct: each row straight from G to out.
    n, m = G.shape
    one = _exp(-gamma * 0.0)
    for i in range(n):
        _rbf_row(G[i], xx[i], yy, gamma, out[i])
        j = i + diag_offset
        if diag_offset >= 0 and j < m:
            out[i, j] = one
    return out


@njit(**_serial)
def _rbf_tile_in_place(G, xx, yy, gamma, diag_offset):
    # G C-contiguous float64, overwritten by its values.
    n, m = G.shape
    one = _exp(-gamma * 0.0)
    for i in range(n):
        _rbf_row_in_place(G[i], xx[i], yy, gamma)
        j = i + diag_offset
        if diag_offset >= 0 and j < m:
            G[i, j] = one
    return G


@njit(**_serial)
def _rbf_tile(G, xx, yy, gamma, diag_offset, out):
    # Row-strided views (tiles of a bigger matrix): row by row through a buffer.
    n, m = G.shape
    one = _exp(-gamma * 0.0)
    buf = np.empty(m)
    for i in range(n):
        _rbf_row_buffered(G[i], xx[i], yy, gamma, buf, out[i])
        j = i + diag_offset
        if diag_offset >= 0 and j < m:
            out[i, j] = one
    return out


def rbf_tile(G, xx, yy, gamma, diag_offset, out):
    """Single-threaded :func:`~kernelkit._compiled.rbf_from_inner` for one tile.

    ``out = exp(-gamma * max(xx[i] + yy[j] - 2 G[i, j], 0))``, entries
    ``(i, i + diag_offset)`` exactly 1 when ``diag_offset >= 0``. ``G`` and
    ``out`` may be row-strided views (tiles of a bigger matrix); ``out`` may
    be ``G``.
    """
    _check_2d("G", G, rows=True)
    _check_out(out, G.shape, G)
    xx = _norms("xx", xx, G.shape[0])
    yy = _norms("yy", yy, G.shape[1])
    gamma, diag_offset = float(gamma), _offset(diag_offset)
    if G.flags.c_contiguous and out.flags.c_contiguous:
        if out is G:
            return _rbf_tile_in_place(G, xx, yy, gamma, diag_offset)
        return _rbf_tile_contiguous(G, xx, yy, gamma, diag_offset, out)
    return _rbf_tile(G, xx, yy, gamma, diag_offset, out)


@njit(cache=True, nogil=True)
def _mirror_tile(K, r0, r1, c0, c1):
    for j0 in range(c0, c1, _SUB):
        j1 = min(c1, j0 + _SUB)
        for i0 in range(r0, r1, _SUB):
            i1 = min(r1, i0 + _SUB)
            for j in range(j0, j1):
                for i in range(max(i0, j + 1), i1):
                    K[j, i] = K[i, j]
    return K


def mirror_tile(K, r0, r1, c0, c1):
    """Copy the tile's entries below the diagonal onto their mirror images, in place.

    ``K[j, i] = K[i, j]`` for every ``r0 <= i < r1``, ``c0 <= j < c1`` with
    ``j < i``: the whole tile when it lies below the diagonal (``c1 <= r0``),
    its strict lower triangle when it is a diagonal square (``c0 = r0``,
    ``c1 = r1``). Two tiles never write the same entry, so tiles can be
    mirrored by different threads at once.
    """
    _check_2d("K", K)
    n = K.shape[0]
    if K.shape[1] != n or not (0 <= r0 <= r1 <= n and 0 <= c0 <= c1 <= n):
        raise ValueError(f"K must be square and the tile inside it, got {K.shape}, "
                         f"rows [{r0}, {r1}), columns [{c0}, {c1})")
    return _mirror_tile(K, int(r0), int(r1), int(c0), int(c1))
