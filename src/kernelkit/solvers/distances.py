"""Distances in feature space from kernel values, in blocks of query rows.

||phi(x) - phi(z)||^2 = k(x, x) - 2 k(x, z) + k(z, z), clamped at 0 (round-off
can make it slightly negative): the formula is
:func:`kernelkit.features.centers.sq_dist_from_inner`, shared with k-means++
seeding and kernel k-means. Only the kernel object, ``len`` and row
slicing/indexing touch the inputs, so kernels on non-vector inputs (strings)
work the same way.
"""

from __future__ import annotations

import numpy as np

from .._budget import DISTANCE_BLOCK_BYTES, row_blocks, rows_per_block
from .._compiled import smallest_k, smallest_k_stable
from ..features.centers import sq_dist_from_inner, take_rows
from ..gram import pairwise_blocked

# Relative round-off of k(x,x) - 2k(x,z) + k(z,z): a few hundred ulps, enough for
# the kernel's own accumulation over the features.
_ROUNDOFF = 256 * np.finfo(np.float64).eps

__all__ = ["query_blocks", "sq_distances", "kneighbors_blocked", "smallest_k_indices",
           "sq_dist_from_inner", "take_rows"]


def query_blocks(n_query, n_fit, n_temporaries=3):
    """(r0, r1) row ranges whose (rows, n_fit) temporaries fit the memory budget.

    Each of the ``n_temporaries`` blocks takes at most
    :data:`~kernelkit._budget.DISTANCE_BLOCK_BYTES`, all together at most the
    block share of the budget.
    """
    step = rows_per_block(n_fit, n_temporaries=n_temporaries,
                          cap=n_temporaries * DISTANCE_BLOCK_BYTES)
    return row_blocks(n_query, step)


def sq_distances(kernel, Xq, diag_q, X_fit, diag_fit):
    """Squared feature-space distances of shape (len(Xq), len(X_fit)), clamped at 0
    (values within the expansion's round-off of 0 are set to 0).

    ``Xq`` and ``X_fit`` are validated inputs of ``kernel``; ``diag_q`` and
    ``diag_fit`` are ``kernel.diag`` of the two.
    """
    D = pairwise_blocked(kernel, Xq, X_fit)  # validated once by the caller
    if D.dtype != np.float64:
        D = D.astype(np.float64)
    sq_dist_from_inner(D, diag_q, diag_fit, out=D)  # one pass, in place
    # The expansion cannot resolve squared distances below its own round-off
    # (~eps (k(x,x) + k(z,z))): those are 0, so a query on a training point is at
    # distance 0 exactly (which "distance" weights rely on) instead of ~1e-8.
    # Few entries are that small: find candidates against the largest threshold,
    # then test each against its own.
    dq, df = np.abs(diag_q), np.abs(diag_fit)
    if D.size:
        i, j = np.nonzero(D <= _ROUNDOFF * (dq.max() + df.max()))
        if i.size:
            hit = D[i, j] <= _ROUNDOFF * (dq[i] + df[j])
            D[i[hit], j[hit]] = 0.0
    return D


#: Up to this k one compiled pass per row (O(m k)) beats a stable sort of the row.
_COMPILED_MAX_K = 64


def smallest_k_indices(D, k):
    """Indices of the k smallest entries of each row, sorted by (value, index):
    ties in value are ordered by column index, so the result is deterministic."""
    if k <= _COMPILED_MAX_K:
        return smallest_k(D, k)
    return smallest_k_stable(D, k)


def kneighbors_blocked(kernel, Xq, X_fit, diag_fit, k, *, exclude_self=False):
    """The k nearest training points of each query in feature space.

    Parameters
    ----------
    kernel : Kernel
    Xq : validated queries, length n_query
    X_fit : validated training inputs, length n_fit
    diag_fit : ndarray of shape (n_fit,)
        ``kernel.diag(X_fit)``.
    k : int
        Number of neighbours, <= n_fit (- 1 with ``exclude_self``).
    exclude_self : bool, default=False
        ``Xq`` is ``X_fit``: query i does not count itself (as scikit-learn's
        ``kneighbors(X=None)``).

    Returns
    -------
    sq_dist : ndarray of shape (n_query, k)
        Squared distances, ascending.
    indices : ndarray of shape (n_query, k)
        Indices into X_fit.

    Only one (block, n_fit) distance block lives at a time.
    """
    n_q = Xq.shape[0]
    sq = np.empty((n_q, k))
    ind = np.empty((n_q, k), dtype=np.intp)
    diag_q = diag_fit if exclude_self else kernel.diag(Xq)
    for r0, r1 in query_blocks(n_q, X_fit.shape[0]):
        D = sq_distances(kernel, Xq[r0:r1], diag_q[r0:r1], X_fit, diag_fit)
        if exclude_self:
            D[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
        idx = smallest_k_indices(D, k)
        ind[r0:r1] = idx
        sq[r0:r1] = np.take_along_axis(D, idx, axis=1)
    return sq, ind
