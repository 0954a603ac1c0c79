"""The pool of warm buffers (solvers/buffers.py) and its use by KernelSVC's fits."""

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelkit import _pages
from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC
from kernelkit.solvers import buffers


@pytest.fixture(autouse=True)
def empty_pool():
    buffers.release()
    yield
    buffers.release()


def test_borrow_reuses_the_smallest_large_enough_buffer_by_identity():
    a, warm_a = buffers.borrow((30, 30))
    b, warm_b = buffers.borrow((10, 10))
    assert not warm_a and not warm_b
    a_base, b_base = a.base, b.base
    buffers.give_back(a, max_bytes=10**6)
    buffers.give_back(b, max_bytes=10**6)
    assert buffers.pooled_bytes() == a_base.nbytes + b_base.nbytes
    c, warm = buffers.borrow((5, 8))  # the small one fits: taken, the large one stays
    assert warm and c.base is b_base and c.shape == (5, 8) and c.flags.c_contiguous
    d, warm = buffers.borrow((20, 50))  # larger than the 30 x 30 one: new memory
    assert not warm and d.base is not a_base
    e, warm = buffers.borrow((30, 30))
    assert warm and e.base is a_base
    assert buffers.pooled_bytes() == 0  # all three lent out


def test_give_back_keeps_within_max_bytes_dropping_the_oldest():
    arrays = [buffers.borrow((100,))[0] for _ in range(3)]
    for a in arrays:
        buffers.give_back(a, max_bytes=2 * 800)
    assert buffers.pooled_bytes() == 1600
    kept, _ = buffers.borrow((100,))
    assert kept.base is arrays[2].base or kept.base is arrays[1].base
    buffers.give_back(np.empty(10))  # not from the pool: ignored
    assert buffers.pooled_bytes() == 800
    buffers.give_back(kept, max_bytes=100)  # a smaller limit: every buffer dropped
    assert buffers.pooled_bytes() == 0


def test_a_buffer_dropped_without_give_back_is_not_kept():
    a, _ = buffers.borrow((50,))
    del a
    buffers.give_back(buffers.borrow((10,))[0], max_bytes=10**6)
    assert buffers.pooled_bytes() == 80


def _data(n=300, k=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) if k == 2 else rng.integers(0, k, n)
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_svc_fits_on_a_warm_buffer_as_on_new_memory_and_says_so(n_classes):
    X, y = _data(k=n_classes)
    if n_classes == 3:
        y = np.digitize(X[:, 0] + 0.3 * X[:, 2], [-0.4, 0.4])
    kernel = RBF(gamma=0.5)
    first = KernelSVC(kernel, C=2.0).fit(X, y)
    # the pool is filled with garbage before the second fit: every entry is rewritten
    with buffers.warm_array((1,)) as (junk, warm):
        assert warm
        junk.base.fill(np.nan)
    second = KernelSVC(kernel, C=2.0).fit(X, y)
    ref = SVC(C=2.0, gamma=0.5, tol=1e-3).fit(X, y)
    buffer_choices = [c for c in first.plan_.choices if c.what.startswith("buffer of")]
    assert [c.value for c in buffer_choices] == ["new"]
    assert [c.value for c in second.plan_.choices if c.what.startswith("buffer of")] == \
        ["warm (reused)"]
    np.testing.assert_array_equal(first.dual_coef_, second.dual_coef_)
    np.testing.assert_array_equal(first.intercept_, second.intercept_)
    np.testing.assert_array_equal(second.predict(X), ref.predict(X))
    assert buffers.pooled_bytes() > 0  # given back after the fit


@pytest.mark.parametrize("advice", [True, False])
def test_fresh_empty_allocates_float64_and_restores_numpys_hugepage_switch(advice):
    switch = _pages._set_hugepage
    if switch is None:  # another numpy: a plain np.empty, nothing to restore
        assert buffers.fresh_empty((3, 4)).shape == (3, 4)
        return
    before = switch(advice)
    try:
        a = buffers.fresh_empty((300, 700))
        assert a.shape == (300, 700) and a.dtype == np.float64 and a.flags.c_contiguous
        assert switch(advice) is advice  # the caller's setting, untouched
        a[:] = 2.0  # writable memory of its own
        assert a.sum() == 2.0 * 300 * 700
    finally:
        switch(before)


def test_fresh_empty_without_numpys_switch_is_plain_empty(monkeypatch):
    monkeypatch.setattr(_pages, "_set_hugepage", None)
    a, warm = buffers.borrow((40, 50))
    assert not warm and a.shape == (40, 50) and a.dtype == np.float64


def test_fit_on_memory_without_hugepage_advice_equals_the_rows_on_demand_fit():
    # The Gram buffer (pool, fresh_empty) and the row cache (fresh_empty) hold the
    # same kernel values as rows computed on demand: same dual, same predictions.
    rng = np.random.default_rng(3)
    X = rng.standard_normal((150, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(150) > 0).astype(int)
    stored = KernelSVC(RBF(gamma=0.5), C=2.0, cache=True).fit(X, y)
    rows = KernelSVC(RBF(gamma=0.5), C=2.0, cache=False).fit(X, y)
    assert any(c.what.startswith("buffer of") and c.value == "new"
               for c in stored.plan_.choices)
    np.testing.assert_allclose(stored.dual_coef_, rows.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(stored.predict(X), rows.predict(X))
