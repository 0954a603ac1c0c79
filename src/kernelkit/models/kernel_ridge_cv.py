"""Kernel ridge with alpha (and kernel parameters) chosen by exact leave-one-out."""

from __future__ import annotations

import itertools
from numbers import Real

import numpy as np
from sklearn.base import clone

from .._validation import Interval, validate_params
from ..exceptions import InvalidParameterError
from .._budget import require
from ..gram import gram
from ..linalg import eigh_psd, loo_residuals
from ..solvers import dual_ridge_eigen
from ._base import KernelParamsMixin, kernel_for_data
from ._base import resolve_estimator_kernel, validate_fit_data
from .kernel_ridge import _RidgePredictor

__all__ = ["KernelRidgeCV"]


class KernelRidgeCV(KernelParamsMixin, _RidgePredictor):
    """Kernel ridge regression with exact leave-one-out model selection.

    For each kernel candidate one symmetric eigendecomposition K = Q diag(w) Q'
    gives, for every alpha at O(n^2) cost, the exact leave-one-out residuals
    r_i = u_i / [(K + alpha I)^-1]_ii with u = (K + alpha I)^-1 y, as RidgeCV
    does for linear ridge. The best (kernel, alpha) by LOO mean squared error
    is refitted from the same decomposition.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        Base kernel.
    alphas : array-like of float, default=(0.1, 1.0, 10.0)
        Regularisation strengths to try (> 0).
    param_grid : dict of str to list, optional
        Kernel parameters to try, e.g. ``{"gamma": [0.1, 1.0]}`` or, for a
        composite kernel, ``{"k1__gamma": [...]}``: every combination is tried.

    Attributes
    ----------
    alpha_ : float
        Selected alpha.
    kernel_ : Kernel or "precomputed"
        Selected kernel.
    best_score_ : float
        Its LOO mean squared error (averaged over targets).
    cv_results_ : dict
        ``params`` (list of dicts), ``alpha`` and ``loo_mse`` (arrays), one
        entry per (kernel candidate, alpha).
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
    X_fit_ : ndarray of shape (n_samples, n_features) or None
    n_features_in_ : int
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "alphas": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "param_grid": [dict, None],
    }

    def __init__(self, kernel="rbf", alphas=(0.1, 1.0, 10.0), *, param_grid=None):
        self.kernel = kernel
        self.alphas = alphas
        self.param_grid = param_grid

    def _candidates(self, base):
        grid = self.param_grid or {}
        if grid and base == "precomputed":
            raise ValueError("param_grid cannot be used with kernel='precomputed'")
        keys = sorted(grid)
        for values in itertools.product(*(list(grid[k]) for k in keys)):
            params = dict(zip(keys, values))
            yield params, (clone(base).set_params(**params) if params else base)

    def _check_params(self):
        """Check the hyperparameters; return the base kernel and the alphas."""
        validate_params(self, self._param_constraints, type(self).__name__)
        try:
            alphas = np.atleast_1d(np.asarray(self.alphas, dtype=np.float64)).ravel()
        except (TypeError, ValueError):
            alphas = np.array([np.nan])
        if alphas.size == 0 or not np.isfinite(alphas).all() or (alphas <= 0).any():
            raise InvalidParameterError(f"{type(self).__name__}: alphas must be a non-empty "
                                        f"list of positive numbers, got {self.alphas!r}")
        return resolve_estimator_kernel(self.kernel), alphas

    def fit(self, X, y):
        """Select (kernel, alpha) by leave-one-out and fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        base, alphas = self._check_params()
        X, y = validate_fit_data(self, base, X, y)
        base = kernel_for_data(base, X)  # gamma="scale" fixed from the training X
        y = np.asarray(y, dtype=np.float64)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"leave-one-out needs at least 2 samples, got n_samples = {n}")
        require(16.0 * n * n, f"leave-one-out by eigendecomposition (two {n} x {n} matrices)")
        results = {"params": [], "alpha": [], "loo_mse": []}
        best = None
        for params, kernel in self._candidates(base):
            K = np.array(X, dtype=np.float64) if base == "precomputed" else gram(kernel, X)
            w, Q = eigh_psd(K.astype(np.float64, copy=False), overwrite_a=True)
            for alpha in alphas:
                res = loo_residuals(w, Q, y, float(alpha))
                mse = float(np.mean(res ** 2))
                results["params"].append(params)
                results["alpha"].append(float(alpha))
                results["loo_mse"].append(mse)
                if best is None or mse < best[0]:
                    best = (mse, float(alpha), kernel, w, Q)
        mse, alpha, kernel, w, Q = best
        self.alpha_, self.kernel_, self.best_score_ = alpha, kernel, mse
        self.cv_results_ = {"params": results["params"],
                            "alpha": np.array(results["alpha"]),
                            "loo_mse": np.array(results["loo_mse"])}
        self.dual_coef_ = dual_ridge_eigen(w, Q, y, alpha)
        self.X_fit_ = None if base == "precomputed" else X
        return self
