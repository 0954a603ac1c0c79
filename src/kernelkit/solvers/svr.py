"""Epsilon-insensitive support vector regression on the SMO loop of :mod:`.smo`.

libsvm's formulation (Chang & Lin 2011, section 2.3): 2n variables (a, a*),
labels (+1, -1) and the linear term p = (epsilon - y, epsilon + y) make the
regression dual the classifier's problem with p in place of -1, so the same
working-set selection, shrinking, stopping rule and row cache solve it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gram import KernelRows
from .smo import SMOResult, _drive, _GramRows, _RowCache, row_source

__all__ = ["SVRResult", "svr_gram", "svr_kernel"]


@dataclass(frozen=True)
class SVRResult(SMOResult):
    """Solution of the epsilon-SVR dual: the SMO result of the 2n variables, and beta.

    Attributes
    ----------
    coef : ndarray of shape (n,)
        beta_i = a_i - a*_i of f(x) = sum_i beta_i k(x_i, x) + bias.
    alpha : ndarray of shape (2n,)
        The doubled variables (a, a*), the warm start of a neighbouring C
        (:func:`kernelkit.solvers.smo.seed_alpha`).
    dual_objective : float
        -(1/2 a'Qa + p'a) over the 2n variables (to be maximised).
    primal_objective : float
        1/2 ||w||^2 + sum_i C_i max(0, |y_i - f(x_i)| - epsilon).
    bias, n_iter, duality_gap, max_violation, converged
        As :class:`~kernelkit.solvers.smo.SMOResult`.
    """

    coef: np.ndarray = None


def _svr_problem(y, C, epsilon):
    """libsvm's doubled variables: a (for +) and a* (for -), labels +1/-1,
    linear term p = [epsilon - y, epsilon + y], bounds C_i twice."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.shape[0]
    Cb = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)))
    y2 = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([epsilon - y, epsilon + y])
    return y, y2, np.concatenate([Cb, Cb]), p


def _svr_result(res, G, y, Cb2, p, epsilon):
    n = y.shape[0]
    beta = res.alpha[:n] - res.alpha[n:]
    # (K beta)_i = G_i - p_i for i < n (y_i = +1 there), so f_i = G_i - p_i + bias
    f = G[:n] - p[:n] + res.bias
    aQa = float(res.alpha @ (G - p))
    soft = np.isfinite(Cb2[:n])  # C_i = inf: the hard tube, no slack term
    primal = 0.5 * aQa + float(Cb2[:n][soft] @ np.maximum(0.0, np.abs(y - f) - epsilon)[soft])
    return SVRResult(coef=beta, bias=res.bias, n_iter=res.n_iter,
                     dual_objective=res.dual_objective, primal_objective=primal,
                     duality_gap=primal - res.dual_objective,
                     max_violation=res.max_violation, converged=res.converged,
                     alpha=res.alpha)


def svr_gram(K, y, C, epsilon, *, tol=1e-3, max_iter=None, shrinking=True, callback=None,
             alpha0=None):
    """Solve the epsilon-SVR dual by SMO on a stored Gram matrix (libsvm's formulation).

    With 2n variables (a, a*), labels (+1, -1) and linear term p = (epsilon - y,
    epsilon + y), the regression dual is the classifier's problem with p in place
    of -1 (Chang & Lin 2011, section 2.3), so the same working-set selection,
    shrinking and stopping rule apply.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
        Real targets.
    C : float or ndarray of shape (n,)
        Bounds C_i > 0 (C times sample weights).
    epsilon : float
        Width of the insensitive tube, >= 0.
    tol, max_iter, shrinking, callback
        As :func:`smo_gram` (``max_iter`` defaults to that of 2n variables).
    alpha0 : ndarray of shape (2n,), optional
        Warm start: feasible doubled variables (a, a*), e.g. ``seed_alpha`` of
        ``SVRResult.alpha`` at a neighbouring C; the optimum is the cold start's
        to ``tol``.

    Returns
    -------
    SVRResult
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    y, y2, Cb2, p = _svr_problem(y, C, epsilon)
    K2 = np.block([[K, K], [K, K]])
    res, G = _drive(_GramRows(K2), y2, Cb2, np.ascontiguousarray(np.diag(K2)), tol, max_iter,
                    shrinking, p, alpha0=alpha0, callback=callback)
    return _svr_result(res, G, y, Cb2, p, epsilon)


class _TwinRowCache(_RowCache):
    """The row cache of the doubled problem: rows i and i + n of [[K, K], [K, K]]
    are one row of kernel values, so they share one slot and are computed once
    (libsvm's SVR_Q caches the n rows of K the same way). Twice the distinct rows
    of a plain cache in the same memory: at n = 1,500 under a 16 MB budget, 17,000
    rows computed instead of 243,000."""

    def store(self, want, istate):
        n = self.rows.shape[1] // 2
        base = np.unique(want % n)
        slots = self.free_slots(len(base), istate)
        self.pages.map_rows(slots[self.row_of[slots] < 0])  # slots never filled before
        R = self.kernel_rows.rows(base, np.arange(n))  # X's rows once, for both halves
        self.rows[slots, :n] = R
        self.rows[slots, n:] = R
        self.took(slots, base, istate)
        self.slot_of[base + n] = slots

    def forget(self, rows):
        n = self.rows.shape[1] // 2
        self.slot_of[rows] = -1
        self.slot_of[rows + n] = -1


def svr_kernel(kernel, X, y, C, epsilon, *, tol=1e-3, max_iter=None, shrinking=True,
               cache_bytes=None, batch=1, callback=None, alpha0=None):
    """Solve the epsilon-SVR dual with kernel rows on demand (LRU cache), as
    :func:`svr_gram` (``X`` validated inputs of ``kernel``; the rows of the doubled
    problem are the rows of X twice, and share a slot: :class:`_TwinRowCache`).

    ``batch``: rows computed per request, the needed one and the most violating
    uncached ones. For the regression dual these guesses rarely come next: at
    n = 1,500 with a 4 MB cache, batch=64 computed 247,000 rows (115 s), batch=1
    2,500 (1.8 s); hence the default 1."""
    y, y2, Cb2, p = _svr_problem(y, C, epsilon)
    source, QD = row_source(KernelRows(kernel, np.concatenate([X, X])), cache_bytes, batch,
                            cache_class=_TwinRowCache)
    res, G = _drive(source, y2, Cb2, QD, tol, max_iter, shrinking, p, alpha0=alpha0,
                    callback=callback)
    return _svr_result(res, G, y, Cb2, p, epsilon)
