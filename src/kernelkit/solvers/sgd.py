"""SGD for L2-regularised linear models, in the lectures' four strategies.

Objective: (lam/2) ||w||^2 + (1/n) sum_i l(f(x_i); y_i) with f = w'psi(x) =
sum_j u_j k(x, x_j) (representer theorem: w = sum_j u_j psi(x_j)).

The step is the lecture's: w <- (1 - eta_t lam) w - eta_t l'(f(x_t); y_t) psi(x_t).
In u-space the same step is u <- (1 - eta_t lam) u, u_t -= eta_t l'(f(x_t); y_t),
which keeps w = sum_j u_j psi(x_j) equal. So with the same sample order and
step sizes the four strategies learn the *same* model:

===================  =========================================  ===============
strategy             per step                                   representation
===================  =========================================  ===============
features_on_the_fly  z = psi(x_t) (d D), f = w'z                w
features_cached      Z = psi(X) once, f = w'Z[t]                w
kernel_on_the_fly    k = k(x_t, X) (n d), f = k'u               u
gram_cached          K once, f = K[t] u                         u
===================  =========================================  ===============

Implementation notes
--------------------
- w = scale * v: the shrink (1 - eta lam) multiplies the scalar ``scale``,
  so a u-space step is O(1) after its O(n) kernel-row product (renormalised,
  O(n) once, when ``scale`` falls below 1e-4 or a step makes it exactly 0,
  as the first Pegasos step does).
- Averaging (Polyak-Ruppert, from step ``average`` on) is lazy too:
  wbar = gamma * a + B * v (Xu 2011, "Towards optimal one pass large scale
  learning with averaged SGD"), so it costs O(1) more per u-space step.
- The "on the fly" strategies compute psi(x_t) or k(x_t, X) for a chunk of
  upcoming samples in one call (a GEMM): those rows depend only on the sample
  order, never on w or u, so this is the same sequence of steps as computing
  them one at a time, only faster. The steps themselves are never batched.
- Step sizes: ``schedule="optimal"``: eta_t = eta0 / (1 + eta0 lam t)
  (Bottou's; with eta0 <= 1/(curvature * max ||psi||^2) every step is stable);
  ``schedule="pegasos"``: eta_t = 1 / (lam (t + 1)) (Shalev-Shwartz et al.).
- The loops of the cached strategies are compiled (numba, lazily, on first
  call; :mod:`.sgd_steps`, re-exported here); each has a plain-numpy twin
  ``*_ref`` (in :mod:`._reference`) used by the tests.

Pure numerics: no validation, no printing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._budget import row_blocks, rows_per_block
from .._validation import n_rows
from ..gram import KernelRows
from .losses import get_loss
from .sgd_steps import LOSS_CODES, sgd_u_steps, sgd_w_steps
from .sgd_steps import final_coef as _finish
from .sgd_steps import new_state as _new_state

__all__ = ["SGDResult", "sgd", "sgd_order", "sgd_step_sizes", "default_eta0", "LOSS_CODES",
           "sgd_w_steps", "sgd_u_steps", "divergence", "DIVERGENCE_FACTOR"]

STRATEGIES = ("features_on_the_fly", "features_cached", "kernel_on_the_fly", "gram_cached")

# Largest curvature sup l'' of each loss (hinge: treated as 1), for the default eta0.
_CURVATURE = {"squared": 1.0, "logistic": 0.25, "hinge": 1.0, "squared_hinge": 1.0,
              "huber": 1.0, "epsilon_insensitive": 1.0}

# Rows computed ahead by the on-the-fly strategies: enough to amortise the
# fixed cost of one kernel-block / transform call (~1-40 ms measured on the
# shared 2-core machine, see benchmarks/strategies.py), few enough that the
# block stays small (_CHUNK_BYTES) next to the O(n) state.
_CHUNK = 256
_CHUNK_MAX = 2048
_CHUNK_BYTES = 64 * 1024**2

#: An objective this many times its value at w = 0 means divergence: the
#: optimum's objective is at most that value, and SGD starts there, so a
#: stable run ends near or below it (noisy runs a few times above at most).
DIVERGENCE_FACTOR = 1e6


@dataclass(frozen=True)
class SGDResult:
    """What :func:`sgd` returns.

    Attributes
    ----------
    coef : ndarray of shape (D,) or (n,)
        w (``representation == "w"``) or u (``"u"``); the averaged iterate if
        averaging was asked for.
    representation : {"w", "u"}
    n_iter : int
        SGD steps T.
    objective : float or None
        (lam/2) ||w||^2 + (1/n) sum_i l(f(x_i); y_i) at ``coef`` (None if not computed).
    diverged : str or None
        Why the run is judged to have diverged, or None: the coefficients or
        the objective became non-finite, or the objective exploded to more
        than ``DIVERGENCE_FACTOR`` times its value at w = 0 (where SGD starts,
        and which bounds the optimum's). Usually a first step ``eta0`` too
        large; the caller decides what to raise.
    last_epoch_change : float or None
        |J(end) - J(start of the last epoch)| / |J(end)|, the relative change of
        the objective over the last pass (from w = 0 if there was one pass);
        None if the objective was not computed. SGD has no other stopping
        test: the caller compares this with a tolerance.
    """

    coef: np.ndarray
    representation: str
    n_iter: int
    objective: float | None
    diverged: str | None = None
    last_epoch_change: float | None = None


def default_eta0(loss, max_sq_norm, lam):
    """A stable first step: 1 / (sup l'' * max_i k(x_i, x_i) + lam)."""
    name = get_loss(loss).name
    return 1.0 / (_CURVATURE[name] * float(max_sq_norm) + float(lam))


def sgd_order(n, n_iter, random_state=None):
    """Sample order: one fresh permutation of range(n) per epoch, from ``random_state``."""
    rng = np.random.default_rng(random_state)
    n_epochs = -(-int(n_iter) // int(n))
    return np.concatenate([rng.permutation(n) for _ in range(n_epochs)])[:n_iter]


def sgd_step_sizes(n_iter, lam, eta0, schedule="optimal"):
    """eta_t, t = 0..T-1 (see the module docstring)."""
    t = np.arange(int(n_iter), dtype=np.float64)
    if schedule == "optimal":
        return eta0 / (1.0 + eta0 * lam * t)
    if schedule == "pegasos":
        return 1.0 / (lam * (t + 1.0))
    raise ValueError(f"schedule must be 'optimal' or 'pegasos', got {schedule!r}")


# --------------------------------------------------------------------------
# the driver

def _chunk_rows(n_cols):
    rows = min(_CHUNK_MAX, max(_CHUNK // 4, _CHUNK_BYTES // (8 * max(1, n_cols))))
    return max(1, min(rows, rows_per_block(n_cols)))


def sgd(strategy, y, loss, lam, *, X=None, kernel=None, features=None, Z=None, K=None,
        n_iter=None, n_epochs=5, eta0=1.0, schedule="optimal", average=False,
        random_state=None, order=None, compute_objective=True, sample_weight=None,
        callback=None):
    """Minimise (lam/2)||w||^2 + (1/n) sum_i l(f(x_i); y_i) by SGD in one of four strategies.

    Parameters
    ----------
    strategy : {"features_on_the_fly", "features_cached", "kernel_on_the_fly", "gram_cached"}
    y : ndarray of shape (n,)
        Targets (in {-1, +1} for margin losses).
    loss : str or Loss
    lam : float
        Regularisation lam > 0.
    X : ndarray of shape (n, d)
        Inputs (for all strategies but those given Z or K).
    kernel : Kernel
        For ``kernel_on_the_fly`` (and ``gram_cached`` without K).
    features : object with ``transform(X)``
        A fitted feature map psi, for the feature strategies without Z.
    Z : ndarray of shape (n, D), optional
        Cached features (``features_cached``).
    K : ndarray of shape (n, n), optional
        Cached Gram matrix (``gram_cached``).
    n_iter : int, optional
        Steps T; default ``n_epochs * n``.
    n_epochs : int, default=5
    eta0 : float, default=1.0
        First step size of the "optimal" schedule (see :func:`default_eta0`).
    schedule : {"optimal", "pegasos"}
    average : bool or int, default=False
        Return the average of the iterates from step 0 (True) or from step
        ``average`` (an int) on.
    random_state : int, Generator or None
        Seeds the sample order (one permutation per epoch).
    order : ndarray of shape (T,), optional
        An explicit sample order (overrides n_iter, n_epochs, random_state).
    compute_objective : bool, default=True
        Also computes the objective at the start of the last epoch, for
        :attr:`SGDResult.last_epoch_change` (one more pass over the data).
    sample_weight : ndarray of shape (n,), optional
        s_i >= 0 multiplying sample i's loss (and its gradient at each step).
    callback : callable, optional
        ``callback(steps)`` after each compiled chunk of steps (``steps`` done in it).

    Returns
    -------
    SGDResult
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    loss = get_loss(loss)
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    if order is None:
        T = int(n_iter) if n_iter is not None else int(n_epochs) * n
        order = sgd_order(n, T, random_state)
    order = np.asarray(order, dtype=np.int64)
    T = len(order)
    etas = sgd_step_sizes(T, lam, eta0, schedule)
    y_t = y[order]
    sw = None if sample_weight is None else np.asarray(sample_weight, np.float64)
    sw_t = None if sw is None else sw[order]
    avg_start = -1 if average is False or average is None else (0 if average is True
                                                                else int(average))
    averaged = avg_start >= 0
    state = _new_state()
    last_epoch = max(T - n, 0)  # the objective is also measured here
    start_objective = None
    # Chunks never straddle the start of the last epoch; a compiled call per chunk
    # gives the same steps as one call (the state carries over, t0 keeps the count).

    def epoch_cuts(chunk):
        for t0, t1 in row_blocks(T, chunk):
            if t0 < last_epoch < t1:
                yield t0, last_epoch
                yield last_epoch, t1
            else:
                yield t0, t1

    def at_last_epoch(t0, coef_now, scores, dual=False):
        nonlocal start_objective
        if t0 == last_epoch and compute_objective and T > 0:
            with np.errstate(over="ignore", invalid="ignore"):
                start_objective = _objective_at(coef_now(), scores, lam, loss, y, sw, dual)

    if strategy.startswith("features"):
        if strategy == "features_cached":
            if Z is None:
                Z = features.transform(X)
            Z = np.ascontiguousarray(Z, dtype=np.float64)
            v, a = np.zeros(Z.shape[1]), np.zeros(Z.shape[1])
            for t0, t1 in epoch_cuts(max(n, 1)):
                at_last_epoch(t0, lambda: _finish(v, a, state, averaged), lambda w: Z @ w)
                sgd_w_steps(Z, order[t0:t1], y_t[t0:t1], etas[t0:t1], lam, loss, v, a, state,
                            t0, avg_start, None if sw_t is None else sw_t[t0:t1])
                if callback is not None:
                    callback(t1 - t0)
        else:
            v = a = None
            D = getattr(features, "n_components_", None) or features.transform(X[:1]).shape[1]
            chunk = _chunk_rows(D)
            step = np.arange(chunk, dtype=np.int64)
            for t0, t1 in epoch_cuts(chunk):
                if v is not None:
                    at_last_epoch(t0, lambda: _finish(v, a, state, averaged),
                                  lambda w: _feature_scores(features, X, w))
                Zc = np.ascontiguousarray(features.transform(X[order[t0:t1]]), np.float64)
                if v is None:
                    v, a = np.zeros(Zc.shape[1]), np.zeros(Zc.shape[1])
                    if t0 == last_epoch and compute_objective:
                        start_objective = _objective_at(v, lambda w: np.zeros(n), lam, loss, y,
                                                        sw)
                sgd_w_steps(Zc, step[:t1 - t0], y_t[t0:t1], etas[t0:t1], lam, loss, v, a,
                            state, t0, avg_start, None if sw_t is None else sw_t[t0:t1])
                if callback is not None:
                    callback(t1 - t0)
        w = _finish(v, a, state, averaged)
        obj = None
        if compute_objective and np.isfinite(w).all():
            with np.errstate(over="ignore", invalid="ignore"):  # judged by divergence()
                obj = _objective_at(w, (lambda w: Z @ w) if Z is not None else
                                    (lambda w: _feature_scores(features, X, w)),
                                    lam, loss, y, sw)
        return SGDResult(w, "w", T, obj, divergence(w, obj, loss, y),
                         _relative_change(obj, start_objective))

    v, a = np.zeros(n), np.zeros(n)
    if strategy == "gram_cached":
        if K is None:
            from ..gram import gram

            K = gram(kernel, X)
        K = np.ascontiguousarray(K, dtype=np.float64)
        scores = (lambda u: K @ u)
        for t0, t1 in epoch_cuts(max(n, 1)):
            at_last_epoch(t0, lambda: _finish(v, a, state, averaged), scores, True)
            sgd_u_steps(K, order[t0:t1], order[t0:t1], y_t[t0:t1], etas[t0:t1], lam, loss, v,
                        a, state, t0, avg_start, None if sw_t is None else sw_t[t0:t1])
            if callback is not None:
                callback(t1 - t0)
    else:
        from ..gram import GramOperator

        def scores(u):
            return GramOperator(kernel, X).matvec(u)

        kernel_rows = KernelRows(kernel, X)
        step = _chunk_rows(n)
        local = np.arange(step, dtype=np.int64)
        for t0, t1 in epoch_cuts(step):
            at_last_epoch(t0, lambda: _finish(v, a, state, averaged), scores, True)
            rows = np.ascontiguousarray(kernel_rows.rows(order[t0:t1]), np.float64)
            sgd_u_steps(rows, local[:t1 - t0], order[t0:t1], y_t[t0:t1], etas[t0:t1], lam,
                        loss, v, a, state, t0, avg_start,
                        None if sw_t is None else sw_t[t0:t1])
            if callback is not None:
                callback(t1 - t0)
    u = _finish(v, a, state, averaged)
    obj = None
    if compute_objective and np.isfinite(u).all():
        with np.errstate(over="ignore", invalid="ignore"):  # judged by divergence()
            obj = _objective_at(u, scores, lam, loss, y, sw, True)
    return SGDResult(u, "u", T, obj, divergence(u, obj, loss, y),
                     _relative_change(obj, start_objective))


def _objective_at(coef, scores, lam, loss, y, sw, dual=False):
    """(lam/2)||w||^2 + mean of the (weighted) losses at w (or u: ||w||^2 = u'Ku)."""
    if not np.isfinite(coef).all():
        return None
    f = scores(coef) if coef.any() else np.zeros(len(y))
    norm2 = float(coef @ f) if dual else float(coef @ coef)
    values = loss.value(f, y)
    return 0.5 * lam * norm2 + float(np.mean(values if sw is None else sw * values))


def _relative_change(end, start):
    if end is None or start is None or not np.isfinite(end) or not np.isfinite(start):
        return None
    return abs(end - start) / max(abs(end), np.finfo(float).tiny)


def divergence(coef, objective, loss, y):
    """Why an SGD result diverged, or None (see :attr:`SGDResult.diverged`).

    Parameters
    ----------
    coef : ndarray
        w or u.
    objective : float or None
        The objective at ``coef`` (None: only the coefficients are judged).
    loss : str or Loss
    y : ndarray of shape (n,)

    Returns
    -------
    str or None
    """
    if not np.isfinite(coef).all():
        return "the coefficients became non-finite (inf or NaN)"
    if objective is None:
        return None
    start = float(np.mean(get_loss(loss).value(np.zeros(len(y)), np.asarray(y, np.float64))))
    if not np.isfinite(objective):
        return (f"the objective became non-finite ({objective}; it is {start:.4g} at w = 0, "
                "where SGD starts)")
    if objective > DIVERGENCE_FACTOR * start:
        return (f"the objective exploded to {objective:.4g} (it is {start:.4g} at w = 0, where "
                "SGD starts)")
    return None


def _feature_scores(features, X, w):
    step = _chunk_rows(len(w))
    return np.concatenate([features.transform(X[r0:r1]) @ w
                           for r0, r1 in row_blocks(n_rows(X), step)])
