"""SMO on a Gram matrix filled row by row as it asks (solvers.smo.LazyGram, _rbf_rows)."""

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelkit.gram import gram
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelSVC
from kernelkit.planning.machines import ROWS_ON_DEMAND_MAX_FEATURES, rows_on_demand_choice
from kernelkit.solvers import buffers
from kernelkit.models.svm import one_pass_rbf_gamma
from kernelkit.solvers._rbf_rows import rbf_exponent_row
from kernelkit.solvers._reference import rbf_exponent_row_ref
from kernelkit.solvers.smo import LazyGram, smo_gram, smo_lazy_gram


def _data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) + 3.0  # off-centre: the engine centres
    y = np.where(X[:, 0] * X[:, 1] - 9.0 + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def test_compiled_row_pass_equals_its_numpy_twin_and_brute_force():
    X, _ = _data(50, 4)
    Xc = X - X.mean(axis=0)
    XT, sq = np.ascontiguousarray(Xc.T), np.einsum("ij,ij->i", Xc, Xc)
    for i in (0, 17, 49):
        a, b = np.empty(50), np.empty(50)
        rbf_exponent_row(XT, sq, 0.3, i, a)
        rbf_exponent_row_ref(XT, sq, 0.3, i, b)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
        brute = -0.3 * np.array([np.sum((X[i] - x) ** 2) for x in X])
        np.testing.assert_allclose(a, brute, rtol=1e-12, atol=1e-12)
        assert a[i] <= 0.0 and abs(a[i]) < 1e-12  # clamped at 0 distance, never positive


def test_lazy_gram_rows_equal_the_gram_matrix_and_only_asked_rows_are_computed():
    X, y = _data(400, 3)
    k = RBF(gamma=0.4)
    K = gram(k, X)
    lazy = LazyGram(k, X, rbf_gamma=0.4)
    assert lazy.engine == "rbf rows"
    r_lazy = smo_lazy_gram(lazy, y, 1.0)
    r_full = smo_gram(K, y, 1.0)
    done = lazy.slot_of >= 0
    assert 0 < lazy.n_computed == done.sum() < len(X)
    # stored in the order first asked: the first n_computed rows of the buffer
    np.testing.assert_array_equal(np.sort(lazy.slot_of[done]), np.arange(lazy.n_computed))
    stored = lazy.rows[lazy.slot_of[done]]
    np.testing.assert_allclose(stored, K[done], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(np.diag(stored[:, done]), 1.0)
    assert r_lazy.n_iter == r_full.n_iter
    np.testing.assert_allclose(r_lazy.alpha, r_full.alpha, rtol=0, atol=1e-10)
    assert r_lazy.dual_objective == pytest.approx(r_full.dual_objective, rel=1e-12)


def test_lazy_gram_of_other_kernels_reads_kernel_rows():
    X, y = _data(200, 3)
    k = Polynomial(degree=2, gamma=0.5)
    lazy = LazyGram(k, X, buffer=np.empty((200, 200)))
    assert lazy.engine == "kernel rows"
    r = smo_lazy_gram(lazy, y, 1.0)
    done = lazy.slot_of >= 0
    np.testing.assert_allclose(lazy.rows[lazy.slot_of[done]], gram(k, X)[done], rtol=1e-12,
                               atol=1e-12)
    assert r.dual_objective == pytest.approx(smo_gram(gram(k, X), y, 1.0).dual_objective,
                                             rel=1e-6)


def test_one_pass_rows_only_for_isotropic_rbf_on_dense_float64():
    X, _ = _data(10, 3)
    assert one_pass_rbf_gamma(RBF(gamma=1.5), X) == 1.5
    assert one_pass_rbf_gamma(RBF(length_scale=[1.0, 2.0, 3.0]), X) is None
    assert one_pass_rbf_gamma(Polynomial(degree=2), X) is None
    assert one_pass_rbf_gamma(RBF(gamma=1.0), X.astype(np.float32)) is None


def test_rows_on_demand_choice_by_features_and_kernel():
    assert rows_on_demand_choice(10_000, 14).value == "rows on demand"
    assert rows_on_demand_choice(10_000, ROWS_ON_DEMAND_MAX_FEATURES + 1).value == "whole"
    assert rows_on_demand_choice(10_000, 14, one_pass_rows=False).value == "whole"


@pytest.mark.parametrize("multiclass", ["ovr", None])
def test_svc_fills_its_gram_on_demand_at_small_d_as_libsvm(multiclass):
    buffers.release()
    X, y = _data(300, 4, seed=2)
    if multiclass:  # three classes, one-vs-rest: the problems share the rows computed
        y = np.digitize(X[:, 0] + X[:, 1], [5.5, 6.5])
    kw = {"multiclass": multiclass} if multiclass else {}
    ours = KernelSVC(RBF(gamma=0.3), C=2.0, **kw).fit(X, y)
    filled = [c for c in ours.plan_.choices if c.what == "Gram matrix filled"]
    assert filled and filled[0].value == "rows on demand"
    whole = KernelSVC(RBF(gamma=0.3), C=2.0, cache=True, **kw)
    whole._lazy_choice = lambda *args: False  # the whole-matrix path, for reference
    whole.fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_, whole.dual_coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_, whole.intercept_, rtol=0, atol=1e-9)
    if not multiclass:
        sk = SVC(C=2.0, gamma=0.3).fit(X, y)
        np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
        np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=2e-3)


def test_svc_at_large_d_computes_the_whole_gram():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, ROWS_ON_DEMAND_MAX_FEATURES + 1))
    y = (X[:, 0] > 0).astype(int)
    m = KernelSVC(RBF(gamma=0.05), C=1.0).fit(X, y)
    filled = [c for c in m.plan_.choices if c.what == "Gram matrix filled"]
    assert filled and filled[0].value == "whole"


@pytest.mark.parametrize("n_rows", [5, 150])  # a few rows (gathered) or most (streamed)
def test_lazy_gram_rebuild_product_computes_missing_rows(n_rows):
    X, _ = _data(200, 3)
    k = RBF(gamma=0.7)
    K = gram(k, X)
    lazy = LazyGram(k, X, rbf_gamma=0.7)
    lazy.fetch(3)
    rng = np.random.default_rng(5)
    rows = np.sort(rng.choice(200, n_rows, replace=False))
    cols = np.array([3, 10, 77, 150])
    v = rng.standard_normal(4)
    np.testing.assert_allclose(lazy.dot(rows, cols, v), K[np.ix_(rows, cols)] @ v,
                               rtol=1e-12, atol=1e-12)
    assert lazy.n_computed == 4 and lazy.slot_of[3] == 0
    np.testing.assert_array_equal(np.sort(lazy.slot_of[cols]), np.arange(4))
