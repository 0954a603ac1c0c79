"""Compiled selections and grouped sums: member sums (kernel k-means) and the
k smallest entries of each row (nearest neighbours)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._common import _check_2d, _check_out, _jit

__all__ = ["member_sums", "smallest_k", "smallest_k_stable", "bounded_candidates"]


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
    estimators use it for k <= 64 and :func:`smallest_k_stable` beyond).
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


def smallest_k_stable(D, k):
    """Column indices of the k smallest entries of each row, by a stable sort.

    The same order as :func:`smallest_k` (value, then index): argpartition
    would pick an arbitrary one of several entries tied at the k-th value;
    the stable sort keeps the smallest indices. O(m log m) per row, for the
    k beyond which :func:`smallest_k`'s O(m k) insertion loses.

    Returns
    -------
    ndarray of shape (n, k), int64
    """
    return np.argsort(D, axis=1, kind="stable")[:, :k].astype(np.int64)


@njit(**_jit)
def _bounded_candidates(G, qq, ff, nq, nf, c, c2, k, self_offset, floor, cand, counts):
    n, m = G.shape
    cap = cand.shape[1]
    for i in prange(n):
        skip = i + self_offset if self_offset >= 0 else -1
        upper = np.full(k, np.inf)
        for j in range(m):
            if j == skip:
                continue
            v = (qq[i] + ff[j] - 2.0 * np.float64(G[i, j])) + (c * nq[i] * nf[j]
                                                                 + c2 * (qq[i] + ff[j]))
            if v < upper[k - 1]:
                p = k - 1
                while p > 0 and upper[p - 1] > v:
                    upper[p] = upper[p - 1]
                    p -= 1
                upper[p] = v
        tau = max(upper[k - 1], floor[i])
        cnt = 0
        for j in range(m):
            if j == skip:
                continue
            e = c * nq[i] * nf[j] + c2 * (qq[i] + ff[j])
            if (qq[i] + ff[j] - 2.0 * np.float64(G[i, j])) - e <= tau:
                if cnt < cap:
                    cand[i, cnt] = j
                cnt += 1
        counts[i] = cnt
    return counts


def bounded_candidates(G, qq, ff, nq, nf, c, c2, k, self_offset, floor, cap):
    """Columns that may hold a row's k smallest squared distances, from approximate inner products.

    ``G`` holds approximate inner products q_i'x_j (float32 products of
    float64 rows), such that d_ij = qq[i] + ff[j] - 2 G[i, j] is within
    e_ij = c nq[i] nf[j] + c2 (qq[i] + ff[j]) of its float64 value
    (:func:`kernelkit.solvers.distances.float32_distance_bound`). A column is a candidate when its lower bound d - e is <=
    tau_i, the k-th smallest upper bound d + e of the row (at least
    ``floor[i]``): every column whose float64 value is among the row's k
    smallest (or <= floor) is then a candidate. Column ``i + self_offset`` is
    skipped when ``self_offset >= 0`` (a query that is a training point).

    Parameters
    ----------
    G : ndarray of shape (n, m), float32 or float64
    qq, nq : ndarray of shape (n,)
        Squared norms and norms of the rows.
    ff, nf : ndarray of shape (m,)
        Squared norms and norms of the columns.
    c, c2 : float
    k : int, 1 <= k <= m (- 1 with a self column)
    self_offset : int
    floor : ndarray of shape (n,)
    cap : int
        Room for candidates per row.

    Returns
    -------
    cand : ndarray of shape (n, cap), int64
        The first ``min(counts[i], cap)`` entries of row i are its candidates, ascending.
    counts : ndarray of shape (n,), int64
        Candidates of each row (may exceed ``cap``: the row is then incomplete).
    """
    _check_2d("G", G)
    n, m = G.shape
    if not 1 <= k <= m - (1 if self_offset >= 0 else 0):
        raise ValueError(f"k must be in [1, {m}] (one less with a self column), got {k}")
    vecs = [np.ascontiguousarray(a, dtype=np.float64) for a in (qq, ff, nq, nf, floor)]
    for name, a, size in zip(("qq", "ff", "nq", "nf", "floor"), vecs, (n, m, n, m, n)):
        if a.shape != (size,):
            raise ValueError(f"{name} must have shape ({size},), got {a.shape}")
    cand = np.zeros((n, max(int(cap), 1)), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    _bounded_candidates(G, vecs[0], vecs[1], vecs[2], vecs[3], float(c), float(c2), int(k),
                        int(self_offset), vecs[4], cand, counts)
    return cand, counts
