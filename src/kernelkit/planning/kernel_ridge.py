"""The plan of a :class:`~kernelkit.models.KernelRidge` fit, made before any numerics run.

:func:`plan_kernel_ridge` takes the sizes and the estimator's settings and
makes every size- or budget-dependent decision of the fit in one call: the
strategy (:func:`~kernelkit.planning.ridge.plan_ridge`: dual, primal or Falkon)
and the number of centers within the budget, the dual solver's precision,
whether the exact Gram matrix fits at all, and whether Falkon keeps K_nM. The
answer, a :class:`RidgeFitPlan`, holds the :class:`~kernelkit.planning.choices.Plan`
the estimator keeps as ``plan_`` and the plain values the solvers are given.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._budget import budget as configured_budget, require
from .._units import format_bytes
from .choices import Choice, Plan
from .ridge import falkon_centers, plan_ridge
from .storage import falkon_store_choice

__all__ = ["RidgeFitPlan", "plan_kernel_ridge", "precision_choice", "MIXED_MIN_N"]

#: From this n on, precision="auto" solves the dual in mixed precision: the n^3/3
#: Cholesky dominates (float64 at n = 12000: ~10 s here) and the float32 one takes
#: half of it, while the float64 products of the iterations cost O(n^2 d) each.
MIXED_MIN_N = 12000


@dataclasses.dataclass(frozen=True)
class RidgeFitPlan:
    """What a kernel ridge fit executes.

    Attributes
    ----------
    plan : Plan
        The strategy and every automatic choice (the estimator's ``plan_``).
    solver : {"dual", "primal", "falkon"}
    n_centers : int or None
        Falkon's M (None for a precomputed kernel).
    mixed : bool
        The dual solve in mixed precision (float32 factor, float64 CG).
    store_knm : Choice or None
        Falkon: whether K_nM is kept in memory (given to the solver as it is).
    merged : object or None
        Falkon: the repeated rows merged into weighted rows, as
        ``find_repeated_rows`` found them (None when every row is distinct).
    rows_distinct : bool
        Falkon: the rows were compared and every one is distinct (then uniform
        centers, drawn without replacement, are distinct rows already).
    """

    plan: Plan
    solver: str
    n_centers: object = None
    mixed: bool = False
    store_knm: object = None
    merged: object = None
    rows_distinct: bool = False


def plan_kernel_ridge(n, d, kernel, *, n_features=None, n_targets=1, alpha=1.0, solver="auto",
                      n_centers="auto", precision="auto", itemsize=8, memory=None,
                      find_repeated_rows=None, mixed_min_n=MIXED_MIN_N):
    """Every automatic decision of a kernel ridge fit, in one call.

    Parameters
    ----------
    n, d : int
        Training rows and input features.
    kernel : Kernel or "precomputed"
        Only compared with ``"precomputed"``, its ``input_kind`` read and its
        ``repr`` quoted in errors.
    n_features : int, optional
        Dimension D of the kernel's exact feature map, if it has one.
    n_targets : int, default=1
    alpha : ndarray of shape (n_targets,), default=1.0
    solver : {"auto", "dual", "primal", "falkon"}, default="auto"
    n_centers : int or "auto", default="auto"
    precision : {"auto", "float64", "mixed"}, default="auto"
    itemsize : int, default=8
        Bytes of one K_nM entry (4 for float32 blocks).
    memory : float, optional
        Budget in bytes; default: the configured one.
    find_repeated_rows : callable, optional
        Called (without arguments) only when Falkon is planned; returns what it
        found with the attributes ``merged`` (the training rows merged into
        distinct weighted rows, or None), ``all_distinct`` (bool: compared, none
        repeated) and ``choice`` (the :class:`Choice` that reports it), as
        :func:`kernelkit.solvers.falkon_rows.merge_rows_choice` does. K_nM has
        as many rows as remain.
    mixed_min_n : int, default=MIXED_MIN_N
        From this n on, ``precision="auto"`` picks mixed precision.

    Returns
    -------
    RidgeFitPlan

    Raises
    ------
    ValueError
        Falkon with a precomputed kernel, primal without a finite feature map.
    MemoryBudgetError
        The exact Gram matrix does not fit the budget (says what would).
    """
    budget = configured_budget() if memory is None else memory
    precomputed = kernel == "precomputed"
    M = None if precomputed else (falkon_centers(n) if n_centers == "auto"
                                  else min(int(n_centers), n))
    auto_centers = M is not None and solver == "auto" and n_centers == "auto"
    plan = plan_ridge(n, d, n_components=n_features, memory=budget,
                      n_centers="auto" if auto_centers else M, n_targets=n_targets)
    if auto_centers:
        M = plan.problem.get("M", M)
    chosen = plan.choice if solver == "auto" else solver
    if solver != "auto":
        agree = ("as the planner would pick" if plan.choice == solver else
                 f"the planner would pick {plan.choice}")
        plan = dataclasses.replace(
            plan, choice=solver,
            reason=f"solver={solver!r} set by the user ({agree}: {plan.reason})")
    if chosen == "falkon" and precomputed:
        raise ValueError("solver='falkon' needs the kernel itself to evaluate K(X, "
                         "centers); it cannot work from kernel='precomputed'. Use "
                         "solver='dual' or pass a kernel")
    if chosen == "primal" and n_features is None:
        raise ValueError(f"solver='primal' needs a kernel with a finite explicit feature "
                         f"map (linear, polynomial); {kernel!r} has none. Use "
                         "solver='dual'")
    mixed = False
    if chosen in ("dual", "none"):
        chosen = "dual"
        if not precomputed:
            choice = precision_choice(precision, kernel, n, alpha, budget, mixed_min_n)
            plan = plan.with_choices(choice)
            mixed = choice.value == "mixed"
            require((4.0 if mixed else 8.0) * n * n,
                    f"exact kernel ridge on n={n} samples (the {n} x {n} "
                    f"{'float32' if mixed else 'float64'} Gram matrix)",
                    hint=_no_fit_hint(plan), memory=budget)
    store = merged = None
    rows_distinct = False
    if chosen == "falkon":
        found = find_repeated_rows() if find_repeated_rows is not None else None
        if found is not None:
            merged, rows_distinct = found.merged, bool(found.all_distinct)
        rows = n if merged is None else len(merged.X)
        store = falkon_store_choice(rows, M, itemsize, memory=budget)
        plan = plan.with_choices(None if found is None else found.choice, store)
    return RidgeFitPlan(plan, chosen, M, mixed, store, merged, rows_distinct)


def precision_choice(precision, kernel, n, alpha, memory, mixed_min_n=MIXED_MIN_N):
    """The dual solver's arithmetic ("float64" or "mixed") as a :class:`Choice`."""
    if precision != "auto":
        return Choice("precision", precision, "set by the user")
    if getattr(kernel, "input_kind", None) != "vector":
        return Choice("precision", "float64", "not a vector kernel: the mixed solver's "
                      "recomputed products would cost too much")
    if np.size(alpha) > 1 and not np.all(alpha == alpha.flat[0]):
        return Choice("precision", "float64", "one alpha per target: one eigendecomposition")
    if 8.0 * n * n > memory:  # the float32 matrix is the smaller need, fitting or not
        return Choice("precision", "mixed", f"the float64 Gram matrix "
                      f"({format_bytes(8.0 * n * n)}) does not fit the budget "
                      f"{format_bytes(memory)}; the float32 one needs half")
    if n >= mixed_min_n:
        return Choice("precision", "mixed", f"n = {n} >= {mixed_min_n}: float32 Cholesky "
                      "(half the time and memory) preconditioning float64 conjugate gradient")
    return Choice("precision", "float64", f"n = {n} < {mixed_min_n}: one float64 Cholesky")


def _no_fit_hint(plan):
    """What to do when nothing fits: said in the MemoryBudgetError of exact ridge."""
    fk = next((c for c in plan.candidates if c.name == "falkon"), None)
    if fk is None or fk.feasible:
        return "subsample"
    return (f"use solver='falkon' with fewer n_centers (with M={plan.problem.get('M')} it "
            f"needs {format_bytes(fk.memory)}), or subsample")
