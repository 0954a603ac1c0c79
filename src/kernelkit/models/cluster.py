"""Kernel k-means: Lloyd's iterations in the feature space of any kernel.

A cluster mean in feature space is m_c = sum_j A[j, c] phi(x_j) with
A[j, c] = w_j / W_c for the members j of cluster c (W_c their total weight),
so with G = K A (n x k) and ||m_c||^2 = (A'G)[c, c]:

    ||phi(x_i) - m_c||^2 = k(x_i, x_i) - 2 G[i, c] + ||m_c||^2.

One product K A per iteration is all the kernel work; K is stored when it
fits in half the memory budget, otherwise recomputed in row blocks
(:class:`~kernelkit.gram.GramOperator`). Centers given as points c_l (the
initialisation) enter through G = K(X, C) and ||phi(c_l)||^2 = k(c_l, c_l).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import config
from .._compiled import member_sums
from .._validation import Interval, Options, check_same_n_features, validate_params
from ..features import Nystroem
from ..features.nystroem import nystroem_transform
from ..gram import GramOperator, gram
from ._base import (check_sample_weight, resolve_estimator_kernel, validate_fit_X,
                    validate_predict_data)
from ._feature_distance import reject_precomputed, take_rows

__all__ = ["KernelKMeans", "kernel_kmeanspp", "lloyd_feature_space"]

_INITS = ("k-means++", "random")


def _sq_dist(diag, G, center_sq):
    """||phi(x_i) - m_c||^2 from diag = k(x_i, x_i), G = <phi(x_i), m_c>, ||m_c||^2."""
    D = diag[:, None] - 2.0 * G + center_sq[None, :]
    return np.maximum(D, 0.0, out=D)


def kernel_kmeanspp(kernel, X, diag, n_clusters, rng, sample_weight, n_local_trials=None):
    """Row indices of initial centers by greedy kernel k-means++ (scikit-learn's variant).

    Each new center is the best (lowest weighted potential sum_i w_i min d^2)
    of ``2 + log(k)`` candidates drawn with probability proportional to
    ``w_i d^2(x_i)``, the squared feature-space distance to the nearest center
    chosen so far (Arthur & Vassilvitskii 2007). Costs ``n (2 + log k)``
    kernel values per center.
    """
    n = len(X)
    if n_local_trials is None:
        n_local_trials = 2 + int(np.log(n_clusters))
    chosen = np.empty(n_clusters, dtype=np.intp)
    chosen[0] = rng.choice(n, p=sample_weight / sample_weight.sum())

    def d2_to(idx):
        K = gram(kernel, X, take_rows(X, idx))
        return np.maximum(diag[:, None] - 2.0 * K + diag[idx][None, :], 0.0)

    closest = d2_to(chosen[:1])[:, 0]
    for c in range(1, n_clusters):
        pot = sample_weight * closest
        total = pot.sum()
        if total > 0:
            cand = np.searchsorted(np.cumsum(pot), rng.uniform(size=n_local_trials) * total)
            cand = np.minimum(cand, n - 1)
        else:  # every point coincides with a center: any unchosen row
            free = np.setdiff1d(np.arange(n), chosen[:c])
            cand = free[rng.randint(len(free), size=1)]
        trial = np.minimum(closest[:, None], d2_to(cand))
        best = int(np.argmin(sample_weight @ trial))
        chosen[c] = cand[best]
        closest = trial[:, best]
    return chosen


def _weights_matrix(member, sw, n_clusters):
    """A[j, c] = w_j / W_c for the members of c (zero column for a weightless cluster)."""
    W = np.bincount(member, weights=sw, minlength=n_clusters)
    A = np.zeros((len(member), n_clusters))
    scale = np.divide(sw, W[member], out=np.zeros_like(sw), where=W[member] > 0)
    A[np.arange(len(member)), member] = scale
    return A


def _relocate_empty(labels, D, sw, n_clusters):
    """Cluster membership for the means: each cluster without weight takes the point
    farthest from its own center (as scikit-learn), so no center is left undefined."""
    member = labels.copy()
    W = np.bincount(labels, weights=sw, minlength=n_clusters)
    empty = np.flatnonzero(W == 0)
    if empty.size:
        far = np.argsort(-D[np.arange(len(labels)), labels], kind="stable")[:empty.size]
        member[far] = empty[:len(far)]
    return member


def lloyd_feature_space(products, diag, sw, G, center_sq, max_iter, tol):
    """Lloyd's iterations from initial centers given by G = <phi(x_i), c_l>, ||c_l||^2.

    Mirrors scikit-learn's ``lloyd``: assign, recompute the means, stop when
    the labels no longer change (strict convergence) or the total squared
    shift of the means is <= ``tol``; otherwise assign once more to the final
    means.

    Parameters
    ----------
    products : callable ``(member, A) -> K A`` of shape (n, k)
        K times the one-hot weight matrix A (whose row j holds its only
        nonzero in column ``member[j]``).
    diag : ndarray of shape (n,)
    sw : ndarray of shape (n,)
    G : ndarray of shape (n, k)
    center_sq : ndarray of shape (k,)
    max_iter : int
    tol : float

    Returns
    -------
    labels, inertia, n_iter, member, A, center_sq
        ``A`` (n, k) holds the final means m_c = Phi' A[:, c], ``member`` the
        cluster each point contributes to (labels, after empty-cluster moves).
    """
    n, k = G.shape
    labels_old = np.full(n, -1)
    strict = False
    for it in range(max_iter):
        D = _sq_dist(diag, G, center_sq)
        labels = np.argmin(D, axis=1)
        member = _relocate_empty(labels, D, sw, k)
        A = _weights_matrix(member, sw, k)
        G_new = products(member, A)
        csq_new = np.einsum("jc,jc->c", A, G_new)
        shift = float(np.sum(csq_new - 2.0 * np.einsum("jc,jc->c", A, G) + center_sq))
        G, center_sq = G_new, csq_new
        if np.array_equal(labels, labels_old):
            strict = True
            break
        if shift <= tol:
            break
        labels_old = labels
    D = _sq_dist(diag, G, center_sq)
    if not strict:
        labels = np.argmin(D, axis=1)
    inertia = float(sw @ D[np.arange(n), labels])
    return labels, inertia, it + 1, member, A, center_sq


class KernelKMeans(ClusterMixin, BaseEstimator):
    """k-means clustering in the feature space of a kernel (kernel k-means).

    Minimises sum_i w_i ||phi(x_i) - m_{c(i)}||^2 over assignments c by
    Lloyd's iterations, with the means m_c in feature space represented by
    their members (see the module docstring). With the linear kernel this is
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
    n_features_in_ : int

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
        diag = kernel.diag(X)
        if 8.0 * n * n <= config.get_config()["memory"] // 2:  # store K
            K = gram(kernel, X)
            rows = np.arange(n)

            def products(member, A):
                return member_sums(K, member, A[rows, member], np.empty((n, k)))
            K_sw = K @ sw
        else:  # recompute K in row blocks at every iteration
            op = GramOperator(kernel, X)

            def products(member, A):
                return op.matmat(A)
            K_sw = op.matvec(sw)
        total_var = float(sw @ diag / sw.sum() - sw @ K_sw / sw.sum() ** 2)
        tol = self.tol * max(total_var, 0.0)
        best = None
        for _ in range(n_init):
            if C is None:
                idx = (kernel_kmeanspp(kernel, X, diag, k, rng, sw) if self.init == "k-means++"
                       else rng.choice(n, size=k, replace=False))
                G, csq = gram(kernel, X, take_rows(X, idx)), diag[idx]
            else:
                G, csq = gram(kernel, X, C), kernel.diag(C)
            run = lloyd_feature_space(products, diag, sw, G, csq, self.max_iter, tol)
            if best is None or run[1] < best[1]:
                best = run
        labels, self.inertia_, self.n_iter_, member, A, self.center_norms_ = best
        self.labels_ = labels
        self.center_membership_ = member
        self.dual_coef_ = A[np.arange(n), member]
        self.X_fit_ = X
        return self

    def _fit_nystroem(self, X, sw, C, n_init, rng):
        from sklearn.cluster import KMeans

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
            return np.argmin(-2.0 * Z @ C.T + np.einsum("ij,ij->i", C, C)[None, :], axis=1)
        A = np.zeros((len(self.X_fit_), self.n_clusters))
        A[np.arange(len(A)), self.center_membership_] = self.dual_coef_
        # k(x, x) is the same for every cluster: argmin of ||m_c||^2 - 2 <phi(x), m_c>.
        G = GramOperator(self.kernel_, X, self.X_fit_).matmat(A)
        return np.argmin(self.center_norms_[None, :] - 2.0 * G, axis=1)

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
