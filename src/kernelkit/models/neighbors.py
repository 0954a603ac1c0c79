"""k nearest neighbours in the feature space of any kernel."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import Interval, Options, validate_params
from ..planning import Plan
from ..solvers.distances import (candidate_precision_choice, kneighbors_blocked,
                                 neighbour_order_choice)
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (reject_precomputed, resolve_estimator_kernel, validate_fit_data,
                    validate_predict_data)
from ._base import report_plan, tag_sparse

__all__ = ["KernelKNeighborsClassifier", "KernelKNeighborsRegressor"]

_WEIGHTS = ("uniform", "distance")
_N_NEIGHBORS = [Interval(Integral, 1, None)]


def neighbor_weights(dist, weights):
    """Weights of the neighbours: ones (``"uniform"`` or None), 1/distance (scikit-learn's
    rule: a query at distance 0 from some neighbours gives those weight 1 and the
    others 0), or ``weights(dist)`` for a callable (checked: same shape, finite, >= 0)."""
    if weights is None or (isinstance(weights, str) and weights == "uniform"):
        return np.ones_like(dist)
    if callable(weights):
        w = np.asarray(weights(dist), dtype=np.float64)
        if w.shape != dist.shape:
            raise ValueError(f"weights(dist) returned shape {w.shape} for distances of shape "
                             f"{dist.shape}; it must return one weight per neighbour, the "
                             "same shape")
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("weights(dist) must return finite, non-negative weights")
        return w
    with np.errstate(divide="ignore"):
        w = 1.0 / dist
    inf_mask = np.isinf(w)
    inf_row = inf_mask.any(axis=1)
    w[inf_row] = inf_mask[inf_row]
    return w


class _KernelNeighbors(KernelParamsMixin, BaseEstimator):
    """Storage of the training set and the kneighbors query shared by both estimators."""

    _param_constraints = {
        "n_neighbors": _N_NEIGHBORS,
        "weights": [Options(str, _WEIGHTS), "callable", None],
        "kernel": ["kernel"],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, n_neighbors=5, *, weights="uniform", kernel="linear"):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.kernel = kernel

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), type(self).__name__)

    def _fit(self, X, y, y_numeric):
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y, y_numeric=y_numeric)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        self.kernel_ = kernel
        self.X_fit_ = X
        self.n_samples_fit_ = X.shape[0]
        self.diag_fit_ = kernel.diag(X)
        order = neighbour_order_choice(kernel, X)
        precision = (candidate_precision_choice(X.shape[1]) if order.value == "euclidean"
                     else None)
        self.plan_ = Plan("brute force", reason="every training point is compared with each "
                          "query, in blocks within the memory budget",
                          problem={"n": X.shape[0]}).with_choices(order, precision)
        report_plan(self)
        return y

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The nearest training points in feature space, in blocks of query rows.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), optional
            Query points. If None, the training points, each not counting
            itself (as scikit-learn).
        n_neighbors : int, optional
            Default: the ``n_neighbors`` of the estimator.
        return_distance : bool, default=True

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries, n_neighbors)
            Feature-space distances ``sqrt(k(x,x) - 2k(x,z) + k(z,z))``,
            ascending (only if ``return_distance``).
        neigh_ind : ndarray of shape (n_queries, n_neighbors)
            Indices of the neighbours in the training set; equal distances are
            ordered by index.
        """
        check_is_fitted(self, "X_fit_")
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        validate_params({"n_neighbors": k}, {"n_neighbors": _N_NEIGHBORS},
                        f"{type(self).__name__}.kneighbors")
        exclude_self = X is None
        n_fit = self.n_samples_fit_ - int(exclude_self)
        if k > n_fit:
            raise ValueError(f"Expected n_neighbors <= n_samples_fit, but n_neighbors = {k}, "
                             f"n_samples_fit = {n_fit}, n_samples = "
                             f"{n_fit if exclude_self else X.shape[0]}; lower n_neighbors")
        Xq = self.X_fit_ if exclude_self else validate_predict_data(self, self.kernel_, X)
        sq, ind = kneighbors_blocked(self.kernel_, Xq, self.X_fit_, self.diag_fit_, k,
                                     exclude_self=exclude_self)
        return (np.sqrt(sq), ind) if return_distance else ind

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """The k-neighbours graph in feature space, as scikit-learn's ``kneighbors_graph``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), optional
            Query points; None: the training points, each not its own
            neighbour.
        n_neighbors : int, optional
            Default: the ``n_neighbors`` of the estimator.
        mode : {"connectivity", "distance"}, default="connectivity"
            Entries 1, or the feature-space distances ``||phi(x) - phi(z)||``.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_queries, n_samples_fit)
            Row i holds the ``n_neighbors`` nearest training points of query i.
        """
        validate_params({"mode": mode}, {"mode": [Options(str, ("connectivity", "distance"))]},
                        f"{type(self).__name__}.kneighbors_graph")
        if mode == "connectivity":
            ind = self.kneighbors(X, n_neighbors, return_distance=False)
            data = np.ones(ind.size)
        else:
            dist, ind = self.kneighbors(X, n_neighbors)
            data = dist.ravel()
        n_queries, k = ind.shape
        return sp.csr_matrix((data, ind.ravel(), np.arange(0, n_queries * k + 1, k)),
                             shape=(n_queries, self.n_samples_fit_))

    def _neighbors_and_weights(self, X):
        dist, ind = self.kneighbors(X)
        return ind, neighbor_weights(dist, self.weights)


class KernelKNeighborsClassifier(ClassifierMixin, _KernelNeighbors):
    """k-nearest-neighbour classification with distances in a kernel's feature space.

    The distance of x and z is ``||phi(x) - phi(z)|| = sqrt(k(x,x) - 2k(x,z) +
    k(z,z))`` (the square clamped at 0). With the linear kernel this is the
    Euclidean distance (scikit-learn's ``KNeighborsClassifier``); with RBF the
    order of neighbours is the Euclidean one (the distance grows with
    ||x - z||), with other kernels it is not. Queries are processed in row
    blocks, so the (n_queries, n_samples_fit) distance matrix is never held
    whole unless it fits the memory budget.

    Parameters
    ----------
    n_neighbors : int, default=5
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        ``"distance"``: votes weighted by 1/distance (a neighbour at distance
        0 takes the whole vote, as in scikit-learn). A callable gets the
        array of feature-space distances (n_queries, n_neighbors) and returns
        weights of that shape. None means "uniform".
    kernel : Kernel or str, default="linear"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,), or list of n_outputs such arrays
        One array per output column for a 2-D y (multi-output, as scikit-learn).
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    y_fit_ : ndarray of shape (n_samples_fit,) or (n_samples_fit, n_outputs)
        Training labels as indices into ``classes_`` (of each output).
    diag_fit_ : ndarray of shape (n_samples_fit,)
        k(x_i, x_i) of the training points.
    kernel_ : Kernel
    n_samples_fit_, n_features_in_ : int
    plan_ : kernelkit.planning.Plan
        How neighbours are found: in the Euclidean order when the kernel is a
        decreasing function of the Euclidean distance (RBF, Matern, ...; one
        matrix product per block, float32 candidates checked in float64 from
        32 features on), else from feature-space distances over whole blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelKNeighborsClassifier
    >>> X = np.array([[0.0], [0.1], [1.0], [1.1]]); y = [0, 0, 1, 1]
    >>> KernelKNeighborsClassifier(n_neighbors=1, kernel="rbf(gamma=0.5)").fit(X, y).predict(
    ...     [[0.2], [0.9]])
    array([0, 1])
    """

    def fit(self, X, y):
        """Store the training set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        y = self._fit(X, y, y_numeric=False)
        if y.ndim == 1 or y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if y.ndim == 1:
            self.classes_, self.y_fit_ = np.unique(y, return_inverse=True)
            return self
        columns = [np.unique(col, return_inverse=True) for col in y.T]
        self.classes_ = [classes for classes, _ in columns]
        self.y_fit_ = np.column_stack([codes for _, codes in columns])
        return self

    def _vote(self, ind, w, labels, n_classes):
        """Weighted vote of the neighbours (n_queries, n_classes); rows sum to 1 (a row
        of zero weights, which a callable can give, stays zero, as scikit-learn)."""
        proba = np.zeros((len(ind), n_classes))
        rows = np.repeat(np.arange(len(ind)), ind.shape[1])
        np.add.at(proba, (rows, labels[ind].ravel()), w.ravel())
        total = proba.sum(axis=1, keepdims=True)
        total[total == 0.0] = 1.0
        return proba / total

    def predict_proba(self, X):
        """Weighted fraction of the neighbours in each class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries, n_classes), or a list of one such array per output
        """
        check_is_fitted(self, "X_fit_")
        ind, w = self._neighbors_and_weights(X)
        if self.y_fit_.ndim == 1:
            return self._vote(ind, w, self.y_fit_, len(self.classes_))
        return [self._vote(ind, w, self.y_fit_[:, j], len(classes))
                for j, classes in enumerate(self.classes_)]

    def predict(self, X):
        """The class of largest (weighted) vote; ties go to the first class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,) or (n_queries, n_outputs)
        """
        proba = self.predict_proba(X)
        if not all(np.any(p, axis=1).all() for p in (proba if isinstance(proba, list)
                                                       else [proba])):
            # a callable gave every neighbour of a query weight 0: no vote to take
            raise ValueError("weights(dist) gave every neighbour of some query the weight "
                             "0, so it has no vote; make the callable keep at least one "
                             "neighbour's weight positive")
        if self.y_fit_.ndim == 1:
            return self.classes_[np.argmax(proba, axis=1)]
        return np.column_stack([classes[np.argmax(p, axis=1)]
                                for classes, p in zip(self.classes_, proba)])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class KernelKNeighborsRegressor(RegressorMixin, _KernelNeighbors):
    """k-nearest-neighbour regression with distances in a kernel's feature space.

    The prediction is the (1/distance-weighted) mean of the targets of the k
    training points nearest in feature space; see
    :class:`KernelKNeighborsClassifier` for the distance.

    Parameters
    ----------
    n_neighbors : int, default=5
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        As in :class:`KernelKNeighborsClassifier`.
    kernel : Kernel or str, default="linear"

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    y_fit_ : ndarray of shape (n_samples_fit,) or (n_samples_fit, n_targets)
    diag_fit_ : ndarray of shape (n_samples_fit,)
    kernel_ : Kernel
    n_samples_fit_, n_features_in_ : int
    plan_ : kernelkit.planning.Plan
        How neighbours are found: in the Euclidean order when the kernel is a
        decreasing function of the Euclidean distance (RBF, Matern, ...; one
        matrix product per block, float32 candidates checked in float64 from
        32 features on), else from feature-space distances over whole blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelKNeighborsRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = [0.0, 1.0, 2.0, 3.0]
    >>> KernelKNeighborsRegressor(n_neighbors=2).fit(X, y).predict([[1.4]])
    array([1.5])
    """

    def fit(self, X, y):
        """Store the training set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        self.y_fit_ = np.asarray(self._fit(X, y, y_numeric=True), dtype=np.float64)
        return self

    def predict(self, X):
        """Weighted mean of the neighbours' targets.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,) or (n_queries, n_targets)
        """
        ind, w = self._neighbors_and_weights(X)
        w = w / w.sum(axis=1, keepdims=True)
        Y = self.y_fit_[ind]  # (n_queries, k) or (n_queries, k, n_targets)
        return np.einsum("qk,qk...->q...", w, Y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
