"""Distances in feature space from kernel values, in blocks of query rows.

||phi(x) - phi(z)||^2 = k(x, x) - 2 k(x, z) + k(z, z), clamped at 0 (round-off
can make it slightly negative). Only the kernel object, ``len`` and row
slicing/indexing touch the inputs, so kernels on non-vector inputs (strings)
work the same way.
"""

from __future__ import annotations

import numpy as np

from .. import config
from .._compiled import smallest_k, smallest_k_ref, sqdist_from_inner
from ..kernels.base import pairwise_blocked, rows_per_block

# Relative round-off of k(x,x) - 2k(x,z) + k(z,z): a few hundred ulps, enough for
# the kernel's own accumulation over the features.
_ROUNDOFF = 256 * np.finfo(np.float64).eps

__all__ = ["reject_precomputed", "take_rows", "query_blocks", "sq_distances",
           "kneighbors_blocked"]


def reject_precomputed(kernel, est_name):
    """Distances need k(x, x) of every query, which a precomputed K(X, X_fit) lacks."""
    if kernel == "precomputed":
        raise ValueError(f"{est_name} does not accept kernel='precomputed': feature-space "
                         "distances need k(x, x) of every query point, which K(X, X_fit) does "
                         "not contain. Pass the kernel object or expression instead")
    return kernel


def take_rows(X, indices):
    """Rows of X (an array, or a list such as strings) at ``indices``."""
    if isinstance(X, np.ndarray):
        return X[indices]
    return [X[i] for i in indices]


#: Bytes of one (rows, n_fit) temporary: large enough for full-speed matrix
#: products (measured on Fashion-MNIST 2k x 10k: 4 MB blocks 2x slower), small
#: enough to keep fresh-page faults (slow on the reference VM) in check.
_BLOCK_BYTES = 64 * 1024**2


def query_blocks(n_query, n_fit, n_temporaries=3):
    """(r0, r1) row ranges whose (rows, n_fit) temporaries fit the memory budget."""
    budget = min(config.get_config()["memory"] // 8, n_temporaries * _BLOCK_BYTES)
    step = rows_per_block(n_fit, n_temporaries=n_temporaries, memory=budget)
    for r0 in range(0, n_query, step):
        yield r0, min(n_query, r0 + step)


def sq_distances(kernel, Xq, diag_q, X_fit, diag_fit):
    """Squared feature-space distances of shape (len(Xq), len(X_fit)), clamped at 0
    (values within the expansion's round-off of 0 are set to 0).

    ``Xq`` and ``X_fit`` are validated inputs of ``kernel``; ``diag_q`` and
    ``diag_fit`` are ``kernel.diag`` of the two.
    """
    D = pairwise_blocked(kernel, Xq, X_fit)  # validated once by the caller
    if D.dtype != np.float64:
        D = D.astype(np.float64)
    # One compiled pass: D = k(x,x) + k(z,z) - 2 k(x,z), clamped at 0, in place.
    sqdist_from_inner(D, diag_q, diag_fit, -1, D)
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


#: Up to this k one compiled pass per row (O(m k)) beats argpartition + sort.
_COMPILED_MAX_K = 64


def _smallest(D, k):
    """Indices of the k smallest entries of each row, sorted by (value, index):
    ties in value are ordered by training index, so the result is deterministic."""
    if k <= _COMPILED_MAX_K:
        return smallest_k(D, k)
    return smallest_k_ref(D, k)


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
    n_q = len(Xq)
    sq = np.empty((n_q, k))
    ind = np.empty((n_q, k), dtype=np.intp)
    diag_q = diag_fit if exclude_self else kernel.diag(Xq)
    for r0, r1 in query_blocks(n_q, len(X_fit)):
        D = sq_distances(kernel, Xq[r0:r1], diag_q[r0:r1], X_fit, diag_fit)
        if exclude_self:
            D[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
        idx = _smallest(D, k)
        ind[r0:r1] = idx
        sq[r0:r1] = np.take_along_axis(D, idx, axis=1)
    return sq, ind
