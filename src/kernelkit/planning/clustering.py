"""The plans of the clustering estimators: what is stored, which tree algorithm, which space.

- :func:`plan_kernel_kmeans`: :class:`~kernelkit.models.KernelKMeans` exact
  (the Gram matrix stored when it fits) or on Nystroem features;
- :func:`distance_space_choice`: the distance methods' space, the kernel's own
  or Nystroem's;
- :func:`tree_algorithm_choice`: how
  :class:`~kernelkit.models.KernelAgglomerativeClustering` builds its tree
  within the budget;
- :func:`neighbourhood_store_bytes` and :func:`neighbourhoods_choice`:
  :class:`~kernelkit.models.KernelDBSCAN` keeps its radius pairs while they fit
  (a rule applied as the pairs are counted, since their number is known only
  then).

Pure arithmetic on sizes; each answer a :class:`~kernelkit.planning.choices.Choice`.
"""

from __future__ import annotations

from .._budget import STORE_SHARE, budget as configured_budget, fits, require
from .._units import format_bytes
from .choices import Choice, Plan
from .storage import decide_store

__all__ = ["plan_kernel_kmeans", "distance_space_choice", "tree_algorithm_choice",
           "LINKAGE_BYTES_PER_PAIR", "neighbourhood_store_bytes", "neighbourhoods_choice"]

#: Peak bytes per pair i < j: the condensed float64 distances and scipy's working
#: copy of them (its nearest-neighbour chain updates a copy in place).
LINKAGE_BYTES_PER_PAIR = 16


def plan_kernel_kmeans(n, k, approximation=None, memory=None):
    """The plan of a KernelKMeans fit of n points into k clusters.

    ``approximation="nystroem"``: Euclidean Lloyd on Nystroem features (the
    user's choice); else Lloyd's iterations on kernel values, the n x n Gram
    matrix stored when it takes at most half the budget.

    Returns
    -------
    Plan
        ``choice`` ``"exact"`` (its store :class:`Choice` first) or ``"nystroem"``.
    """
    if approximation == "nystroem":
        return Plan("nystroem", reason="approximation='nystroem': Euclidean Lloyd on Nystroem "
                    "features", problem={"n": n, "k": k},
                    choices=(Choice("approximation", "nystroem", "set by the user"),))
    store = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, memory=memory)
    return Plan("exact", reason="approximation=None: Lloyd's iterations on kernel "
                "values", problem={"n": n, "k": k}, choices=(store,))


def distance_space_choice(n, approximation=None, n_centers=None, n_features=None):
    """The space of the feature-space distances of n points, as a :class:`Choice`.

    ``approximation=None``: the kernel itself (n(n-1)/2 kernel values);
    ``"nystroem"``: the Euclidean distances of ``n_features`` Nystroem features
    from ``n_centers`` uniform centers (M at most n; the features may be fewer
    when centers are dependent).
    """
    if approximation != "nystroem":
        return Choice("approximation", "exact",
                      f"approximation=None: distances from the kernel itself, n(n-1)/2 = "
                      f"{n * (n - 1) // 2} kernel values")
    M = n_centers
    return Choice("approximation", "nystroem",
                  f"approximation='nystroem': Euclidean distances of {n_features} Nystroem "
                  f"features from M = {M} uniform centers (n M = {n * M} kernel values "
                  f"instead of n(n-1)/2 = {n * (n - 1) // 2}); the distances are those of "
                  "the Nystroem approximation of the kernel")


def tree_algorithm_choice(n, linkage, approximation=None, memory=None):
    """How the tree is built, as a :class:`Choice`.

    ``"condensed distances"`` (scipy.cluster.hierarchy on the n(n-1)/2
    distances) when they and scipy's copy fit the budget; else
    ``"minimum spanning tree"`` for single linkage and ``"nearest-neighbour
    chain"`` for Ward's linkage on Nystroem features.

    Raises
    ------
    MemoryBudgetError
        For complete or average linkage, or exact Ward, when the distances do
        not fit; before any work.
    """
    n_pairs = n * (n - 1) // 2
    need = LINKAGE_BYTES_PER_PAIR * n_pairs
    if fits(need, memory=memory):
        return Choice("tree", "condensed distances",
                      f"the {n_pairs} pairwise distances and scipy's working copy take "
                      f"{format_bytes(need)}, within the memory budget: "
                      "scipy.cluster.hierarchy.linkage")
    if linkage == "single":
        return Choice("tree", "minimum spanning tree",
                      f"the {n_pairs} pairwise distances ({format_bytes(need)}) do not fit the "
                      "memory budget: Prim's minimum spanning tree, one row of distances at a "
                      "time (O(n) memory, n rows of kernel values)")
    if linkage == "ward" and approximation == "nystroem":
        return Choice("tree", "nearest-neighbour chain",
                      f"the {n_pairs} pairwise distances ({format_bytes(need)}) do not fit the "
                      "memory budget: Ward's nearest-neighbour chain on the centroids of the "
                      "Nystroem features (O(n M) memory)")
    require(need, f"{linkage} linkage of {n} points: the n(n-1)/2 = {n_pairs} pairwise "
                  "feature-space distances and scipy's working copy (16 bytes per pair)",
            hint="use linkage='single' (a minimum spanning tree in O(n) memory), "
                 "linkage='ward' with approximation='nystroem' (O(n M) memory), a subsample, "
                 "or KernelDBSCAN, whose memory grows with n", memory=memory)
    raise AssertionError("require raises")  # pragma: no cover


def neighbourhood_store_bytes(memory=None):
    """Bytes the radius pairs may take to be kept: :data:`~kernelkit._budget.STORE_SHARE`
    of the budget."""
    return STORE_SHARE * (configured_budget() if memory is None else memory)


def neighbourhoods_choice(stored, n_pairs, nbytes, limit):
    """The radius pairs kept (one pass of distances) or recomputed, as a :class:`Choice`.

    ``nbytes`` is what the ``n_pairs`` pairs take, ``limit`` the
    :func:`neighbourhood_store_bytes` they were held to.
    """
    need = format_bytes(nbytes)
    if not stored:
        return Choice("neighbourhoods", "recomputed",
                      f"the {n_pairs} pairs within eps need {need}, more than "
                      f"{STORE_SHARE:g} of the memory budget "
                      f"({format_bytes(limit / STORE_SHARE)}): distances "
                      "recomputed by row blocks in each pass")
    return Choice("neighbourhoods", "stored",
                  f"the {n_pairs} pairs within eps take {need}, within "
                  f"{STORE_SHARE:g} of the memory budget: one pass of distances")
