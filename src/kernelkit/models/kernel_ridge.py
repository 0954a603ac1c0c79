"""Kernel ridge regression, exact: dual (K + alpha I) u = y or primal features."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .. import config
from ..exceptions import MemoryBudgetError
from ..features import ExplicitFeatures, explicit_feature_dim
from ..gram import GramOperator, gram
from ..calibration import machine_rates
from ..planning import plan_ridge
from ..solvers import dual_ridge, primal_ridge
from ._base import (check_alpha, check_sample_weight, resolve_estimator_kernel,
                    validate_fit_data, validate_predict_data)
from ._base import input_dim

__all__ = ["KernelRidge"]

_SOLVERS = ("auto", "dual", "primal")


def predict_dual(kernel, X, X_fit, dual_coef):
    """K(X, X_fit) @ dual_coef in row blocks (K is never stored whole)."""
    coef = dual_coef if dual_coef.ndim == 2 else dual_coef[:, None]
    out = GramOperator(kernel, X, X_fit).matmat(coef)
    return out[:, 0] if dual_coef.ndim == 1 else out


class _RidgePredictor(RegressorMixin, BaseEstimator):
    """Prediction and tags shared by the kernel ridge estimators."""

    def predict(self, X):
        """Predict targets.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_queries,) or (n_queries, n_targets)
        """
        check_is_fitted(self, ["dual_coef_", "coef_"], all_or_any=any)
        X = validate_predict_data(self, self.kernel_, X)
        if getattr(self, "solver_", "dual") == "primal":
            return self.feature_map_.transform(X) @ self.coef_
        if self.kernel_ == "precomputed":
            return np.asarray(X, dtype=np.float64) @ self.dual_coef_
        return predict_dual(self.kernel_, X, self.X_fit_, self.dual_coef_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.pairwise = isinstance(self.kernel, str) and \
            self.kernel.strip().lower() == "precomputed"
        return tags


class KernelRidge(_RidgePredictor):
    """Kernel ridge regression solved exactly.

    Minimises sum_i s_i (y_i - f(x_i))^2 + alpha ||f||_H^2 over the RKHS of the
    kernel. By the representer theorem f(x) = sum_i u_i k(x, x_i) with
    (K + alpha I) u = y (the dual). When the kernel has a finite explicit
    feature map psi of dimension D < n (linear, polynomial), the same model
    is f(x) = psi(x)'w with (Z'Z + alpha I) w = Z'y (the primal, "other normal
    equations"), which costs O(n D^2) instead of O(n^3).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        A kernel object, an expression such as ``"rbf(gamma=0.1) + linear"``,
        or ``"precomputed"`` (then X is the Gram matrix K(X_train, X_train) in
        ``fit`` and K(X_test, X_train) in ``predict``).
    alpha : float or array-like of shape (n_targets,), default=1.0
        Regularisation strength (>= 0), one per target if an array.
    solver : {"auto", "dual", "primal"}, default="auto"
        ``"auto"`` asks the planner (:func:`kernelkit.planning.plan_ridge`) and
        keeps its answer in ``plan_``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Dual coefficients u (dual solver).
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (dual solver; for "precomputed", None).
    coef_ : ndarray of shape (D,) or (D, n_targets)
        Primal weights w (primal solver).
    solver_ : {"dual", "primal"}
        The solver used.
    kernel_ : Kernel or "precomputed"
        The resolved kernel.
    jitter_ : float
        Jitter the robust Cholesky added to the diagonal (0.0 if none).
    plan_ : Plan
        The planner's decision (with ``plan_.explain()``).
    n_features_in_ : int
    n_samples_fit_ : int
        Number of training samples.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = np.sin(X[:, 0])
    >>> model = KernelRidge(kernel="rbf(gamma=0.5)", alpha=1e-3).fit(X, y)
    >>> float(np.abs(model.predict(X) - y).max()) < 0.05
    True
    """

    def __init__(self, kernel="rbf", alpha=1.0, *, solver="auto"):
        self.kernel = kernel
        self.alpha = alpha
        self.solver = solver

    def _check_params(self):
        """Check the hyperparameters that do not depend on data; return the kernel."""
        if self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS}, got {self.solver!r}")
        check_alpha(self.alpha, np.size(self.alpha))
        return resolve_estimator_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training inputs (the Gram matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        y = np.asarray(y, dtype=np.float64)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        alpha = check_alpha(self.alpha, 1 if y.ndim == 1 else y.shape[1])
        budget = config.get_config()["memory"]
        D = None if kernel == "precomputed" else explicit_feature_dim(kernel, input_dim(X))
        self.plan_ = plan_ridge(n, input_dim(X), n_components=D, memory=budget,
                                rates=machine_rates())
        solver = self.plan_.choice if self.solver == "auto" else self.solver
        if solver == "primal" and D is None:
            raise ValueError(f"solver='primal' needs a kernel with a finite explicit feature "
                             f"map (linear, polynomial); {kernel!r} has none. Use "
                             "solver='dual'")
        if solver in ("dual", "none"):
            solver = "dual"
            if 8.0 * n * n > budget and kernel != "precomputed":
                raise MemoryBudgetError(
                    f"exact kernel ridge on n={n} samples needs the {n} x {n} Gram matrix "
                    f"({8.0 * n * n / 1024**3:.1f} GB) but the memory budget is "
                    f"{budget / 1024**3:.1f} GB; raise it with kernelkit.config_context("
                    "memory=...) or the KERNELKIT_MEMORY variable, or subsample")
        self.kernel_ = kernel
        self.solver_ = solver
        self.n_samples_fit_ = n
        self._fit_alpha = alpha
        if solver == "dual":
            if kernel == "precomputed":
                K = np.array(X, dtype=np.float64, order="C")
                self.X_fit_ = None
            else:
                K = gram(kernel, X)
                self.X_fit_ = X
            if K.dtype != np.float64:
                K = K.astype(np.float64)
            self.dual_coef_, self.jitter_ = dual_ridge(K, y, alpha, sample_weight=sw,
                                                       overwrite_K=True)
        else:
            self.feature_map_ = ExplicitFeatures(kernel).fit(X)
            Z = self.feature_map_.transform(X)
            self.coef_, self.jitter_ = primal_ridge(Z, y, alpha, sample_weight=sw)
        return self
