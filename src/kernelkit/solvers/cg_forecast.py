"""Conjugate gradient that hands over to a direct solve once that is cheaper.

A solver with two ways to the same answer -- CG iterations, or forming the
system once and factoring it (Falkon's r x r system, :func:`kernelkit.solvers.falkon.falkon`)
-- cannot know before it starts how many iterations CG will need: it depends on
the penalty (small alpha, ill-conditioned) and on how well the preconditioner
describes the problem. :func:`pcg_or_hand_over` runs CG in short chunks, and
after each one forecasts the iterations still needed from the residuals'
recent rate of decrease (the first after ``window`` iterations, against |b|);
once that forecast exceeds what the direct solve costs
(in iterations' worth of work), it stops and says so. The work lost is the
iterations run before the forecast, a few windows.

The forecast: CG's error falls at least like ((sqrt(kappa) - 1)/(sqrt(kappa) + 1))^k
(Saad 2003, Theorem 6.29); the observed geometric rate over the last
``window`` iterations, rho = (|r_k| / |r_{k-w}|)^(1/w), estimates that factor
(CG's superlinear phase only makes it pessimistic), and the remaining
iterations are log(tol / |r_k|) / log(rho).

Pure numerics: no validation, no printing.

References
----------
Saad, Y. (2003). Iterative Methods for Sparse Linear Systems, 2nd ed. SIAM,
Section 6.11 (convergence of CG).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import pcg

__all__ = ["HandOver", "forecast_iterations", "pcg_or_hand_over"]

#: Iterations per chunk, and the window of the rate forecast.
WINDOW = 5


@dataclass(frozen=True)
class HandOver:
    """Result of :func:`pcg_or_hand_over`.

    Attributes
    ----------
    result : PCGResult
        CG's result where it stopped.
    hand_over : bool
        Whether it stopped because the direct solve is cheaper.
    forecast : float
        Iterations still needed at the stop (inf when the residual stalled).
    """

    result: object
    hand_over: bool
    forecast: float


def forecast_iterations(previous, current, tol, window):
    """Iterations still needed per column, from residual norms ``window`` iterations apart.

    Parameters
    ----------
    previous, current : ndarray of shape (k,)
    tol : ndarray of shape (k,)
        Absolute residual targets.
    window : int

    Returns
    -------
    ndarray of shape (k,)
        0 for columns already at ``tol``, inf where the residual did not fall.
    """
    previous, current = np.asarray(previous, float), np.asarray(current, float)
    out = np.zeros(len(current))
    todo = current > tol
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = (current / previous) ** (1.0 / window)
        need = np.log(tol / current) / np.log(rate)
    stalled = todo & ~(rate < 1.0)
    out[todo] = need[todo]
    out[stalled] = np.inf
    return out


def pcg_or_hand_over(A, b, *, rtol, maxiter, direct_cost, callback=None, window=WINDOW):
    """:func:`kernelkit.linalg.pcg` in chunks, stopped once a direct solve is cheaper.

    Parameters
    ----------
    A : operator
        As :func:`~kernelkit.linalg.pcg` (SPD; no preconditioner argument: pass
        the preconditioned operator).
    b : ndarray of shape (m,) or (m, k)
    rtol : float
    maxiter : int
    direct_cost : float
        The direct solve's cost in CG iterations' worth of work.
    callback : callable, optional
        As :func:`~kernelkit.linalg.pcg` (called after every iteration).
    window : int, default=WINDOW

    Returns
    -------
    HandOver
        The chunks continue from each other's state, so the iterates are those
        of one uninterrupted :func:`~kernelkit.linalg.pcg` run.
    """
    B = np.asarray(b, dtype=np.float64)
    tol = rtol * np.linalg.norm(B.reshape(B.shape[0], -1), axis=0)
    kept = {}

    def keep(state):
        kept["state"] = state

    state = None
    previous = np.linalg.norm(B.reshape(B.shape[0], -1), axis=0)  # |r_0| = |b| (x_0 = 0)
    while True:
        stop = min(int(maxiter), (0 if state is None else state.n_iter) + window)
        res = pcg(A, B, rtol=rtol, maxiter=stop, callback=callback, state=state,
                  on_state=keep)
        done = state.n_iter if state is not None else 0
        if res.converged or res.n_iter >= maxiter or res.n_iter == done:
            return HandOver(res, False, 0.0)
        current = np.atleast_1d(np.asarray(res.residual_norm, dtype=np.float64))
        need = float(np.max(forecast_iterations(previous, current, tol, window)))
        if need > direct_cost:
            return HandOver(res, True, need)
        state, previous = kept["state"], current
