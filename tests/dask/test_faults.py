"""A worker killed mid-fit gives the same model; a fit that cannot finish fails clearly."""

import os
import signal
import threading
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from kernelkit.dask import DaskFitError, DaskKernelRidge  # noqa: E402


def _slow_rows(n, d):
    time.sleep(3.0)
    return np.zeros((n, d))


def test_timeout_is_a_clear_error(client):
    from dask import delayed

    X = da.from_delayed(delayed(_slow_rows)(50, 2), (50, 2), dtype=float)
    m = DaskKernelRidge("rbf", solver="features", n_components=5, timeout=0.5,
                        random_state=0)
    m.client = client
    with pytest.raises(DaskFitError, match="did not finish"):
        m.fit(X, np.zeros(50))


def test_worker_killed_mid_fit_gives_the_same_model(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = np.sin(X[:, 0])
    Xd = da.from_array(X, chunks=500)
    kw = dict(alpha=1.0, solver="falkon", n_components=40, tol=1e-10, max_iter=100,
              persist=True, random_state=0)
    quiet = DaskKernelRidge("rbf(gamma=0.3)", **kw).fit(Xd, y)  # the local scheduler
    pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one():
        time.sleep(0.5)
        os.kill(pids[0], signal.SIGKILL)
        killed.append(pids[0])

    m = DaskKernelRidge("rbf(gamma=0.3)", **kw)
    m.client = client
    t = threading.Thread(target=kill_one)
    t.start()
    m.fit(Xd, y)
    t.join()
    assert killed
    np.testing.assert_allclose(m.dual_coef_, quiet.dual_coef_, rtol=1e-12, atol=1e-14)
    client.wait_for_workers(2, timeout=30)  # the nanny restarts the killed worker
