"""Kernel blocks of a search served from one squared-distance matrix of all rows.

A hyperparameter search over kernels of the Euclidean distance (RBF, Laplacian of
the squared distance, Matern, ...) computes ||x_i - x_j||^2 once
(:func:`kernelkit.tuning.paths.squared_distances`); every candidate's blocks --
each fold's training block and held-out block -- are then one pass over the stored
distances (:class:`DistanceGram`), not a kernel evaluation per fold. Used by the
path searches (:class:`~kernelkit.models.KernelSVCCV` and the other ``*CV``
learners) and :class:`~kernelkit.models.KernelRidgeCV`'s exact searches.
"""

from __future__ import annotations

import numpy as np

from .._compiled import gather_exp
from .._pages import fresh_empty
from ..kernels.rbf import RBF

__all__ = ["DistanceGram", "distance_profiles"]


def distance_profiles(kernels, X):
    """Each kernel's profile ``f(||x - z||^2)`` if all have one and X is a dense float
    array (then every kernel block comes from one squared-distance matrix), else None."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind != "f":
        return None
    if any(isinstance(k, str) for k in kernels):
        return None
    fs = [k.sq_euclidean_profile() for k in kernels]
    return None if any(f is None for f in fs) else fs


class DistanceGram:
    """The Gram matrix of one kernel candidate, served block by block from the squared
    distances D2 of all rows: ``G[np.ix_(rows, cols)]`` is ``f(D2[rows][:, cols])``.

    For the RBF kernel the block is one compiled gather-and-exp pass; with ``buffers``
    (a dict shared by the candidates) it is written into a reused array, one per role
    -- ``G[np.ix_(rows, cols)]`` the training role, :meth:`held_out` the held-out role,
    named by the caller (a fold whose held-out rows equal its training rows must not
    share the training block's buffer) -- so a search allocates no fresh n x n pages
    per fit. A block handed out is valid until the next request of the same role.

    Parameters
    ----------
    D2 : ndarray of shape (n, n)
    kernel : Kernel
    profile : callable
        ``kernel.sq_euclidean_profile()``.
    buffers : dict or None
    serial : bool, default=False
        Run the gather-and-exp loop on the calling thread only (when several threads
        serve folds at once: see :func:`kernelkit._compiled.gather_exp`).
    """

    def __init__(self, D2, kernel, profile, buffers=None, *, serial=False):
        self.D2, self.profile, self.buffers, self.serial = D2, profile, buffers, serial
        self.shape = D2.shape
        self.ndim = 2
        self.dtype = np.dtype(np.float64)
        self.scale = (-float(kernel.gamma_value)
                      if isinstance(kernel, RBF) and not kernel.is_ard else None)

    def __getitem__(self, index):
        if not (isinstance(index, tuple) and len(index) == 2):
            raise TypeError("DistanceGram takes G[np.ix_(rows, cols)] only")
        return self._serve(index[0], index[1], "train")

    def held_out(self, rows, cols):
        """The block K(X[rows], X[cols]) in the held-out role's buffer (valid until the
        next :meth:`held_out`; training blocks never overwrite it)."""
        return self._serve(rows, cols, "test")

    def _serve(self, rows, cols, role):
        rows, cols = (np.asarray(i, dtype=np.intp).ravel() for i in (rows, cols))
        if self.scale is None:
            return np.ascontiguousarray(self.profile(self.D2[np.ix_(rows, cols)]),
                                        dtype=np.float64)
        out = self._buffer(rows, cols, role)
        gather_exp(self.D2, rows, cols, self.scale, out, serial=self.serial)
        return out

    def _buffer(self, rows, cols, role):
        if self.buffers is None:
            return np.empty((rows.size, cols.size))
        size = rows.size * cols.size
        flat = self.buffers.get(role)
        if flat is None or flat.size < size:  # all pages mapped in one call, no THP stall
            flat = self.buffers[role] = fresh_empty(size, np.float64, populate=True)
        return flat[:size].reshape(rows.size, cols.size)
