"""The memory budget honoured by every SMO estimator (issue 23): under a small
budget KernelSVR, KernelOneClassSVM and KernelSVC plan rows on demand (recorded
in ``plan_``), stay within a small multiple of the budget (tracemalloc peak), and
predict as the unbudgeted fit with a stored Gram matrix; a forced ``cache=True``
that cannot fit raises MemoryBudgetError before allocating."""

import tracemalloc

import numpy as np
import pytest

from kernelkit import MemoryBudgetError, config_context
from kernelkit.kernels import RBF
from kernelkit.models import KernelOneClassSVM, KernelSVC, KernelSVR
from kernelkit.solvers import smo
from kernelkit.solvers.svr import svr_gram, svr_kernel

BUDGET = 16 * 2**20
N = 1600  # its Gram matrix (20 MB; SVR's doubled one 82 MB) exceeds half the budget


def _data(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=n)


CASES = {
    "svr": (lambda cache: KernelSVR(RBF(gamma=0.5), C=1.0, epsilon=0.3, tol=1e-10, cache=cache),
            lambda X, y: (X, y)),
    "one-class": (lambda cache: KernelOneClassSVM(RBF(gamma=0.5), nu=0.05, tol=1e-10,
                                                  cache=cache), lambda X, y: (X,)),
    "svc": (lambda cache: KernelSVC(RBF(gamma=0.5), C=1.0, tol=1e-10, cache=cache),
            lambda X, y: (X, y > 0)),
}


def _output(est, X):
    return est.predict(X) if not isinstance(est, KernelOneClassSVM) else est.decision_function(X)


@pytest.mark.parametrize("name", list(CASES))
def test_rows_on_demand_within_the_budget_predict_as_the_stored_gram(name):
    make, args = CASES[name]
    X, y = _data()
    X_small, y_small = _data(60, seed=1)
    make("auto").fit(*args(X_small, y_small))  # imports and compiles outside the measure
    tracemalloc.start()
    try:
        with config_context(memory=BUDGET):
            budgeted = make("auto").fit(*args(X, y))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    store = [c for c in budgeted.plan_.choices if c.what.startswith("store")]
    assert [c.value for c in store] == [False]
    assert "kernel-row cache" in budgeted.plan_.explain()
    assert peak < 1.5 * BUDGET, f"peak {peak / 2**20:.1f} MB"
    with config_context(memory="4GB"):
        stored = make(True).fit(*args(X, y))
    assert stored.plan_.choices[0].value is True
    X_test = _data(200, seed=2)[0]
    np.testing.assert_allclose(_output(budgeted, X_test), _output(stored, X_test),
                               rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", list(CASES))
def test_a_forced_store_over_the_budget_is_refused_before_allocating(name):
    make, args = CASES[name]
    X, y = _data(3000)
    tracemalloc.start()
    try:
        with config_context(memory=BUDGET), pytest.raises(MemoryBudgetError,
                                                          match="cache='auto'"):
            make(True).fit(*args(X, y))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20


def test_svr_rows_on_demand_share_the_twin_rows_and_match_the_stored_solver():
    X, y = _data(300)
    kernel, C = RBF(gamma=0.5), np.full(300, 2.0)
    caches = []

    class Counting(smo._RowCache):  # what the twin cache saves: rows computed
        def __init__(self, *a):
            super().__init__(*a)
            caches.append(self)

    K = kernel(X)

    def f(res):  # the fitted function (unique; the dual coefficients need not be)
        return K @ res.coef + res.bias

    stored = svr_gram(K, y, C, 0.1, tol=1e-10)
    twin = svr_kernel(kernel, X, y, C, 0.1, tol=1e-10, cache_bytes=200_000)
    np.testing.assert_allclose(f(twin), f(stored), rtol=0, atol=1e-8)
    # a plain cache of the doubled rows (each kernel row cached twice) as reference
    import kernelkit.solvers.svr as svr_module

    source_of = svr_module.row_source

    def plain(rows, cache_bytes, batch, cache_class=None):
        return source_of(rows, cache_bytes, batch, cache_class=Counting)

    svr_module.row_source = plain
    try:
        reference = svr_kernel(kernel, X, y, C, 0.1, tol=1e-10, cache_bytes=200_000)
    finally:
        svr_module.row_source = source_of
    np.testing.assert_allclose(f(reference), f(stored), rtol=0, atol=1e-8)
    assert caches and type(caches[0]) is Counting and caches[0].n_computed > 0


def test_smo_gradient_blocks_follow_the_budget(monkeypatch):
    seen = []
    real = smo.rows_per_block

    def spy(n_cols, *args, **kwargs):
        seen.append(kwargs.get("memory"))
        return real(n_cols, *args, **kwargs)

    monkeypatch.setattr(smo, "rows_per_block", spy)
    X, y = _data(400)
    with config_context(memory=BUDGET):
        KernelSVR(RBF(gamma=0.5), C=1.0, cache=False).fit(X, y)
        # the fit's rebuilds read the support vectors' cached rows; uncached ones are
        # computed in blocks:
        from kernelkit.gram import KernelRows
        cache, _ = smo.row_source(KernelRows(RBF(gamma=0.5), X), 10 * 400 * 8, batch=1)
        cache.dot(np.arange(400), np.arange(0, 400, 7), np.ones(58))
    assert seen and all(m is None for m in seen)  # None: the budget's block share
