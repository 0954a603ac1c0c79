"""The cost model of kernel ridge: exact dual, exact primal, or Nystroem ridge by Falkon.

:func:`plan_ridge` counts the flops and bytes of each strategy, turns them into
predicted seconds with this machine's rates and chooses; Falkon's default
number of centers (:func:`falkon_centers`) and the conjugate-gradient
iterations it is planned with (:func:`falkon_iterations`) live here too.
"""

from __future__ import annotations

import math

from .._budget import BLOCK_SHARE, MAX_BLOCK_BYTES
from .._units import format_bytes, format_seconds
from .choices import Candidate, Choice, Plan
from .costs import FIT_OVERHEAD_S, budget_in_force, rates_in_force

__all__ = ["plan_ridge", "falkon_centers", "falkon_iterations", "falkon_candidate",
           "FALKON_MIN_N", "FALKON_ITERATIONS", "MIN_AUTO_CENTERS"]


#: Above this many samples an approximate (Nystroem) ridge may replace an exact
#: one that fits in memory, if it is predicted faster; below it exact is kept.
FALKON_MIN_N = 20000
#: Conjugate-gradient iterations the planner assumes for Falkon at n = 10,000 (tol
#: 1e-4, the default M); see :func:`falkon_iterations`.
FALKON_ITERATIONS = 34


def falkon_iterations(n, max_iter=100):
    """The conjugate-gradient iterations a Falkon fit of n rows is planned with.

    Measured on Friedman #1 (10 features, standardised, RBF gamma 0.1, the default
    M = sqrt(n) log n, tol 1e-4; ``benchmarks/planner.py``): the count rises as alpha
    falls and levels off from alpha ~ 1e-2 on at 34 (n = 10,000), 59 (40,000) and
    91 (160,000): about 45 more per decade of n. The plan takes that plateau (a
    grid search spends its time there; larger alphas take fewer, 9-26), capped at
    ``max_iter``.
    """
    return int(min(max_iter, max(10, round(FALKON_ITERATIONS
                                          + 45.0 * math.log10(max(n, 1000) / 1e4)))))


def falkon_centers(n):
    """Default number of Nystroem centers for n samples: sqrt(n) log(n), in [100, 20000], <= n.

    M ~ sqrt(n) log n centers keep the optimal statistical rate of kernel
    ridge (Rudi, Camoriano & Rosasco 2015; Rudi et al. 2017).
    """
    return int(min(n, max(100, min(20000, math.ceil(math.sqrt(n) * math.log(max(n, 2)))))))


def falkon_candidate(n, d, M, n_targets, r, budget):
    """Falkon's cost: K_MM M^2 d, Cholesky + lauum M^3, K_nM n M d (once if stored),
    and per iteration two passes over K_nM (4 n M t flops; a stored K_nM is read from
    memory twice, at the ``stream`` rate), :func:`falkon_iterations` (n) of them."""
    kmm = 2.0 * M * M * d / r["gemm"] + M * M / r["kernel_entries"]
    knm = 2.0 * n * M * d / r["gemm"] + n * M / r["kernel_entries"]
    prec = M ** 3 / r["cholesky"]
    small = 16.0 * M * M
    stored = 8.0 * n * M + small <= budget
    per_iter = max(4.0 * n * M * n_targets / r["gemm"],
                   2.0 * 8.0 * n * M / r["stream"] if stored else 0.0)
    it = falkon_iterations(n)
    seconds = FIT_OVERHEAD_S + kmm + prec + per_iter * it + (knm if stored else knm * (it + 1))
    # Recomputed K_nM lives in row blocks of the block share of the budget (capped),
    # as GramOperator sizes them (_budget.rows_per_block).
    memory = (8.0 * n * M + small if stored else
              small + min(8.0 * n * M, budget * BLOCK_SHARE, MAX_BLOCK_BYTES))
    if memory > budget:
        return Candidate("falkon", seconds, memory, False,
                         f"the centers' M x M factors exceed the memory budget (M={M})")
    note = (f"Nystroem M={M}: K_nM n M d {'stored' if stored else 'recomputed per iteration'}"
            f" + M^3 + {it} CG passes")
    return Candidate("falkon", seconds, memory, True, note)


def plan_ridge(n, d, n_components=None, n_targets=1, memory=None, rates=None, n_centers="auto"):
    """Choose between dual and primal exact ridge, and Nystroem ridge by Falkon.

    Parameters
    ----------
    n, d : int
        Samples and input features.
    n_components : int, optional
        Dimension D of the exact feature map, if the kernel has one.
    n_targets : int, default=1
    memory : float or str, optional
        Budget in bytes or a size such as ``"8GB"``; None: the budget in force
        (``kernelkit.get_config()["memory"]``), as a fit uses; ``float("inf")``:
        unlimited.
    rates : dict, optional
        Overrides of the rates in force (``kernelkit.get_config()["rates"]``).
    n_centers : int, "auto" or None, default="auto"
        Nystroem centers M of the Falkon candidate. ``"auto"`` is what
        ``KernelRidge(n_centers="auto")`` fits with: :func:`falkon_centers` (n),
        and, when neither exact ridge nor Falkon with that M fits the budget,
        the most centers (at least 100) that do (recorded as a :class:`Choice`).
        None leaves Falkon out. Falkon is chosen when no exact strategy fits
        the memory budget, or when n > :data:`FALKON_MIN_N` and it is
        predicted faster than the best exact one (it is an approximation, so
        never for small n).

    Returns
    -------
    Plan
        ``choice`` is ``"dual"``, ``"primal"``, ``"falkon"`` or ``"none"``.

    Examples
    --------
    A fit of 160,000 rows under a 16 GB budget: the exact Gram matrix (191 GB)
    does not fit, so Falkon is planned with the default number of centers.

    >>> plan_ridge(160_000, 20, memory="16GB").choice
    'falkon'
    >>> plan_ridge(2_000, 20, memory="16GB").choice
    'dual'
    """
    if isinstance(n_centers, str):
        if n_centers != "auto":
            raise ValueError(f"n_centers must be an int, 'auto' or None, got {n_centers!r}")
        return _plan_ridge_auto_centers(n, d, n_components, n_targets, memory, rates)
    r = rates_in_force(rates)
    budget = budget_in_force(memory)
    dual_s = (FIT_OVERHEAD_S + 2.0 * n * n * d / r["gemm"] + n * n / r["kernel_entries"]
              + n ** 3 / 3.0 / r["cholesky"] + 2.0 * n * n * n_targets / r["gemm"])
    dual_mem = 8.0 * n * n
    cands = [Candidate("dual", dual_s, dual_mem, dual_mem <= budget,
                       "Gram n^2 d + Cholesky n^3/3" if dual_mem <= budget
                       else "Gram matrix exceeds the memory budget")]
    if n_components:
        D = n_components
        primal_s = (FIT_OVERHEAD_S + n * D * max(d, 1) / r["elementwise"] + n * D * D / r["gemm"]
                    + D ** 3 / 3.0 / r["cholesky"])
        primal_mem = 8.0 * (n * D + D * D)
        cands.append(Candidate("primal", primal_s, primal_mem, primal_mem <= budget,
                               f"features n D + Z'Z n D^2 + Cholesky D^3/3 (D={D})"
                               if primal_mem <= budget else "features exceed the memory budget"))
    else:
        cands.append(Candidate("primal", float("inf"), float("inf"), False,
                               "the kernel has no finite explicit feature map"))
    feasible = [c for c in cands if c.feasible]
    problem = {"n": n, "d": d, "D": n_components}
    if n_centers:
        fk = falkon_candidate(n, d, int(n_centers), n_targets, r, budget)
        cands.append(fk)
        problem["M"] = int(n_centers)
        if fk.feasible and (not feasible or (n > FALKON_MIN_N and fk.seconds < min(
                c.seconds for c in feasible))):
            why = ("no exact strategy fits the memory budget" if not feasible else
                   f"n > {FALKON_MIN_N} and exact is predicted slower "
                   f"({format_seconds(min(c.seconds for c in feasible))})")
            return Plan("falkon", tuple(cands),
                        f"predicted {format_seconds(fk.seconds)}; {why}", problem)
    if not feasible:
        return Plan("none", tuple(cands), "nothing fits the memory budget", problem)
    best = min(feasible, key=lambda c: c.seconds)
    other = [c for c in feasible if c is not best]
    reason = (f"predicted {format_seconds(best.seconds)}"
              + (f" vs {format_seconds(other[0].seconds)} for {other[0].name}" if other else
                 ", the only feasible exact strategy"))
    if n_centers and cands[-1].feasible:
        reason += (f"; exact preferred to the Nystroem approximation at n <= {FALKON_MIN_N}"
                   if n <= FALKON_MIN_N else "; falkon is predicted slower")
    return Plan(best.name, tuple(cands), reason, problem)


#: Fewest Nystroem centers ``n_centers="auto"`` shrinks to before giving up
#: (:func:`falkon_centers`' floor).
MIN_AUTO_CENTERS = 100


def _plan_ridge_auto_centers(n, d, n_components, n_targets, memory, rates):
    """:func:`plan_ridge` with ``n_centers="auto"``: the default M, fewer when nothing fits.

    The default M (sqrt(n) log n) may need M x M factors beyond the budget;
    the most centers (at least :data:`MIN_AUTO_CENTERS`) with which Falkon fits
    are found by bisection on the planner's memory estimate, and recorded as a
    :class:`Choice`. Fewer centers is a coarser approximation: the reason says so.
    """
    budget = budget_in_force(memory)

    def replan(m):
        return plan_ridge(n, d, n_components=n_components, n_targets=n_targets,
                          memory=budget, rates=rates, n_centers=m)

    M = falkon_centers(n)
    plan = replan(M)
    if plan.choice != "none":
        return plan
    low, high = min(MIN_AUTO_CENTERS, M), M  # replan(high) is known not to fit
    if replan(low).choice != "falkon":
        return plan
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if replan(mid).choice == "falkon" else (low, mid)
    return replan(low).with_choices(Choice(
        "Nystroem centers (n_centers='auto')", low,
        f"the default {M} (sqrt(n) log n) does not fit the memory budget of "
        f"{format_bytes(budget)} and exact ridge does not either; {low} is the most "
        "that fits (fewer centers: a coarser approximation; raise the budget for more)"))
