"""Agglomerative (hierarchical) clustering with distances in the feature space of a kernel.

The condensed vector of the n(n-1)/2 feature-space distances is computed by
row blocks and handed to :func:`scipy.cluster.hierarchy.linkage` when it fits
the memory budget. Ward's linkage is exact there: the feature space (RKHS) is
Euclidean, so the Lance-Williams update of Ward's criterion on its distances is
Ward's method on phi(x) itself, the means of the clusters never formed. When
the distances do not fit, single linkage runs as Prim's minimum spanning tree
on rows of distances, and Ward's linkage on Nystroem features as the
nearest-neighbour chain on their centroids (:mod:`kernelkit.solvers.linkage`).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from .._budget import require
from .._validation import Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..planning import Plan
from ..planning.clustering import LINKAGE_BYTES_PER_PAIR, tree_algorithm_choice
from ._base import (KernelParamsMixin, kernel_for_data, reject_precomputed, report_plan,
                    resolve_estimator_kernel, tag_sparse, validate_fit_X)
from ..solvers.linkage import single_linkage_by_rows, ward_chain_linkage
from ._distance_space import condensed_sq_distances, distance_space

__all__ = ["KernelAgglomerativeClustering", "cut_tree_labels", "tree_algorithm_choice",
           "LINKAGE_BYTES_PER_PAIR"]

_LINKAGES = ("ward", "complete", "average", "single")
# tree_algorithm_choice and LINKAGE_BYTES_PER_PAIR (the tree's bytes per pair) live with
# the decision, in kernelkit.planning.clustering; re-exported here.


class KernelAgglomerativeClustering(KernelParamsMixin, ClusterMixin, BaseEstimator):
    """Agglomerative clustering in the feature space of a kernel (kernel hierarchical
    clustering).

    scikit-learn's ``AgglomerativeClustering`` on the distances ``d(x, y) =
    ||phi(x) - phi(y)|| = sqrt(k(x,x) + k(y,y) - 2 k(x,y))`` (the square
    clamped at 0): each point starts as its own cluster and the two closest
    clusters merge, n - 1 times, closeness measured by the linkage. Single,
    complete and average linkage equal ``AgglomerativeClustering(
    metric="precomputed", linkage=...)`` on the matrix of these distances.
    Ward's linkage merges the pair that least increases the within-cluster
    sum of squares in feature space; it is exact through the Lance-Williams
    update of the distances, as the feature space is Euclidean (with an
    explicit feature map, such as a polynomial kernel's, it equals
    scikit-learn's Ward on those features).

    Memory: the n(n-1)/2 distances and scipy's working copy take 16 bytes
    per pair (20,000 points: 3 GB). When they do not fit the memory budget,
    single linkage is computed as a minimum spanning tree from one row of
    distances at a time (O(n) memory, the same tree), and Ward's linkage with
    ``approximation="nystroem"`` by the nearest-neighbour chain on the
    Nystroem features (O(n M) memory); complete and average linkage, and exact
    Ward, then stop with a ``MemoryBudgetError`` before any work. ``plan_``
    says which algorithm ran. There is no ``predict`` (as in
    scikit-learn), so ``kernelkit.save`` refuses the model: it has nothing to
    apply to new points.

    Parameters
    ----------
    n_clusters : int or None, default=2
        Clusters to find; None with ``distance_threshold``.
    kernel : Kernel or str, default="rbf"
        A kernel object or expression, or a kernel on strings; not
        ``"precomputed"`` (use scikit-learn's ``metric="precomputed"``).
    linkage : {"ward", "complete", "average", "single"}, default="ward"
        Ward: least increase of the within-cluster sum of squares; complete:
        largest distance between members; average: mean distance; single:
        smallest distance.
    distance_threshold : float or None, default=None
        Linkage distance at and above which clusters are not merged; then
        ``n_clusters`` must be None (as scikit-learn).
    compute_distances : bool, default=False
        Keep ``distances_`` also without ``distance_threshold``.
    approximation : {None, "nystroem"}, default=None
        None: distances from the kernel (n(n-1)/2 kernel values).
        "nystroem": Euclidean distances of ``n_centers`` Nystroem features
        (n M kernel values, the distances of the Nystroem approximation of the
        kernel); with Ward's linkage, large n runs in O(n M) memory.
    n_centers : int, default=100
        Nystroem centers M (``approximation="nystroem"`` only; at most n).
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem centers.

    Attributes
    ----------
    n_clusters_ : int
        Clusters found (``n_clusters``, or from ``distance_threshold``).
    labels_ : ndarray of shape (n_samples,)
    n_leaves_ : int
    n_connected_components_ : int
        Always 1 (no connectivity constraint).
    children_ : ndarray of shape (n_samples - 1, 2)
        The merges as scikit-learn writes them: node ``n_samples + i`` is the
        merge of ``children_[i]``; nodes below ``n_samples`` are points.
    distances_ : ndarray of shape (n_samples - 1,)
        Linkage distance of each merge (with ``distance_threshold`` or
        ``compute_distances``).
    kernel_ : Kernel
    plan_ : kernelkit.planning.Plan
        Exact or Nystroem distances, and the tree's algorithm with its memory
        against the budget.
    n_features_in_ : int
        Vector inputs only.

    References
    ----------
    Mullner, D. (2011). Modern hierarchical, agglomerative clustering
    algorithms. arXiv:1109.2378.
    Ward, J. H. (1963). Hierarchical grouping to optimize an objective
    function. Journal of the American Statistical Association 58, 236-244.
    Lance, G. N. and Williams, W. T. (1967). A general theory of
    classificatory sorting strategies: 1. Hierarchical systems. The
    Computer Journal 9(4), 373-380.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelAgglomerativeClustering
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> KernelAgglomerativeClustering(2, kernel="linear", linkage="average").fit(X).labels_
    array([0, 0, 0, 1, 1, 1])
    """

    _param_constraints = {
        "n_clusters": [Interval(Integral, 1, None), None],
        "kernel": ["kernel"],
        "linkage": [Options(str, _LINKAGES)],
        "distance_threshold": [Interval(Real, 0, None), None],
        "compute_distances": ["boolean"],
        "approximation": [Options(str, ("nystroem",)), None],
        "n_centers": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, n_clusters=2, *, kernel="rbf", linkage="ward", distance_threshold=None,
                 compute_distances=False, approximation=None, n_centers=100,
                 random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.linkage = linkage
        self.distance_threshold = distance_threshold
        self.compute_distances = compute_distances
        self.approximation = approximation
        self.n_centers = n_centers
        self.random_state = random_state

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), "KernelAgglomerativeClustering")

    def fit(self, X, y=None):
        """Build the tree of merges and cut it into clusters.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or strings for a string kernel
        y : ignored

        Returns
        -------
        self
        """
        from scipy.cluster.hierarchy import linkage

        kernel = self._check_params()
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise InvalidParameterError(
                "Exactly one of n_clusters and distance_threshold has to be set, and the "
                f"other needs to be None; got n_clusters={self.n_clusters!r}, "
                f"distance_threshold={self.distance_threshold!r}")
        X = validate_fit_X(self, kernel, X)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"Found array with {n} sample(s) while a minimum of 2 is "
                             "required by KernelAgglomerativeClustering: there is nothing "
                             "to merge")
        if self.n_clusters is not None and self.n_clusters > n:
            raise ValueError(f"Cannot extract more clusters than samples: {self.n_clusters} "
                             f"clusters were given for a tree with {n} leaves.")
        algorithm = tree_algorithm_choice(n, self.linkage, self.approximation)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        space = distance_space(kernel, X, self.approximation, self.n_centers,
                               self.random_state)
        if algorithm.value == "condensed distances":
            dist = condensed_sq_distances(space)
            np.sqrt(dist, out=dist)
            Z = linkage(dist, method=self.linkage)
            del dist
        elif algorithm.value == "minimum spanning tree":
            Z = single_linkage_by_rows(n, space.sq_distance_row)
        else:
            require(3 * 8.0 * space.X.shape[0] * space.X.shape[1],
                    f"Ward's nearest-neighbour chain on {space.X.shape[1]} Nystroem features "
                    f"of {n} points (the features, the centroids and one difference)",
                    hint="use fewer n_centers")
            Z = ward_chain_linkage(space.X)
        self.kernel_ = kernel
        self.children_ = Z[:, :2].astype(np.intp)
        distances = np.ascontiguousarray(Z[:, 2])
        if self.distance_threshold is not None:
            self.n_clusters_ = int(np.count_nonzero(distances >= self.distance_threshold)) + 1
        else:
            self.n_clusters_ = int(self.n_clusters)
        if self.distance_threshold is not None or self.compute_distances:
            self.distances_ = distances
        else:
            vars(self).pop("distances_", None)
        self.labels_ = cut_tree_labels(self.children_, self.n_clusters_)
        self.n_leaves_ = n
        self.n_connected_components_ = 1
        self.plan_ = Plan(space.choice.value, reason=f"{self.linkage} linkage on "
                          "feature-space distances",
                          problem={"n": n}, choices=(space.choice, algorithm))
        report_plan(self)
        return self

    def fit_predict(self, X, y=None):
        """Cluster X and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(X).labels_


def cut_tree_labels(children, n_clusters):
    """Labels of the leaves after the first ``n_leaves - n_clusters`` merges.

    Parameters
    ----------
    children : ndarray of shape (n_leaves - 1, 2)
        Merges in scikit-learn's form (node ``n_leaves + i`` merges ``children[i]``).
    n_clusters : int
        1 <= n_clusters <= n_leaves.

    Returns
    -------
    ndarray of shape (n_leaves,)
        Cluster numbers 0..n_clusters-1, in the order of each cluster's
        smallest leaf.
    """
    n = children.shape[0] + 1
    top = np.arange(2 * n - 1)
    for t in range(n - n_clusters - 1, -1, -1):  # parents before their children
        top[children[t]] = top[n + t]
    _, first, inverse = np.unique(top[:n], return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse].astype(np.intp)
