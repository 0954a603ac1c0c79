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
the squared loss the first step is the exact (K + n lam I)^-1 y.

L-BFGS (scipy) runs on a stored K through its eigendecomposition K = B B'
(then the problem is the well-conditioned primal one in v, u = P v), or on a
:class:`~kernelkit.gram.GramOperator` that never stores K (then in u, with
products with K only). The multinomial (softmax) logistic loss is solved by
it, U of shape (n, n_classes).

Pure numerics: no validation, no printing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax

from ..linalg import cho_solve, eigh_psd, robust_cholesky
from .losses import get_loss

__all__ = ["NewtonResult", "newton_dual", "newton_cg_dual", "pivoted_cholesky", "lbfgs_dual",
           "lbfgs_multinomial",
           "multinomial_objective"]


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
    """

    coef: np.ndarray
    n_iter: int
    objective: float
    converged: bool
    grad_norm: float | None = None


def _matvec(K, v):
    return K @ v if isinstance(K, np.ndarray) else (K.matvec(v) if v.ndim == 1 else K.matmat(v))


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
        g = lam * u + _weighted(loss.derivative(f, y), sw) / n
        r = -n * g
        s = np.sqrt(_weighted(loss.second_derivative(f, y), sw))
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
        if -slope <= (tol ** 2) * max(1.0, abs(J)):
            converged = True
            break
        t = 1.0
        while True:  # Armijo backtracking
            u_new, f_new = u + t * step, f + t * Kstep
            J_new = _objective(loss, lam, u_new, f_new, y, sw)
            if J_new <= J + 1e-4 * t * slope or t < 1e-10:
                break
            t *= 0.5
        u, f, J = u_new, f_new, J_new
    return NewtonResult(u, it, J, converged, grad_norm)


def _spectral_basis(K):
    """B (n, r) and P (n, r) with K = B B' and u = P v, from K's eigendecomposition.

    Eigenvalues below 1e-12 of the largest are dropped: those directions carry
    no function (numerically) and would make the change of variables singular.
    """
    w, Q = eigh_psd(np.array(K, dtype=np.float64), overwrite_a=True)
    keep = w > 1e-12 * max(w[-1], np.finfo(float).tiny)
    root = np.sqrt(w[keep])
    return Q[:, keep] * root, Q[:, keep] / root


def _minimize(fun, x0, tol, max_iter, callback=None):
    """scipy's L-BFGS-B; ``callback(it, grad_norm)`` per iteration, with the norm of
    the gradient last evaluated (that of the accepted point, as a rule)."""
    last = {"grad": np.nan}

    def tracked(x):
        value, grad = fun(x)
        last["grad"] = grad
        return value, grad

    step = None
    if callback is not None:
        count = [0]

        def step(_):
            count[0] += 1
            callback(count[0], float(np.linalg.norm(last["grad"])))

    return minimize(tracked if callback is not None else fun, x0, jac=True,
                    method="L-BFGS-B", callback=step,
                    options={"maxiter": int(max_iter), "gtol": tol, "ftol": tol ** 2,
                             "maxcor": 20})


def lbfgs_dual(K, y, loss, lam, *, tol=1e-8, max_iter=1000, u0=None, sample_weight=None,
               callback=None):
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

    Returns
    -------
    NewtonResult
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    sw = sample_weight
    if isinstance(K, np.ndarray):
        B, P = _spectral_basis(K)

        def fun_v(v):
            f = B @ v
            if sw is None:
                return (0.5 * lam * float(v @ v) + float(np.mean(loss.value(f, y))),
                        lam * v + B.T @ (loss.derivative(f, y) / n))
            return (0.5 * lam * float(v @ v) + float(np.mean(sw * loss.value(f, y))),
                    lam * v + B.T @ (sw * loss.derivative(f, y) / n))

        res = _minimize(fun_v, np.zeros(B.shape[1]), tol, max_iter, callback)
        # In v the gradient is B'g, whose norm is sqrt(g'Kg): the feature-space one.
        return NewtonResult(P @ res.x, int(res.nit), float(res.fun), bool(res.success),
                            float(np.linalg.norm(res.jac)))

    def fun(u):
        f = _matvec(K, u)
        g = lam * u + _weighted(loss.derivative(f, y), sw) / n
        return _objective(loss, lam, u, f, y, sw), _matvec(K, g)

    u0 = np.zeros(n) if u0 is None else np.asarray(u0, dtype=np.float64)
    res = _minimize(fun, u0, tol, max_iter, callback)
    f = _matvec(K, res.x)  # the feature-space norm needs g itself, not K g
    g = lam * res.x + _weighted(loss.derivative(f, y), sw) / n
    return NewtonResult(res.x, int(res.nit), float(res.fun), bool(res.success),
                        _rkhs_norm(g, _matvec(K, g)))


def multinomial_objective(F, Y, U, lam):
    """(lam/2) tr(U'F) + (1/n) sum_i [logsumexp(F_i) - F_i'Y_i], F = K U, Y one-hot."""
    n = len(Y)
    return 0.5 * lam * float(np.sum(U * F)) - float(np.sum(Y * log_softmax(F, axis=1))) / n


def lbfgs_multinomial(K, Y, lam, *, tol=1e-8, max_iter=1000, sample_weight=None,
                      callback=None):
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
        B, P = _spectral_basis(K)
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

        res = _minimize(fun_v, np.zeros(r * c), tol, max_iter, callback)
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

    res = _minimize(fun, np.zeros(n * c), tol, max_iter, callback)
    U = res.x.reshape(n, c)
    G = gradient_factor(U, _matvec(K, U))
    return NewtonResult(U, int(res.nit), float(res.fun), bool(res.success),
                        float(np.sqrt(max(float(np.sum(G * _matvec(K, G))), 0.0))))


# --------------------------------------------------------------------------
# Newton with a preconditioned CG inner solve (no n x n factorisation)

#: Largest rank of the pivoted-Cholesky preconditioner (n x rank floats).
PRECONDITIONER_MAX_RANK = 500


def pivoted_cholesky(K, max_rank, trace_tol=0.0):
    """Partial pivoted Cholesky K ~ L L' (greedy largest-residual-diagonal pivots).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric PSD (only the rows ``K[p]`` of the pivots are read).
    max_rank : int
    trace_tol : float, default=0.0
        Stop once the trace of the residual K - L L' is at most this.

    Returns
    -------
    L : ndarray of shape (n, m), m <= max_rank
        ``L[pivots]`` is lower triangular: the Cholesky factor of K[pivots][:, pivots].
    pivots : ndarray of shape (m,)
    residual_trace : float
        trace(K - L L') (>= ||K - L L'||_2, since the residual is PSD).

    References
    ----------
    Harbrecht, H., Peters, M. and Schneider, R. (2012). On the low-rank
    approximation by the pivoted Cholesky decomposition. Applied Numerical
    Mathematics 62(4), 428-440.
    """
    n = K.shape[0]
    m_max = int(min(n, max_rank))
    d = np.array(np.diagonal(K), dtype=np.float64)
    L = np.zeros((n, m_max), order="F")
    pivots = np.zeros(m_max, dtype=np.int64)
    m = 0
    trace = float(d.sum())
    while m < m_max and trace > trace_tol:
        p = int(np.argmax(d))
        if not d[p] > 1e-12 * max(1.0, float(K[p, p])):
            break
        col = np.array(K[p], dtype=np.float64)
        if m:
            col -= L[:, :m] @ L[p, :m]
        col /= np.sqrt(d[p])
        col[pivots[:m]] = 0.0  # exact zeros above the diagonal of L[pivots]
        L[:, m] = col
        pivots[m] = p
        d -= col * col
        d[p] = 0.0
        np.maximum(d, 0.0, out=d)
        m += 1
        trace = float(d.sum())
    return L[:, :m], pivots[:m], trace


class _LowRankPreconditioner:
    """P^-1 for B = I + S K S / nl with K ~ L L' (Woodbury):
    P^-1 v = v - S L (nl I + L' W L)^-1 L' S v, refactored (m x m) per Newton step.

    P is exact in the curvature weights W = S^2, which change every step, and
    approximates only K, which does not; S L L' S <= S K S, so the preconditioned
    spectrum lies in [1, 1 + max(W) ||K - L L'|| / nl].
    """

    def __init__(self, L, nl):
        self.L, self.nl = L, nl

    def update(self, w):
        self.s = np.sqrt(w)
        m = self.L.shape[1]
        if m:
            M = self.L.T @ (w[:, None] * self.L)
            M.flat[:: m + 1] += self.nl
            self.chol = robust_cholesky(M, overwrite_a=True)

    def __call__(self, v):
        if not self.L.shape[1]:
            return v.copy()
        return v - self.s * (self.L @ cho_solve(self.chol, self.L.T @ (self.s * v)))


def _newton_step_cg(K, g, Kg, lam, precond, eta, max_iter):
    """Inexact Newton step p (and Kp) by preconditioned CG on B q = S K g / (n lam).

    B = I + S K S / (n lam) and p = -(g - S q) / lam (the symmetric form of
    (n lam I + W K) p = -n g). With r_k = B q_k - b, the step's error in the
    Hessian norm of the feature space is ||dw||_H^2 = n r_k'(I - B^-1) r_k <=
    n ||r_k||^2, and the Newton decrement^2 is -g'K p; CG stops once
    n ||r_k||^2 <= eta^2 (-g'K p_k), the inexact-Newton condition measured
    where it matters (a residual relative to ||b|| would be amplified up to
    cond(B) times in the step).
    """
    n = len(g)
    s = precond.s
    nl = n * lam
    b = s * Kg / nl
    q = np.zeros(n)
    KSq = np.zeros(n)
    res = b.copy()
    z = precond(res)
    p = z
    rz = float(res @ z)
    gKg = float(g @ Kg)
    it = 0
    for it in range(1, max_iter + 1):
        KSp = K @ (s * p)
        Bp = p + s * KSp / nl
        a = rz / float(p @ Bp)
        q += a * p
        KSq += a * KSp
        res -= a * Bp
        decrement2 = (gKg - float(g @ KSq)) / lam
        if n * float(res @ res) <= eta * eta * max(decrement2, 0.0):
            break
        z = precond(res)
        rz_new = float(res @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return -(g - s * q) / lam, -(Kg - KSq) / lam, it


def newton_cg_dual(K, y, loss, lam, *, tol=1e-8, max_iter=50, sample_weight=None,
                   callback=None, max_rank=PRECONDITIONER_MAX_RANK, cg_max_iter=1000):
    """Inexact Newton on J(u) with a preconditioned CG inner solve: O(n^2) per inner step.

    The same outer iteration and stopping rule as :func:`newton_dual`
    (Newton step, Armijo backtracking, stop on the Newton decrement), but the
    system B = I + S K S / (n lam) is never formed or factored: CG needs one
    product with the stored K per iteration. The preconditioner is B with K
    replaced by a pivoted-Cholesky factor L L' (rank <= ``max_rank``, computed
    once in O(n m^2)) and inverted by Woodbury in O(n m^2) per Newton step
    (:class:`_LowRankPreconditioner`). CG stops when the step's error in the
    Hessian norm is below eta_k times the Newton decrement, with the forcing
    term eta_k = min(0.1, |grad_k| / |grad_0|) (Eisenstat & Walker: loose far
    from the optimum, tight near it, which keeps Newton's fast local convergence).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y, loss, lam, tol, max_iter, sample_weight, callback : as :func:`newton_dual`
    max_rank : int, default=PRECONDITIONER_MAX_RANK
        Largest rank of the preconditioner, also at most 3 sqrt(n) (it stops
        earlier once the residual
        trace is below n lam / sup(l''), which keeps the preconditioned
        spectrum within [1, 2]).
    cg_max_iter : int, default=1000
        CG iterations per Newton step.

    Returns
    -------
    NewtonResult

    References
    ----------
    Eisenstat, S. C. and Walker, H. F. (1996). Choosing the forcing terms in an
    inexact Newton method. SIAM J. Sci. Comput. 17(1), 16-32.
    Frangella, Z., Tropp, J. A. and Udell, M. (2023). Randomized Nystrom
    preconditioning. SIAM J. Matrix Anal. Appl. 44(2), 718-752 (a low-rank
    K in a Woodbury preconditioner).
    """
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    nl = n * lam
    sw = sample_weight
    w_max = _CURVATURE_BOUND.get(loss.name, 1.0) * (1.0 if sw is None else float(np.max(sw)))
    # Rank <= 3 sqrt(n): the preconditioner's O(n m^2) per Newton step then costs
    # at most ~9 products with K, whatever n.
    rank = min(int(max_rank), int(3 * np.sqrt(n)))
    L, _, _ = pivoted_cholesky(K, rank, trace_tol=nl / max(w_max, 1e-300))
    precond = _LowRankPreconditioner(L, nl)
    u = np.zeros(n)
    f = np.zeros(n)
    J = _objective(loss, lam, u, f, y, sw)
    converged = False
    grad_norm = grad0 = None
    it = 0
    for it in range(1, max_iter + 1):
        lp = _weighted(loss.derivative(f, y), sw)
        g = lam * u + lp / n
        Kg = lam * f + (K @ lp) / n
        grad_norm = float(np.sqrt(max(float(g @ Kg), 0.0)))
        if callback is not None:
            callback(it, grad_norm)
        if grad0 is None:
            grad0 = max(grad_norm, np.finfo(float).tiny)
        precond.update(_weighted(loss.second_derivative(f, y), sw))
        eta = min(0.1, grad_norm / grad0)
        step, Kstep, cg_it = _newton_step_cg(K, g, Kg, lam, precond, eta, cg_max_iter)
        slope = float(g @ Kstep)
        if -slope <= (tol ** 2) * max(1.0, abs(J)):
            converged = True
            break
        t = 1.0
        while True:  # Armijo backtracking
            u_new, f_new = u + t * step, f + t * Kstep
            J_new = _objective(loss, lam, u_new, f_new, y, sw)
            if J_new <= J + 1e-4 * t * slope or t < 1e-10:
                break
            t *= 0.5
        u, f, J = u_new, f_new, J_new
    return NewtonResult(u, it, J, converged, grad_norm)


# sup l'' of the smooth losses (the generalised one for squared_hinge and huber).
_CURVATURE_BOUND = {"squared": 1.0, "logistic": 0.25, "squared_hinge": 1.0, "huber": 1.0}
