"""Kernel k-means: Lloyd's iterations in the feature space of any kernel.

A cluster mean in feature space is m_c = sum_j A[j, c] phi(x_j) with
A[j, c] = w_j / W_c for the members j of cluster c (W_c their total weight),
so with G = K A (n x k) and ||m_c||^2 = (A'G)[c, c]:

    ||phi(x_i) - m_c||^2 = k(x_i, x_i) - 2 G[i, c] + ||m_c||^2.

One product K A per iteration is all the kernel work: with K stored
(:func:`stored_gram_products`) or with its rows recomputed in blocks
(:func:`operator_products`). Centers given as points c_l (the
initialisation) enter through G = K(X, C) and ||phi(c_l)||^2 = k(c_l, c_l).

References
----------
Dhillon, I. S., Guan, Y. and Kulis, B. (2004). Kernel k-means, spectral
clustering and normalized cuts. KDD.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._compiled import member_sums
from .._validation import n_rows
from ..features.centers import kmeanspp_centers, sq_dist_from_inner, take_rows
from ..gram import GramOperator, gram

__all__ = ["KernelKMeansResult", "kernel_kmeans", "lloyd_feature_space", "nearest_means",
           "stored_gram_products", "operator_products"]


@dataclass
class KernelKMeansResult:
    """The best run of :func:`kernel_kmeans`.

    Attributes
    ----------
    labels : ndarray of shape (n,)
    inertia : float
        sum_i w_i ||phi(x_i) - m_{labels_i}||^2.
    n_iter : int
    member : ndarray of shape (n,)
        The cluster whose mean x_j belongs to (labels, after empty-cluster moves).
    weights : ndarray of shape (n,)
        w_j / W_c: the weight of x_j in the mean of its cluster.
    center_norms : ndarray of shape (k,)
        ||m_c||^2.
    converged : bool
        False when the best run stopped at ``max_iter`` with its labels still
        changing and the means' shift above ``tol``.
    """

    labels: np.ndarray
    inertia: float
    n_iter: int
    member: np.ndarray
    weights: np.ndarray
    center_norms: np.ndarray
    converged: bool = True


def stored_gram_products(K, n_clusters):
    """``(member, A) -> K A`` from a stored Gram matrix, reading K once per product."""
    n = K.shape[0]
    rows = np.arange(n)

    def products(member, A):
        return member_sums(K, member, A[rows, member], np.empty((n, n_clusters)))
    return products


def operator_products(op):
    """``(member, A) -> K A`` by an operator that recomputes K's rows in blocks."""
    def products(member, A):
        return op.matmat(A)
    return products


def nearest_means(inner, center_norms):
    """Index of the nearest mean of each point, from ``inner[i, c] = <phi(x_i), m_c>``.

    ``argmin_c ||m_c||^2 - 2 <phi(x_i), m_c>``: k(x_i, x_i) is the same for every
    cluster, so it is left out.
    """
    return np.argmin(center_norms[None, :] - 2.0 * inner, axis=1)


def _weights_matrix(member, sw, n_clusters):
    """A[j, c] = w_j / W_c for the members of c (zero column for a weightless cluster)."""
    W = np.bincount(member, weights=sw, minlength=n_clusters)
    A = np.zeros((len(member), n_clusters))
    scale = np.divide(sw, W[member], out=np.zeros_like(sw), where=W[member] > 0)
    A[np.arange(len(member)), member] = scale
    return A


def _relocate_empty(labels, D, sw, n_clusters):
    """Cluster membership for the means: each cluster without weight takes the point
    farthest from its own center (as scikit-learn), so no center is left undefined."""
    member = labels.copy()
    W = np.bincount(labels, weights=sw, minlength=n_clusters)
    empty = np.flatnonzero(W == 0)
    if empty.size:
        far = np.argsort(-D[np.arange(len(labels)), labels], kind="stable")[:empty.size]
        member[far] = empty[:len(far)]
    return member


def lloyd_feature_space(products, diag, sw, G, center_sq, max_iter, tol):
    """Lloyd's iterations from initial centers given by G = <phi(x_i), c_l>, ||c_l||^2.

    Mirrors scikit-learn's ``lloyd``: assign, recompute the means, stop when
    the labels no longer change (strict convergence) or the total squared
    shift of the means is <= ``tol``; otherwise assign once more to the final
    means.

    Parameters
    ----------
    products : callable ``(member, A) -> K A`` of shape (n, k)
        K times the one-hot weight matrix A (whose row j holds its only
        nonzero in column ``member[j]``).
    diag : ndarray of shape (n,)
    sw : ndarray of shape (n,)
    G : ndarray of shape (n, k)
    center_sq : ndarray of shape (k,)
    max_iter : int
    tol : float

    Returns
    -------
    labels, inertia, n_iter, member, A, center_sq
        ``A`` (n, k) holds the final means m_c = Phi' A[:, c], ``member`` the
        cluster each point contributes to (labels, after empty-cluster moves).
    """
    return _lloyd(products, diag, sw, G, center_sq, max_iter, tol)[:6]


def _lloyd(products, diag, sw, G, center_sq, max_iter, tol, callback=None):
    """:func:`lloyd_feature_space`, plus whether it converged; ``callback(inertia)``
    after each assignment (the inertia of the labels to the means they were given by)."""
    n, k = G.shape
    labels_old = np.full(n, -1)
    strict = converged = False
    for it in range(max_iter):
        D = sq_dist_from_inner(G, diag, center_sq)
        labels = np.argmin(D, axis=1)
        if callback is not None:
            callback(float(sw @ D[np.arange(n), labels]))
        member = _relocate_empty(labels, D, sw, k)
        A = _weights_matrix(member, sw, k)
        G_new = products(member, A)
        csq_new = np.einsum("jc,jc->c", A, G_new)
        shift = float(np.sum(csq_new - 2.0 * np.einsum("jc,jc->c", A, G) + center_sq))
        G, center_sq = G_new, csq_new
        if np.array_equal(labels, labels_old):
            strict = converged = True
            break
        if shift <= tol:
            converged = True
            break
        labels_old = labels
    D = sq_dist_from_inner(G, diag, center_sq)
    if not strict:
        labels = np.argmin(D, axis=1)
    inertia = float(sw @ D[np.arange(n), labels])
    return labels, inertia, it + 1, member, A, center_sq, converged


def kernel_kmeans(kernel, X, sample_weight, n_clusters, *, init, n_init, max_iter, tol, rng,
                  store_gram, callback=None):
    """Kernel k-means by Lloyd's iterations, the best of ``n_init`` runs.

    Parameters
    ----------
    kernel : Kernel
    X : validated input of ``kernel``, n rows
    sample_weight : ndarray of shape (n,)
    n_clusters : int
    init : {"k-means++", "random"}, validated centers (n_clusters rows) or callable
        Greedy weighted kernel k-means++ (``2 + log k`` trials per center),
        distinct random rows, the given points as initial means, or
        ``init(rng)`` returning such points (called once per run).
    n_init : int
    max_iter : int
    tol : float
        Relative to the total weighted variance in feature space.
    rng : numpy.random.RandomState
    store_gram : bool
        Keep K (n x n) for the products K A, or recompute its rows in blocks.
    callback : callable, optional
        ``callback(run, inertia)`` after each assignment step of each run
        (progress reports; the numerics never print).

    Returns
    -------
    KernelKMeansResult
    """
    n, k, sw = n_rows(X), n_clusters, sample_weight
    diag = kernel.diag(X)
    if store_gram:
        K = gram(kernel, X)
        products = stored_gram_products(K, k)
        K_sw = K @ sw
    else:
        op = GramOperator(kernel, X)
        products = operator_products(op)
        K_sw = op.matvec(sw)
    total_var = float(sw @ diag / sw.sum() - sw @ K_sw / sw.sum() ** 2)
    tol = tol * max(total_var, 0.0)
    given = not isinstance(init, str)
    best = None
    for r in range(n_init):
        if not given:
            idx = (kmeanspp_centers(kernel, X, k, rng, sample_weight=sw, n_local_trials=None,
                                    diag=diag) if init == "k-means++"
                   else rng.choice(n, size=k, replace=False))
            G, csq = gram(kernel, X, take_rows(X, idx)), diag[idx]
        else:
            C = init(rng) if callable(init) else init
            G, csq = gram(kernel, X, C), kernel.diag(C)
        report = None if callback is None else (lambda inertia, r=r: callback(r, inertia))
        run = _lloyd(products, diag, sw, G, csq, max_iter, tol, report)
        if best is None or run[1] < best[1]:
            best = run
    labels, inertia, n_iter, member, A, center_sq, converged = best
    return KernelKMeansResult(labels, inertia, n_iter, member, A[np.arange(n), member],
                              center_sq, converged)
