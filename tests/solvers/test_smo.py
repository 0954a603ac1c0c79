"""SMO: compiled loop vs its numpy twin, KKT conditions, the row-cache path, libsvm."""

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF, Sigmoid
from kernelkit.solvers._reference import smo_ref
from kernelkit.solvers.smo import smo_gram, smo_kernel


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    X, y = X[:400], y[:400].astype(np.float64)
    return X, y, RBF(gamma=1.0)(X)


def kkt_violation(K, y, C, res):
    """Largest violation of the KKT conditions of the dual (in margin units)."""
    a = res.alpha
    m = y * (K @ (a * y) + res.bias)  # y_i f(x_i)
    low, up = a <= 0, a >= C
    free = ~low & ~up
    v = np.concatenate([np.maximum(0, 1 - m[low]),     # a = 0 -> y f >= 1
                        np.maximum(0, m[up] - 1),      # a = C -> y f <= 1
                        np.abs(m[free] - 1)])          # free  -> y f = 1
    return v.max()


@pytest.mark.parametrize("C", [0.5, 20.0])
@pytest.mark.parametrize("shrinking", [True, False])
def test_compiled_equals_twin(banana, C, shrinking):
    X, y, K = banana
    Cb = C * np.where(y > 0, 1.0, 2.0)  # per-sample bounds
    r = smo_gram(K, y, Cb, shrinking=shrinking)
    t = smo_ref(K, y, Cb, shrinking=shrinking)
    assert r.n_iter == t.n_iter
    np.testing.assert_allclose(r.alpha, t.alpha, rtol=0, atol=1e-12)
    assert r.bias == pytest.approx(t.bias, abs=1e-12)
    assert r.converged and t.converged


@pytest.mark.parametrize("C", [1.0, 50.0])
def test_kkt_constraints_and_gap(banana, C):
    X, y, K = banana
    r = smo_gram(K, y, C, tol=1e-4)
    assert r.converged and r.max_violation < 1e-4
    assert abs(r.alpha @ y) < 1e-9 * max(1.0, r.alpha.sum())   # equality constraint
    assert r.alpha.min() >= 0 and r.alpha.max() <= C             # box
    # libsvm's stopping rule bounds every KKT violation by about tol
    assert kkt_violation(K, y, C, r) < 2e-4
    # weak duality, and a small gap at a near-optimal point
    assert r.duality_gap >= -1e-9
    assert r.duality_gap <= 1e-3 * r.dual_objective
    aQa = (r.alpha * y) @ K @ (r.alpha * y)
    assert r.dual_objective == pytest.approx(r.alpha.sum() - 0.5 * aQa, rel=1e-10)


def test_against_libsvm(banana):
    X, y, K = banana
    r = smo_gram(K, y, 5.0)
    sk = SVC(C=5.0, gamma=1.0).fit(X, y)
    a = np.zeros(len(y))
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    d_sk = a.sum() - 0.5 * (a * y) @ K @ (a * y)
    assert r.dual_objective == pytest.approx(d_sk, rel=1e-4)
    # same support set up to a few borderline points
    assert len(np.setxor1d(np.flatnonzero(r.alpha), sk.support_)) <= 3
    assert r.bias == pytest.approx(sk.intercept_[0], abs=5e-3)


def test_row_cache_path_agrees(banana):
    X, y, K = banana
    kernel = RBF(gamma=1.0)
    ref = smo_gram(K, y, 10.0)
    # 40 rows of 400 in the cache: many misses, evictions, gradient reconstructions
    r = smo_kernel(kernel, X, y, 10.0, cache_bytes=40 * 400 * 8, batch=8)
    assert r.converged
    assert r.dual_objective == pytest.approx(ref.dual_objective, rel=1e-5)
    assert kkt_violation(K, y, 10.0, r) < 2e-3
    full = smo_kernel(kernel, X, y, 10.0)  # everything fits: no eviction
    assert full.dual_objective == pytest.approx(ref.dual_objective, rel=1e-5)


def test_indefinite_kernel_makes_progress(banana):
    X, y, _ = banana
    K = Sigmoid(gamma=0.5, coef0=-1.0)(X)  # not PSD: tau replaces non-positive curvature
    r = smo_gram(K, y, 1.0, max_iter=20000)
    t = smo_ref(K, y, 1.0, max_iter=20000)
    np.testing.assert_allclose(r.alpha, t.alpha, atol=1e-12)
    assert r.alpha.min() >= 0 and r.alpha.max() <= 1.0 and abs(r.alpha @ y) < 1e-9


def test_max_iter_stops(banana):
    X, y, K = banana
    r = smo_gram(K, y, 10.0, max_iter=5)
    assert r.n_iter == 5 and not r.converged and r.max_violation > 1e-3
