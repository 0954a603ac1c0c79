"""The one-class SVM (nu formulation), solved as libsvm does, with scikit-learn's outlier API."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.validation import check_is_fitted

from .._progress import is_verbose, progress
from .._validation import Interval, Options, validate_params
from ..gram import GramOperator, gram
from ..planning import Plan, decide_store, row_cache_bytes, row_cache_choice
from ..solvers.one_class import one_class_gram, one_class_kernel
from ._base import KernelParamsMixin, kernel_for_data, warn_smo_stopped
from ._svm_tail import store_smo_fit
from ._base import (check_sample_weight, check_symmetric_gram, resolve_estimator_kernel,
                    tag_precomputed, validate_fit_X, validate_predict_data)

__all__ = ["KernelOneClassSVM"]


class KernelOneClassSVM(KernelParamsMixin, OutlierMixin, BaseEstimator):
    """One-class support vector machine (Schoelkopf et al.'s nu formulation) with any kernel.

    Estimates the support of the training distribution: the dual
    min_a 1/2 a'Ka subject to 0 <= a_i <= 1 and sum_i a_i = nu n is solved by
    the same second-order SMO as :class:`KernelSVC` (libsvm's working-set
    selection, shrinking, stopping rule, row cache and starting point), and
    f(x) = sum_i a_i k(x_i, x) - rho is positive inside the estimated support.
    ``nu`` bounds the fraction of training points outside from above and the
    fraction of support vectors from below.

    The scikit-learn outlier API, as ``sklearn.svm.OneClassSVM``:
    ``decision_function`` is f (negative for outliers), ``score_samples`` is
    f + ``offset_`` (= sum_i a_i k(x_i, x)), ``predict`` gives +1 inside, -1 outside.
    For scores from plain feature-space distances (k-th neighbour, distance to
    the kernel mean) with no optimisation, see :class:`KernelOutlierDetector`.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        A kernel object or expression (``"rbf(gamma=0.1)"``; ``"rbf"`` is
        scikit-learn's gamma='scale', fixed at fit in ``kernel_``). ``"precomputed"``: X is K(X_train,
        X_train) in ``fit`` and K(X_test, X_train) afterwards.
    nu : float in (0, 1], default=0.5
        Upper bound on the fraction of training errors, lower bound on the
        fraction of support vectors.
    tol : float, default=1e-3
        Stop when the maximal KKT violation is below ``tol`` (libsvm's eps).
    max_iter : int or None, default=None
        Cap on SMO steps (default libsvm's max(10^7, 100 n)); stopping there
        short of ``tol`` is a ``ConvergenceWarning``.
    shrinking : bool, default=True
    cache : {"auto", True, False}, default="auto"
        Store the n x n Gram matrix (``"auto"``: when it fits half the memory
        budget), else kernel rows on demand in an LRU cache; the choice is in
        ``plan_``.
    verbose : int or bool, default=0
        >= 1: show SMO's progress (steps and violation) and print ``plan_``.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (a_i > 0).
    support_vectors_ : ndarray of shape (n_SV, n_features)
        (None for ``kernel="precomputed"``).
    dual_coef_ : ndarray of shape (1, n_SV)
        a_i of the support vectors.
    intercept_ : ndarray of shape (1,)
        -rho.
    offset_ : float
        rho: ``decision_function = score_samples - offset_``.
    n_iter_ : int
    objective_ : float
        1/2 a'Ka at the solution.
    max_violation_ : float
        m(a) - M(a) at the end (below ``tol`` when converged).
    plan_ : Plan
    kernel_ : Kernel or "precomputed"
    n_features_in_ : int

    See Also
    --------
    KernelOutlierDetector : distance-based outlier scores in feature space.

    References
    ----------
    Schoelkopf, B., Platt, J. C., Shawe-Taylor, J., Smola, A. J. and Williamson,
    R. C. (2001). Estimating the support of a high-dimensional distribution.
    Neural Computation 13(7), 1443-1471.
    Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for support vector
    machines. ACM Transactions on Intelligent Systems and Technology 2(3), 27.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelOneClassSVM
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> ocsvm = KernelOneClassSVM("rbf(gamma=0.1)", nu=0.1).fit(X)
    >>> ocsvm.predict([[0.0, 0.0], [6.0, 6.0]]).tolist()
    [1, -1]
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "nu": [Interval(Real, 0, 1, closed="right", note="a fraction of the training set")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None), None],
        "shrinking": ["boolean"],
        "cache": ["boolean", Options(str, ("auto",))],
        "verbose": ["boolean", Interval(Integral, 0, None)],
    }

    def __init__(self, kernel="rbf", *, nu=0.5, tol=1e-3, max_iter=None, shrinking=True,
                 cache="auto", verbose=0):
        self.kernel = kernel
        self.nu = nu
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.cache = cache
        self.verbose = verbose

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return resolve_estimator_kernel(self.kernel)

    def fit(self, X, y=None, sample_weight=None):
        """Fit the support of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training inputs (the Gram matrix for ``kernel="precomputed"``).
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Per-sample bounds a_i <= w_i and sum a = nu sum w (as scikit-learn's
            libsvm); samples of weight 0 take no part.

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        if kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"with kernel='precomputed', X must be the square Gram matrix "
                                 f"of the training samples, got shape {X.shape}")
            check_symmetric_gram(X)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        Cs = np.ones(n) if sw is None else sw
        keep = np.flatnonzero(Cs > 0)
        m = len(keep)
        with progress(None, "SMO (one-class SVM)", self.verbose) as bar:
            opts = dict(tol=float(self.tol), max_iter=self.max_iter, shrinking=self.shrinking,
                        callback=(lambda steps, gap: bar.update(steps, violation=gap))
                        if is_verbose(self.verbose) else None)
            nu = float(self.nu)
            if kernel == "precomputed":
                choices = ()
                K = np.asarray(X, dtype=np.float64)[np.ix_(keep, keep)]
                res = one_class_gram(K, nu, Cs[keep], **opts)
            else:
                store = decide_store(f"the {m} x {m} Gram matrix", 8.0 * m * m, self.cache)
                choices = (store,)
                Xk = X[keep]
                if store.value:
                    res = one_class_gram(gram(kernel, Xk), nu, Cs[keep], **opts)
                else:
                    choices += (row_cache_choice(m),)
                    res = one_class_kernel(kernel, Xk, nu, Cs[keep],
                                           cache_bytes=row_cache_bytes(), **opts)
        self.intercept_ = np.array([-res.rho])
        self.offset_ = float(res.rho)
        self.objective_ = float(res.objective)
        plan = Plan("smo", reason="the one-class SVM dual (nu formulation) by SMO",
                    problem={"n": int(m)}, choices=choices)
        # alpha >= 0: the support vectors are its nonzero (positive) entries
        store_smo_fit(self, kernel, X, keep, res.alpha[None, :], plan, n_iter=int(res.n_iter),
                      max_violation=float(res.max_violation), float64_rows=True)
        if not res.converged:
            warn_smo_stopped(self, res.max_violation)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        return tag_precomputed(tags, self.kernel)

    def score_samples(self, X):
        """sum_i a_i k(x_i, x): higher means more normal.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_predict_data(self, self.kernel_, X)
        coef = np.asarray(self.dual_coef_[0], dtype=np.float64)
        if self.kernel_ == "precomputed":
            return np.asarray(X, dtype=np.float64)[:, self.support_] @ coef
        if coef.size == 0:
            return np.zeros(X.shape[0] if hasattr(X, "shape") else len(X))
        return GramOperator(self.kernel_, X, self.support_vectors_).matvec(coef)

    def decision_function(self, X):
        """f(x) = ``score_samples(X) - offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        return self.score_samples(X) - self.offset_

    @property
    def n_support_(self):
        """Number of support vectors, as scikit-learn's: ndarray of shape (1,), int32."""
        check_is_fitted(self, "support_")
        return np.array([len(self.support_)], dtype=np.int32)

    def predict(self, X):
        """+1 inside the estimated support (f(x) > 0, as libsvm), -1 outside.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        return np.where(self.decision_function(X) > 0, 1, -1)

    def fit_predict(self, X, y=None, sample_weight=None):
        """``fit(X, sample_weight=sample_weight).predict(X)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(X, sample_weight=sample_weight).predict(X)
