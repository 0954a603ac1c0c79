"""Density-based clustering (DBSCAN) with distances in the feature space of a kernel.

The radius neighbourhoods are found by row blocks of feature-space distances
(:meth:`DistanceSpace.sq_distance_blocks`), never an n x n matrix: the pairs
within ``eps`` are kept (as CSR column indices) while they fit in half the
memory budget, else recomputed in the later passes. The clusters are the
connected components of the core points' graph, found block by block, and the
labels are numbered as scikit-learn's depth-first search numbers them.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin

from .._validation import Interval, Options, validate_params
from ..planning import Plan
from ..planning.clustering import neighbourhood_store_bytes, neighbourhoods_choice
from ._base import (KernelParamsMixin, check_sample_weight, kernel_for_data,
                    reject_precomputed, report_plan, resolve_estimator_kernel, tag_sparse,
                    validate_fit_X)
from ..features.centers import take_rows
from ._distance_space import distance_space

__all__ = ["KernelDBSCAN"]


class KernelDBSCAN(KernelParamsMixin, ClusterMixin, BaseEstimator):
    """DBSCAN in the feature space of a kernel (kernel density-based clustering).

    scikit-learn's ``DBSCAN`` on the distances ``d(x, y) = ||phi(x) - phi(y)||
    = sqrt(k(x,x) + k(y,y) - 2 k(x,y))`` (the square clamped at 0): a point
    is a core point when the weight of the points within ``eps`` of it
    (itself included) is at least ``min_samples``; clusters are the core
    points connected through such neighbourhoods, plus the non-core points
    within ``eps`` of one of their core points (border points); the rest is
    noise, labelled -1. Labels are numbered as scikit-learn numbers them
    (clusters in the order of their first core point; a border point reached
    by two clusters goes to the first), so ``fit`` equals
    ``DBSCAN(metric="precomputed")`` on the matrix of these distances, label
    for label. With the linear kernel this is Euclidean DBSCAN; with RBF on
    two rings or moons, the clusters need not be the same as in input space.

    Neighbourhoods are computed in row blocks within the memory budget: no
    n x n matrix is ever held. There is no ``predict`` (as in scikit-learn:
    DBSCAN labels the data it was fitted on), so a model file has nothing to
    hold: ``kernelkit.save`` refuses it.

    Parameters
    ----------
    eps : float, default=0.5
        Radius of a neighbourhood, in feature-space distance (> 0).
    min_samples : int, default=5
        Weight (count, without ``sample_weight``) a neighbourhood needs for
        its point to be a core point; the point itself counts.
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``, or a
        kernel on strings. Not ``"precomputed"`` (pass scikit-learn's
        ``DBSCAN(metric="precomputed")`` your distances instead).
    approximation : {None, "nystroem"}, default=None
        None: distances from the kernel, n(n-1)/2 kernel values per pass.
        "nystroem": Euclidean distances of ``n_centers`` Nystroem features
        (n M kernel values; the distances of the Nystroem approximation of
        the kernel, exact when every point is a center).
    n_centers : int, default=100
        Nystroem centers M (``approximation="nystroem"`` only; at most n).
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem centers.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, -1 for noise.
    core_sample_indices_ : ndarray of shape (n_core_samples,)
        Indices of the core points, ascending.
    components_ : ndarray of shape (n_core_samples, n_features)
        The core points themselves (strings for a string kernel), as
        scikit-learn's ``components_``.
    kernel_ : Kernel
        The kernel with data-dependent parameters fixed (``gamma="scale"``).
    plan_ : kernelkit.planning.Plan
        Exact or Nystroem distances, and whether the neighbourhoods were kept
        or recomputed (with the sizes against the budget); printed at
        verbosity >= 1.
    n_features_in_ : int
        Vector inputs only.

    References
    ----------
    Ester, M., Kriegel, H.-P., Sander, J. and Xu, X. (1996). A density-based
    algorithm for discovering clusters in large spatial databases with
    noise. Proceedings of the 2nd International Conference on Knowledge
    Discovery and Data Mining (KDD), 226-231.
    Schubert, E., Sander, J., Ester, M., Kriegel, H.-P. and Xu, X. (2017).
    DBSCAN revisited, revisited. ACM Transactions on Database Systems 42(3).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelDBSCAN
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2], [20.0]])
    >>> KernelDBSCAN(eps=0.3, min_samples=2, kernel="linear").fit(X).labels_
    array([ 0,  0,  0,  1,  1,  1, -1])
    """

    _param_constraints = {
        "eps": [Interval(Real, 0, None, closed="neither")],
        "min_samples": [Interval(Integral, 1, None)],
        "kernel": ["kernel"],
        "approximation": [Options(str, ("nystroem",)), None],
        "n_centers": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, eps=0.5, *, min_samples=5, kernel="rbf", approximation=None,
                 n_centers=100, random_state=None):
        self.eps = eps
        self.min_samples = min_samples
        self.kernel = kernel
        self.approximation = approximation
        self.n_centers = n_centers
        self.random_state = random_state

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), "KernelDBSCAN")

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or strings for a string kernel
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each point in its neighbours' counts (finite, >= 0;
            scikit-learn also takes negative weights, kernelkit does not).

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        space = distance_space(kernel, X, self.approximation, self.n_centers,
                               self.random_state)
        pairs = _RadiusPairs(space, float(self.eps))
        counts = pairs.weighted_counts(np.ones(n) if sw is None else sw)
        core = counts >= self.min_samples
        labels = _cluster_labels(pairs, core)
        self.kernel_ = kernel
        self.labels_ = labels
        self.core_sample_indices_ = np.flatnonzero(core).astype(np.intp)
        self.components_ = take_rows(X, self.core_sample_indices_)
        self.plan_ = Plan(space.choice.value, reason="radius neighbourhoods by row blocks of "
                          "feature-space distances", problem={"n": n},
                          choices=(space.choice, pairs.choice))
        report_plan(self)
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Cluster X and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(X, sample_weight=sample_weight).labels_


#: Pairs replayed at a time from the stored neighbourhoods.
_REPLAY_PAIRS = 1 << 22


class _RadiusPairs:
    """The pairs (i, j) with d(x_i, x_j) <= eps, by blocks of rows i.

    The first pass (:meth:`weighted_counts`) keeps the column indices of
    every row as CSR while they fit in :data:`~kernelkit._budget.STORE_SHARE` of the budget; the
    later passes replay them, or recompute the distances of the rows they ask
    for. ``choice`` says which.
    """

    def __init__(self, space, eps):
        self.space, self.eps = space, eps
        self.indptr = self.indices = None
        self.choice = None

    def _computed(self, rows=None):
        for idx, D in self.space.sq_distance_blocks(rows):
            np.sqrt(D, out=D)  # d <= eps on the distances themselves, as scikit-learn
            bi, j = np.nonzero(D <= self.eps)
            yield idx[bi], j

    def weighted_counts(self, sw):
        n = self.space.n
        counts = np.zeros(n)
        kept, n_pairs = [], 0
        limit = neighbourhood_store_bytes()  # the planner's rule, applied as pairs are counted
        dtype = np.int32 if n < 2**31 else np.intp
        for i, j in self._computed():
            counts += np.bincount(i, weights=sw[j], minlength=n)
            n_pairs += j.size
            if kept is not None and n_pairs * (np.dtype(dtype).itemsize + 8) <= limit:
                kept.append((i, j.astype(dtype)))
            else:
                kept = None
        need = n_pairs * (np.dtype(dtype).itemsize + 8)  # row and column
        self.choice = neighbourhoods_choice(kept is not None, n_pairs, need, limit)
        if kept is None:
            return counts
        rows = np.concatenate([i for i, _ in kept]) if kept else np.empty(0, np.intp)
        self.indices = (np.concatenate([j for _, j in kept]) if kept
                        else np.empty(0, dtype))
        self.indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(rows, minlength=n), out=self.indptr[1:])
        return counts

    def of_rows(self, rows):
        """Yield (i, j) arrays of the pairs of the given rows (indices, ascending)."""
        if self.indptr is None:
            yield from self._computed(rows)
            return
        lengths = self.indptr[rows + 1] - self.indptr[rows]
        # chunks of about _REPLAY_PAIRS pairs: the temporaries stay small
        ends = np.searchsorted(np.cumsum(lengths), np.arange(1, 1 + lengths.sum()
                                                               // _REPLAY_PAIRS) * _REPLAY_PAIRS)
        for chunk in np.split(np.arange(rows.size), np.unique(ends + 1)):
            if chunk.size == 0:
                continue
            r, ln = rows[chunk], lengths[chunk]
            start = np.repeat(self.indptr[r], ln)
            offsets = np.arange(ln.sum()) - np.repeat(np.cumsum(ln) - ln, ln)
            yield np.repeat(r, ln), self.indices[start + offsets].astype(np.intp)


def _cluster_labels(pairs, core):
    """scikit-learn's DBSCAN labels from the pairs within eps and the core mask.

    Clusters are the connected components of the graph of core points
    (merged block by block), numbered in the order of their smallest core
    index (where scikit-learn's depth-first search starts each one); a border
    point takes the smallest cluster number among its core neighbours (the
    first search to reach it). Everything else is -1.
    """
    n = core.shape[0]
    labels = np.full(n, -1, dtype=np.intp)
    core_idx = np.flatnonzero(core)
    if core_idx.size == 0:
        return labels
    comp = np.arange(n)  # a representative per point: components merged block by block
    for i, j in pairs.of_rows(core_idx):
        keep = core[j]
        a, b = comp[i[keep]], comp[j[keep]]
        differ = a != b
        if not differ.any():
            continue
        a, b = a[differ], b[differ]
        graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
        _, merged = connected_components(graph, directed=False)
        comp = merged[comp]
    reps = comp[core_idx]
    _, first = np.unique(reps, return_index=True)  # first core index of each component
    rank = np.empty(first.size, dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    _, inverse = np.unique(reps, return_inverse=True)
    labels[core_idx] = rank[inverse]
    border = np.full(n, np.iinfo(np.intp).max, dtype=np.intp)
    non_core = np.flatnonzero(~core)
    if non_core.size:
        for i, j in pairs.of_rows(non_core):
            keep = core[j]
            np.minimum.at(border, i[keep], labels[j[keep]])
        reached = non_core[border[non_core] < np.iinfo(np.intp).max]
        labels[reached] = border[reached]
    return labels
