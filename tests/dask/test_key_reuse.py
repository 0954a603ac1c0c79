"""A fit, a lazy predict computed by the user, then another fit on the same dask arrays.

The runnable example of docs/cluster.md does this. kernelkit's passes wait for their
result in short steps; each step's timeout put the pass's future in a reference cycle,
so without an explicit release the scheduler kept the pass's tasks until the next
garbage collection. The user's computation then sent the same keys (X's chunks, the
finiteness check) as other tasks -- dask's graph optimisation fuses a chain and aliases
its key -- and the next fit died in a KeyError (dask issue 9888). Here garbage
collection is off and the waiting step short, so a pass that leaves its tasks on the
scheduler fails every time (before the fix: 3 rounds out of 3 held the tasks).
"""

import gc
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from kernelkit.dask import DaskKernelRidge, _runtime  # noqa: E402

ROWS, D, CHUNKS = 200, 4, 4


def _chunk(i):
    time.sleep(0.05)  # longer than the waiting step below: every pass times out a few times
    rng = np.random.default_rng([7, i])
    X = rng.uniform(size=(ROWS, D))
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 5 * X[:, 2] + rng.normal(size=ROWS)
    return X, y


def _arrays():
    """X and y as the docs build them: chunks made on the workers, concatenated."""
    from dask import delayed

    parts = [delayed(_chunk)(i) for i in range(CHUNKS)]
    X = da.concatenate([da.from_delayed(p[0], (ROWS, D), float) for p in parts])
    y = da.concatenate([da.from_delayed(p[1], (ROWS,), float) for p in parts])
    return X, y


def _names(*arrays):
    """The key names of the arrays' graphs and of kernelkit's checks of them."""
    names = set()
    for A in arrays:
        names.update(A.__dask_graph__().layers)
        names.add(_runtime.checked_rows(_runtime.as_rows(A, "X"), "X").name)
        names.add(_runtime.checked_rows(A.astype(np.float64), "y").name)
    return names


def _held(client, names, wait=5.0):
    """The scheduler's tasks from ``names`` still there after up to ``wait`` seconds."""

    def tasks(dask_scheduler, names=tuple(names)):
        keys = [k[0] if isinstance(k, tuple) else k for k in dask_scheduler.tasks]
        return sorted({k for k in keys if any(n in str(k) for n in names)})

    end = time.monotonic() + wait
    while True:
        held = client.run_on_scheduler(tasks)
        if not held or time.monotonic() > end:
            return held
        time.sleep(0.05)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fit_predict_fit_leaves_no_task_behind(client, monkeypatch):
    monkeypatch.setattr(_runtime, "POLL", 0.02)  # every pass waits in several steps
    X, y = _arrays()
    Xn, yn = (np.asarray(a) for a in client.compute([X, y], sync=True))
    names = _names(X, y)
    was_enabled = gc.isenabled()
    gc.disable()  # no collection may release what the passes leave behind
    try:
        for _ in range(3):
            model = DaskKernelRidge("rbf(gamma=0.5)", alpha=1.0, solver="features",
                                    n_centers=64, random_state=0)
            model.client = client
            model.fit(X, y)
            assert _held(client, names) == []
            pred = model.predict(X)  # lazy; computed by the user, as in the docs
            rmse = float(da.sqrt(((pred - y) ** 2).mean()).compute(scheduler=client))
            ref = float(np.sqrt(np.mean((model.to_local().predict(Xn) - yn) ** 2)))
            assert rmse == pytest.approx(ref, rel=1e-10)
            local = DaskKernelRidge("rbf(gamma=0.5)", alpha=1.0, solver="falkon",
                                    n_centers=40, tol=1e-3, max_iter=3, random_state=0)
            local.client = client
            local.fit(X[:400], y[:400])
            assert _held(client, names) == []
            np.testing.assert_allclose(local.predict(Xn[:5]), local.to_local().predict(Xn[:5]),
                                       rtol=1e-10, atol=1e-12)
    finally:
        if was_enabled:
            gc.enable()
