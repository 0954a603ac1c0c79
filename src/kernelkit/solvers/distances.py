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
from .._choices import Choice

#: Relative round-off of k(x,x) - 2k(x,z) + k(z,z): a few hundred ulps, enough for
#: the kernel's own accumulation over the features; distances below it are 0 (models too).
ROUNDOFF = 256 * np.finfo(np.float64).eps

__all__ = ["query_blocks", "sq_distances", "kneighbors_blocked", "smallest_k_indices",
           "sq_dist_from_inner", "take_rows", "neighbour_order_choice",
           "candidate_precision_choice", "float32_distance_bound"]

# Squared norms of the centred rows above which the Euclidean expansion could
# overflow: the order then comes from the kernel's own (overflow-safe) blocks.
_EUCLIDEAN_SQ_NORM_LIMIT = 1e300


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
        i, j = np.nonzero(D <= ROUNDOFF * (dq.max() + df.max()))
        if i.size:
            hit = D[i, j] <= ROUNDOFF * (dq[i] + df[j])
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
    if neighbour_order_choice(kernel, X_fit, Xq).value == "euclidean":
        profile = kernel.sq_euclidean_profile()
        if profile is None:  # a multiple of the linear kernel: c ||x - z||^2
            diag_q = diag_fit if exclude_self else kernel.diag(Xq)
        else:  # k(x, x) = f(0) for every x: no pass over the queries' kernel diagonal
            diag_q = diag_fit if exclude_self else np.full(n_q, float(profile(np.zeros(1))[0]))
        if _euclidean_kneighbors(profile, Xq, X_fit, diag_q, diag_fit, k, exclude_self,
                                 sq, ind, scale=kernel.feature_distance_scale()):
            return sq, ind
    diag_q = diag_fit if exclude_self else kernel.diag(Xq)
    for r0, r1 in query_blocks(n_q, X_fit.shape[0]):
        D = sq_distances(kernel, Xq[r0:r1], diag_q[r0:r1], X_fit, diag_fit)
        if exclude_self:
            D[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
        idx = smallest_k_indices(D, k)
        ind[r0:r1] = idx
        sq[r0:r1] = np.take_along_axis(D, idx, axis=1)
    return sq, ind


def _dense_float(X):
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind == "f"


def neighbour_order_choice(kernel, X_fit, Xq=None):
    """How the k nearest neighbours are found, as a :class:`~kernelkit.planning.Choice`.

    ``"euclidean"`` when the kernel is a strictly decreasing function of the
    squared Euclidean distance (:meth:`Kernel.sq_euclidean_profile`: RBF,
    Matern, their positive sums, products and multiples), or its feature-space
    distance is a multiple of the Euclidean one (:meth:`Kernel.feature_distance_scale`:
    the linear kernel and its positive multiples), and the inputs are
    dense float arrays: the neighbours are then selected on squared Euclidean
    distances from one matrix product, and the kernel is evaluated for the k
    chosen only. Else ``"feature space"``: k(x,x) - 2k(x,z) + k(z,z) over
    whole blocks.
    """
    if kernel.sq_euclidean_profile() is None and kernel.feature_distance_scale() is None:
        return Choice("neighbour order", "feature space",
                      f"{kernel!r} is not declared a decreasing function of the Euclidean "
                      "distance: feature-space distances over whole blocks")
    if not _dense_float(X_fit) or (Xq is not None and not _dense_float(Xq)):
        return Choice("neighbour order", "feature space",
                      "sparse or non-float input: feature-space distances over whole blocks")
    return Choice("neighbour order", "euclidean",
                  "the kernel decreases with the Euclidean distance: neighbours selected on "
                  "squared Euclidean distances (one matrix product per block), the kernel "
                  "evaluated for the k chosen only")


#: The float32 candidate pass pays from this many features on (the matrix
#: product then dominates; below it, the two scans of the block cost more than
#: the float64 product saved).
FLOAT32_CANDIDATES_MIN_FEATURES = 32
# Above this sum of squared row norms float32 products could overflow: float64 only.
_FLOAT32_SQ_NORM_LIMIT = 1e30


def float32_distance_bound(d):
    """(c, c2): |d32 - d64| <= c ||q|| ||x|| + c2 (||q||^2 + ||x||^2) for squared distances.

    d32 = ||q||^2 + ||x||^2 - 2 fl32(q'x) from float32-rounded rows, d64 the
    same with a float64 product (any summation order). Rounding the rows to
    float32 (u = 2^-24) and summing d products in float32 err by at most
    (gamma_d + 3u) sum |q_i x_i| <= (gamma_d + 3u) ||q|| ||x||, gamma_d =
    d u / (1 - d u) (Higham 2002, ch. 3), the float64 product by gamma_d in
    float64; the additions of the norms round by a few float64 ulps of
    ||q||^2 + ||x||^2. Twice that (the expansion has 2 q'x), with a 1% margin.

    References
    ----------
    Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed.
    SIAM, section 3.1.
    """
    u32, u64 = 2.0 ** -24, 2.0 ** -53
    g32, g64 = d * u32 / (1 - d * u32), d * u64 / (1 - d * u64)
    return 2.0 * 1.01 * (g32 + 3 * u32 + g64), 8.0 * u64


def candidate_precision_choice(d, sq_norm_max=0.0):
    """Whether k-NN's Euclidean selection first finds candidates with float32 products."""
    if d < FLOAT32_CANDIDATES_MIN_FEATURES:
        return Choice("candidate precision", "float64",
                      f"{d} features < {FLOAT32_CANDIDATES_MIN_FEATURES}: the matrix product "
                      "is cheap, one float64 pass")
    if not sq_norm_max <= _FLOAT32_SQ_NORM_LIMIT:
        return Choice("candidate precision", "float64",
                      "rows too large for float32 products: one float64 pass")
    return Choice("candidate precision", "float32 candidates, float64 check",
                  f"{d} features: float32 products (twice the float64 rate) with a "
                  "rigorous error bound give each query's few candidates, whose distances "
                  "are recomputed in float64: the same neighbours as a float64 pass")


def _select_float64(Qb, qb, F, ff, k, self_offset):
    """(indices, squared distances) of the k nearest columns: one float64 pass."""
    D = np.matmul(Qb, F.T)
    sq_dist_from_inner(D, qb, ff, out=D)
    rows = np.arange(len(Qb))
    if self_offset >= 0:
        D[rows, rows + self_offset] = np.inf
    idx = smallest_k_indices(D, k)
    s = np.take_along_axis(D, idx, axis=1)
    # The expansion's round-off of 0 is 0, as in sq_distances. Only a row whose
    # smallest value is within the largest round-off threshold (a query with
    # near-duplicates) has entries to zero, which may change its selection or
    # order (ties at 0 go by index): those rows are zeroed and selected again.
    near = np.flatnonzero(s[:, 0] <= ROUNDOFF * (qb + ff.max()))
    if near.size:
        Dn = D[near]
        i, j = np.nonzero(Dn <= ROUNDOFF * (qb[near].max() + ff.max()))
        hit = Dn[i, j] <= ROUNDOFF * (qb[near][i] + ff[j])
        Dn[i[hit], j[hit]] = 0.0
        idx[near] = smallest_k_indices(Dn, k)
        s[near] = np.take_along_axis(Dn, idx[near], axis=1)
    return idx, s


def _select_float32(Qb, qb, F, ff, F32, nf, k, self_offset):
    """As :func:`_select_float64`, from float32 products and a float64 check of candidates.

    Every column whose float64 squared distance can be among the k smallest
    (or within round-off of 0) is a candidate (:func:`bounded_candidates`
    with :func:`float32_distance_bound`); the candidates' distances are
    computed in float64 and the k smallest taken by (value, index). A row
    with more candidates than room falls back to the float64 pass.
    """
    from .._compiled import bounded_candidates

    n = len(Qb)
    nq = np.sqrt(qb)
    G = np.matmul(Qb.astype(np.float32), F32.T)
    c, c2 = float32_distance_bound(Qb.shape[1])
    floor = ROUNDOFF * (qb + ff.max())
    cap = 4 * k + 32
    cand, counts = bounded_candidates(G, qb, ff, nq, nf, c, c2, k, self_offset, floor, cap)
    del G
    idx = np.empty((n, k), dtype=np.intp)
    s = np.empty((n, k))
    full = counts > cap
    rows = np.flatnonzero(~full)
    if rows.size:
        have = np.arange(cap)[None, :] < counts[rows, None]
        ii, cc = np.nonzero(have)
        i, j = rows[ii], cand[rows[ii], cc]
        dd = qb[i] + ff[j] - 2.0 * np.einsum("ij,ij->i", Qb[i], F[j])
        np.maximum(dd, 0.0, out=dd)
        dd[dd <= ROUNDOFF * (qb[i] + ff[j])] = 0.0
        order = np.lexsort((j, dd, i))
        i, j, dd = i[order], j[order], dd[order]
        start = np.searchsorted(i, rows)
        take = start[:, None] + np.arange(k)[None, :]
        idx[rows], s[rows] = j[take], dd[take]
    rf = np.flatnonzero(full)  # many near-ties (repeated rows): the float64 pass
    if rf.size and self_offset < 0:
        idx[rf], s[rf] = _select_float64(Qb[rf], qb[rf], F, ff, k, -1)
    for r in rf if self_offset >= 0 else ():  # each row skips its own column
        idx[r:r + 1], s[r:r + 1] = _select_float64(Qb[r:r + 1], qb[r:r + 1], F, ff, k,
                                                   r + self_offset)
    return idx, s


def _euclidean_kneighbors(profile, Xq, X_fit, diag_q, diag_fit, k, exclude_self, sq, ind,
                          scale=None):
    """k nearest neighbours in the Euclidean order, feature-space distances of the chosen.

    With k(x, z) = f(||x - z||^2), f strictly decreasing, the feature-space
    order is the Euclidean order. Rows are centred on X_fit's mean (distances
    do not change; the expansion keeps more digits), squared distances come
    from ``||q||^2 + ||x||^2 - 2 q'x`` clamped at 0, values within the
    expansion's round-off of 0 are 0 (a query on a training point is at
    distance 0), and equal squared distances are ordered by index; with many
    features the candidates come from float32 products first
    (:func:`candidate_precision_choice`). The feature-space distances of the
    k chosen are ``k(q,q) + k(x,x) - 2 f(s)``, with the same clamp and
    round-off rule as :func:`sq_distances`. Where f maps two different
    distances to the same float (far beyond the kernel's width, where it
    underflows), the nearer one comes first, where the feature-space path
    would order them by index.

    With ``profile=None`` (a multiple ``scale`` of the linear kernel) the
    chosen distances are ``scale * s`` themselves, from the centred rows, with
    the same round-off rule against ``k(q,q) + k(x,x)``.

    Fills ``sq`` and ``ind``; returns False (nothing filled) when the squared
    norms could overflow the expansion.
    """
    shift = X_fit.mean(axis=0, dtype=np.float64)
    F = np.asarray(X_fit, dtype=np.float64) - shift
    Q = F if exclude_self else np.asarray(Xq, dtype=np.float64) - shift
    ff = np.einsum("ij,ij->i", F, F)
    qq = ff if exclude_self else np.einsum("ij,ij->i", Q, Q)
    with np.errstate(invalid="ignore"):
        norm_max = ff.max(initial=0.0) + qq.max(initial=0.0)
        if not norm_max <= _EUCLIDEAN_SQ_NORM_LIMIT:
            return False
    f32 = candidate_precision_choice(F.shape[1], norm_max).value != "float64"
    F32, nf = (F.astype(np.float32), np.sqrt(ff)) if f32 else (None, None)
    dq, df = np.abs(diag_q), np.abs(diag_fit)
    for r0, r1 in query_blocks(Q.shape[0], F.shape[0], n_temporaries=1):
        off = r0 if exclude_self else -1
        if f32:
            idx, s = _select_float32(Q[r0:r1], qq[r0:r1], F, ff, F32, nf, k, off)
        else:
            idx, s = _select_float64(Q[r0:r1], qq[r0:r1], F, ff, k, off)
        if profile is None:  # c ||q - x||^2 itself, from the centred rows
            dist = scale * s
        else:
            dist = (diag_q[r0:r1, None] + diag_fit[idx]) - 2.0 * profile(s)
        np.maximum(dist, 0.0, out=dist)
        dist[dist <= ROUNDOFF * (dq[r0:r1, None] + df[idx])] = 0.0
        ind[r0:r1] = idx
        sq[r0:r1] = dist
    return True
