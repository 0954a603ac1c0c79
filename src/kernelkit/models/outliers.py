"""Outlier scores from distances in the feature space of any kernel."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import Interval, Options, validate_params
from ..gram import GramOperator
from ..solvers.distances import kneighbors_blocked, sq_dist_from_inner
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (reject_precomputed, resolve_estimator_kernel, validate_fit_X,
                    validate_predict_data)
from ._base import tag_sparse

__all__ = ["KernelOutlierDetector"]

_METHODS = ("knn", "mean")


class KernelOutlierDetector(KernelParamsMixin, OutlierMixin, BaseEstimator):
    """Distance-based outlier detection in the feature space of a kernel.

    The outlyingness of x is a feature-space distance:

    * ``method="knn"``: the distance ``||phi(x) - phi(x_(k))||`` to its k-th
      nearest training point (Ramaswamy et al. 2000). As in scikit-learn's
      ``NearestNeighbors.kneighbors(X)``, a training point passed as a query
      is its own first neighbour at distance 0.
    * ``method="mean"``: the distance to the mean of the training data in
      feature space (the kernel mean embedding),
      ``k(x,x) - 2/n sum_j k(x,x_j) + 1/n^2 sum_jl k(x_j,x_l)`` (squared).

    The scikit-learn outlier API: ``score_samples`` is minus the distance
    (higher is more normal), ``decision_function = score_samples - offset_``
    (negative for outliers) and ``predict`` gives -1 for outliers, +1 for
    inliers.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.
    method : {"knn", "mean"}, default="knn"
    n_neighbors : int, default=5
        k of ``method="knn"``.
    contamination : "auto" or float in (0, 0.5], default="auto"
        Float: the fraction of training points called outliers (``offset_`` is
        that percentile of their scores). "auto": Tukey's rule, an outlier is
        farther than Q3 + 1.5 IQR of the training distances.

    Attributes
    ----------
    offset_ : float
        Threshold on ``score_samples``.
    X_fit_ : ndarray of shape (n_samples, n_features)
    diag_fit_ : ndarray of shape (n_samples,)
        k(x_j, x_j).
    mean_norm_ : float
        ``1/n^2 sum K``, the squared norm of the mean in feature space
        (``method="mean"``).
    kernel_ : Kernel
    n_features_in_ : int

    References
    ----------
    Ramaswamy, S., Rastogi, R. and Shim, K. (2000). Efficient algorithms for
    mining outliers from large data sets. SIGMOD.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelOutlierDetector
    >>> X = np.vstack([np.random.default_rng(0).normal(size=(100, 2)), [[8.0, 8.0]]])
    >>> det = KernelOutlierDetector(kernel="rbf(gamma=0.5)", contamination=0.01).fit(X)
    >>> int(det.predict(X)[-1])
    -1
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "method": [Options(str, _METHODS)],
        "n_neighbors": [Interval(Integral, 1, None)],
        "contamination": [Options(str, ("auto",)), Interval(Real, 0, 0.5, closed="right")],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, kernel="rbf", *, method="knn", n_neighbors=5, contamination="auto"):
        self.kernel = kernel
        self.method = method
        self.n_neighbors = n_neighbors
        self.contamination = contamination

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), "KernelOutlierDetector")

    def fit(self, X, y=None):
        """Store the training data and set the threshold ``offset_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self._fit(X)
        return self

    def _fit(self, X):
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        kernel = kernel_for_data(kernel, X)  # gamma="scale" fixed from the training X
        n = X.shape[0]
        if self.method == "knn" and self.n_neighbors > n:
            raise ValueError(f"n_neighbors={self.n_neighbors} must be <= n_samples={n}: the "
                             "k-th neighbour must exist; lower n_neighbors")
        self.kernel_ = kernel
        self.X_fit_ = X
        self.diag_fit_ = kernel.diag(X)
        if self.method == "mean":
            row_means = GramOperator(kernel, X).matvec(np.full(n, 1.0 / n))
            self.mean_norm_ = float(row_means.mean())
        scores = self._scores(X, self.diag_fit_)
        if isinstance(self.contamination, str):
            q1, q3 = np.percentile(-scores, [25, 75])
            self.offset_ = -float(q3 + 1.5 * (q3 - q1))
        else:
            self.offset_ = float(np.percentile(scores, 100.0 * self.contamination))
        return scores

    def _scores(self, X, diag):
        if self.method == "knn":
            sq, _ = kneighbors_blocked(self.kernel_, X, self.X_fit_, self.diag_fit_,
                                       self.n_neighbors)
            sq = sq[:, -1]
        else:
            n = self.X_fit_.shape[0]
            cross = GramOperator(self.kernel_, X, self.X_fit_).matvec(np.full(n, 1.0 / n))
            sq = sq_dist_from_inner(cross, diag, self.mean_norm_)
        return -np.sqrt(sq)

    def score_samples(self, X):
        """Minus the feature-space distance: higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        check_is_fitted(self, "offset_")
        X = validate_predict_data(self, self.kernel_, X)
        return self._scores(X, self.kernel_.diag(X) if self.method == "mean" else None)

    def decision_function(self, X):
        """``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """-1 for outliers, +1 for inliers.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def fit_predict(self, X, y=None):
        """``fit(X).predict(X)``, computing the training scores once.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self._fit(X)
        return np.where(scores - self.offset_ >= 0, 1, -1)
