"""How well does a feature map reproduce its kernel? (re-exported by ``diagnostics``).

:func:`approximation_error` compares psi(x)'psi(z) with k(x, z) on pairs of a
sample; :func:`approximation_curve` does it for a range of feature counts D,
next to the Hoeffding and Rahimi-Recht bounds of :mod:`.bounds`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_same_n_features, check_scalar, check_vectors
from ..kernels import resolve_kernel
from .bounds import hoeffding_epsilon, rahimi_recht_epsilon, spectral_second_moment

__all__ = ["ApproximationError", "ApproximationCurve", "approximation_error",
           "approximation_curve", "data_diameter"]

_METHODS = ("rff", "nystroem")


@dataclass(frozen=True)
class ApproximationError:
    """Result of :func:`approximation_error`: ``|psi(x)'psi(z) - k(x, z)|`` over pairs.

    Attributes
    ----------
    max_error, mean_error, rms_error : float
        Largest, mean and root-mean-square absolute error over the pairs.
    n_pairs : int
        Number of pairs compared.
    exhaustive : bool
        True when every pair was compared, False for a random sub-grid.
    """

    max_error: float
    mean_error: float
    rms_error: float
    n_pairs: int
    exhaustive: bool

    def __str__(self):
        which = "all" if self.exhaustive else "a random sub-grid of"
        return (f"max |error| {self.max_error:.3g}, mean {self.mean_error:.3g}, "
                f"rms {self.rms_error:.3g} over {which} {self.n_pairs} pairs")


def _fixed_width(kernel, features, X):
    """``kernel`` with a data-dependent width (gamma="scale") fixed as the features fixed
    it when they were fitted with that same kernel (their ``kernel_``), else on X."""
    if kernel.is_resolved:
        return kernel
    own = getattr(features, "kernel_", None)
    given = getattr(features, "kernel", None)
    try:
        same = own is not None and given is not None and resolve_kernel(given) == kernel
    except (TypeError, ValueError):
        same = False
    return own if same else kernel.resolve(X)


def _check_features(features, kernel):
    if not hasattr(features, "transform"):
        raise TypeError(f"features must be a fitted transformer with a transform method "
                        f"(RandomFourierFeatures, Nystroem, ...), got {type(features).__name__}")
    try:
        check_is_fitted(features)
    except NotFittedError as err:
        raise NotFittedError(f"{type(features).__name__} is not fitted: call "
                             f"features.fit(X) before measuring its approximation error") from err
    own = getattr(features, "kernel_", None)
    if own is not None and own != kernel:
        raise ValueError(f"the features approximate {own!r}, not {kernel!r}: compare a "
                         f"feature map with the kernel it was fitted for")


def _grid(n, m, max_pairs, rng):
    """Row and column indices of the pairs to compare: all, or a random sub-grid."""
    if n * m <= max_pairs:
        return np.arange(n), np.arange(m), True
    r = min(n, max(1, math.ceil(math.sqrt(max_pairs * n / m))))
    c = min(m, max(1, max_pairs // r))
    return (np.sort(rng.choice(n, size=r, replace=False)),
            np.sort(rng.choice(m, size=c, replace=False)), False)


def _pair_errors(Zr, Zc, K):
    """Absolute errors of Zr Zc' against K, accumulated in float64."""
    approx = np.asarray(Zr, dtype=np.float64) @ np.asarray(Zc, dtype=np.float64).T
    return np.abs(approx - K)


def _summary(err, exhaustive):
    return ApproximationError(max_error=float(err.max()), mean_error=float(err.mean()),
                              rms_error=float(np.sqrt(np.mean(err ** 2))),
                              n_pairs=int(err.size), exhaustive=exhaustive)


def approximation_error(kernel, features, X, Y=None, *, max_pairs=1_000_000, random_state=0):
    """Max and mean ``|psi(x)'psi(z) - k(x, z)|`` of a fitted feature map over pairs.

    The pairs are every (x_i, z_j), i over the rows of X and j over the rows
    of Y (of X when Y is None, diagonal included). When there are more than
    ``max_pairs`` of them, a random sub-grid is used instead: about
    ``sqrt(max_pairs * n / m)`` rows of X by ``max_pairs / rows`` rows of Y,
    drawn without replacement with ``random_state`` (so the same call gives
    the same pairs). The maximum over a sub-grid can only underestimate the
    maximum over all pairs.

    Parameters
    ----------
    kernel : Kernel or str
        The exact kernel the features approximate. A data-dependent width
        (``"rbf"`` is gamma="scale") is the one the features fixed at their
        fit when they were given the same kernel, else it is fixed on X.
    features : fitted transformer
        Anything with ``transform`` (RandomFourierFeatures, Nystroem, ...). If
        it has a ``kernel_`` attribute it must equal ``kernel``.
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (m_samples, n_features), optional
    max_pairs : int, default=1_000_000
        Largest number of pairs compared.
    random_state : int, RandomState instance or None, default=0
        Seed of the sub-grid.

    Returns
    -------
    ApproximationError

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features import Nystroem
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> ny = Nystroem("rbf", n_components=30, random_state=0).fit(X)
    >>> approximation_error("rbf", ny, X).max_error < 1e-8
    True
    """
    kernel = resolve_kernel(kernel)
    check_scalar(max_pairs, "max_pairs", low=1, integer=True)
    X = check_vectors(X, "X")
    kernel = _fixed_width(kernel, features, X)
    _check_features(features, kernel)
    Y = X if Y is None else check_vectors(Y, "Y")
    check_same_n_features(X, Y)
    rows, cols, exhaustive = _grid(len(X), len(Y), max_pairs, check_random_state(random_state))
    Xr, Yc = X[rows], Y[cols]
    err = _pair_errors(features.transform(Xr), features.transform(Yc), kernel(Xr, Yc))
    return _summary(err, exhaustive)


def data_diameter(X):
    """Largest Euclidean distance between two rows of X (exact, in row blocks).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    float
    """
    X = check_vectors(X).astype(np.float64, copy=False)
    X = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", X, X)
    best = 0.0
    step = max(1, 2 ** 22 // max(1, len(X)))
    for r0 in range(0, len(X), step):
        B = X[r0:r0 + step]
        d2 = sq[r0:r0 + step, None] + sq[None, :] - 2.0 * (B @ X.T)
        best = max(best, float(d2.max()))
    return math.sqrt(max(best, 0.0))  # clamp: round-off can make d^2 slightly negative


@dataclass(frozen=True)
class ApproximationCurve:
    """Result of :func:`approximation_curve`: error against D, with the bounds.

    Attributes
    ----------
    kernel : str
        repr of the kernel.
    method : str
        "rff" (cos+bias random Fourier features) or "nystroem" (uniform centers).
    n_features : ndarray of shape (n_D,)
        The feature counts D.
    max_error, mean_error : ndarray of shape (n_D, n_repeats)
        Max and mean ``|error|`` over the pairs, one column per independent draw.
    hoeffding_epsilon : ndarray of shape (n_D,)
        Error a with 2 exp(-D a^2 / (8 s^2)) = delta: for one fixed pair the
        error exceeds it with probability <= delta. NaN for Nystroem.
    uniform_epsilon : ndarray of shape (n_D,)
        Rahimi-Recht eps at delta over the data's bounding set: the max error
        over all pairs exceeds it with probability <= delta. inf when the
        spectral density has no second moment (Laplacian), NaN for Nystroem.
    delta : float
    sigma2, diameter, scale : float
        E[w'w] of the spectral density, diameter of X, k(0).
    n_pairs : int
    note : str
        Why a bound is missing, if one is.
    """

    kernel: str
    method: str
    n_features: np.ndarray
    max_error: np.ndarray
    mean_error: np.ndarray
    hoeffding_epsilon: np.ndarray
    uniform_epsilon: np.ndarray
    delta: float
    sigma2: float
    diameter: float
    scale: float
    n_pairs: int
    note: str = field(default="")

    def rows(self):
        """One dict per D: medians over the repeats and the bounds (for tables/JSON)."""
        out = []
        for i, D in enumerate(self.n_features):
            out.append({"D": int(D), "max_error": float(np.median(self.max_error[i])),
                        "mean_error": float(np.median(self.mean_error[i])),
                        "hoeffding_epsilon": float(self.hoeffding_epsilon[i]),
                        "uniform_epsilon": float(self.uniform_epsilon[i])})
        return out

    def to_dict(self):
        """JSON-ready dict (arrays as lists, inf/NaN as strings)."""
        def clean(v):
            if isinstance(v, np.ndarray):
                return [clean(x) for x in v.tolist()]
            if isinstance(v, list):
                return [clean(x) for x in v]
            if isinstance(v, float) and not math.isfinite(v):
                return str(v)
            return v
        return {k: clean(v) for k, v in self.__dict__.items()}


def _make_features(method, kernel, D, seed):
    from ..features import Nystroem, RandomFourierFeatures

    if method == "rff":
        return RandomFourierFeatures(kernel, D, variant="cos_bias", random_state=seed)
    return Nystroem(kernel, D, centers="uniform", random_state=seed)


def _rff_bounds(kernel, X, n_features, delta):
    density = kernel.spectral_density()
    scale = float(density.scale)
    sigma2 = spectral_second_moment(density, X.shape[1])
    diameter = data_diameter(X)
    hoeff = hoeffding_epsilon(n_features, delta, scale=scale)
    note = ""
    if math.isinf(sigma2):
        note = ("no uniform (Rahimi-Recht) bound: the spectral density has an infinite "
                "second moment E[w'w] (the Laplacian kernel's density is Cauchy)")
    uniform = (rahimi_recht_epsilon(n_features, delta, sigma2=sigma2, diameter=diameter,
                                    n_features=X.shape[1], scale=scale)
               if diameter > 0 else np.zeros(len(n_features)))
    return np.atleast_1d(hoeff), np.atleast_1d(uniform), sigma2, diameter, scale, note


def approximation_curve(kernel, X, n_features=(10, 30, 100, 300, 1000), *, method="rff",
                        n_repeats=5, delta=0.05, max_pairs=250_000, random_state=0):
    """Approximation error of a feature map against the number of features D.

    For each D, ``n_repeats`` independent feature maps are fitted on X and
    compared with the exact kernel on the same pairs of X (all pairs, or a
    seeded random sub-grid of ``max_pairs``, as in
    :func:`approximation_error`). For random Fourier features (cos+bias) the
    result also holds, per D, Hoeffding's fixed-pair error level and the
    Rahimi-Recht uniform error level at probability ``delta`` (see
    :func:`kernelkit.diagnostics.hoeffding_bound` and
    :func:`kernelkit.diagnostics.rahimi_recht_bound`); the set M of the
    uniform bound is taken to be a ball holding the data, of the data's
    diameter.

    Parameters
    ----------
    kernel : Kernel or str
        Shift-invariant for ``method="rff"``; any kernel for "nystroem".
    X : array-like of shape (n_samples, n_features)
    n_features : sequence of int, default=(10, 30, 100, 300, 1000)
        Feature counts D (numbers of centers for Nystroem).
    method : {"rff", "nystroem"}, default="rff"
    n_repeats : int, default=5
    delta : float in (0, 1), default=0.05
    max_pairs : int, default=250_000
    random_state : int, RandomState instance or None, default=0

    Returns
    -------
    ApproximationCurve
    """
    kernel = resolve_kernel(kernel)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {list(_METHODS)}, got {method!r}")
    check_scalar(n_repeats, "n_repeats", low=1, integer=True)
    check_scalar(max_pairs, "max_pairs", low=1, integer=True)
    check_scalar(delta, "delta", low=0, high=1, low_inclusive=False)
    Ds = np.asarray(list(n_features))
    if Ds.ndim != 1 or Ds.size == 0 or Ds.dtype.kind not in "iu" or (Ds < 1).any():
        raise ValueError(f"n_features must be a non-empty sequence of integers >= 1, "
                         f"got {n_features!r}")
    X = check_vectors(X, "X").astype(np.float64, copy=False)
    rng = check_random_state(random_state)
    rows, cols, _ = _grid(len(X), len(X), max_pairs, rng)
    Xr, Xc = X[rows], X[cols]
    K = kernel(Xr, Xc)
    max_err = np.empty((len(Ds), n_repeats))
    mean_err = np.empty_like(max_err)
    for i, D in enumerate(Ds):
        for r in range(n_repeats):
            f = _make_features(method, kernel, int(D), rng.randint(2 ** 31 - 1)).fit(X)
            err = _pair_errors(f.transform(Xr), f.transform(Xc), K)
            max_err[i, r], mean_err[i, r] = err.max(), err.mean()
    if method == "rff":
        hoeff, uniform, sigma2, diameter, scale, note = _rff_bounds(kernel, X, Ds, delta)
    else:
        hoeff = uniform = np.full(len(Ds), np.nan)
        sigma2, diameter, scale = math.nan, data_diameter(X), float(kernel.diag(X[:1])[0])
        note = "the Hoeffding and Rahimi-Recht bounds are for random Fourier features"
    return ApproximationCurve(kernel=repr(kernel), method=method, n_features=Ds,
                              max_error=max_err, mean_error=mean_err, hoeffding_epsilon=hoeff,
                              uniform_epsilon=uniform, delta=float(delta), sigma2=float(sigma2),
                              diameter=float(diameter), scale=scale, n_pairs=int(K.size),
                              note=note)
