"""The cost model of the lectures' four SGD strategies (and, on request, the exact solvers).

:func:`plan_sgd` compares features or kernel rows, computed on the fly or
cached, for T steps of SGD; with ``include_exact`` also the exact solver of the
loss (Cholesky, SMO, Newton) and Falkon.
"""

from __future__ import annotations

import math

from .._units import format_seconds
from ..exceptions import MemoryBudgetError
from .choices import Candidate, Choice, Plan
from .costs import budget_of, rates_in_force
from .ridge import FALKON_MIN_N, falkon_candidate, falkon_centers

__all__ = ["STRATEGIES", "plan_sgd", "plan", "plan_machine_sgd", "random_features_choice",
           "DEFAULT_RANDOM_FEATURES"]


#: The lecture's four ways of learning with kernels by SGD.
STRATEGIES = ("features_on_the_fly", "features_cached", "kernel_on_the_fly", "gram_cached")


def _exact_candidates(n, d, loss, D, r, budget, c):
    """Exact (non-SGD) solvers for the loss, as candidates next to the four strategies."""
    gram_s = c * n * n * d / r["gemm"] + n * n / r["kernel_entries"]
    rows = []
    if loss == "squared":
        rows.append(("exact_dual (Cholesky)", gram_s + n ** 3 / 3.0 / r["cholesky"],
                     8.0 * n * n, "Gram n^2 d + Cholesky n^3/3"))
        if D:
            rows.append(("exact_primal (Cholesky)", c * n * d * D / r["gemm"]
                         + n * D * D / r["gemm"] + D ** 3 / 3.0 / r["cholesky"],
                         8.0 * (n * D + D * D), "Z'Z n D^2 + Cholesky D^3/3"))
        # The approximation competes only where exact ridge is costly (as in plan_ridge).
        if n > FALKON_MIN_N or 8.0 * n * n > budget:
            fk = falkon_candidate(n, d, falkon_centers(n), 1, r, budget)
            rows.append(("falkon (Nystroem + CG)", fk.seconds, fk.memory, fk.note))
    elif loss in ("hinge", "squared_hinge"):
        # SMO touches about every kernel row a few times; with a row cache of the
        # budget's size the cost is close to one Gram matrix plus O(n) per iteration.
        cache = min(8.0 * n * n, budget / 4)
        rows.append(("exact_dual (SMO)", 2.0 * gram_s + 20.0 * n * n / r["elementwise"],
                     cache, "kernel rows on demand with a cache; O(n) per SMO step"))
    elif loss == "logistic":
        rows.append(("exact_dual (Newton)", gram_s + 15 * (n ** 3 / 3.0 / r["cholesky"]),
                     16.0 * n * n, "Gram once, ~15 Newton steps of n^3/3"))
    return rows


def plan_sgd(n, d, kernel=None, loss="squared", n_features=None, iterations=None, memory=None,
         rates=None, kernel_entry_cost=None, include_exact=False):
    """Choose one of the four SGD strategies and explain why.

    Costs (the lectures' table; T iterations, D features):

    ===================  ==================  ========
    strategy             time                memory
    ===================  ==================  ========
    features_on_the_fly  O(d D T)            O(D)
    features_cached      O(n d D + D T)      O(n D)
    kernel_on_the_fly    O(n d T)            O(n)
    gram_cached          O(n^2 d + n T)      O(n^2)
    ===================  ==================  ========

    Parameters
    ----------
    n, d : int
        Samples and input features.
    kernel : object, optional
        Only its ``repr`` is used (the planner imports nothing of kernelkit).
    loss : str, default="squared"
    n_features : int, optional
        Dimension D of an explicit or random feature map; None means the
        kernel has none, so only the kernel strategies are candidates.
    iterations : int, optional
        SGD steps T (default: 10 passes, 10 n).
    memory : float or str, optional
        Budget in bytes or a size such as ``"8GB"`` (None: unlimited).
    rates : dict, optional
        Overrides of the rates in force (``kernelkit.get_config()["rates"]``).
    kernel_entry_cost : float, optional
        Flops of one kernel value per input feature (default 2: a dot product).
    include_exact : bool, default=False
        Also compare the exact solvers of the loss (Cholesky for squared, SMO
        for hinge, Newton for logistic); then ``choice`` may name one of them.

    Returns
    -------
    Plan
        ``choice`` is one of :data:`STRATEGIES` (or an exact solver).
    """
    r = rates_in_force(rates)
    T = int(iterations) if iterations else 10 * int(n)
    budget = budget_of(memory)
    c = 2.0 if kernel_entry_cost is None else float(kernel_entry_cost)
    D = n_features
    steps = 24.0 * T  # the sample order, step sizes and labels SGD keeps
    # On-the-fly strategies compute rows for chunks of upcoming samples (at most
    # 2048 rows, 64 MB); these mirror the constants of solvers/sgd.py.
    chunk_k = min(2048, max(64, 64 * 2**20 // (8 * n)))
    rows = []
    if D:
        chunk_f = min(2048, max(64, 64 * 2**20 // (8 * D)))
        rows.append(("features_on_the_fly", c * d * D * T / r["elementwise"]
                     + 2.0 * D * T / r["sgd_step"], 16.0 * D + steps + 24.0 * chunk_f * D,
                     f"psi(x_t) each step: d D T, D={D}"))
        rows.append(("features_cached", c * n * d * D / r["gemm"] + n * D / r["elementwise"]
                     + 2.0 * D * T / r["sgd_step"], 16.0 * n * D + steps,
                     "Z = psi(X) once (n d D), then D per step"))
    else:
        rows.append(("features_on_the_fly", float("inf"), float("inf"), None))
        rows.append(("features_cached", float("inf"), float("inf"), None))
    # Kernel rows on the fly are blocked matrix products: the GEMM rate applies.
    rows.append(("kernel_on_the_fly", c * n * d * T / r["gemm"] + n * T / r["kernel_entries"]
                 + 2.0 * n * T / r["sgd_step"], 16.0 * n + steps + 16.0 * n * chunk_k,
                 "one kernel row per step: n d T"))
    rows.append(("gram_cached", c * n * n * d / r["gemm"] + n * n / r["kernel_entries"]
                 + 2.0 * n * T / r["sgd_step"], 8.0 * n * n + min(8.0 * n * n, 256 * 2**20)
                 + steps, "Gram once (n^2 d), then n per step"))
    if include_exact:
        rows += _exact_candidates(n, d, loss, D, r, budget, c)
    cands = []
    for name, secs, mem, note in rows:
        if note is None:
            cands.append(Candidate(name, secs, mem, False, "no explicit or random feature map"))
        elif mem > budget:
            cands.append(Candidate(name, secs, mem, False, "exceeds the memory budget"))
        else:
            cands.append(Candidate(name, secs, mem, True, note))
    problem = {"n": n, "d": d, "D": D, "T": T, "loss": loss}
    if kernel is not None:
        problem["kernel"] = repr(kernel)
    feasible = [x for x in cands if x.feasible]
    if not feasible:
        return Plan("none", tuple(cands), "nothing fits the memory budget", problem)
    best = min(feasible, key=lambda x: x.seconds)
    runner = sorted((x for x in feasible if x is not best), key=lambda x: x.seconds)
    reason = f"fastest predicted ({format_seconds(best.seconds)})"
    if runner:
        reason += f"; next: {runner[0].name} ({format_seconds(runner[0].seconds)})"
    return Plan(best.name, tuple(cands), reason, problem)


#: Former name of :func:`plan_sgd` (it plans the SGD strategies; see also :func:`plan_ridge`).
plan = plan_sgd


#: D of the random Fourier features drawn for a features strategy without
#: ``features=``: the entrywise kernel error is then about sqrt(2/D) ~ 0.045 (one
#: standard deviation for k(0) = 1; Hoeffding: below sqrt(8 log(2/delta) / D) with
#: probability 1 - delta). Pass ``features=RandomFourierFeatures(kernel,
#: n_components=D)`` for another D.
DEFAULT_RANDOM_FEATURES = 1000


def random_features_choice(kernel, strategy, D=DEFAULT_RANDOM_FEATURES):
    """The random Fourier features a features strategy draws when the kernel has no
    finite feature map, as a :class:`Choice` (``kernel`` only quoted)."""
    return Choice("random Fourier features", D,
                  f"strategy={strategy!r} without features=, and {kernel!r} has no finite "
                  f"feature map: D={D} random Fourier features of its spectral density "
                  f"(kernel error about sqrt(2/D) = {math.sqrt(2.0 / D):.3f}); pass "
                  "features=RandomFourierFeatures(kernel, n_components=...) for another D")


def plan_machine_sgd(n, d, kernel, loss, *, n_features, iterations, strategy, solver_choice,
                     has_map, memory=None):
    """The plan of a kernel machine solved by SGD: the strategy, and the random features
    drawn when a features strategy meets a kernel without a finite map.

    Parameters
    ----------
    n, d : int
    kernel : object
        Only quoted (``repr``).
    loss : str
    n_features : int or None
        D of the feature map the fit has (None: none).
    iterations : int
        SGD steps T.
    strategy : str
        The user's setting (``"auto"``: :func:`plan_sgd` picks).
    solver_choice : Choice
    has_map : bool
        A feature map is given or the kernel has a finite one.
    memory : float, optional
        Budget in bytes.

    Returns
    -------
    plan : Plan
    strategy : str
    random_features : int or None
        D of the random Fourier features to draw (None: none).

    Raises
    ------
    MemoryBudgetError
        ``strategy="auto"`` and no strategy fits the budget.
    """
    plan = plan_sgd(n, d, kernel, loss, n_features=n_features, iterations=iterations,
                    memory=memory).with_choices(solver_choice)
    if strategy == "auto":
        strategy = plan.choice
        if strategy == "none":
            raise MemoryBudgetError("no SGD strategy fits the memory budget:\n"
                                    + plan.explain())
    D = None
    if strategy.startswith("features") and not has_map:  # no finite map: random features
        D = DEFAULT_RANDOM_FEATURES
        plan = plan_sgd(n, d, kernel, loss, n_features=D, iterations=iterations,
                        memory=memory).with_choices(solver_choice,
                                                    random_features_choice(kernel, strategy, D))
    return plan, strategy, D
