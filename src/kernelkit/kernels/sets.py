"""Kernels on sets of points and on distributions: the mean-embedding (set) kernel.

A sample is a set of points A = {a_1, ..., a_m} in R^d (a bag, or a sample
from a distribution P_A), given as a 2-D array (m, d); sets may differ in
size, not in d (the ``"set"`` kind of :mod:`kernelkit.kernels.objects`).
"""

from __future__ import annotations

import numpy as np

from .._budget import rows_per_block
from ..exceptions import InvalidParameterError
from .base import Kernel, check_resolved
from .objects import ObjectKernel, normalize_block

__all__ = ["MeanEmbedding"]

# Points of one side of a base-kernel block: the column side is cut to at most
# this many points, the row side to what the block budget allows against it.
_MAX_COLUMN_POINTS = 1 << 16
# Points of one group of sets whose own Gram matrices are computed as one block
# (the diagonal k(A, A)): 4M base values at most, a few wasted off the diagonal.
_DIAG_GROUP_POINTS = 2048


def _default_base():
    from .vector import RBF

    return RBF()


def _groups(sizes, limit):
    """Consecutive index ranges [i0, i1) whose sizes sum to at most ``limit`` (>= 1 item)."""
    out, i0, total = [], 0, 0
    for i, s in enumerate(sizes):
        if i > i0 and total + s > limit:
            out.append((i0, i))
            i0, total = i, 0
        total += s
    if len(sizes):
        out.append((i0, len(sizes)))
    return out


class MeanEmbedding(ObjectKernel):
    """The mean-embedding kernel of sets (distributions): the set kernel.

    ``k(A, B) = <mu_A, mu_B> = 1 / (|A| |B|) sum_{a in A} sum_{b in B} k0(a, b)``,
    the inner product of the kernel mean embeddings mu_A = mean_a phi0(a) of
    the empirical distributions of A and B in the feature space of the base
    kernel k0 (Muandet et al. 2017, section 3.1; the set kernel of Gaertner et
    al. 2002 up to the normalisation by the sizes). Positive semi-definite when
    k0 is. With a linear k0 it is the linear kernel of the mean points; with a
    characteristic k0 (RBF) ``k(A, A) - 2 k(A, B) + k(B, B)`` is the squared
    maximum mean discrepancy between the two samples.

    Each block is one base-kernel block between all points of its sets,
    summed within sets (cut into pieces of at most the block budget); the
    cost is ``O(sum_i |A_i| sum_j |B_j| d)``.

    Parameters
    ----------
    base_kernel : Kernel on vectors, default=None
        k0 on the points. None means ``RBF()`` (gamma="scale": fixed from all
        training points, 1 / (d Var(points)), as every estimator's fit does).
    normalize : bool, default=False
        k(A, B) / sqrt(k(A, A) k(B, B)): the cosine of the two embeddings
        (k(A, A) = 1).

    Examples
    --------
    With a linear base kernel, the kernel of two sets is the inner product of
    their means:

    >>> import numpy as np
    >>> from kernelkit.kernels import Linear, MeanEmbedding
    >>> A, B = np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[1.0, 1.0]])
    >>> float(MeanEmbedding(Linear())([A], [B])[0, 0])  # (1, 2) . (1, 1)
    3.0

    References
    ----------
    Muandet, K., Fukumizu, K., Sriperumbudur, B. and Schoelkopf, B. (2017).
    Kernel mean embedding of distributions: a review and beyond. Foundations
    and Trends in Machine Learning 10(1-2), 1-141.

    Gaertner, T., Flach, P. A., Kowalczyk, A. and Smola, A. J. (2002).
    Multi-instance kernels. ICML, 179-186.
    """

    input_kind = "set"
    _param_constraints = {"base_kernel": [Kernel, None], "normalize": ["boolean"]}

    def __init__(self, base_kernel=None, *, normalize=False):
        self.base_kernel = base_kernel
        self.normalize = normalize
        self._check_params()

    def _check_params(self):
        super()._check_params()
        # The default RBF() held as an attribute: the deep walks over sub-kernels (is the
        # kernel resolved? -- also from a sum or product holding this one) then see its
        # gamma="scale", and fit resolves it from the points.
        self._default_base = _default_base() if self.base_kernel is None else None
        base = self.base_kernel
        if base is not None and base.input_kind not in ("vector", "any"):
            raise InvalidParameterError(
                f"MeanEmbedding's base_kernel must be a kernel on vectors (the points of the "
                f"sets), got {base!r}, a kernel on {base.input_kind}s")

    @property
    def base(self):
        """The base kernel k0 (``RBF()`` when ``base_kernel`` is None)."""
        return self._default_base if self.base_kernel is None else self.base_kernel

    @property
    def is_psd(self):
        return self.base.is_psd

    def _resolve_with(self, objects):
        """Fix the base kernel's data-dependent width from all the training points."""
        base = self.base
        if base.is_resolved:
            return self
        if not (isinstance(objects, np.ndarray) and objects.dtype == object):
            objects = self.check_input(objects, "X")
        points = np.concatenate(list(objects), axis=0)
        return type(self)(base.resolve(points), normalize=self.normalize)

    def _prepare(self, X, Y):
        X, Y = super()._prepare(X, Y)
        check_resolved(self.base, deep=True)
        return X, Y

    # ---- values ------------------------------------------------------------------
    def _sums(self, X, Y):
        """S[i, j] = sum_{a in X_i, b in Y_j} k0(a, b), in pieces within the block budget."""
        base = self.base
        nx = np.array([len(a) for a in X], dtype=np.int64)
        ny = np.array([len(b) for b in Y], dtype=np.int64)
        out = np.zeros((len(X), len(Y)))
        for c0, c1 in _groups(ny, _MAX_COLUMN_POINTS):
            PY = np.concatenate(list(Y[c0:c1]), axis=0)
            starts_y = np.concatenate([[0], np.cumsum(ny[c0:c1])[:-1]])
            for r0, r1 in _groups(nx, rows_per_block(PY.shape[0])):
                PX = np.concatenate(list(X[r0:r1]), axis=0)
                starts_x = np.concatenate([[0], np.cumsum(nx[r0:r1])[:-1]])
                bx, by = base.prepare(PX, PY)
                G = base.block(bx, by)
                G = np.add.reduceat(G, starts_x, axis=0)
                out[r0:r1, c0:c1] = np.add.reduceat(G, starts_y, axis=1)
        return out

    def _self_values(self, X):
        """k(A, A) of each set: the mean of its own base Gram matrix.

        Sets are taken in groups of at most ``_DIAG_GROUP_POINTS`` points: one
        base block per group against itself, summed within sets, its diagonal kept.
        """
        base = self.base
        sizes = np.array([len(a) for a in X], dtype=np.int64)
        out = np.empty(len(X))
        for g0, g1 in _groups(sizes, _DIAG_GROUP_POINTS):
            P = np.concatenate(list(X[g0:g1]), axis=0)
            starts = np.concatenate([[0], np.cumsum(sizes[g0:g1])[:-1]])
            pp, _ = base.prepare(P)
            G = np.add.reduceat(base.block(pp, pp, 0), starts, axis=0)
            G = np.add.reduceat(G, starts, axis=1)
            out[g0:g1] = np.diagonal(G) / (sizes[g0:g1].astype(np.float64) ** 2)
        return out

    def _block(self, X, Y, diag_offset):
        nx = np.array([len(a) for a in X], dtype=np.float64)
        ny = np.array([len(b) for b in Y], dtype=np.float64)
        out = self._sums(X, Y)
        out /= nx[:, None]
        out /= ny[None, :]
        if self.normalize:
            dy = self._self_values(Y)
            dx = (dy[diag_offset:diag_offset + len(X)] if diag_offset >= 0
                  else self._self_values(X))
            normalize_block(out, dx, dy, diag_offset)
        return out

    def _diag(self, X):
        d = self._self_values(X)
        return (d > 0).astype(np.float64) if self.normalize else d
