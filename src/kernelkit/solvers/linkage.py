"""Agglomerative trees without the n(n-1)/2 distances: Ward's method on explicit
features by the nearest-neighbour chain, and single linkage by Prim's minimum
spanning tree with the distances computed one row at a time.

Both return scipy's linkage matrix (``scipy.cluster.hierarchy.linkage``'s
format: rows ``[a, b, distance, size]`` sorted by distance, node ``n + i`` the
merge of row i), so the caller treats them as scipy's output. Ward's linkage
and single linkage are reducible, so the nearest-neighbour chain and the
spanning tree give the same merges as the generic algorithm (Mullner 2011).

References
----------
Mullner, D. (2011). Modern hierarchical, agglomerative clustering algorithms.
arXiv:1109.2378 (the nearest-neighbour chain, section 3.2; the minimum spanning
tree for single linkage, section 3.3; relabelling the merges, Algorithm 8).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ward_chain_linkage", "single_linkage_by_rows", "merges_to_linkage"]


def merges_to_linkage(n, merges):
    """scipy's linkage matrix from merges ``(i, j, distance)`` of clusters named by any
    of their points, in the order found: sorted by distance (stably), then each
    cluster renamed to its node number (Mullner's Algorithm 8, scipy's ``label``)."""
    merges = np.asarray(merges, dtype=np.float64).reshape(-1, 3)
    order = np.argsort(merges[:, 2], kind="stable")
    parent = np.arange(2 * n - 1)
    size = np.ones(2 * n - 1)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    Z = np.empty((n - 1, 4))
    for row, (i, j, dist) in enumerate(merges[order]):
        a, b = find(int(i)), find(int(j))
        node = n + row
        parent[a] = parent[b] = node
        size[node] = size[a] + size[b]
        Z[row] = (min(a, b), max(a, b), dist, size[node])
    return Z


def ward_chain_linkage(F, callback=None):
    """Ward's linkage of the rows of F (explicit features) by the nearest-neighbour chain.

    The Ward distance of clusters A and B is
    ``sqrt(2 |A| |B| / (|A| + |B|)) ||c_A - c_B||`` with c the centroids (scipy's
    convention: the Euclidean distance for two points). Memory: the centroids,
    O(n D); time O(n^2 D).

    Parameters
    ----------
    F : ndarray of shape (n, D)
    callback : callable, optional
        ``callback(n_merged)`` after each merge (the caller's progress).

    Returns
    -------
    ndarray of shape (n - 1, 4)
        scipy's linkage matrix.
    """
    C = np.array(F, dtype=np.float64, order="C", copy=True)  # centroid of each slot
    n = C.shape[0]
    size = np.ones(n)
    active = np.ones(n, dtype=bool)
    merges, chain = [], []
    diff = np.empty_like(C)
    while len(merges) < n - 1:
        if not chain:
            chain.append(int(np.flatnonzero(active)[0]))
        a = chain[-1]
        np.subtract(C, C[a], out=diff)
        d2 = np.einsum("ij,ij->i", diff, diff)
        d2 *= 2.0 * size * size[a] / (size + size[a])
        d2[~active] = np.inf
        d2[a] = np.inf
        b = int(np.argmin(d2))
        if len(chain) > 1 and d2[chain[-2]] <= d2[b]:  # reciprocal nearest neighbours
            b = chain[-2]
            del chain[-2:]
            merges.append((a, b, np.sqrt(d2[b])))
            total = size[a] + size[b]
            C[b] = (size[a] * C[a] + size[b] * C[b]) / total
            size[b], active[a] = total, False
            if callback is not None:
                callback(len(merges))
        else:
            chain.append(b)
    return merges_to_linkage(n, merges)


def single_linkage_by_rows(n, sq_distance_row, callback=None):
    """Single linkage by Prim's minimum spanning tree, one row of distances at a time.

    Parameters
    ----------
    n : int
    sq_distance_row : callable
        ``sq_distance_row(i)`` -> ndarray of shape (n,): squared distances of
        point i to every point.
    callback : callable, optional
        ``callback(n_joined)`` after each point joins the tree.

    Returns
    -------
    ndarray of shape (n - 1, 4)
        scipy's linkage matrix. Memory O(n); n rows of distances.
    """
    in_tree = np.zeros(n, dtype=bool)
    best = np.full(n, np.inf)
    nearest = np.zeros(n, dtype=np.intp)
    current, merges = 0, []
    in_tree[0] = True
    for joined in range(1, n):
        d = np.sqrt(np.maximum(sq_distance_row(current), 0.0))
        closer = ~in_tree & (d < best)
        best[closer] = d[closer]
        nearest[closer] = current
        candidates = np.where(in_tree, np.inf, best)
        current = int(np.argmin(candidates))
        merges.append((nearest[current], current, best[current]))
        in_tree[current] = True
        if callback is not None:
            callback(joined)
    return merges_to_linkage(n, merges)
