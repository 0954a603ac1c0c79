"""Newton's method on the u-space objective with a preconditioned CG inner solve.

The objective, iteration and stopping rule of
:func:`kernelkit.solvers.newton.newton_dual`, without factoring an n x n
matrix per step: O(n^2) per CG iteration (a product with the stored K), a
pivoted-Cholesky Woodbury preconditioner computed once.

Pure numerics: no validation, no printing.
"""

from __future__ import annotations

import numpy as np

from .._budget import fits
from ..linalg import cho_solve, robust_cholesky
from .losses import get_loss
from .line_search import PIECEWISE_QUADRATIC
from .newton import (ROUND_OFF_DECREMENT, NewtonResult, _armijo, _objective, _step_model,
                     _weighted)

__all__ = ["newton_cg_dual", "pivoted_cholesky", "PRECONDITIONER_MAX_RANK"]

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
    return -(g - s * q) / lam, -(Kg - KSq) / lam, it, it < max_iter or n * float(
        res @ res) <= eta * eta * max(decrement2, 0.0)


def _newton_step_direct(K, g, Kg, lam, s):
    """Newton's step p (and Kp) by one Cholesky factorisation, of B on the samples
    with curvature only.

    B = I + S K S / (n lam) is the identity on the samples whose curvature
    s_i^2 is 0 (q_i = 0 there), so only the m x m block of the others is formed
    and factored: m^3/3 flops, m = n for the logistic loss, the quadratic set
    for Huber and the squared hinge.
    """
    n = len(g)
    nl = n * lam
    active = np.flatnonzero(s > 0.0)
    sq = np.zeros(n)
    if active.size:
        sa = s[active]
        B = K[np.ix_(active, active)]
        B *= sa[:, None] * (sa[None, :] / nl)
        B.flat[:: active.size + 1] += 1.0
        sq[active] = sa * cho_solve(robust_cholesky(B, overwrite_a=True), sa * Kg[active] / nl)
    step = -(g - sq) / lam
    return step, K @ step  # not -(Kg - K sq) / lam: its cancellation / lam floors the decrement


def _cg_budget(n):
    """CG iterations per Newton step worth about one direct step on n samples.

    A Cholesky factorisation (n^3/3 flops at BLAS-3 speed) costs about as much
    as n/20 products with K (2 n^2 flops each, memory-bound BLAS-2, about 7x
    slower per flop on this project's 2-core reference machine: measured
    n/30..n/6 at n = 1,000-4,000). Never below 30.
    """
    return max(30, n // 20)


def newton_cg_dual(K, y, loss, lam, *, tol=1e-8, max_iter=50, u0=None, sample_weight=None,
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
    from the optimum, tight near it, which keeps Newton's fast local convergence;
    at most 1e-3 for Huber and the squared hinge, whose steps decide the next
    active set).

    At small lam, B's condition number grows like max(W) ||K|| / (n lam) and CG
    with it: a step whose CG has not met its target after about one
    factorisation's worth of products (:func:`_cg_budget`) is solved by a
    Cholesky factorisation of B's block on the samples with curvature
    (:func:`_newton_step_direct`), and so is every later step (counted in
    ``direct_steps``), when that block fits the memory budget. The work is then
    never much more than the better of the two: on cpu_act (n = 2,000, Huber,
    alpha 1e-2) CG alone needed 60-100 products per step and 18 steps.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y, loss, lam, tol, max_iter, u0, sample_weight, callback : as :func:`newton_dual`
        (a warm start ``u0`` costs one product with K).
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
    u = np.zeros(n) if u0 is None else np.array(u0, dtype=np.float64)
    f = np.zeros(n) if u0 is None else K @ u
    J = _objective(loss, lam, u, f, y, sw)
    converged = False
    grad_norm = grad0 = None
    it = 0
    direct, direct_steps = False, 0
    for it in range(1, max_iter + 1):
        model = _step_model(loss, it, u0)
        lp = _weighted(model.derivative(f, y), sw)
        g = lam * u + lp / n
        Kg = lam * f + (K @ lp) / n
        grad_norm = float(np.sqrt(max(float(g @ Kg), 0.0)))
        if callback is not None:
            callback(it, grad_norm)
        if grad0 is None:  # the forcing terms' scale: the gradient norm at u = 0, so a
            # warm start (small gradient) is solved as tightly as a cold start would be
            grad0 = max(grad_norm if u0 is None else _zero_gradient_norm(K, loss, y, sw),
                        np.finfo(float).tiny)
        precond.update(_weighted(model.second_derivative(f, y), sw))
        eta = min(_FORCING_MAX.get(loss.name, 0.1), grad_norm / grad0)
        if not direct:
            budget = min(int(cg_max_iter), _cg_budget(n))
            step, Kstep, cg_it, reached = _newton_step_cg(K, g, Kg, lam, precond, eta, budget)
            # A step whose CG needs more than a factorisation's worth of products
            # (small lam: B's condition ~ ||K|| / (n lam)) is solved directly,
            # and so are the later ones, when the m x m block fits the budget.
            direct = not reached and fits(8.0 * np.count_nonzero(precond.s) ** 2)
        if direct:
            step, Kstep = _newton_step_direct(K, g, Kg, lam, precond.s)
            direct_steps += 1
        slope = float(g @ Kstep)
        if model is loss and -slope <= (tol ** 2) * max(1.0, abs(J)):
            converged = True
            break
        u_new, f_new, J_new = _armijo(loss, lam, u, f, y, sw, J, step, Kstep, slope)
        if model is loss and loss.name in PIECEWISE_QUADRATIC and not J_new < J:
            # No decrease along a descent direction: the decrement is at J's round-off.
            converged = -slope <= ROUND_OFF_DECREMENT * max(1.0, abs(J))
            break
        u, f, J = u_new, f_new, J_new
    return NewtonResult(u, it, J, converged, grad_norm, direct_steps)


def _zero_gradient_norm(K, loss, y, sw):
    """sqrt(g'Kg) at u = 0, g = l'(0; y) / n: one product with K."""
    g = _weighted(loss.derivative(np.zeros(len(y)), y), sw) / len(y)
    return float(np.sqrt(max(float(g @ (K @ g)), 0.0)))


# sup l'' of the smooth losses (the generalised one for squared_hinge and huber).
_CURVATURE_BOUND = {"squared": 1.0, "logistic": 0.25, "squared_hinge": 1.0, "huber": 1.0}

# Largest forcing term eta_k per loss. On the piecewise-quadratic losses the step
# decides which samples are on the quadratic piece next (the finite Newton method's
# active set): a loose step (eta = 0.1) on cpu_act (n = 2,000, alpha = 1e-2, Huber)
# grows that set a few hundred samples per step, 18 steps against 7 with exact steps.
_FORCING_MAX = {"huber": 1e-3, "squared_hinge": 1e-3}
