"""The Gaussian (RBF) kernel k(x, y) = exp(-gamma ||x - y||^2), with per-feature
length scales (ARD).

It has a module of its own because it carries three paths the other vector
kernels do not: the float32 fast path (centred float32 GEMM, guarded by a bound
on the inner products), the overflow-safe path (distances of rows whose squared
norms would overflow, computed on inputs scaled by a power of two) and the
compiled value loops (single-thread below :data:`SERIAL_BLOCK_ENTRIES`, with the
tiled engine's ``_tile_values`` hook). :mod:`.vector` re-exports :class:`RBF`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._budget import row_blocks
from ..exceptions import InvalidParameterError
from .base import Kernel, check_resolved, max_abs
from . import rbf_grid, _sparse, spectral
from ._vector_common import _GAMMA, _POSITIVE, _inner_into, _sq_norms

__all__ = ["RBF", "SERIAL_BLOCK_ENTRIES"]


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


#: Bytes of float64 per chunk of :func:`_centred_float32` (a few MB: in cache).
_CENTRE_CHUNK_BYTES = 4 << 20


def _centred_float32(A, shift):
    """``(A - shift)`` computed in float64 and rounded to float32, by row chunks.

    The same numbers as ``(np.asarray(A, np.float64) - shift).astype(np.float32)``
    without the two float64 copies of A (whose new pages cost more than the
    subtraction). Also returns the largest ``|A - shift|`` before rounding (for
    the overflow bound of the float32 products).

    Parameters
    ----------
    A : ndarray of shape (n, d), dense
    shift : ndarray of shape (d,), float64

    Returns
    -------
    centred : ndarray of shape (n, d), float32
    largest : float
        NaN when any centred entry is NaN (the caller's bound check then fails).
    """
    A = np.asarray(A)
    n, d = A.shape
    out = np.empty((n, d), dtype=np.float32)
    step = max(1, _CENTRE_CHUNK_BYTES // max(8 * d, 1))
    buf = np.empty((min(step, n), d))
    largest = 0.0
    for r0, r1 in row_blocks(n, step):
        chunk = buf[:r1 - r0]
        np.subtract(A[r0:r1], shift, out=chunk)
        largest = float(np.maximum(largest, max_abs(chunk)))  # a NaN sticks
        out[r0:r1] = chunk
    return out, largest


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


def _grid_values(route, gamma):
    """The tile function of the grid route: exact integer distances from float32 products.

    ``G`` is the float32 product of the route's integer rows (the engine multiplies
    ``values.operands``); ``aa + bb - 2 G`` is then an exact integer distance,
    scaled by gamma / s^2; pairs beyond the exactness proof are recomputed exactly.
    """
    from .._compiled import rbf_tile
    from .._compiled.grid import grid_wide_pairs

    A, B, aa, bb = route.A, route.B, route.aa, route.bb
    factor = gamma / (route.scale * route.scale)  # s^2 exact (s <= 2^16)
    wide = route.wide_share > 0

    def values(G, r0, r1, c0, c1, diag_offset, out):
        rbf_tile(G, aa[r0:r1], bb[c0:c1], factor, diag_offset, out)
        if wide:
            grid_wide_pairs(A[r0:r1], B[c0:c1], aa[r0:r1], bb[c0:c1], factor, diag_offset, out)

    values.operands = (A, B)
    return values


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

    Rows on a grid (with at least 32 features, every coordinate ``a / s``
    for integers ``a``: 8-bit images, counts) are centred by an integer
    vector, and the tiles of large float64 matrices multiply their integers
    in float32, which is exact (every partial sum an integer below 2^24, the
    few pairs beyond that recomputed in float64), at the float32 rate. The
    integer distances are exact, so the values differ from the exact kernel
    of the float64 inputs only by the final rounding (< 4u, u = 2^-53) and
    by the inputs' own rounding ``|x - a / s| <= u |a| / s``, which grows
    with the integers of the rows *as given* (not the centred ones): at most
    about ``u (||a|| + ||b||) / s * sqrt(2 gamma / e)`` more
    (:func:`kernelkit.kernels.rbf_grid.grid_error_bound`,
    :func:`kernelkit.gram.product_choice`).

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
        if X.shape[1] >= rbf_grid.GRID_MIN_FEATURES and not self.is_ard:
            # Quantised rows (images, counts): centred by an integer vector, so the
            # prepared rows stay on the grid for the tiles' exact float32 products.
            scale = rbf_grid.grid_scale(X, Y)
            snapped = None if scale is None else rbf_grid.grid_centred(X, Y, scale)
            if snapped is not None:
                return snapped
        if X is Y:
            Xc, _ = _centered(X, X)
            return Xc, Xc
        return _centered(X, Y)

    def _prepare_float32(self, X, Y):
        # The float32 fast path (Falkon's K_nM): always centre on Y's mean (in
        # float64, then round), since float32 inner products lose digits in
        # proportion to ||x||^2 / ||x - y||^2 much sooner than float64 ones.
        # By row chunks (_centred_float32): no float64 copy of X, whose fresh pages
        # cost more than the arithmetic (60,000 x 784: 1.1 s against 0.2 s).
        with np.errstate(over="ignore", invalid="ignore"):
            shift = np.mean(Y, axis=0, dtype=np.float64)
        if not np.isfinite(shift).all():  # entries near float64's limit: the float64 path
            return self._prepare(X, Y)
        Yc, y_big = _centred_float32(Y, shift)
        Xc, x_big = (Yc, y_big) if X is Y else _centred_float32(X, shift)
        if not (shift.size * x_big * y_big <= _FLOAT32_INNER_LIMIT):  # d max|x| max|y|
            # float32 products of rows this large would overflow (inf - inf):
            # the float64 path (scaled if need be), rounded to float32.
            return self._prepare(X, Y)
        if X is Y:
            # Two arrays, not one: numpy sends A @ A.T to SYRK, whose rounding
            # differs from GEMM's, and K(C, C) must round like the K_nM blocks.
            return Yc, Yc.copy()
        return Xc, Yc

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

    def _has_tiles(self, X, Y):
        # _tile_values' answer for every row block, from two maxima: dense rows of one
        # float dtype, no ARD, and squared norms (each at most d max|x|^2) that cannot
        # reach the overflow limit; the grid route, when taken, has tiles too.
        if _sparse.is_sparse(X) or _sparse.is_sparse(Y) or X.dtype != Y.dtype \
                or X.dtype not in (np.float64, np.float32) or self.is_ard:
            return False
        d = X.shape[1]
        with np.errstate(over="ignore", invalid="ignore"):
            return bool(d * max_abs(X) ** 2 + d * max_abs(Y) ** 2 <= _PLAIN_SQ_NORM_LIMIT)

    def _tile_values(self, X, Y):
        # The tiled Gram engine (kernels/tiled.py): dense rows whose expansion
        # cannot overflow; the norms once (float64), the values per tile.
        # float32 rows come from _prepare_float32 (centred, bounded: no overflow).
        if _sparse.is_sparse(X) or _sparse.is_sparse(Y) or X.dtype != Y.dtype \
                or X.dtype not in (np.float64, np.float32) or self.is_ard:
            return None  # ARD: the row-block path, which divides by the length scales
        from .._compiled import rbf_tile

        gamma = self.gamma_value
        if X.dtype == np.float64:
            route = self.product_route(X, Y)
            if route.used:
                return _grid_values(route, gamma)
        xx = np.einsum("ij,ij->i", X, X, dtype=np.float64)
        yy = xx if Y is X else np.einsum("ij,ij->i", Y, Y, dtype=np.float64)
        if not xx.max(initial=0.0) + yy.max(initial=0.0) <= _PLAIN_SQ_NORM_LIMIT:
            return None

        def values(G, r0, r1, c0, c1, diag_offset, out):
            rbf_tile(G, xx[r0:r1], yy[c0:c1], gamma, diag_offset, out)

        return values

    def product_route(self, X, Y):
        """How the tiles of K(X, Y) multiply prepared float64 rows: exact float32
        products of integers when the rows lie on a grid (:mod:`.rbf_grid`), else
        float64 products; decided from the rows and returned with the reason.

        Parameters
        ----------
        X, Y : prepared rows (``prepare``), dense float64

        Returns
        -------
        kernelkit.kernels.rbf_grid.GridRoute
        """
        if self.is_ard or _sparse.is_sparse(X) or _sparse.is_sparse(Y) \
                or X.dtype != np.float64 or Y.dtype != np.float64:
            return rbf_grid.GridRoute(False, "not dense float64 rows of an isotropic RBF")
        return rbf_grid.grid_route(X, Y, self.gamma_value)

    def _diag(self, X):
        return np.ones(X.shape[0])

    def value_bound(self, X, Y):
        return 1.0  # exp of -(a distance clamped at 0); overflowing inputs are scaled
