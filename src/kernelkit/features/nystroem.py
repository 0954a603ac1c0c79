"""Nystroem features: psi(x) = K(x, C) U diag(1/sqrt(s)) from M centers C.

With ``K_CC = U diag(s) U'``, ``psi(x)'psi(y) = K(x, C) K_CC^+ K(C, y)``: the
Nystroem approximation of k (Williams & Seeger 2001). It is exact on the
span of the centers, so it is exact on the training set when every sample is
a center. Which centers are chosen decides the quality for a given M:

* ``"uniform"``: M samples without replacement (Williams & Seeger).
* ``"kmeans++"``: kernel k-means++ seeding in feature space, D^2 sampling with
  ``d(x, c)^2 = k(x, x) - 2 k(x, c) + k(c, c)`` (Arthur & Vassilvitskii 2007;
  Oglic & Gaertner 2017 for its use with Nystroem).
* ``"leverage"``: sampling proportional to approximate ridge leverage scores
  (Alaoui & Mahoney 2015; Musco & Musco 2017), estimated from a uniform pilot.

Only ``kernel.check_input``, ``len`` and row indexing are used on X, so a
kernel on non-vector inputs (strings) works too.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (Interval, Options, check_same_n_features, check_vectors,
                           validate_params)
from ..exceptions import NumericalWarning
from ..gram import gram
from ..kernels import resolve_kernel
from ..kernels.base import rows_per_block
from ..linalg import eigh_psd

__all__ = ["Nystroem", "nystroem_transform", "kmeanspp_centers", "leverage_centers", "leverage_scores",
           "nystroem_normalization"]

# Eigenvalues of K_CC below this fraction of the largest are dropped: their
# 1/sqrt(s) would amplify round-off of K(x, C) by more than 1e6.
_RELATIVE_EIGEN_CUTOFF = 1e-12
_CENTER_METHODS = ("uniform", "kmeans++", "leverage")


def _is_vector_kernel(kernel):
    return kernel.input_kind in ("vector", "any")


def _take(X, indices):
    """Rows of X (an array, or a list of strings) at ``indices``."""
    if isinstance(X, np.ndarray):
        return X[indices]
    return [X[i] for i in indices]


def _blocks(n, n_cols):
    step = rows_per_block(n_cols)
    for r0 in range(0, n, step):
        yield r0, min(n, r0 + step)


def nystroem_transform(kernel, X, components, normalization):
    """Nystroem features ``K(X, components) @ normalization`` in row blocks.

    The pure function behind :meth:`Nystroem.transform` (validated inputs of
    ``kernel``), shared with estimators that keep the map's arrays.

    Returns
    -------
    ndarray of shape (len(X), normalization.shape[1])
    """
    out = np.empty((len(X), normalization.shape[1]))
    # Row blocks keep the (rows, M) kernel block within the memory budget.
    for r0, r1 in _blocks(len(X), len(components)):
        out[r0:r1] = gram(kernel, X[r0:r1], components) @ normalization
    return out


def kmeanspp_centers(kernel, X, n_centers, rng):
    """Indices of ``n_centers`` rows chosen by kernel k-means++ (D^2) seeding.

    Each new center is drawn with probability proportional to the squared
    feature-space distance ``k(x, x) - 2 k(x, c) + k(c, c)`` to the nearest
    center chosen so far; the first one uniformly. Costs n kernel values per
    center.
    """
    n = len(X)
    diag = kernel.diag(X)
    chosen = np.empty(n_centers, dtype=np.intp)
    chosen[0] = rng.randint(n)
    d2 = np.full(n, np.inf)
    for j in range(n_centers):
        if j > 0:
            total = d2.sum()
            if total > 0:
                chosen[j] = rng.choice(n, p=d2 / total)
            else:  # every remaining point coincides with a center: pick any unchosen one
                free = np.setdiff1d(np.arange(n), chosen[:j])
                chosen[j] = free[rng.randint(len(free))]
        c = chosen[j]
        k_xc = gram(kernel, X, _take(X, [c]))[:, 0]
        # Clamped at 0: round-off can make the distance of a point to itself negative.
        d2 = np.minimum(d2, np.maximum(diag - 2.0 * k_xc + diag[c], 0.0))
        d2[chosen[:j + 1]] = 0.0
    return chosen


def leverage_scores(kernel, X, ridge, pilot):
    """Nystroem estimate of the ridge leverage scores of K, from pilot centers.

    ``l_i = (k(x_i, x_i) - K_iP (K_PP + ridge I)^-1 K_Pi) / ridge``, the
    estimate of ``[K (K + ridge I)^-1]_ii`` of Alaoui & Mahoney (2015) and
    Musco & Musco (2017), with P the pilot rows. Computed in row blocks.
    """
    XP = _take(X, pilot)
    KPP = gram(kernel, XP)
    w, Q = eigh_psd(KPP)
    # (K_PP + ridge I)^-1 = Q diag(1 / (w + ridge)) Q', applied as B = Q diag(1/sqrt(.)).
    B = Q / np.sqrt(w + ridge)
    diag = kernel.diag(X)
    scores = np.empty(len(X))
    for r0, r1 in _blocks(len(X), len(pilot)):
        G = gram(kernel, _take(X, range(r0, r1)), XP) @ B
        scores[r0:r1] = (diag[r0:r1] - np.einsum("ij,ij->i", G, G)) / ridge
    return np.maximum(scores, 0.0)


def leverage_centers(kernel, X, n_centers, rng, regularization=0.0):
    """Indices of ``n_centers`` rows sampled (without replacement) by ridge leverage.

    The scores are estimated with :func:`leverage_scores` from a uniform pilot
    of ``min(n, 2 * n_centers)`` rows. The ridge is ``regularization`` if it is
    positive, else ``trace(K) / n_centers``: then the effective dimension
    ``sum_i s_i / (s_i + ridge) <= trace(K) / ridge = n_centers``, so the scores
    describe about as many directions as there are centers to draw. (A much
    smaller ridge, such as ``1e-3 * trace(K) / n``, makes the estimate from a
    pilot of 2M rows little more than the pilot's residual, which favours
    outliers: on clustered data it did worse than uniform sampling.)
    """
    n = len(X)
    ridge = float(regularization) if regularization > 0 else \
        max(float(kernel.diag(X).sum()), np.finfo(float).tiny) / n_centers
    pilot = np.sort(rng.choice(n, size=min(n, 2 * n_centers), replace=False))
    scores = leverage_scores(kernel, X, ridge, pilot)
    top = scores.max()
    if not top > 0:
        return rng.choice(n, size=n_centers, replace=False)
    # A floor keeps every row drawable, so sampling M of n without replacement is possible.
    p = np.maximum(scores, 1e-12 * top)
    return rng.choice(n, size=n_centers, replace=False, p=p / p.sum())


def nystroem_normalization(K_CC):
    """The (M, D') matrix ``U diag(1/sqrt(s))`` of the Nystroem map, D' <= M.

    Eigenvalues of ``K_CC = U diag(s) U'`` below ``1e-12 * max(s)`` are
    dropped, with a :class:`~kernelkit.exceptions.NumericalWarning`.
    """
    s, U = eigh_psd(np.asarray(K_CC, dtype=np.float64))
    top = float(s[-1]) if s.size else 0.0
    if not top > 0:
        raise ValueError("the kernel matrix of the centers is zero: the kernel gives these "
                         "centers no feature space to project on; check the kernel and data")
    keep = s >= _RELATIVE_EIGEN_CUTOFF * top
    n_dropped = int((~keep).sum())
    if n_dropped:
        warnings.warn(f"{n_dropped} of {len(s)} eigenvalues of the centers' kernel matrix are "
                      f"below {_RELATIVE_EIGEN_CUTOFF:g} x the largest and were dropped "
                      f"(duplicate or nearly dependent centers); n_components_ = "
                      f"{int(keep.sum())}", NumericalWarning, stacklevel=3)
    return U[:, keep] / np.sqrt(s[keep])


class Nystroem(TransformerMixin, BaseEstimator):
    """Nystroem approximation of any kernelkit kernel, as a feature map.

    ``transform(X) @ transform(Y).T`` approximates ``kernel(X, Y)`` by
    ``K(X, C) K_CC^+ K(C, Y)`` for M centers C; it is exact when X and Y are
    among the centers.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``.
    n_components : int, default=100
        Number of centers M to sample. If it exceeds ``n_samples``, all
        samples are used as centers and a ``UserWarning`` says so (as in
        scikit-learn's ``Nystroem``). Ignored when ``centers`` is an array.
    centers : {"uniform", "kmeans++", "leverage"} or array-like of shape \
            (n_centers, n_features), default="uniform"
        How to choose the centers: uniform sampling without replacement,
        kernel k-means++ seeding, sampling by approximate ridge leverage
        scores (from a uniform pilot of 2M samples), or the given centers.
    regularization : float, default=0.0
        Ridge lambda of the leverage scores (``centers="leverage"`` only);
        0 means ``trace(K) / n_components`` (see :func:`leverage_centers`).
        The map itself is not regularized.
    random_state : int, RandomState instance or None, default=None
        Seed of the center sampling.

    Attributes
    ----------
    kernel_ : Kernel
        The resolved kernel.
    components_ : ndarray of shape (n_centers, n_features), or list
        The centers.
    component_indices_ : ndarray of shape (n_centers,) or None
        Indices of the centers in the training data; None for given centers.
    normalization_ : ndarray of shape (n_centers, n_components_)
        ``U diag(1/sqrt(s))``: eigenvalues below 1e-12 of the largest are
        dropped (with a ``NumericalWarning``).
    n_features_in_ : int
        Number of features (vector kernels).
    n_components_ : int
        Output dimension D' (eigenvalues kept).

    References
    ----------
    Williams, C. and Seeger, M. (2001). Using the Nystroem method to speed up
    kernel machines. NIPS 13.
    Alaoui, A. and Mahoney, M. (2015). Fast randomized kernel ridge regression
    with statistical guarantees. NIPS 28.
    Oglic, D. and Gaertner, T. (2017). Nystroem method with kernel K-means++
    samples as landmarks. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features.nystroem import Nystroem
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> Z = Nystroem("rbf(gamma=0.5)", n_components=50, random_state=0).fit_transform(X)
    >>> bool(np.allclose(Z @ Z.T, np.exp(-0.5 * ((X[:, None] - X) ** 2).sum(-1))))
    True
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "n_components": [Interval(Integral, 1, None)],
        "centers": [Options(str, _CENTER_METHODS), "array-like"],
        "regularization": [Interval(Real, 0, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="rbf", n_components=100, *, centers="uniform",
                 regularization=0.0, random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.centers = centers
        self.regularization = regularization
        self.random_state = random_state

    def _check_X(self, kernel, X, reset):
        if _is_vector_kernel(kernel):
            check_vectors(X, "X")  # our messages first (NaN location, strings, 1-D)
            return validate_data(self, X, dtype=[np.float64, np.float32], reset=reset)
        X = kernel.check_input(X, "X")
        return X if isinstance(X, np.ndarray) else list(X)

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def fit(self, X, y=None):
        """Choose the centers and factor their kernel matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        kernel = resolve_kernel(self.kernel)
        X = self._check_X(kernel, X, reset=True)
        n = len(X)
        if isinstance(self.centers, str):
            rng = check_random_state(self.random_state)
            M = self.n_components
            if M > n:
                warnings.warn(f"n_components={M} > n_samples={n}: all {n} samples are used "
                              f"as centers", UserWarning, stacklevel=2)
                M = n
            if self.centers == "uniform":
                idx = np.sort(rng.choice(n, size=M, replace=False))
            elif self.centers == "kmeans++":
                idx = kmeanspp_centers(kernel, X, M, rng)
            else:
                idx = leverage_centers(kernel, X, M, rng, self.regularization)
            C = _take(X, idx)
        else:
            idx = None
            C = kernel.check_input(self.centers, "centers")
            if _is_vector_kernel(kernel):
                check_same_n_features(X, C, ("X", "centers"))
        self.kernel_ = kernel
        self.components_ = C
        self.component_indices_ = idx
        self.normalization_ = nystroem_normalization(gram(kernel, C))
        self.n_components_ = self.normalization_.shape[1]
        return self

    def transform(self, X):
        """Map X to Nystroem features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        X = self._check_X(self.kernel_, X, reset=False)
        return nystroem_transform(self.kernel_, X, self.components_, self.normalization_)
