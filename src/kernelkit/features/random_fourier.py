"""Random Fourier features: psi(x)'psi(y) ~ k(x, y) for shift-invariant kernels.

By Bochner's theorem a continuous shift-invariant PSD kernel with k(0) = s is
k(x - y) = s E_w[cos(w'(x - y))] for a probability density p(w), the kernel's
spectral density (``kernel.spectral_density()``, see ``kernels.spectral``).
Averaging over D draws w_j ~ p gives an unbiased Monte-Carlo estimate whose
error shrinks like 1/sqrt(D) (Rahimi & Recht 2007). Because the density comes
from the kernel object, c * k, k1 + k2 (a mixture) and k1 * k2 (a convolution)
need no code here.

Variants
--------
- ``"cos_bias"``: psi(x) = sqrt(2 s / D) cos(W'x + b), b ~ Uniform[0, 2 pi].
- ``"paired"``: D/2 frequencies, psi(x) = sqrt(s / (D/2)) [cos(W'x), sin(W'x)];
  no offset and a lower variance per feature (Sutherland & Schneider 2015).
- ``"orthogonal"``: orthogonal random features (Yu et al. 2016), Gaussian
  kernels only, in the paired form: the D/2 frequencies are the rows of
  d x d random orthogonal blocks, each rescaled by an independent chi(d) norm so
  every single frequency is still Normal(0, 2 gamma I); orthogonality lowers
  the variance of the estimate.

The transform is one matrix product X @ W plus a cosine per row block. NumPy's
``cos`` is already vectorised (SIMD): a numba ``prange`` loop measured no
faster on 1e7 float64 values, so there is no compiled code here. But numpy's
``cos`` uses one core, so large inputs (>= 16384 rows) are split over one
thread per CPU (numpy releases the GIL), each running its blocks' product
with one BLAS thread and its cosines.
"""

from __future__ import annotations

import math
from numbers import Integral
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import Interval, Options, check_kernel_values, check_vectors, validate_params
from ..exceptions import InvalidParameterError
from ..kernels import KernelParamsMixin, resolve_kernel
from ..kernels import spectral
from ..linalg import one_blas_thread
from .._budget import row_blocks, rows_per_block
from ._output import FeatureNamesOutMixin, record_feature_names

__all__ = ["RandomFourierFeatures"]

# Inputs with at least this many rows are transformed by one thread per CPU.
_PARALLEL_MIN_ROWS = 16384
_CHOICES = {"variant": ("cos_bias", "paired", "orthogonal"), "dtype": ("float64", "float32")}


def _gaussian_of(density):
    """(gamma, scale) when ``density`` is a (scaled) Gaussian, else None."""
    factor = 1.0
    while isinstance(density, spectral.ScaledDensity):
        factor *= density.factor
        density = density.inner
    if isinstance(density, spectral.Gaussian):
        return density.gamma, factor * density.scale
    return None


def _orthogonal_frequencies(d, m, gamma, rng):
    """(d, m) frequencies, columns orthogonal within each block of d (Yu et al. 2016).

    Each column is q * r / length_scale with q uniform on the sphere (a column of
    the Q factor of a Gaussian matrix, signs fixed so Q is Haar-distributed) and
    r ~ chi(d): the marginal of each column is Normal(0, 2 gamma I).
    """
    blocks = []
    for _ in range(-(-m // d)):
        Q, R = np.linalg.qr(rng.standard_normal((d, d)))
        blocks.append(Q * np.sign(np.diag(R)))
    Q = np.hstack(blocks)[:, :m]
    norms = np.sqrt(rng.chisquare(d, size=m))
    return Q * norms * math.sqrt(2.0 * gamma)


class RandomFourierFeatures(KernelParamsMixin, FeatureNamesOutMixin, TransformerMixin, BaseEstimator):
    """Random Fourier features of a shift-invariant kernel.

    ``transform(X) @ transform(Y).T`` approximates ``kernel(X, Y)`` with an
    error of order ``kernel(0) / sqrt(n_components)``.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        A kernel with a spectral density: RBF, Laplacian, Cauchy, Constant, and
        positive scalings, sums, products and integer powers of them.
    n_components : int, default=100
        Number D of output features.
    variant : {"cos_bias", "paired", "orthogonal"}, default="cos_bias"
        ``"cos_bias"``: sqrt(2 s / D) cos(W'x + b). ``"paired"``: D/2
        frequencies, cos and sin of each (D must be even). ``"orthogonal"``:
        paired features of orthogonal frequencies, for (scaled) RBF kernels only
        (D must be even).
    dtype : {"float64", "float32"}, default="float64"
        Storage and arithmetic of ``random_weights_`` and the output. With
        ``"float32"`` the phases w'x are rounded to float32, an absolute error
        of about 6e-8 ``|w'x|`` per feature, so Z Z' differs from the float64
        result by about 1e-6 for unit-scale phases -- far below the Monte-Carlo
        error 1/sqrt(D) -- at half the memory and a faster cosine.
    random_state : int, RandomState instance or None, default=None
        Seed of the frequencies and offsets.

    Attributes
    ----------
    kernel_ : Kernel
        The resolved kernel.
    random_weights_ : ndarray of shape (n_features, D) or (n_features, D // 2)
        Frequencies, one per column (D // 2 for "paired" and "orthogonal").
    random_offset_ : ndarray of shape (D,) or None
        Offsets b of "cos_bias"; None for the other variants.
    n_features_in_ : int
    n_components_ : int
        Number D of output features.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of a DataFrame X given to ``fit`` (only then).

    Notes
    -----
    Output columns are named ``randomfourierfeatures0, randomfourierfeatures1, ...``
    (``get_feature_names_out``, as scikit-learn's ``RBFSampler``), and
    ``set_output(transform="pandas")`` makes ``transform`` return a DataFrame.

    References
    ----------
    .. [1] A. Rahimi and B. Recht, "Random features for large-scale kernel
       machines", NIPS 2007.
    .. [2] F. X. Yu, A. T. Suresh, K. Choromanski, D. Holtmann-Rice and
       S. Kumar, "Orthogonal random features", NIPS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.features import RandomFourierFeatures
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> rff = RandomFourierFeatures("rbf(gamma=0.5)", n_components=64, random_state=0)
    >>> rff.fit_transform(X).shape
    (5, 64)
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "n_components": [Interval(Integral, 1, None)],
        "variant": [Options(str, _CHOICES["variant"])],
        "dtype": [Options(str, _CHOICES["dtype"])],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="rbf", n_components=100, *, variant="cos_bias", dtype="float64",
                 random_state=None):
        self.kernel = kernel
        self.n_components = n_components
        self.variant = variant
        self.dtype = dtype
        self.random_state = random_state

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        if self.variant != "cos_bias" and self.n_components % 2:
            raise InvalidParameterError(
                f"{type(self).__name__}: variant={self.variant!r} makes a cos and a sin feature "
                f"per frequency, so n_components must be even, got {self.n_components}; use "
                f"{self.n_components + 1} or variant='cos_bias'")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # X W of sparse rows is a sparse product
        return tags

    def fit(self, X, y=None):
        """Draw the frequencies (and offsets) for X's number of features.

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
        k = resolve_kernel(self.kernel)
        if k.input_kind not in ("vector", "any"):
            raise ValueError(f"{k!r} is a kernel on {k.input_kind}s: random Fourier features "
                             "exist only for shift-invariant kernels on numeric vectors; use "
                             f"kernelkit.features.Nystroem for kernels on {k.input_kind}s")
        X = check_vectors(X, accept_sparse=True)  # X W of sparse rows: a sparse product
        k = k.resolve(X)  # gamma="scale" fixed from the training X
        density = k.spectral_density()  # ValueError pointing to Nystroem if there is none
        rng = check_random_state(self.random_state)
        d, D = X.shape[1], int(self.n_components)
        if self.variant == "orthogonal":
            gaussian = _gaussian_of(density)
            if gaussian is None:
                raise ValueError(f"variant='orthogonal' needs a Gaussian (RBF) kernel, possibly "
                                 f"scaled, got {k!r}; use variant='paired' or 'cos_bias'")
            gamma, scale = gaussian
            W = _orthogonal_frequencies(d, D // 2, gamma, rng)
            offset = None
        elif self.variant == "paired":
            scale = density.scale
            W = density.sample(d, D // 2, rng)
            offset = None
        else:
            scale = density.scale
            W = density.sample(d, D, rng)
            offset = rng.uniform(0.0, 2.0 * np.pi, size=D).astype(self.dtype)
        if scale < 0:
            raise ValueError(f"{k!r} has k(0) = {scale} < 0: it is not positive definite and "
                             "has no random feature map")
        self.kernel_ = k
        self.random_weights_ = np.ascontiguousarray(W, dtype=self.dtype)
        self.random_offset_ = offset
        self.n_features_in_ = d
        self.n_components_ = D
        self._scale = float(scale)
        return self

    def transform(self, X):
        """Map X to its random features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, ``n_components_``)
            float64, or float32 with ``dtype="float32"``.
        """
        check_is_fitted(self)
        record_feature_names(self, X, reset=False)
        X = check_vectors(X, accept_sparse=True)  # X W of sparse rows: a sparse product
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        W = self.random_weights_
        given = X  # for the message: the rows as given, before a float32 cast
        with np.errstate(over="ignore"):  # float32 maps: overflowing rows are reported below
            X = X.astype(W.dtype, copy=False)
        D = self.n_components_
        n = X.shape[0]
        out = np.empty((n, D), dtype=W.dtype)
        # The output is written block by block; the one temporary is the
        # phase block of the paired variants.
        step = rows_per_block(D, bytes_per_entry=W.dtype.itemsize, n_temporaries=1)
        workers = _n_workers(n)
        if workers > 1:
            # numpy's cos runs on one core: split the rows over threads (each with
            # one BLAS thread) so every core computes its share of X W and cos.
            step = min(step, -(-n // (4 * workers)))
        blocks = list(row_blocks(n, step))

        def one(block):
            r0, r1 = block
            _features_block(X[r0:r1], W, self.random_offset_, self._scale, out[r0:r1])
            # Phases that overflow give cos(inf) = NaN: checked while the block is in cache.
            check_kernel_values(out[r0:r1], f"{type(self).__name__}.transform",
                                (given[r0:r1],))

        if workers > 1:
            def limited(block):  # a per-thread limit (OpenMP) must reach the worker
                with one_blas_thread():
                    one(block)

            with one_blas_thread(), ThreadPoolExecutor(workers) as pool:
                list(pool.map(limited, blocks))
        else:
            for block in blocks:
                one(block)
        return out


def _n_workers(n_rows):
    """Threads for a transform of ``n_rows`` rows: one per CPU for large inputs.

    Below ``_PARALLEL_MIN_ROWS`` rows (and inside a caller's own worker threads,
    which pass small blocks) the transform stays on the calling thread.
    """
    if n_rows < _PARALLEL_MIN_ROWS:
        return 1
    return max(1, min(os.cpu_count() or 1, n_rows // (_PARALLEL_MIN_ROWS // 2)))


def _features_block(X, W, offset, scale, out):
    """Fill ``out`` (rows of X, D) with the features of one block of rows."""
    with np.errstate(over="ignore", invalid="ignore"):  # checked by the caller
        return _features_block_values(X, W, offset, scale, out)


def _features_block_values(X, W, offset, scale, out):
    if offset is not None:  # cos_bias: sqrt(2 s / D) cos(X W + b), in place
        if issparse(X):
            out[...] = X @ W  # sparse rows times dense W: a dense block
        else:
            np.matmul(X, W, out=out)
        out += offset
        np.cos(out, out=out)
        out *= math.sqrt(2.0 * scale / out.shape[1])
        return out
    m = W.shape[1]
    phase = X @ W
    np.cos(phase, out=out[:, :m])
    np.sin(phase, out=out[:, m:])
    out *= math.sqrt(scale / m)
    return out


def restore_scale(rff):
    """Set the fitted map's k(0) scale from its ``kernel_`` (a model file stores the
    frequencies, not this derived number); returns ``rff``.

    Raises
    ------
    ValueError
        If the kernel has no spectral density, or a negative k(0).
    """
    density = rff.kernel_.spectral_density()
    if rff.variant == "orthogonal":
        gaussian = _gaussian_of(density)
        if gaussian is None:
            raise ValueError(f"variant='orthogonal' needs a Gaussian kernel, got {rff.kernel_!r}")
        scale = gaussian[1]
    else:
        scale = density.scale
    if scale < 0:
        raise ValueError(f"{rff.kernel_!r} has k(0) = {scale} < 0")
    rff._scale = float(scale)
    return rff
