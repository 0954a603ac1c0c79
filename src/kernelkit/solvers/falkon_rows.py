"""What Falkon finds in its training rows, reported as :class:`~kernelkit.planning.Choice`\\ s.

Repeated rows merged into weighted rows (:func:`merge_rows_choice`, an exact
reduction for the squared loss) and the centers drawn among the rows, each
distinct row once (:func:`draw_centers`). These are findings about the data,
not decisions of size: the planner (:func:`kernelkit.planning.plan_kernel_ridge`)
sizes K_nM from the rows that remain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..features.centers import distinct_centers, select_centers, uniform_centers
from .._choices import Choice
from .duplicates import merge_duplicate_rows

__all__ = ["RepeatedRows", "merge_rows_choice", "draw_centers", "distinct_row_centers"]


@dataclass(frozen=True)
class RepeatedRows:
    """What :func:`merge_rows_choice` found in the training rows.

    Attributes
    ----------
    merged : MergedRows or None
        The rows merged into distinct weighted rows; None when nothing was merged.
    checked : bool
        Whether the rows were compared at all (arrays only; not sparse or objects).
    choice : Choice
        The finding as ``plan_`` reports it (its text is for reading only).
    """

    merged: object
    checked: bool
    choice: Choice

    @property
    def all_distinct(self):
        """True when the rows were compared and every one is distinct."""
        return self.checked and self.merged is None


def merge_rows_choice(X, y, sample_weight):
    """Falkon's rows: repeated rows merged into one weighted row (an exact reduction).

    For the squared loss, identical rows x_i = x (weights s_i) are one row with
    weight S = sum s_i and target the s-weighted mean of their y_i: the same
    minimiser (:mod:`kernelkit.solvers.duplicates`). Falkon is then run on the
    k distinct rows with weights ``S * k / n`` and ``alpha * k / n``, which
    keeps its lam = alpha / n and its K'SK / n scaling, so its iterates are
    those of the unmerged problem (up to rounding) at k / n of the cost per
    iteration. Arrays only: sparse or string input is not checked.

    Returns
    -------
    RepeatedRows
        The merged rows (or None), whether the rows were compared, and the
        :class:`Choice` reporting it; decisions read its fields, not the text.
    """
    n = len(y)
    if not isinstance(X, np.ndarray) or X.dtype == object:  # sparse rows, objects (trees...)
        what = ("objects (sets, trees, ...)" if isinstance(X, np.ndarray)
                else f"{type(X).__name__} input")
        return RepeatedRows(None, False, Choice("repeated rows", "not checked",
                                                f"{what}: rows are compared as arrays only"))
    merged = merge_duplicate_rows(X, y, sample_weight)
    if merged is None:
        return RepeatedRows(None, True, Choice("repeated rows", "none",
                                               f"all {n} rows distinct"))
    k = len(merged.X)
    return RepeatedRows(merged, True, Choice(
        "repeated rows", "merged",
        f"{k} distinct of {n} rows: each repeated row fitted once, weighted by its count "
        f"(targets averaged; the same solution, K_nM {k / n:.0%} of the size)"))


def draw_centers(kernel, X, M, method, rng, merged=None, rows_distinct=False):
    """Falkon's M centers drawn from X by ``method``, each distinct row once.

    ``method="distinct"`` with merged rows draws uniformly among the distinct
    rows (:func:`distinct_row_centers`); otherwise the rows drawn by
    :func:`~kernelkit.features.centers.select_centers` (``"distinct"`` falls back
    to ``"uniform"``) with repeats dropped, their counts weighting the
    preconditioner (the model is the same). With ``rows_distinct`` (every row
    of X was found distinct, :func:`merge_rows_choice`), uniform draws (without
    replacement) are distinct rows already and are not compared again (a sort
    of the M drawn rows' bytes: 0.1-0.2 s for 13,500 Fashion-MNIST rows).

    Returns
    -------
    centers : ndarray of shape (M', n_features)
    weights : ndarray of shape (M',) or None
    choice : Choice
        What was drawn and dropped.
    """
    if method == "distinct" and merged is not None:
        return distinct_row_centers(merged, M, rng)
    idx = select_centers(kernel, X, M, "uniform" if method == "distinct" else method, rng)
    if rows_distinct and method in ("uniform", "distinct"):
        kept, counts = idx, None  # distinct indices of distinct rows
    else:
        kept, counts = distinct_centers(X, idx)
    weights = None if len(kept) == len(idx) else counts
    return X[kept], weights, Choice(
        "distinct centers", len(kept),
        (f"{len(idx)} drawn, {len(idx) - len(kept)} repeated rows dropped (the model "
         "is the same; their counts weight the preconditioner; "
         "center_selection='distinct' draws M different rows)" if len(kept) < len(idx)
         else f"all {len(idx)} drawn rows distinct") + "; " + _HOW_DRAWN.get(method, method))


#: How each ``center_selection`` draws, as the plan says it. Uniform is the default:
#: on Fashion-MNIST (the README's model; 20k training images, 10k test) ridge-leverage
#: centers gave 0.8748 / 0.8824 accuracy at M = 2000 / 4000 and uniform ones 0.8764 /
#: 0.8853; on 5k images (2k test, M = 250 / 500) uniform 0.8480 / 0.8640, leverage
#: 0.8450 / 0.8585, kernel k-means++ 0.8465 / 0.8575 (``FALKON_PART=centers python
#: benchmarks/falkon.py``). Both also cost more than the fit at the README's M = 13,500:
#: k-means++ makes M sequential passes over the 60k rows, the leverage estimate n (2M)^2
#: flops (4e13).
_HOW_DRAWN = {
    "uniform": "drawn uniformly (center_selection='uniform', the default: on the grids "
               "measured, k-means++ or ridge-leverage centers were not clearly more "
               "accurate at the same M, and cost passes over the rows)",
    "distinct": "drawn uniformly (center_selection='distinct')",
    "kmeans++": "drawn by kernel k-means++ (center_selection='kmeans++': M sequential "
                "passes over the rows)",
    "leverage": "drawn by approximate ridge leverage scores from a uniform pilot of 2M "
                "rows (center_selection='leverage')"}


def distinct_row_centers(merged, M, rng):
    """``center_selection="distinct"``: M of the distinct rows, uniformly, and their weights.

    The weight of a center is the summed sample weight of the training rows
    equal to it (rows of weight 0 are not drawn), so that the preconditioner's
    K_MM diag(w) K_MM / sum(w) still stands for K_nM' S K_nM / sum(S).
    """
    pool = np.flatnonzero(merged.sample_weight > 0)
    M = min(M, len(pool))
    pick = pool[uniform_centers(len(pool), M, rng)]
    return merged.X[pick], merged.sample_weight[pick], Choice(
        "distinct centers", M,
        f"drawn uniformly among the {len(pool)} distinct training rows (of "
        f"{merged.n_rows}), each weighted in the preconditioner by the rows it stands for")
