"""Kernel k-means: Lloyd's iterations in the feature space of any kernel.

The estimator validates, decides whether to store K (n x n, when it fits in
half the memory budget; recorded in ``plan_``) and calls
:func:`kernelkit.solvers.kernel_kmeans.kernel_kmeans`, where the numerics live.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import Interval, Options, check_same_n_features, validate_params
from ..features import Nystroem
from ..features.nystroem import nystroem_transform
from ..gram import GramOperator
from ..planning import Choice, Plan, decide_store
from ..solvers.kernel_kmeans import kernel_kmeans, nearest_means
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (check_sample_weight, reject_precomputed, report_plan,
                    resolve_estimator_kernel, validate_fit_X, validate_predict_data)

__all__ = ["KernelKMeans"]

_INITS = ("k-means++", "random")


class KernelKMeans(KernelParamsMixin, ClusterMixin, BaseEstimator):
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
    init : {"k-means++", "random"} or array-like of shape (n_clusters, n_features), \
            default="k-means++"
        Kernel k-means++ seeding (greedy, with ``2 + log k`` trials per
        center, as scikit-learn), ``n_clusters`` distinct random samples, or
        the given points as initial centers phi(c_l).
    n_init : int or "auto", default="auto"
        Restarts; the run of lowest inertia is kept. "auto": 1 for k-means++
        and given centers, 10 for "random" (as scikit-learn).
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
    cluster_centers_ : ndarray of shape (n_clusters, n_components_)
        Means in Nystroem feature space (approximation only).
    components_, normalization_ : ndarray
        The Nystroem map (approximation only).
    kernel_ : Kernel
    plan_ : Plan
        What was decided (exact or Nystroem; K stored or recomputed in row
        blocks) and why; printed by ``fit`` at verbosity >= 1.
    n_features_in_ : int

    References
    ----------
    Dhillon, I. S., Guan, Y. and Kulis, B. (2004). Kernel k-means, spectral
    clustering and normalized cuts. KDD.

    Notes
    -----
    Empty clusters: as in scikit-learn, a cluster that receives no weight
    takes the point farthest from its own center as its mean, so every
    cluster stays defined. Sample weights enter the means, the inertia and
    the k-means++ draws.

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
        "init": [Options(str, _INITS), "array-like"],
        "n_init": [Interval(Integral, 1, None), Options(str, ("auto",))],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "approximation": [Options(str, ("nystroem",)), None],
        "n_components": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=8, *, kernel="rbf", init="k-means++", n_init="auto",
                 max_iter=300, tol=1e-4, approximation=None, n_components=100,
                 random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.approximation = approximation
        self.n_components = n_components
        self.random_state = random_state

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
        kernel = kernel_for_data(kernel, X)  # gamma="scale" fixed from the training X
        n, k = len(X), self.n_clusters
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        sw = check_sample_weight(sample_weight, n)
        sw = np.ones(n) if sw is None else sw
        rng = check_random_state(self.random_state)
        C = None
        if not isinstance(self.init, str):
            C = kernel.check_input(self.init, "init")
            if kernel.input_kind == "vector":
                check_same_n_features(X, C, ("X", "init"))
            if len(C) != k:
                raise ValueError(f"init has {len(C)} centers but n_clusters={k}")
        if C is not None:
            n_init = 1
        elif self.n_init == "auto":
            n_init = 10 if self.init == "random" else 1
        else:
            n_init = self.n_init
        self.kernel_ = kernel
        if self.approximation == "nystroem":
            return self._fit_nystroem(X, sw, C, n_init, rng)
        store = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n)
        self.plan_ = Plan("exact", reason="approximation=None: Lloyd's iterations on kernel "
                          "values", problem={"n": n, "k": k}, choices=(store,))
        report_plan(self)
        res = kernel_kmeans(kernel, X, sw, k, init=self.init if C is None else C, n_init=n_init,
                            max_iter=self.max_iter, tol=self.tol, rng=rng,
                            store_gram=store.value)
        self.labels_, self.inertia_, self.n_iter_ = res.labels, res.inertia, res.n_iter
        self.center_norms_ = res.center_norms
        self.center_membership_ = res.member
        self.dual_coef_ = res.weights
        self.X_fit_ = X
        return self

    def _fit_nystroem(self, X, sw, C, n_init, rng):
        from sklearn.cluster import KMeans

        why = "approximation='nystroem': Euclidean Lloyd on Nystroem features"
        self.plan_ = Plan("nystroem", reason=why, problem={"n": len(X), "k": self.n_clusters},
                          choices=(Choice("approximation", "nystroem", "set by the user"),))
        report_plan(self)
        nys = Nystroem(self.kernel_, n_components=min(self.n_components, len(X)),
                       random_state=rng).fit(X)
        self.components_, self.normalization_ = nys.components_, nys.normalization_
        Z = nys.transform(X)
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
        if getattr(self, "cluster_centers_", None) is not None:
            Z = nystroem_transform(self.kernel_, X, self.components_, self.normalization_)
            C = self.cluster_centers_
            return nearest_means(Z @ C.T, np.einsum("ij,ij->i", C, C))
        A = np.zeros((len(self.X_fit_), self.n_clusters))
        A[np.arange(len(A)), self.center_membership_] = self.dual_coef_
        G = GramOperator(self.kernel_, X, self.X_fit_).matmat(A)  # <phi(x), m_c>
        return nearest_means(G, self.center_norms_)

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
