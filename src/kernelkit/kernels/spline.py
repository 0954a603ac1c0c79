"""Spline kernels with infinitely many knots on [0, inf) (Vapnik 1998).

A spline of order d with knots t_1, ..., t_N is a linear function of the
features ``1, x, ..., x^d, (x - t_1)_+^d, ..., (x - t_N)_+^d``. Letting the
knots fill [0, inf) with unit density turns the sum over knots into an
integral, and the inner product of two such feature vectors into the kernel
(one dimension)::

    k(x, y) = sum_{r=0}^{d} x^r y^r + int_0^inf (x - t)_+^d (y - t)_+^d dt
            = sum_{r=0}^{d} x^r y^r
              + sum_{r=0}^{d} C(d, r) / (2d - r + 1) min(x, y)^(2d - r + 1) |x - y|^r,

which for d = 1, the linear spline, is the lecture's
``1 + xy + xy min(x, y) - (x + y)/2 min(x, y)^2 + min(x, y)^3 / 3``. On
vectors the kernel is the product over the coordinates (a tensor-product
spline). It is an inner product of feature maps, hence positive semi-definite,
but only for inputs in [0, inf): negative inputs are refused.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from .._validation import Interval, check_vectors
from .base import Kernel, bounded_power, max_abs

__all__ = ["Spline", "spline_coefficients"]


def spline_coefficients(order):
    """The coefficients C(d, r) / (2d - r + 1), r = 0..d, of the knot integral.

    Parameters
    ----------
    order : int
        The spline order d >= 0.

    Returns
    -------
    ndarray of shape (order + 1,)
        Entry r multiplies ``min(x, y)^(2d - r + 1) |x - y|^r``.
    """
    d = int(order)
    return np.array([math.comb(d, r) / (2 * d - r + 1) for r in range(d + 1)])


def _coordinate_values(x, y, order, coefficients, out):
    """One coordinate's factor k_1(x_i, y_j) into ``out`` (shape (len(x), len(y))).

    ``x`` is a column (n, 1), ``y`` a row (m,): the temporaries are (n, m).
    """
    low = np.minimum(x, y)
    gap = np.abs(x - y)
    # the knot integral: low^(d+1) * sum_r c_r low^(d-r) gap^r (d is small: explicit powers)
    integral = np.zeros_like(out)
    gap_power = np.ones_like(out)
    for r, c in enumerate(coefficients):
        integral += c * np.power(low, order - r) * gap_power
        gap_power *= gap
    integral *= np.power(low, order + 1)
    # the polynomial part sum_{r=0}^{d} (xy)^r by Horner's rule
    xy = x * y
    out[...] = 1.0
    for _ in range(order):
        out *= xy
        out += 1.0
    out += integral


class Spline(Kernel):
    """The spline kernel of order d with infinitely many knots on [0, inf) (Vapnik 1998).

    For one coordinate (d = ``order``, m = min(x, y))::

        k(x, y) = sum_{r=0}^{d} (xy)^r + int_0^inf (x - t)_+^d (y - t)_+^d dt

    (the closed form of the integral is in the module docstring); the linear
    spline (d = 1, the default) is
    ``1 + xy + xy m - (x + y)/2 m^2 + m^3 / 3``. On vectors, the product over
    coordinates. Values grow like ``max(x)^(2d + 1)`` per coordinate, so scale
    the features into a small range first (``MinMaxScaler`` into [0, 1]).

    Parameters
    ----------
    order : int, default=1
        Spline order d >= 0: 0 gives ``1 + min(x, y)`` (Brownian motion plus a
        constant), 1 the linear spline, 3 the cubic one.

    Raises
    ------
    ValueError
        When an input has a negative value: the knots cover [0, inf) only
        (shift or rescale the features, e.g. ``MinMaxScaler()``).

    References
    ----------
    Vapnik, V. (1998). Statistical Learning Theory. Wiley, section 11.5
    ("Splines with an infinite number of knots").
    Vapnik, V., Golowich, S. and Smola, A. (1997). Support vector method for
    function approximation, regression estimation, and signal processing. NIPS 9.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Spline
    >>> Spline()(np.array([[1.0]]), np.array([[2.0]]))  # 1 + 2 + 2 - 3/2 + 1/3 = 23/6
    array([[3.83333333]])
    """

    _param_constraints = {"order": [Interval(Integral, 0, None)]}

    def __init__(self, order=1):
        self.order = order
        self._check_params()

    def check_input(self, X, name="X"):
        X = check_vectors(X, name)
        if X.size and float(np.min(X)) < 0:
            raise ValueError(
                f"{type(self).__name__} is a kernel on [0, inf): its knots start at 0, so "
                f"{name} must be non-negative, but its smallest value is {float(np.min(X))!r}. "
                "Shift or rescale the features first, e.g. sklearn.preprocessing."
                "MinMaxScaler() (into [0, 1]) fitted on the training data")
        return X

    def _block_into(self, X, Y, diag_offset, out):
        order = int(self.order)
        coefficients = spline_coefficients(order)
        acc = np.ones(out.shape)  # the product over coordinates, float64 whatever out is
        factor = np.empty(out.shape)
        for k in range(X.shape[1]):
            _coordinate_values(X[:, k:k + 1], Y[:, k], order, coefficients, factor)
            acc *= factor
        out[...] = acc

    def _diag(self, X):
        order = int(self.order)
        # k_1(x, x) = sum_r x^(2r) + x^(2d+1) / (2d+1): only the r = 0 term of the integral
        values = np.ones(X.shape)
        sq = X * X
        for _ in range(order):
            values *= sq
            values += 1.0
        values += np.power(X, 2 * order + 1) / (2 * order + 1)
        return np.prod(values, axis=1)

    def value_bound(self, X, Y):
        # For 0 <= x, y <= M each coordinate's factor is at most
        # sum_r M^(2r) + M^(2d+1) / (2d+1) (its value at x = y = M), and every
        # partial sum and product is below the bound of the whole product.
        M = max(max_abs(X), max_abs(Y))
        d = int(self.order)
        try:
            per_coordinate = (sum(M ** (2 * r) for r in range(d + 1))
                              + M ** (2 * d + 1) / (2 * d + 1))
        except OverflowError:  # beyond float64: not proven finite
            return math.inf
        return bounded_power(per_coordinate, X.shape[1])
