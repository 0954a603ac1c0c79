"""The plans of the Dask estimators (:mod:`kernelkit.dask`), made on the client before any pass.

:func:`plan_dask_ridge` decides what :class:`~kernelkit.dask.DaskKernelRidge`
and its classifier run: the number of centers (the in-memory rule of
:func:`~kernelkit.planning.ridge.falkon_centers`), Falkon or one pass of
features, and whether the K_nM chunks stay on the workers
(:func:`persist_choice`, from the room the caller measured on the cluster).
:func:`plan_dask_kmeans` records the Nystroem centers of
:class:`~kernelkit.dask.DaskKernelKMeans`. Pure arithmetic: the cluster's
memory comes in as a number.
"""

from __future__ import annotations

import dataclasses

from .._budget import STORE_SHARE
from .._units import format_bytes
from ..exceptions import InvalidParameterError
from .choices import Choice, Plan
from .ridge import falkon_centers

__all__ = ["DaskRidgePlan", "plan_dask_ridge", "plan_dask_kmeans", "persist_choice"]


@dataclasses.dataclass(frozen=True)
class DaskRidgePlan:
    """What a Dask kernel ridge fit runs.

    Attributes
    ----------
    plan : Plan
        The estimator's ``plan_``.
    solver : {"features", "falkon"}
    n_centers : int
        Centers M (Falkon, Nystroem) or random features D.
    solver_choice : Choice
    store_choice : Choice or None
        Falkon: whether the K_nM chunks are persisted (given to the operator).
    """

    plan: Plan
    solver: str
    n_centers: int
    solver_choice: Choice
    store_choice: object = None


def persist_choice(nbytes, setting="auto", *, room=None, local_budget=None):
    """Whether K_nM chunks are persisted (kept on the workers), as a :class:`Choice`.

    Parameters
    ----------
    nbytes : float
        Size of the K_nM chunks.
    setting : {"auto", True, False}, default="auto"
        The estimator's ``persist``.
    room : float, optional
        The workers' total memory limit in bytes (None: unknown).
    local_budget : float, optional
        The memory budget when there is no cluster (the local scheduler): then
        ``room`` is not read.
    """
    what = "persist the K_nM chunks"
    if setting != "auto":
        return Choice(what, bool(setting), f"persist={setting!r} set by the user")
    if local_budget is not None:
        ok = float(nbytes) <= STORE_SHARE * float(local_budget)
        return Choice(what, ok, f"{format_bytes(nbytes)} against half the memory budget "
                      "on the local scheduler")
    if room is None:
        return Choice(what, False, "the workers' memory limit is unknown: recomputed")
    ok = nbytes <= STORE_SHARE * room
    return Choice(what, ok, f"{format_bytes(nbytes)} against half of the workers' "
                  f"{format_bytes(room)}")


def plan_dask_ridge(n, d, *, solver="auto", n_centers="auto", alpha_list=False,
                    weighted=False, itemsize=8, persist="auto", room=None, local_budget=None,
                    name="DaskKernelRidge"):
    """Every automatic decision of a Dask kernel ridge fit, in one call.

    Parameters
    ----------
    n, d : int
        Rows and columns of X.
    solver : {"auto", "features", "falkon"}, default="auto"
    n_centers : int or "auto", default="auto"
        M, capped at n; ``"auto"``: sqrt(n) log(n) within [100, 20000].
    alpha_list : bool, default=False
        ``alpha`` is a list, chosen by GCV from the features' normal equations.
    weighted : bool, default=False
        ``sample_weight`` was given.
    itemsize : int, default=8
        Bytes of one K_nM entry.
    persist : {"auto", True, False}, default="auto"
    room, local_budget : float, optional
        The workers' memory limit, or the budget on the local scheduler
        (see :func:`persist_choice`).
    name : str
        The estimator's name, for errors.

    Returns
    -------
    DaskRidgePlan

    Raises
    ------
    InvalidParameterError
        A list of alphas with Falkon or with sample weights.
    """
    M = falkon_centers(n) if n_centers == "auto" else min(int(n_centers), n)
    store = None
    if alpha_list:  # chosen by GCV from the features' one pass
        if solver == "falkon":
            raise InvalidParameterError(
                f"{name}: a list of alphas is chosen by GCV from the "
                "normal equations of solver='features'; Falkon takes one alpha")
        if weighted:
            raise InvalidParameterError(
                f"{name}: choosing alpha by GCV does not take "
                "sample_weight; pass one alpha")
        choice = Choice("solver", "features", "a list of alphas: GCV along the path of the "
                        "one pass's normal equations" if solver == "auto"
                        else f"solver={solver!r} set by the user")
    elif solver == "auto":
        store = persist_choice(itemsize * n * M, persist, room=room, local_budget=local_budget)
        chosen = "falkon" if store.value else "features"
        choice = Choice(
            "solver", chosen, "K_nM fits on the workers: Falkon's iterations read it"
            if store.value else "K_nM does not fit on the workers: one pass of "
            "features instead of recomputed Falkon iterations")
    else:
        choice = Choice("solver", solver, f"solver={solver!r} set by the user")
    if choice.value == "falkon" and store is None:
        store = persist_choice(itemsize * n * M, persist, room=room, local_budget=local_budget)
    store = store if choice.value == "falkon" else None
    plan = Plan(choice.value, reason=choice.reason, problem={"n": n, "d": d, "M": M},
                choices=tuple(c for c in (choice, store) if c is not None))
    return DaskRidgePlan(plan, choice.value, M, choice, store)


def plan_dask_kmeans(n, d, n_components, n_clusters):
    """The plan of a :class:`~kernelkit.dask.DaskKernelKMeans` fit: its Nystroem centers.

    Returns
    -------
    Plan
        ``choice`` is ``"nystroem"``; one :class:`Choice`, the centers (capped at n).
    """
    M = min(int(n_components), n)
    reason = (f"n_components={n_components} rows drawn uniformly on the client"
              if M == int(n_components) else f"n_components={n_components} capped at n={n}")
    return Plan("nystroem", reason="Lloyd's iterations on Nystroem features, one tree sum "
                "per iteration", problem={"n": n, "d": d, "M": M, "k": int(n_clusters)},
                choices=(Choice("Nystroem centers", M, reason),))
