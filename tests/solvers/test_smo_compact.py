"""SMO on a stored Gram matrix compacted to its active variables: the same steps.

When shrinking leaves few active variables, ``smo_gram`` copies their rows and
columns together (``_Compacted``) and runs the same loop there. The steps, their
order and the ties are unchanged, so every result must equal the uncompacted run
bit for bit, and the plain-numpy twin ``smo_ref`` to round-off.
"""

import warnings

import numpy as np
import pytest

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF
from kernelkit.solvers import smo
from kernelkit.solvers._reference import smo_ref
from kernelkit.solvers.smo import LazyGram, seed_alpha, smo_gram, smo_lazy_gram
from kernelkit.solvers.svr import svr_gram


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    X, y = X[:900], y[:900].astype(np.float64)
    return X, y, RBF(gamma=2.0)(X)


@pytest.fixture
def compactions(monkeypatch):
    """The sizes of the compacted problems built during a test."""
    sizes = []
    build = smo._Compacted.of.__func__

    def counted(cls, level, rows, active, *arrays):
        sizes.append(len(active))
        return build(cls, level, rows, active, *arrays)

    monkeypatch.setattr(smo._Compacted, "of", classmethod(counted))
    return sizes


def uncompacted(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(smo, "COMPACT_SHARE", 0.0)
        return fn()


@pytest.mark.parametrize("C", [5.0, 100.0])
def test_compacted_equals_uncompacted_and_twin(banana, compactions, monkeypatch, C):
    _, y, K = banana
    Cb = C * np.where(y > 0, 1.0, 1.5)
    r = smo_gram(K, y, Cb)
    assert compactions and min(compactions) < 0.5 * len(y)  # the path under test ran
    plain = uncompacted(monkeypatch, lambda: smo_gram(K, y, Cb))
    assert r.n_iter == plain.n_iter
    np.testing.assert_array_equal(r.alpha, plain.alpha)
    assert r.bias == plain.bias and r.max_violation == plain.max_violation
    twin = smo_ref(K, y, Cb)
    assert r.n_iter == twin.n_iter
    np.testing.assert_allclose(r.alpha, twin.alpha, rtol=0, atol=1e-10)


def test_compacted_warm_start_and_max_iter(banana, compactions, monkeypatch):
    _, y, K = banana
    start = seed_alpha(smo_gram(K, y, 10.0).alpha, 10.0, 100.0)
    compactions.clear()
    for kw in ({"alpha0": start}, {"alpha0": start, "max_iter": 3000}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = smo_gram(K, y, 100.0, **kw)
            plain = uncompacted(monkeypatch, lambda: smo_gram(K, y, 100.0, **kw))
        assert r.n_iter == plain.n_iter and r.converged == plain.converged
        np.testing.assert_array_equal(r.alpha, plain.alpha)
        assert r.bias == plain.bias
    assert compactions
    assert not r.converged and r.n_iter == 3000


def test_compacted_epsilon_svr_equals_uncompacted(banana, compactions, monkeypatch):
    _, y, K = banana  # a noisy target: thousands of steps, shrinking under way
    target = y + 0.3 * np.random.default_rng(0).normal(size=y.size)
    r = svr_gram(K, target, 10.0, 0.1)
    plain = uncompacted(monkeypatch, lambda: svr_gram(K, target, 10.0, 0.1))
    assert compactions
    assert r.n_iter == plain.n_iter
    np.testing.assert_array_equal(r.coef, plain.coef)



@pytest.mark.parametrize("rbf_gamma", [None, 2.0])
def test_rows_on_demand_compacted_equals_uncompacted(banana, compactions, monkeypatch,
                                                     rbf_gamma):
    X, y, _ = banana  # LazyGram: the active rows are computed before the copy
    Cb = 100.0 * np.where(y > 0, 1.0, 1.5)
    lazy = LazyGram(RBF(gamma=2.0), X, rbf_gamma=rbf_gamma)
    r = smo_lazy_gram(lazy, y, Cb)
    assert compactions
    plain = uncompacted(monkeypatch, lambda: smo_lazy_gram(
        LazyGram(RBF(gamma=2.0), X, rbf_gamma=rbf_gamma), y, Cb))
    assert r.n_iter == plain.n_iter
    np.testing.assert_array_equal(r.alpha, plain.alpha)
    assert r.bias == plain.bias


def test_no_compaction_without_room_beside_the_gram_matrix(compactions):
    from kernelkit import config_context

    X, y = load_banana(return_X_y=True)
    X, y = X[:3000], y[:3000].astype(np.float64)
    K = RBF(gamma=2.0)(X)
    top = smo.COMPACT_SHARE * len(y)
    copy = 8.0 * top * top * (1.0 + smo.COMPACT_SHARE ** 2)  # bytes of the largest copies
    assert 8 * 2**20 < copy < 16 * 2**20
    with config_context(memory=16 * 2**20):  # half of it: too small for the copies
        r = smo_gram(K, y, 10.0)
    assert compactions == []
    with config_context(memory=64 * 2**20):
        assert smo_gram(K, y, 10.0).n_iter == r.n_iter  # the same steps, compacted
    assert compactions
