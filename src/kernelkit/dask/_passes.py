"""The lines a distributed fit prints at verbosity >= 1: one per finished pass, and
every :data:`PROGRESS_EVERY` seconds of a long pass its tasks done and the time
left (counted on the scheduler); and ``reports_passes``, the fit's verbosity."""

from __future__ import annotations

__all__ = ["PROGRESS_EVERY", "live_workers", "report_pass", "report_progress",
           "reports_passes"]

#: Seconds between the progress lines of a long pass (verbosity >= 1).
PROGRESS_EVERY = 15.0


def live_workers(client):
    """Workers the scheduler knows now (0 when the client cannot tell: closed)."""
    if not hasattr(client, "scheduler_info"):
        return 1
    try:
        return len(client.scheduler_info(n_workers=-1).get("workers", {}))
    except Exception:  # noqa: BLE001 - a closed client or a lost scheduler
        return 0


def report_pass(what, seconds, client):
    """One line per distributed pass at verbosity >= 1 (an estimator's ``verbose``)."""
    from .._progress import is_verbose

    if is_verbose(0):
        import sys

        where = ("the local scheduler" if client is None
                 else f"{live_workers(client)} workers")
        print(f"kernelkit dask: {what} done in {seconds:.2f} s ({where})", file=sys.stderr,
              flush=True)


def _task_counts(key, dask_scheduler=None):
    """On the scheduler: ``(tasks done, tasks)`` of the computation ending at ``key``
    (done: in memory, or released after their dependents ran); None if unknown."""
    top = dask_scheduler.tasks.get(key)
    if top is None:
        return None
    seen, stack, done = set(), [top], 0
    while stack:
        ts = stack.pop()
        if ts.key in seen:
            continue
        seen.add(ts.key)
        done += ts.state in ("memory", "released", "forgotten", "erred")
        stack.extend(ts.dependencies)
    return done, len(seen)


def report_progress(what, seconds, client, key):
    """One progress line of a running pass at verbosity >= 1: tasks done, time, an
    estimate of the time left (from the share of tasks done)."""
    from .._progress import is_verbose

    if not is_verbose(0):
        return
    import sys

    try:
        counts = client.run_on_scheduler(_task_counts, key)
    except Exception:  # noqa: BLE001 - a scheduler that cannot answer: no line
        return
    if not counts:
        return
    done, total = counts
    left = (f", about {seconds * (total - done) / done:.0f} s left" if 0 < done < total
            else "")
    print(f"kernelkit dask: {what}: {done}/{total} tasks done in {seconds:.0f} s{left} "
          f"({live_workers(client)} workers)", file=sys.stderr, flush=True)


def reports_passes(fit):
    """``fit`` run at the estimator's ``verbose`` (or kernelkit's verbosity, the larger):
    every distributed pass prints one line."""
    import functools

    @functools.wraps(fit)
    def run(self, *args, **kwargs):
        from .. import config

        level = max(int(getattr(self, "verbose", 0) or 0),
                    int(config.get_config()["verbosity"]))
        with config.config_context(verbosity=level):
            return fit(self, *args, **kwargs)

    return run
