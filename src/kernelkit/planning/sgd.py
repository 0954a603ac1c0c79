"""The cost model of the lectures' four SGD strategies (and, on request, the exact solvers).

:func:`plan_sgd` compares features or kernel rows, computed on the fly or
cached, for T steps of SGD; with ``include_exact`` also the exact solver of the
loss (Cholesky, SMO, Newton) and Falkon.
"""

from __future__ import annotations

from .._units import format_seconds
from .choices import Candidate, Plan
from .costs import budget_of, rates_in_force
from .ridge import FALKON_MIN_N, falkon_candidate, falkon_centers

__all__ = ["STRATEGIES", "plan_sgd", "plan"]


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
