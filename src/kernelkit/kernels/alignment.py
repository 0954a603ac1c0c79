"""Kernels on time series: the global alignment kernel (Cuturi 2011).

A sample is a time series: a 1-D array of m values or a 2-D array (m, d) of
m points in R^d; series may differ in length, not in d (the ``"series"`` kind
of :mod:`kernelkit.kernels.objects`).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import Interval, Options
from .objects import ObjectKernel

__all__ = ["GlobalAlignment", "median_sigma"]

# Points of the series whose pairwise distances give sigma="scale" (evenly spaced
# over all points beyond this: 500^2 / 2 distances at most).
_SCALE_POINTS = 500


def median_sigma(series):
    """Cuturi's scale of sigma: median distance of two points times sqrt(median length).

    Parameters
    ----------
    series : sequence of ndarray of shape (m_i, d)
        Checked series (the training inputs).

    Returns
    -------
    float
        ``median_{p != q} ||x_p - x_q|| * sqrt(median_i m_i)`` over the points of
        all series (at most 500 of them, evenly spaced), or ``sqrt(median m_i)``
        when every point is the same.
    """
    points = np.concatenate(list(series), axis=0)
    if len(points) > _SCALE_POINTS:
        points = points[np.linspace(0, len(points) - 1, _SCALE_POINTS).astype(np.int64)]
    sq = np.einsum("ij,ij->i", points, points)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * points @ points.T, 0.0)
    upper = np.sqrt(d2[np.triu_indices(len(points), 1)])
    median = float(np.median(upper)) if upper.size else 0.0
    length = float(np.median([len(s) for s in series]))
    return (median if median > 0 else 1.0) * float(np.sqrt(length))


def _stack(series):
    """(points of all series one after another, offsets) for the compiled loop."""
    lengths = np.fromiter((len(s) for s in series), dtype=np.int64, count=len(series))
    offsets = np.zeros(len(series) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    values = np.ascontiguousarray(np.concatenate(list(series), axis=0), dtype=np.float64)
    return values, offsets


class GlobalAlignment(ObjectKernel):
    """The global alignment kernel of time series (Cuturi 2011), computed in log space.

    k(x, y) = sum over all alignments pi of x (n points) and y (m points) of
    prod_{(i, j) in pi} kappa(x_i, y_j): every monotone path from (1, 1) to
    (n, m) with steps (1, 0), (0, 1), (1, 1) -- where dynamic time warping
    keeps the best path, this kernel sums them all, which makes it positive
    definite. The local kernel is kappa = w k / (2 - w k), k the Gaussian
    kernel exp(-||x_i - y_j||^2 / (2 sigma^2)), ``w = (1 - |i - j| / T)_+`` the
    triangular weight (w = 1 for ``triangular=0``); kappa / (1 + kappa) = w k / 2
    is positive definite, the condition of Cuturi's Theorem 1, so k is for
    every sigma > 0 and T. Cost O(n m d) per pair (compiled, parallel over
    rows), the sum held as its logarithm.

    Parameters
    ----------
    sigma : float or "scale", default="scale"
        Width of the Gaussian local kernel, > 0. ``"scale"`` is Cuturi's
        (2011) scale, the median distance between points of the training
        series times the square root of their median length
        (:func:`median_sigma`), fixed at fit (:meth:`Kernel.resolve`; ``k(X, Y)``
        fixes it on X); he tries multiples 0.2 to 5 of it.
    triangular : int, default=0
        T >= 0: only points at most T - 1 steps apart in time are aligned,
        weighted by ``1 - |i - j| / T`` (the triangular global alignment
        kernel, O(T min(n, m)) useful cells); series whose lengths differ by T
        or more get k = 0. 0 aligns every pair of points.
    normalize : bool, default=True
        k(x, y) / sqrt(k(x, x) k(y, y)), computed from the logarithms (so
        k(x, x) = 1 and no value under- or overflows). Unnormalised values
        grow or shrink exponentially with the lengths (an overflow is an
        error that says so).

    Examples
    --------
    Two one-point series: a single alignment, kappa = k / (2 - k) with
    k = exp(-1/2) for points 1 apart and sigma = 1:

    >>> import numpy as np
    >>> from kernelkit.kernels import GlobalAlignment
    >>> k = np.exp(-0.5)
    >>> value = GlobalAlignment(sigma=1.0, normalize=False)([[0.0]], [[1.0]])[0, 0]
    >>> bool(np.isclose(value, k / (2 - k)))
    True

    References
    ----------
    Cuturi, M. (2011). Fast global alignment kernels. ICML, 929-936.
    Cuturi, M., Vert, J.-P., Birkenes, O. and Matsui, T. (2007). A kernel for
    time series based on global alignments. ICASSP.
    """

    input_kind = "series"
    _param_constraints = {"sigma": [Interval(Real, 0, None, closed="neither"),
                                    Options(str, ("scale",))],
                          "triangular": [Interval(Integral, 0, None)],
                          "normalize": ["boolean"]}

    def __init__(self, sigma="scale", triangular=0, *, normalize=True):
        self.sigma = sigma
        self.triangular = triangular
        self.normalize = normalize
        self._check_params()

    def _rule_params(self):
        # sigma="scale" is a data rule: check_resolved and is_resolved see it, and
        # _resolve_with below (not the vector kernels' table) gives its value
        return {"sigma": "median_sigma"} if isinstance(self.sigma, str) else {}

    def _resolve_with(self, objects):
        """Fix sigma="scale" from the training series (:func:`median_sigma`)."""
        if not isinstance(self.sigma, str):
            return self
        if not (isinstance(objects, np.ndarray) and objects.dtype == object):
            objects = self.check_input(objects, "X")
        return type(self)(sigma=median_sigma(objects), triangular=self.triangular,
                          normalize=self.normalize)

    def log_values(self, X, Y=None):
        """log k(x_i, y_j) of the unnormalised kernel (-inf where k = 0).

        Parameters
        ----------
        X : list of time series
        Y : list of time series, optional (default X)
            A data-dependent ``sigma`` is fixed on X.

        Returns
        -------
        ndarray of shape (len(X), len(Y))
        """
        X = self.check_input(X, "X")
        Y = X if Y is None else self.check_input(Y, "Y")
        kernel = self.resolve(X)  # sigma="scale" fixed on X, as k(X, Y) does
        X, Y = kernel.prepare(X, Y)
        return kernel._log_block(X, Y)

    def _log_block(self, X, Y, diag_offset=-1):
        from .._compiled.alignment import log_gak_block
        from .._compiled import interruptible

        out = np.empty((len(X), len(Y)))
        if len(X) and len(Y):
            xv, xo = _stack(X)
            yv, yo = (xv, xo) if Y is X else _stack(Y)
            interruptible(log_gak_block)(xv, xo, yv, yo, float(self.sigma),
                                         int(self.triangular), out, diag_offset)
        return out

    def _log_diag(self, X):
        from .._compiled.alignment import log_gak_diag
        from .._compiled import interruptible

        out = np.empty(len(X))
        if len(X):
            v, o = _stack(X)
            interruptible(log_gak_diag)(v, o, float(self.sigma), int(self.triangular), out)
        return out

    def _block(self, X, Y, diag_offset):
        L = self._log_block(X, Y, diag_offset)
        if not self.normalize:
            with np.errstate(over="ignore"):  # reported by the block API, with the fix
                return np.exp(L)
        dy = self._log_diag(Y)
        dx = dy[diag_offset:diag_offset + len(X)] if diag_offset >= 0 else self._log_diag(X)
        with np.errstate(invalid="ignore"):  # -inf - finite is -inf: exp gives 0
            out = np.exp(L - 0.5 * dx[:, None] - 0.5 * dy[None, :])
        if diag_offset >= 0:  # exact ones on the diagonal of a symmetric Gram matrix
            i = np.arange(max(0, min(len(X), len(Y) - diag_offset)))
            out[i, i + diag_offset] = 1.0
        return out

    def _diag(self, X):
        if self.normalize:
            return np.ones(len(X))
        with np.errstate(over="ignore"):
            return np.exp(self._log_diag(X))

    def value_bound(self, X, Y):
        return 1.0 if self.normalize else np.inf
