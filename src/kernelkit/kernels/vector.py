"""Kernels on real vectors: linear, polynomial, Gaussian (RBF), Laplacian, Cauchy,
sigmoid, Kronecker delta and constant.

Names follow Rahimi & Recht (2007): the *Laplacian* kernel exp(-gamma ||x-y||_1)
has a Cauchy spectral density, the *Cauchy* kernel prod_i 1/(1 + gamma^2 (x_i-y_i)^2)
a Laplace one. The formulas, not a table's labels, decide.

The Gaussian kernel lives in :mod:`.rbf` (its float32 fast path, overflow-safe
distances, compiled value loops and per-feature length scales) and is
re-exported here; what the family shares is in :mod:`._vector_common`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import Interval
from ..exceptions import InvalidParameterError
from .base import Kernel, bounded_power, check_resolved
from . import _sparse, spectral
from ._vector_common import _GAMMA, _POSITIVE, _inner_bound, _inner_into, _sq_norms
from .rbf import RBF

__all__ = ["Linear", "Polynomial", "RBF", "Laplacian", "Cauchy", "Sigmoid",
           "KroneckerDelta", "Constant"]


class Linear(Kernel):
    """The linear kernel k(x, y) = x'y.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))
    array([[11.]])
    """

    sparse_blocks = True

    def __init__(self):
        pass

    def _block(self, X, Y, diag_offset):
        if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
            return _inner_into(X, Y, np.empty((X.shape[0], Y.shape[0])))
        return X @ Y.T

    def _block_into(self, X, Y, diag_offset, out):
        G = _inner_into(X, Y, out)
        if G is not out:
            out[...] = G

    def _diag(self, X):
        return _sq_norms(X)

    def feature_distance_scale(self):
        return 1.0  # the feature space is the input space

    def value_bound(self, X, Y):
        return _inner_bound(X, Y)


class Polynomial(Kernel):
    """The polynomial kernel k(x, y) = (gamma x'y + coef0) ** degree.

    Parameters
    ----------
    degree : int, default=3
        Positive integer degree. Its explicit feature map has
        ``comb(n_features + degree, degree)`` monomials (with ``coef0 > 0``).
    gamma : float or {"scale", "auto"}, default="scale"
        Scale of the inner product, > 0. ``"scale"`` is 1 / (n_features X.var())
        and ``"auto"`` 1 / n_features, fixed from the training data at fit
        (see :meth:`Kernel.resolve`), as in scikit-learn's SVC.
    coef0 : float, default=1.0
        Offset; ``coef0 >= 0`` keeps the kernel positive semi-definite.

    Notes
    -----
    A non-integer degree is refused: ``(gamma x'y + coef0) ** p`` is
    undefined where the base is negative and, for non-integer p, not positive
    semi-definite in general (a power p of a PSD kernel is PSD for every
    p > 0 only when the kernel is infinitely divisible -- e.g. ``coef0 > 0``
    is not enough). For a fractional power of a kernel with non-negative
    values, ``k ** p`` (:class:`~kernelkit.kernels.Power`) computes it
    without the PSD guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Polynomial
    >>> k = Polynomial(degree=2, gamma=1.0, coef0=1.0)
    >>> k(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))  # (1*3 + 2*4 + 1)^2
    array([[144.]])
    """

    sparse_blocks = True
    _param_constraints = {
        "degree": [Interval(Integral, 1, None)],
        "gamma": [_POSITIVE, _GAMMA],
        "coef0": [Interval(Real, None, None)],
    }
    _data_dependent_params = {"gamma": "gamma"}

    def __init__(self, degree=3, gamma="scale", coef0=1.0):
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self._check_params()

    def _check_params(self):
        degree = self.degree
        if isinstance(degree, Real) and not isinstance(degree, (bool, Integral)) and \
                not float(degree).is_integer():
            raise InvalidParameterError(
                f"Polynomial: degree must be a positive integer, got {degree!r}. A non-integer "
                "power (gamma x'y + coef0) ** p is undefined where the base is negative and "
                "not positive semi-definite in general; use an integer degree, or "
                "'k ** p' on a kernel with non-negative values (no PSD guarantee)")
        super()._check_params()

    @property
    def is_psd(self):
        return self.coef0 >= 0

    def _block_into(self, X, Y, diag_offset, out):
        from .._compiled import poly_from_inner

        G = _inner_into(X, Y, out)
        poly_from_inner(G, float(self.gamma), float(self.coef0), int(self.degree), out)

    def _diag(self, X):
        return (self.gamma * _sq_norms(X) + self.coef0) ** int(self.degree)

    def value_bound(self, X, Y):
        inner = _inner_bound(X, Y)
        base = float(self.gamma) * inner + abs(float(self.coef0))
        return max(inner, bounded_power(base, int(self.degree)))


class _Stationary(Kernel):
    """A shift-invariant kernel with one width parameter gamma > 0 and k(x, x) = 1.

    Subclasses name their compiled loop (``_loop``) and spectral density.
    """

    _loop = None
    _density = None
    sparse_blocks = True  # the sparse-aware loops of _compiled/sparse.py
    _param_constraints = {"gamma": [_POSITIVE, _GAMMA]}

    def __init__(self, gamma="scale"):
        self.gamma = gamma
        self._check_params()

    @property
    def is_shift_invariant(self):
        return True

    def spectral_density(self):
        check_resolved(self)
        return getattr(spectral, self._density)(gamma=float(self.gamma))

    def _block_into(self, X, Y, diag_offset, out):
        from .. import _compiled

        if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
            from .._compiled import sparse as sparse_loops

            G = out if out.dtype == np.float64 else np.empty(out.shape)
            getattr(sparse_loops, self._loop + "_csr")(
                _sparse.as_csr_rows(X), _sparse.as_csr_rows(Y), float(self.gamma),
                diag_offset, G)
            if G is not out:
                out[...] = G
            return
        getattr(_compiled, self._loop)(X, Y, float(self.gamma), out)

    def _diag(self, X):
        return np.ones(X.shape[0])

    def value_bound(self, X, Y):
        # exp(-gamma * a sum of |differences|) and a product of 1 / (1 + ...):
        # an overflowing difference only drives a value to 0, never to NaN.
        return 1.0


class Laplacian(_Stationary):
    """The Laplacian kernel k(x, y) = exp(-gamma ||x - y||_1).

    Its spectral density is a product of Cauchy densities with scale gamma.

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        Inverse width, > 0. ``"scale"`` is 1 / (n_features sqrt(X.var())), so
        that gamma ||x - y||_1 is of order 1 (on standardised columns it is
        1 / n_features, scikit-learn's ``laplacian_kernel`` default), and
        ``"auto"`` 1 / n_features; fixed at fit from the training data (the
        reasons: :mod:`kernelkit.kernels.data_dependent`).

    Examples
    --------
    Two points at L1 distance 2: exp(-0.5 * 2) = exp(-1) off the diagonal.

    >>> import numpy as np
    >>> from kernelkit.kernels import Laplacian
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> np.round(Laplacian(gamma=0.5)(X), 4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """

    _loop = "l1_exp"
    _density = "CauchyDensity"
    _data_dependent_params = {"gamma": "l1_gamma"}

    def __init__(self, gamma="scale"):
        super().__init__(gamma)


class Cauchy(_Stationary):
    """The Cauchy kernel k(x, y) = prod_i 1 / (1 + gamma^2 (x_i - y_i)^2).

    Its spectral density is a product of Laplace densities with scale gamma.

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        Inverse width, > 0. ``"scale"`` is 1 / sqrt(n_features X.var()), the
        square root of the RBF's (to first order the kernel is
        exp(-gamma^2 ||x - y||^2)), and ``"auto"`` 1 / sqrt(n_features); fixed
        at fit from the training data.

    Examples
    --------
    Two points differing by 1 in each of two coordinates: (1 / (1 + 1))^2 = 0.25.

    >>> import numpy as np
    >>> from kernelkit.kernels import Cauchy
    >>> Cauchy(gamma=1.0)(np.array([[0.0, 0.0], [1.0, 1.0]]))
    array([[1.  , 0.25],
           [0.25, 1.  ]])
    """

    _loop = "cauchy"
    _density = "LaplaceDensity"
    _data_dependent_params = {"gamma": "cauchy_gamma"}

    def __init__(self, gamma="scale"):
        super().__init__(gamma)


class Sigmoid(Kernel):
    """The sigmoid (hyperbolic tangent) kernel k(x, y) = tanh(gamma x'y + coef0).

    Warning: this kernel is **not positive semi-definite** in general
    (``is_psd`` is False). Exact solvers may need jitter or fail; check a
    sample with :func:`kernelkit.psd_check`.

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        Scale of the inner product, > 0 (``"scale"``/``"auto"``: scikit-learn's
        rules, fixed at fit from the training data).
    coef0 : float, default=0.0
        Offset.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Sigmoid
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> np.round(Sigmoid(gamma=0.5, coef0=0.0)(X), 4)  # tanh(0.5 * x'y)
    array([[0.    , 0.    ],
           [0.    , 0.7616]])
    >>> Sigmoid().is_psd
    False
    """

    sparse_blocks = True
    _param_constraints = {
        "gamma": [_POSITIVE, _GAMMA],
        "coef0": [Interval(Real, None, None)],
    }
    _data_dependent_params = {"gamma": "gamma"}

    def __init__(self, gamma="scale", coef0=0.0):
        self.gamma = gamma
        self.coef0 = coef0
        self._check_params()

    @property
    def is_psd(self):
        return False

    def _block_into(self, X, Y, diag_offset, out):
        from .._compiled import tanh_from_inner

        G = _inner_into(X, Y, out)
        tanh_from_inner(G, float(self.gamma), float(self.coef0), out)

    def _diag(self, X):
        return np.tanh(self.gamma * _sq_norms(X) + self.coef0)

    def value_bound(self, X, Y):
        # tanh is bounded by 1 once its argument is finite (no inf - inf in x'y).
        inner = _inner_bound(X, Y)
        return 1.0 if float(self.gamma) * inner + abs(float(self.coef0)) <= 1e300 else np.inf


class KroneckerDelta(Kernel):
    """The Kronecker delta kernel: k(x, y) = 1 if x == y (every feature equal), else 0.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import KroneckerDelta
    >>> KroneckerDelta()(np.array([[0.0], [1.0], [0.0]]))
    array([[1., 0., 1.],
           [0., 1., 0.],
           [1., 0., 1.]])
    """

    def __init__(self):
        pass

    def _block(self, X, Y, diag_offset):
        # Give every distinct row an integer id; equal rows share it exactly.
        both = np.concatenate([X, Y])
        _, ids = np.unique(both, axis=0, return_inverse=True)
        ids = ids.ravel()
        return (ids[: len(X), None] == ids[None, len(X):]).astype(np.float64)

    def _diag(self, X):
        return np.ones(len(X))

    def value_bound(self, X, Y):
        return 1.0


class Constant(Kernel):
    """The constant kernel k(x, y) = value (>= 0); ``k + c`` builds ``k + Constant(c)``.

    Parameters
    ----------
    value : float, default=1.0
        The constant, >= 0 so that the kernel is positive semi-definite.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Constant, Linear
    >>> Constant(2.0)(np.array([[0.0, 0.0], [1.0, 1.0]]))
    array([[2., 2.],
           [2., 2.]])
    >>> Linear() + 2.0
    Linear() + Constant(value=2.0)
    """

    input_kind = "any"
    sparse_blocks = True
    _param_constraints = {
        "value": [Interval(Real, 0, None,
                           note="a constant kernel must be >= 0 to be positive semi-definite")],
    }

    def __init__(self, value=1.0):
        self.value = value
        self._check_params()

    def check_input(self, X, name="X"):
        from .._validation import looks_like_strings

        return X if looks_like_strings(X) else super().check_input(X, name)

    @property
    def is_shift_invariant(self):
        return True

    def spectral_density(self):
        return spectral.Dirac(scale=float(self.value))

    def _block(self, X, Y, diag_offset):
        return np.full((_sparse.n_rows(X), _sparse.n_rows(Y)), float(self.value))

    def _diag(self, X):
        return np.full(_sparse.n_rows(X), float(self.value))

    def value_bound(self, X, Y):
        return float(self.value)
