"""New memory of solvers/buffers.py: populated mappings, rows mapped on demand, the
fallback to numpy's allocator, memory freed, and fits equal to the old allocation."""

import gc
import os

import numpy as np
import pytest

from kernelkit import _pages
from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC
from kernelkit.solvers import buffers
from kernelkit.solvers.ridge_mixed import dual_ridge_mixed

MB = 1 << 20
statm = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                           reason="resident memory is read from Linux's /proc/self/statm")
mapped = pytest.mark.skipif(_pages._MAP_POPULATE is None,
                            reason="no MAP_POPULATE on this system: numpy's allocator serves")


def _resident():
    """Bytes of this process in memory now (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(autouse=True)
def empty_pool():
    buffers.release()
    yield
    buffers.release()


@pytest.fixture
def old_allocation(monkeypatch):
    """The allocation before mappings: numpy's, without huge-page advice."""
    monkeypatch.setattr(_pages, "_MAP_POPULATE", None)


@pytest.mark.parametrize("shape, dtype", [(5 * MB // 8, np.float64), ((700, 900), np.float64),
                                          ((1500, 1200), np.float32), (3, np.float64),
                                          ((0, 4), np.float64)])
@pytest.mark.parametrize("populate", [True, False])
def test_fresh_empty_gives_writable_c_arrays_of_the_shape_and_dtype(shape, dtype, populate):
    a = buffers.fresh_empty(shape, dtype, populate=populate)
    assert a.shape == ((shape,) if np.ndim(shape) == 0 else shape)
    assert a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    a[...] = np.arange(a.size, dtype=dtype).reshape(a.shape)
    np.testing.assert_array_equal(a.ravel(), np.arange(a.size, dtype=dtype))
    large = a.nbytes >= buffers.MAPPED_MIN_BYTES and _pages._MAP_POPULATE is not None
    assert isinstance(a.base, _pages._Pages) is large


@mapped
def test_a_view_keeps_the_mapping_alive_after_its_array_is_dropped():
    a = buffers.fresh_empty((1024, 1024))
    a[:] = 3.0
    v = a[10:12]
    del a
    gc.collect()
    assert v.sum() == 3.0 * 2 * 1024  # still readable: the view holds the mapping


@statm
@mapped
def test_populated_memory_is_resident_at_once_and_freed_when_dropped():
    nbytes = 48 * MB
    before = _resident()
    a = buffers.fresh_empty(nbytes // 8, populate=True)  # not written
    assert _resident() - before > 0.9 * nbytes  # every page mapped by the allocation
    del a
    gc.collect()
    assert _resident() - before < 0.1 * nbytes
    for _ in range(12):  # allocate and drop in a loop: nothing accumulates
        b = buffers.fresh_empty(nbytes // 8, populate=True)
        b[::512] = 1.0
        del b
    gc.collect()
    assert _resident() - before < 0.5 * nbytes


@statm
@mapped
def test_unpopulated_memory_maps_only_the_rows_row_pages_asks_for():
    rows, width = 40, MB // 8  # rows of 1 MB
    before = _resident()
    a = buffers.fresh_empty((rows, width), populate=False)
    assert _resident() - before < 4 * MB  # nothing mapped yet
    pages = buffers.RowPages(a)
    assert pages.active
    pages.map_rows([3, 17, 30])
    pages.map(8)
    grown = _resident() - before
    if _pages._by_row["works"]:  # the kernel maps them (Linux >= 5.14)
        assert 3.9 * MB < grown < 8 * MB
    else:  # refused once: the pages fault as they are written, as numpy's
        assert grown < 4 * MB and not pages.active
    for i in (3, 8, 17, 30):  # written in place (no temporary copies)
        a[i] = 1.0
        assert a[i].sum() == width
    del a, pages
    gc.collect()
    assert _resident() - before < 2 * MB


@mapped
def test_row_pages_does_nothing_on_numpy_memory_or_a_pooled_buffer():
    assert not buffers.RowPages(np.empty((600, 1000))).active
    a, warm = buffers.borrow((600, 1000))
    assert not warm and buffers.RowPages(a).active  # new memory: mapped row by row
    buffers.give_back(a, max_bytes=10**8)
    b, warm = buffers.borrow((600, 1000))
    assert warm and not buffers.RowPages(b).active  # written once: mapping it costs
    buffers.RowPages(b).map(3)  # a no-op
    buffers.give_back(b, max_bytes=10**8)


def test_a_refused_mapping_falls_back_to_numpys_allocator(monkeypatch):
    class Refused(_pages._Pages):
        def __new__(cls, *args, **kwargs):
            raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(_pages, "_Pages", Refused)
    switch = _pages._set_hugepage
    setting = None if switch is None else switch(True)
    try:
        a = buffers.fresh_empty((800, 800))
        assert a.shape == (800, 800) and a.flags.writeable and a.flags.c_contiguous
        assert switch is None or switch(True) is True  # numpy's switch restored
        a[:] = 1.5
        assert a.sum() == 1.5 * 800 * 800
        assert not buffers.RowPages(a).active
    finally:
        if switch is not None:
            switch(setting)


def test_without_map_populate_numpys_allocator_serves(old_allocation):
    a, warm = buffers.borrow((900, 900), populate=True)
    assert not warm and a.base.base is None  # numpy's own memory, no mapping
    assert not buffers.RowPages(a).active


@mapped
def test_a_kernel_refusing_to_map_rows_is_asked_once_then_pages_fault(monkeypatch):
    monkeypatch.setitem(_pages._by_row, "works", True)
    monkeypatch.setattr(_pages, "_MADV_POPULATE_WRITE", 0x7fff)  # no such advice: EINVAL
    a = buffers.fresh_empty((600, 1000), populate=False)
    pages = buffers.RowPages(a)
    pages.map(5)  # refused, no error
    assert not _pages._by_row["works"] and not pages.active
    a[5] = 2.0
    assert a[5].sum() == 2000.0


def _svc_data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("cache", [True, False], ids=["gram-rows-on-demand", "row-cache"])
def test_svc_fit_on_mapped_memory_equals_the_fit_on_numpys(cache, monkeypatch):
    X, y = _svc_data(900)
    monkeypatch.setattr(_pages, "MAPPED_MIN_BYTES", 1)  # even these small buffers
    new = KernelSVC(RBF(gamma=0.5), C=2.0, cache=cache).fit(X, y)
    buffers.release()
    monkeypatch.setattr(_pages, "_MAP_POPULATE", None)
    old = KernelSVC(RBF(gamma=0.5), C=2.0, cache=cache).fit(X, y)
    if cache:
        assert any(c.what == "Gram matrix filled" and c.value == "rows on demand"
                   for c in new.plan_.choices)
    np.testing.assert_array_equal(new.dual_coef_, old.dual_coef_)
    np.testing.assert_array_equal(new.intercept_, old.intercept_)
    np.testing.assert_array_equal(new.support_, old.support_)


def test_mixed_ridge_on_populated_memory_equals_the_solve_on_numpys(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((1100, 5))  # its float32 K: 4.8 MB, a mapping of its own
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(1100)
    new = dual_ridge_mixed(RBF(gamma=0.3), X, y, 1e-2)
    monkeypatch.setattr(_pages, "_MAP_POPULATE", None)
    old = dual_ridge_mixed(RBF(gamma=0.3), X, y, 1e-2)
    np.testing.assert_array_equal(new.coef, old.coef)
    assert new.n_iter == old.n_iter and new.converged


@mapped
def test_the_stored_gram_operator_is_populated_memory_with_the_same_products():
    from kernelkit.gram import GramOperator

    rng = np.random.default_rng(3)
    X, C, V = rng.normal(size=(1500, 4)), rng.normal(size=(800, 4)), rng.normal(size=(800, 3))
    stored = GramOperator(RBF(gamma=0.3), X, C, cache=True)
    plain = GramOperator(RBF(gamma=0.3), X, C, cache=False)
    first = stored.matmat(V)  # fills K (1500 x 800 float64 = 9.6 MB: its own mapping)
    assert isinstance(stored._K.base, _pages._Pages)
    np.testing.assert_array_equal(first, plain.matmat(V))
    np.testing.assert_array_equal(stored.matmat(V), first)  # from the stored K
