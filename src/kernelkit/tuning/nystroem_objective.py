"""Objectives for learning kernel parameters at large n: GCV and hold-out of Nystroem ridge.

Nystroem kernel ridge with M centers C (Falkon's model) is f = K(., C) beta with

    (A'A + alpha B) beta = A'y,   A = K(X, C) (n x M),   B = K(C, C) (M x M),

the minimiser of sum_i (y_i - f(x_i))^2 + alpha ||f||^2 over the span of the centers.
Every quantity below depends on A only through S = A'A and c = A'y (M x M and M), so
an objective and its exact gradient with respect to S, c, B and alpha cost O(M^3), and
the chain rule back to the kernel parameters is one contraction
sum_ij W_ij dA_ij/dtheta with W = 2 A dO/dS + y (dO/dc)' (block by block over rows) plus
one with dO/dB on K(C, C): O(n M^2 + n M d) time per evaluation, rows in blocks, no n x n
and no n x M matrix held.

- ``"gcv"``: generalised cross-validation, n ||y - A beta||^2 / (n - tr H)^2 with the
  hat matrix H = A (A'A + alpha B)^{-1} A' (tr H = tr((A'A + alpha B)^{-1} A'A)), the
  leave-one-out error's rotation-invariant approximation (Golub, Heath & Wahba 1979);
- ``"holdout"``: the mean squared error on held-out rows of the model fitted on the
  others.

The targets are centred once (the intercept is their mean) and this GCV does not count
the intercept's degree of freedom in tr H (a difference of 1 in n - tr H, with n in
the thousands here), while ``KernelRidgeCV``'s Nystroem GCV
(:mod:`kernelkit.tuning.nystroem_path`) counts it: on small n the two may prefer
neighbouring alphas.

The centers are kept fixed (Meanti et al. also learn them; not here). The trace is
exact (an M x M inverse), where Meanti et al. use stochastic estimates to stay
within Falkon's preconditioned iterations.

References
----------
Meanti, G., Carratino, L., De Vito, E. and Rosasco, L. (2022). Efficient
Hyperparameter Tuning for Large Scale Kernel Ridge Regression. AISTATS.
Golub, G. H., Heath, M. and Wahba, G. (1979). Generalized cross-validation as a
method for choosing a good ridge parameter. Technometrics 21(2).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from .._budget import row_blocks
from .kernel_params import contract_derivatives

__all__ = ["nystroem_objective", "NYSTROEM_OBJECTIVES"]

NYSTROEM_OBJECTIVES = ("gcv", "holdout")
_ROWS = 2048  # rows per block of K(X, C)


def _sym(A):
    return 0.5 * (A + A.T)


def _normal_equations(kernel, X, y, centers):
    """S = A'A and c = A'y over row blocks of A = K(X, C)."""
    M = centers.shape[0]
    S, c = np.zeros((M, M)), np.zeros(M)
    for r0, r1 in row_blocks(X.shape[0], _ROWS):
        A = kernel(X[r0:r1], centers)
        S += A.T @ A
        c += A.T @ y[r0:r1]
    return S, c


def _factor(G):
    """Cholesky of the M x M system, with a small jitter ladder if it is not numerically PD."""
    scale = max(float(np.mean(np.diag(G))), np.finfo(float).tiny)
    for jitter in (0.0, 1e-12, 1e-10, 1e-8, 1e-6):
        try:
            return cho_factor(G + jitter * scale * np.eye(len(G)), lower=True,
                              check_finite=False)
        except LinAlgError:
            continue
    raise LinAlgError("the Nystroem system A'A + alpha K_MM is not positive definite even "
                      "with jitter; increase alpha's lower bound")


def nystroem_objective(params, X, y, centers, alpha, theta=None, *, objective="gcv",
                       validation=None):
    """An objective of Nystroem kernel ridge and its gradient wrt (theta, log alpha).

    Parameters
    ----------
    params : KernelParameters
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        One target (centred for an intercept).
    centers : ndarray of shape (n_centers, n_features)
    alpha : float
        Ridge penalty (> 0), as in ``KernelRidge(solver="falkon")``.
    theta : ndarray of shape (n_params,), optional
    objective : {"gcv", "holdout"}, default="gcv"
    validation : ndarray of bool of shape (n_samples,), optional
        The held-out rows (``objective="holdout"``).

    Returns
    -------
    value : float
        GCV (n ||y - A beta||^2 / (n - tr H)^2) or the held-out mean squared error.
    gradient : ndarray of shape (n_params + 1,)
        With respect to theta and (last) log alpha.
    """
    kernel = params.kernel if theta is None else params.with_theta(theta)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    C = np.asarray(centers, dtype=np.float64)
    B = np.array(kernel(C), dtype=np.float64)
    mu = float(alpha)
    if objective == "gcv":
        Xt, yt = X, y
    else:
        Xt, yt = X[~validation], y[~validation]
        Xv, yv = X[validation], y[validation]
    S, c = _normal_equations(kernel, Xt, yt, C)
    factor = _factor(S + mu * B)
    beta = cho_solve(factor, c, check_finite=False)
    if objective == "gcv":
        n = X.shape[0]
        R = float(y @ y - 2.0 * c @ beta + beta @ S @ beta)
        Ginv = cho_solve(factor, np.eye(len(C)), check_finite=False)
        T = float(np.einsum("ij,ji->", Ginv, S))
        q = -2.0 * mu * cho_solve(factor, B @ beta, check_finite=False)
        P = Ginv @ S @ Ginv
        dR, dT = n / (n - T) ** 2, 2.0 * n * R / (n - T) ** 3
        value = n * R / (n - T) ** 2
        gS = _sym(dR * (np.outer(beta, beta) - np.outer(q, beta)) + dT * (Ginv - P))
        gc = dR * (q - 2.0 * beta)
        gB = _sym(dR * (-mu * np.outer(q, beta)) - dT * mu * P)
        gmu = dR * float(-q @ B @ beta) - dT * float(np.einsum("ij,ji->", P, B))
        val_W = None
    else:
        nv = Xv.shape[0]
        r = np.empty(nv)
        g = np.zeros(len(C))
        for r0, r1 in row_blocks(nv, _ROWS):
            A = kernel(Xv[r0:r1], C)
            r[r0:r1] = yv[r0:r1] - A @ beta
            g += A.T @ r[r0:r1]
        g *= -2.0 / nv
        value = float(r @ r) / nv
        h = cho_solve(factor, g, check_finite=False)
        hb = _sym(np.outer(h, beta))
        gS, gc, gB = -hb, h, -mu * hb
        gmu = float(-h @ B @ beta)
        val_W = np.outer(r * (-2.0 / nv), beta)
    grad = contract_derivatives(params, Xt, C,
                                lambda r0, r1, A: 2.0 * A @ gS + np.outer(yt[r0:r1], gc),
                                theta)
    grad += contract_derivatives(params, C, C, gB, theta)
    if val_W is not None:
        grad += contract_derivatives(params, Xv, C, val_W, theta)
    return float(value), np.append(grad, gmu * mu)
