"""Exact, finite feature maps psi with psi(x)'psi(y) = k(x, y).

Linear, polynomial and Bilinear kernels (and sums, products, positive scalings
and integer powers of them, and constants) have a finite explicit basis. The
polynomial kernel (gamma x'y + coef0)^p expands, by the multinomial theorem,
into the monomials x^a with |a| <= p weighted by
sqrt(p! / ((p - |a|)! prod_i a_i!) * coef0^(p - |a|) * gamma^|a|): the lectures'
sqrt(2) cross terms for p = 2. Learning with these features (the primal, "other
normal equations") costs O(n D^2 + D^3) instead of O(n^2 d + n^3).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import check_kernel_values, check_vectors, validate_params
from .._budget import require, row_blocks, rows_per_block
from ..kernels import Bilinear, Constant, Linear, Polynomial, Power, Product, Scaled, Sum
from ..kernels import KernelParamsMixin, resolve_kernel
from ._output import FeatureNamesOutMixin, record_feature_names

__all__ = ["explicit_feature_dim", "ExplicitFeatures"]


def explicit_feature_dim(kernel, n_features):
    """Dimension D of the exact feature map of ``kernel`` on ``n_features`` inputs.

    Returns
    -------
    int or None
        None when the kernel has no finite explicit basis (RBF, Laplacian, ...).
    """
    k = resolve_kernel(kernel)
    d = int(n_features)
    if isinstance(k, Linear):
        return d
    if isinstance(k, Bilinear):
        return k.A.shape[0]
    if isinstance(k, Constant):
        return 1
    if isinstance(k, Polynomial):
        p = int(k.degree)
        if k.coef0 == 0:
            return math.comb(d + p - 1, p)
        if k.coef0 < 0:
            return None  # not PSD: no real feature map
        return math.comb(d + p, p)
    if isinstance(k, Scaled):
        return explicit_feature_dim(k.k, d)
    if isinstance(k, (Sum, Product)):  # flat n-ary nodes: a loop over the terms
        dims = [explicit_feature_dim(term, d) for term in k.terms]
        if any(dim is None for dim in dims):
            return None
        return sum(dims) if isinstance(k, Sum) else math.prod(dims)
    if isinstance(k, Power) and k._integer:
        a = explicit_feature_dim(k.k, d)
        return None if a is None else a ** int(k.exponent)
    return None


def _polynomial_terms(d, degree, gamma, coef0):
    """Exponent matrix (D, d) of the monomials and their weights."""
    from sklearn.preprocessing import PolynomialFeatures

    pf = PolynomialFeatures(degree=degree, include_bias=True).fit(np.zeros((1, d)))
    powers = pf.powers_
    total = powers.sum(axis=1)
    if coef0 == 0:
        powers, total = powers[total == degree], total[total == degree]
    weights = np.empty(len(powers))
    for i, (a, s) in enumerate(zip(powers, total)):
        multinomial = math.factorial(degree) / math.factorial(degree - s)
        for ai in a:
            multinomial /= math.factorial(int(ai))
        weights[i] = multinomial * (coef0 ** (degree - s) if degree > s else 1.0) * gamma ** s
    return powers, np.sqrt(weights)


def _monomials(X, powers):
    # Built column by column from products of powers: exact and simple;
    # D is small whenever the primal route is chosen.
    Z = np.ones((len(X), len(powers)))
    for j, a in enumerate(powers):
        for i in np.flatnonzero(a):
            Z[:, j] *= X[:, i] ** int(a[i])
    return Z


def _features(k, X):
    if isinstance(k, Linear):
        return X.copy()
    if isinstance(k, Constant):
        return np.full((len(X), 1), math.sqrt(k.value))
    if isinstance(k, Bilinear):
        w, V = np.linalg.eigh(k.A)
        return X @ (V * np.sqrt(np.clip(w, 0.0, None)))
    if isinstance(k, Polynomial):
        powers, weights = _polynomial_terms(X.shape[1], int(k.degree), float(k.gamma),
                                            float(k.coef0))
        return _monomials(X, powers) * weights
    if isinstance(k, Scaled):
        return math.sqrt(k.scale) * _features(k.k, X)
    if isinstance(k, Sum):
        return np.hstack([_features(term, X) for term in k.terms])
    if isinstance(k, Product):  # left to right, as the nested binary products were
        Z = _features(k.terms[0], X)
        for term in k.terms[1:]:
            B = _features(term, X)
            Z = (Z[:, :, None] * B[:, None, :]).reshape(len(X), -1)
        return Z
    if isinstance(k, Power):
        A = _features(k.k, X)
        Z = A
        for _ in range(int(k.exponent) - 1):
            Z = (Z[:, :, None] * A[:, None, :]).reshape(len(X), -1)
        return Z
    raise AssertionError(type(k))


def _sparse_features(kernel, X, D):
    """Explicit features of sparse rows: the dense (n, D) output, rows densified in blocks.

    The features are dense whatever X is, so the output must fit the memory
    budget (checked first, a MemoryBudgetError otherwise); X itself is
    densified one row block at a time (block plus features within the budget).
    """
    n, d = X.shape
    require(8.0 * n * D, f"ExplicitFeatures.transform of a sparse ({n}, {d}) X: the dense "
            f"({n}, {D}) features", hint="use random Fourier or Nystroem features, or the "
            "dual solver, which keep sparse rows sparse")
    Z = np.empty((n, D))
    for r0, r1 in row_blocks(n, rows_per_block(d + D)):
        block = X[r0:r1].toarray().astype(np.float64, copy=False)
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            Z[r0:r1] = _features(kernel, block)
        check_kernel_values(Z[r0:r1], "ExplicitFeatures.transform", (block,))
    return Z


class ExplicitFeatures(KernelParamsMixin, FeatureNamesOutMixin, TransformerMixin, BaseEstimator):
    """The exact finite feature map of a linear/polynomial/bilinear kernel.

    ``transform(X) @ transform(Y).T`` equals ``kernel(X, Y)`` to round-off.

    Parameters
    ----------
    kernel : Kernel or str, default="poly(degree=2)"
        A kernel with a finite explicit basis (see :func:`explicit_feature_dim`).

    Attributes
    ----------
    n_features_in_ : int
    n_components_ : int
        Feature dimension D.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of a DataFrame X given to ``fit`` (only then).

    Notes
    -----
    Output columns are named ``explicitfeatures0, explicitfeatures1, ...``
    (``get_feature_names_out``, as scikit-learn's ``RBFSampler``), and
    ``set_output(transform="pandas")`` makes ``transform`` return a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features import ExplicitFeatures
    >>> X = np.array([[1.0, 2.0], [0.5, -1.0]])
    >>> Z = ExplicitFeatures("poly(degree=2, coef0=1)").fit_transform(X)
    >>> Z.shape
    (2, 6)
    """

    _param_constraints = {"kernel": ["kernel"]}

    def __init__(self, kernel="poly(degree=2)"):
        self.kernel = kernel

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # rows densified in budgeted blocks
        return tags

    def fit(self, X, y=None):
        """Check that the kernel has a finite basis for X's number of features."""
        self._check_params()
        record_feature_names(self, X, reset=True)
        k = resolve_kernel(self.kernel)
        if k.input_kind not in ("vector", "any"):
            raise ValueError(f"{k!r} is a kernel on {k.input_kind}s and has no explicit "
                             "polynomial feature map; use kernelkit.features.Nystroem for "
                             f"kernels on {k.input_kind}s")
        X = check_vectors(X, accept_sparse=True)
        k = k.resolve(X)  # gamma="scale" fixed from the training X
        D = explicit_feature_dim(k, X.shape[1])
        if D is None:
            raise ValueError(f"{k!r} has no finite explicit feature map; use the dual solver "
                             "or approximate features (random Fourier features, Nystroem)")
        self.kernel_ = k
        self.n_features_in_ = X.shape[1]
        self.n_components_ = D
        return self

    def transform(self, X):
        """Map X to its explicit features, shape (n_samples, ``n_components_``)."""
        check_is_fitted(self)
        record_feature_names(self, X, reset=False)
        X = check_vectors(X, accept_sparse=True)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but ExplicitFeatures is expecting "
                             f"{self.n_features_in_} features as input")
        if issparse(X):
            return _sparse_features(self.kernel_, X, self.n_components_)
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            Z = _features(self.kernel_, np.asarray(X, dtype=np.float64))
        check_kernel_values(Z, "ExplicitFeatures.transform", (X,))
        return Z
