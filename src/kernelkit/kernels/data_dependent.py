"""Data-dependent kernel parameters: ``gamma="scale"`` (the default) and ``"auto"``.

A kernel may hold ``gamma="scale"`` or ``gamma="auto"`` (``length_scale=`` for
kernels parametrised by a length) instead of a number. The value is then a
function of the training inputs, fixed once at fit: every estimator calls
:meth:`Kernel.resolve` on its training X and stores the returned kernel
(numbers only) as ``kernel_``, leaving the user's ``kernel`` parameter as given
(so ``clone`` and grid search see what the user wrote). Evaluating such a
kernel directly (``RBF()(X, Y)``, ``kernelkit.gram(RBF(), X)``) resolves it on
the first argument X, as scikit-learn's ``rbf_kernel(X, Y, gamma=None)`` takes
its default from X; the block API used inside the library refuses, with a
message that says to resolve it or pass a number.

The rules, with d = n_features and var = the variance of all entries of X
(scikit-learn's ``SVC(gamma="scale")``: every rule is 1.0 / its analogue when
var is 0):

=====================  =============================  ========================
kind (kernels)          ``"scale"``                    ``"auto"``
=====================  =============================  ========================
``gamma``: RBF,         1 / (d var)                    1 / d
Polynomial, Sigmoid     (scikit-learn's SVC)           (scikit-learn's SVC)
``l1_gamma``:           1 / (d sqrt(var))              1 / d
Laplacian
``cauchy_gamma``:       1 / sqrt(d var)                1 / sqrt(d)
Cauchy
``length_scale``:       sqrt(d var / 2)                sqrt(d / 2)
Matern, RBF
``chi2_gamma``: Chi2    1 / sum_k (var_k / mean_k)     1 / d
=====================  =============================  ========================

Why each is "the same" rule: they all make the kernel's argument of order 1
for two typical rows x, z of X.

- RBF: E ||x - z||^2 = 2 d var, so gamma ||x - z||^2 is about 2.
- Laplacian: exp(-gamma ||x - z||_1). Per coordinate E|x_k - z_k| is about
  sqrt(var) (2 / sqrt(pi) sqrt(var) = 1.13 sqrt(var) for normal columns), so
  ||x - z||_1 grows as d sqrt(var) -- not as d var -- and gamma = 1 / (d
  sqrt(var)) puts gamma ||x - z||_1 near 1.1. On standardised columns
  (var = 1) this is 1 / n_features, the default of scikit-learn's
  ``laplacian_kernel``; unlike it, it follows the data's scale. (The RBF rule
  would give gamma ||x - z||_1 of order 1 / sqrt(var), so it is not used.)
- Cauchy: prod_k 1 / (1 + gamma^2 (x_k - z_k)^2) is exp(-gamma^2 ||x - z||^2)
  to first order, an RBF of width gamma^2: gamma is the square root of the
  RBF's rule.
- Matern and RBF(length_scale=): the length whose RBF gamma 1 / (2 l^2) is
  the RBF's rule (a Matern kernel tends to that RBF as nu grows).
- Chi2: exp(-gamma sum_k (x_k - z_k)^2 / (x_k + z_k)); for a column of mean m_k
  and variance v_k the term is about 2 v_k / 2 m_k, so the sum is about
  sum_k v_k / m_k (columns of mean 0 are all zero and add nothing).

This module holds the rules and knows no kernel class (it is below
:mod:`.base`): the walk that refuses a kernel tree still holding a rule,
``check_resolved``, is :mod:`.base`'s.
"""

from __future__ import annotations

import math

import numpy as np

from .._budget import row_blocks

__all__ = ["GAMMA_RULES", "InputScale", "gamma_from_data", "rule_value", "unresolved_params",
           "feature_scale_spread"]

#: The data-dependent values a width parameter may take.
GAMMA_RULES = ("scale", "auto")
#: The kinds of width parameter (module table).
RULE_KINDS = ("gamma", "l1_gamma", "cauchy_gamma", "length_scale", "chi2_gamma")


def _is_sparse(X):
    return hasattr(X, "multiply") and hasattr(X, "tocsr")


def _entry_variance(X):
    """Variance of every entry of X in float64 (scipy.sparse: as scikit-learn computes it)."""
    if _is_sparse(X):
        return float(X.multiply(X).mean() - X.mean() ** 2)
    return float(np.asarray(X).var(dtype=np.float64))


def _power_of_two_above(X):
    top = float(abs(X).max()) if _is_sparse(X) else float(np.max(np.abs(X)))
    return float(np.ldexp(1.0, int(np.frexp(top)[1]))) if top > 0 else 1.0


def _clamped(value):
    """A width in float64's positive finite range: inputs whose variance overflows
    float64 would otherwise give gamma = 0 or a length scale of inf."""
    tiny, top = np.finfo(np.float64).tiny, np.finfo(np.float64).max
    return float(min(max(value, tiny), top))


#: Bytes of float64 per chunk of :func:`_column_var` (a few MB: in cache).
_VAR_CHUNK_BYTES = 4 << 20


def _column_var(A, mean):
    """Each column's variance (ddof 0) about ``mean``, in float64, by row chunks.

    As ``A.var(axis=0, dtype=np.float64)`` (up to the order of the float64 sums)
    without its float64 copy of A: at 60,000 x 784 the copy's new pages took
    most of its 0.5 s.
    """
    if A.ndim != 2 or A.shape[0] == 0:
        return A.var(axis=0, dtype=np.float64)
    n, d = A.shape
    step = max(1, _VAR_CHUNK_BYTES // max(8 * d, 1))
    buf = np.empty((min(step, n), d))
    total = np.zeros(d)
    for r0, r1 in row_blocks(n, step):
        chunk = buf[:r1 - r0]
        np.subtract(A[r0:r1], mean, out=chunk)
        np.multiply(chunk, chunk, out=chunk)
        total += chunk.sum(axis=0)
    return total / n


class InputScale:
    """What the rules read from training inputs: the number of features, the
    variance of all entries, and (on demand) each column's mean and variance.

    Build it with :meth:`of` from in-memory inputs (each quantity computed once,
    when first asked for) or with :meth:`from_moments` from column moments
    gathered elsewhere (``kernelkit.dask``: one pass over the chunks).
    :meth:`Kernel.resolve` accepts one in place of X.
    """

    def __init__(self, n_features, *, variance=None, column_mean=None, column_var=None, X=None):
        self.n_features = int(n_features)
        self._variance = variance
        self._column_mean = column_mean
        self._column_var = column_var
        self._X = X
        self._used = self._stored_mean = self._stored_var = None

    @classmethod
    def of(cls, X):
        """The scale of in-memory inputs (ndarray or scipy.sparse), nothing computed yet.

        Raises
        ------
        ValueError
            If X is not 2-D with at least one feature.
        """
        if isinstance(X, InputScale):
            return X
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2 or shape[1] == 0:
            raise ValueError(f"a data-dependent kernel parameter (gamma='scale') needs 2-D "
                             f"numeric training inputs (n_samples, n_features), got shape {shape}")
        return cls(shape[1], X=X)

    @classmethod
    def from_moments(cls, column_mean, column_var):
        """The scale from each column's mean and (population) variance.

        The variance of all entries is then mean(var_k) + var(mean_k): the
        average of E[x^2] over columns minus the square of the average mean.
        """
        mean = np.asarray(column_mean, dtype=np.float64).ravel()
        var = np.maximum(np.asarray(column_var, dtype=np.float64).ravel(), 0.0)
        total = float(var.mean() + mean.var()) if mean.size else 0.0
        return cls(mean.size, variance=total, column_mean=mean, column_var=var)

    @property
    def variance(self) -> float:
        """Variance of all entries (in float64; scipy.sparse as scikit-learn computes it)."""
        if self._variance is None:
            X = self._X
            with np.errstate(over="ignore", invalid="ignore"):
                var = _entry_variance(X)
                if not np.isfinite(var):  # entries near float64's limit: exact power-of-two scaling
                    s = _power_of_two_above(X)
                    var = _entry_variance(X / s) * s * s  # inf when it overflows
            self._variance = float(var)
        return self._variance

    def _moments(self):
        """Each column's mean and variance; for scipy.sparse only over the columns that
        store a value (``self._used``; the others are 0 with variance 0), so that
        nothing is sized by the number of columns (2**40 columns of a hashed text)."""
        X = self._X
        if _is_sparse(X):
            C = X.tocsr()
            used, inverse = np.unique(C.indices, return_inverse=True)
            data = np.asarray(C.data, dtype=np.float64)
            n = max(C.shape[0], 1)
            mean = np.bincount(inverse, weights=data, minlength=len(used)) / n
            sq = np.bincount(inverse, weights=data * data, minlength=len(used)) / n
            var = np.maximum(sq - mean * mean, 0.0)
            self._used = used
        else:
            A = np.asarray(X)
            mean = A.mean(axis=0, dtype=np.float64)
            var = _column_var(A, mean)
            self._used = None
        self._stored_mean, self._stored_var = mean, var

    def stored_moments(self):
        """``(columns, mean, var)``: the columns that hold a value (None: all) and their
        means and variances; every other column is 0 with variance 0."""
        if self._stored_mean is None:
            if self._column_mean is not None:
                return None, self._column_mean, self._column_var
            self._moments()
        return self._used, self._stored_mean, self._stored_var

    def _expand(self, values):
        if self._used is None:
            return values
        full = np.zeros(self.n_features)
        full[self._used] = values
        return full

    @property
    def column_mean(self):
        """Mean of each column, shape (n_features,) (see :meth:`stored_moments` for
        sparse inputs with very many columns)."""
        if self._column_mean is None:
            _, mean, _ = self.stored_moments()
            self._column_mean = self._expand(mean)
        return self._column_mean

    @property
    def column_var(self):
        """Population variance of each column, shape (n_features,)."""
        if self._column_var is None:
            _, _, var = self.stored_moments()
            self._column_var = self._expand(var)
        return self._column_var


def _sq_gamma(rule, scale):
    d = scale.n_features
    if rule == "auto":
        return 1.0 / d
    var = scale.variance
    return 1.0 / (d * var) if var != 0 else 1.0


def rule_value(kind, rule, X):
    """The number a data-dependent parameter stands for, on training inputs X.

    Parameters
    ----------
    kind : {"gamma", "l1_gamma", "cauchy_gamma", "length_scale", "chi2_gamma"}
        Which width (module table).
    rule : {"scale", "auto"}
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features), or InputScale
        The training inputs, already validated.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])  # var = 1, d = 2
    >>> rule_value("gamma", "scale", X), rule_value("l1_gamma", "scale", X)
    (0.5, 0.5)
    >>> rule_value("length_scale", "scale", X)  # RBF gamma 1 / (2 * 1.0**2) = 0.5
    1.0
    """
    if rule not in GAMMA_RULES:
        raise ValueError(f"a data-dependent rule must be one of {GAMMA_RULES}, got {rule!r}")
    if kind not in RULE_KINDS:
        raise ValueError(f"unknown kind of kernel width {kind!r}; one of {RULE_KINDS}")
    return _clamped(_rule_value(kind, rule, InputScale.of(X)))


def _rule_value(kind, rule, scale):
    d = scale.n_features
    if kind == "gamma":
        return _sq_gamma(rule, scale)
    if kind == "cauchy_gamma":
        return math.sqrt(_sq_gamma(rule, scale))
    if kind == "length_scale":  # 1 / sqrt(2 gamma) of the gamma rule, without 1 / inf
        var = 1.0 if rule == "auto" else scale.variance
        return math.sqrt(d * var / 2.0) if var != 0 else math.sqrt(0.5)
    if rule == "auto":
        return 1.0 / d
    if kind == "l1_gamma":
        var = scale.variance
        return 1.0 / (d * math.sqrt(var)) if var > 0 else 1.0
    _, mean, var = scale.stored_moments()  # chi2_gamma (columns without values add 0)
    spread = float(np.sum(np.divide(var, mean, out=np.zeros_like(var), where=mean > 0)))
    return 1.0 / spread if spread > 0 else 1.0


def gamma_from_data(rule, X):
    """scikit-learn's gamma rule (RBF, polynomial, sigmoid) on training inputs X.

    Parameters
    ----------
    rule : {"scale", "auto"}
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The training inputs, already validated.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> gamma_from_data("auto", np.zeros((3, 4)))
    0.25
    >>> gamma_from_data("scale", np.array([[0.0, 2.0], [2.0, 0.0]]))  # var = 1
    0.5
    """
    return rule_value("gamma", rule, X)


def feature_scale_spread(scale, *, rtol=1e-12):
    """(ratio, widest column, narrowest column) of the column standard deviations.

    Constant columns (standard deviation <= ``rtol`` times the largest) are
    ignored: they add nothing to any distance. ``(1.0, None, None)`` when fewer
    than two columns vary.
    """
    columns, _, var = InputScale.of(scale).stored_moments()
    std = np.sqrt(var)
    top = float(std.max(initial=0.0))
    varying = np.flatnonzero(std > rtol * top) if top > 0 else np.array([], dtype=int)
    if varying.size < 2:
        return 1.0, None, None
    wide = int(varying[np.argmax(std[varying])])
    narrow = int(varying[np.argmin(std[varying])])
    ratio = float(std[wide] / std[narrow])
    if columns is not None:  # positions among the stored columns -> column numbers
        wide, narrow = int(columns[wide]), int(columns[narrow])
    return ratio, wide, narrow


def unresolved_params(kernel):
    """Names of ``kernel``'s own parameters still holding a rule such as ``"scale"``."""
    return list(kernel._rule_params())
