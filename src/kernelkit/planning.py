"""The cost model of learning strategies, and a planner that explains its choice.

Pure arithmetic: flop and byte counts of every candidate strategy, turned into
predicted seconds with this machine's rates. A :class:`Plan` keeps every
candidate so that ``Plan.explain()`` can print the comparison as a table.

Besides choosing a strategy, every automatic choice that depends on the
problem's size (store a Gram matrix or recompute its rows, keep K_nM, Newton
or SGD) is made by a function here and recorded as a :class:`Choice`, so
that the estimator's ``plan_`` shows it and ``Plan.explain()`` prints it.

This module imports only the budget arithmetic (``kernelkit._budget``) and the
reference rates (``kernelkit.config``). (About 600 lines: every automatic choice
in one module until issue 22 makes it a ``planning/`` package.)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ._budget import (BLOCK_SHARE, MAX_BLOCK_BYTES, ROW_CACHE_SHARE, STORE_SHARE, budget,
                      format_bytes)
from .config import REFERENCE_RATES, get_config, parse_memory

__all__ = ["Candidate", "Choice", "Plan", "plan_sgd", "plan", "plan_ridge", "decide_store",
           "choose_machine_solver", "falkon_store_choice", "MIN_AUTO_CENTERS", "falkon_iterations", "row_cache_bytes", "row_cache_choice", "falkon_centers", "RATES", "STRATEGIES", "NEWTON_MAX_N",
           "NEWTON_DIRECT_MAX_N", "choose_newton_inner", "LOGISTIC_LBFGS_MAX_N",
           "LOGISTIC_NEWTON_MIN_C",
           "choose_logistic_solver"]

#: The reference machine's rates (see :data:`kernelkit.config.REFERENCE_RATES`);
#: the rates in force are ``kernelkit.get_config()["rates"]``.
RATES = REFERENCE_RATES


@dataclass(frozen=True)
class Candidate:
    """One strategy with its predicted cost.

    Attributes
    ----------
    name : str
    seconds : float
        Predicted time.
    memory : float
        Predicted peak bytes of the strategy's big arrays.
    feasible : bool
        Whether it is applicable and fits the memory budget.
    note : str
        Why it is infeasible, or what dominates its cost.
    """

    name: str
    seconds: float
    memory: float
    feasible: bool
    note: str = ""


@dataclass(frozen=True)
class Choice:
    """One automatic choice made for a fit, and why.

    Attributes
    ----------
    what : str
        What was decided, e.g. ``"store the Gram matrix"``.
    value : object
        The outcome (``True``/``False``, a solver name, ...).
    reason : str
        Why, in words a user reads (sizes against the budget, a forced setting).
    """

    what: str
    value: object
    reason: str

    def __str__(self):
        return f"{self.what}: {self.value} ({self.reason})"


@dataclass(frozen=True)
class Plan:
    """The planner's answer: the chosen strategy, all candidates, the reason, and
    the other automatic choices of the fit (:class:`Choice`)."""

    choice: str
    candidates: tuple = field(default_factory=tuple)
    reason: str = ""
    problem: dict = field(default_factory=dict)
    choices: tuple = field(default_factory=tuple)

    def with_choices(self, *choices):
        """This plan with more automatic choices recorded."""
        return replace(self, choices=self.choices + tuple(c for c in choices if c is not None))

    def explain(self) -> str:
        """The candidates as a table of predicted time and memory, the reason, and
        the other automatic choices."""
        head = ", ".join(f"{k}={v}" for k, v in self.problem.items())
        lines = [f"plan for {head}" if head else "plan"]
        if self.candidates:
            lines.append(f"{'strategy':<28}{'time':>12}{'memory':>12}  note")
        for c in self.candidates:
            mark = "->" if c.name == self.choice else ("  " if c.feasible else " x")
            lines.append(f"{mark}{c.name:<26}{_fmt_seconds(c.seconds):>12}"
                         f"{format_bytes(c.memory):>12}  {c.note}")
        lines.append(f"choice: {self.choice}: {self.reason}")
        lines.extend(f"  {c}" for c in self.choices)
        return "\n".join(lines)

    def __str__(self):
        return self.explain()


def _budget_of(memory):
    """A budget in bytes from None (unlimited), a number or a size such as ``"8GB"``."""
    if memory is None:
        return float("inf")
    return float(parse_memory(memory) if isinstance(memory, str) else memory)


def _fmt_seconds(s):
    if s == float("inf"):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.0f} ms"
    if s < 3600:
        return f"{s:.1f} s"
    return f"{s / 3600:.1f} h"


#: Above this many samples an approximate (Nystroem) ridge may replace an exact
#: one that fits in memory, if it is predicted faster; below it exact is kept.
FALKON_MIN_N = 20000
#: Seconds of every ridge fit besides its arithmetic (validation, planning, Python):
#: measured as what a primal fit of 8192 x 253 features takes beyond its counted work
#: (0.044 s measured, 0.013 s counted; ``benchmarks/planner.py``).
FIT_OVERHEAD_S = 0.03
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
    import math

    return int(min(max_iter, max(10, round(FALKON_ITERATIONS
                                          + 45.0 * math.log10(max(n, 1000) / 1e4)))))


def falkon_centers(n):
    """Default number of Nystroem centers for n samples: sqrt(n) log(n), in [100, 20000], <= n.

    M ~ sqrt(n) log n centers keep the optimal statistical rate of kernel
    ridge (Rudi, Camoriano & Rosasco 2015; Rudi et al. 2017).
    """
    import math

    return int(min(n, max(100, min(20000, math.ceil(math.sqrt(n) * math.log(max(n, 2)))))))


def _falkon_candidate(n, d, M, n_targets, r, budget):
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
    r = dict(get_config()["rates"], **(rates or {}))
    budget = _budget_of(get_config()["memory"] if memory is None else memory)
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
        fk = _falkon_candidate(n, d, int(n_centers), n_targets, r, budget)
        cands.append(fk)
        problem["M"] = int(n_centers)
        if fk.feasible and (not feasible or (n > FALKON_MIN_N and fk.seconds < min(
                c.seconds for c in feasible))):
            why = ("no exact strategy fits the memory budget" if not feasible else
                   f"n > {FALKON_MIN_N} and exact is predicted slower "
                   f"({_fmt_seconds(min(c.seconds for c in feasible))})")
            return Plan("falkon", tuple(cands),
                        f"predicted {_fmt_seconds(fk.seconds)}; {why}", problem)
    if not feasible:
        return Plan("none", tuple(cands), "nothing fits the memory budget", problem)
    best = min(feasible, key=lambda c: c.seconds)
    other = [c for c in feasible if c is not best]
    reason = (f"predicted {_fmt_seconds(best.seconds)}"
              + (f" vs {_fmt_seconds(other[0].seconds)} for {other[0].name}" if other else
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
    budget = _budget_of(get_config()["memory"] if memory is None else memory)

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
            fk = _falkon_candidate(n, d, falkon_centers(n), 1, r, budget)
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


def decide_store(what, nbytes, setting="auto", share=STORE_SHARE, memory=None):
    """Whether to keep a matrix in memory (a Gram matrix, K_nM, a kernel-row cache).

    Parameters
    ----------
    what : str
        What would be stored, e.g. ``"Gram matrix (n x n)"``.
    nbytes : float
        Its size.
    setting : {"auto", True, False}, default="auto"
        The user's setting: ``True``/``False`` force the answer.
    share : float, default=STORE_SHARE
        Fraction of the budget it may take under ``"auto"``.
    memory : int, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    Choice
        ``value`` is the decision (bool).
    """
    if setting is True or setting is False:
        return Choice(f"store {what}", setting, f"forced by the user ({format_bytes(nbytes)})")
    memory = budget() if memory is None else memory
    keep = float(nbytes) <= share * float(memory)
    rel = "<=" if keep else ">"
    part = "" if share == 1.0 else f"{share:g} of "
    return Choice(f"store {what}", keep, f"{format_bytes(nbytes)} {rel} {part}the memory "
                  f"budget {format_bytes(memory)}")


def falkon_store_choice(n, M, itemsize=8, setting="auto", memory=None):
    """Whether Falkon keeps K_nM (``itemsize`` bytes per entry) in memory: when it
    fits the whole budget next to the preconditioner's two M x M float64 factors."""
    return decide_store(f"K_nM ({n} x {M})", itemsize * n * M + 16.0 * M * M, setting,
                        share=1.0, memory=memory)


def row_cache_bytes(memory=None):
    """Bytes of SMO's kernel-row cache (when the Gram matrix is not stored):
    :data:`kernelkit._budget.ROW_CACHE_SHARE` of the budget."""
    memory = budget() if memory is None else memory
    return int(memory * ROW_CACHE_SHARE)


def row_cache_choice(n, memory=None):
    """The kernel-row cache of an SMO problem on n samples, as a :class:`Choice`."""
    nbytes = row_cache_bytes(memory)
    rows = int(min(n, nbytes // (8 * max(n, 1))))
    return Choice("kernel-row cache", f"{rows} of {n} rows",
                  f"{format_bytes(nbytes)} = {ROW_CACHE_SHARE:g} of the memory budget")


#: Up to this n, Newton solves each step's system by a Cholesky factorisation
#: (n^3/3 per step: cheap at this size, and exact); above it by preconditioned CG
#: with products with the stored K (O(n^2) per product, see
#: :func:`kernelkit.solvers.newton.newton_cg_dual`).
NEWTON_DIRECT_MAX_N = 500


def choose_newton_inner(n):
    """How Newton solves its steps' systems on n samples, as a :class:`Choice`.

    ``"direct"``: one n x n Cholesky factorisation per step (n <=
    :data:`NEWTON_DIRECT_MAX_N`); ``"cg"``: preconditioned CG, products with the
    stored K only, no factorisation of an n x n matrix.
    """
    if n <= NEWTON_DIRECT_MAX_N:
        return Choice("Newton's inner solve", "direct",
                      f"n={n} <= {NEWTON_DIRECT_MAX_N}: one n x n Cholesky per step is cheap")
    return Choice("Newton's inner solve", "cg",
                  f"n={n} > {NEWTON_DIRECT_MAX_N}: preconditioned CG, O(n^2) per product "
                  "with K, instead of an n^3/3 factorisation per step")


#: Up to this n, ``KernelLogisticRegression(solver="auto")`` solves binary problems
#: by L-BFGS in K's eigenbasis (one n^3 eigendecomposition; its answer up to
#: this size is the same as before "auto" existed); above it by Newton-CG.
LOGISTIC_LBFGS_MAX_N = 1000
#: From this C on, ``solver="auto"`` solves binary logistic problems by Newton at
#: every n (measured: n = 1,000, C = 10: L-BFGS 46 iterations, Newton 8 steps, 7x faster).
LOGISTIC_NEWTON_MIN_C = 10.0


def choose_logistic_solver(n, multinomial, solver="auto", memory=None, C=1.0):
    """The solver of :class:`~kernelkit.models.KernelLogisticRegression`, as a :class:`Choice`.

    ``"auto"``: L-BFGS for the multinomial model and for n <=
    :data:`LOGISTIC_LBFGS_MAX_N` while C < :data:`LOGISTIC_NEWTON_MIN_C`; else
    Newton (a factorisation or preconditioned CG on the stored Gram matrix)
    when that matrix fits the storage share of the budget, else L-BFGS with
    products with K only. L-BFGS's iterations grow with the conditioning
    C lambda_max(K) (7 at C = 0.01, ~800 at C = 1e4 on n = 400) while
    Newton's stay at 3-15 steps, so a grid's large-C corner goes to Newton.
    """
    if solver != "auto":
        return Choice("solver", solver, "set by the user")
    if multinomial:
        return Choice("solver", "lbfgs", "the multinomial model is solved by L-BFGS")
    if n <= LOGISTIC_LBFGS_MAX_N and C >= LOGISTIC_NEWTON_MIN_C:
        store = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, memory=memory)
        if store.value:
            return Choice("solver", "newton", f"C={C:g} >= {LOGISTIC_NEWTON_MIN_C:g}: L-BFGS "
                          "needs iterations growing with C, Newton a few steps")
    if n <= LOGISTIC_LBFGS_MAX_N:
        return Choice("solver", "lbfgs", f"n={n} <= {LOGISTIC_LBFGS_MAX_N}: L-BFGS in K's "
                      "eigenbasis (one n^3 eigendecomposition, cheap at this size)")
    store = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, memory=memory)
    if not store.value:
        return Choice("solver", "lbfgs", f"Newton needs the Gram matrix: {store.reason}")
    return Choice("solver", "newton", f"n={n} > {LOGISTIC_LBFGS_MAX_N}: Newton with a "
                  f"preconditioned CG inner solve, no n^3 step ({store.reason})")


#: Above this n, ``solver="auto"`` of the kernel machines prefers SGD to Newton's
#: O(n^3) per iteration.
NEWTON_MAX_N = 5000


def choose_machine_solver(n, loss, solver="auto", memory=None):
    """The solver of a kernel machine (:class:`~kernelkit.models.KernelMachine`).

    ``"auto"`` picks Newton (IRLS on the stored Gram matrix) for a smooth loss
    when n <= :data:`NEWTON_MAX_N` and the Gram matrix fits the storage share of
    the budget, else SGD (the hinge loss has no curvature for Newton).

    Parameters
    ----------
    n : int
    loss : str
        The loss's name.
    solver : str, default="auto"
        The user's setting; anything but ``"auto"`` is kept.
    memory : int, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    Choice
        ``value`` is ``"newton"``, ``"lbfgs"`` or ``"sgd"``.
    """
    if solver != "auto":
        return Choice("solver", solver, "set by the user")
    if loss in ("hinge", "epsilon_insensitive"):
        return Choice("solver", "sgd", f"the {loss} loss has no curvature for Newton")
    if n > NEWTON_MAX_N:
        return Choice("solver", "sgd", f"n={n} > {NEWTON_MAX_N}: Newton's n^3 steps too slow")
    store = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, memory=memory)
    if not store.value:
        return Choice("solver", "sgd", f"Newton needs the Gram matrix: {store.reason}")
    return Choice("solver", "newton", f"n={n} <= {NEWTON_MAX_N} and the Gram matrix fits: "
                  f"{store.reason}")


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
    r = dict(get_config()["rates"], **(rates or {}))
    T = int(iterations) if iterations else 10 * int(n)
    budget = _budget_of(memory)
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
    reason = f"fastest predicted ({_fmt_seconds(best.seconds)})"
    if runner:
        reason += f"; next: {runner[0].name} ({_fmt_seconds(runner[0].seconds)})"
    return Plan(best.name, tuple(cands), reason, problem)


#: Former name of :func:`plan_sgd` (it plans the SGD strategies; see also :func:`plan_ridge`).
plan = plan_sgd
