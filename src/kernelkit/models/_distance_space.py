"""The space in which the distance methods (density-based and hierarchical
clustering) measure distances: a kernel's own feature space, or Nystroem's.

d(x, y)^2 = k(x, x) + k(y, y) - 2 k(x, y), clamped at 0, is the squared
distance of phi(x) and phi(y) in the kernel's feature space (the RKHS, a
Euclidean space). With ``approximation="nystroem"`` the inputs are first mapped
to M Nystroem features z(x), and the distances are the Euclidean distances of
those features: the kernel is then evaluated n M times instead of n^2 / 2
(much cheaper for costly kernels such as string kernels), and the distances
are those of the Nystroem approximation K(x, C) K_CC^+ K(C, y) of the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from .._budget import row_blocks
from ..features.centers import take_rows
from ..features.nystroem import Nystroem, nystroem_transform
from ..kernels import Linear
from ..planning.clustering import distance_space_choice
from ..gram import pairwise_blocked
from ..solvers.distances import ROUNDOFF, query_blocks, sq_distances

__all__ = ["DistanceSpace", "distance_space", "condensed_sq_distances"]


@dataclass
class DistanceSpace:
    """Validated points and the kernel whose feature-space distances are wanted.

    Attributes
    ----------
    kernel : Kernel
        The fitted kernel (exact) or ``Linear()`` on the Nystroem features.
    X : array-like of length n
        The inputs (exact) or their Nystroem features, shape (n, D').
    diag : ndarray of shape (n,)
        ``kernel.diag(X)``.
    choice : kernelkit.planning.Choice
        What was decided (exact or Nystroem) and why, for ``plan_``.
    nystroem : Nystroem or None
        The fitted map (approximation only).
    """

    kernel: object
    X: object
    diag: np.ndarray
    choice: object  # a kernelkit.planning.Choice
    nystroem: object = None

    @property
    def n(self):
        return self.X.shape[0] if hasattr(self.X, "shape") else len(self.X)

    def sq_distance_blocks(self, rows=None, n_temporaries=3):
        """Yield ``(rows_of_block, D)``: squared distances of a block of rows to all points.

        ``rows`` (indices, default all) are the query rows; each D has shape
        (len(block), n) and is within the memory budget's block share.
        """
        rows = np.arange(self.n) if rows is None else np.asarray(rows, dtype=np.intp)
        contiguous = rows.size == self.n
        for r0, r1 in query_blocks(rows.size, self.n, n_temporaries=n_temporaries):
            idx = rows[r0:r1]
            Xq = self.X[r0:r1] if contiguous else take_rows(self.X, idx)
            yield idx, sq_distances(self.kernel, Xq, self.diag[idx], self.X, self.diag)


    def sq_distance_row(self, i):
        """Squared distances of point i to every point, shape (n,), with the clamp and
        round-off rule of :func:`~kernelkit.solvers.distances.sq_distances`.

        One row in plain numpy: the compiled pass of a block is built for many
        rows, and one row at a time (a spanning tree) would pay its start-up n times.
        """
        K = np.asarray(pairwise_blocked(self.kernel, self.X[i:i + 1], self.X)[0],
                       dtype=np.float64)
        d = self.diag[i] + self.diag - 2.0 * K
        np.maximum(d, 0.0, out=d)
        d[d <= ROUNDOFF * (abs(self.diag[i]) + np.abs(self.diag))] = 0.0
        return d


def distance_space(kernel, X, approximation, n_centers, random_state):
    """The :class:`DistanceSpace` of validated X under a resolved kernel.

    Parameters
    ----------
    kernel : Kernel
        Resolved (``kernel_for_data``).
    X : validated inputs of ``kernel``
    approximation : {None, "nystroem"}
    n_centers : int
        Nystroem centers M (at most n).
    random_state : int, RandomState instance or None
        Seeds the choice of the Nystroem centers.
    """
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if approximation != "nystroem":
        choice = distance_space_choice(n)
        return DistanceSpace(kernel, X, np.asarray(kernel.diag(X), dtype=np.float64), choice)
    M = min(int(n_centers), n)
    nys = Nystroem(kernel, n_components=M, random_state=check_random_state(random_state))
    nys.fit(X)
    Z = nystroem_transform(nys.kernel_, X, nys.components_, nys.normalization_)
    choice = distance_space_choice(n, "nystroem", M, Z.shape[1])
    diag = np.einsum("ij,ij->i", Z, Z)
    return DistanceSpace(Linear(), Z, diag, choice, nys)


def condensed_sq_distances(space):
    """Squared distances of all pairs i < j in scipy's condensed order, shape (n(n-1)/2,).

    Row i's pairs (i, i+1), ..., (i, n-1) are contiguous in the condensed
    vector (``scipy.spatial.distance.squareform``'s order); each block of rows
    is computed against the later points only.
    """
    n = space.n
    out = np.empty(n * (n - 1) // 2)
    for r0, r1 in row_blocks(n, _rows_per_upper_block(n)):
        Xb = space.X[r0:r1]
        D = sq_distances(space.kernel, Xb, space.diag[r0:r1], space.X[r0:], space.diag[r0:])
        for i in range(r0, r1):
            start = i * n - i * (i + 1) // 2
            out[start:start + n - i - 1] = D[i - r0, i - r0 + 1:]
    return out


def _rows_per_upper_block(n):
    blocks = list(query_blocks(n, n, n_temporaries=3))
    return blocks[0][1] - blocks[0][0] if blocks else 1
