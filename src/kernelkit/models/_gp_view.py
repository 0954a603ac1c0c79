"""The Gaussian-process view of exact kernel ridge: the predictive standard deviation.

Kernel ridge with kernel k and penalty alpha predicts the posterior mean of a GP
f ~ GP(0, k) observed with noise of variance alpha (alpha / s_i with sample weights
s_i). The posterior variance of f at x is

    k(x, x) - k_x' (K + alpha S^{-1})^{-1} k_x,    k_x = K(X_fit, x),

computed from the Cholesky factor L of K + alpha S^{-1} as k(x, x) - ||L^{-1} k_x||^2
(clamped at 0): scikit-learn's ``GaussianProcessRegressor.predict(return_std=True)``
(the standard deviation of f, without the noise) on the same kernel and noise.

References
----------
Rasmussen, C. E. and Williams, C. K. I. (2006). Gaussian Processes for Machine
Learning, MIT Press, algorithm 2.1.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .._budget import require, row_blocks
from ..gram import gram
from ..linalg import robust_cholesky

__all__ = ["posterior_std"]

_QUERY_ROWS = 1024


def _alpha_of(est):
    """The penalty the model was fitted with (KernelRidge's, or KernelRidgeCV's choice)."""
    for name in ("_fit_alpha", "alpha_"):
        if est.__dict__.get(name) is not None:
            return est.__dict__[name]
    return np.asarray(est.alpha, dtype=np.float64)  # a model read from a file


def _factor(est):
    """L with L L' = K + alpha S^{-1}, computed once per fitted model and kept.

    The cache holds what the factor was computed from (the training rows' array
    itself, the kernel, the noise, the weights), so a refit of any estimator that
    changes one of them -- ``KernelRidgeCV`` choosing another alpha, a second
    ``fit`` -- recomputes it instead of reusing a stale factor.
    """
    X = est.X_fit_
    noise = float(np.ravel(_alpha_of(est))[0])
    sw = est.__dict__.get("_fit_sample_weight")
    cached = est.__dict__.get("_posterior_factor")
    if (isinstance(cached, tuple) and cached[0] is X and cached[1] == est.kernel_
            and cached[2] == noise and cached[3] is sw):
        return cached[4]
    n = X.shape[0]
    require(8.0 * n * n, f"the predictive standard deviation of kernel ridge on n={n} "
            f"samples (the {n} x {n} Cholesky factor of K + alpha I)")
    K = np.array(gram(est.kernel_, X), dtype=np.float64)
    K[np.diag_indices(n)] += noise if sw is None else noise / np.maximum(sw, 1e-300)
    L = robust_cholesky(K, overwrite_a=True).L
    est._posterior_factor = (X, est.kernel_, noise, sw, L)
    return L


def posterior_std(est, X):
    """The GP posterior standard deviation of f at the rows of X (validated).

    Parameters
    ----------
    est : fitted KernelRidge with the exact dual solver
    X : ndarray of shape (n_queries, n_features)

    Returns
    -------
    ndarray of shape (n_queries,), or (n_queries, n_targets) for several targets

    Raises
    ------
    ValueError
        When the model was not fitted by the exact dual solver, on a precomputed
        kernel, with a zero sample weight, or with one alpha per target.
    """
    solver = getattr(est, "solver_", "dual")
    if solver != "dual" or getattr(est, "X_fit_", None) is None or est.kernel_ == "precomputed":
        raise ValueError(
            "predict(X, return_std=True) needs the exact dual solver on a kernel (the GP "
            f"posterior of kernel ridge); this model was fitted with solver={solver!r}"
            + (" on kernel='precomputed'" if est.kernel_ == "precomputed" else "")
            + ". Fit with solver='dual' and a kernel object or expression")
    alpha = np.ravel(_alpha_of(est))
    if not np.all(alpha == alpha[0]):
        raise ValueError("predict(X, return_std=True) needs one alpha for all targets (the "
                         f"GP noise variance), got alpha={alpha!r}")
    sw = est.__dict__.get("_fit_sample_weight")
    if sw is not None and np.any(sw == 0):
        raise ValueError("predict(X, return_std=True) is undefined with zero sample weights "
                         "(infinite noise variance); drop those rows instead")
    L = _factor(est)
    std = np.empty(X.shape[0])
    for r0, r1 in row_blocks(X.shape[0], _QUERY_ROWS):
        Kq = np.asarray(gram(est.kernel_, est.X_fit_, X[r0:r1]), dtype=np.float64)
        V = solve_triangular(L, Kq, lower=True, check_finite=False)
        var = est.kernel_.diag(X[r0:r1]) - np.einsum("ij,ij->j", V, V)
        std[r0:r1] = np.sqrt(np.maximum(var, 0.0))
    n_targets = np.ndim(est.dual_coef_)
    if n_targets == 2:
        return np.repeat(std[:, None], est.dual_coef_.shape[1], axis=1)
    return std
