"""C = inf in KernelSVC and KernelSVR: the hard margin and the hard epsilon-tube.

The estimators pass their binary (or regression) problem here when C is
infinite; SMO then runs with an unbounded box in chunks of steps
(:func:`kernelkit.solvers.hard_margin.solve_unbounded`), which stops with a
clear error when the classes overlap in the feature space (no hard margin)
or no function fits the tube, instead of running to ``max_iter``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..planning.machines import hard_margin_choice, hard_tube_choice  # re-exported
from ..solvers.hard_margin import (NotSeparableError, hull_distance_bound, not_separable,
                                   solve_unbounded, tube_infeasible, tube_norm_bound)
from ..solvers.smo import default_max_iter, smo_gram, smo_kernel
from ..solvers.svr import svr_gram, svr_kernel

__all__ = ["is_hard", "hard_margin_choice", "hard_tube_choice", "solve_hard_margin",
           "solve_hard_tube", "refuse_hard_pegasos"]


def is_hard(C):
    """Whether C asks for the hard margin (C = inf)."""
    return bool(np.isinf(float(C)))


def refuse_hard_pegasos(est):
    """Pegasos minimises lam/2 ||w||^2 + mean hinge with lam = 1/(C n): no C = inf."""
    if est.solver == "pegasos" and is_hard(est.C):
        raise InvalidParameterError(
            f"{type(est).__name__}: C=inf (the hard margin) is solved by solver='smo'; "
            "Pegasos needs a finite C (its lam = 1 / (C n))")


def _scale(K, kernel, X):
    diag = np.diag(K) if K is not None else kernel.diag(X)
    return float(np.sqrt(max(float(np.max(diag)), 0.0)))


def _dual_norm_sq(result, alpha, p_term):
    """||w||^2 = a'Qa from SMO's dual objective -(1/2 a'Qa + p'a)."""
    return 2.0 * (-float(result.dual_objective) - p_term(alpha))


def solve_hard_margin(owner, K, kernel, X, y, *, tol, max_iter, callback=None,
                      cache_bytes=None):
    """The hard-margin SVM of one binary problem (labels y in {-1, +1}).

    ``cache_bytes``: the row cache of rows on demand (K None), from the plan.

    Returns
    -------
    SMOResult
        With ``n_iter`` the steps of all chunks; ``converged`` False when
        ``max_iter`` ran out (the caller warns).

    Raises
    ------
    ValueError
        When the classes are not separable in the feature space.
    """
    n = len(y)
    cap = default_max_iter(n) if max_iter is None else int(max_iter)

    def solve(steps, alpha0):
        if K is not None:
            r = smo_gram(K, y, np.inf, tol=tol, max_iter=steps, alpha0=alpha0,
                         callback=callback)
        else:
            r = smo_kernel(kernel, X, y, np.inf, tol=tol, max_iter=steps, alpha0=alpha0,
                           cache_bytes=cache_bytes, callback=callback)
        return r, r.alpha

    scale = _scale(K, kernel, X)

    def infeasible(r, alpha):  # dual = sum a - 1/2 a'Qa
        return not_separable(hull_distance_bound(alpha, y, _dual_norm_sq(r, alpha,
                                                                          lambda a: -a.sum())),
                             scale)

    try:
        result, steps = solve_unbounded(solve, infeasible, max_iter=cap)
    except NotSeparableError as exc:
        raise NotSeparableError(f"{owner}(C=inf): {exc}") from None
    return _with_steps(result, steps)


def solve_hard_tube(owner, K, kernel, X, y, epsilon, *, tol, max_iter, callback=None,
                    cache_bytes=None):
    """The hard epsilon-tube regression (C = inf) on targets y.

    Returns
    -------
    SVRResult
        With ``n_iter`` the steps of all chunks.

    Raises
    ------
    ValueError
        When no function of the kernel's space fits the tube.
    """
    n = len(y)
    cap = default_max_iter(2 * n) if max_iter is None else int(max_iter)
    p = np.concatenate([epsilon - y, epsilon + y])

    def solve(steps, alpha0):
        if K is not None:
            r = svr_gram(K, y, np.inf, epsilon, tol=tol, max_iter=steps, alpha0=alpha0,
                         callback=callback)
        else:
            r = svr_kernel(kernel, X, y, np.inf, epsilon, tol=tol, max_iter=steps,
                           alpha0=alpha0, cache_bytes=cache_bytes, callback=callback)
        return r, r.alpha

    scale = _scale(K, kernel, X)
    spread = max(float(np.ptp(y)), float(epsilon))

    def infeasible(r, alpha):
        bound = tube_norm_bound(r.coef, y, epsilon,
                                _dual_norm_sq(r, alpha, lambda a: float(p @ a)))
        return tube_infeasible(bound, scale, spread)

    try:
        result, steps = solve_unbounded(solve, infeasible, max_iter=cap)
    except NotSeparableError as exc:
        raise NotSeparableError(f"{owner}(C=inf): {exc}") from None
    return _with_steps(result, steps)


def _with_steps(result, steps):
    from dataclasses import replace

    return replace(result, n_iter=int(steps))
