"""Random kitchen sinks: any basis psi(x; w) with parameters w drawn from any sampler rho.

Rahimi & Recht (2008) approximate a function by a weighted sum of q random
basis functions, f(x) = sum_i beta_i psi(x; w_i) with w_i ~ rho drawn once,
and learn only the weights beta (see :mod:`kernelkit.solvers.box_erm` for the
lectures' constrained ERM, or hand the features to any linear model).

Built-in bases (``W`` holds one parameter vector w_j per column)
-----------------------------------------------------------------
==========  =============================  =====================================
basis       psi(x; w_j, b_j)               offset b_j
==========  =============================  =====================================
"cosine"    cos(w_j'x + b_j)               b_j ~ Uniform[0, 2 pi]
"sigmoid"   tanh(w_j'x + b_j)              b_j = -w_j'x_r, x_r a training point
                                           drawn at random: the unit's
                                           hyperplane w_j'(x - x_r) = 0 passes
                                           through the data
"bump"      1{||x - w_j|| <= h}            b_j = h, the radius (``bandwidth``)
callable    basis(X, W) -> (n, q)          none
==========  =============================  =====================================

Samplers (``sampler=None`` picks "data" for "bump", "normal" otherwise)
------------------------------------------------------------------------
For the directions of "cosine", "sigmoid" and callable bases:
``"normal"``: w ~ Normal(0, 2 gamma I) (with "cosine", E_w[2 cos(w'x + b)
cos(w'y + b)] = exp(-gamma ||x - y||^2), the RBF kernel);
``"uniform"``: w ~ Uniform[-a, a]^d with a = sqrt(6 gamma) (the same variance
2 gamma per coordinate); ``"data"``: w_j = x_r for random training points.
For the centers of "bump": ``"data"`` (training points drawn at random, with
replacement only when q > n); ``"normal"``: Normal(mean, diag(variance)) of the
training data; ``"uniform"``: uniform in the training data's bounding box.
A callable ``sampler(rng, n_components, n_features)`` gets a
``numpy.random.RandomState`` and returns W of shape (n_features, n_components).

Scaling. By default the features are the bare basis values (|psi| <= 1), so
that ``max_i |beta_i| <= C / q`` bounds f by C, as in the lectures. With
``normalize=True`` they are multiplied by sqrt(2 / q) ("cosine") or
sqrt(1 / q) (others): then Z Z' is the Monte-Carlo average estimating the
kernel 2 E_w[psi(x; w) psi(y; w)] (cosine: exactly the RBF kernel with
``sampler="normal"``, as RBFSampler) or E_w[psi(x; w) psi(y; w)], the
scaling a ridge penalty on the features expects.

The transform is one matrix product per block of rows (within the memory
budget) and an elementwise function: no compiled code.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._budget import row_blocks, rows_per_block
from .._fit_state import RestoresOnFailure
from .._validation import Interval, Options, check_kernel_values, check_vectors, validate_params
from ._output import FeatureNamesOutMixin, record_feature_names

__all__ = ["RandomKitchenSinks", "BASES", "SAMPLERS"]

BASES = ("cosine", "sigmoid", "bump")
SAMPLERS = ("normal", "uniform", "data")
_DTYPES = ("float64", "float32")
_BANDWIDTH_QUANTILE = 0.1  # each default bump covers about 10 % of the training points
_BANDWIDTH_SAMPLE = 500


class RandomKitchenSinks(RestoresOnFailure, FeatureNamesOutMixin, TransformerMixin,
                         BaseEstimator):
    """Random kitchen sinks psi(x; w_1), ..., psi(x; w_q) as a transformer.

    Parameters
    ----------
    n_components : int, default=100
        Number q of random basis functions (output features).
    basis : {"cosine", "sigmoid", "bump"} or callable, default="cosine"
        The basis psi (table in the module notes). A callable
        ``basis(X, W)`` takes X of shape (n, n_features) and W of shape
        (n_features, q) and returns finite values of shape (n, q).
    sampler : {"normal", "uniform", "data"}, callable or None, default=None
        The distribution rho of the parameters w_j (module notes); None means
        "data" for "bump" and "normal" otherwise. A callable
        ``sampler(rng, n_components, n_features)`` returns W of shape
        (n_features, n_components).
    gamma : float or "scale", default="scale"
        Scale of the "normal" and "uniform" directions (variance 2 gamma per
        coordinate); "scale" means 1 / (n_features * X.var()), as SVC's
        ``gamma="scale"``. Unused by "bump" and callable samplers.
    bandwidth : float or None, default=None
        Radius h of "bump"; None: the 10 % quantile of the pairwise distances
        of (up to 500 random) training points, so a bump covers about a tenth
        of the data. Unused by the other bases.
    normalize : bool, default=False
        Multiply the features by sqrt(2 / q) ("cosine") or sqrt(1 / q) (others).
    dtype : {"float64", "float32"}, default="float64"
        Storage and arithmetic of the parameters and the output.
    random_state : int, RandomState instance or None, default=None
        Seed of all draws.

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_components)
        W: frequencies/directions, or bump centers, one per column.
    random_offset_ : ndarray of shape (n_components,) or None
        b (cosine, sigmoid) or the radius h repeated (bump); None for a callable basis.
    gamma_ : float or None
        The gamma used by a "normal"/"uniform" direction sampler, else None.
    bandwidth_ : float or None
        The bump radius h, else None.
    n_features_in_ : int
    n_components_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of a DataFrame X given to ``fit`` (only then).

    Notes
    -----
    Output columns are named ``randomkitchensinks0, randomkitchensinks1, ...``
    (``get_feature_names_out``, as scikit-learn's ``RBFSampler``), and
    ``set_output(transform="pandas")`` makes ``transform`` return a DataFrame.

    References
    ----------
    .. [1] A. Rahimi and B. Recht, "Weighted sums of random kitchen sinks:
       replacing minimization with randomization in learning", NIPS 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features import RandomKitchenSinks
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> RandomKitchenSinks(8, basis="bump", random_state=0).fit_transform(X).shape
    (5, 8)
    """

    _param_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "basis": [Options(str, BASES), "callable"],
        "sampler": [Options(str, SAMPLERS), "callable", None],
        "gamma": [Interval(Real, 0, None, closed="neither"), Options(str, ("scale",))],
        "bandwidth": [Interval(Real, 0, None, closed="neither"), None],
        "normalize": ["boolean"],
        "dtype": [Options(str, _DTYPES)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components=100, *, basis="cosine", sampler=None, gamma="scale",
                 bandwidth=None, normalize=False, dtype="float64", random_state=None):
        self.n_components = n_components
        self.basis = basis
        self.sampler = sampler
        self.gamma = gamma
        self.bandwidth = bandwidth
        self.normalize = normalize
        self.dtype = dtype
        self.random_state = random_state

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def fit(self, X, y=None):
        """Draw w_1..w_q (and offsets) for X's number of features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        given = X  # its column names are recorded at the end (after the callable's check)
        vars(self).pop("feature_names_in_", None)
        X = check_vectors(X)
        rng = check_random_state(self.random_state)
        q, d = int(self.n_components), X.shape[1]
        basis = self.basis
        sampler = self.sampler if self.sampler is not None else \
            ("data" if basis == "bump" else "normal")
        self.gamma_ = None
        if sampler in ("normal", "uniform") and basis != "bump":
            self.gamma_ = _scale_gamma(X) if isinstance(self.gamma, str) else float(self.gamma)
        W = _draw(sampler, basis, rng, q, X, self.gamma_)
        offset, self.bandwidth_ = None, None
        if basis == "cosine":
            offset = rng.uniform(0.0, 2.0 * np.pi, size=q)
        elif basis == "sigmoid":
            rows = X[rng.randint(0, len(X), size=q)]
            offset = -np.einsum("ij,ji->i", rows, W)
        elif basis == "bump":
            self.bandwidth_ = float(self.bandwidth) if self.bandwidth is not None \
                else _default_bandwidth(X, rng)
            offset = np.full(q, self.bandwidth_)
        self.random_weights_ = np.ascontiguousarray(W, dtype=self.dtype)
        self.random_offset_ = None if offset is None else offset.astype(self.dtype)
        self.n_features_in_ = d
        self.n_components_ = q
        if callable(basis):  # fail early, on a few rows, with the callable's own shapes
            self.transform(X[:3])
        record_feature_names(self, given, reset=True)
        return self

    def transform(self, X):
        """psi(X; w_j) for every j.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, ``n_components_``)
            float64, or float32 with ``dtype="float32"``.
        """
        check_is_fitted(self, "random_weights_")
        record_feature_names(self, X, reset=False)
        X = check_vectors(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        W = self.random_weights_
        given = X  # for the message: the rows as given, before a float32 cast
        with np.errstate(over="ignore"):  # float32 maps: overflowing rows are reported below
            X = X.astype(W.dtype, copy=False)
        q = self.n_components_
        out = np.empty((len(X), q), dtype=W.dtype)
        step = rows_per_block(q, bytes_per_entry=W.dtype.itemsize, n_temporaries=2)
        w_sq = np.einsum("ij,ij->j", W, W) if self.basis == "bump" else None
        for r0, r1 in row_blocks(len(X), step):
            with np.errstate(over="ignore", invalid="ignore"):  # checked just below
                out[r0:r1] = _basis_block(self.basis, X[r0:r1], W, self.random_offset_, w_sq)
            check_kernel_values(out[r0:r1], f"{type(self).__name__}.transform",
                                (given[r0:r1],))
        if self.normalize:
            out *= math.sqrt((2.0 if self.basis == "cosine" else 1.0) / q)
        return out


def restore_fitted(fmap, random_weights, random_offset, n_features, gamma_=None,
                   bandwidth_=None):
    """Set the fitted state of an unfitted, built-in-basis ``fmap`` from stored arrays.

    Used by model files. Raises ``ValueError`` when the arrays do not fit the
    parameters (shape, dtype, missing offsets).
    """
    fmap._check_params()
    if callable(fmap.basis):
        raise ValueError("a callable basis cannot be restored from a file")
    q = int(fmap.n_components)
    W = np.asarray(random_weights)
    if W.shape != (n_features, q):
        raise ValueError(f"random_weights_ has shape {W.shape}, expected ({n_features}, {q})")
    if random_offset is None or np.shape(random_offset) != (q,):
        raise ValueError(f"random_offset_ must have shape ({q},), got "
                         f"{None if random_offset is None else np.shape(random_offset)}")
    fmap.random_weights_ = np.ascontiguousarray(W, dtype=fmap.dtype)
    fmap.random_offset_ = np.asarray(random_offset, dtype=fmap.dtype)
    fmap.n_features_in_, fmap.n_components_ = int(n_features), q
    fmap.gamma_, fmap.bandwidth_ = gamma_, bandwidth_
    return fmap


def _scale_gamma(X):
    """scikit-learn's gamma="scale", by the kernels' own rule (one rule everywhere)."""
    from ..kernels.data_dependent import rule_value

    return rule_value("gamma", "scale", X)


def _default_bandwidth(X, rng):
    """The 10 % quantile of the non-zero pairwise distances of up to 500 training points."""
    idx = rng.choice(len(X), size=min(len(X), _BANDWIDTH_SAMPLE), replace=False)
    S = X[idx].astype(np.float64)
    sq = np.einsum("ij,ij->i", S, S)
    D2 = np.maximum(sq[:, None] - 2.0 * (S @ S.T) + sq[None, :], 0.0)  # clamp round-off
    dist = np.sqrt(D2[np.triu_indices(len(S), k=1)])
    dist = dist[dist > 0]
    return float(np.quantile(dist, _BANDWIDTH_QUANTILE)) if dist.size else 1.0


def _draw(sampler, basis, rng, q, X, gamma):
    """W of shape (n_features, q) from the sampler (module notes)."""
    n, d = X.shape
    if callable(sampler):
        W = sampler(rng, q, d)
        try:
            W = np.asarray(W, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"sampler must return a numeric array W, got {type(W).__name__}: "
                            f"{exc}") from None
        if W.shape != (d, q):
            raise ValueError(f"sampler(rng, {q}, {d}) returned shape {W.shape}; it must return "
                             f"W of shape (n_features, n_components) = ({d}, {q}), one "
                             "parameter vector per column")
        if not np.isfinite(W).all():
            raise ValueError("sampler returned NaN or infinite parameters")
        return W
    if sampler == "data":
        return X[rng.choice(n, size=q, replace=q > n)].T.astype(np.float64)
    if basis == "bump":  # centers spread like the data
        if sampler == "normal":
            return (X.mean(0) + X.std(0) * rng.standard_normal((q, d))).T
        return rng.uniform(X.min(0), X.max(0), size=(q, d)).T
    if sampler == "normal":
        return rng.standard_normal((d, q)) * math.sqrt(2.0 * gamma)
    a = math.sqrt(6.0 * gamma)  # Uniform[-a, a] has variance a^2 / 3 = 2 gamma
    return rng.uniform(-a, a, size=(d, q))


def _basis_block(basis, X, W, offset, w_sq):
    """psi(X; W) for one block of rows."""
    if basis == "bump":
        x_sq = np.einsum("ij,ij->i", X, X)
        D2 = X @ W
        D2 *= -2.0
        D2 += x_sq[:, None]
        D2 += w_sq[None, :]
        # NaN (inf - inf: rows too large) would compare False and give 0 silently.
        check_kernel_values(D2, "RandomKitchenSinks (bump basis) squared distances", (X,))
        return (D2 <= offset * offset).astype(W.dtype)  # squared distances <= h^2
    if callable(basis):
        Z = basis(X, W)
        try:
            Z = np.asarray(Z, dtype=W.dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"basis must return a numeric array, got {type(Z).__name__}: "
                            f"{exc}") from None
        if Z.shape != (len(X), W.shape[1]):
            raise ValueError(f"basis(X, W) returned shape {Z.shape} for X of shape {X.shape} "
                             f"and W of shape {W.shape}; it must return (n_samples, "
                             f"n_components) = ({len(X)}, {W.shape[1]})")
        if not np.isfinite(Z).all():
            raise ValueError("basis(X, W) returned NaN or infinite values")
        return Z
    Z = X @ W
    Z += offset
    return np.cos(Z, out=Z) if basis == "cosine" else np.tanh(Z, out=Z)
