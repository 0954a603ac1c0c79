"""Nystroem features: psi(x) = K(x, C) U diag(1/sqrt(s)) from M centers C.

With ``K_CC = U diag(s) U'``, ``psi(x)'psi(y) = K(x, C) K_CC^+ K(C, y)``: the
Nystroem approximation of k (Williams & Seeger 2001). It is exact on the
span of the centers, so it is exact on the training set when every sample is
a center. Which centers are chosen decides the quality for a given M: uniform,
kernel k-means++ or ridge-leverage sampling (:mod:`kernelkit.features.centers`).

Only ``kernel.check_input``, ``len`` and row indexing are used on X, so a
kernel on non-vector inputs (strings) works too.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from scipy.sparse import issparse
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (Interval, Options, check_kernel_values, check_same_n_features,
                           check_vectors, validate_params)
from ..exceptions import InvalidParameterError, NumericalWarning
from ..gram import gram
from ..kernels import KernelParamsMixin, resolve_kernel
from ..kernels.base import check_sparse_support
from .._budget import require, rows_per_block
from ..linalg import eigh_psd
from ._output import FeatureNamesOutMixin, record_feature_names
from .centers import CENTER_METHODS, select_centers, take_rows, uniform_centers

__all__ = ["Nystroem", "nystroem_transform", "nystroem_normalization", "EIGH_BYTES_PER_ENTRY"]

# Peak bytes per entry of an M x M eigendecomposition: K_CC, LAPACK's Fortran copy
# (which becomes the eigenvectors) and dsyevd's workspace of 2 M^2 floats, all
# float64 (measured: 4.0 M^2 floats at M = 1500).
EIGH_BYTES_PER_ENTRY = 32.0

# Eigenvalues of K_CC below this fraction of the largest are dropped: their
# 1/sqrt(s) would amplify round-off of K(x, C) by more than 1e6.
_RELATIVE_EIGEN_CUTOFF = 1e-12


def _is_vector_kernel(kernel):
    return kernel.input_kind in ("vector", "any")


def _rows(X):
    """Rows of an array, CSR rows (scipy.sparse refuses len) or a list of strings."""
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _blocks(n, n_cols):
    step = rows_per_block(n_cols)
    for r0 in range(0, n, step):
        yield r0, min(n, r0 + step)


def _require_centers_matrix(M, what):
    """MemoryBudgetError unless K_CC and its eigendecomposition fit (checked before any work).

    They cannot be blocked; the centers' selection (k-means++, leverage) and
    the transform's row blocks stay within the budget on their own.
    """
    require(EIGH_BYTES_PER_ENTRY * M * M,
            f"{what}: the {M} x {M} kernel matrix of the centers and its eigendecomposition",
            hint="use fewer components")


def nystroem_transform(kernel, X, components, normalization):
    """Nystroem features ``K(X, components) @ normalization`` in row blocks.

    The pure function behind :meth:`Nystroem.transform` (validated inputs of
    ``kernel``), shared with estimators that keep the map's arrays.

    Returns
    -------
    ndarray of shape (len(X), normalization.shape[1])
    """
    out = np.empty((_rows(X), normalization.shape[1]))
    # Row blocks keep the (rows, M) kernel block within the memory budget.
    for r0, r1 in _blocks(_rows(X), _rows(components)):
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            out[r0:r1] = gram(kernel, X[r0:r1], components) @ normalization
        check_kernel_values(out[r0:r1], "Nystroem.transform", (X[r0:r1],))
    return out


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
    U = U[:, keep]
    U /= np.sqrt(s[keep])  # in place: no third M x M array
    return U


class Nystroem(KernelParamsMixin, FeatureNamesOutMixin, TransformerMixin, BaseEstimator):
    """Nystroem approximation of any kernelkit kernel, as a feature map.

    ``transform(X) @ transform(Y).T`` approximates ``kernel(X, Y)`` by
    ``K(X, C) K_CC^+ K(C, Y)`` for M centers C; it is exact when X and Y are
    among the centers.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"rbf(gamma=0.5)"``, or
        ``"precomputed"``: ``fit`` takes the Gram matrix K(X, X) of the
        training samples (n x n, symmetric) and ``transform`` the matrix
        K(X_new, X) of new samples against them (one column per training
        sample), as scikit-learn's ``Nystroem(kernel="precomputed")``. The
        centers are then rows of X drawn uniformly (``centers="uniform"``
        only).
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
        0 means ``trace(K) / n_components`` (see
        :func:`~kernelkit.features.centers.leverage_centers`).
        The map itself is not regularized.
    random_state : int, RandomState instance or None, default=None
        Seed of the center sampling.

    Attributes
    ----------
    kernel_ : Kernel
        The resolved kernel.
    components_ : ndarray of shape (n_centers, n_features), or list
        The centers. With ``kernel="precomputed"``: the rows of the training
        Gram matrix at the centers, shape (n_centers, n_samples_fit) (as
        scikit-learn).
    component_indices_ : ndarray of shape (n_centers,) or None
        Indices of the centers in the training data; None for given centers.
    normalization_ : ndarray of shape (n_centers, ``n_components_``)
        ``U diag(1/sqrt(s))``: eigenvalues below 1e-12 of the largest are
        dropped (with a ``NumericalWarning``).
    n_features_in_ : int
        Number of features (vector kernels; n_samples_fit for "precomputed").
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of a DataFrame X given to ``fit``.
    n_components_ : int
        Output dimension D' (eigenvalues kept); ``get_feature_names_out``
        names them ``nystroem0, nystroem1, ...``.

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
        "centers": [Options(str, CENTER_METHODS), "array-like"],
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
            if not reset:  # other column names than at fit: that error first
                with warnings.catch_warnings():  # (its warnings come from validate_data)
                    warnings.simplefilter("ignore", UserWarning)
                    record_feature_names(self, X, reset=False)
            # Sparse rows where the kernel takes them (centers then stay sparse).
            sparse = kernel.accepts_sparse
            if not sparse:
                check_sparse_support(kernel, X, "X")
            check_vectors(X, "X", accept_sparse=sparse)  # our messages first (NaN location, ...)
            X = validate_data(self, X, dtype=[np.float64, np.float32], reset=reset,
                              accept_sparse=("csr", "csc") if sparse else False)
            return check_vectors(X, "X", accept_sparse=True) if issparse(X) else X
        X = kernel.check_input(X, "X")
        return X if isinstance(X, np.ndarray) else list(X)

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # sparse rows when the kernel takes them
            tags.input_tags.sparse = resolve_kernel(self.kernel).accepts_sparse
        except (TypeError, ValueError):
            tags.input_tags.sparse = False
        return tags

    def fit(self, X, y=None):
        """Choose the centers and factor their kernel matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Or the Gram matrix K(X, X), shape (n_samples, n_samples), for
            ``kernel="precomputed"``.
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        if _is_precomputed(self.kernel):
            return self._fit_precomputed(X)
        kernel = resolve_kernel(self.kernel)
        X = self._check_X(kernel, X, reset=True)
        kernel = kernel.resolve(X)  # gamma="scale" fixed from the training X
        n = _rows(X)
        if isinstance(self.centers, str):
            rng = check_random_state(self.random_state)
            M = self.n_components
            if M > n:
                warnings.warn(f"n_components={M} > n_samples={n}: all {n} samples are used "
                              f"as centers", UserWarning, stacklevel=2)
                M = n
            _require_centers_matrix(M, f"Nystroem(n_components={self.n_components})")
            idx = select_centers(kernel, X, M, self.centers, rng, self.regularization)
            C = take_rows(X, idx)
        else:
            idx = None
            C = kernel.check_input(self.centers, "centers")
            _require_centers_matrix(_rows(C), f"Nystroem with {_rows(C)} given centers")
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
        ndarray of shape (n_samples, ``n_components_``)
        """
        check_is_fitted(self)
        if _is_precomputed(self.kernel_):
            return self._transform_precomputed(X)
        X = self._check_X(self.kernel_, X, reset=False)
        return nystroem_transform(self.kernel_, X, self.components_, self.normalization_)

    def _fit_precomputed(self, K):
        """Centers drawn uniformly among the rows of a precomputed K(X, X)."""
        if not (isinstance(self.centers, str) and self.centers == "uniform"):
            what = repr(self.centers) if isinstance(self.centers, str) else "an array"
            raise InvalidParameterError(
                f"Nystroem(kernel='precomputed') takes centers='uniform' only, got centers="
                f"{what}: k-means++ and leverage sampling, and given centers, need the kernel "
                "itself; pass the kernel object or expression instead of its Gram matrix")
        check_vectors(K, "X")
        K = validate_data(self, K, dtype=[np.float64, np.float32])
        n = K.shape[0]
        if K.shape[1] != n:
            raise ValueError(f"with kernel='precomputed', X must be the square Gram matrix "
                             f"K(X, X) of the training samples, got shape {K.shape}")
        M = self.n_components
        if M > n:
            warnings.warn(f"n_components={M} > n_samples={n}: all {n} samples are used "
                          f"as centers", UserWarning, stacklevel=3)
            M = n
        idx = uniform_centers(n, M, check_random_state(self.random_state))
        K_CC = np.asarray(K[np.ix_(idx, idx)], dtype=np.float64)
        if not np.allclose(K_CC, K_CC.T, rtol=1e-10, atol=1e-12 * np.abs(K_CC).max()):
            raise ValueError("with kernel='precomputed', X must be a symmetric Gram matrix "
                             "K(X, X); its rows and columns at the centers differ. If round-off "
                             "made it non-symmetric, use (X + X.T) / 2")
        self.kernel_ = "precomputed"
        self.components_ = K[idx]
        self.component_indices_ = idx
        self.normalization_ = nystroem_normalization(K_CC)
        self.n_components_ = self.normalization_.shape[1]
        return self

    def _transform_precomputed(self, K):
        """Features of new samples from K(X_new, X_fit): its columns at the centers."""
        check_vectors(K, "X")
        K = validate_data(self, K, dtype=[np.float64, np.float32], reset=False)
        out = K[:, self.component_indices_] @ self.normalization_
        check_kernel_values(out, "Nystroem.transform", (K,))
        return out


def _is_precomputed(kernel):
    return isinstance(kernel, str) and kernel.strip().lower() == "precomputed"
