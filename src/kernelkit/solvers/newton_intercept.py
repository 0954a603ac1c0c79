"""Newton's method in u-space with an unpenalised intercept b.

Minimise J(u, b) = (lam/2) u'Ku + (1/n) sum_i s_i l(f_i; y_i), f = Ku + b 1:
the representer form of (lam/2)||w||^2 + (1/n) sum_i s_i l(w'psi(x_i) + b; y_i),
whose intercept b is not penalised (scikit-learn's linear models' convention).

With g = lam u + s l'(f) / n (J's u-gradient is K g), g_b = 1's l'(f) / n and
W = diag(s l''(f)), Newton's system (divided by K on the left, which keeps the
step in K's range as in :mod:`kernelkit.solvers.newton`) is

    (n lam I + W K) du + W 1 db = -n g
    1'W K du     + 1'W 1 db    = -n g_b.

Both right-hand sides of the first block, -n g and W 1, are solved through the
one Cholesky factor of B = I + S K S / (n lam) (S = W^(1/2)) of
:func:`~kernelkit.solvers.newton.newton_dual`: du = x1 - db x2, and db from the
second row, whose pivot 1'W(1 - K x2) > 0 is the Schur complement of the
Hessian (clamped at a tiny multiple of 1'W1 against round-off). The squared,
Huber and squared hinge losses take the exact minimiser along each step
(:func:`~kernelkit.solvers.line_search.exact_step_length`), the others Armijo
backtracking. Every step costs one n x n Cholesky factorisation.

Pure numerics: no validation, no printing.

References
----------
Chapelle, O. (2007). Training a support vector machine in the primal. Neural
Computation 19(5), 1155-1178 (Newton in u with an unpenalised offset, Section 4).
"""

from __future__ import annotations

import numpy as np

from ..linalg import cho_solve, robust_cholesky
from .line_search import PIECEWISE_QUADRATIC, exact_step_length, pieces
from .losses import get_loss
from .newton import ROUND_OFF_DECREMENT, NewtonResult, _rkhs_norm, _step_model, _weighted

__all__ = ["newton_intercept_dual", "intercept_objective"]


def intercept_objective(loss, lam, u, Ku, b, y, sample_weight=None):
    """J(u, b) = (lam/2) u'Ku + (1/n) sum_i s_i l((Ku)_i + b; y_i)."""
    return 0.5 * lam * float(u @ Ku) + float(np.mean(_weighted(loss.value(Ku + b, y),
                                                                sample_weight)))


def _line_search(loss, lam, u, Ku, b, y, sw, J, du, Kdu, db, slope):
    """The new (u, Ku, b, J) along (du, db): exact for piecewise-quadratic losses,
    else Armijo backtracking (sufficient decrease 1e-4 t slope, t halved to 1e-10)."""
    if loss.name in PIECEWISE_QUADRATIC:
        t = exact_step_length(loss, lam, u, Ku + b, y, sw, du, Kdu + db,
                              penalty=(lam * float(u @ Kdu), lam * float(du @ Kdu)))
        u_new, Ku_new, b_new = u + t * du, Ku + t * Kdu, b + t * db
        J_new = intercept_objective(loss, lam, u_new, Ku_new, b_new, y, sw)
        if J_new <= J:
            return u_new, Ku_new, b_new, J_new
    t = 1.0
    while True:
        u_new, Ku_new, b_new = u + t * du, Ku + t * Kdu, b + t * db
        J_new = intercept_objective(loss, lam, u_new, Ku_new, b_new, y, sw)
        if J_new <= J + 1e-4 * t * slope or t < 1e-10:
            return u_new, Ku_new, b_new, J_new
        t *= 0.5


def _gradient_norm(K, loss, lam, u, Ku, b, y, sw):
    """sqrt(g'Kg + g_b^2): J's gradient norm in the feature space and in b."""
    n = len(y)
    lp = _weighted(loss.derivative(Ku + b, y), sw)
    g = lam * u + lp / n
    return float(np.hypot(_rkhs_norm(g, K @ g), float(lp.sum()) / n))


def newton_intercept_dual(K, y, loss, lam, *, tol=1e-8, max_iter=50, sample_weight=None,
                          callback=None):
    """Newton's method on J(u, b) for a loss with curvature (see the module docstring).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix (not modified).
    y : ndarray of shape (n,)
    loss : str or Loss
        A loss with a (generalised) second derivative: squared, logistic,
        squared_hinge, huber, or a user loss with a curvature.
    lam : float
        > 0.
    tol : float, default=1e-8
        Stop when the Newton decrement sqrt(-grad'step) is below
        ``tol * sqrt(max(1, |J|))``.
    max_iter : int, default=50
    sample_weight : ndarray of shape (n,), optional
        s_i >= 0 multiplying each sample's loss.
    callback : callable, optional
        ``callback(it, grad_norm)`` after each step's gradient.

    Returns
    -------
    NewtonResult
        With ``intercept`` b; ``grad_norm`` is sqrt(g'Kg + g_b^2).
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    nl = n * lam
    sw = sample_weight
    u = np.zeros(n)
    Ku = np.zeros(n)
    # b starts at the best constant of the squared loss (the weighted mean of y, or
    # 0 for margin losses), so Huber's curvature is not zero on most samples at once
    b = 0.0 if loss.classification else float(np.average(y, weights=sw))
    J = intercept_objective(loss, lam, u, Ku, b, y, sw)
    converged = False
    it = 0
    grad_norm = None
    for it in range(1, max_iter + 1):
        model = _step_model(loss, it, None)
        f = Ku + b
        lp = _weighted(model.derivative(f, y), sw)
        g = lam * u + lp / n
        g_b = float(lp.sum()) / n
        Kg = K @ g
        grad_norm = float(np.hypot(_rkhs_norm(g, Kg), g_b))
        if callback is not None:
            callback(it, grad_norm)
        w = np.maximum(_weighted(model.second_derivative(f, y), sw), 0.0)
        s = np.sqrt(w)
        B = (s[:, None] * K) * (s[None, :] / nl)
        B.flat[:: n + 1] += 1.0
        factor = robust_cholesky(B, overwrite_a=True)
        R = np.column_stack((-n * g, w))  # the two right-hand sides
        KR = np.column_stack((-n * Kg, K @ w))
        Q = cho_solve(factor, s[:, None] * KR / nl)
        X = (R - s[:, None] * Q) / nl
        KX = np.column_stack((K @ X[:, 0], K @ X[:, 1]))
        total = float(w.sum())
        pivot = total - float(w @ KX[:, 1])
        pivot = max(pivot, 1e-12 * max(total, 1e-300))
        db = (-n * g_b - float(w @ KX[:, 0])) / pivot if total > 0 else -g_b
        du = X[:, 0] - db * X[:, 1]
        Kdu = KX[:, 0] - db * KX[:, 1]
        slope = float(Kg @ du) + g_b * db  # grad' step
        if model is loss and -slope <= (tol ** 2) * max(1.0, abs(J)):
            converged = True
            break
        quadratic = model is loss and loss.name in PIECEWISE_QUADRATIC
        before = pieces(loss, f, y) if quadratic else None
        u_new, Ku_new, b_new, J_new = _line_search(loss, lam, u, Ku, b, y, sw, J, du, Kdu, db,
                                                   slope)
        if quadratic and not J_new < J:
            converged = -slope <= ROUND_OFF_DECREMENT * max(1.0, abs(J))
            break
        u, Ku, b, J = u_new, Ku_new, b_new, J_new
        if before is not None and np.array_equal(before, pieces(loss, Ku + b, y)):
            # finite termination (Keerthi & DeCoste 2005), as in newton_dual
            grad_norm = _gradient_norm(K, loss, lam, u, Ku, b, y, sw)
            converged = True
            break
    return NewtonResult(u, it, J, converged, grad_norm, intercept=b)
