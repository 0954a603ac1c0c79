"""Kernel values by rows: the block API of a kernel bound to one pair of inputs.

:class:`KernelRows` prepares its inputs once (``Kernel.prepare``) and hands
out blocks of rows, rows by index and the diagonal. It is what ``gram``, the
Gram operator and the solvers (SMO's row cache, Pegasos, SGD, Falkon) read
kernel values through; each of its methods is a pure function of the rows
asked for, so a loop, a thread pool or a Dask task can call it on any split.
Every block it hands out is finite: proven once for the whole inputs by the
kernel's value bound (``certainly_finite``), or checked block by block.
"""

from __future__ import annotations

import numpy as np

from ._sparse import n_rows

__all__ = ["KernelRows", "certainly_finite"]


# A block whose values are bounded by this (in magnitude) is stored without
# overflow: float64's or float32's largest number, with a wide margin for the
# rounding of the sums that computed the values.
_SAFE_MAGNITUDE = {np.dtype(np.float64): 1e300, np.dtype(np.float32): 1e37}


def certainly_finite(bound, dtype=np.float64):
    """Whether kernel values bounded by ``bound`` in magnitude are finite in ``dtype``.

    ``bound`` comes from :meth:`Kernel.value_bound`: ``False`` means "not
    proven" (blocks are then checked after they are computed), not
    "non-finite".
    """
    return bool(bound <= _SAFE_MAGNITUDE.get(np.dtype(dtype), 0.0))


class KernelRows:
    """Rows of the kernel matrix K(X, Y), from inputs prepared once.

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n_samples_X, n_features), or strings
        Row inputs, already validated by ``kernel.check_input``.
    Y : same kind as X, optional
        Column inputs. ``None`` means the symmetric K(X, X): :meth:`block`
        then makes the diagonal exact (RBF's is exactly 1).
    dtype : {np.float64, np.float32}, default=np.float64
        Dtype of the blocks :meth:`block` allocates, and the precision a
        kernel with a float32 fast path (RBF: float32 matrix products on
        centred inputs) computes them in; other kernels compute in float64
        and round.

    Attributes
    ----------
    kernel : Kernel
    X, Y : prepared inputs
        The outputs of ``kernel.prepare(X, Y, dtype=dtype)`` (``Y is X``
        when symmetric).
    shape : tuple of int
        ``(n_samples_X, n_samples_Y)``.
    dtype : numpy.dtype
    symmetric : bool
        Whether ``Y`` was ``None``.
    value_bound : float
        The kernel's :meth:`~kernelkit.kernels.Kernel.value_bound` on the
        whole inputs (computed once, at O((n + m) d) at most). When it proves
        the values finite in a block's dtype, the block is not checked;
        otherwise each block is, and a non-finite one raises
        :class:`~kernelkit.exceptions.NonFiniteKernelError`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, KernelRows
    >>> rows = KernelRows(RBF(gamma=0.5), np.array([[0.0], [1.0], [3.0]]))
    >>> rows.block(1, 3).round(4)
    array([[0.6065, 1.    , 0.1353],
           [0.0111, 0.1353, 1.    ]])
    >>> rows.rows([2], [0]).round(4), rows.diag()
    (array([[0.0111]]), array([1., 1., 1.]))
    """

    def __init__(self, kernel, X, Y=None, *, dtype=np.float64):
        self.kernel = kernel
        self.symmetric = Y is None
        self.dtype = np.dtype(dtype)
        self.X, self.Y = kernel.prepare(X, Y, dtype=self.dtype)
        self.shape = (n_rows(self.X), n_rows(self.Y))
        self.value_bound = kernel.value_bound(self.X, self.Y)
        self._tiles = None  # tiles_every_block's answer, once asked

    def tiles_every_block(self):
        """Whether every large enough block of this rectangular K is computed by the
        tiled engine (:mod:`.tiled`): the kernel has tiles for these rows, all of
        them (RBF: dense rows whose expansion cannot overflow, decided from the
        rows' largest entries). Such blocks need no block-sized temporaries, so a
        caller writing K into its own memory may ask for many rows at a time
        (fewer waits of the cores on each other). Asked once (two passes over
        the rows, no copy), then remembered.

        Returns
        -------
        bool
        """
        if self._tiles is None:
            self._tiles = bool(not self.symmetric and isinstance(self.X, np.ndarray)
                               and self.X.ndim == 2 and self.kernel._has_tiles(self.X, self.Y))
        return self._tiles

    def block(self, r0, r1, *, out=None, lower=False):
        """Rows ``r0:r1`` of K, with the exact diagonal of a symmetric K.

        Parameters
        ----------
        r0, r1 : int
            First and one-past-last row.
        out : ndarray of shape (r1 - r0, n_cols), optional
            C-ordered rows of float64 or float32 to write into; default a new
            array of :attr:`dtype`.
        lower : bool, default=False
            Only columns ``0:r1`` (the block's part of the lower triangle of
            a symmetric K, for a Gram matrix mirrored afterwards).

        Returns
        -------
        ndarray of shape (r1 - r0, n_cols)
            ``n_cols`` is ``r1`` with ``lower``, else ``shape[1]``.

        Notes
        -----
        A block of a rectangular K with at least
        :data:`~kernelkit.kernels.tiled.MIN_TILED_ENTRIES` entries is computed
        by the tiled engine when the kernel has tiles (RBF): the same values,
        on every core (one thread inside a Dask task).
        """
        Y = self.Y[:r1] if lower else self.Y
        diag_offset = r0 if self.symmetric else -1
        if out is None and self.dtype != np.float64:
            out = np.empty((r1 - r0, n_rows(Y)), dtype=self.dtype)
        if not self.symmetric:  # a rectangular K: tiles on every core when large enough
            from .._validation import check_kernel_values
            from .tiled import MIN_TILED_ENTRIES, tiled_gram

            if (r1 - r0) * n_rows(Y) >= MIN_TILED_ENTRIES:
                target = np.empty((r1 - r0, n_rows(Y))) if out is None else out
                check = None if self.proven_finite(target) else (
                    lambda tile: check_kernel_values(tile, repr(self.kernel),
                                                     (self.X[r0:r1], Y)))
                if tiled_gram(self.kernel, self.X[r0:r1], Y, target, symmetric=False,
                              check=check):
                    return target
        return self.kernel.block(self.X[r0:r1], Y, diag_offset, out=out,
                                 assume_finite=self.proven_finite(out))

    def rows(self, index, columns=None, *, out=None):
        """``K[index][:, columns]``: kernel values of chosen rows and columns.

        The diagonal is whatever the kernel computes (no exact-diagonal
        knowledge for arbitrary indices).

        Parameters
        ----------
        index : slice or array-like of int
            Rows of X.
        columns : slice or array-like of int, optional
            Rows of Y (default all).
        out : ndarray, optional
            Written into, as in :meth:`block`.

        Returns
        -------
        ndarray of shape (n_index, n_columns)
            float64 unless ``out`` is given.
        """
        X = self.X[_as_index(index)]
        Y = self.Y if columns is None else self.Y[_as_index(columns)]
        return self.kernel.block(X, Y, -1, out=out, assume_finite=self.proven_finite(out))

    def proven_finite(self, out):
        """Whether every block written into ``out`` (float64 when None) is finite by the
        kernel's value bound, so that no block needs the finiteness scan."""
        dtype = np.float64 if out is None else out.dtype
        return certainly_finite(self.value_bound, dtype)

    def diag(self):
        """The diagonal ``k(x_i, x_i)`` of the rows, in float64.

        Returns
        -------
        ndarray of shape (n_samples_X,)
        """
        return np.asarray(self.kernel.diag_prepared(self.X), dtype=np.float64)


def _as_index(index):
    return index if isinstance(index, slice) else np.asarray(index, dtype=np.intp)
