"""The Gaussian kernel's Taylor features: its infinite basis, truncated at a degree.

The Gaussian kernel factors as::

    exp(-gamma ||x - y||^2) = exp(-gamma ||x||^2) exp(-gamma ||y||^2) exp(2 gamma x'y),

and the last factor's Taylor series, expanded by the multinomial theorem, is an
inner product of monomials: ``exp(2 gamma x'y) = sum_a (2 gamma)^|a| / a! x^a y^a``
over the multi-indices a. So the kernel has the explicit, infinite feature map::

    phi_a(x) = exp(-gamma ||x||^2) sqrt((2 gamma)^|a| / a!) x^a,   a in N^d,

and keeping the multi-indices with ``|a| <= p`` gives a finite map whose inner
product is exp(-gamma ||x||^2 - gamma ||y||^2) T_p(2 gamma x'y), T_p the
degree-p Taylor polynomial of exp (Cotter, Keshet & Srebro 2011). The map has
C(d + p, p) features; the error is the Taylor remainder (see
:meth:`TaylorFeatures.error_bound` and :func:`taylor_error_bound`), small where
``2 gamma |x'y|`` is small next to p: near the origin, for small gamma.

The features of degree j are those of degree j - 1 times one coordinate: a
monomial whose largest variable is i is a monomial of degree j - 1 whose largest
variable is at most i, times x_i. Ordered by largest variable, those parents
are a prefix of the previous degree's columns, so each (degree, variable) pair
is one slice product, and the weight follows the same recursion:
``phi_{b + e_i} = phi_b x_i sqrt(2 gamma / (b_i + 1))``.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._budget import require, row_blocks, rows_per_block
from .._fit_state import RestoresOnFailure
from .._validation import Interval, Options, check_kernel_values, check_vectors, validate_params
from ..kernels import RBF
from ..kernels.data_dependent import GAMMA_RULES
from ._output import FeatureNamesOutMixin, record_feature_names

__all__ = ["TaylorFeatures", "taylor_error_bound", "taylor_feature_dim"]


def taylor_feature_dim(n_features, degree):
    """Number of Taylor features: the multi-indices a in N^d with ``|a| <= p``, C(d + p, p).

    Parameters
    ----------
    n_features : int
        Input dimension d.
    degree : int
        Truncation degree p.

    Returns
    -------
    int
    """
    return math.comb(int(n_features) + int(degree), int(degree))


def taylor_error_bound(gamma, degree, radius):
    """Largest error of the degree-p Taylor features on the ball ||x||, ||y|| <= radius.

    The Lagrange remainder of exp at z = 2 gamma x'y, times the Gaussian
    factors, bounded by its value at ``|z| = 2 gamma radius^2``::

        |k(x, y) - phi(x)'phi(y)| <= (2 gamma radius^2)^(p + 1) / (p + 1)!

    (the factor e^max(z, 0) of the remainder is cancelled by
    exp(-gamma ||x||^2 - gamma ||y||^2), since 2 x'y <= ||x||^2 + ||y||^2).

    Parameters
    ----------
    gamma : float
        The kernel's gamma > 0.
    degree : int
        Truncation degree p >= 0.
    radius : float
        Largest input norm >= 0.

    Returns
    -------
    float
        The bound (inf when it overflows).

    Examples
    --------
    >>> from kernelkit.features import taylor_error_bound
    >>> round(taylor_error_bound(gamma=0.5, degree=3, radius=1.0) * 24, 12)  # 1 / 4!
    1.0
    """
    z = 2.0 * float(gamma) * float(radius) ** 2
    if z == 0.0:
        return 0.0
    log_bound = (int(degree) + 1) * math.log(z) - math.lgamma(int(degree) + 2)
    return math.exp(log_bound) if log_bound < 709.0 else math.inf


def _taylor_plan(n_features, degree):
    """The recursion's slices, and each column's exponent of its largest variable.

    Returns
    -------
    slices : list of (start, parent_start, count, variable)
        Columns ``start:start+count`` are columns ``parent_start:parent_start+count``
        times x[variable] (times their weights).
    last_multiplicity : ndarray of shape (D,)
        a_i of each column's largest variable i (0 for the constant column).
    """
    d, p = int(n_features), int(degree)
    slices = []
    last_var = [np.array([-1])]  # the constant monomial has no variable
    last_mult = [np.array([0])]
    prev_start, start = 0, 1
    for _ in range(p):
        prev_last, prev_mult = last_var[-1], last_mult[-1]
        block_start = start
        new_var, new_mult = [], []
        for i in range(d):
            count = int(np.searchsorted(prev_last, i, side="right"))  # parents: last <= i
            slices.append((start, prev_start, count, i))
            parents_last = prev_last[:count]
            new_var.append(np.full(count, i))
            new_mult.append(np.where(parents_last == i, prev_mult[:count] + 1, 1))
            start += count
        prev_start = block_start
        last_var.append(np.concatenate(new_var))
        last_mult.append(np.concatenate(new_mult))
    return slices, np.concatenate(last_mult)


class TaylorFeatures(RestoresOnFailure, FeatureNamesOutMixin, TransformerMixin,
                     BaseEstimator):
    """Explicit truncated Taylor features of the Gaussian (RBF) kernel.

    ``phi_a(x) = exp(-gamma ||x||^2) sqrt((2 gamma)^|a| / a!) x^a`` for every
    multi-index ``a`` with ``|a| <= degree``, so that
    ``phi(x)'phi(y) = exp(-gamma (||x||^2 + ||y||^2)) sum_{j<=p} (2 gamma x'y)^j / j!``,
    which tends to ``exp(-gamma ||x - y||^2)`` as the degree grows (Cotter,
    Keshet & Srebro 2011). Unlike random Fourier features the map is
    deterministic; its error is the Taylor remainder,
    ``|k - phi'phi| <= exp(-gamma(||x||^2 + ||y||^2) + max(z, 0)) |z|^(p+1) / (p+1)!``
    with ``z = 2 gamma x'y`` (:meth:`error_bound`), at most
    ``(2 gamma R^2)^(p+1) / (p+1)!`` for inputs of norm <= R
    (:func:`taylor_error_bound`): accurate near the origin, so standardise the
    inputs and prefer a small gamma or few features.

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        The Gaussian kernel's gamma > 0; ``"scale"`` and ``"auto"`` as for
        :class:`~kernelkit.kernels.RBF` (scikit-learn's SVC rules), fixed at fit.
    degree : int, default=3
        Truncation degree p >= 0. The map has C(d + p, p) features (d input
        features): 286 for d = 10, p = 3; 3003 for p = 5.

    Attributes
    ----------
    gamma_ : float
        The gamma used: the map approximates ``RBF(gamma=gamma_)``.
    n_features_in_ : int
    n_components_ : int
        Feature dimension C(d + p, p).
    powers_ : ndarray of shape (``n_components_``, ``n_features_in_``)
        The multi-index a of each output column (computed when read).
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of a DataFrame X given to ``fit`` (only then).

    Raises
    ------
    MemoryBudgetError
        At fit when the tables of C(d + p, p) multi-indices, and at transform
        when the (n_samples, C(d + p, p)) features, exceed the memory budget
        (``kernelkit.config_context(memory=...)``); the message says how many
        features the degree makes.

    Notes
    -----
    Output columns are named ``taylorfeatures0, ...`` and
    ``set_output(transform="pandas")`` returns a DataFrame, as for the other
    feature maps. Column 0 is the constant monomial, then degree 1, 2, ...

    References
    ----------
    Cotter, A., Keshet, J. and Srebro, N. (2011). Explicit approximations of the
    Gaussian kernel. arXiv:1109.4603.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features import TaylorFeatures
    >>> from kernelkit.kernels import RBF
    >>> X = np.random.default_rng(0).normal(scale=0.3, size=(4, 2))
    >>> Z = TaylorFeatures(gamma=0.5, degree=6).fit_transform(X)
    >>> Z.shape  # C(2 + 6, 6)
    (4, 28)
    >>> bool(np.abs(Z @ Z.T - RBF(gamma=0.5)(X)).max() < 1e-6)
    True
    """

    _param_constraints = {
        "gamma": [Interval(Real, 0, None, closed="neither"), Options(str, GAMMA_RULES)],
        "degree": [Interval(Integral, 0, None)],
    }

    def __init__(self, gamma="scale", degree=3):
        self.gamma = gamma
        self.degree = degree

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def fit(self, X, y=None):
        """Fix gamma (from X for ``"scale"``) and build the multi-index tables.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        record_feature_names(self, X, reset=True)
        X = check_vectors(X)
        d, p = X.shape[1], int(self.degree)
        D = taylor_feature_dim(d, p)
        require(8.0 * D * 4, f"TaylorFeatures(degree={p}) on {d} input features: the tables "
                f"of its C({d} + {p}, {p}) = {D:,} multi-indices",
                hint="use a lower degree, fewer input features, or RandomFourierFeatures "
                     "(whose dimension you choose)")
        self.gamma_ = float(RBF(gamma=self.gamma).resolve(X).gamma)
        self.n_features_in_ = d
        self.n_components_ = D
        self._build_tables()
        return self

    def _build_tables(self):
        """The recursion's slices and column weights, from the fitted state (also on load)."""
        slices, multiplicity = _taylor_plan(self.n_features_in_, self.degree)
        factors = np.ones(len(multiplicity))
        factors[1:] = np.sqrt(2.0 * self.gamma_ / multiplicity[1:])
        # each column is its parent's weighted value times x_i times its factor, so
        # the factors are applied along the recursion (see _features_into)
        self._slices = slices
        self._factors = factors

    def transform(self, X):
        """Map X to its Taylor features.

        Parameters
        ----------
        X : array-like of shape (n_samples, ``n_features_in_``)

        Returns
        -------
        ndarray of shape (n_samples, ``n_components_``)

        Raises
        ------
        MemoryBudgetError
            If the output does not fit the memory budget.
        NonFiniteKernelError
            If features overflow (inputs of huge norm; standardise them).
        """
        check_is_fitted(self)
        record_feature_names(self, X, reset=False)
        X = check_vectors(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        n, D = X.shape[0], self.n_components_
        require(8.0 * n * D, f"TaylorFeatures(degree={self.degree}).transform: the ({n}, {D:,})"
                f" features of C({self.n_features_in_} + {self.degree}, {self.degree}) "
                "multi-indices", hint="use a lower degree, transform fewer rows at a time, or "
                "RandomFourierFeatures (whose dimension you choose)")
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((n, D))
        for r0, r1 in row_blocks(n, rows_per_block(D, n_temporaries=1)):
            with np.errstate(over="ignore", invalid="ignore", under="ignore"):
                self._features_into(X[r0:r1], out[r0:r1])
            check_kernel_values(out[r0:r1], "TaylorFeatures.transform", (X[r0:r1],))
        return out

    def _features_into(self, X, out):
        out[:, 0] = np.exp(-self.gamma_ * np.einsum("ij,ij->i", X, X))
        for start, parent, count, i in self._slices:
            np.multiply(out[:, parent:parent + count], X[:, i:i + 1],
                        out=out[:, start:start + count])
            out[:, start:start + count] *= self._factors[start:start + count]

    @property
    def powers_(self):
        check_is_fitted(self)
        powers = np.zeros((self.n_components_, self.n_features_in_), dtype=np.int64)
        for start, parent, count, i in self._slices:
            powers[start:start + count] = powers[parent:parent + count]
            powers[start:start + count, i] += 1
        return powers

    def error_bound(self, X, Y=None):
        """The Taylor remainder's bound of ``|k(x, y) - phi(x)'phi(y)|`` for every pair.

        ``exp(-gamma (||x||^2 + ||y||^2) + max(z, 0)) |z|^(p+1) / (p+1)!`` with
        ``z = 2 gamma x'y`` (Lagrange's form of the remainder of exp), computed
        in log space.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, ``n_features_in_``)
        Y : array-like of shape (n_samples_Y, ``n_features_in_``), optional
            Defaults to X.

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples_Y)
        """
        check_is_fitted(self)
        X = np.asarray(check_vectors(X), dtype=np.float64)
        Y = X if Y is None else np.asarray(check_vectors(Y, "Y"), dtype=np.float64)
        g, p = self.gamma_, int(self.degree)
        z = 2.0 * g * (X @ Y.T)
        sx, sy = np.einsum("ij,ij->i", X, X), np.einsum("ij,ij->i", Y, Y)
        with np.errstate(divide="ignore"):  # z = 0: log 0 = -inf, a bound of 0 (exact)
            log_bound = ((p + 1) * np.log(np.abs(z)) - math.lgamma(p + 2)
                         - g * (sx[:, None] + sy[None, :]) + np.maximum(z, 0.0))
        return np.exp(log_bound)
