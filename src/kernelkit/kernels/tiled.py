"""The tiled Gram engine: each core computes whole tiles of K while they sit in its cache.

The row-block path (:func:`~kernelkit.kernels.base.pairwise_blocked`) writes
a block of inner products to memory with a multi-threaded BLAS call, reads it
back for the kernel's elementwise pass, and, for a symmetric K, copies the
lower triangle onto the upper one at the end: K crosses the memory bus three
to four times. Here each of the cores' threads takes one tile at a time and
does all of it -- a single-threaded BLAS product of the tile's rows and
columns, the kernel's values (:mod:`kernelkit._compiled.tiles`) while the
tile is in cache, and for a symmetric K the tile's mirror image -- so K is
written once. Symmetric matrices are tiled so that only the lower triangle is
computed (half the products and exponentials) and every off-diagonal tile is
mirrored by the thread that computed it.

A kernel takes part by returning a tile function from ``_tile_values(X, Y)``
(RBF does, on dense float64 rows and on the float32 rows of its fast path);
a tile function with an ``operands`` attribute ``(X', Y')`` has the engine
multiply those rows instead (RBF's exact float32 products of rows on a grid);
every other kernel, sparse rows and small matrices keep the row-block path.
The numbers are those of the row-block path: products of the same prepared
rows in the same precision, the same elementwise loop, the exact diagonal
(except on RBF's grid route, whose exact integer products leave only the
final exp's rounding where the row-block path also rounds the product).
:meth:`KernelRows.block <kernelkit.kernels.KernelRows.block>` uses the engine
for large blocks of a rectangular K (the blocks of ``GramOperator``: Falkon's
K_nM, predictions).
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from .._cores import usable_cores

__all__ = ["tiled_gram", "tile_shape", "MIN_TILED_ENTRIES"]

#: Below this many entries of K the row-block path is used (one block, no threads).
MIN_TILED_ENTRIES = 1 << 20

# From this many features on, the product dominates a tile (see tile_shape).
_WIDE_D = 256
_MIN_TILE = 1 << 18


def tile_shape(n_features, n_cols):
    """Rows and columns of one tile for rows of ``n_features`` and ``n_cols`` columns.

    Parameters
    ----------
    n_features : int
    n_cols : int

    Returns
    -------
    (int, int)
        At most 8-12 MB of float64 (two of them fit the 32 MB L3 cache the
        cores share): row panels of 128 rows for cheap products (measured
        at n = m = 10,000, d = 10, while choosing: 0.31 s for K(X, Y) against
        0.34 s with 4096 columns and 0.47 s with 64 x 2048 tiles); 512 x 2048
        tiles when the product dominates (d = 784: 2.06 s against 2.35 s for
        256 x 4096 and 2.5 s for 512-row panels), their packing amortised over
        more rows.
    """
    rows, cols = (512, 2048) if n_features >= _WIDE_D else (128, 12288)
    cols = min(n_cols, cols)
    # Few columns (Nystroem's K(X, C) with small M): taller tiles, at least
    # _MIN_TILE entries each, so the threads do not wait on one another.
    return max(rows, _MIN_TILE // max(cols, 1)), cols


def _threads():
    from numba import get_num_threads

    return max(1, min(get_num_threads(), usable_cores()))


def _tiles(n, m, tr, tc, symmetric):
    """(r0, r1, c0, c1) of every tile; symmetric: the lower triangle, with each
    row block's diagonal square as one tile (so no two tiles share an entry)."""
    out = []
    for r0 in range(0, n, tr):
        r1 = min(n, r0 + tr)
        last = r0 if symmetric else m
        out.extend((r0, r1, c0, min(last, c0 + tc)) for c0 in range(0, last, tc))
        if symmetric:
            out.append((r0, r1, r0, r1))
    return out


def tiled_gram(kernel, X, Y, out, *, symmetric, check=None, on_block=None):
    """Fill ``out = K(X, Y)`` tile by tile on every core, if the kernel takes part.

    Parameters
    ----------
    kernel : Kernel
    X, Y : prepared rows (``kernel.prepare``); ``Y is X`` when ``symmetric``.
        float32 rows (a kernel's float32 fast path) give float32 products.
    out : ndarray of shape (n, m), float64 or float32, C-contiguous
    symmetric : bool
        K(X, X): compute the lower triangle, mirror it, exact diagonal.
    check : callable, optional
        ``check(tile)`` on every finished tile (the finiteness check of
        kernels whose values are not proven finite).
    on_block : callable, optional
        ``on_block(rows_done, n_rows)`` from the calling thread, with the
        finished share of K expressed in rows.

    Returns
    -------
    bool
        False when the kernel, the rows or the size do not suit tiles
        (``out`` untouched): use the row-block path.
    """
    n, m = out.shape
    if n * m < MIN_TILED_ENTRIES or not isinstance(X, np.ndarray) or X.ndim != 2:
        return False
    values = kernel._tile_values(X, Y)
    if values is None:
        return False
    # A kernel may multiply other rows than the prepared ones (RBF's grid route:
    # the rows' integers in float32, whose products are exact).
    X, Y = getattr(values, "operands", (X, Y))
    tr, tc = tile_shape(X.shape[1], m)
    tiles = _tiles(n, m, tr, tc, symmetric)
    product = np.result_type(X.dtype, Y.dtype)  # float32 rows: RBF's float32 fast path
    scratch = threading.local()  # a product tile per thread (see run)

    from ..linalg import one_blas_thread

    def run(tile):
        # a worker's own block too: a per-thread BLAS limit (OpenBLAS on OpenMP) set by
        # the caller's block below does not reach the pool's threads; for a shared pool
        # this only counts one more open block
        with one_blas_thread():
            return _run(tile)

    def _run(tile):
        from .._compiled import mirror_tile

        r0, r1, c0, c1 = tile
        target = out[r0:r1, c0:c1]
        if out.dtype == product and target.flags.c_contiguous:
            G = target  # whole rows: the product goes straight into K
        else:  # a C-contiguous product tile per thread: the values loop vectorises
            if getattr(scratch, "G", None) is None:
                scratch.G = np.empty(tr * max(tr, tc), dtype=product)  # diagonal squares: tr wide
            G = scratch.G[:(r1 - r0) * (c1 - c0)].reshape(r1 - r0, c1 - c0)
        np.matmul(X[r0:r1], Y[c0:c1].T, out=G)
        values(G, r0, r1, c0, c1, r0 - c0 if symmetric and c0 == r0 else -1, target)
        if check is not None:
            check(target)
        if symmetric:
            mirror_tile(out, r0, r1, c0, c1)
        return (r1 - r0) * (c1 - c0) * (2 if symmetric and c0 != r0 else 1)

    workers = _threads()
    with one_blas_thread():
        if workers == 1:  # one core, or inside a Dask task (one numba thread)
            done_entries = 0
            for tile in tiles:
                done_entries += run(tile)
                if on_block is not None:
                    on_block(min(n, n * done_entries // (n * m)), n)
            return True
        pool = ThreadPoolExecutor(workers, thread_name_prefix="kernelkit-gram")
        pending, done_entries = {pool.submit(run, t) for t in tiles}, 0
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    done_entries += f.result()  # re-raises a tile's error here
                if on_block is not None:
                    on_block(min(n, n * done_entries // (n * m)), n)
        finally:
            for f in pending:  # an error or Ctrl-C: start no further tile
                f.cancel()
            pool.shutdown(wait=True)
    return True
