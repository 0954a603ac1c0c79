"""k nearest neighbours in the feature space of any kernel."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import Interval, Options, validate_params
from ..solvers.distances import kneighbors_blocked
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (reject_precomputed, resolve_estimator_kernel, validate_fit_data,
                    validate_predict_data)

__all__ = ["KernelKNeighborsClassifier", "KernelKNeighborsRegressor"]

_WEIGHTS = ("uniform", "distance")
_N_NEIGHBORS = [Interval(Integral, 1, None)]


def neighbor_weights(dist, weights):
    """Weights of the neighbours: ones, or 1/distance (scikit-learn's rule: a query
    at distance 0 from some neighbours gives those weight 1 and the others 0)."""
    if weights == "uniform":
        return np.ones_like(dist)
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
        "weights": [Options(str, _WEIGHTS)],
        "kernel": ["kernel"],
    }

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
        kernel = kernel_for_data(kernel, X)  # gamma="scale" fixed from the training X
        self.kernel_ = kernel
        self.X_fit_ = X
        self.n_samples_fit_ = len(X)
        self.diag_fit_ = kernel.diag(X)
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
                             f"{n_fit if exclude_self else len(X)}; lower n_neighbors")
        Xq = self.X_fit_ if exclude_self else validate_predict_data(self, self.kernel_, X)
        sq, ind = kneighbors_blocked(self.kernel_, Xq, self.X_fit_, self.diag_fit_, k,
                                     exclude_self=exclude_self)
        return (np.sqrt(sq), ind) if return_distance else ind

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
    weights : {"uniform", "distance"}, default="uniform"
        ``"distance"``: votes weighted by 1/distance (a neighbour at distance
        0 takes the whole vote, as in scikit-learn).
    kernel : Kernel or str, default="linear"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    y_fit_ : ndarray of shape (n_samples_fit,)
        Training labels as indices into ``classes_``.
    diag_fit_ : ndarray of shape (n_samples_fit,)
        k(x_i, x_i) of the training points.
    kernel_ : Kernel
    n_samples_fit_, n_features_in_ : int

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
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        y = column_or_1d(self._fit(X, y, y_numeric=False), warn=True)
        check_classification_targets(y)
        self.classes_, self.y_fit_ = np.unique(y, return_inverse=True)
        return self

    def predict_proba(self, X):
        """Weighted fraction of the neighbours in each class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries, n_classes)
        """
        ind, w = self._neighbors_and_weights(X)
        proba = np.zeros((len(ind), len(self.classes_)))
        rows = np.repeat(np.arange(len(ind)), ind.shape[1])
        np.add.at(proba, (rows, self.y_fit_[ind].ravel()), w.ravel())
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class of largest (weighted) vote; ties go to the first class.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class KernelKNeighborsRegressor(RegressorMixin, _KernelNeighbors):
    """k-nearest-neighbour regression with distances in a kernel's feature space.

    The prediction is the (1/distance-weighted) mean of the targets of the k
    training points nearest in feature space; see
    :class:`KernelKNeighborsClassifier` for the distance.

    Parameters
    ----------
    n_neighbors : int, default=5
    weights : {"uniform", "distance"}, default="uniform"
    kernel : Kernel or str, default="linear"

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_samples_fit, n_features)
    y_fit_ : ndarray of shape (n_samples_fit,) or (n_samples_fit, n_targets)
    diag_fit_ : ndarray of shape (n_samples_fit,)
    kernel_ : Kernel
    n_samples_fit_, n_features_in_ : int

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
