"""The cluster as the fits see it: which client, and how much memory a worker has.

:func:`resolve_client` picks the client (the given one, else the default one,
else dask's local scheduler); :func:`worker_room` reads a worker's memory limit,
pause fraction, memory in use and threads; :func:`room_report` is what each
worker answers to ``client.run`` (kernelkit imported there first, as by any task).

Both :mod:`._runtime` (the rules every task follows, the check before a fit) and
:mod:`.io` (rows per chunk of an out-of-core input) read the workers' room, and
:mod:`._runtime` turns memmaps into :mod:`.io`'s file-reading arrays; this module,
below both and importing neither, keeps those arrows one way.
"""

from __future__ import annotations

__all__ = ["resolve_client", "worker_room", "room_report"]


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


def worker_room(worker=None):
    """On a distributed worker (``worker``, or the one running this task): ``(limit,
    in_use, pause, threads, room per thread)`` in bytes, room = pause x limit - in use
    (the worker stops running tasks above the pause fraction); None elsewhere or
    without a memory limit."""
    if worker is None:
        try:
            from distributed import get_worker
            worker = get_worker()
        except (ImportError, ValueError):
            return None
    limit = getattr(getattr(worker, "memory_manager", None), "memory_limit", None)
    if not limit:
        return None
    import dask
    import psutil

    fractions = [dask.config.get(f"distributed.worker.memory.{k}", None)
                 for k in ("pause", "terminate")]
    pause = next((float(f) for f in fractions if f), 1.0)
    used = psutil.Process().memory_info().rss
    threads = max(1, int(getattr(getattr(worker, "state", worker), "nthreads", 1) or 1))
    return int(limit), int(used), pause, threads, int((pause * limit - used) / threads)


def room_report(dask_worker=None):
    """What a worker answers to ``client.run(room_report)``: its :func:`worker_room`,
    kernelkit imported first, as by any task (``check_worker_room`` before a fit,
    ``auto_chunk_rows`` for out-of-core inputs); ``client.run`` passes the worker as
    ``dask_worker``."""
    import kernelkit.features  # noqa: F401 - what the tasks import
    import kernelkit.solvers.normal_equations  # noqa: F401

    return worker_room(dask_worker)
