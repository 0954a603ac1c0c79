"""Ridge regression in both representations.

Dual (u-space): (K + alpha I) u = y, predictions K(x, X) u.
Primal (w-space, the lectures' "other normal equations"):
(Z'Z + alpha I) w = Z'y, predictions psi(x)'w, with Z = psi(X).
Both minimise sum_i s_i (y_i - f(x_i))^2 + alpha ||f||^2 and give the same
predictions when Z Z' = K. Pure numerics: arrays in, arrays out.
"""

from __future__ import annotations

import numpy as np

from ..linalg import cho_solve, eigh_psd, robust_cholesky

__all__ = ["dual_ridge", "primal_ridge", "dual_ridge_eigen"]


def _as_2d(y):
    return (y[:, None], True) if y.ndim == 1 else (y, False)


def dual_ridge(K, y, alpha, *, sample_weight=None, overwrite_K=False):
    """Solve (K + alpha I) u = y for the dual coefficients u.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric PSD Gram matrix (float64). With ``overwrite_K`` it is used as
        workspace: its lower triangle holds the Cholesky factor afterwards.
    y : ndarray of shape (n,) or (n, n_targets)
    alpha : float or ndarray of shape (n_targets,)
        Regularisation, >= 0. Distinct per-target values use one symmetric
        eigendecomposition instead of one Cholesky per value.
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights s_i of the squared errors.
    overwrite_K : bool, default=False
        Allow K to be destroyed (saves an n x n copy).

    Returns
    -------
    dual_coef : ndarray, same shape as y
    jitter : float
        Jitter added to the diagonal by the robust Cholesky (0.0 if none).
    """
    alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    Y, squeeze = _as_2d(np.asarray(y, dtype=np.float64))
    if not overwrite_K:
        K = np.array(K, dtype=np.float64, order="C")
    sw = None
    if sample_weight is not None:
        # Weighted ridge = ordinary ridge on sqrt(s)-scaled rows (as scikit-learn).
        sw = np.sqrt(np.asarray(sample_weight, dtype=np.float64))
        K *= sw[:, None]
        K *= sw[None, :]
        Y = Y * sw[:, None]
    U, jitter = _solve_shifted(K, Y, alpha)
    if sw is not None:
        U *= sw[:, None]
    return (U[:, 0] if squeeze else U), jitter


def _solve_shifted(A, B, alpha):
    """(A + alpha_t I) X_t = B_t for every target t, overwriting A: one Cholesky
    (robust, jitter recorded) when all alphas agree, else one eigendecomposition.

    Returns
    -------
    X : ndarray of shape B.shape
    jitter : float
    """
    if alpha.size > 1 and not np.all(alpha == alpha[0]):
        return _eigen_solve(A, B, alpha), 0.0
    A.flat[:: len(A) + 1] += alpha[0]
    chol = robust_cholesky(A, overwrite_a=True)
    return cho_solve(chol, B), chol.jitter


def _eigen_solve(K, Y, alpha):
    w, Q = eigh_psd(K, overwrite_a=True)
    QtY = Q.T @ Y
    return Q @ (QtY / (w[:, None] + alpha[None, :]))


def dual_ridge_eigen(w, Q, y, alpha):
    """Dual coefficients from an eigendecomposition K = Q diag(w) Q' (used by CV)."""
    Y, squeeze = _as_2d(np.asarray(y, dtype=np.float64))
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (Y.shape[1],))
    U = Q @ ((Q.T @ Y) / (w[:, None] + alpha[None, :]))
    return U[:, 0] if squeeze else U


def primal_ridge(Z, y, alpha, *, sample_weight=None):
    """Solve (Z'SZ + alpha I) w = Z'S y: ridge on explicit features.

    Parameters
    ----------
    Z : ndarray of shape (n, D)
        Features psi(x_i).
    y : ndarray of shape (n,) or (n, n_targets)
    alpha : float or ndarray of shape (n_targets,)
    sample_weight : ndarray of shape (n,), optional

    Returns
    -------
    coef : ndarray of shape (D,) or (D, n_targets)
    jitter : float
    """
    alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    Y, squeeze = _as_2d(np.asarray(y, dtype=np.float64))
    Zw = Z if sample_weight is None else Z * np.asarray(sample_weight, np.float64)[:, None]
    A = Zw.T @ Z
    B = Zw.T @ Y
    W, jitter = _solve_shifted(A, B, alpha)
    return (W[:, 0] if squeeze else W), jitter
