"""Out of core: memmaps read by the tasks from their file (the graph holds paths, not
data), rows per chunk from the workers' memory, and progress lines of a running pass."""

import pickle

import numpy as np
import pytest

pytest.importorskip("distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402

from kernelkit import config  # noqa: E402
from kernelkit.dask import DaskKernelRidge, from_npy  # noqa: E402
from kernelkit.dask import io as dio  # noqa: E402
from kernelkit.dask._passes import _task_counts, report_progress  # noqa: E402
from kernelkit.dask._runtime import as_rows  # noqa: E402
from kernelkit.dask._workers import room_report  # noqa: E402


def graph_bytes(arr):
    return len(pickle.dumps(dict(arr.__dask_graph__()), protocol=5))


@pytest.fixture
def stored(tmp_path):
    X = np.random.default_rng(0).normal(size=(3000, 7))
    np.save(tmp_path / "c.npy", X)
    np.save(tmp_path / "f.npy", np.asfortranarray(X))
    np.save(tmp_path / "v.npy", X[:, 0].copy())
    return tmp_path, X


def test_memmaps_and_their_views_read_as_the_arrays(stored):
    path, _ = stored
    c = np.load(path / "c.npy", mmap_mode="r")
    f = np.load(path / "f.npy", mmap_mode="r")
    v = np.load(path / "v.npy", mmap_mode="r")
    views = [c, c[100:2500], c[7:2900:3], c[:, 2:], c[:, ::2], c[50:, 4], f, f[10:, 1:5],
             f[:, 3], v, v[11:]]
    for view in views:
        got = dio.from_memmap(view, 333).compute(scheduler="synchronous")
        np.testing.assert_array_equal(got, np.asarray(view))
        assert got.flags.c_contiguous


def test_the_graph_holds_the_path_not_the_data(stored):
    path, X = stored
    mm = np.load(path / "c.npy", mmap_mode="r")
    lazy = as_rows(mm, chunk_rows=500)
    assert graph_bytes(lazy) < X.nbytes / 20  # file names and row ranges
    assert graph_bytes(da.from_array(np.asarray(mm), chunks=(500, 7))) > X.nbytes  # the data
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), X)


def test_copy_on_write_memmaps_are_not_read_from_their_file(stored):
    path, X = stored
    mm = np.load(path / "c.npy", mmap_mode="c")
    mm[0, 0] = 123.0  # not in the file: must come from memory
    assert dio.memmap_layout(mm) is None
    with pytest.raises(ValueError, match="from_array"):
        dio.from_memmap(mm)
    assert as_rows(mm, chunk_rows=1000).compute(scheduler="synchronous")[0, 0] == 123.0


def test_npy_rows_read_from_c_and_fortran_files(stored):
    path, X = stored
    for name in ("c.npy", "f.npy"):
        np.testing.assert_array_equal(dio.read_npy_rows(path / name, 17, 1017), X[17:1017])
        assert dio.read_npy_rows(path / name, 5, 5).shape == (0, 7)
    np.testing.assert_array_equal(dio.read_npy_rows(path / "v.npy", 2990, 3000), X[2990:, 0])


def test_auto_chunks_without_a_cluster_follow_the_memory_budget(stored):
    import os

    path, X = stored
    with config.config_context(memory=16 * 2**20):  # chunks of at most 1/8 of the budget
        assert dio.auto_chunk_rows(10**9, 56) == (16 * 2**20 // dio.CHUNK_SHARE) // 56
        Xd = from_npy(path / "c.npy")  # small: CHUNKS_PER_THREAD chunks per core
    assert max(Xd.chunks[0]) == -(-3000 // (dio.CHUNKS_PER_THREAD * (os.cpu_count() or 1)))
    np.testing.assert_array_equal(Xd.compute(scheduler="synchronous"), X)


def test_auto_chunks_on_a_cluster_follow_the_workers_room(client):
    rooms = [r for r in client.run(room_report).values()]
    threads = sum(r[3] for r in rooms)
    room = min(r[-1] for r in rooms)
    row_bytes = 160
    big = dio.auto_chunk_rows(10**9, row_bytes, client)
    # the room of a 1 GiB worker: the 64 MiB cap, or 1/8 of the room if less
    assert big == min(dio.CHUNK_BYTES, room // dio.CHUNK_SHARE) // row_bytes
    assert big * row_bytes <= dio.CHUNK_BYTES
    small = dio.auto_chunk_rows(10_000, row_bytes, client)
    assert small == -(-10_000 // (dio.CHUNKS_PER_THREAD * threads))


def test_a_fit_on_memmaps_equals_the_fit_in_memory(tmp_path, client):
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(4000, 5)).astype(np.float32)
    y = np.sin(3 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=4000)
    np.save(tmp_path / "data.npy", np.column_stack([X, y.astype(np.float32)]))
    mm = np.load(tmp_path / "data.npy", mmap_mode="r")
    kw = dict(alpha=0.5, solver="features", features="rff", n_centers=40, random_state=0,
              chunk_rows=700)
    on_file = DaskKernelRidge("rbf(gamma=1.0)", **kw)
    on_file.client = client
    on_file.fit(mm[:, :5], mm[:, 5])  # memmap views: read by the tasks
    in_memory = DaskKernelRidge("rbf(gamma=1.0)", **kw)
    in_memory.client = client
    in_memory.fit(np.array(mm[:, :5]), np.array(mm[:, 5]))
    np.testing.assert_allclose(on_file.coef_, in_memory.coef_, rtol=0, atol=1e-12)
    chunking = [c for c in on_file.plan_.choices if c.what == "rows per chunk"]
    assert [c.value for c in chunking] == [700] and "6 chunks" in chunking[0].reason
    assert "rows per chunk: 700" in on_file.plan_.explain()
    assert on_file.intercept_ == pytest.approx(in_memory.intercept_, abs=1e-14)


def _wait_then(i, name):
    from distributed import Event

    Event(name).wait(30)
    return (np.array([float(i)]),)


def test_progress_counts_the_tasks_of_a_running_pass(client, capsys):
    from dask import delayed
    from distributed import Event

    from kernelkit.dask._runtime import tree_sum

    event = Event("kernelkit-progress-test", client=client)
    parts = [delayed(_wait_then, pure=False)(i, "kernelkit-progress-test") for i in range(3)]
    future = client.compute(tree_sum(parts))  # 3 tasks + 2 sums
    try:
        import time

        deadline = time.monotonic() + 20
        counts = None
        while counts is None and time.monotonic() < deadline:  # the graph reaches the scheduler
            counts = client.run_on_scheduler(_task_counts, future.key)
            time.sleep(0.05)
        assert counts == (0, 5)
        with config.config_context(verbosity=1):
            report_progress("the test pass", 3.0, client, future.key)
        with config.config_context(verbosity=0):
            report_progress("a silent pass", 3.0, client, future.key)
    finally:
        event.set()
    assert future.result()[0][0] == 3.0
    done, total = client.run_on_scheduler(_task_counts, future.key)
    assert done == total >= 1
    err = capsys.readouterr().err
    assert "the test pass: 0/5 tasks done in 3 s" in err
    assert "silent" not in err


def test_dask_local_scheduler_reads_memmaps_too(stored):
    path, X = stored
    mm = np.load(path / "c.npy", mmap_mode="r")
    with dask.config.set(scheduler="threads"):
        est = DaskKernelRidge("rbf(gamma=0.5)", solver="features", features="rff",
                              n_centers=16, random_state=0, chunk_rows=1000)
        est.fit(mm, X[:, 0] ** 2)
    ref = DaskKernelRidge("rbf(gamma=0.5)", solver="features", features="rff", n_centers=16,
                          random_state=0, chunk_rows=1000).fit(np.array(mm), X[:, 0] ** 2)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=0, atol=1e-12)


def test_one_read_per_chunk_when_x_and_y_share_a_file(tmp_path, monkeypatch):
    """X and y as columns of one .npy table: the pass reads each chunk once (X's and
    y's graphs keep the same read keys), against a count of the reads."""
    import threading

    rng = np.random.default_rng(2)
    table = rng.uniform(size=(2000, 4))
    np.save(tmp_path / "t.npy", table)
    calls, lock = [], threading.Lock()
    read = dio.read_strided_rows

    def counted(*args):
        with lock:
            calls.append(args[-2:])
        return read(*args)

    monkeypatch.setattr(dio, "read_strided_rows", counted)
    T = from_npy(tmp_path / "t.npy", 500)
    est = DaskKernelRidge("rbf(gamma=1.0)", solver="features", features="rff", n_centers=8,
                          random_state=0, fit_intercept=False)
    est.fit(T[:, :3], T[:, 3])  # the local scheduler: the counter is in this process
    assert sorted(calls) == [(0, 500), (500, 1000), (1000, 1500), (1500, 2000)]
    ref = DaskKernelRidge("rbf(gamma=1.0)", solver="features", features="rff", n_centers=8,
                          random_state=0, fit_intercept=False).fit(table[:, :3], table[:, 3])
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-12, atol=1e-12)


def test_a_memmapped_target_stays_out_of_the_graph_when_x_chunks_are_irregular(stored):
    from kernelkit.dask._runtime import align_rows
    path, X = stored
    v = np.load(path / "v.npy", mmap_mode="r")
    lazy_X = da.from_array(X, chunks=((700, 1100, 300, 900), (7,)))  # irregular row chunks
    aligned = align_rows(v, lazy_X, "y")
    assert aligned.chunks[0] == lazy_X.chunks[0]
    assert graph_bytes(aligned) < v.nbytes / 5  # paths and row ranges, not the 3000 values
    np.testing.assert_array_equal(aligned.compute(scheduler="synchronous"), np.asarray(v))
