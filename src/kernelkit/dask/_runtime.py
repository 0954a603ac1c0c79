"""What every kernelkit.dask fit shares: the client, inputs chunked by rows,
one-thread tasks, tree sums and computations that end (result or clear error).

Rules the tasks follow (docs/cluster.md):

- a task runs with one BLAS thread and one numba thread (restored afterwards),
  so two tasks on a two-core worker do not fight over cores;
- randomness is drawn once on the client: a task is a pure function of its
  chunk and of small model state, so a recomputed block is bit-identical;
- small state (a feature map, centers, the CG direction) enters the graph as
  one key through :func:`dask.delayed` (not ``Client.scatter``, whose data
  Dask cannot recompute when the worker holding it dies);
- a partial sum is a tuple of arrays; chunks are summed in a fixed binary
  tree, so the order of the additions never depends on scheduling.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DaskFitError", "resolve_client", "as_rows", "align_rows", "in_task", "tree_sum",
           "compute", "is_dask"]

#: Seconds one distributed pass may take before the fit gives up (per pass).
DEFAULT_TIMEOUT = 3600.0
#: Seconds to wait for a worker when the cluster has none.
WORKER_WAIT = 30.0


class DaskFitError(RuntimeError):
    """A distributed computation could not finish (workers lost, tasks failing, timeout)."""


def is_dask(obj):
    """Whether ``obj`` is a dask collection (array, dataframe, series)."""
    from dask import is_dask_collection

    return is_dask_collection(obj)


def resolve_client(client):
    """The given client, else the default client if there is one, else None
    (dask's local scheduler)."""
    if client is not None:
        return client
    try:
        from distributed import default_client
    except ImportError:  # dask without distributed: the local scheduler
        return None
    try:
        return default_client()
    except ValueError:
        return None


def default_chunk_rows(n):
    """Rows per chunk when numpy input is wrapped: about 8 chunks, >= 1024 rows."""
    return int(max(1024, -(-n // 8)))


def as_rows(X, name="X", chunk_rows=None):
    """X as a dask array chunked by rows only (one chunk across the columns).

    numpy input is wrapped (``chunk_rows`` rows per chunk); a dask DataFrame or
    Series becomes an array with known chunk lengths (computed on the workers).
    """
    import dask.array as da

    if is_dask(X):
        if not hasattr(X, "rechunk"):  # dask DataFrame / Series
            # chunk lengths below (compute_chunk_sizes): to_dask_array(lengths=True)
            # can count partitions of a differently optimised graph (parquet: "2 != 3")
            X = X.to_dask_array()
    else:
        X = np.asarray(X)
        if X.dtype == object:
            raise ValueError(f"{name} must be numeric for kernelkit.dask, got dtype object")
        rows = chunk_rows or default_chunk_rows(len(X))
        X = da.from_array(X, chunks=(int(rows),) + X.shape[1:])
    if X.ndim == 2 and X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if X.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got {X.ndim}-D")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return X


def align_rows(v, X, name):
    """``v`` (y or sample_weight) as a dask array with X's row chunks."""
    import dask.array as da

    if v is None:
        return None
    if is_dask(v):
        v = as_rows(v, name)
    else:
        v = np.asarray(v)
        if np.ndim(v) == 0 and name == "sample_weight":
            v = np.full(X.shape[0], float(v))
        if len(v) != X.shape[0]:
            raise ValueError(f"{name} has {len(v)} rows but X has {X.shape[0]}")
        v = da.from_array(v, chunks=(X.chunks[0],) + v.shape[1:])
    if v.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {v.shape[0]} rows but X has {X.shape[0]}")
    if v.chunks[0] != X.chunks[0]:
        v = v.rechunk({0: X.chunks[0]})
    return v


def in_task(fn):
    """``fn`` wrapped to run with one BLAS thread and one numba thread (restored)."""

    def run(*args, **kwargs):
        import numba
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1, user_api="blas"):
            before = numba.get_num_threads()
            numba.set_num_threads(1)
            try:
                return fn(*args, **kwargs)
            finally:
                numba.set_num_threads(before)

    run.__name__ = getattr(fn, "__name__", "task")
    run.__qualname__ = run.__name__
    run.__wrapped__ = fn
    return run


def add_parts(a, b):
    """Sum of two partial results (tuples of arrays and numbers)."""
    return tuple(x + y for x, y in zip(a, b))


def tree_sum(parts, name="sum"):
    """One delayed sum of delayed partials, added pairwise in a fixed binary tree."""
    from dask import delayed

    if not parts:
        raise ValueError("no chunks to sum")
    add = delayed(add_parts, pure=True)
    level = list(parts)
    while len(level) > 1:
        nxt = [add(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


def _live_workers(client):
    return len(client.scheduler_info(n_workers=-1).get("workers", {})) if hasattr(
        client, "scheduler_info") else 1


def compute(obj, client, timeout=None, what="the distributed pass"):
    """Compute a dask collection or delayed object: on ``client`` (with a
    timeout, and clear errors when workers are lost), else on the local
    threaded scheduler."""
    import dask

    if client is None:
        try:
            return dask.compute(obj, scheduler="threads")[0]
        except MemoryError as exc:
            raise DaskFitError(f"{what} ran out of memory on the local scheduler: "
                               "use smaller chunks") from exc
    from distributed import KilledWorker

    timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    if _live_workers(client) == 0:
        try:
            client.wait_for_workers(1, timeout=min(WORKER_WAIT, timeout))
        except Exception as exc:  # noqa: BLE001 - distributed raises TimeoutError variants
            raise DaskFitError(f"{what}: the cluster has no workers (waited "
                               f"{min(WORKER_WAIT, timeout):g} s)") from exc
    future = client.compute(obj)
    try:
        return future.result(timeout=timeout)
    except KilledWorker as exc:
        raise DaskFitError(f"{what} failed: a task killed the workers that ran it "
                           f"({exc}); the data or memory limit may be too large for a "
                           "worker: use smaller chunks") from exc
    except TimeoutError as exc:
        future.cancel()
        raise DaskFitError(f"{what} did not finish within {timeout:g} s (workers lost or "
                           f"too slow; live workers: {_live_workers(client)})") from exc
    finally:
        del future
