"""L-BFGS-B with bounds and random restarts, keeping the trajectory (shared by the objectives)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

__all__ = ["OptimizationResult", "minimize_with_restarts"]


@dataclass
class OptimizationResult:
    """The best point of all starts, and how every start went.

    Attributes
    ----------
    x : ndarray of shape (n_params,)
        Best point (log parameters).
    fun : float
        Objective there (a value to minimise).
    trajectory : list of dict
        One entry per iteration of every start: ``start``, ``iteration``, ``fun``, ``x``.
    starts : list of dict
        Per start: ``x0``, ``x``, ``fun``, ``n_iter``, ``n_evals``, ``converged``, ``message``.
    n_evals : int
        Objective evaluations over all starts.
    """

    x: np.ndarray
    fun: float
    trajectory: list = field(default_factory=list)
    starts: list = field(default_factory=list)
    n_evals: int = 0


def minimize_with_restarts(objective, x0, bounds, *, n_restarts=0, random_state=None,
                           max_iter=200, tol=2.220446049250313e-09, callback=None):
    """Minimise ``objective(x) -> (value, gradient)`` by L-BFGS-B from ``x0`` and restarts.

    Parameters
    ----------
    objective : callable
        ``x -> (float, ndarray of shape (n_params,))``; may return ``inf``
        (e.g. a Cholesky that failed), which the line search backs off from.
    x0 : ndarray of shape (n_params,)
    bounds : ndarray of shape (n_params, 2)
    n_restarts : int, default=0
        Further starts drawn uniformly within the bounds (as scikit-learn's
        ``GaussianProcessRegressor(n_restarts_optimizer=...)``).
    random_state : numpy Generator or RandomState
    max_iter : int, default=200
        L-BFGS-B iterations per start.
    tol : float, default=2.22e-9
        Relative tolerance on the objective (scipy's ``ftol``); the gradient
        tolerance is scipy's ``gtol = 1e-5``: scipy's defaults, which scikit-learn's
        ``GaussianProcessRegressor`` uses too (the same iterates from the same start).
    callback : callable, optional
        ``callback(start, iteration, fun, x)`` after every iteration (progress).

    Returns
    -------
    OptimizationResult

    Warns
    -----
    ConvergenceWarning
        When the best start stopped at ``max_iter`` without meeting the tolerances.
    """
    bounds = np.asarray(bounds, dtype=np.float64)
    starts = [np.clip(np.asarray(x0, dtype=np.float64), bounds[:, 0], bounds[:, 1])]
    for _ in range(n_restarts):
        starts.append(random_state.uniform(bounds[:, 0], bounds[:, 1]))
    result = OptimizationResult(x=starts[0], fun=np.inf)
    for s, start in enumerate(starts):
        last = {}

        def fun(x):
            value, grad = objective(x)
            last["x"], last["fun"] = x.copy(), value
            result.n_evals += 1
            if not np.isfinite(value):
                return np.inf, np.zeros_like(x)
            return value, grad

        def record(xk, s=s):
            it = sum(1 for t in result.trajectory if t["start"] == s) + 1
            value = last["fun"] if np.array_equal(last.get("x"), xk) else objective(xk)[0]
            result.trajectory.append({"start": s, "iteration": it, "fun": float(value),
                                      "x": np.array(xk)})
            if callback is not None:
                callback(s, it, value, xk)

        res = minimize(fun, start, jac=True, method="L-BFGS-B", bounds=bounds,
                       callback=record, options={"maxiter": max_iter, "ftol": tol,
                                                 "gtol": 1e-5})
        result.starts.append({"x0": start, "x": res.x, "fun": float(res.fun),
                              "n_iter": int(res.nit), "n_evals": int(res.nfev),
                              # an abnormal stop (line search failed) is not convergence
                              "converged": bool(res.success),
                              "message": str(res.message)})
        if res.fun < result.fun:
            result.x, result.fun = res.x, float(res.fun)
    best = min(result.starts, key=lambda r: r["fun"])
    if not best["converged"]:
        warnings.warn(f"L-BFGS-B stopped without meeting its tolerances after "
                      f"{best['n_iter']} iterations (max_iter={max_iter}; objective "
                      f"{best['fun']:.6g}; {best['message']}); increase max_iter, or add "
                      "restarts (n_restarts) if the objective failed to evaluate "
                      "(a kernel matrix not positive definite at the bounds)",
                      ConvergenceWarning, stacklevel=3)
    return result
