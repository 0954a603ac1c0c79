"""Gram matrices of one-vs-one class pairs, without the n x n matrix.

A one-vs-one SVM solves one problem per pair of classes (a, b) on the samples
of a and b. With the data sorted by class, each within-class block is
computed once and each cross block once, and every pair's matrix is put
together from them in one reused buffer.
"""

from __future__ import annotations

import numpy as np

from .._compiled import mirror_band_upper
from ..gram import KernelRows, pairwise_blocked

__all__ = ["pair_grams", "pair_grams_bytes", "sub_gram"]


def sub_gram(K, starts, a, b):
    """The Gram matrix of classes a and b from K sorted by class (contiguous copies)."""
    ra = slice(starts[a], starts[a + 1])
    rb = slice(starts[b], starts[b + 1])
    na, nb = ra.stop - ra.start, rb.stop - rb.start
    out = np.empty((na + nb, na + nb))
    out[:na, :na] = K[ra, ra]
    out[:na, na:] = K[ra, rb]
    out[na:, :na] = K[rb, ra]
    out[na:, na:] = K[rb, rb]
    return out


def pair_grams_bytes(counts):
    """Memory of :func:`pair_grams`: the class blocks plus the largest pair's matrix."""
    counts = np.asarray(counts, dtype=np.float64)
    top = np.sort(counts)[-2:].sum()
    return 8.0 * (float(np.sum(counts ** 2)) + top * top)


def pair_grams(kernel, X, starts, out=None):
    """The Gram matrices of the one-vs-one problems, without the n x n matrix.

    ``X`` is sorted by class, class c occupying rows ``starts[c]:starts[c+1]``.
    Yields ``(a, b, K)`` for a < b with K the Gram matrix of classes a and b
    (rows of a, then of b). Each within-class block is computed once (its
    upper half) and each cross block once, so the kernel is evaluated on the
    same 55% of the pairs (for 10 equal classes) as a symmetric n x n Gram
    matrix, in O(sum n_c^2 + max (n_a + n_b)^2) memory instead of O(n^2) (3.2
    GB at n = 20,000). K is a view of one reused buffer: valid until the next
    item. ``out``, if given, is a flat float64 buffer of at least
    :func:`pair_grams_bytes` / 8 entries that holds the class blocks and the
    pairs' matrices (a warm buffer from :mod:`.buffers`: no fresh pages).
    """
    kernel_rows = KernelRows(kernel, X)
    Xp = kernel_rows.X
    n_classes = len(starts) - 1
    counts = np.diff(starts)
    # The engine computes each symmetric block's lower half and mirrors it.
    top = int(np.sort(counts)[-2:].sum())
    if out is None:
        within = [pairwise_blocked(kernel, Xp[starts[c]:starts[c + 1]])
                  for c in range(n_classes)]
        buf = np.empty(top * top)
    else:
        within, at = [], 0
        for c in range(n_classes):
            nc = int(counts[c])
            within.append(pairwise_blocked(kernel, Xp[starts[c]:starts[c + 1]],
                                           out=out[at:at + nc * nc].reshape(nc, nc)))
            at += nc * nc
        buf = out[at:at + top * top]
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            na, nb = int(counts[a]), int(counts[b])
            m = na + nb
            K = buf[:m * m].reshape(m, m)
            K[:na, :na] = within[a]
            K[na:, na:] = within[b]
            if na and nb:
                K[:na, na:] = kernel_rows.rows(slice(starts[a], starts[a + 1]),
                                               slice(starts[b], starts[b + 1]))
                mirror_band_upper(K, 0, na)
            yield a, b, K
