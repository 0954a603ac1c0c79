"""one_blas_thread: BLAS on one thread inside, the count found before restored after --
nested, through an exception, and with blocks of several threads overlapping.

The reference is threadpoolctl's ``threadpool_info`` (it reads every loaded BLAS
library's thread count afresh), not kernelkit's own bookkeeping. Every test starts
from two BLAS threads, so that "restored" and "left at one thread" differ on any machine.
"""

import threading

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_info

from kernelkit.linalg import one_blas_thread


def _blas_threads():
    """The distinct thread counts of the loaded BLAS libraries (threadpool_info)."""
    return sorted({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"})


def _started(fn):
    """``fn`` running in a new thread: (the thread, the list its exception goes to, to be
    checked in the main thread)."""
    errors = []

    def run():
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, errors


def _set_blas_threads(counts):
    pools = ThreadpoolController().select(user_api="blas").lib_controllers
    for pool, count in zip(pools, counts):
        pool.set_num_threads(count)
        clear = getattr(type(pool), "clear_controlling_thread", None)
        if clear is not None:  # threadpoolctl >= 3.6: let other threads set it again
            clear(force=True)


@pytest.fixture(autouse=True)
def two_blas_threads():
    pools = ThreadpoolController().select(user_api="blas").lib_controllers
    assert pools, "numpy's BLAS is not visible to threadpoolctl"
    before = [pool.get_num_threads() for pool in pools]
    _set_blas_threads([2] * len(pools))
    assert _blas_threads() == [2]
    yield
    _set_blas_threads(before)


def test_one_thread_inside_and_the_count_restored_after():
    with one_blas_thread():
        assert _blas_threads() == [1]
        a = np.ones((50, 50))
        np.testing.assert_allclose(a @ a, 50.0)  # BLAS still works on one thread
    assert _blas_threads() == [2]


def test_nested_blocks_keep_one_thread_until_the_outer_one_ends():
    with one_blas_thread():
        with one_blas_thread():
            assert _blas_threads() == [1]
        assert _blas_threads() == [1]  # the inner block must not restore two threads
    assert _blas_threads() == [2]


def test_an_exception_inside_restores_the_count():
    with pytest.raises(ValueError, match="inside"), one_blas_thread():
        with one_blas_thread():
            raise ValueError("raised inside")
    assert _blas_threads() == [2]
    with one_blas_thread():  # and the next block still limits
        assert _blas_threads() == [1]
    assert _blas_threads() == [2]


@pytest.mark.parametrize("first_out", ["first in", "second in"])
def test_overlapping_blocks_of_two_threads(first_out):
    """A enters, B enters, one leaves: BLAS stays at one thread for the other; after
    both, the count from before (each block restoring what it saw left one thread)."""
    a_in, b_in, leave_first, first_left, leave_second = (threading.Event() for _ in range(5))
    errors = []

    def block(entered, wait_before=None, leave=None, left=None):
        try:
            if wait_before is not None:
                wait_before.wait(10)
            with one_blas_thread():
                entered.set()
                leave.wait(10)
            if left is not None:
                left.set()
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)

    # the events each thread leaves its block on: A entered first
    a_leaves, b_leaves = ((leave_first, leave_second) if first_out == "first in"
                          else (leave_second, leave_first))
    a = threading.Thread(target=block, args=(a_in, None, a_leaves,
                                             first_left if a_leaves is leave_first else None))
    b = threading.Thread(target=block, args=(b_in, a_in, b_leaves,
                                             first_left if b_leaves is leave_first else None))
    a.start()
    b.start()
    try:
        assert b_in.wait(10) and a_in.is_set()
        assert _blas_threads() == [1]
        leave_first.set()
        assert first_left.wait(10)
        assert _blas_threads() == [1]  # the other block is still open
    finally:
        leave_first.set()
        leave_second.set()
        a.join(10)
        b.join(10)
    assert not errors
    assert _blas_threads() == [2]


def test_many_threads_entering_and_leaving_at_random():
    """Four threads, nested blocks entered and left at random moments: one thread
    whenever a block is open, the count from before once all have ended."""
    seen = []
    errors = []
    start = threading.Barrier(4)

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            start.wait(10)
            for _ in range(15):
                with one_blas_thread():
                    seen.append(_blas_threads())
                    if rng.random() < 0.5:
                        with one_blas_thread():
                            seen.append(_blas_threads())
                    threading.Event().wait(rng.random() * 0.002)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert len(seen) >= 60 and all(s == [1] for s in seen)
    assert _blas_threads() == [2]


class _FakePool:
    """A stand-in for a threadpoolctl controller: its count shared by the process, or
    one per thread (as omp_set_num_threads), starting at 4."""

    def __init__(self, internal_api, threading_layer, per_thread):
        self.internal_api, self.threading_layer = internal_api, threading_layer
        self._local = threading.local() if per_thread else None
        self._shared = 4

    def get_num_threads(self):
        return getattr(self._local, "n", 4) if self._local is not None else self._shared

    def set_num_threads(self, n):
        if self._local is not None:
            self._local.n = n
        else:
            self._shared = n


@pytest.mark.parametrize("api, layer, per_thread", [
    ("openblas", "openmp", True), ("openblas", "pthreads", False),
    ("blis", "openmp", False), ("blis", "pthreads", False), ("mkl", "intel", False),
    ("mkl", "openmp", False)])
def test_only_openblas_on_openmp_is_limited_per_thread(api, layer, per_thread):
    from kernelkit.linalg import _split_pools

    pool = _FakePool(api, layer, per_thread)
    shared, local = _split_pools([pool])
    assert (local, shared) == (([pool], []) if per_thread else ([], [pool]))


@pytest.mark.parametrize("api, layer", [("openblas", "openmp"), ("blis", "openmp")])
def test_two_threads_overlapping_on_a_fake_pool(monkeypatch, api, layer):
    """A per-thread pool (OpenBLAS on OpenMP) is limited and restored in each thread;
    a process-wide one (BLIS, even on OpenMP) stays at one thread until the last block
    ends. The fake pool behaves as the real library would; the classification decides."""
    import kernelkit.linalg as linalg

    pool = _FakePool(api, layer, per_thread=(api == "openblas"))
    monkeypatch.setattr(linalg, "_pools", linalg._split_pools([pool]))
    a_in, a_leave, a_left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with one_blas_thread():
            seen["a inside"] = pool.get_num_threads()
            a_in.set()
            a_leave.wait(10)
        seen["a after"] = pool.get_num_threads()
        a_left.set()

    t, errors = _started(a)
    try:
        assert a_in.wait(10)
        with one_blas_thread():
            seen["b inside"] = pool.get_num_threads()
            a_leave.set()
            assert a_left.wait(10)
            seen["b inside after a left"] = pool.get_num_threads()
        seen["b after"] = pool.get_num_threads()
    finally:
        a_leave.set()
        t.join(10)
    assert not errors
    assert seen["a inside"] == seen["b inside"] == seen["b inside after a left"] == 1
    assert seen["b after"] == 4
    # per thread: A's own count is back when A leaves; shared: B's block still holds it
    assert seen["a after"] == (4 if api == "openblas" else 1)


def test_kernelkit_sets_blas_limits_only_through_one_blas_thread():
    """One count governs every one-thread block of the package: a direct
    threadpool_limits elsewhere would fight one_blas_thread across threads."""
    from pathlib import Path

    import kernelkit

    root = Path(kernelkit.__file__).parent
    direct = [str(p.relative_to(root)) for p in root.rglob("*.py")
              if p.name != "linalg.py" and "threadpool_limits" in p.read_text()]
    assert direct == []


def test_a_dask_task_and_a_block_of_another_thread_overlapping():
    """A Dask task's wrapper (in a worker thread) and a one_blas_thread block of another
    thread: one thread until both end, whichever leaves first; then the count from before."""
    pytest.importorskip("dask")
    from kernelkit.dask._runtime import in_task

    task_in, task_leave = threading.Event(), threading.Event()

    def task():
        task_in.set()
        task_leave.wait(10)

    t, errors = _started(in_task(task))
    try:
        assert task_in.wait(10)
        with one_blas_thread():
            assert _blas_threads() == [1]
            task_leave.set()
            t.join(10)
            assert _blas_threads() == [1]  # the task's end must not restore two threads here
    finally:
        task_leave.set()
        t.join(10)
    assert not errors
    assert _blas_threads() == [2]


class _PerThreadPool(_FakePool):
    def __init__(self):
        super().__init__("openblas", "openmp", per_thread=True)


def test_worker_threads_of_the_normal_equations_and_random_features(monkeypatch):
    """With a BLAS limited per thread (OpenBLAS on OpenMP, faked), the pools' worker
    threads limit themselves; the results as computed on one thread."""
    import kernelkit.linalg as linalg
    from kernelkit.features import RandomFourierFeatures
    from kernelkit.features import random_fourier
    from kernelkit.solvers.normal_equations import feature_normal_equations

    pool = _PerThreadPool()
    monkeypatch.setattr(linalg, "_pools", linalg._split_pools([pool]))
    seen = []
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(400, 3)), rng.normal(size=400)

    def feature_map(block):
        seen.append((threading.current_thread() is threading.main_thread(),
                     pool.get_num_threads()))
        return np.cos(block @ np.ones((3, 5)))

    ne = feature_normal_equations(feature_map, X, Y, block_rows=50, n_jobs=2)
    Z = np.cos(X @ np.ones((3, 5)))
    np.testing.assert_allclose(ne.ZtZ, Z.T @ Z, rtol=1e-12)
    assert any(not main for main, _ in seen) and all(n == 1 for _, n in seen)

    seen.clear()
    features_block = random_fourier._features_block

    def spy(*args):
        seen.append((threading.current_thread() is threading.main_thread(),
                     pool.get_num_threads()))
        return features_block(*args)

    rff = RandomFourierFeatures(n_components=20, random_state=0).fit(X)
    one = rff.transform(X)
    monkeypatch.setattr(random_fourier, "_n_workers", lambda n: 2)
    monkeypatch.setattr(random_fourier, "_features_block", spy)
    np.testing.assert_array_equal(rff.transform(X), one)
    assert any(not main for main, _ in seen) and all(n == 1 for _, n in seen)
    assert pool.get_num_threads() == 4
