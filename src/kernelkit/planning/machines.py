"""The solvers of the kernel machines and of kernel logistic regression.

Newton (a factorisation or preconditioned CG on the stored Gram matrix),
L-BFGS or SGD, chosen from n, the loss, C and whether the Gram matrix fits the
storage share of the memory budget; each answer a
:class:`~kernelkit.planning.choices.Choice`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .._budget import require
from .._cores import cpu_pressure_percent, usable_cores
from .._units import format_bytes
from .choices import Choice, Plan
from .storage import decide_store

__all__ = ["rows_on_demand_choice", "rows_ahead_choice", "ROWS_AHEAD_MAX_PRESSURE",
           "ROWS_ON_DEMAND_MAX_FEATURES", "choose_machine_solver", "choose_newton_inner", "choose_logistic_solver",
           "NEWTON_MAX_N", "NEWTON_DIRECT_MAX_N", "LOGISTIC_LBFGS_MAX_N",
           "LOGISTIC_NEWTON_MIN_C", "machine_solver_choice", "gram_store_choice",
           "plan_machine_dual", "MachineDualPlan", "newton_factored_choice",
           "hard_margin_choice", "hard_tube_choice"]


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


def gram_store_choice(n, memory=None):
    """Whether the n x n float64 Gram matrix is stored (at most half the budget), as a
    :class:`Choice`; else products recompute its rows."""
    return decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, memory=memory)


def machine_solver_choice(n, loss_name, solver="auto", fit_intercept=False, *, user_loss=False,
                          smooth=True, memory=None):
    """The kernel machine's solver as a :class:`Choice`.

    Built-in losses without an intercept: :func:`choose_machine_solver`. A user
    loss (``user_loss``, named ``loss_name``, ``smooth`` when it has a
    curvature): Newton when it has a curvature (and n <= :data:`NEWTON_MAX_N`
    with the Gram matrix fitting), else L-BFGS (SGD's steps are compiled for the
    built-in losses). With ``fit_intercept``: Newton (n <=
    :data:`NEWTON_DIRECT_MAX_N`: each step one n x n Cholesky) or L-BFGS (SGD has
    no intercept).
    """
    if solver != "auto":
        return Choice("solver", solver, "set by the user")
    if not user_loss and not fit_intercept:
        return choose_machine_solver(n, loss_name, solver, memory=memory)
    why = (f"the user loss {loss_name!r}" if user_loss
           else "fit_intercept=True (SGD has no intercept)")
    if not smooth and user_loss:
        return Choice("solver", "lbfgs", f"{why} has no curvature for Newton: L-BFGS on its "
                      "value and gradient")
    store = gram_store_choice(n, memory)
    # with an intercept every Newton step is one n x n Cholesky (no CG variant yet):
    # direct steps only where choose_newton_inner takes them
    limit = NEWTON_DIRECT_MAX_N if fit_intercept else NEWTON_MAX_N
    if n <= limit and store.value:
        return Choice("solver", "newton", f"{why}: Newton, n={n} <= {limit} and the "
                      "Gram matrix fits")
    return Choice("solver", "lbfgs", f"{why}: L-BFGS (n={n} > {limit} or the Gram "
                  "matrix does not fit: products with K)")


@dataclass(frozen=True)
class MachineDualPlan:
    """What a Newton or L-BFGS fit of a kernel machine executes.

    Attributes
    ----------
    plan : Plan
        The estimator's ``plan_`` (before what the solver reports).
    solver : {"newton", "lbfgs"}
    step : {"intercept", "direct", "cg"} or None
        Newton's steps: with an unpenalised intercept, by Cholesky, or by
        preconditioned CG; None for L-BFGS.
    store : bool
        The Gram matrix is stored (Newton always; L-BFGS when it fits).
    """

    plan: Plan
    solver: str
    step: object
    store: bool


def plan_machine_dual(n, problem, solver_choice, fit_intercept=False, memory=None):
    """The plan of a kernel machine solved in u-space by Newton or L-BFGS.

    Parameters
    ----------
    n : int
    problem : dict
        What ``plan_`` says of the problem (n, d, the loss, the intercept).
    solver_choice : Choice
        ``value`` ``"newton"`` or ``"lbfgs"`` (:func:`machine_solver_choice`).
    fit_intercept : bool, default=False
    memory : float, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    MachineDualPlan

    Raises
    ------
    MemoryBudgetError
        Newton whose n x n Gram matrix does not fit the budget.
    """
    solver = solver_choice.value
    if solver == "newton":
        require(8.0 * n * n, f"solver='newton' on n={n} samples (the {n} x {n} Gram matrix)",
                hint="use solver='lbfgs' (products with K, never stored)"
                + ("" if fit_intercept else " or solver='sgd'"), memory=memory)
        store = Choice(f"store the {n} x {n} Gram matrix", True,
                       f"Newton's steps need it ({format_bytes(8.0 * n * n)})")
        if fit_intercept:
            step = Choice("Newton's step", "direct",
                          "with the intercept, one Cholesky factorisation per step")
            choices, kind = (solver_choice, store, step), "intercept"
        else:
            step = choose_newton_inner(n)
            choices, kind = (solver_choice, store, step), step.value
    else:
        store = gram_store_choice(n, memory)
        choices, kind = (solver_choice, store), None
    plan = Plan(solver, reason=solver_choice.reason, problem=problem, choices=choices)
    return MachineDualPlan(plan, solver, kind, bool(store.value))


def newton_factored_choice(factored):
    """Newton-CG's report of the steps it factored (its fallback at small alpha), or None."""
    if not factored:
        return None
    return Choice("Newton's steps factored", factored,
                  "their CG would have needed more than a factorisation's "
                  "worth of products with K (small alpha: ill-conditioned "
                  "steps); the block of the samples with curvature was "
                  "factored instead")


def hard_margin_choice():
    """C = inf in a classifier: the hard margin, as a :class:`Choice`."""
    return Choice("margin", "hard", "C=inf: SMO with an unbounded box (no upper bound on "
                  "alpha), stopped with an error if the classes' convex hulls in the "
                  "feature space meet")


def hard_tube_choice():
    """C = inf in a regressor: the hard epsilon-tube, as a :class:`Choice`."""
    return Choice("tube", "hard", "C=inf: every |f(x_i) - y_i| <= epsilon, by SMO with an "
                  "unbounded box, stopped with an error if no function fits the tube")


#: Up to this many features, SMO fills its stored Gram matrix row by row as it asks
#: for rows (:class:`kernelkit.solvers.smo.LazyGram`) instead of computing it whole.
ROWS_ON_DEMAND_MAX_FEATURES = 32


def rows_on_demand_choice(n, n_features, one_pass_rows=True):
    """Whether SMO's stored n x n Gram matrix is filled row by row on demand, as a
    :class:`Choice`.

    A row costs 2 n d flops at matrix-vector speed and n exps; the whole matrix
    n^2 d flops at matrix-product speed, plus a page fault per fresh page of
    its 8 n^2 bytes. SMO asks for about 0.4 n distinct rows on typical data
    (4,228 of 10,000 on adult): at small d the saved faults and exps outweigh
    the slower products; at large d the matrix product wins. Only kernels with
    a one-pass row (``one_pass_rows``: the isotropic RBF on dense rows) are
    filled row by row; others are computed whole.
    """
    if not one_pass_rows:
        return Choice("Gram matrix filled", "whole", "the kernel has no one-pass row "
                      "(only the isotropic RBF on dense rows): blocks of matrix products")
    lazy = int(n_features) <= ROWS_ON_DEMAND_MAX_FEATURES
    rel = "<=" if lazy else ">"
    return Choice("Gram matrix filled", "rows on demand" if lazy else "whole",
                  f"d={n_features} {rel} {ROWS_ON_DEMAND_MAX_FEATURES}: "
                  + ("each row computed when SMO first asks for it (about 0.4 n of n rows; "
                     "untouched rows cost no page faults)" if lazy else
                     "the n x n matrix in blocks of matrix products"))


#: A second thread maps pages ahead of SMO only while the processors are this free:
#: CPU pressure (Linux's /proc/pressure/cpu, "some avg10": the share of the last 10 s
#: in which a runnable task waited for a processor) below this many percent ...
ROWS_AHEAD_MAX_PRESSURE = 10.0


def rows_ahead_choice(can_map, cores=None, cpu_pressure=None, load=None):
    """Whether a second thread maps the pages of a new Gram buffer ahead of SMO's rows
    on demand (:class:`kernelkit.solvers.smo.LazyGram` ``(map_ahead=)``), as a
    :class:`Choice`.

    SMO runs on one thread; each row it first asks for is written into the next
    free row of the buffer, whose pages (80 KB a row at n = 10,000) are mapped
    just before, on SMO's thread (0.11-0.19 s for adult's 4,275 rows on this
    project's machine, a third of a warm solve). With a core to spare, a second
    thread maps them ahead instead, while SMO computes (the solve then took
    0.36-0.38 s instead of 0.47-0.48 s, as on a buffer mapped beforehand; a
    first ``KernelSVC`` fit on adult 10k in a fresh process 0.41-0.45 s instead
    of 0.53-0.57 s, within 0.01-0.04 s of a fit on a reused buffer). On a busy
    machine that thread waits for a processor, or takes SMO's (then 0.47-0.59 s
    for the solve): it is used only when the processors are free, by Linux's
    CPU pressure (below :data:`ROWS_AHEAD_MAX_PRESSURE` percent), else by the
    1-minute load average (below the cores minus one half). In a container the
    cores are those of its CPU quota and the pressure its own, where Linux
    keeps them (cgroup v2 ``cpu.max`` and ``cpu.pressure``): the host's figures
    would offer a core the quota does not give. Decided for new memory only (a
    reused buffer's pages are mapped already).

    Parameters
    ----------
    can_map : bool
        Whether the system can (:func:`kernelkit.solvers.buffers.can_map_ahead`:
        ``madvise(MADV_POPULATE_WRITE)`` through libc, Linux >= 5.14); no
        default, so that a recorded choice never claims it unasked.
    cores : int, optional
        Cores this process may use; default from its CPU affinity, at most the
        whole CPUs of its cgroup's CPU quota (``cpu.max`` of its group and parents).
    cpu_pressure : float, optional
        Percent of the last 10 s in which a runnable task waited for a processor;
        default read from the cgroup's ``cpu.pressure``, else
        ``/proc/pressure/cpu`` (None in both: the load average).
    load : float, optional
        The 1-minute load average, used without a CPU pressure; default
        ``os.getloadavg()`` (unavailable: no second thread, the reason says so).

    Returns
    -------
    Choice
        Value True or False.
    """
    if cores is None:
        cores = usable_cores()
    what = "pages of the new Gram buffer mapped ahead"
    on_smo = "each row's pages are mapped on SMO's thread just before it is written"
    if not can_map:
        return Choice(what, False, "this system cannot map pages by "
                      "madvise(MADV_POPULATE_WRITE) from a second thread (Linux >= 5.14): "
                      + on_smo)
    if cores < 2:
        return Choice(what, False, f"{cores} core: no core to spare for a second thread; "
                      + on_smo)
    if cpu_pressure is None and load is None:
        cpu_pressure = cpu_pressure_percent()
    if cpu_pressure is not None:
        busy = f"CPU pressure {cpu_pressure:.1f} % over the last 10 s"
        spare = cpu_pressure < ROWS_AHEAD_MAX_PRESSURE
        limit = f"{ROWS_AHEAD_MAX_PRESSURE:g} %"
    else:
        if load is None:
            try:
                load = os.getloadavg()[0]
            except OSError as exc:
                return Choice(what, False, f"{cores} cores, but neither the CPU pressure "
                              f"nor the load average can be read ({exc}): no sign of a core "
                              "to spare; " + on_smo)
        load = float(load)
        busy = f"load average {load:.2f}"
        spare = load < cores - 0.5
        limit = f"{cores - 0.5:g}"
    if not spare:
        return Choice(what, False, f"{cores} cores but {busy} (>= {limit}): no core to "
                      "spare, a second thread would wait for one or take SMO's; " + on_smo)
    return Choice(what, True, f"{cores} cores, {busy} (< {limit}): a second thread maps "
                  "the pages of the next free rows while SMO computes (rows stored in the "
                  "order first asked)")
