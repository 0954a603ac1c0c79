"""Kernelised Pegasos: stochastic sub-gradient descent on the SVM primal, in the dual.

Shalev-Shwartz, Singer, Srebro & Cotter, "Pegasos: primal estimated
sub-gradient solver for SVM", Math. Programming 127 (2011), Fig. 3 (the
lecture's Algorithm 1). It minimises

    lambda/2 ||w||^2 + 1/n sum_i s_i max(0, 1 - y_i <w, phi(x_i)>)

with w = sum_j alpha_j y_j phi(x_j). beta_j counts how often sample j was
picked with a violated margin; at step t = 1..T a uniformly drawn i gets
beta_i += s_i (s_i = 1 without weights) when

    y_i (1 / (lambda t)) sum_j beta_j y_j K(x_i, x_j) < 1,

and alpha^t = beta^t / (lambda t). The output is the average
alpha_hat = (1/T) sum_t alpha^t. There is **no bias** (as in the paper and
the lecture): the decision function is f(x) = sum_j alpha_hat_j y_j k(x_j, x).
With lambda = 1 / (n C) the objective is the C-SVM's (without bias) divided by
n C, so alpha_hat approximates the SVM dual variables on the same scale
(0 <= a_j <= C).

O(1) averaging. beta_j is piecewise constant in t, so
sum_t beta_j^t / t = sum over the intervals where beta_j is constant of
beta_j (H(t_end) - H(t_start - 1)), H the harmonic numbers. Each sample keeps
its partial sum ``acc_j`` and ``h_j`` = H(t_last - 1) at its last change; an
increment at step t adds beta_j^{old} (H(t-1) - h_j) to acc_j and sets
h_j = H(t-1). At the end alpha_hat_j = (acc_j + beta_j (H(T) - h_j)) / (lambda T).
Each step then costs one kernel-row product, not O(n) for the average.

Two modes: ``pegasos_gram`` on a stored Gram matrix (compiled loop) and
``pegasos_kernel`` computing the kernel values a step needs on the fly (the
row of i restricted to the samples with beta_j > 0, through ``KernelRows.rows``).
``pegasos_ref`` (in :mod:`._reference`) is the numpy twin of the compiled loop.
Pure numerics.

References
----------
Shalev-Shwartz, S., Singer, Y., Srebro, N. and Cotter, A. (2011). Pegasos:
primal estimated sub-gradient solver for SVM. Mathematical Programming
127(1), 3-30.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .._compiled import interruptible

from ..gram import GramOperator, KernelRows

__all__ = ["PegasosResult", "pegasos_gram", "pegasos_kernel", "pegasos_objectives", "draw_indices",
           "PROGRESS_CHUNK"]


@dataclass(frozen=True)
class PegasosResult:
    """Output of kernelised Pegasos.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The averaged alpha_hat; f(x) = sum_j alpha_j y_j k(x_j, x), no bias.
    beta : ndarray of shape (n,)
        Final counts (weighted by s_i) beta^T.
    alpha_last : ndarray of shape (n,)
        beta^T / (lambda T), the last iterate.
    n_iter : int
        T.
    lam : float
        lambda.
    """

    alpha: np.ndarray
    beta: np.ndarray
    alpha_last: np.ndarray
    n_iter: int
    lam: float


def draw_indices(n, T, random_state):
    """The i_t, t = 1..T, drawn uniformly (shared by all modes, so they agree)."""
    rng = random_state if isinstance(random_state, np.random.Generator) \
        else np.random.default_rng(random_state)
    return rng.integers(0, n, size=T).astype(np.int64)


def _finish(beta, acc, h, H_T, lam, T):
    alpha = (acc + beta * (H_T - h)) / (lam * T)
    return PegasosResult(alpha=alpha, beta=beta, alpha_last=beta / (lam * T), n_iter=int(T),
                         lam=float(lam))


@njit(cache=True, nogil=True, error_model="numpy")
def _pegasos_loop(K, y, s, lam, idx, beta, acc, h, v, t0, H):
    # Steps t = t0 + 1 .. t0 + len(idx); v_j = beta_j y_j and H = H(t - 1) carry over
    # between calls, so chunks of steps give the same result as one call.
    n = y.shape[0]
    for t in range(t0 + 1, t0 + idx.shape[0] + 1):
        i = idx[t - t0 - 1]
        Ki = K[i]
        z = 0.0
        for j in range(n):
            z += Ki[j] * v[j]
        if y[i] * z / (lam * t) < 1.0:
            acc[i] += beta[i] * (H - h[i])
            h[i] = H
            beta[i] += s[i]
            v[i] = beta[i] * y[i]
        H += 1.0 / t
    return H


def _labels_weights_and_lambda(y, C, sample_weight, T):
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.shape[0]
    s = np.ones(n) if sample_weight is None else np.ascontiguousarray(sample_weight, np.float64)
    lam = 1.0 / (n * float(C))
    return y, s, lam, int(T)


# Ctrl-C during the compiled loop arrives as KeyboardInterrupt (see _compiled.interruptible).
_run_pegasos_loop = interruptible(_pegasos_loop)


#: Steps per compiled call when a callback asks for progress.
PROGRESS_CHUNK = 10_000


def pegasos_gram(K, y, C, n_iter, *, sample_weight=None, random_state=None, callback=None):
    """Kernelised Pegasos on a stored Gram matrix.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix (float64, C-contiguous).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        SVM constant; lambda = 1 / (n C).
    n_iter : int
        T, number of steps.
    sample_weight : ndarray of shape (n,), optional
        s_i: the increment of beta_i (weights the hinge loss of sample i).
    random_state : int, Generator or None
    callback : callable, optional
        ``callback(steps)`` after each chunk of :data:`PROGRESS_CHUNK` compiled
        steps (the same result as without).

    Returns
    -------
    PegasosResult
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    y, s, lam, T = _labels_weights_and_lambda(y, C, sample_weight, n_iter)
    idx = draw_indices(len(y), T, random_state)
    n = len(y)
    beta, acc, h, v = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    chunk = T if callback is None else PROGRESS_CHUNK
    H = 0.0
    for t0 in range(0, T, max(chunk, 1)):
        t1 = min(T, t0 + chunk)
        H = _run_pegasos_loop(K, y, s, lam, idx[t0:t1], beta, acc, h, v, t0, H)
        if callback is not None:
            callback(t1 - t0)
    return _finish(beta, acc, h, H, lam, T)


def pegasos_kernel(kernel, X, y, C, n_iter, *, sample_weight=None, random_state=None,
                   callback=None):
    """Kernelised Pegasos with kernel values computed on the fly (nothing n x n stored).

    Step t computes k(x_i, x_j) only for the j with beta_j > 0, one call of
    :meth:`kernelkit.gram.KernelRows.rows` per step: O(T |support| d) time,
    O(n d) memory. A Python loop (a kernel call per step): for small T or large n.

    Parameters are those of :func:`pegasos_gram`, with ``kernel`` (a Kernel)
    and ``X`` (its validated inputs) in place of ``K`` (``callback(steps)``
    every :data:`PROGRESS_CHUNK` // 10 steps).
    """
    kernel_rows = KernelRows(kernel, X)
    y, s, lam, T = _labels_weights_and_lambda(y, C, sample_weight, n_iter)
    idx = draw_indices(len(y), T, random_state)
    n = len(y)
    beta, acc, h = np.zeros(n), np.zeros(n), np.zeros(n)
    support = np.zeros(n, dtype=bool)
    sv = np.zeros(0, dtype=np.int64)
    H = 0.0
    reported = 0
    for t in range(1, T + 1):
        i = idx[t - 1]
        z = 0.0
        if sv.size:
            # k(x_i, x_i), if i is in the support, is whatever the kernel computes
            z = float(kernel_rows.rows(slice(i, i + 1), sv)[0] @ (beta[sv] * y[sv]))
        if y[i] * z / (lam * t) < 1.0:
            acc[i] += beta[i] * (H - h[i])
            h[i] = H
            beta[i] += s[i]
            if not support[i] and beta[i] > 0:
                support[i] = True
                sv = np.flatnonzero(support)
        H += 1.0 / t
        if callback is not None and (t % (PROGRESS_CHUNK // 10) == 0 or t == T):
            callback(t - reported)
            reported = t
    return _finish(beta, acc, h, H, lam, T)


def pegasos_objectives(K, kernel, X, alpha, y, C):
    """Dual objective and duality gap (primal without bias minus dual) of a solution.

    Parameters
    ----------
    K : ndarray of shape (n, n) or None
        The Gram matrix, if stored; else kernel values come from ``kernel`` on ``X``
        (only the columns of the support vectors).
    kernel : Kernel or None
    X : validated inputs of shape (n, ...) or None
    alpha : ndarray of shape (n,)
        Dual coefficients in [0, C].
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : ndarray of shape (n,)
        Per-sample bounds.

    Returns
    -------
    dict
        ``{"dual": float, "gap": float}``.
    """
    ay = alpha * y
    if K is not None:
        f = K @ ay
    else:
        sv = np.flatnonzero(alpha)
        f = GramOperator(kernel, X, X[sv]).matvec(ay[sv]) if sv.size else np.zeros(len(y))
    aQa = float(ay @ f)
    dual = float(alpha.sum() - 0.5 * aQa)
    primal = 0.5 * aQa + float(C @ np.maximum(0.0, 1.0 - y * f))
    return {"dual": dual, "gap": primal - dual}
