"""Deterministic solvers in u-space for smooth losses: Newton (IRLS) and L-BFGS.

Minimise J(u) = (lam/2) u'Ku + (1/n) sum_i l((Ku)_i; y_i), the representer
form of (lam/2)||w||^2 + (1/n) sum_i l(w'psi(x_i); y_i).

Gradient: K g with g = lam u + l'(Ku)/n. Hessian: K (lam I + W K / n) with
W = diag(l''(Ku)) (a generalised Hessian for squared_hinge and huber, whose
l'' jumps). The Newton step solves (n lam I + W K) step = -n g, which stays in
the range of K whatever K's rank. With S = W^(1/2) it is solved through the
symmetric positive definite B = I + S K S / (n lam), whose eigenvalues are
>= 1 (the trick of Rasmussen & Williams, GPML Algorithm 3.1):

    q = B^-1 S K r / (n lam),   step = (r - S q) / (n lam),   r = -n g.

A backtracking (Armijo) line search on J makes it globally convergent; for
the squared loss the first step is the exact (K + n lam I)^-1 y. The squared,
Huber and squared hinge losses are piecewise quadratic: they take the exact
minimiser along each step instead (:mod:`kernelkit.solvers.line_search`), which
makes the method finite (Keerthi & DeCoste 2005), stop as soon as an exact step
ends on the pieces it was computed for, and Huber starts from the squared
loss's step (:func:`_step_model`). Measured on cpu_act (n = 2,000, RBF gamma
0.05, Huber): alpha 1e-3 took 61 steps with Armijo from u = 0, 5 now; 5-8 steps
over alpha 1e-6..10.

L-BFGS (scipy) runs on a stored K through its eigendecomposition K = B B'
(then the problem is the well-conditioned primal one in v, u = P v), or on a
:class:`~kernelkit.gram.GramOperator` that never stores K (then in u, with
products with K only). The multinomial (softmax) logistic loss is solved by
it, U of shape (n, n_classes).

Above a few hundred samples the kernel machines solve Newton's steps by CG
instead (:func:`kernelkit.solvers.newton_cg.newton_cg_dual`).

Pure numerics: no validation, no printing.

References
----------
Keerthi, S. S. and DeCoste, D. (2005). A modified finite Newton method for fast
solution of large scale linear SVMs. JMLR 6, 341-361.
Chapelle, O. (2007). Training a support vector machine in the primal. Neural
Computation 19(5), 1155-1178.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax

from ..linalg import cho_solve, eigh_psd, robust_cholesky
from .losses import LOSSES, get_loss
from .line_search import PIECEWISE_QUADRATIC, exact_step_length, pieces

__all__ = ["NewtonResult", "newton_dual", "lbfgs_dual", "lbfgs_multinomial",
           "multinomial_objective", "spectral_basis"]

_SQUARED = LOSSES["squared"]
#: A piecewise-quadratic Newton step whose exact line search finds no decrease
#: stops the iteration; it has converged if its decrement^2 is below this times |J|
#: (round-off of J, a sum of n terms: ~n eps, so 1e-12 covers n up to ~4,500 at
#: float64's eps; above it the stop is reported as not converged and warned).
ROUND_OFF_DECREMENT = 1e-12


@dataclass(frozen=True)
class NewtonResult:
    """What the u-space solvers return.

    Attributes
    ----------
    coef : ndarray of shape (n,) or (n, n_classes)
        Dual coefficients u.
    n_iter : int
    objective : float
        J(u) at ``coef``.
    converged : bool
    grad_norm : float or None
        Norm of J's gradient in the feature space at ``coef``, ||lam w + (1/n)
        sum_i s_i l'_i psi(x_i)|| = sqrt(g'Kg) with g = lam u + s l'(Ku)/n (the
        same number whatever the representation).
    direct_steps : int
        :func:`~kernelkit.solvers.newton_cg.newton_cg_dual`: how many Newton steps
        were solved by a factorisation because CG would have cost more.
    intercept : float
        The unpenalised intercept b of f = Ku + b (0 unless fitted:
        :func:`~kernelkit.solvers.newton_intercept.newton_intercept_dual`,
        ``lbfgs_dual(fit_intercept=True)``).
    """

    coef: np.ndarray
    n_iter: int
    objective: float
    converged: bool
    grad_norm: float | None = None
    direct_steps: int = 0
    intercept: float = 0.0


def _matvec(K, v):
    return K @ v if isinstance(K, np.ndarray) else (K.matvec(v) if v.ndim == 1 else K.matmat(v))


def _armijo(loss, lam, u, f, y, sw, J, step, Kstep, slope):
    """Line search along ``step``; the new ``u``, ``f = K u`` and objective. Shared by
    the Newton solvers.

    Piecewise-quadratic losses (squared, Huber, squared hinge) move to the exact
    minimiser along ``step`` (:func:`~kernelkit.solvers.line_search.exact_step_length`,
    which makes Newton's method finite); the others backtrack (Armijo: sufficient
    decrease 1e-4 x t x slope, t halved down to 1e-10).
    """
    if loss.name in PIECEWISE_QUADRATIC:
        t = exact_step_length(loss, lam, u, f, y, sw, step, Kstep)
        u_new, f_new = u + t * step, f + t * Kstep
        J_new = _objective(loss, lam, u_new, f_new, y, sw)
        if J_new <= J:  # round-off aside, the exact minimiser decreases J
            return u_new, f_new, J_new
    t = 1.0
    while True:
        u_new, f_new = u + t * step, f + t * Kstep
        J_new = _objective(loss, lam, u_new, f_new, y, sw)
        if J_new <= J + 1e-4 * t * slope or t < 1e-10:
            return u_new, f_new, J_new
        t *= 0.5


def _objective(loss, lam, u, f, y, sample_weight=None):
    if sample_weight is None:
        return 0.5 * lam * float(u @ f) + float(np.mean(loss.value(f, y)))
    return 0.5 * lam * float(u @ f) + float(np.mean(sample_weight * loss.value(f, y)))


def _weighted(values, sample_weight):
    return values if sample_weight is None else sample_weight * values


def _rkhs_norm(g, Kg):
    """sqrt(g'Kg), clipped at 0 against round-off."""
    return float(np.sqrt(max(float(g @ Kg), 0.0)))


def newton_dual(K, y, loss, lam, *, tol=1e-8, max_iter=50, u0=None, sample_weight=None,
                callback=None):
    """Newton's method (IRLS) on J(u) for a smooth loss.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix (not modified).
    y : ndarray of shape (n,)
    loss : str or Loss
        squared, logistic, squared_hinge or huber (not hinge: it has no
        curvature, use SGD).
    lam : float
        > 0.
    tol : float, default=1e-8
        Stop when the Newton decrement sqrt(-grad'step) is below
        ``tol * sqrt(max(1, |J|))`` (the objective gap is then ~tol^2 relative).
    max_iter : int, default=50
    u0 : ndarray of shape (n,), optional
        Warm start.
    sample_weight : ndarray of shape (n,), optional
        s_i >= 0 multiplying each sample's loss: J = (lam/2) u'Ku + (1/n) sum s_i l_i.
    callback : callable, optional
        Called as ``callback(it, grad_norm)`` after each step's gradient.

    Returns
    -------
    NewtonResult
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    nl = n * lam
    sw = sample_weight
    u = np.zeros(n) if u0 is None else np.array(u0, dtype=np.float64)
    f = K @ u
    J = _objective(loss, lam, u, f, y, sw)
    converged = False
    it = 0
    grad_norm = None
    for it in range(1, max_iter + 1):
        model = _step_model(loss, it, u0)
        g = lam * u + _weighted(model.derivative(f, y), sw) / n
        r = -n * g
        s = np.sqrt(_weighted(model.second_derivative(f, y), sw))
        B = (s[:, None] * K) * (s[None, :] / nl)
        B.flat[:: n + 1] += 1.0
        Kr = K @ r
        grad_norm = float(np.sqrt(max(-float(g @ Kr) / n, 0.0)))  # g'Kg = -g'Kr / n
        if callback is not None:
            callback(it, grad_norm)
        q = cho_solve(robust_cholesky(B, overwrite_a=True), s * Kr / nl)
        step = (r - s * q) / nl
        Kstep = K @ step
        slope = float(g @ Kstep)  # grad' step = (K g)' step
        if model is loss and -slope <= (tol ** 2) * max(1.0, abs(J)):
            converged = True
            break
        before = pieces(loss, f, y) if model is loss and loss.name in PIECEWISE_QUADRATIC \
            else None
        u_new, f_new, J_new = _armijo(loss, lam, u, f, y, sw, J, step, Kstep, slope)
        if model is loss and loss.name in PIECEWISE_QUADRATIC and not J_new < J:
            # No decrease along a descent direction: the decrement is at J's round-off.
            converged = -slope <= ROUND_OFF_DECREMENT * max(1.0, abs(J))
            break
        u, f, J = u_new, f_new, J_new
        if before is not None and np.array_equal(before, pieces(loss, f, y)):
            # Finite termination: the exact step minimised the quadratic of this piece
            # and landed on the same piece, so u minimises J (Keerthi & DeCoste 2005):
            # no further factorisation to confirm it.
            g = lam * u + _weighted(loss.derivative(f, y), sw) / n
            grad_norm = _rkhs_norm(g, K @ g)
            converged = True
            break
    return NewtonResult(u, it, J, converged, grad_norm)


def _step_model(loss, it, u0):
    """The loss whose gradient and curvature give Newton's step ``it``.

    Huber's first step from u = 0 is the squared loss's (the kernel ridge
    solution (K + n lam I)^-1 y), followed by the exact line search on Huber's
    objective. From u = 0 Huber's curvature is zero on every sample with
    |y_i| > epsilon (all of them for an uncentred target), so its own Newton
    steps would grow the quadratic set a few samples at a time: on cpu_act
    (n = 500, alpha = 1e-3) 24 steps instead of 4. The squared-loss solution
    has the small residuals of the solution at small alpha, and the line
    search shrinks it along its ray to Huber's best point at large alpha. Every
    other step, and every step from a warm start, uses ``loss`` itself (the
    stopping test is never made on this surrogate step).
    """
    if it == 1 and u0 is None and loss.name == "huber":
        return _SQUARED
    return loss


def _spectral_basis(K):
    """B (n, r) and P (n, r) with K = B B' and u = P v, from K's eigendecomposition.

    Eigenvalues below 1e-12 of the largest are dropped: those directions carry
    no function (numerically) and would make the change of variables singular.
    """
    w, Q = eigh_psd(np.array(K, dtype=np.float64), overwrite_a=True)
    keep = w > 1e-12 * max(w[-1], np.finfo(float).tiny)
    root = np.sqrt(w[keep])
    return Q[:, keep] * root, Q[:, keep] / root


#: ``(B, P)`` with K = B B' and u = P v: the basis in which L-BFGS solves a stored K
#: (``lbfgs_multinomial(basis=...)`` reuses it along a regularisation path).
spectral_basis = _spectral_basis


def _minimize(fun, x0, tol, max_iter, callback=None):
    """scipy's L-BFGS-B; ``callback(it, grad_norm)`` per iteration, with the norm of
    the gradient last evaluated (that of the accepted point, as a rule)."""
    last = {"grad": np.nan}

    def tracked(x):
        value, grad = fun(x)
        last["grad"] = grad
        return value, grad

    count = [0]

    def step(_):
        count[0] += 1
        callback(count[0], float(np.linalg.norm(last["grad"])))

    return minimize(tracked if callback is not None else fun, x0, jac=True,
                    method="L-BFGS-B", callback=step if callback is not None else None,
                    options={"maxiter": int(max_iter), "gtol": tol, "ftol": tol ** 2,
                             "maxcor": 20})


def lbfgs_dual(K, y, loss, lam, *, tol=1e-8, max_iter=1000, u0=None, sample_weight=None,
               callback=None, fit_intercept=False):
    """L-BFGS (scipy) on J for a smooth loss.

    Parameters
    ----------
    K : ndarray of shape (n, n), or an operator with ``matvec`` (GramOperator)
        A stored K is used through its eigendecomposition K = B B': the
        problem becomes (lam/2)||v||^2 + (1/n) sum l((Bv)_i), u = P v, which is
        as well conditioned as the primal problem (an O(n^3) eigh once, like
        one Newton step). An operator is solved in u itself with gradient
        K (lam u + l'(Ku)/n), 2 products per evaluation, never storing K, but
        u-space is conditioned like K^2: expect many more iterations.
    y, loss, lam : as :func:`newton_dual`
    tol : float, default=1e-8
        scipy's ``gtol`` (largest gradient entry); ``ftol`` is ``tol**2``.
    max_iter : int, default=1000
    u0 : ndarray of shape (n,), optional
        Warm start (operator form only).
    sample_weight : ndarray of shape (n,), optional
        As :func:`newton_dual`.
    callback : callable, optional
        ``callback(it, grad_norm)`` per iteration (the norm of the gradient in
        the variables L-BFGS works in).
    fit_intercept : bool, default=False
        Also fit an unpenalised intercept b, f = Ku + b (one more variable,
        whose gradient is (1/n) sum_i s_i l'_i; it starts at 0).

    Returns
    -------
    NewtonResult
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    return _lbfgs(K, y, loss, lam, tol, max_iter, u0, sample_weight, callback,
                  bool(fit_intercept))


def _lbfgs(K, y, loss, lam, tol, max_iter, u0, sw, callback, intercept):
    """:func:`lbfgs_dual`: variables v on a stored K (f = Bv, u = P v, penalty
    (lam/2)||v||^2), else u with products with K (penalty (lam/2) u'Ku); with an
    unpenalised intercept b appended as the last variable (f + b, gradient
    (1/n) sum_i s_i l'_i)."""
    n = len(y)
    stored = isinstance(K, np.ndarray)
    if stored:
        B, P = _spectral_basis(K)
    r = B.shape[1] if stored else n

    def fun(x):
        c = x[:r]
        Kc = B @ c if stored else _matvec(K, c)
        f = Kc + x[r] if intercept else Kc
        lp = _weighted(loss.derivative(f, y), sw) / n
        if stored:
            value = 0.5 * lam * float(c @ c) + float(np.mean(_weighted(loss.value(f, y), sw)))
            grad = lam * c + B.T @ lp
        else:
            value = 0.5 * lam * float(c @ Kc) + float(np.mean(_weighted(loss.value(f, y), sw)))
            grad = _matvec(K, lam * c + lp)
        return value, (np.append(grad, lp.sum()) if intercept else grad)

    x0 = np.zeros(r + intercept)
    if u0 is not None and not stored:  # a warm start in u (operator form only)
        x0[:n] = u0
    res = _minimize(fun, x0, tol, max_iter, callback)
    c = res.x[:r]
    u = P @ c if stored else c
    if stored and not intercept:
        # In v the gradient is B'g, whose norm is sqrt(g'Kg): the feature-space one.
        return NewtonResult(u, int(res.nit), float(res.fun), bool(res.success),
                            float(np.linalg.norm(res.jac)))
    b = float(res.x[r]) if intercept else 0.0
    f = _matvec(K, u) + b  # the feature-space norm needs g itself, not K g
    lp = _weighted(loss.derivative(f, y), sw) / n
    g = lam * u + lp
    grad = _rkhs_norm(g, _matvec(K, g))
    if not intercept:
        return NewtonResult(u, int(res.nit), float(res.fun), bool(res.success), grad)
    return NewtonResult(u, int(res.nit), float(res.fun), bool(res.success),
                        float(np.hypot(grad, lp.sum())), intercept=b)


def multinomial_objective(F, Y, U, lam):
    """(lam/2) tr(U'F) + (1/n) sum_i [logsumexp(F_i) - F_i'Y_i], F = K U, Y one-hot."""
    n = len(Y)
    return 0.5 * lam * float(np.sum(U * F)) - float(np.sum(Y * log_softmax(F, axis=1))) / n


def lbfgs_multinomial(K, Y, lam, *, tol=1e-8, max_iter=1000, sample_weight=None,
                      callback=None, u0=None, basis=None):
    """Multinomial (softmax) logistic regression in u-space by L-BFGS.

    Parameters
    ----------
    K : ndarray of shape (n, n) or an operator with ``matmat``
        As in :func:`lbfgs_dual` (a stored K is solved in its spectral basis).
    Y : ndarray of shape (n, n_classes)
        One-hot labels.
    lam : float
    tol, max_iter : as :func:`lbfgs_dual`
    sample_weight : ndarray of shape (n,), optional
        s_i >= 0 multiplying each sample's cross-entropy.
    callback : callable, optional
        As :func:`lbfgs_dual`.
    u0 : ndarray of shape (n, n_classes), optional
        Warm start (e.g. the solution at a neighbouring lam).
    basis : tuple of ndarray, optional
        ``spectral_basis(K)`` computed once for several lam on the same stored K
        (a regularisation path): saves the eigendecomposition per solve.

    Returns
    -------
    NewtonResult
        ``coef`` of shape (n, n_classes). Softmax is shift-invariant, but the
        penalty makes the solution unique (its classes' scores sum to 0).
    """
    Y = np.asarray(Y, dtype=np.float64)
    n, c = Y.shape
    # Weights enter as weighted one-hot rows: s_i (softmax(F_i) - Y_i) is the
    # gradient of s_i times the cross-entropy, whose value is s_i logsumexp - ...
    sw = None if sample_weight is None else np.asarray(sample_weight, np.float64)[:, None]
    if isinstance(K, np.ndarray):
        B, P = _spectral_basis(K) if basis is None else basis
        r = B.shape[1]

        def fun_v(x):
            V = x.reshape(r, c)
            F = B @ V
            if sw is None:
                G = lam * V + B.T @ ((softmax(F, axis=1) - Y) / n)  # log-sum-exp safe
                obj = (0.5 * lam * float(np.sum(V * V))
                       - float(np.sum(Y * log_softmax(F, axis=1))) / n)
            else:
                G = lam * V + B.T @ (sw * (softmax(F, axis=1) - Y) / n)
                obj = (0.5 * lam * float(np.sum(V * V))
                       - float(np.sum(sw * Y * log_softmax(F, axis=1))) / n)
            return obj, G.ravel()

        # u = P v and K = B B' with B = Q sqrt(w), P = Q / sqrt(w): v = B' u
        x0 = np.zeros(r * c) if u0 is None else (B.T @ np.asarray(u0, np.float64)).ravel()
        res = _minimize(fun_v, x0, tol, max_iter, callback)
        return NewtonResult(P @ res.x.reshape(r, c), int(res.nit), float(res.fun),
                            bool(res.success), float(np.linalg.norm(res.jac)))

    def gradient_factor(U, F):
        P = softmax(F, axis=1) - Y
        return lam * U + (P if sw is None else sw * P) / n

    def fun(x):
        U = x.reshape(n, c)
        F = _matvec(K, U)
        G = gradient_factor(U, F)
        obj = (multinomial_objective(F, Y, U, lam) if sw is None else
               0.5 * lam * float(np.sum(U * F))
               - float(np.sum(sw * Y * log_softmax(F, axis=1))) / n)
        return obj, _matvec(K, G).ravel()

    x0 = np.zeros(n * c) if u0 is None else np.asarray(u0, np.float64).ravel()
    res = _minimize(fun, x0, tol, max_iter, callback)
    U = res.x.reshape(n, c)
    G = gradient_factor(U, _matvec(K, U))
    return NewtonResult(U, int(res.nit), float(res.fun), bool(res.success),
                        float(np.sqrt(max(float(np.sum(G * _matvec(K, G))), 0.0))))
