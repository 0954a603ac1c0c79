"""Normalised kernel similarity and the most similar items (the notes' view of
product recommendation).

The similarity of x and y is the cosine of the angle of phi(x) and phi(y) in
feature space, ``k(x, y) / sqrt(k(x, x) k(y, y))``; with the linear kernel it is
the cosine similarity of the rows. The nearest items of each query are
selected by blocks of queries, so the (n_queries, n_items) matrix is never
held whole unless it fits the memory budget.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._budget import require
from .._validation import Interval, validate_params
from ..gram import pairwise_blocked
from ..kernels.objects import normalize_block
from ..solvers.distances import query_blocks, smallest_k_indices
from ._base import (KernelParamsMixin, kernel_for_data, reject_precomputed,
                    resolve_estimator_kernel, tag_sparse, validate_fit_X,
                    validate_predict_data)

__all__ = ["KernelSimilarity", "most_similar", "normalized_similarities"]

_N_NEIGHBORS = [Interval(Integral, 1, None)]


def normalized_similarities(K, diag_rows, diag_cols):
    """``K[i, j] / sqrt(k(x_i, x_i) k(y_j, y_j))``, in place, clipped to [-1, 1]
    (:func:`kernelkit.kernels.objects.normalize_block`, the cosine normalisation every
    normalised kernel uses).

    A point with k(x, x) = 0 (its phi is the zero vector) has similarity 0 to
    everything, as scikit-learn's ``cosine_similarity`` gives zero rows.
    """
    normalize_block(K, np.asarray(diag_rows, dtype=np.float64),
                    np.asarray(diag_cols, dtype=np.float64))
    np.clip(K, -1.0, 1.0, out=K)  # Cauchy-Schwarz, up to round-off
    return K


class KernelSimilarity(KernelParamsMixin, BaseEstimator):
    """The most similar items by normalised kernel similarity (kernel cosine similarity).

    ``fit`` keeps the items; ``kneighbors`` gives, for each query, the
    ``n_neighbors`` items of largest similarity ``k(x, y) / sqrt(k(x, x)
    k(y, y))`` -- the cosine of the angle of phi(x) and phi(y) in feature
    space, 1 for items whose features point the same way. With the linear
    kernel it is scikit-learn's ``cosine_similarity``; a kernel on strings
    compares texts or sequences the same way. An item with k(y, y) = 0 has
    similarity 0 to every query. Queries are processed in row blocks within
    the memory budget. The fitted index saves to a model file
    (``kernelkit.save``) and loads with the same answers.

    Parameters
    ----------
    n_neighbors : int, default=5
        Items returned per query by default.
    kernel : Kernel or str, default="linear"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``, or a
        kernel on strings; not ``"precomputed"``.

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_items, n_features), or strings
        The items.
    diag_fit_ : ndarray of shape (n_items,)
        k(y, y) of the items.
    n_samples_fit_ : int
        Number of items.
    kernel_ : Kernel
    n_features_in_ : int
        Vector inputs only.

    References
    ----------
    Sarwar, B., Karypis, G., Konstan, J. and Riedl, J. (2001). Item-based
    collaborative filtering recommendation algorithms. WWW, 285-295.
    Shawe-Taylor, J. and Cristianini, N. (2004). Kernel Methods for Pattern
    Analysis. Cambridge University Press, section 5.1 (normalising a kernel).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelSimilarity
    >>> items = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> sim, ind = KernelSimilarity(n_neighbors=2).fit(items).kneighbors([[2.0, 0.1]])
    >>> ind
    array([[0, 2]])
    >>> np.round(sim, 3)
    array([[0.999, 0.742]])
    """

    _param_constraints = {
        "n_neighbors": _N_NEIGHBORS,
        "kernel": ["kernel"],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, n_neighbors=5, *, kernel="linear"):
        self.n_neighbors = n_neighbors
        self.kernel = kernel

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), "KernelSimilarity")

    def fit(self, X, y=None):
        """Keep the items and their k(y, y).

        Parameters
        ----------
        X : array-like of shape (n_items, n_features), or strings for a string kernel
        y : ignored

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        kernel = kernel_for_data(kernel, X)  # gamma="scale" fixed from the items
        self.kernel_ = kernel
        self.X_fit_ = X
        self.n_samples_fit_ = X.shape[0]
        self.diag_fit_ = np.asarray(kernel.diag(X), dtype=np.float64)
        return self

    def _queries(self, X):
        check_is_fitted(self, "X_fit_")
        if X is None:
            return self.X_fit_, self.diag_fit_
        Xq = validate_predict_data(self, self.kernel_, X)
        return Xq, np.asarray(self.kernel_.diag(Xq), dtype=np.float64)

    def similarities(self, X=None):
        """Normalised similarities of the queries to every item.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), optional
            Default: the items themselves (each item's similarity to itself
            is 1, or 0 when k(y, y) = 0).

        Returns
        -------
        ndarray of shape (n_queries, n_items)
            The whole matrix: it must fit the memory budget (a
            ``MemoryBudgetError`` says so); :meth:`kneighbors` needs only
            blocks of it.
        """
        Xq, diag_q = self._queries(X)
        require(8.0 * Xq.shape[0] * self.n_samples_fit_,
                f"the {Xq.shape[0]} x {self.n_samples_fit_} matrix of similarities",
                hint="ask kneighbors for the nearest items, which works in blocks of queries")
        K = np.asarray(pairwise_blocked(self.kernel_, Xq, self.X_fit_), dtype=np.float64)
        return normalized_similarities(K, diag_q, self.diag_fit_)

    def kneighbors(self, X=None, n_neighbors=None, return_similarity=True):
        """The most similar items of each query, most similar first.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), optional
            Queries. If None, the items, each not counting itself (as
            scikit-learn's ``kneighbors(X=None)``).
        n_neighbors : int, optional
            Default: the estimator's ``n_neighbors``.
        return_similarity : bool, default=True

        Returns
        -------
        similarity : ndarray of shape (n_queries, n_neighbors)
            Normalised similarities, descending (only if ``return_similarity``).
        indices : ndarray of shape (n_queries, n_neighbors)
            Indices of the items; equal similarities are ordered by index.
        """
        check_is_fitted(self, "X_fit_")
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        validate_params({"n_neighbors": k}, {"n_neighbors": _N_NEIGHBORS},
                        f"{type(self).__name__}.kneighbors")
        exclude_self = X is None
        n_items = self.n_samples_fit_ - int(exclude_self)
        if k > n_items:
            raise ValueError(f"Expected n_neighbors <= n_items, but n_neighbors = {k} and "
                             f"there are {n_items} items"
                             f"{' besides the query itself' if exclude_self else ''}; "
                             "lower n_neighbors")
        Xq, diag_q = self._queries(X)
        n_q = Xq.shape[0]
        sim = np.empty((n_q, k))
        ind = np.empty((n_q, k), dtype=np.intp)
        for r0, r1 in query_blocks(n_q, self.n_samples_fit_, n_temporaries=2):
            K = np.asarray(pairwise_blocked(self.kernel_, Xq[r0:r1], self.X_fit_),
                           dtype=np.float64)
            S = normalized_similarities(K, diag_q[r0:r1], self.diag_fit_)
            np.negative(S, out=S)  # the k largest similarities are the k smallest of -S
            if exclude_self:
                S[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
            idx = smallest_k_indices(S, k)
            ind[r0:r1] = idx
            sim[r0:r1] = -np.take_along_axis(S, idx, axis=1)
        return (sim, ind) if return_similarity else ind


def most_similar(X_items, query, k=5, *, kernel="linear"):
    """The ``k`` items most similar to each query by normalised kernel similarity.

    A shortcut for ``KernelSimilarity(k, kernel=kernel).fit(X_items).kneighbors(query)``.

    Parameters
    ----------
    X_items : array-like of shape (n_items, n_features), or strings
    query : array-like of shape (n_queries, n_features), or strings
    k : int, default=5
    kernel : Kernel or str, default="linear"

    Returns
    -------
    similarity : ndarray of shape (n_queries, k)
        ``k(x, y) / sqrt(k(x, x) k(y, y))``, descending.
    indices : ndarray of shape (n_queries, k)
        Indices into ``X_items``.

    Examples
    --------
    >>> from kernelkit.models import most_similar
    >>> sim, ind = most_similar([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[0.1, 3.0]], k=1)
    >>> ind
    array([[1]])
    """
    return KernelSimilarity(k, kernel=kernel).fit(X_items).kneighbors(query)
