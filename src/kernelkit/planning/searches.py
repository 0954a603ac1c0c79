"""The hyperparameter searches' records: what a *CV search decided and how it served
its kernel blocks (:class:`~kernelkit.models.KernelSVCCV` and the other path
searches, :class:`~kernelkit.models.KernelRidgeCV`'s exact and Nystroem paths,
:class:`~kernelkit.models.LearnedKernelRidge`'s tuning centers).

Each function takes plain values -- what the search chose or found -- and returns
the :class:`~kernelkit.planning.Choice` kept in the estimator's ``plan_``, so that
every record of a search is written in this room.
"""

from __future__ import annotations

from .._budget import budget as memory_budget
from .._cores import usable_cores
from .choices import Choice

__all__ = ["fold_workers", "criterion_choice", "path_blocks_choice", "fold_threads_choice",
           "path_order_choice",
           "warm_starts_choice", "factorisation_choice", "kernel_matrices_choice",
           "kfold_matrices_choice", "search_centers_choice", "center_blocks_choice",
           "kmm_rank_choice", "tuning_centers_choice"]


def criterion_choice(criterion, user_set):
    """How the ridge search scores a candidate (``"loo"``, ``"gcv"``, ``"<k>-fold"``)."""
    return Choice("criterion", criterion,
                  "set by the user" if user_set else "cv='auto': exact LOO for exact, GCV beyond")


def path_blocks_choice(from_distances, stored, n, reused):
    """Where a path search's (candidate, fold) kernel blocks come from."""
    return Choice(
        "kernel blocks", "from one squared-distance matrix" if from_distances else
        "one Gram matrix per kernel candidate" if stored else "rows on demand",
        f"each (candidate, fold) block by one exp pass over the {n} x {n} squared "
        "distances" + (" into reused buffers" if reused else "")
        if from_distances else "not every candidate is a kernel of the Euclidean "
        "distance on dense rows" if stored else "no stored matrix")


def fold_threads_choice(workers, n_tasks):
    """How many threads serve a path search's (candidate, fold) paths."""
    return Choice("folds in parallel", workers,
                  f"{workers} threads over the {n_tasks} (candidate, fold) "
                  "paths, each with its own block buffers" if workers > 1 else
                  "one core, one path, or blocks not from the distance matrix, "
                  "or the memory budget holds one set of buffers")


def path_order_choice(workers):
    """In which order the threads take a path search's (candidate, fold) paths."""
    return Choice("path order", "longest first" if workers > 1 else "as listed",
                  "every candidate's first fold, then the other folds, those of the candidate "
                  "whose first fold took the most thread time first (no thread left with one "
                  "long path at the end)" if workers > 1 else "one thread: the order "
                  "changes nothing")


def warm_starts_choice(name, stored):
    """Whether the folds walk the path of ``name`` (C upwards, alpha downwards) warm."""
    way = "upwards" if name == "C" else "downwards"
    return Choice(f"warm starts along {name}", bool(stored),
                  f"each fold walks {name} {way} from the previous solution"
                  if stored else "cold fits per fold (no stored Gram)")


def factorisation_choice(factorisation, why):
    """The exact ridge path's factorisation (eigen or Cholesky, by the count of alphas)."""
    return Choice("factorisation", factorisation, why)


def kernel_matrices_choice(from_distances, n_candidates):
    """The exact LOO/GCV path's kernel matrices."""
    return Choice("kernel matrices", "from one squared-distance matrix" if from_distances
                  else "one Gram matrix per candidate",
                  f"{n_candidates} candidates of a kernel of the Euclidean distance"
                  if from_distances else "a single candidate, or a kernel without a "
                  "distance profile, or non-array input")


def kfold_matrices_choice(from_distances):
    """The exact k-fold path's kernel matrices."""
    return Choice("kernel matrices", "from one squared-distance matrix" if from_distances
                  else "one Gram matrix per candidate", "each fold's blocks by indexing")


def search_centers_choice(count, wanted, auto, how):
    """The Nystroem path's centers: ``count`` drawn of ``wanted``."""
    return Choice("centers", count, f"{wanted} wanted ("
                  + ("max(sqrt(n) log n, min(n / 4, 1000))" if auto else "n_centers")
                  + f"); {how}")


def center_blocks_choice(from_distances):
    """The Nystroem path's K_nM blocks."""
    return Choice("kernel blocks", "from squared distances to the centers" if from_distances
                  else "one K_nM block per candidate",
                  "kernels of the Euclidean distance: one distance block serves every "
                  "candidate" if from_distances else "a kernel without a distance profile")


def kmm_rank_choice(rank, rtol):
    """A report: the rank of K_MM kept (the smallest over the candidates)."""
    return Choice("K_MM rank", rank, f"null directions of K_MM dropped (eigenvalues <= "
                  f"{rtol:g} of the largest; the smallest rank over the candidates)")


def tuning_centers_choice(M, auto, n, d):
    """:class:`~kernelkit.models.LearnedKernelRidge`'s centers for the Nystroem objective."""
    return Choice("tuning centers", M, f"{M} rows drawn uniformly" + (
        " (n_centers='auto': min(n, 500))" if auto else "")
        + f"; each step costs O(n M^2 + n M d) = {n * M * (M + d):.2g} flops")


def fold_workers(n, n_tasks):
    """Threads for the (candidate, fold) paths: the cores this process may use
    (:func:`kernelkit._cores.usable_cores`), at most
    the number of paths, and as many as the memory budget holds a set of block buffers
    (about 8 n^2 bytes each) beside the 8 n^2 of the squared distances."""
    cores = usable_cores()
    fits = int(memory_budget() // (8.0 * n * n)) - 1
    return max(1, min(cores, n_tasks, fits))
