"""Kernel k-means: Lloyd's iterations in the feature space of any kernel.

The estimator validates, decides whether to store K (n x n, when it fits in
half the memory budget; recorded in ``plan_``) and calls
:func:`kernelkit.solvers.kernel_kmeans.kernel_kmeans`, where the numerics live.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin,
                          TransformerMixin)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._budget import row_blocks, rows_per_block
from .._progress import progress
from .._validation import Interval, Options, check_same_n_features, validate_params
from ..features import ExplicitFeatures, Nystroem, explicit_feature_dim
from ..features.centers import sq_dist_from_inner
from ..features.nystroem import nystroem_transform
from ..gram import GramOperator
from ..kernels import Linear
from ..planning.clustering import plan_kernel_kmeans
from ..solvers.kernel_kmeans import kernel_kmeans, nearest_means
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (check_sample_weight, reject_precomputed, report_plan,
                    resolve_estimator_kernel, validate_fit_X, validate_predict_data)
from ._base import tag_sparse

__all__ = ["KernelKMeans"]

_INITS = ("k-means++", "random")


class KernelKMeans(KernelParamsMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin,
                   BaseEstimator):
    """k-means clustering in the feature space of a kernel (kernel k-means).

    Minimises sum_i w_i ||phi(x_i) - m_{c(i)}||^2 over assignments c by
    Lloyd's iterations, with the means m_c in feature space represented by
    their members (see :mod:`kernelkit.solvers.kernel_kmeans`). With the linear kernel this is
    k-means (scikit-learn's ``KMeans(algorithm="lloyd")``); with RBF it finds
    clusters that are not convex in input space, such as concentric rings.

    Parameters
    ----------
    n_clusters : int, default=8
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.
    init : {"k-means++", "random"}, callable or array-like of shape \
            (n_clusters, n_features), default="k-means++"
        Kernel k-means++ seeding (greedy, with ``2 + log k`` trials per
        center, as scikit-learn), ``n_clusters`` distinct random samples, or
        the given points as initial centers phi(c_l). A callable
        ``init(X, n_clusters, random_state)`` returns such points (as
        scikit-learn's), once per run.
    n_init : int or "auto", default="auto"
        Restarts; the run of lowest inertia is kept. "auto": 1 for k-means++
        and given centers, 10 for "random" and a callable (as scikit-learn).
        Given centers make one run: a RuntimeWarning says so when
        ``n_init > 1`` was asked for.
    max_iter : int, default=300
    tol : float, default=1e-4
        Stop when the total squared shift of the means is <= tol times the
        total variance of the data in feature space (scikit-learn divides the
        variance by n_features, so for the linear kernel this tol is
        n_features times looser). 0: only when the labels stop changing.
    approximation : {None, "nystroem"}, default=None
        None: exact, O(n^2) kernel values per iteration (stored when K fits
        half the memory budget). "nystroem": map the data to
        ``n_components`` Nystroem features (uniform centers) and run
        Euclidean Lloyd (scikit-learn's KMeans) there: O(n m) per iteration.
    n_components : int, default=100
        Nystroem centers (``approximation="nystroem"`` only).
    random_state : int, RandomState instance or None
        Seeds the initialisation (and the Nystroem centers).
    verbose : int, default=0
        > 0: a progress bar (or plain lines) of Lloyd's iterations with the
        inertia of each assignment (exact mode; see ``kernelkit._progress``).
        kernelkit's ``verbosity`` setting turns it on too.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    inertia_ : float
        sum_i w_i ||phi(x_i) - m_{labels_i}||^2 (in Nystroem feature space for
        the approximation).
    n_iter_ : int
        Iterations of the best run.
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (exact mode), needed by ``predict``.
    dual_coef_ : ndarray of shape (n_samples,)
        w_j / W_c: the weight of x_j in the mean of its cluster (exact mode).
    center_membership_ : ndarray of shape (n_samples,)
        The cluster whose mean x_j belongs to; equals ``labels_`` except after
        empty-cluster moves or a stop by ``tol``/``max_iter``.
    center_norms_ : ndarray of shape (n_clusters,)
        ||m_c||^2 (exact mode).
    cluster_centers_ : ndarray of shape (n_clusters, n_features) or (n_clusters, D)
        The means, where the feature space is explicit: for the linear
        kernel in input space (as scikit-learn's ``KMeans``); for kernels
        with a finite explicit basis (polynomial, sums and products of them)
        in the space of ``ExplicitFeatures(kernel_)``; with
        ``approximation="nystroem"`` in Nystroem feature space. Other kernels
        (RBF, strings) have no finite feature space to hold the means: the
        attribute then raises an AttributeError that says so (``transform``
        gives the distances to the means all the same).
    components_, normalization_ : ndarray
        The Nystroem map (approximation only).
    kernel_ : Kernel
    plan_ : Plan
        What was decided (exact or Nystroem; K stored or recomputed in row
        blocks) and why; printed by ``fit`` at verbosity >= 1.
    n_features_in_ : int

    Notes
    -----
    Empty clusters: as in scikit-learn, a cluster that receives no weight
    takes the point farthest from its own center as its mean, so every
    cluster stays defined. Sample weights enter the means, the inertia and
    the k-means++ draws. A ConvergenceWarning says when the labels hold
    fewer distinct clusters than ``n_clusters`` (duplicate points), and when
    Lloyd's iterations stop at ``max_iter`` with the labels still changing
    and the means' shift above ``tol``.

    References
    ----------
    Dhillon, I. S., Guan, Y. and Kulis, B. (2004). Kernel k-means, spectral
    clustering and normalized cuts. Proceedings of the 10th ACM SIGKDD
    International Conference on Knowledge Discovery and Data Mining (KDD),
    551-556.
    Arthur, D. and Vassilvitskii, S. (2007). k-means++: the advantages of
    careful seeding. Proceedings of the 18th ACM-SIAM Symposium on Discrete
    Algorithms (SODA), 1027-1035.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelKMeans
    >>> t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    >>> ring = np.c_[np.cos(t), np.sin(t)]
    >>> X = np.vstack([ring, 4 * ring])
    >>> labels = KernelKMeans(2, kernel="rbf(gamma=0.5)", n_init=10, random_state=0).fit_predict(X)
    >>> bool((labels[:100] == labels[0]).all() and (labels[100:] != labels[0]).all())
    True
    """

    _param_constraints = {
        "n_clusters": [Interval(Integral, 1, None)],
        "kernel": ["kernel"],
        "init": [Options(str, _INITS), "callable", "array-like"],
        "n_init": [Interval(Integral, 1, None), Options(str, ("auto",))],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "approximation": [Options(str, ("nystroem",)), None],
        "n_components": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
        "verbose": [Interval(Real, 0, None)],
    }

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def __init__(self, n_clusters=8, *, kernel="rbf", init="k-means++", n_init="auto",
                 max_iter=300, tol=1e-4, approximation=None, n_components=100,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.approximation = approximation
        self.n_components = n_components
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return reject_precomputed(resolve_estimator_kernel(self.kernel), "KernelKMeans")

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        n, k = X.shape[0], self.n_clusters
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        sw = check_sample_weight(sample_weight, n)
        sw = np.ones(n) if sw is None else sw
        rng = check_random_state(self.random_state)
        for attr in _FITTED_STATE:  # of an earlier fit in the other mode
            vars(self).pop(attr, None)
        C = None
        if callable(self.init):
            def C(rng):
                return self._check_init(kernel, X, self.init(X, k, random_state=rng),
                                        "init(X, n_clusters, "
                                        "random_state) returned")
        elif not isinstance(self.init, str):
            C = self._check_init(kernel, X, self.init, "init has")
        if self.n_init == "auto":
            n_init = 10 if callable(self.init) or (isinstance(self.init, str)
                                                   and self.init == "random") else 1
        else:
            n_init = self.n_init
        if C is not None and not callable(C) and n_init > 1:
            warnings.warn(f"Explicit initial center position passed: performing only one init "
                          f"in {type(self).__name__} instead of n_init={n_init}.",
                          RuntimeWarning, stacklevel=2)
            n_init = 1
        self.kernel_ = kernel
        plan = plan_kernel_kmeans(n, k, self.approximation)
        if plan.choice == "nystroem":
            return self._fit_nystroem(X, sw, C, n_init, rng, plan)
        self.plan_ = plan
        store = plan.choices[0]
        report_plan(self, self.verbose)
        with progress(n_init * self.max_iter, "kernel k-means (Lloyd)", self.verbose) as bar:
            res = kernel_kmeans(kernel, X, sw, k, init=self.init if C is None else C,
                                n_init=n_init, max_iter=self.max_iter, tol=self.tol, rng=rng,
                                store_gram=store.value,
                                callback=lambda run, inertia: bar.update(1, run=run + 1,
                                                                         inertia=inertia))
        self.labels_, self.inertia_, self.n_iter_ = res.labels, res.inertia, res.n_iter
        self.center_norms_ = res.center_norms
        self.center_membership_ = res.member
        self.dual_coef_ = res.weights
        self.X_fit_ = X
        self._warn_convergence(res.converged)
        return self

    def _check_init(self, kernel, X, C, what):
        """Initial centers: the kernel's inputs, X's number of features, n_clusters rows."""
        C = kernel.check_input(C, "init")
        if kernel.input_kind == "vector":
            check_same_n_features(X, C, ("X", "init"))
        rows = C.shape[0] if hasattr(C, "shape") else len(C)   # len() refuses sparse
        if rows != self.n_clusters:
            raise ValueError(f"{what} {rows} centers but n_clusters={self.n_clusters}")
        return C

    def _warn_convergence(self, converged):
        distinct = len(np.unique(self.labels_))
        if distinct < self.n_clusters:
            warnings.warn(f"Number of distinct clusters ({distinct}) found smaller than "
                          f"n_clusters ({self.n_clusters}). Possibly due to duplicate points "
                          "in X (or points that coincide in the kernel's feature space).",
                          ConvergenceWarning, stacklevel=3)
        if not converged:
            warnings.warn(f"KernelKMeans stopped at max_iter={self.max_iter} iterations with "
                          f"labels still changing and the means' shift above tol={self.tol:g}; "
                          "increase max_iter (or tol)", ConvergenceWarning, stacklevel=3)

    def _fit_nystroem(self, X, sw, C, n_init, rng, plan):
        from sklearn.cluster import KMeans

        self.plan_ = plan
        report_plan(self)
        nys = Nystroem(self.kernel_, n_components=min(self.n_components, X.shape[0]),
                       random_state=rng).fit(X)
        self.components_, self.normalization_ = nys.components_, nys.normalization_
        Z = nys.transform(X)
        if callable(C):  # scikit-learn calls it on the features it clusters
            def init(Z, k, random_state):
                return nys.transform(C(random_state))
        else:
            init = nys.transform(C) if C is not None else self.init
        km = KMeans(self.n_clusters, init=init, n_init=n_init, max_iter=self.max_iter,
                    tol=self.tol, algorithm="lloyd", random_state=rng).fit(Z, sample_weight=sw)
        self.labels_ = km.labels_.astype(np.intp)
        self.inertia_, self.n_iter_ = float(km.inertia_), int(km.n_iter_)
        self.cluster_centers_ = km.cluster_centers_
        return self

    def predict(self, X):
        """The cluster whose feature-space mean is nearest to each point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        check_is_fitted(self, "labels_")
        X = validate_predict_data(self, self.kernel_, X)
        G, center_norms = self._inner_with_means(X)
        return nearest_means(G, center_norms)

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

    def _is_nystroem(self):
        return vars(self).get("components_") is not None

    def _inner_with_means(self, X):
        """``<phi(x), m_c>`` of validated X (n, k) and ``||m_c||^2`` (k,)."""
        if self._is_nystroem():
            Z = nystroem_transform(self.kernel_, X, self.components_, self.normalization_)
            C = self.cluster_centers_
            return Z @ C.T, np.einsum("ij,ij->i", C, C)
        A = np.zeros((self.X_fit_.shape[0], self.n_clusters))
        A[np.arange(len(A)), self.center_membership_] = self.dual_coef_
        return GramOperator(self.kernel_, X, self.X_fit_).matmat(A), self.center_norms_

    def _sq_distances(self, X):
        """Squared feature-space distances of validated X to the means, (n, k), >= 0."""
        G, center_norms = self._inner_with_means(X)
        if self._is_nystroem():  # distances in the Nystroem feature space
            Z = nystroem_transform(self.kernel_, X, self.components_, self.normalization_)
            diag = np.einsum("ij,ij->i", Z, Z)
        else:
            diag = self.kernel_.diag(X)
        return sq_dist_from_inner(G, diag, center_norms)

    def transform(self, X):
        """Distances ``||phi(x) - m_c||`` in feature space to each cluster mean.

        ``sqrt(k(x, x) - 2 <phi(x), m_c> + ||m_c||^2)`` (clamped at 0), the
        cluster-distance space of scikit-learn's ``KMeans.transform``; in
        Nystroem feature space with ``approximation="nystroem"``.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries, n_clusters)
        """
        check_is_fitted(self, "labels_")
        X = validate_predict_data(self, self.kernel_, X)
        return np.sqrt(self._sq_distances(X))

    def fit_transform(self, X, y=None, sample_weight=None):
        """Cluster X and return its distances to the means (``fit(X).transform(X)``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
        """
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the inertia of X: ``-sum_i w_i min_c ||phi(x_i) - m_c||^2``.

        As scikit-learn's ``KMeans.score``: larger is better.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        y : ignored
        sample_weight : array-like of shape (n_queries,), optional

        Returns
        -------
        float
        """
        check_is_fitted(self, "labels_")
        X = validate_predict_data(self, self.kernel_, X)
        sw = check_sample_weight(sample_weight, X.shape[0])
        nearest = self._sq_distances(X).min(axis=1)
        return -float(nearest.sum() if sw is None else sw @ nearest)

    @property
    def _n_features_out(self):
        if "labels_" not in vars(self):  # not fitted: get_feature_names_out says so
            raise AttributeError("_n_features_out")
        return self.n_clusters

    def __getattr__(self, name):
        # Only reached when normal lookup fails: cluster_centers_ of the exact mode is
        # computed from the members, where the kernel's feature space is explicit.
        if name != "cluster_centers_" or "X_fit_" not in vars(self):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._explicit_centers()

    def _explicit_centers(self):
        kernel, X = self.kernel_, self.X_fit_
        dim = (explicit_feature_dim(kernel, X.shape[1])
               if kernel.input_kind in ("vector", "any") else None)
        if dim is None:
            raise AttributeError(
                f"cluster_centers_ is not available for kernel {kernel!r}: its feature space "
                "has no finite explicit basis, so the cluster means m_c = sum_j a_jc phi(x_j) "
                "exist only through their members (X_fit_, dual_coef_, center_membership_). "
                "transform(X) gives the distances to them; use the linear or a polynomial "
                "kernel, or approximation='nystroem', for explicit centers")
        member, weights = self.center_membership_, self.dual_coef_
        fmap = None if isinstance(kernel, Linear) else ExplicitFeatures(kernel).fit(X)
        centers = np.zeros((self.n_clusters, dim))
        for r0, r1 in row_blocks(X.shape[0], rows_per_block(dim)):
            Z = X[r0:r1] if fmap is None else fmap.transform(X[r0:r1])
            if hasattr(Z, "toarray"):  # sparse rows: one dense block (within the budget)
                Z = Z.toarray()
            np.add.at(centers, member[r0:r1], weights[r0:r1, None] * Z)
        return centers


# Attributes one fit sets and the other mode's fit does not: cleared at each fit.
_FITTED_STATE = ("cluster_centers_", "components_", "normalization_", "X_fit_", "dual_coef_",
                 "center_membership_", "center_norms_")
