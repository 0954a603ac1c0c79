"""The solvers of the kernel machines and of kernel logistic regression.

Newton (a factorisation or preconditioned CG on the stored Gram matrix),
L-BFGS or SGD, chosen from n, the loss, C and whether the Gram matrix fits the
storage share of the memory budget; each answer a
:class:`~kernelkit.planning.choices.Choice`.
"""

from __future__ import annotations

from .choices import Choice
from .storage import decide_store

__all__ = ["choose_machine_solver", "choose_newton_inner", "choose_logistic_solver",
           "NEWTON_MAX_N", "NEWTON_DIRECT_MAX_N", "LOGISTIC_LBFGS_MAX_N",
           "LOGISTIC_NEWTON_MIN_C"]


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
