"""The moment between a pass reported done and its value read: every state of the
future ends in the value or a DaskFitError, within the pass's limits, never a hang.

A distributed future reported done can be read in four states (distributed's
``FutureState``): finished, error, cancelled, or lost -- its worker died after the task
finished, and the scheduler computes it again on the workers left. ``Future.result()``
waits for a lost value without any bound: with no worker left, forever. Here every
future's done callback runs only after the worker holding its value is gone (killed
and restarted by its nanny, or the cluster scaled to zero), which puts the pass in
exactly that moment on every run.
"""

import os
import signal
import threading
import time

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from kernelkit.dask import DaskFitError, _runtime  # noqa: E402


def _done_callbacks_after(monkeypatch, action):
    """Every future's done callback runs ``action`` first (in distributed's callback
    thread): the pass sees its future done only once ``action`` has returned."""
    from distributed import Future

    original = Future.add_done_callback

    def add_done_callback(self, fn):
        def after(future):
            action()
            fn(future)

        return original(self, after)

    monkeypatch.setattr(Future, "add_done_callback", add_done_callback)


def _wait_until(condition, seconds=30.0):
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("the cluster did not reach the state the test needs")
        time.sleep(0.05)


def _compute_in_thread(obj, client, timeout=120.0):
    """``_runtime.compute`` in a daemon thread: (thread, outcome dict), so that a hang
    fails the test instead of stopping the run."""
    outcome = {}

    def run():
        try:
            outcome["value"] = _runtime.compute(obj, client, timeout=timeout,
                                                what="the test pass")
        except BaseException as exc:  # noqa: BLE001 - examined by the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _values(n):
    return np.arange(n, dtype=np.float64) ** 2


def test_a_value_lost_with_the_last_worker_ends_in_a_clear_error(own_cluster, monkeypatch):
    """Done, then the only worker leaves (scaled to 0) before the value is read: a
    DaskFitError within WORKER_WAIT (before the fix: Future.result() waited forever)."""
    from dask import delayed

    monkeypatch.setattr(_runtime, "WORKER_WAIT", 2.0)
    monkeypatch.setattr(_runtime, "POLL", 0.25)
    lc, c = own_cluster

    def no_worker_left():
        lc.scale(0)
        _wait_until(lambda: _runtime.live_workers(c) == 0)

    _done_callbacks_after(monkeypatch, no_worker_left)
    t0 = time.monotonic()
    thread, outcome = _compute_in_thread(delayed(_values)(1000), c)
    thread.join(40)
    assert not thread.is_alive(), "the pass still waits for a value no worker holds"
    assert isinstance(outcome.get("error"), DaskFitError), outcome
    assert "no worker" in str(outcome["error"])
    assert time.monotonic() - t0 < 30


def test_a_value_lost_with_a_killed_worker_is_computed_again(own_cluster, monkeypatch):
    """Done, then the worker holding the value is killed (its nanny starts a new one):
    the value, computed again, equal to the local one."""
    from dask import delayed

    monkeypatch.setattr(_runtime, "POLL", 0.25)
    _, c = own_cluster
    pid = next(iter(c.run(os.getpid).values()))

    def new_worker_up():
        try:
            return pid not in c.run(os.getpid).values() and _runtime.live_workers(c) == 1
        except Exception:  # noqa: BLE001 - the dead worker not yet removed
            return False

    def kill_the_worker():
        os.kill(pid, signal.SIGKILL)
        _wait_until(new_worker_up)

    _done_callbacks_after(monkeypatch, kill_the_worker)
    thread, outcome = _compute_in_thread(delayed(_values)(1000), c)
    thread.join(60)
    assert not thread.is_alive()
    assert "error" not in outcome, outcome
    np.testing.assert_array_equal(outcome["value"], _values(1000))


def _slow_values(n, seconds):
    time.sleep(seconds)
    return _values(n)


def test_a_future_cancelled_by_someone_else_is_a_dask_fit_error(client, monkeypatch):
    from dask import delayed
    from distributed import Future

    futures = []
    original = Future.add_done_callback

    def keep(self, fn):
        futures.append(self)
        return original(self, fn)

    monkeypatch.setattr(Future, "add_done_callback", keep)
    threading.Timer(0.5, lambda: futures[0].cancel()).start()
    t0 = time.monotonic()
    with pytest.raises(DaskFitError, match="cancelled"):
        _runtime.compute(delayed(_slow_values)(10, 2.0), client, timeout=60)
    assert time.monotonic() - t0 < 10


def test_a_task_error_is_raised_as_it_is(client):
    from dask import delayed

    def bad(n):
        raise ValueError(f"row {n} is not a number")

    with pytest.raises(ValueError, match="row 3 is not a number"):
        _runtime.compute(delayed(bad)(3), client, timeout=60)
