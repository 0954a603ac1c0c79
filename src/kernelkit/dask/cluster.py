"""Kernel k-means on a Dask cluster: Nystroem features + Lloyd with tree-summed statistics.

The Nystroem centers and the k initial means are drawn on the client (rows
drawn uniformly, as :func:`kernelkit.features.centers.uniform_centers`); each
Lloyd iteration is one map over the chunks (features, nearest mean, per
cluster weighted sums and counts, inertia) and a binary tree sum.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._budget import row_blocks
from .._fit_state import RestoresOnFailure
from .._validation import Interval, Options, validate_params
from ..features.centers import uniform_centers
from ..kernels import resolve_kernel
from ..models import KernelKMeans
from ..planning.dask import plan_dask_kmeans
from ._base import SUB_BLOCK_ROWS, ClientMixin, fit_feature_map, kernel_for_rows
from ._runtime import (align_rows, as_rows, check_columns, checked_rows, compute, fit_rows,
                       check_worker_room, in_task, is_dask, reports_passes, set_column_names,
                       tree_sum)
from .predict import map_rows

__all__ = ["DaskKernelKMeans"]


def _nearest(Z, centers):
    """Labels and squared distances of rows Z to ``centers`` (clamped at 0)."""
    d2 = (np.einsum("ij,ij->i", Z, Z)[:, None] - 2.0 * (Z @ centers.T)
          + np.einsum("ij,ij->i", centers, centers)[None, :])
    labels = np.argmin(d2, axis=1)
    return labels, np.maximum(d2[np.arange(len(Z)), labels], 0.0)


def _lloyd_chunk(fmap, centers, Xc, swc):
    """One chunk's (weighted sums per cluster, weights per cluster, inertia,
    sum z, sum z^2, weight)."""
    k, D = centers.shape
    sums, counts, inertia = np.zeros((k, D)), np.zeros(k), 0.0
    zsum, z2sum, wsum = np.zeros(D), np.zeros(D), 0.0
    for r0, r1 in row_blocks(len(Xc), SUB_BLOCK_ROWS):
        Z = fmap.transform(np.asarray(Xc[r0:r1]))
        w = np.ones(len(Z)) if swc is None else np.asarray(swc[r0:r1], dtype=np.float64)
        labels, d2 = _nearest(Z, centers)
        np.add.at(sums, labels, Z * w[:, None])
        counts += np.bincount(labels, weights=w, minlength=k)
        inertia += float(d2 @ w)
        zsum += w @ Z
        z2sum += w @ (Z * Z)
        wsum += float(w.sum())
    return sums, counts, inertia, zsum, z2sum, wsum


class _Labels:
    def __init__(self, fmap, centers):
        self.fmap, self.centers = fmap, centers

    def __call__(self, Xb):
        return _nearest(self.fmap.transform(np.asarray(Xb)), self.centers)[0].astype(np.intp)


class DaskKernelKMeans(RestoresOnFailure, ClientMixin, ClusterMixin, BaseEstimator):
    """Kernel k-means on Nystroem features, with Lloyd's statistics tree-summed on a cluster.

    Parameters
    ----------
    n_clusters : int, default=8
    kernel : Kernel or str, default="rbf"
    n_components : int, default=100
        Nystroem centers (rows drawn uniformly on the client).
    init : {"random"} or ndarray of shape (n_clusters, n_features), default="random"
        ``"random"``: k rows drawn uniformly (on the client); an array: these
        points, mapped to features.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when the squared shift of the means is <= tol times the mean
        variance of the features (scikit-learn's rule); 0: until the means stop moving.
    chunk_rows, timeout, random_state, verbose
        As in :class:`~kernelkit.dask.DaskKernelRidge`.

    Attributes
    ----------
    feature_map_ : Nystroem
    cluster_centers_ : ndarray of shape (n_clusters, ``n_components_``)
        Means in feature space.
    inertia_ : float
        Weighted sum of squared distances to the nearest mean (at the last means).
    n_iter_ : int
    plan_ : kernelkit.planning.Plan
        The Nystroem centers used (``n_components`` capped at n), with
        ``plan_.explain()``.
    """

    _param_constraints = {
        "n_clusters": [Interval(Integral, 1, None)],
        "kernel": ["kernel"],
        "n_components": [Interval(Integral, 1, None)],
        "init": [Options(str, ("random",)), "array-like"],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "chunk_rows": [Interval(Integral, 1, None), None],
        "timeout": [Interval(Real, 0, None, closed="neither"), None],
        "random_state": ["random_state"],
        "verbose": [Interval(Integral, 0, None)],
    }

    def __init__(self, n_clusters=8, *, kernel="rbf", n_components=100, init="random",
                 max_iter=300, tol=1e-4, chunk_rows=None, timeout=None, random_state=None,
                 verbose=0):
        self.verbose = verbose
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.n_components = n_components
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.chunk_rows = chunk_rows
        self.timeout = timeout
        self.random_state = random_state

    def _rows(self, X, idx, client):
        return np.asarray(compute(X[idx], client, self.timeout, what="the drawn rows"))

    @reports_passes
    def fit(self, X, y=None, sample_weight=None):
        """Cluster X (chunked by rows; numpy is wrapped).

        Returns
        -------
        self
        """
        from dask import delayed

        validate_params(self, self._param_constraints, type(self).__name__)
        kernel = resolve_kernel(self.kernel)
        X, names = fit_rows(X, "X", self.chunk_rows, self._get_client())
        sw = align_rows(sample_weight, X, "sample_weight")
        if sw is not None:
            sw = checked_rows(sw.astype(np.float64), "sample_weight", "weights")
        client = self._get_client()
        chunking = check_worker_room(client, X, f"{type(self).__name__}.fit")
        kernel = kernel_for_rows(kernel, X, client, self.timeout)  # gamma="scale": one pass
        n, k = int(X.shape[0]), int(self.n_clusters)
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        rng = check_random_state(self.random_state)
        self.plan_ = plan_dask_kmeans(n, int(X.shape[1]), self.n_components, k)
        M = self.plan_.problem["M"]
        fmap = fit_feature_map(kernel, self._rows(X, uniform_centers(n, M, rng), client),
                               "nystroem", M, rng)
        if isinstance(self.init, str):
            start = self._rows(X, uniform_centers(n, k, rng), client)
        else:
            start = np.asarray(self.init, dtype=np.float64)
            if start.shape != (k, X.shape[1]):
                raise ValueError(f"init has shape {start.shape}, expected ({k}, {X.shape[1]})")
        centers = fmap.transform(start)
        fkey = delayed(fmap, pure=True)
        task = delayed(in_task(_lloyd_chunk), pure=True)
        xs = X.to_delayed()[:, 0]
        ss = sw.to_delayed() if sw is not None else [None] * len(xs)
        threshold = None
        for it in range(1, int(self.max_iter) + 1):
            ckey = delayed(centers, pure=True)
            parts = [task(fkey, ckey, xc, sc) for xc, sc in zip(xs, ss)]
            sums, counts, inertia, zsum, z2sum, wsum = compute(
                tree_sum(parts), client, self.timeout, what="a Lloyd iteration")
            if threshold is None:  # scikit-learn's tol: relative to the mean variance
                mean = zsum / wsum
                threshold = float(self.tol) * float(np.mean(z2sum / wsum - mean * mean))
            new = centers.copy()
            full = counts > 0  # an empty cluster keeps its mean
            new[full] = sums[full] / counts[full, None]
            shift = float(np.sum((new - centers) ** 2))
            centers = new
            if shift <= threshold:
                break
        self.feature_map_ = fmap
        self.kernel_ = kernel
        self.cluster_centers_ = centers
        self.inertia_ = float(inertia)
        self.n_iter_ = it
        self.plan_ = self.plan_.with_choices(chunking)  # the rows per chunk, last
        self.n_features_in_ = int(X.shape[1])
        set_column_names(self, names)
        return self

    def predict(self, X):
        """Nearest mean of each row: lazy for dask input, numpy for numpy input."""
        check_is_fitted(self, "cluster_centers_")
        check_columns(self, X)
        fn = _Labels(self.feature_map_, self.cluster_centers_)
        if not is_dask(X):
            return fn(X)
        return map_rows(fn, checked_rows(as_rows(X, "X"), "X"))

    def transform(self, X):
        """Nystroem features of X (lazy for dask input)."""
        check_is_fitted(self, "cluster_centers_")
        if not is_dask(X):
            return self.feature_map_.transform(X)
        from .predict import transform

        return transform(self.feature_map_, X)

    def to_local(self):
        """An in-memory :class:`kernelkit.KernelKMeans` (approximation="nystroem")
        with these means; its ``labels_`` is None (the training labels stay on
        the cluster: ``predict(X)`` gives them)."""
        check_is_fitted(self, "cluster_centers_")
        est = KernelKMeans(self.n_clusters, kernel=self.kernel, approximation="nystroem",
                           n_components=self.n_components, max_iter=self.max_iter,
                           tol=self.tol, random_state=self.random_state)
        est.kernel_ = self.kernel_
        est.components_ = self.feature_map_.components_
        est.normalization_ = self.feature_map_.normalization_
        est.cluster_centers_ = self.cluster_centers_
        est.inertia_, est.n_iter_ = self.inertia_, self.n_iter_
        est.n_features_in_ = self.n_features_in_
        est.labels_ = None
        return est
