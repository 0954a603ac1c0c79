"""Pages of new memory mapped on a second thread ahead of rows written in order
(_pages.RowsAhead), behind SMO's rows on demand (smo.LazyGram(map_ahead=)): the rows
mapped and no others, the values untouched, the thread always joined, the same fits."""

import ctypes
import mmap
import os
import threading
import time

import numpy as np
import pytest

from kernelkit import _cores, _pages
from kernelkit.exceptions import InvalidParameterError
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC
from kernelkit.planning import Choice
from kernelkit.planning.machines import ROWS_AHEAD_MAX_PRESSURE, rows_ahead_choice
from kernelkit.solvers import buffers
from kernelkit.solvers import _rbf_rows
from kernelkit.solvers.smo import LazyGram, smo_gram, smo_lazy_gram

MB = 1 << 20
THREAD = "kernelkit-rows-ahead"
ahead_works = pytest.mark.skipif(not buffers.can_map_ahead(),
                                 reason="no madvise(MADV_POPULATE_WRITE) through libc here "
                                 "(Linux >= 5.14): no thread is started (tested below)")
_libc = ctypes.CDLL(None, use_errno=True)
has_mincore = pytest.mark.skipif(not hasattr(_libc, "mincore"),
                                 reason="this libc has no mincore(2), the only way these "
                                 "tests can read which pages are resident (Linux and "
                                 "macOS have it)")


def _huge_page_slack():
    """Bytes past a mapped range the kernel may map with it: a transparent huge page
    where THP is "always" (this buffer has no huge-page advice), else none."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            if "[always]" not in f.read():
                return 0
        with open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") as f:
            return int(f.read())
    except OSError:
        return 0


def _rows_resident(a):
    """Per row of ``a``: (all its pages resident, any page wholly inside it resident),
    from mincore(2) over the array's own range -- nothing else of the process counts."""
    page = mmap.PAGESIZE
    start = a.ctypes.data
    base = start - start % page
    length = start + a.nbytes - base
    vec = (ctypes.c_ubyte * (-(-length // page)))()
    if _libc.mincore(ctypes.c_void_p(base), ctypes.c_size_t(length), vec) != 0:
        raise OSError(ctypes.get_errno(), "mincore")
    resident = np.frombuffer(vec, dtype=np.uint8) & 1
    full, inside = [], []
    for k in range(a.shape[0]):
        lo, hi = start + k * a.strides[0] - base, start + (k + 1) * a.strides[0] - base
        full.append(bool(resident[lo // page:-(-hi // page)].all()))
        inside.append(bool(resident[-(-lo // page):hi // page].any()))
    return np.array(full), np.array(inside)


def _assert_mapped_rows(a, rows):
    """Rows ``0 .. rows - 1`` wholly resident, none after them (beyond a huge page)."""
    full, inside = _rows_resident(a)
    beyond = rows + -(-_huge_page_slack() // a.strides[0])
    assert full[:rows].all(), np.flatnonzero(~full[:rows])
    assert not inside[beyond:].any(), np.flatnonzero(inside[beyond:]) + beyond


def _threads():
    return [t for t in threading.enumerate() if t.name == THREAD]


def _wait_mapped(ahead, rows, seconds=5.0):
    end = time.monotonic() + seconds
    while ahead.mapped < rows and time.monotonic() < end:
        time.sleep(0.002)
    return ahead.mapped


@pytest.fixture(autouse=True)
def empty_pool():
    buffers.release()
    yield
    buffers.release()
    assert not _threads()  # no test leaves a thread behind


@has_mincore
@ahead_works
def test_the_thread_maps_the_rows_ahead_of_the_writer_and_no_others():
    rows, width = 64, MB // 8  # rows of 1 MB
    a = buffers.fresh_empty((rows, width), populate=False)
    _assert_mapped_rows(a, 0)  # nothing mapped before
    with buffers.RowsAhead(a, ahead_bytes=8 * MB, chunk_bytes=2 * MB) as ahead:
        assert ahead.running and len(_threads()) == 1
        assert _wait_mapped(ahead, 8) == 8  # 8 rows ahead of row 0, then it waits
        time.sleep(0.05)
        assert ahead.mapped == 8
        _assert_mapped_rows(a, 8)
        assert ahead.writing(0)  # mapped: the writer maps nothing itself
        a[0] = 1.0
        ahead.writing(20)  # rows up to 20 + 1 + 8 wanted, mapped in chunks of 2 rows
        assert 28 <= _wait_mapped(ahead, 28) <= 29
        time.sleep(0.05)
        _assert_mapped_rows(a, ahead.mapped)  # rows 9..19 too (in order), none beyond
        assert ahead.mapped >= 28
    assert not ahead.running and not _threads() and ahead.error is None


@ahead_works
def test_values_written_while_the_thread_maps_are_kept():
    rows, width = 300, 20_000  # 160 KB rows, chunks of one row: the most interleaving
    a = buffers.fresh_empty((rows, width), populate=False)
    rng = np.random.default_rng(0)
    want = rng.standard_normal((rows, width))
    with buffers.RowsAhead(a, ahead_bytes=40 * a.strides[0], chunk_bytes=1) as ahead:
        for k in range(rows):
            if not ahead.writing(k):
                buffers.RowPages(a).map(k)
            a[k] = want[k]
            if k == rows // 2:  # the writer waits: the thread maps up to 40 rows ahead
                _wait_mapped(ahead, k + 41)
    np.testing.assert_array_equal(a, want)


def test_no_thread_on_numpy_memory_a_written_buffer_or_without_madvise(monkeypatch):
    for array in (np.empty((600, 1000)), buffers.fresh_empty((10, 10))):
        with buffers.RowsAhead(array) as ahead:
            assert not ahead.running and not _threads() and not ahead.writing(0)
    a, _ = buffers.borrow((600, 1000))
    buffers.give_back(a, max_bytes=10**8)
    b, warm = buffers.borrow((600, 1000))  # written once: its pages are mapped
    with buffers.RowsAhead(b) as ahead:
        assert warm and not ahead.running
    buffers.give_back(b, max_bytes=10**8)
    monkeypatch.setattr(_pages, "_madvise", None)  # no libc madvise: the system cannot
    assert not buffers.can_map_ahead()
    with buffers.RowsAhead(buffers.fresh_empty((600, 1000))) as ahead:
        assert not ahead.running


@ahead_works
def test_a_refused_call_stops_the_thread_and_the_writer_maps_its_rows(monkeypatch):
    monkeypatch.setitem(_pages._by_row, "works", True)
    monkeypatch.setitem(_pages._by_row, "ahead", True)
    monkeypatch.setattr(_pages, "_MADV_POPULATE_WRITE", 0x7fff)  # no such advice: EINVAL
    a = buffers.fresh_empty((600, 1000), populate=False)
    with buffers.RowsAhead(a) as ahead:
        ahead._thread.join(5.0)  # it ends at its first call
        assert ahead.error is not None and ahead.mapped == 0 and not ahead.writing(0)
        a[0] = 3.0
    assert not _threads() and a[0].sum() == 3000.0


@ahead_works
def test_a_thread_that_cannot_start_leaves_the_writer_mapping_its_rows(monkeypatch):
    """Where the process's threads are limited (pids.max, ulimit -u), start() raises
    RuntimeError: no thread, the writer maps its own rows, the reason kept; and a
    KernelSVC fit still ends, with the same fit as without the thread."""
    def refuse(self):
        raise RuntimeError("can't start new thread")

    a = buffers.fresh_empty((600, 1000), populate=False)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    with buffers.RowsAhead(a) as ahead:
        assert ahead.enabled and not ahead.running and not ahead.writing(0)
        assert "can't start new thread" in str(ahead.start_error)
        buffers.RowPages(a).map(0)
        a[0] = 3.0
    assert a[0].sum() == 3000.0 and ahead.error is None
    monkeypatch.setattr(_pages, "MAPPED_MIN_BYTES", 1)
    X, y = _data(300, seed=5)
    refused = LazyGram(RBF(gamma=0.5), X, rbf_gamma=0.5, map_ahead=True)
    with refused.mapping_ahead():
        pass
    r_refused = smo_lazy_gram(refused, y, 2.0)
    r_plain = smo_lazy_gram(LazyGram(RBF(gamma=0.5), X, rbf_gamma=0.5), y, 2.0)
    np.testing.assert_array_equal(r_refused.alpha, r_plain.alpha)


@ahead_works
def test_the_thread_is_joined_when_the_block_raises():
    a = buffers.fresh_empty((600, 1000), populate=False)
    with pytest.raises(RuntimeError, match="in the block"):
        with buffers.RowsAhead(a) as ahead:
            assert ahead.running
            raise RuntimeError("in the block")
    assert not ahead.running and not _threads()


def _data(n, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("rbf_gamma", [0.5, None])
def test_lazy_gram_mapped_ahead_takes_the_same_steps(rbf_gamma, monkeypatch):
    monkeypatch.setattr(_pages, "MAPPED_MIN_BYTES", 1)  # a mapping even at n = 700
    X, y = _data(700)
    k = RBF(gamma=0.5)
    started = []
    enter = buffers.RowsAhead.__enter__

    def spy(self):
        out = enter(self)
        started.append(self.running)
        return out

    monkeypatch.setattr(buffers.RowsAhead, "__enter__", spy)
    ahead = LazyGram(k, X, rbf_gamma=rbf_gamma, map_ahead=True)
    plain = LazyGram(k, X, rbf_gamma=rbf_gamma, map_ahead=False)
    r_ahead, r_plain = smo_lazy_gram(ahead, y, 2.0), smo_lazy_gram(plain, y, 2.0)
    if buffers.can_map_ahead():
        assert started == [True]  # one thread, for the solve
    else:  # the system cannot: no thread (or none entered on memory not mapped by row)
        assert started in ([], [False])
    assert not _threads()
    np.testing.assert_array_equal(r_ahead.alpha, r_plain.alpha)
    assert r_ahead.bias == r_plain.bias and r_ahead.n_iter == r_plain.n_iter
    np.testing.assert_array_equal(ahead.slot_of, plain.slot_of)
    m = ahead.n_computed
    np.testing.assert_array_equal(ahead.rows[:m], plain.rows[:m])
    done = ahead.slot_of >= 0  # rows in the order first asked, equal to the Gram's
    np.testing.assert_allclose(ahead.rows[ahead.slot_of[done]], gram(k, X)[done],
                               rtol=1e-12, atol=1e-14)
    # against SMO on the whole Gram matrix: the same optimum (the steps may part where
    # kernel values differ in the last ulp -- the tiled engine's vs the row loop's --
    # and a pivot ties: seen 914 vs 944 steps at n = 700 on a fresh install)
    full = smo_gram(gram(k, X), y, 2.0)
    assert full.converged and r_ahead.converged
    # each dual value is below the optimum by at most its duality gap
    assert (abs(r_ahead.dual_objective - full.dual_objective)
            <= max(r_ahead.duality_gap, full.duality_gap))


def test_map_ahead_takes_a_bool_or_the_planners_choice():
    X, _ = _data(50)
    free = rows_ahead_choice(True, cores=2, cpu_pressure=0.0)
    assert LazyGram(RBF(gamma=0.5), X, map_ahead=free).map_ahead
    assert not LazyGram(RBF(gamma=0.5), X, map_ahead=rows_ahead_choice(True, cores=1)).map_ahead
    with pytest.raises(InvalidParameterError) as refused:
        LazyGram(RBF(gamma=0.5), X, map_ahead="auto")
    # the advice asks the system, so the recorded choice says what it can
    advice = "rows_ahead_choice(kernelkit.solvers.buffers.can_map_ahead())"
    assert advice in str(refused.value)
    with pytest.raises(TypeError, match="can_map"):
        rows_ahead_choice()  # no default that would claim the system can map ahead


def test_rows_ahead_choice_by_system_cores_and_how_busy_they_are():
    yes = rows_ahead_choice(True, cores=2, cpu_pressure=1.5)
    assert isinstance(yes, Choice) and yes.value is True
    assert "2 cores" in yes.reason and "CPU pressure 1.5 %" in yes.reason
    busy = rows_ahead_choice(True, cores=2, cpu_pressure=ROWS_AHEAD_MAX_PRESSURE)
    assert busy.value is False and "no core to spare" in busy.reason
    assert rows_ahead_choice(True, cores=1, cpu_pressure=0.0).value is False
    assert rows_ahead_choice(False, cores=8, cpu_pressure=0.0).value is False
    # without a CPU pressure: the load average against the cores minus one half
    assert rows_ahead_choice(True, cores=2, load=1.2).value is True
    assert rows_ahead_choice(True, cores=2, load=1.6).value is False
    assert rows_ahead_choice(True, cores=4, load=3.2).value is True
    # this machine, now: the reason names the figure that could be read
    now = rows_ahead_choice(True)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if _cores._quota_cores() is not None:
        cores = min(cores, _cores._quota_cores())
    readable = any(_pressure_line(path) for path in (
        os.path.join(_cores._cgroup_dirs()[0], "cpu.pressure"), "/proc/pressure/cpu"))
    if cores < 2:
        assert now.value is False and "no core to spare" in now.reason
    elif readable:
        assert "CPU pressure" in now.reason
    else:
        assert "load average" in now.reason


def _pressure_line(path):
    try:
        with open(path) as f:
            return any(line.startswith("some") and "avg10=" in line for line in f)
    except OSError:
        return False


@pytest.fixture
def cgroup(tmp_path, monkeypatch):
    """A cgroup v2 tree of our own: the process in /app/job of a 16-core host whose
    system-wide pressure is 0.2 %; returns a writer of its files."""
    monkeypatch.setattr(_cores, "_CGROUP_ROOT", str(tmp_path / "cg"))
    (tmp_path / "cg" / "app" / "job").mkdir(parents=True)
    (tmp_path / "self").write_text("0::/app/job\n")
    monkeypatch.setattr(_cores, "_SELF_CGROUP", str(tmp_path / "self"))
    (tmp_path / "pressure").write_text("some avg10=0.20 avg60=0.10 avg300=0.00 total=1\n")
    monkeypatch.setattr(_cores, "_SYSTEM_PRESSURE", str(tmp_path / "pressure"))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)

    def write(where, name, text):
        (tmp_path / "cg" / where / name).write_text(text)
    return write


def test_rows_ahead_choice_counts_the_cores_of_the_cgroup_quota(cgroup):
    assert "16 cores" in rows_ahead_choice(True).reason  # no cpu.max: the affinity
    cgroup("app", "cpu.max", "max 100000\n")
    assert "16 cores" in rows_ahead_choice(True).reason  # no quota
    cgroup("app", "cpu.max", "400000 100000\n")  # a parent's quota of 4 CPUs
    assert "4 cores" in rows_ahead_choice(True).reason
    cgroup("app/job", "cpu.max", "150000 100000\n")  # the group's own 1.5 CPUs: one
    one = rows_ahead_choice(True)
    assert one.value is False and "1 core" in one.reason and "no core to spare" in one.reason
    assert rows_ahead_choice(True, cores=8).value is True  # cores given: taken as given


def test_every_thread_count_of_the_package_follows_the_quota(cgroup):
    # the searches' fold threads and the tiled Gram engine ask the same usable_cores
    from kernelkit.kernels import tiled
    from kernelkit.planning.searches import fold_workers

    assert _cores.usable_cores() == 16 and fold_workers(100, 25) == 16
    cgroup("app", "cpu.max", "400000 100000\n")
    assert _cores.usable_cores() == 4 and fold_workers(100, 25) == 4
    assert tiled._threads() <= 4


def test_rows_ahead_choice_prefers_the_cgroups_own_cpu_pressure(cgroup):
    assert "CPU pressure 0.2 %" in rows_ahead_choice(True).reason  # the system's
    cgroup("app/job", "cpu.pressure", "some avg10=37.50 avg60=30.00 avg300=9.00 total=9\n"
           "full avg10=30.00 avg60=20.00 avg300=5.00 total=5\n")
    busy = rows_ahead_choice(True)
    assert busy.value is False and "CPU pressure 37.5 %" in busy.reason


def test_rows_ahead_choice_without_pressure_or_load_average(cgroup, tmp_path, monkeypatch):
    monkeypatch.setattr(_cores, "_SYSTEM_PRESSURE", str(tmp_path / "none"))
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0, 2.0, 1.0))
    assert "load average 3.00" in rows_ahead_choice(True).reason

    def unavailable():
        raise OSError("Load average is unobtainable")

    monkeypatch.setattr(os, "getloadavg", unavailable)
    none = rows_ahead_choice(True)
    assert none.value is False and "unobtainable" in none.reason


class _Stop(Exception):
    pass


@pytest.fixture
def mapped_svc(monkeypatch):
    """KernelSVC with its (small) Gram buffer on a mapping of its own, pages mapped
    ahead as on a machine that can; the RowsAhead objects entered."""
    monkeypatch.setattr(_pages, "MAPPED_MIN_BYTES", 1)
    monkeypatch.setattr("kernelkit.models.svm.rows_ahead_choice",
                        lambda can: rows_ahead_choice(True, cores=2, cpu_pressure=0.0))
    entered = []
    enter = buffers.RowsAhead.__enter__

    def spy(self):
        out = enter(self)
        entered.append(self)
        return out

    monkeypatch.setattr(buffers.RowsAhead, "__enter__", spy)
    return entered


@pytest.mark.parametrize("multiclass", [None, "ovr"])
def test_svc_fit_joins_its_thread_and_equals_the_fit_without_it(mapped_svc, monkeypatch,
                                                                multiclass):
    X, y = _data(800, seed=3)
    if multiclass:
        y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    kw = {"multiclass": multiclass} if multiclass else {}
    ours = KernelSVC(RBF(gamma=0.5), C=2.0, **kw).fit(X, y)
    assert len(mapped_svc) == (1 if multiclass is None else 3)  # one per binary problem
    assert all(not a.running for a in mapped_svc) and not _threads()
    if buffers.can_map_ahead():
        assert all(a.enabled for a in mapped_svc)
    line = [c for c in ours.plan_.choices if c.what.startswith("pages of the new Gram")]
    assert len(line) == 1 and line[0].value is True
    assert "pages of the new Gram buffer mapped ahead: True" in ours.plan_.explain()
    buffers.release()
    monkeypatch.setattr("kernelkit.models.svm.rows_ahead_choice",
                        lambda can: rows_ahead_choice(True, cores=1))
    plain = KernelSVC(RBF(gamma=0.5), C=2.0, **kw).fit(X, y)
    np.testing.assert_array_equal(ours.dual_coef_, plain.dual_coef_)
    np.testing.assert_array_equal(ours.intercept_, plain.intercept_)
    np.testing.assert_array_equal(ours.support_, plain.support_)
    # the next fit reuses the buffer: its pages are mapped, nothing is decided or started
    again = KernelSVC(RBF(gamma=0.5), C=2.0, **kw).fit(X, y)
    assert not [c for c in again.plan_.choices if c.what.startswith("pages of the new Gram")]
    np.testing.assert_array_equal(again.dual_coef_, plain.dual_coef_)


def test_svc_fit_that_raises_joins_its_thread(mapped_svc, monkeypatch):
    X, y = _data(800, seed=4)
    row_into = _rbf_rows.RBFRowEngine.row_into
    calls = []

    def failing(self, i, out):
        calls.append(i)
        if len(calls) == 30:
            raise _Stop("row 30")
        row_into(self, i, out)

    monkeypatch.setattr(_rbf_rows.RBFRowEngine, "row_into", failing)
    with pytest.raises(_Stop):
        KernelSVC(RBF(gamma=0.5), C=2.0).fit(X, y)
    assert len(mapped_svc) == 1 and not mapped_svc[0].running and not _threads()
