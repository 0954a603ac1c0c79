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

Why this module is long (and these sit together): it holds every rule a kernelkit
task follows (one BLAS and numba thread, randomness drawn on the client, state as one
delayed key, fixed-tree sums, the worker's memory checked before any task and given to
each task as its budget, errors that end the fit within a bounded time, the result's
fetch included) in one place, so that each distributed fit follows them without
repeating them. Which client, and the workers'
memory, are read by :mod:`._workers`, below this module and :mod:`.io` (which this
module calls for memmaps), so that the imports run one way.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from .._budget import format_bytes
from ._passes import PROGRESS_EVERY, live_workers, report_pass, report_progress, reports_passes
from ._workers import resolve_client, room_report, worker_room

__all__ = ["DaskFitError", "resolve_client", "as_rows", "align_rows", "in_task", "tree_sum",
           "compute", "is_dask", "fit_rows", "checked_rows", "column_names", "check_columns",
           "set_column_names", "reports_passes", "check_worker_room", "worker_room"]

#: Seconds one distributed pass may take before the fit gives up (per pass).
DEFAULT_TIMEOUT = 3600.0
#: Seconds to wait for a worker when the cluster has none (before a fit, or
#: during one: a cluster left without workers this long ends the fit).
WORKER_WAIT = 30.0
#: Seconds between checks of a running computation.
POLL = 1.0


class DaskFitError(RuntimeError):
    """A distributed computation could not finish (workers lost, tasks failing, timeout)."""


def is_dask(obj):
    """Whether ``obj`` is a dask collection (array, dataframe, series)."""
    from dask import is_dask_collection

    return is_dask_collection(obj)


def default_chunk_rows(n):
    """Rows per chunk when numpy input is wrapped: about 8 chunks, >= 1024 rows."""
    return int(max(1024, -(-n // 8)))


def as_rows(X, name="X", chunk_rows=None, client=None):
    """X as a dask array chunked by rows only (one chunk across the columns).

    numpy input is wrapped (``chunk_rows`` rows per chunk); a file-backed
    ``numpy.memmap`` (``numpy.load(path, mmap_mode="r")``) becomes tasks that read
    their rows from the file (:func:`kernelkit.dask.io.from_memmap`: the graph holds
    the path, never the data; rows per chunk from the workers of ``client`` when
    ``chunk_rows`` is None); a dask DataFrame or Series becomes an array with known
    chunk lengths (computed on the workers).
    """
    import dask.array as da

    from .io import from_memmap, memmap_layout

    if not is_dask(X) and memmap_layout(X) is not None:
        X = from_memmap(X, chunk_rows or "auto", client=client)
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


def column_names(X):
    """The column names of a (dask or pandas) DataFrame, as a list of str; else None."""
    cols = getattr(X, "columns", None)
    if cols is None or getattr(X, "ndim", 2) != 2:
        return None
    names = [str(c) for c in cols]
    return names if all(isinstance(c, str) for c in cols) else None


def _check_block(block, name, rule, block_info=None):
    """``block`` unchanged, or a ValueError naming the first bad row by its row in the
    whole array (not in its chunk)."""
    a = np.asarray(block)
    if a.dtype.kind not in "fc":
        if rule == "weights" and a.dtype.kind in "iu" and (a < 0).any():
            bad = np.flatnonzero(a < 0)
        else:
            return block
    else:
        good = np.isfinite(a) if rule == "finite" else np.isfinite(a) & (a >= 0)
        if good.all():
            return block
        bad = np.flatnonzero(~good.reshape(len(a), -1).all(axis=1))
    start = block_info[0]["array-location"][0][0] if block_info else 0
    row = int(start + bad[0])
    value = a[bad[0]].tolist()
    where = (f"({len(bad)} such row{'s' if len(bad) > 1 else ''} among rows "
             f"{start}..{start + len(a) - 1})")
    if rule == "weights":
        raise ValueError(f"{name} must be finite and >= 0, but {name}[{row}] = {value!r} "
                         f"{where}; drop or fix those rows")
    keep = (f"keep = da.isfinite({name}).all(axis=1)" if a.ndim == 2
            else f"keep = da.isfinite({name})")
    raise ValueError(f"{name} contains NaN or infinity in row {row} {where}; drop or impute "
                     f"those rows first (e.g. {keep}, then X[keep] and y[keep])")


def checked_rows(A, name, rule="finite"):
    """``A`` (a dask array chunked by rows) whose chunks are checked when computed:
    ``rule="finite"`` (no NaN or infinity) or ``"weights"`` (finite and >= 0). An
    error names the row in the whole array. Costs one ``isfinite`` per chunk."""
    return A.map_blocks(_check_block, name, rule, dtype=A.dtype, meta=A._meta)


def fit_rows(X, name="X", chunk_rows=None, client=None):
    """Training X: ``(rows, column names)``, rows a 2-D dask array chunked by rows
    with at least one row and one column, its chunks checked finite when computed
    (``client``: whose workers' memory sizes the chunks of a memmap, see :func:`as_rows`)."""
    names = column_names(X)
    X = as_rows(X, name, chunk_rows, client)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got a 1-D array of "
                         f"shape {X.shape}: for a single feature use X.reshape(-1, 1)")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has 0 rows (shape {X.shape}): a fit needs at least one sample")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has 0 columns (shape {X.shape}): a fit needs at least one "
                         "feature")
    return checked_rows(X, name), names


def set_column_names(est, names):
    """``feature_names_in_`` from a DataFrame's column names (removed when there are none)."""
    if names is not None:
        est.feature_names_in_ = np.asarray(names, dtype=object)
    elif "feature_names_in_" in vars(est):
        del est.feature_names_in_


def check_columns(est, X):
    """Refuse query data whose columns differ from the fit's: the count, or for a
    DataFrame the names and their order (as scikit-learn does in memory)."""
    fitted = getattr(est, "feature_names_in_", None)
    names = column_names(X)
    if fitted is not None and names is not None and list(fitted) != names:
        fitted = [str(c) for c in fitted]
        missing = [c for c in fitted if c not in names]
        extra = [c for c in names if c not in fitted]
        if not missing and not extra:
            raise ValueError(
                f"X has the fit's columns in another order ({', '.join(names[:6])}"
                f"{', ...' if len(names) > 6 else ''} instead of {', '.join(fitted[:6])}"
                f"{', ...' if len(fitted) > 6 else ''}); select them in the fit's order: "
                "X[list(model.feature_names_in_)]")
        raise ValueError(f"X's columns differ from the fit's: missing {missing[:6]}, "
                         f"unexpected {extra[:6]}; select X[list(model.feature_names_in_)]")
    d = getattr(est, "n_features_in_", None)
    shape = getattr(X, "shape", None)
    if d is None or shape is None or len(shape) != 2:
        return
    try:
        cols = int(shape[1])
    except (TypeError, ValueError):  # unknown
        return
    if cols != d:
        raise ValueError(f"X has {cols} features, but {type(est).__name__} was fitted with "
                         f"{d} features")


def align_rows(v, X, name):
    """``v`` (y or sample_weight) as a dask array with X's row chunks."""
    import dask.array as da

    if v is None:
        return None
    from .io import from_memmap, memmap_layout

    if not is_dask(v) and memmap_layout(v) is not None and max(X.chunks[0], default=0) > 0:
        # read from its file (never put into the graph); irregular chunks of X are
        # matched by the rechunk below, which moves only v's rows between tasks
        v = from_memmap(v, max(X.chunks[0]))
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


#: The least room (bytes) a task needs beside its chunk: kernelkit's smallest budget.
MIN_TASK_ROOM = 16 * 1024**2


def _worker_limits_text(room):
    limit, used, pause, threads, _ = room
    return (f"the worker's memory limit is {format_bytes(limit)}, it pauses at {pause:.0%} "
            f"({format_bytes(pause * limit)}) and holds {format_bytes(used)} (kernelkit, "
            f"numpy, scipy, scikit-learn and numba imported) for {threads} thread(s)")


def in_task(fn):
    """``fn`` wrapped to run with one BLAS thread and one numba thread (restored), and,
    on a distributed worker with a memory limit, with kernelkit's memory budget set to
    this task's share of the room below the worker's pause threshold: every block the
    task makes is sized from the worker's limit, and a limit too small for any block is
    a :class:`~kernelkit.exceptions.MemoryBudgetError` that says so."""

    def run(*args, **kwargs):
        import contextlib

        import numba

        from .. import config
        from ..linalg import one_blas_thread
        from ..exceptions import MemoryBudgetError

        room = worker_room()
        budget = contextlib.nullcontext()
        if room is not None:
            if room[-1] < MIN_TASK_ROOM:
                raise MemoryBudgetError(
                    f"no room for a kernelkit task: {_worker_limits_text(room)}, leaving "
                    f"{format_bytes(max(room[-1], 0))} per task; give the workers more memory "
                    f"(memory_limit of at least {format_bytes(_limit_for(room))})")
            budget = config.config_context(memory=room[-1])
        with budget, one_blas_thread():
            before = numba.get_num_threads()
            numba.set_num_threads(1)
            try:
                return fn(*args, **kwargs)
            except MemoryBudgetError as exc:
                if room is None:
                    raise
                raise MemoryBudgetError(f"{exc} (inside a task: {_worker_limits_text(room)}; "
                                        "give the workers more memory or use smaller "
                                        "chunks)") from None
            finally:
                numba.set_num_threads(before)

    run.__name__ = getattr(fn, "__name__", "task")
    run.__qualname__ = run.__name__
    run.__wrapped__ = fn
    return run


def _limit_for(room, extra=0):
    """A memory limit that leaves ``MIN_TASK_ROOM + extra`` per thread below the pause."""
    _, used, pause, threads, _ = room
    return int((used + threads * (MIN_TASK_ROOM + extra)) / pause) + 1


def check_worker_room(client, X, what="the fit"):
    """Before a fit's first pass: refuse chunks that cannot fit the workers' memory.

    Each worker is asked (``client.run``, which also imports kernelkit there) for its
    limit, pause fraction and memory in use; a chunk of X needs about twice its bytes
    in a task (the chunk and what is made from it) beside kernelkit's smallest budget.

    Returns
    -------
    kernelkit.planning.Choice or None
        The rows per chunk the fit runs with, against the tightest worker's room
        (for the estimator's ``plan_``); None without a client or an answer.

    Raises
    ------
    DaskFitError
        Naming the worker's numbers, the chunk size and the fix (``chunk_rows``,
        ``memory_limit``), before any work is scheduled.
    """
    if client is None:
        return None
    try:
        rooms = client.run(room_report)
    except Exception:  # noqa: BLE001 - workers that cannot answer: the passes will tell
        return None
    rows = max(X.chunks[0]) if X.chunks[0] else 0
    per_row = int(np.prod(X.shape[1:], dtype=np.int64)) * X.dtype.itemsize
    need = 2 * rows * per_row
    known = [room[-1] for room in rooms.values() if room is not None]
    for address, room in rooms.items():
        if room is None:
            continue
        free = room[-1]
        if free >= need + MIN_TASK_ROOM:
            continue
        fit_rows_ = max(0, (free - MIN_TASK_ROOM) // max(1, 2 * per_row))
        advice = (f"use chunks of at most {fit_rows_:,} rows (chunk_rows=, or from_npy's "
                  "chunk_rows), or " if fit_rows_ >= 1 else "")
        raise DaskFitError(
            f"{what} cannot start: a chunk of {rows:,} rows x {format_bytes(per_row)} needs "
            f"about {format_bytes(need + MIN_TASK_ROOM)} in a task, but on worker {address} "
            f"{_worker_limits_text(room)}, leaving {format_bytes(max(free, 0))} per task; "
            f"{advice}give the workers a memory_limit of at least "
            f"{format_bytes(_limit_for(room, need))}")
    from .._choices import Choice

    tightest = (f"; the tightest worker has {format_bytes(min(known))} per task"
                if known else "")
    return Choice("rows per chunk", rows,
                  f"as X is chunked: {len(X.chunks[0]):,} chunks of up to {rows:,} rows "
                  f"({format_bytes(rows * per_row)}), a task needs about "
                  f"{format_bytes(need + MIN_TASK_ROOM)}{tightest}")


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


def _distributed_errors():
    """(KilledWorker, errors meaning the client or its futures are gone)."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    gone = [CancelledError]  # FutureCancelledError and FuturesCancelledError derive from it
    try:
        from distributed.client import ClosedClientError
        gone.append(ClosedClientError)
    except ImportError:  # pragma: no cover - older distributed
        pass
    try:
        from distributed.comm.core import CommClosedError
        gone.append(CommClosedError)
    except ImportError:  # pragma: no cover
        pass
    return KilledWorker, tuple(gone)


def _start_fetch(future, client, done, what):
    """The transfer of a finished future's value (or its error), started on the
    client's event loop; None while the future is not finished.

    A future reported done may be "lost" by the time it is read: the worker that
    held its value died, and the scheduler computes it again on the workers left
    (the future then finishes anew; with no worker left, the caller's wait for
    workers ends the pass). ``future.result()`` would wait for that without any
    bound, and so would a transfer that finds the worker gone (distributed resets
    the future and waits for it again): hence a transfer the caller waits for in
    steps, checking the workers, and cancels when it gives up.
    """
    import asyncio

    status = future.status
    if status == "cancelled":
        raise DaskFitError(f"{what} stopped: its work was cancelled (the Dask client was "
                           "closed, or the scheduler restarted); connect a new Client and fit "
                           "again")
    if status not in ("finished", "error"):  # lost (or pending again): computed anew
        if done.is_set():
            done.clear()  # the callback fired once: from now on the caller polls the status
        return None
    transfer = client.gather(future, asynchronous=True)  # a coroutine for the client's loop
    try:
        return asyncio.run_coroutine_threadsafe(transfer, client.loop.asyncio_loop)
    except RuntimeError as exc:  # the client's event loop is closed
        transfer.close()
        raise DaskFitError(f"{what} finished, but its result could not be fetched: the "
                           "Dask client is closed; connect a new Client and fit again") from exc


def _fetched(fetch, seconds):
    """Whether the transfer ``fetch`` ended within ``seconds`` (its value or an error)."""
    import concurrent.futures

    return bool(concurrent.futures.wait([fetch], timeout=seconds).done)


def compute(obj, client, timeout=None, what="the distributed pass"):
    """Compute a dask collection or delayed object: on ``client`` (with a
    timeout, and clear errors when workers are lost), else on the local
    threaded scheduler.

    On a cluster the result is awaited in steps of ``POLL`` seconds; a cluster
    left without any worker for ``WORKER_WAIT`` seconds (all retired or dead
    and not restarted), a closed client or cancelled futures end in a
    :class:`DaskFitError` within that time, never a wait for ``timeout``. The
    same holds once the pass has finished: its value is fetched in steps too,
    and a value lost with its worker before it arrived is computed again on
    the workers left, or ends the pass as above (``Future.result`` would wait
    without bound). A task's own error is raised as it is (a killed worker as
    a :class:`DaskFitError`).

    The future is released explicitly before returning (as ``Client.get`` does),
    so the scheduler forgets this pass's tasks before the next graph arrives.
    Left to garbage collection (when a reference cycle holds the future), the
    scheduler still held them when the next computation (a lazy predict
    computed by the user) sent the same keys as other tasks (dask's graph optimisation fuses a chain and aliases its
    key), the scheduler's "different run_spec" case (dask issue 9888) that
    ended in a KeyError in the fit after it.
    """
    import dask

    if client is None:
        start = time.monotonic()
        try:
            result = dask.compute(obj, scheduler="threads")[0]
            report_pass(what, time.monotonic() - start, None)
            return result
        except MemoryError as exc:
            raise DaskFitError(f"{what} ran out of memory on the local scheduler: "
                               "use smaller chunks") from exc
    KilledWorker, gone = _distributed_errors()
    timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
    if live_workers(client) == 0:
        try:
            client.wait_for_workers(1, timeout=min(WORKER_WAIT, timeout))
        except Exception as exc:  # noqa: BLE001 - distributed raises TimeoutError variants
            raise DaskFitError(f"{what}: the cluster has no workers (waited "
                               f"{min(WORKER_WAIT, timeout):g} s)") from exc
    start = time.monotonic()
    try:
        future = client.compute(obj)
    except gone as exc:
        raise DaskFitError(f"{what} could not start: the Dask client is closed "
                           f"({type(exc).__name__}); connect a new Client and fit again") from exc
    # waited on an event set when the future ends (result, error or cancel), never with
    # future.result(timeout=): each timeout left the future in a reference cycle, and under
    # load its wait raised UnboundLocalError from inside distributed (seen 1 run in 6)
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    fetch = None  # the result's transfer to this process, once the future has finished
    no_worker_since = None
    next_line = start + PROGRESS_EVERY
    try:
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                future.cancel()
                raise DaskFitError(f"{what} did not finish within {timeout:g} s (workers lost "
                                   f"or too slow; live workers: {live_workers(client)})")
            if fetch is None:
                done.wait(min(POLL, left))
                fetch = _start_fetch(future, client, done, what)
            if fetch is not None and _fetched(fetch, min(POLL, left)):
                result = fetch.result()  # the value, or the task's own error
                report_pass(what, time.monotonic() - start, client)
                return result
            now = time.monotonic()
            if now >= next_line:
                report_progress(what, now - start, client, future.key)
                next_line = now + PROGRESS_EVERY
            if live_workers(client):
                no_worker_since = None
            elif no_worker_since is None:
                no_worker_since = now
            elif now - no_worker_since >= WORKER_WAIT:
                future.cancel()
                raise DaskFitError(
                    f"{what} stopped: the cluster has had no worker for {WORKER_WAIT:g} s "
                    "(workers retired, killed or lost); start workers (or a new cluster) "
                    "and fit again")
    except KilledWorker as exc:
        raise DaskFitError(f"{what} failed: a task killed the workers that ran it "
                           f"({exc}); the data or memory limit may be too large for a "
                           "worker: use smaller chunks") from exc
    except gone as exc:
        raise DaskFitError(f"{what} stopped: the Dask client was closed or its work cancelled "
                           f"({type(exc).__name__}: {exc}); connect a new Client and fit "
                           "again") from exc
    finally:
        if fetch is not None and not fetch.done():
            fetch.cancel()  # ends the transfer's task on the client's event loop
        future.release()  # at once, not at the next gc.collect (see above)
        del future, fetch
