"""Box-constrained empirical risk minimisation: the weighted sum of random kitchen sinks.

Rahimi & Recht (2008) fit f(x) = sum_{i=1}^q beta_i psi(x; w_i) by

    minimise  (1/n) sum_j l(y_j, z_j' beta + b)   subject to  max_i |beta_i| <= B,

with z_j = psi(x_j; w_1..w_q) and B = C / q (the lectures' constrained ERM;
the intercept b is optional and unconstrained). This module solves that
problem for a feature matrix Z of shape (n, q) and one or several target
columns at once (the columns' problems are independent and share the
iterations, so each iteration is one matrix product Z @ beta and one Z' @ D).

Method
------
Accelerated projected gradient (FISTA, Beck & Teboulle 2009) with the
gradient restart of O'Donoghue & Candes (2015): momentum is dropped whenever
it points against the last gradient step. The projection onto the box is a
clip. The step is 1/L with L = c sigma_max([Z, 1])^2 / n, c the curvature
bound of the loss (1 squared, 1/4 logistic, 1/mu smoothed hinge);
sigma_max is estimated by power iteration, which can only underestimate it,
and a backtracking test (the sufficient-decrease inequality of the proximal
gradient step) doubles L whenever the estimate is too small, so every step is
a descent step of the majorant. Scores are linear in the iterates, so the
extrapolated point's scores are combined from stored ones: one product with Z
and one with Z' per iteration (plus one per backtracking retry).

Squared loss with q <= n: the objective is the quadratic
theta'G theta / 2 - c'theta + const in theta = (beta, b), G = [Z, 1]'[Z, 1] / n,
so G (one GEMM, n q^2) replaces Z in the loop and an iteration costs O(q^2)
instead of O(n q); the backtracking test uses d'G d exactly (no difference of
two nearly equal objective values), and the last objective is recomputed
from Z.

Stopping: the gradient mapping G = L (y - x_+) (zero exactly at the
constrained optimum, where it is the KKT residual) has fallen to
``tol`` times its first value (of the first continuation stage, for the
hinge), or ``max_iter`` iterations.

Hinge loss. The hinge is not differentiable, so it is replaced by its Moreau
envelope with parameter mu (the "smoothed hinge"): 0 for margins m >= 1,
(1 - m)^2 / (2 mu) for 1 - mu < m < 1, and 1 - m - mu/2 below. It differs
from the hinge by at most mu/2 everywhere, so the smoothed minimiser is within
mu/2 (plus the optimisation error) of the hinge optimum in objective. mu is
decreased by continuation 1, 0.1, ..., ``smoothing``, each stage warm-started
from the last (the step 1/L shrinks with mu; starting smooth is faster).

Threads. The loop's products have one or a few columns (matrix-vector
products), bound by memory bandwidth, not arithmetic: a second BLAS thread
gains little, and on a busy machine OpenBLAS's spinning threads made them
~50x slower (measured: 40 ms instead of 0.8 ms for a 4000 x 200 product at
load 9 on 2 cores). With fewer than ``_THREADED_MIN_COLUMNS`` target columns
the loop therefore runs with one BLAS thread.

Pure numerics: arrays in, a :class:`BoxERMResult` out; Z is read in float64
(a float32 Z is converted once).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np

from ..linalg import one_blas_thread
from .losses import get_loss

__all__ = ["BoxERMResult", "box_erm", "erm_objective", "lipschitz_estimate"]

_CURVATURE = {"squared": 1.0, "logistic": 0.25}
_THREADED_MIN_COLUMNS = 8


@dataclass(frozen=True)
class BoxERMResult:
    """Output of :func:`box_erm`.

    Attributes
    ----------
    coef : ndarray of shape (q,) or (q, k)
        beta, inside the box [-bound, bound].
    intercept : float or ndarray of shape (k,)
        b (0 without ``fit_intercept``).
    n_iter : int
        Iterations (gradient steps), all continuation stages together.
    converged : bool
        Whether the (last stage's) stopping test was met before ``max_iter``.
    objective : ndarray of shape (n_iter,)
        The minimised objective after each iteration (summed over target
        columns; for the hinge, the smoothed objective of the current stage).
    lipschitz : float
        The final step's L.
    """

    coef: np.ndarray
    intercept: object
    n_iter: int
    converged: bool
    objective: np.ndarray
    lipschitz: float


class _Smooth:
    """Value (summed over columns, averaged over rows) and derivative of a smooth loss.

    ``weights`` (n, 1), of mean 1, multiply each row's loss (sample weights)."""

    def __init__(self, name, mu=None, weights=None):
        self.name, self.mu, self.weights = name, mu, weights
        self.curvature = 1.0 / mu if name == "hinge" else _CURVATURE[name]
        self._loss = None if name == "hinge" else get_loss(name)

    def value(self, S, Y):
        if self._loss is not None:
            v = self._loss.value(S, Y)
        else:
            r = 1.0 - Y * S  # 1 - margin
            mu = self.mu
            v = np.where(r >= mu, r - 0.5 * mu, np.where(r > 0.0, r * r / (2.0 * mu), 0.0))
        if self.weights is not None:
            v = v * self.weights
        return float(v.sum()) / len(S)

    def derivative(self, S, Y):
        if self._loss is not None:
            D = self._loss.derivative(S, Y)
        else:
            D = -Y * np.clip((1.0 - Y * S) / self.mu, 0.0, 1.0)
        return D if self.weights is None else D * self.weights


def erm_objective(Z, y, coef, intercept=0.0, loss="squared"):
    """(1/n) sum_j l(y_j, z_j' beta + b), summed over target columns (the exact hinge).

    Parameters
    ----------
    Z : ndarray of shape (n, q)
    y : ndarray of shape (n,) or (n, k)
    coef : ndarray of shape (q,) or (q, k)
    intercept : float or ndarray of shape (k,)
    loss : {"squared", "logistic", "hinge"}

    Returns
    -------
    float
    """
    S = np.asarray(Z, dtype=np.float64) @ coef + intercept
    return float(get_loss(loss).value(S, y).sum()) / len(S)


def lipschitz_estimate(Z, fit_intercept=False, n_iter=30, seed=0):
    """sigma_max([Z, 1])^2 / n by power iteration on [Z, 1]'[Z, 1] / n (a lower bound).

    Parameters
    ----------
    Z : ndarray of shape (n, q)
    fit_intercept : bool
        Append a column of ones.
    n_iter : int
        Power iterations.
    seed : int
        Seed of the starting vector.

    Returns
    -------
    float
    """
    n, q = Z.shape
    v = np.random.default_rng(seed).standard_normal(q + int(fit_intercept))
    lam = 0.0
    for _ in range(n_iter):
        v /= np.linalg.norm(v)
        s = Z @ v[:q] + (v[q] if fit_intercept else 0.0)
        w = Z.T @ s
        if fit_intercept:
            w = np.append(w, s.sum())
        lam = float(v @ w) / n
        v = w
        if not np.any(v):
            break
    return max(lam, np.finfo(np.float64).tiny)


def box_erm(Z, y, bound, loss="squared", *, fit_intercept=False, max_iter=1000, tol=1e-6,
            smoothing=1e-2, coef0=None, intercept0=None, sample_weight=None):
    """Minimise (1/n) sum_j l(y_j, z_j' beta + b) subject to max_i |beta_i| <= bound.

    With ``sample_weight`` w: (1 / sum w) sum_j w_j l(y_j, z_j' beta + b), so
    integer weights are the same problem as repeated rows.

    Parameters
    ----------
    Z : ndarray of shape (n, q)
        Features psi(x_j; w_i).
    y : ndarray of shape (n,) or (n, k)
        Real targets (squared loss) or labels in {-1, +1} (logistic, hinge);
        with k columns, k independent problems solved together.
    bound : float
        B > 0, the box half-width (``C / q`` in the lectures' notation).
    loss : {"squared", "logistic", "hinge"}, default="squared"
        The hinge is smoothed (see the module notes).
    fit_intercept : bool, default=False
        Add an unconstrained intercept b.
    max_iter : int, default=1000
        Iterations in total (all hinge continuation stages together).
    tol : float, default=1e-6
        Stop when the gradient mapping's norm is ``tol`` times its first value.
    smoothing : float, default=1e-2
        Final hinge smoothing mu (hinge only): objective within mu/2 of the hinge's.
    coef0, intercept0 : ndarray, optional
        Starting point (projected onto the box); default zero.
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights of the rows (not all zero).

    Returns
    -------
    BoxERMResult
    """
    if loss not in ("squared", "logistic", "hinge"):
        raise ValueError(f"loss must be 'squared', 'logistic' or 'hinge', got {loss!r}")
    if not bound > 0:
        raise ValueError(f"bound must be > 0, got {bound!r}")
    Z = np.asarray(Z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    Y = y[:, None] if y.ndim == 1 else y
    n, q = Z.shape
    k = Y.shape[1]
    beta = np.zeros((q, k)) if coef0 is None else np.array(coef0, dtype=np.float64).reshape(q, k)
    np.clip(beta, -bound, bound, out=beta)
    b = np.zeros(k) if intercept0 is None or not fit_intercept \
        else np.array(intercept0, dtype=np.float64).reshape(k)
    weights = None
    if sample_weight is not None:  # scaled to mean 1: the objective stays an average
        sw = np.asarray(sample_weight, dtype=np.float64)
        weights = (sw * (n / sw.sum()))[:, None]
    threads = one_blas_thread() if k < _THREADED_MIN_COLUMNS else contextlib.nullcontext()
    with threads:
        beta, b, n_iter, converged, L, history = _solve(Z, Y, bound, loss, fit_intercept,
                                                        max_iter, tol, smoothing, beta, b,
                                                        weights)
    coef = beta[:, 0] if y.ndim == 1 else beta
    intercept = float(b[0]) if y.ndim == 1 else b
    return BoxERMResult(coef=coef, intercept=intercept, n_iter=n_iter, converged=converged,
                        objective=np.asarray(history), lipschitz=L)


def _solve(Z, Y, bound, loss, fit_intercept, max_iter, tol, smoothing, beta, b, weights=None):
    """The continuation stages (one for the smooth losses)."""
    q = Z.shape[1]
    theta = np.vstack([beta, b[None, :]]) if fit_intercept else beta
    if loss == "hinge":
        mus = [10.0 ** -j for j in range(int(math.ceil(-math.log10(smoothing))))] + [smoothing]
        mus = [m for m in mus if m >= smoothing]
    else:
        mus = [None]
    quadratic = loss == "squared" and q <= len(Z)
    if quadratic:
        oracle = _QuadraticOracle(Z, Y, fit_intercept, weights)
        sigma2 = oracle.top_eigenvalue()
    else:
        # (unweighted: the backtracking raises L wherever the weights need it)
        sigma2 = lipschitz_estimate(Z, fit_intercept)
    history, n_iter, converged, L, gm0 = [], 0, False, 0.0, None
    for mu in mus:
        fn = _Smooth(loss, mu, weights)
        if not quadratic:
            oracle = _ScoreOracle(Z, Y, fn, fit_intercept)
        theta, it, converged, L, gm0 = _fista(oracle, q, bound, sigma2 * fn.curvature, theta,
                                              max_iter - n_iter, tol, history, gm0)
        n_iter += it
        if n_iter >= max_iter:
            break
    beta, b = theta[:q], (theta[q] if fit_intercept else np.zeros(Y.shape[1]))
    if quadratic and history:  # the Gram form's value loses digits to cancellation
        history[-1] = fn.value(Z @ beta + b, Y)
    return beta, b, n_iter, converged, L, history


class _ScoreOracle:
    """f(theta) through the scores u = [Z, 1] theta (n, k): one product each way."""

    def __init__(self, Z, Y, fn, fit_intercept):
        self.Z, self.Y, self.fn, self.fit_intercept = Z, Y, fn, fit_intercept
        self.q = Z.shape[1]

    def apply(self, theta):
        u = self.Z @ theta[:self.q]
        if self.fit_intercept:
            u += theta[self.q]
        return u

    def grad(self, theta, u):
        self._fy = self.fn.value(u, self.Y)
        D = self.fn.derivative(u, self.Y)
        g = self.Z.T @ D / len(u)
        return np.vstack([g, D.mean(axis=0)[None, :]]) if self.fit_intercept else g

    def majorised(self, u_y, g, u_new, d, L, sq):
        """(sufficient decrease holds, f(new))."""
        f_new = self.fn.value(u_new, self.Y)
        fy = self._fy
        return f_new <= fy + float(np.sum(g * d)) + 0.5 * L * sq + 1e-12 * abs(fy), f_new


class _QuadraticOracle:
    """Squared loss through the Gram form: f = theta'G theta / 2 - c'theta + yy / 2 with
    G = A'A / n, c = A'Y / n, A = [Z, 1]; u = G theta costs O(q^2), not O(n q)."""

    def __init__(self, Z, Y, fit_intercept, weights=None):
        n = len(Z)
        if weights is not None:  # weighted Gram form: A' W A / n, A' W Y / n (W of mean 1)
            WZ, WY = Z * weights, Y * weights
            G, c = Z.T @ WZ / n, Z.T @ WY / n
            if fit_intercept:
                G = np.block([[G, WZ.mean(axis=0)[:, None]],
                              [WZ.mean(axis=0)[None, :], np.full((1, 1), weights.mean())]])
                c = np.vstack([c, WY.mean(axis=0)[None, :]])
            self.G, self.c, self.yy = G, c, float(np.sum(WY * Y)) / n
            return
        G = Z.T @ Z / n
        c = Z.T @ Y / n
        if fit_intercept:
            m = Z.mean(axis=0)
            G = np.block([[G, m[:, None]], [m[None, :], np.ones((1, 1))]])
            c = np.vstack([c, Y.mean(axis=0)[None, :]])
        self.G, self.c, self.yy = G, c, float(np.sum(Y * Y)) / n

    def top_eigenvalue(self):
        v = np.random.default_rng(0).standard_normal(len(self.G))
        lam = 0.0
        for _ in range(50):
            w = self.G @ (v / np.linalg.norm(v))
            lam, v = float(np.linalg.norm(w)), w
            if lam == 0.0:
                break
        return max(lam, np.finfo(np.float64).tiny)

    def apply(self, theta):
        return self.G @ theta

    def grad(self, theta, u):
        return u - self.c

    def majorised(self, u_y, g, u_new, d, L, sq):
        # For a quadratic f(new) - f(y) - g'd = d'G d / 2 exactly; G d = u_new - u_y
        # avoids the cancellation of comparing two values of f.
        curv = float(np.sum(d * (u_new - u_y)))
        return curv <= L * sq * (1.0 + 1e-12), None  # f(new) only for the history: lazily

    def value(self, theta, u):
        return 0.5 * float(np.sum(theta * u)) - float(np.sum(self.c * theta)) + 0.5 * self.yy


def _fista(oracle, q, bound, L, theta, max_iter, tol, history, gm0):
    """FISTA with gradient restart and backtracking; see the module notes.

    ``theta`` stacks beta (first q rows, clipped to the box) and the free
    intercept row. ``gm0`` is the reference gradient-mapping norm (None: this
    stage's first; warm-started continuation stages keep the first stage's,
    since their own first step is already small).
    """
    x = theta
    ux = oracle.apply(x)
    y, uy = x, ux
    t, converged, it = 1.0, False, 0
    while it < max_iter:
        it += 1
        g = oracle.grad(y, uy)
        while True:  # backtracking: double L until the majorant holds
            new = y - g / L
            np.clip(new[:q], -bound, bound, out=new[:q])
            u_new = oracle.apply(new)
            d = new - y
            sq = float(np.sum(d * d))
            ok, f_new = oracle.majorised(uy, g, u_new, d, L, sq)
            if ok:
                break
            L *= 2.0
        history.append(f_new if f_new is not None else oracle.value(new, u_new))
        gm = L * math.sqrt(sq)
        gm0 = gm if gm0 is None else gm0
        if gm <= tol * gm0:
            x, converged = new, True
            break
        # Gradient restart: drop the momentum when it opposes the step just taken.
        step = new - x
        if float(np.sum(-d * step)) > 0.0:
            t = 1.0
            y, uy = new, u_new
        else:
            t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
            m = (t - 1.0) / t_new
            y = new + m * step
            uy = u_new + m * (u_new - ux)
            t = t_new
        x, ux = new, u_new
    return x, it, converged, L, gm0
