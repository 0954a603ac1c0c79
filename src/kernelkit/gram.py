"""The Gram engine: kernel matrices in blocks, and one operator for K(X, Y) products.

``gram(kernel, X)`` is ``kernel(X)``: the work is split into row blocks whose
temporaries fit the memory budget (``kernelkit.config``), numbers are
accumulated in float64 (float32 inputs included), squared distances are
clamped at 0 and the diagonal of a symmetric distance-kernel Gram matrix is
exact. ``GramOperator`` applies K (or K + shift I) block by block without
storing K (unless asked): the products of iterative solvers, Falkon's
K_nM' S K_nM V, and prediction (:func:`kernel_matmat`) all go through it.
Kernel values come from the kernels' block API (:class:`KernelRows`,
re-exported here as the row provider solvers read kernel rows through).
"""

from __future__ import annotations

import numpy as np

from ._budget import require, row_blocks, rows_per_block
from ._progress import progress
from .kernels import KernelRows, resolve_kernel
from .kernels.base import pairwise_blocked  # re-exported: blocks of validated inputs
from ._choices import Choice
from ._pages import fresh_empty
from .exceptions import InvalidParameterError
from ._validation import check_same_n_features

#: Rows per call of the first pass that fills a stored K by tiles
#: (:meth:`GramOperator.blocks`).
STORED_TILED_ROWS = 8192

__all__ = ["gram", "GramOperator", "KernelRows", "kernel_matmat", "pairwise_blocked",
           "product_choice", "recorded_product_choice"]


def _validated(kernel, X, Y):
    kernel = resolve_kernel(kernel)
    X = kernel.check_input(X, "X")
    if Y is not None:
        Y = kernel.check_input(Y, "Y")
        if kernel.input_kind == "vector":
            check_same_n_features(X, Y)
    return kernel, X, Y


def gram(kernel, X, Y=None, *, verbose=0):
    """Kernel matrix ``K[i, j] = k(X[i], Y[j])`` in blocks within the memory budget.

    Parameters
    ----------
    kernel : Kernel or str
        A kernel object or expression such as ``"rbf(gamma=0.5)"``. A
        data-dependent width (``gamma="scale"``, the default of ``"rbf"``) is
        fixed on X, as ``kernel(X, Y)`` does; resolve it on the training
        inputs first (``kernel.resolve(X_train)``) for K(X_test, X_train).
    X : array-like of shape (n_samples_X, n_features), or a list of strings
    Y : same kind as X, optional
        Defaults to X: the symmetric Gram matrix, with an exact diagonal.
    verbose : int, default=0
        Show progress over the row blocks (when there is more than one);
        ``config_context(verbosity=1)`` does the same for every call.
        ``verbose >= 1`` also prints how the matrix products run
        (:func:`product_choice`).

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Y)
        float64, or float32 under ``config_context(dtype="float32")`` for
        float32 input.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit import gram
    >>> gram("rbf(gamma=0.5)", np.array([[0.0], [1.0]])).round(4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    kernel, X, Y = _validated(kernel, X, Y)
    kernel = kernel.resolve(X)  # gamma="scale" fixed on X, as k(X, Y) does
    if verbose and hasattr(kernel, "product_route"):
        # The automatic choice, as plan_ prints it: only when the caller asks (verbose),
        # not under config verbosity, where a fit prints its own plan_ once.
        print(f"  {_product_choice(kernel, X, Y)}")
    with _BlockProgress(verbose) as on_block:
        return pairwise_blocked(kernel, X, Y, on_block=on_block)


def product_choice(kernel, X, Y=None):
    """How the matrix products of ``gram(kernel, X, Y)`` run, decided from the rows.

    RBF multiplies rows that lie on a grid of integers / s (8-bit images,
    counts) as float32 integers, exactly (twice the float64 rate); other rows
    and kernels multiply in float64 (see :mod:`kernelkit.kernels.rbf_grid`).
    ``gram(..., verbose=1)`` prints this choice.

    Parameters
    ----------
    kernel : Kernel or str
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), optional

    Returns
    -------
    kernelkit.planning.Choice
        ``value`` is ``"exact float32 products of grid integers"`` or
        ``"float64 products"``; the reason gives the grid, the share of pairs
        recomputed in float64 and the error bound per entry.
    """
    kernel, X, Y = _validated(kernel, X, Y)
    return _product_choice(kernel.resolve(X), X, Y)


def recorded_product_choice(kernel, X, Y=None):
    """:func:`product_choice` for an estimator's ``plan_``, when the question arises.

    The question arises for an isotropic RBF (the resolved ``kernel_``) on
    dense rows with at least
    :data:`~kernelkit.kernels.rbf_grid.GRID_MIN_FEATURES` features; for any
    other kernel or rows the products are float64 and nothing is recorded.
    Cost: the column means of Y and one read-only pass over X (and Y).

    Parameters
    ----------
    kernel : Kernel or "precomputed"
        Resolved (no data-dependent parameter left).
    X : ndarray of shape (n_samples_X, n_features), as the fit validated it
    Y : ndarray of shape (n_samples_Y, n_features), optional

    Returns
    -------
    kernelkit.planning.Choice or None
    """
    from .kernels.rbf_grid import GRID_MIN_FEATURES
    from .kernels.rbf import RBF

    if not isinstance(kernel, RBF) or kernel.is_ard or not isinstance(X, np.ndarray) \
            or X.ndim != 2 or X.shape[1] < GRID_MIN_FEATURES \
            or not (Y is None or isinstance(Y, np.ndarray)):
        return None
    return _product_choice(kernel.resolve(X), X, Y)


def _product_choice(kernel, X, Y):
    from .kernels.tiled import MIN_TILED_ENTRIES
    from .kernels.rbf import RBF
    from .kernels.rbf_grid import grid_decision

    if not hasattr(kernel, "product_route"):
        return Choice("Gram products", "float64 products", f"{kernel!r} has no other route")
    entries = X.shape[0] * (X if Y is None else Y).shape[0]
    if entries < MIN_TILED_ENTRIES:
        return Choice("Gram products", "float64 products",
                      f"{entries} entries < {MIN_TILED_ENTRIES}: one block of float64 products")
    if isinstance(kernel, RBF) and isinstance(X, np.ndarray) \
            and (Y is None or isinstance(Y, np.ndarray)):
        # The rows as given: one read-only pass (no prepared copy of X).
        X64 = np.asarray(X, dtype=np.float64)
        Y64 = X64 if Y is None or Y is X else np.asarray(Y, dtype=np.float64)
        route = (kernel.product_route(*kernel.prepare(X, Y)) if kernel.is_ard
                 else grid_decision(X64, Y64, kernel.gamma_value))
    else:
        route = kernel.product_route(*kernel.prepare(X, Y))
    value = "exact float32 products of grid integers" if route.used else "float64 products"
    return Choice("Gram products", value, route.reason)


class _BlockProgress:
    """``on_block(rows_done, n_rows)`` for :func:`pairwise_blocked`: progress over rows,
    opened at the end of the first block only if more blocks follow (one block: silent)."""

    def __init__(self, verbose):
        self.verbose, self.bar = verbose, None

    def __call__(self, done, n):
        if self.bar is None:
            if done >= n:
                return
            self.bar, self.done = progress(n, "Gram blocks", self.verbose, unit="rows"), 0
        self.bar.update(done - self.done)
        self.done = done

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False


def _stores(cache, shape, itemsize):
    """Whether a :class:`GramOperator` keeps K, from its ``cache`` (a bool or the
    planner's Choice); a stored K must fit the memory budget."""
    if isinstance(cache, Choice):
        cache = cache.value
    if not isinstance(cache, (bool, np.bool_)):  # "auto"/None: the planner's question
        raise InvalidParameterError(
            f"GramOperator: cache must be True, False or the planner's Choice, got {cache!r}; "
            "for the planner's decision (store K when it takes at most half the memory "
            "budget) pass cache=kernelkit.planning.operator_store_choice(n_rows, n_columns, "
            "itemsize)")
    if cache:  # the budget is the user's too: a forced store must fit it
        require(float(itemsize) * shape[0] * shape[1],
                f"storing the kernel matrix ({shape[0]} x {shape[1]}) (cache=True)",
                "pass cache=False (its blocks recomputed at every product, within the budget)")
    return bool(cache)


class GramOperator:
    """The linear operator v -> (K(X, Y) + shift I) v, computed block by block.

    K is never stored unless ``cache`` says so: each product recomputes the
    kernel rows of one block at a time (into one reused buffer), so memory
    stays within the budget whatever n is. It has the ``shape``, ``dtype``,
    ``matvec`` and ``matmat`` of a scipy ``LinearOperator`` (see
    :meth:`aslinearoperator`), and :meth:`gram_matmat` (K' S K V), the
    product of Nystroem ridge regression (Falkon). Each block is a pure
    function of its rows (:meth:`KernelRows.block`), so another operator with
    the same methods can compute them elsewhere (threads, a cluster).

    Parameters
    ----------
    kernel : Kernel or str
    X : array-like of shape (n_samples, n_features)
        Rows of the operator.
    Y : array-like of shape (m_samples, n_features), optional
        Columns (default X: the square Gram matrix).
    shift : float, default=0.0
        Added to the diagonal (the ridge term); only for square operators.
    cache : bool or Choice, default=False
        Store K after the first product. ``True`` stores it (it must fit the
        memory budget: :class:`~kernelkit.MemoryBudgetError` before anything
        is allocated), ``False`` recomputes its blocks at every product. A
        :class:`~kernelkit.planning.Choice` made by the planner is followed as
        it is and kept as ``store_choice``: for the planner's "store when it
        takes at most half the budget", pass
        ``cache=kernelkit.planning.operator_store_choice(n, m, itemsize)``
        (the operator does not ask the planner itself: ``"auto"`` is refused).
    block_dtype : {np.float64, np.float32}, default=np.float64
        Dtype of the kernel blocks (and of the stored K). float32 halves their
        memory and, for a kernel with a float32 fast path (RBF), runs its
        matrix products in float32; other kernels compute in float64 and
        round. Products are returned in float64, and :meth:`gram_matmat` sums
        its block products in float64.
    sample_weight : ndarray of shape (n_samples,), optional
        The diagonal S of :meth:`gram_matmat` (default the identity).
    n_temporaries : int, default=2
        Block-sized arrays alive at once, for the rows per block
        (:func:`kernelkit._budget.rows_per_block`): the block and the
        kernel's scratch. Falkon counts 3 (with float32 blocks the kernel's
        float64 scratch is twice a block). Blocks written by the tiled engine
        have no scratch: that many blocks are then computed at once into one
        buffer.

    Attributes
    ----------
    kernel : Kernel
        The resolved kernel.
    rows : KernelRows
        The kernel's block API on the prepared inputs.
    shape : tuple of int
    dtype : numpy.dtype
        float64, the dtype of the products.
    block_dtype : numpy.dtype
    block_rows : int
        Rows per block (may be set before the first product).
    n_temporaries : int
        As given: the block-sized arrays the block size was counted for.
    stores : bool
        Whether K is stored after the first product.
    store_choice : kernelkit.planning.Choice or None
        The planner's decision given as ``cache`` (whether K is stored, and
        why); None when ``cache`` was a plain bool.
    sample_weight : ndarray or None
    """

    def __init__(self, kernel, X, Y=None, *, shift=0.0, cache=False, block_dtype=np.float64,
                 sample_weight=None, n_temporaries=2):
        self.kernel, X, Y = _validated(kernel, X, Y)
        if shift != 0 and Y is not None:
            raise ValueError("shift is only defined for a square operator (Y=None)")
        self.shift = float(shift)
        self.block_dtype = np.dtype(block_dtype)
        self.rows = KernelRows(self.kernel, X, Y, dtype=self.block_dtype)
        self.shape = self.rows.shape
        self.dtype = np.dtype(np.float64)
        self.sample_weight = sample_weight
        self.n_temporaries = int(n_temporaries)
        self.block_rows = rows_per_block(self.shape[1], bytes_per_entry=self.block_dtype.itemsize,
                                         n_temporaries=n_temporaries)
        self.store_choice = cache if isinstance(cache, Choice) else None
        self.stores = _stores(cache, self.shape, self.block_dtype.itemsize)
        self._K = None

    def blocks(self):
        """Yield ``(r0, r1, K[r0:r1])`` over the rows, ``block_rows`` at a time.

        With ``cache``, the first full pass fills the store (kept only once
        complete: a failed pass leaves no half-filled store) and later passes
        read it. Otherwise the blocks are computed into one buffer, reused for
        the next ones (fresh memory costs a page fault per 4 kB page, about as
        much as computing RBF entries): use each block before asking for the
        next. When the tiled engine writes every block
        (:meth:`KernelRows.tiles_every_block`), several blocks are computed per
        call -- about :data:`STORED_TILED_ROWS` rows into a store,
        ``n_temporaries`` blocks into the buffer (the memory counted for their
        scratch, which tiles do not need) -- and yielded one by one: the same
        row ranges as ever.

        Yields
        ------
        r0, r1 : int
        block : ndarray of shape (r1 - r0, shape[1]) and dtype ``block_dtype``
        """
        n, m = self.shape
        if self._K is not None:
            for r0, r1 in row_blocks(n, self.block_rows):
                yield r0, r1, self._K[r0:r1]
            return
        # stored: all its pages mapped in one call (kernelkit._pages), not a fault each
        K = fresh_empty((n, m), self.block_dtype, populate=True) if self.stores else None
        step = chunk = self.block_rows
        if n > step and self.rows.tiles_every_block():
            # Blocks written by tiles need no block-sized temporary, so rows are
            # computed in chunks of whole blocks -- fewer, larger calls keep both
            # cores busy (each call's tail waits on its last tile): 60,000 x 13,500,
            # d = 784, float32: 8-9 s in calls of 1657 rows, 7.6-8 s in calls of
            # 4096 or more -- and yielded block_rows at a time as ever (the same
            # row ranges, so the same sums, for the caller). Into a store: chunks of
            # about STORED_TILED_ROWS rows; into the reused buffer: as many blocks
            # as the temporaries the block size was counted for.
            chunk = (-(-STORED_TILED_ROWS // step) if K is not None
                     else max(1, self.n_temporaries)) * step
        buf = None if K is not None else np.empty((min(n, chunk), m), dtype=self.block_dtype)
        for c0, c1 in row_blocks(n, chunk):
            rows = K[c0:c1] if K is not None else buf[:c1 - c0]
            self.rows.block(c0, c1, out=rows)
            for r0, r1 in row_blocks(c1 - c0, step):
                yield c0 + r0, c0 + r1, rows[r0:r1]
        if K is not None:
            self._K = K  # only once complete

    def matmat(self, V):
        """(K + shift I) V for V of shape (m_samples, k).

        Parameters
        ----------
        V : array-like of shape (m_samples, k)

        Returns
        -------
        ndarray of shape (n_samples, k), float64
        """
        V = np.asarray(V, dtype=np.float64)
        if V.ndim != 2 or V.shape[0] != self.shape[1]:
            raise ValueError(f"V must have shape ({self.shape[1]}, k), got {V.shape}")
        Vd = V.astype(self.block_dtype, copy=False)
        if self.stores and self._K is None:
            for _ in self.blocks():  # fills the store
                pass
        if self._K is not None:
            out = np.asarray(self._K @ Vd, dtype=np.float64)
        else:
            out = np.empty((self.shape[0], V.shape[1]))
            for r0, r1, block in self.blocks():
                out[r0:r1] = block @ Vd
        if self.shift:
            out += self.shift * V
        return out

    def matvec(self, v):
        """(K + shift I) v for v of shape (m_samples,).

        Parameters
        ----------
        v : array-like of shape (m_samples,)

        Returns
        -------
        ndarray of shape (n_samples,), float64
        """
        v = np.asarray(v, dtype=np.float64)
        if v.ndim != 1:
            raise ValueError(f"v must be 1-D, got shape {v.shape}")
        return self.matmat(v[:, None])[:, 0]

    def gram_matmat(self, V, Y=None):
        """``K' S (K V)`` (and ``K' S Y`` in the same pass if ``Y`` is given).

        The normal-equations product of Nystroem ridge regression with
        K = K_nM (Falkon); ``shift`` is not included. Each block's (m, k)
        product is added to a float64 sum, in the order of the blocks.

        Parameters
        ----------
        V : array-like of shape (m_samples, k)
            ``k`` may be 0 (only ``K' S Y`` is wanted).
        Y : ndarray of shape (n_samples, t), optional

        Returns
        -------
        ndarray of shape (m_samples, k), or a pair with the (m_samples, t) ``K' S Y``
        """
        m = self.shape[1]
        V = np.asarray(V, dtype=np.float64)
        Vd = V.astype(self.block_dtype, copy=False)
        acc = np.zeros((m, V.shape[1]))
        accy = None if Y is None else np.zeros((m, Y.shape[1]))
        sw = self.sample_weight
        for r0, r1, block in self.blocks():
            if V.shape[1]:
                t = block @ Vd
                if sw is not None:
                    t *= sw[r0:r1, None].astype(self.block_dtype)
                acc += (t.T @ block).T  # row-major GEMM: faster than block.T @ t
            if Y is not None:
                yb = Y[r0:r1] if sw is None else Y[r0:r1] * sw[r0:r1, None]
                accy += (yb.T.astype(self.block_dtype) @ block).T
        return acc if Y is None else (acc, accy)

    def __matmul__(self, V):
        V = np.asarray(V)
        return self.matvec(V) if V.ndim == 1 else self.matmat(V)

    def aslinearoperator(self):
        """This operator as a ``scipy.sparse.linalg.LinearOperator``."""
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(self.shape, matvec=self.matvec, matmat=self.matmat,
                              dtype=np.float64)


def kernel_matmat(kernel, X, C, coef, *, dtype=np.float64):
    """``K(X, C) @ coef`` in row blocks: the prediction of a Nystroem (Falkon) model.

    One :class:`GramOperator` product, with blocks of ``dtype`` sized as in
    the Falkon fit (three temporaries).

    Parameters
    ----------
    kernel : Kernel or str
    X : array-like of shape (n, n_features)
    C : array-like of shape (M, n_features)
        The centers.
    coef : ndarray of shape (M,) or (M, t)
    dtype : {np.float64, np.float32}, default=np.float64
        Dtype of the kernel blocks (see ``GramOperator(block_dtype=...)``).

    Returns
    -------
    ndarray of shape (n,) or (n, t), float64

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.gram import kernel_matmat
    >>> kernel_matmat("rbf(gamma=0.5)", np.array([[0.0], [1.0]]), np.array([[0.0]]),
    ...               np.array([2.0])).round(4)
    array([2.    , 1.2131])
    """
    coef = np.asarray(coef, dtype=np.float64)
    op = GramOperator(kernel, X, C, block_dtype=dtype, n_temporaries=3)
    out = op.matmat(coef.reshape(op.shape[1], -1))
    return out[:, 0] if coef.ndim == 1 else out
