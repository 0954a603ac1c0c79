"""The plan of a :class:`~kernelkit.models.KernelPCA` fit: the eigen-solver and the centers.

:func:`plan_kernel_pca` decides, from n, the components asked for and the
memory budget, whether the eigenpairs come from the dense n x n kernel matrix
(LAPACK, or ARPACK's Lanczos iterations for a few components) or from the
Nystroem approximation, and with how many centers. Pure arithmetic on sizes.
"""

from __future__ import annotations

from .._budget import budget as configured_budget
from .._units import format_bytes
from ..exceptions import InvalidParameterError
from .choices import Choice, Plan
from .ridge import falkon_centers

__all__ = ["plan_kernel_pca", "DENSE_MAX_N", "DENSE_BYTES_PER_ENTRY"]

#: Above this many samples ``eigen_solver="auto"`` takes the Nystroem path (a size
#: threshold, not a timed cost model): the dense eigendecomposition costs O(n^3) flops
#: in a tridiagonal reduction that runs at memory speed, the Nystroem one
#: O(n M d + M^3) with M ~ sqrt(n) log n centers.
DENSE_MAX_N = 5000
#: Peak bytes per entry of the dense path: K and LAPACK's copy of it (float64).
DENSE_BYTES_PER_ENTRY = 16.0


def plan_kernel_pca(n, k, *, precomputed=False, eigen_solver="auto", n_centers="auto",
                    n_components=None, memory=None):
    """Every automatic decision of a KernelPCA fit, in one call.

    Parameters
    ----------
    n : int
        Training samples.
    k : int
        Components kept (``n_components`` capped at n).
    precomputed : bool, default=False
        ``kernel="precomputed"`` (K is given: the dense path under "auto").
    eigen_solver : {"auto", "dense", "arpack", "nystroem"}, default="auto"
    n_centers : int or "auto", default="auto"
    n_components : int or None
        The user's setting (None: all).
    memory : float, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    Plan
        ``choice`` is the eigen-solver; ``problem["M"]`` the Nystroem centers
        (Nystroem path only).

    Raises
    ------
    InvalidParameterError
        More components than centers on the Nystroem path.
    """
    dense_bytes = DENSE_BYTES_PER_ENTRY * n * n
    budget = configured_budget() if memory is None else memory
    M = None
    if precomputed and eigen_solver == "auto":
        choice = Choice("eigen-solver", "dense", "kernel='precomputed': K is given")
    elif eigen_solver != "auto":
        choice = Choice("eigen-solver", eigen_solver, "set by the user")
    elif n > DENSE_MAX_N:
        choice = Choice("eigen-solver", "nystroem", f"n={n} > {DENSE_MAX_N}: the dense "
                        "eigendecomposition would cost O(n^3)")
    elif dense_bytes > budget:
        choice = Choice("eigen-solver", "nystroem", f"the dense path needs "
                        f"{format_bytes(dense_bytes)} > the memory budget "
                        f"{format_bytes(budget)}")
    else:
        choice = Choice("eigen-solver", "dense", f"n={n} <= {DENSE_MAX_N} and "
                        f"{format_bytes(dense_bytes)} <= the memory budget "
                        f"{format_bytes(budget)}")
    if eigen_solver == "auto" and choice.value == "dense" and n > 200 and k < 10:
        choice = Choice("eigen-solver", "arpack", choice.reason + "; n > 200 and "
                        "n_components < 10: ARPACK's Lanczos iterations (scikit-learn's rule)")
    choices = [choice]
    if choice.value == "nystroem":
        if n_centers == "auto":
            M = min(n, max(falkon_centers(n), k if n_components else 0))
            choices.append(Choice("Nystroem centers", M, "n_centers='auto': sqrt(n) log n, "
                                  "in [100, 20000], at least n_components, at most n"))
        else:
            M = min(n, int(n_centers))
            if n_components is not None and k > M:
                raise InvalidParameterError(
                    f"n_components={n_components} > n_centers={n_centers}: the "
                    "Nystroem path "
                    "has at most one component per center; raise n_centers or lower "
                    "n_components")
            choices.append(Choice("Nystroem centers", M, "set by the user"
                                  + (f" (capped at n={n})" if M < n_centers else "")))
    return Plan(choice.value, reason=choice.reason,
                problem={"n": n, "k": k} if M is None else {"n": n, "k": k, "M": M},
                choices=tuple(choices))
