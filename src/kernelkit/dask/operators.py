"""Kernel matrices on a Dask cluster: a lazy ``gram`` and a distributed ``GramOperator``.

The blocks are computed by the same block API as in memory
(:class:`kernelkit.gram.GramOperator` on one chunk of rows), one task per row
chunk, with one BLAS thread per task. A product that sums over the rows
(``K' S K V``, Falkon's) is one map over the chunks and a binary tree sum.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError
from ..gram import GramOperator, KernelRows
from ..gram import gram as _memory_gram
from ..kernels import resolve_kernel
from .._budget import budget
from .._choices import Choice
from ._runtime import align_rows, as_rows, compute, in_task, resolve_client, tree_sum

__all__ = ["gram", "DaskGramOperator"]


def _gram_block(kernel, Xi, Yj, symmetric):
    return _memory_gram(kernel, Xi) if symmetric else _memory_gram(kernel, Xi, Yj)


def gram(kernel, X, Y=None):
    """The kernel matrix K(X, Y) as a lazy dask array of blocks.

    Block (i, j) is ``kernelkit.gram(kernel, X_i, Y_j)`` for row chunks X_i of
    X and Y_j of Y (with an exact diagonal on the diagonal blocks of K(X, X)).
    Nothing is computed until the result is.

    Parameters
    ----------
    kernel : Kernel or str
    X : dask array or array-like of shape (n, d)
        Chunked by rows (numpy is wrapped).
    Y : dask array or array-like of shape (m, d), optional
        Default X.

    Returns
    -------
    dask.array.Array of shape (n, m), float64, chunks (X's rows, Y's rows)

    Notes
    -----
    A data-dependent width (``gamma="scale"``, the default of ``"rbf"``) is
    fixed on the whole X, as :func:`kernelkit.gram` fixes it on its X: from
    X's column means and variances, computed with the blocks (nothing runs
    before the result is computed).
    """
    import dask.array as da
    from dask import delayed

    from ._base import resolve_on_moments

    kernel = resolve_kernel(kernel)
    X = as_rows(X, "X")
    symmetric = Y is None
    Y = X if symmetric else as_rows(Y, "Y")
    if kernel.is_resolved:
        k = delayed(kernel, pure=True)
    else:  # one lazy pass of X's moments, shared by every block
        k = delayed(resolve_on_moments, pure=True)(kernel, X.mean(axis=0), X.var(axis=0))
    task = delayed(in_task(_gram_block), pure=True)
    xb, yb = X.to_delayed()[:, 0], Y.to_delayed()[:, 0]
    rows = []
    for i, (xi, ni) in enumerate(zip(xb, X.chunks[0])):
        rows.append([da.from_delayed(task(k, xi, yj, symmetric and i == j), (ni, nj),
                                     dtype=np.float64)
                     for j, (yj, nj) in enumerate(zip(yb, Y.chunks[0]))])
    return da.block(rows)


def _knm_chunk(kernel, Xc, C, dtype):
    """K(X_chunk, C) in ``dtype`` (the block API, as GramOperator computes it)."""
    Xc = kernel.check_input(Xc, "X")
    return KernelRows(kernel, Xc, C, dtype=np.dtype(dtype)).block(0, len(Xc))


def _gram_matmat_chunk(kernel, C, dtype, Xc, Kc, V, Yc, swc):
    """One chunk's ``(K' S K V, K' S Y)`` (float64), from stored Kc or from Xc."""
    if Kc is None:  # recomputed: the in-memory operator on this chunk's rows
        op = GramOperator(kernel, Xc, C, block_dtype=dtype, sample_weight=swc,
                          n_temporaries=3)
        if Yc is None:
            return (op.gram_matmat(V),)
        Yc = Yc[:, None] if Yc.ndim == 1 else Yc
        return op.gram_matmat(V, np.asarray(Yc, dtype=np.float64))
    Vd = V.astype(Kc.dtype, copy=False)
    acc = np.zeros((Kc.shape[1], V.shape[1]))
    if V.shape[1]:
        t = Kc @ Vd
        if swc is not None:
            t *= swc[:, None].astype(Kc.dtype)
        acc += (t.T @ Kc).T
    if Yc is None:
        return (acc,)
    Yc = np.asarray(Yc[:, None] if Yc.ndim == 1 else Yc, dtype=np.float64)
    yb = Yc if swc is None else Yc * swc[:, None]
    return acc, (yb.T.astype(Kc.dtype) @ Kc).T.astype(np.float64)


def _matmat_chunk(kernel, C, dtype, Xc, Kc, V):
    if Kc is None:
        return GramOperator(kernel, Xc, C, block_dtype=dtype, n_temporaries=3).matmat(V)
    return np.asarray(Kc @ V.astype(Kc.dtype, copy=False), dtype=np.float64)


def worker_memory(client):
    """Total memory limit of the cluster's workers in bytes (None if unknown)."""
    info = client.scheduler_info(n_workers=-1).get("workers", {})
    limits = [w.get("memory_limit") or 0 for w in info.values()]
    return sum(limits) if limits and all(limits) else None


def cluster_room(client, setting="auto"):
    """What :func:`kernelkit.planning.dask.persist_choice` reads of the cluster:
    ``{"room": the workers' memory limit}`` (None if unknown), ``{"local_budget": the
    memory budget}`` without a client, or nothing when ``persist`` is set by the user."""
    if setting != "auto":
        return {}
    if client is None:
        return {"local_budget": budget()}
    return {"room": worker_memory(client)}


class DaskGramOperator:
    """K(X, C) for X chunked by rows on a cluster and C in memory, as an operator.

    The distributed twin of :class:`kernelkit.gram.GramOperator` for a tall
    K (n rows, m = len(C) columns): ``gram_matmat`` (``K' S K V``, and
    ``K' S y`` of the targets given here) is what
    :func:`kernelkit.solvers.falkon.falkon` asks of its ``operator``, and
    ``matmat`` gives the lazy product K V. Each call is one map over X's
    chunks; ``gram_matmat`` sums the chunks in a binary tree and returns numpy.

    Parameters
    ----------
    kernel : Kernel or str
    X : dask array or array-like of shape (n, d)
    C : ndarray of shape (m, d)
        The columns (Falkon's centers), in memory; one key in every graph.
    sample_weight : dask array or array-like of shape (n,), optional
        The diagonal S.
    targets : dask array or array-like of shape (n,) or (n, t), optional
        The y of ``gram_matmat(V, Y)``: since y stays on the cluster, the
        ``Y`` argument only says that ``K' S y`` is wanted (its values are not
        read; pass :meth:`targets_placeholder`).
    block_dtype : {np.float64, np.float32}, default=np.float64
    persist : bool or Choice, default=False
        Keep the K chunks on the workers after the first product (``True``),
        or recompute them at every product (``False``). The operator does not
        decide it: a :class:`~kernelkit.planning.Choice` made by the planner
        is followed as it is -- ``kernelkit.planning.dask.persist_choice(
        nbytes, **cluster_room(client))`` keeps them when they take at most
        half the workers' memory (or half the memory budget on the local
        scheduler), as ``DaskKernelRidge(persist="auto")`` plans it.
    client : distributed.Client, optional
        Default: the default client if there is one, else the local scheduler.
    timeout : float, optional
        Seconds one product may take (default :data:`DEFAULT_TIMEOUT`).

    Attributes
    ----------
    shape : tuple (n, m)
    store_choice : kernelkit.planning.Choice or None
        The planner's decision given as ``persist`` (whether the chunks are
        persisted, and why); None when ``persist`` was a plain bool.
    stores : bool
        Whether the chunks are persisted.
    n_passes : int
        Distributed passes made so far.
    """

    def __init__(self, kernel, X, C, *, sample_weight=None, targets=None,
                 block_dtype=np.float64, persist=False, client=None, timeout=None):
        from dask import delayed

        self.kernel = resolve_kernel(kernel)
        self.X = as_rows(X, "X")
        self.C = np.ascontiguousarray(self.kernel.check_input(C, "C"))
        self.sample_weight = align_rows(sample_weight, self.X, "sample_weight")
        self.targets = align_rows(targets, self.X, "y")
        self.block_dtype = np.dtype(block_dtype)
        self.shape = (int(self.X.shape[0]), len(self.C))
        self.dtype = np.dtype(np.float64)
        self.client = resolve_client(client)
        self.timeout = timeout
        self.n_passes = 0
        if not isinstance(persist, (bool, np.bool_, Choice)):  # "auto": the planner's question
            raise InvalidParameterError(
                f"DaskGramOperator: persist must be True, False or the planner's Choice, got "
                f"{persist!r}; for the planner's decision pass persist=kernelkit.planning.dask."
                "persist_choice(nbytes, **kernelkit.dask.operators.cluster_room(client))")
        self.store_choice = persist if isinstance(persist, Choice) else None  # the caller's plan
        self.stores = bool(persist.value if isinstance(persist, Choice) else persist)
        # Small state: one key each in every graph (recomputable, never scattered).
        self._kernel_key = delayed(self.kernel, pure=True)
        self._C_key = delayed(self.C, pure=True)
        self._K = None
        if self.stores:
            import dask.array as da

            K = da.map_blocks(in_task(_knm_chunk), self._kernel_key, self.X, self._C_key,
                              self.block_dtype.name, dtype=self.block_dtype,
                              chunks=(self.X.chunks[0], (self.shape[1],)))
            self._K = self.client.persist(K) if self.client is not None else K.persist(
                scheduler="threads")

    def targets_placeholder(self):
        """A zero-stride array of the targets' shape, for ``falkon(..., y=...)``."""
        t = self.targets
        shape = (self.shape[0],) if t.ndim == 1 else (self.shape[0], t.shape[1])
        return np.broadcast_to(np.float64(0.0), shape)

    def _chunks(self):
        xs = self.X.to_delayed()[:, 0] if self.X.ndim == 2 else self.X.to_delayed()
        ks = self._K.to_delayed()[:, 0] if self._K is not None else [None] * len(xs)
        return xs, ks

    def _column_chunks(self, v):
        if v is None:
            return [None] * self.X.numblocks[0]
        d = v.to_delayed()
        return d[:, 0] if v.ndim == 2 else d

    def gram_matmat(self, V, Y=None):
        """``K' S K V`` (and ``K' S y`` for the operator's targets if ``Y`` is given).

        Parameters
        ----------
        V : ndarray of shape (m, k)
            ``k`` may be 0.
        Y : array of shape (n, t), optional
            Only says that ``K' S y`` is wanted (see ``targets``).

        Returns
        -------
        ndarray of shape (m, k), or a pair with the (m, t) ``K' S y``
        """
        from dask import delayed

        V = np.asarray(V, dtype=np.float64)
        if Y is not None and self.targets is None:
            raise ValueError("K' S Y needs the operator's targets (give targets=)")
        xs, ks = self._chunks()
        ys = self._column_chunks(self.targets if Y is not None else None)
        ss = self._column_chunks(self.sample_weight)
        task = delayed(in_task(_gram_matmat_chunk), pure=True)
        Vk = delayed(V, pure=True)
        parts = [task(self._kernel_key, self._C_key, self.block_dtype.name,
                      None if kc is not None else xc, kc, Vk, yc, sc)
                 for xc, kc, yc, sc in zip(xs, ks, ys, ss)]
        out = compute(tree_sum(parts), self.client, self.timeout,
                      what="K_nM' S K_nM V (one pass over the chunks)")
        self.n_passes += 1
        return out[0] if Y is None else (out[0], out[1])

    def matmat(self, V):
        """The lazy product ``K V``: a dask array of shape (n, k) with X's row chunks."""
        import dask.array as da
        from dask import delayed

        V = np.asarray(V, dtype=np.float64)
        V2 = V[:, None] if V.ndim == 1 else V
        task = delayed(in_task(_matmat_chunk), pure=True)
        Vk = delayed(V2, pure=True)
        xs, ks = self._chunks()
        blocks = [da.from_delayed(task(self._kernel_key, self._C_key, self.block_dtype.name,
                                       None if kc is not None else xc, kc, Vk),
                                  (n, V2.shape[1]), dtype=np.float64)
                  for xc, kc, n in zip(xs, ks, self.X.chunks[0])]
        out = da.concatenate(blocks, axis=0)
        return out[:, 0] if V.ndim == 1 else out

    def release(self):
        """Drop the persisted chunks (they are freed on the workers)."""
        self._K = None
