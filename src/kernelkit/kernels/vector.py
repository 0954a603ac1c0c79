"""Kernels on real vectors: linear, polynomial, Gaussian (RBF), Laplacian, Cauchy,
sigmoid, Kronecker delta and constant.

Names follow Rahimi & Recht (2007): the *Laplacian* kernel exp(-gamma ||x-y||_1)
has a Cauchy spectral density, the *Cauchy* kernel prod_i 1/(1 + gamma^2 (x_i-y_i)^2)
a Laplace one. The formulas, not a table's labels, decide.

(About 760 lines: eight small kernels, one family; RBF carries the float32
fast path, the overflow-safe distance path and per-feature length scales (ARD);
splitting RBF into its own module is issue 22's restructuring.)
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import Interval, Options
from ..exceptions import InvalidParameterError
from .base import Kernel, bounded_power, max_abs
from . import _sparse, spectral
from .data_dependent import GAMMA_RULES, check_resolved

__all__ = ["Linear", "Polynomial", "RBF", "Laplacian", "Cauchy", "Sigmoid",
           "KroneckerDelta", "Constant"]

_POSITIVE = Interval(Real, 0, None, closed="neither")
# A gamma > 0, or scikit-learn's data-dependent rules, fixed at fit by Kernel.resolve(X).
_GAMMA = Options(str, GAMMA_RULES)


def _sq_norms(X):
    if _sparse.is_sparse(X):
        return _sparse.sparse_sq_norms(X)
    return np.einsum("ij,ij->i", X, X)


def _inner_into(X, Y, out):
    """X @ Y.T into ``out`` when it is float64, else into a float64 temporary.

    Accumulation stays float64 whatever the storage dtype of the result.
    Sparse rows: the sparse product, written into the dense block.
    """
    if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
        return _sparse.inner_into(X, Y, out)
    G = out if out.dtype == np.float64 else np.empty(out.shape)
    np.matmul(X, Y.T, out=G)
    return G


def _centered(X, Y):
    """Shift X and Y by Y's mean when the data sit far from the origin.

    Distances are unchanged by a common shift, but the expansion
    ||x||^2 + ||y||^2 - 2x'y loses digits in proportion to ||x||^2 / ||x - y||^2.
    When the mean is small next to the spread (||mean||^2 <= mean ||y||^2 / 2)
    a shift gains nothing and the copy is skipped: ``prepare`` centres whole
    inputs once per call, so the blocks of a Gram matrix skip it.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        shift = Y.mean(axis=0)
        shift_sq = shift @ shift
        if shift_sq <= 0.5 * np.mean(np.einsum("ij,ij->i", Y, Y)):
            return X, Y
    if not np.isfinite(shift_sq):  # inputs near float64's limit: shifting could overflow
        return X, Y
    return X - shift, Y - shift


def _inner_bound(X, Y):
    """A bound of |x'y| and of every partial sum of it: d max|x| max|y| (inf on overflow)."""
    return X.shape[1] * max_abs(X) * max_abs(Y)


# Above this, ||x||^2 + ||y||^2 - 2 x'y may overflow (inf - inf = NaN): RBF then
# computes its distances on inputs scaled by a power of two (see _rbf_scaled_into).
_PLAIN_SQ_NORM_LIMIT = 1e300
# RBF's float32 fast path needs float32 inner products and norms of the
# centred rows far from float32's largest number (3.4e38).
_FLOAT32_INNER_LIMIT = 1e36


def _scale_of(X, Y):
    """A power of two s with max|X|, max|Y| <= 2 s: dividing by it is exact."""
    largest = max(max_abs(X), max_abs(Y))
    return float(np.ldexp(1.0, int(np.frexp(largest)[1]) - 1)) if largest > 0 else 1.0


def _rbf_scaled_into(X, Y, gamma, diag_offset, out):
    """RBF values of inputs so large that their squared norms overflow float64.

    exp(-gamma ||x - y||^2) = exp(-(gamma s^2) ||x/s - y/s||^2) with s a power
    of two (exact scaling). The distances are summed from coordinate
    differences, not from the expansion, whose round-off (1e-16 ||x||^2)
    times gamma s^2 would swamp them (k(x, x) would come out 0); a product
    gamma s^2 d that overflows can only mean a value of 0, and 0 * inf is
    avoided. So X * 1e200 gives the mathematically right kernel values
    instead of NaN. Rare and slower (d passes over the block, in row chunks
    that stay in cache), it is only taken when the expansion would overflow.
    """
    s = _scale_of(X, Y)
    Xs, Ys = X / s, Y / s
    with np.errstate(over="ignore", under="ignore"):
        factor = (gamma * s) * s
    n, m = out.shape
    step = max(1, (1 << 15) // max(m, 1))  # rows of a chunk: a 256 KiB temporary
    D = np.empty((min(step, n), m))
    T = np.empty_like(D)
    for r0 in range(0, n, step):
        r1 = min(n, r0 + step)
        d, t = D[:r1 - r0], T[:r1 - r0]
        d[...] = 0.0
        for k in range(Xs.shape[1]):
            np.subtract(Xs[r0:r1, k:k + 1], Ys[:, k], out=t)
            np.multiply(t, t, out=t)
            d += t
        if diag_offset >= 0:  # exact diagonal of a symmetric Gram matrix
            i = np.arange(r0, r1)
            inside = i + diag_offset < m
            d[i[inside] - r0, i[inside] + diag_offset] = 0.0
        with np.errstate(over="ignore", under="ignore"):
            if np.isfinite(factor):
                d *= factor
            else:  # any nonzero distance gives exp(-inf) = 0
                d[d > 0] = np.inf
            np.negative(d, out=d)
            np.exp(d, out=d)
        out[r0:r1] = d


def _rbf_sparse_into(X, Y, gamma, diag_offset, out):
    """RBF values of sparse rows: the expansion ||x||^2 + ||y||^2 - 2 x'y, clamped at 0.

    No centring (it would densify the rows): the expansion loses digits in
    proportion to ||x||^2 / ||x - y||^2, as for uncentred dense rows. Rows
    whose squared norms would overflow are divided by a power of two s
    first (exact) and gamma multiplied by s^2.
    """
    from .._compiled import rbf_from_inner

    xx, yy = _sq_norms(X), _sq_norms(Y)
    if not xx.max(initial=0.0) + yy.max(initial=0.0) <= _PLAIN_SQ_NORM_LIMIT:
        s = _scale_of(X, Y)
        X, Y = X / s, Y / s
        xx, yy = _sq_norms(X), _sq_norms(Y)
        with np.errstate(over="ignore", under="ignore"):
            gamma = min((gamma * s) * s, 1e300)  # a larger factor only gives exp(-inf) = 0
    G = _inner_into(X, Y, out)
    rbf_from_inner(G, xx, yy, float(gamma), diag_offset, out)


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


#: Below this many entries an RBF block's values are computed on one thread.
SERIAL_BLOCK_ENTRIES = 1 << 20


def _rbf_values_loop(size):
    """The compiled RBF pass for a block of ``size`` entries: the parallel loop, or,
    for small blocks, the single-thread one.

    Small blocks come in long alternations with small BLAS calls (SMO's kernel rows
    in batches of 64, one row at a time in Pegasos). Each parallel region then waits
    for threads that OpenBLAS and OpenMP leave spinning after their own calls: on two
    cores a 64 x 10,000 block took ~6.5 ms in parallel against ~1.5 ms on one thread
    (adult 10k, SMO without a stored Gram matrix: 3.3 s -> 1.2 s).
    """
    from .._compiled import rbf_from_inner, rbf_tile

    return rbf_tile if size < SERIAL_BLOCK_ENTRIES else rbf_from_inner


def _check_length_scales(value):
    """Per-feature length scales as a 1-D float64 array of finite positive numbers."""
    scales = np.asarray(value, dtype=np.float64)
    if scales.ndim != 1 or scales.size == 0 or not np.all(np.isfinite(scales)) \
            or not np.all(scales > 0):
        raise InvalidParameterError(
            "RBF: length_scale must be a number > 0 or a 1-D array of finite numbers > 0 "
            f"(one per feature), got {value!r}")
    return scales


def _scale_columns(X, factors):
    """X with column j multiplied by factors[j] (dense: same dtype; sparse: CSR)."""
    if _sparse.is_sparse(X):
        import scipy.sparse as sp

        return sp.csr_matrix(X @ sp.diags(factors))
    return X * factors.astype(X.dtype, copy=False)


class RBF(Kernel):
    """The Gaussian (RBF) kernel k(x, y) = exp(-gamma ||x - y||^2).

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        Inverse width, > 0. ``"scale"`` (1 / (n_features X.var())) and
        ``"auto"`` (1 / n_features) are scikit-learn's data-dependent values
        (``SVC``'s default is ``"scale"``), fixed at fit by
        :meth:`Kernel.resolve`; called directly, ``k(X, Y)`` fixes them on X.
    length_scale : float, {"scale", "auto"} or array-like of shape (n_features,), optional
        Alternative parametrisation: gamma = 1 / (2 length_scale^2); its
        ``"scale"`` is the length whose gamma is gamma's ``"scale"``,
        sqrt(n_features X.var() / 2). When given, it replaces ``gamma``
        (which must then be left at its default). An array gives one length
        scale per feature (automatic relevance determination, ARD):
        k(x, y) = exp(-sum_j (x_j - y_j)^2 / (2 l_j^2)), computed as the
        isotropic kernel with gamma = 1/2 on inputs divided by the length
        scales (stored as a float64 array; learn it with
        :mod:`kernelkit.tuning`).

    Notes
    -----
    Squared distances use the expansion ||x||^2 + ||y||^2 - 2 x'y (one matrix
    product), in float64, on inputs shifted by the mean of Y, clamped at 0; the
    diagonal of a symmetric Gram matrix is exactly 1. Its spectral density is
    normal with covariance 2 gamma I.

    Float32 fast path of the block API: inputs prepared with
    ``prepare(X, Y, dtype=np.float32)`` are centred on Y's mean and rounded
    to float32, and their blocks are one float32 matrix product with the
    norms in float64 (about twice the speed of float64 blocks; Falkon's
    float32 K_nM).

    Examples
    --------
    Two points at squared distance 2: exp(-0.5 * 2) = exp(-1) off the diagonal.

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> np.round(RBF(gamma=0.5)(X), 4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    >>> RBF(length_scale=1.0)
    RBF(length_scale=1.0)
    """

    sparse_blocks = True

    def __init__(self, gamma="scale", length_scale=None):
        self.gamma = gamma
        self.length_scale = length_scale
        self._check_params()

    _param_constraints = {
        "gamma": [_POSITIVE, _GAMMA],
        "length_scale": [_POSITIVE, None, _GAMMA, "array-like"],
    }
    _data_dependent_params = {"gamma": "gamma", "length_scale": "length_scale"}

    def _check_params(self):
        if self.gamma is None:
            raise InvalidParameterError(
                "RBF: gamma=None is not a value; leave gamma out for scikit-learn's "
                "data-dependent default gamma='scale' (1 / (n_features X.var())), or pass a "
                "number (gamma=1.0 was kernelkit's default before it followed scikit-learn)")
        super()._check_params()
        if self.length_scale is not None and not (isinstance(self.gamma, str)
                                                  and self.gamma == "scale"):
            raise InvalidParameterError(
                "RBF: give gamma or length_scale, not both "
                f"(got gamma={self.gamma!r}, length_scale={self.length_scale!r})")
        if self.length_scale is not None and not isinstance(self.length_scale, (Real, str)):
            self.length_scale = _check_length_scales(self.length_scale)

    def _rule_params(self):
        rules = super()._rule_params()
        if self.length_scale is not None:  # gamma is unused: length_scale sets the width
            rules.pop("gamma", None)
        return rules

    @property
    def is_ard(self) -> bool:
        """Whether the kernel has one length scale per feature (an array ``length_scale``)."""
        return isinstance(self.length_scale, np.ndarray)

    def _ard_inputs(self, X, Y):
        """Inputs divided by the per-feature length scales (ARD), and the gamma to use on them."""
        if not self.is_ard:
            return X, Y, self.gamma_value
        scales = self.length_scale
        if X.shape[1] != scales.shape[0] or Y.shape[1] != scales.shape[0]:
            raise ValueError(f"RBF has {scales.shape[0]} per-feature length scales but the "
                             f"inputs have {X.shape[1]} features; give one length scale per "
                             "feature")
        Xs = _scale_columns(X, 1.0 / scales)
        return Xs, (Xs if Y is X else _scale_columns(Y, 1.0 / scales)), 0.5

    @property
    def gamma_value(self) -> float:
        """The effective gamma (an error for per-feature length scales: there is no one gamma)."""
        check_resolved(self)  # a number, not "scale": say so clearly
        if self.is_ard:
            raise ValueError(f"{self!r} has one length scale per feature (ARD), so no single "
                             "gamma; read length_scale instead")
        if self.length_scale is not None:
            return 1.0 / (2.0 * float(self.length_scale) ** 2)
        return float(self.gamma)

    @property
    def is_shift_invariant(self):
        return True

    def spectral_density(self):
        if self.is_ard:
            raise ValueError(
                f"{self!r}: random Fourier features of an RBF kernel with per-feature length "
                "scales are not built in; divide the columns of X by the length scales and "
                "use RBF(length_scale=1.0), or use Nystroem features")
        return spectral.Gaussian(gamma=self.gamma_value)

    def sq_euclidean_profile(self):
        if self.is_ard:
            return None  # a function of the scaled distance, not of ||x - y||
        gamma = self.gamma_value
        return lambda s: np.exp(-gamma * s)

    def _prepare(self, X, Y):
        X, Y = super()._prepare(X, Y)
        if X is Y:
            Xc, _ = _centered(X, X)
            return Xc, Xc
        return _centered(X, Y)

    def _prepare_float32(self, X, Y):
        # The float32 fast path (Falkon's K_nM): always centre on Y's mean (in
        # float64, then round), since float32 inner products lose digits in
        # proportion to ||x||^2 / ||x - y||^2 much sooner than float64 ones.
        shift = np.asarray(Y, dtype=np.float64).mean(axis=0)
        Yc64 = np.asarray(Y, dtype=np.float64) - shift
        Xc64 = Yc64 if X is Y else np.asarray(X, dtype=np.float64) - shift
        if not (_inner_bound(Xc64, Yc64) <= _FLOAT32_INNER_LIMIT):
            # float32 products of rows this large would overflow (inf - inf):
            # the float64 path (scaled if need be), rounded to float32.
            return self._prepare(X, Y)
        Yc = Yc64.astype(np.float32)
        if X is Y:
            # Two arrays, not one: numpy sends A @ A.T to SYRK, whose rounding
            # differs from GEMM's, and K(C, C) must round like the K_nM blocks.
            return Yc, Yc.copy()
        return Xc64.astype(np.float32), Yc

    def _block_into(self, X, Y, diag_offset, out):
        rbf_from_inner = _rbf_values_loop(out.size)
        X, Y, gamma = self._ard_inputs(X, Y)  # ARD: inputs divided by the length scales
        if X.dtype == np.float32:  # prepared by _prepare_float32: float32 GEMM
            G = out if out.dtype == np.float32 else np.empty(out.shape, dtype=np.float32)
            np.matmul(X, Y.T, out=G)
            xx = np.einsum("ij,ij->i", X, X, dtype=np.float64)
            yy = np.einsum("ij,ij->i", Y, Y, dtype=np.float64)
            rbf_from_inner(G, xx, yy, gamma, diag_offset, G)
            if G is not out:
                out[...] = G
            return
        if _sparse.is_sparse(X) or _sparse.is_sparse(Y):
            _rbf_sparse_into(X, Y, gamma, diag_offset, out)
            return
        rows, cols = X, Y
        X, Y = _centered(X, Y)
        xx, yy = _sq_norms(X), _sq_norms(Y)
        # The expansion cannot overflow while ||x||^2 + ||y||^2 <= 1e300 (then
        # |x'y| is below that too, by Cauchy-Schwarz); beyond, the scaled twin.
        if not xx.max(initial=0.0) + yy.max(initial=0.0) <= _PLAIN_SQ_NORM_LIMIT:
            _rbf_scaled_into(rows, cols, gamma, diag_offset, out)
            return
        G = _inner_into(X, Y, out)
        rbf_from_inner(G, xx, yy, gamma, diag_offset, out)

    def _tile_values(self, X, Y):
        # The tiled Gram engine (kernels/tiled.py): dense rows whose expansion
        # cannot overflow; the norms once (float64), the values per tile.
        # float32 rows come from _prepare_float32 (centred, bounded: no overflow).
        if _sparse.is_sparse(X) or _sparse.is_sparse(Y) or X.dtype != Y.dtype \
                or X.dtype not in (np.float64, np.float32) or self.is_ard:
            return None  # ARD: the row-block path, which divides by the length scales
        xx = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y, dtype=np.float64)
        if not xx.max(initial=0.0) + yy.max(initial=0.0) <= _PLAIN_SQ_NORM_LIMIT:
            return None
        from .._compiled import rbf_tile

        gamma = self.gamma_value

        def values(G, r0, r1, c0, c1, diag_offset, out):
            rbf_tile(G, xx[r0:r1], yy[c0:c1], gamma, diag_offset, out)

        return values

    def _diag(self, X):
        return np.ones(X.shape[0])

    def value_bound(self, X, Y):
        return 1.0  # exp of -(a distance clamped at 0); overflowing inputs are scaled


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
