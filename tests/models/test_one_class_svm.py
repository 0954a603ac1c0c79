"""KernelOneClassSVM against scikit-learn's OneClassSVM (libsvm) on real data, and its contract."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import OneClassSVM

import kernelkit
from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelOneClassSVM
from kernelkit.solvers.one_class import one_class_gram, one_class_kernel, one_class_start


@pytest.fixture(scope="module")
def banana():
    X, _ = load_banana(return_X_y=True)
    return X[:400], X[400:600]


@pytest.fixture(scope="module")
def cancer():
    X = load_breast_cancer().data
    X = (X - X.mean(0)) / X.std(0)
    return X[:300], X[300:]


def _assert_like_libsvm(kk, sk, X, Xt, kept=None):
    np.testing.assert_allclose(kk.decision_function(Xt), sk.decision_function(Xt), atol=1e-4)
    np.testing.assert_allclose(kk.score_samples(Xt), sk.score_samples(Xt), atol=1e-4)
    assert abs(kk.offset_ - float(sk.offset_[0])) < 1e-4
    assert abs(kk.intercept_[0] - sk.intercept_[0]) < 1e-4
    # scikit-learn's support_ indexes the samples of positive weight; ours all of X
    assert np.array_equal(kk.support_, sk.support_ if kept is None else kept[sk.support_])
    np.testing.assert_allclose(kk.support_vectors_, sk.support_vectors_)
    np.testing.assert_allclose(kk.dual_coef_, sk.dual_coef_, atol=1e-4)
    agree = np.mean(kk.predict(Xt) == sk.predict(Xt))
    assert agree >= 0.995


@pytest.mark.parametrize("nu", [0.05, 0.3, 0.9])
def test_equals_libsvm_rbf(banana, nu):
    X, Xt = banana
    sk = OneClassSVM(gamma=0.5, nu=nu, tol=1e-6).fit(X)
    kk = KernelOneClassSVM(RBF(gamma=0.5), nu=nu, tol=1e-6).fit(X)
    _assert_like_libsvm(kk, sk, X, Xt)
    np.testing.assert_array_equal(kk.n_support_, sk.n_support_)
    # nu bounds the fraction of training errors (f < 0; the free support vectors
    # sit on f = 0 up to tol) above and the fraction of support vectors below
    assert np.mean(kk.decision_function(X) < -1e-5) <= nu <= len(kk.support_) / len(X)


def test_equals_libsvm_polynomial_and_weights(cancer):
    X, Xt = cancer
    sk = OneClassSVM(kernel="poly", degree=2, gamma=0.1, coef0=1.0, nu=0.2, tol=1e-6).fit(X)
    kk = KernelOneClassSVM(Polynomial(degree=2, gamma=0.1, coef0=1.0), nu=0.2, tol=1e-6).fit(X)
    _assert_like_libsvm(kk, sk, X, Xt)
    w = np.random.default_rng(0).uniform(0.0, 2.0, len(X))
    w[:10] = 0.0  # weight 0: left out, as libsvm (scikit-learn's patch)
    sk = OneClassSVM(gamma=0.02, nu=0.3, tol=1e-6).fit(X, sample_weight=w)
    kk = KernelOneClassSVM(RBF(gamma=0.02), nu=0.3, tol=1e-6).fit(X, sample_weight=w)
    _assert_like_libsvm(kk, sk, X, Xt, kept=np.flatnonzero(w > 0))
    assert not np.isin(np.arange(10), kk.support_).any()


def test_precomputed_and_on_demand_rows_agree(cancer):
    X, Xt = cancer
    stored = KernelOneClassSVM(RBF(gamma=0.02), nu=0.3, tol=1e-8, cache=True).fit(X)
    rows = KernelOneClassSVM(RBF(gamma=0.02), nu=0.3, tol=1e-8, cache=False).fit(X)
    np.testing.assert_allclose(rows.decision_function(Xt), stored.decision_function(Xt),
                               atol=1e-6)
    assert [c.what for c in rows.plan_.choices][-1] == "kernel-row cache"
    pre = KernelOneClassSVM("precomputed", nu=0.3, tol=1e-8).fit(RBF(gamma=0.02)(X))
    np.testing.assert_allclose(pre.decision_function(RBF(gamma=0.02)(Xt, X)),
                               stored.decision_function(Xt), atol=1e-10)
    assert pre.support_vectors_ is None
    np.testing.assert_array_equal(pre.fit_predict(RBF(gamma=0.02)(X)), pre.predict(RBF(gamma=0.02)(X)))


def test_solver_start_and_optimality(cancer):
    X, _ = cancer
    # libsvm's starting point: floor(nu n) ones, then the fraction
    start = one_class_start(np.ones(10), 0.35)
    np.testing.assert_allclose(start, [1, 1, 1, 0.5, 0, 0, 0, 0, 0, 0])
    K = RBF(gamma=0.02)(X)
    a = one_class_gram(K, 0.3, tol=1e-10)
    b = one_class_kernel(RBF(gamma=0.02), X, 0.3, tol=1e-10, cache_bytes=8 * 300 * 70)
    np.testing.assert_allclose(a.alpha, b.alpha, atol=1e-9)
    assert a.converged and abs(a.alpha.sum() - 0.3 * len(X)) < 1e-9
    assert (a.alpha >= 0).all() and (a.alpha <= 1).all()
    # KKT of min 1/2 a'Ka, sum a = nu n, 0 <= a <= 1: (Ka)_i >= rho where a_i = 0,
    # <= rho where a_i = 1, = rho where free
    g = K @ a.alpha
    free = (a.alpha > 1e-12) & (a.alpha < 1 - 1e-12)
    assert np.abs(g[free] - a.rho).max() < 1e-8
    assert (g[a.alpha <= 0] >= a.rho - 1e-8).all() and (g[a.alpha >= 1] <= a.rho + 1e-8).all()
    assert abs(a.objective - 0.5 * a.alpha @ K @ a.alpha) < 1e-8


def test_convergence_warning_progress_and_errors(banana, capsys):
    X, _ = banana
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        m = KernelOneClassSVM(RBF(gamma=0.5), nu=0.3, max_iter=2).fit(X)
    assert m.max_violation_ > m.tol
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with kernelkit.config_context(verbosity=0):
            KernelOneClassSVM(RBF(gamma=0.5), nu=0.3, verbose=1).fit(X)
    assert "SMO (one-class SVM)" in capsys.readouterr().err
    with pytest.raises(ValueError, match="nu must be"):
        KernelOneClassSVM(nu=0.0).fit(X)
    with pytest.raises(ValueError, match="nu must be"):
        KernelOneClassSVM(nu=1.5).fit(X)
    with pytest.raises(ValueError, match="square"):
        KernelOneClassSVM("precomputed").fit(X)


def test_model_file_round_trip(banana, tmp_path):
    X, Xt = banana
    kk = KernelOneClassSVM(RBF(gamma=0.5), nu=0.1).fit(X)
    kernelkit.save(kk, tmp_path / "ocsvm.kk")
    again = kernelkit.load(tmp_path / "ocsvm.kk")
    np.testing.assert_array_equal(again.decision_function(Xt), kk.decision_function(Xt))
    assert again.offset_ == kk.offset_


def test_novelty_detection_example_runs(capsys, tmp_path):
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "novelty_detection.py"
    runpy.run_path(str(script), run_name="not_main")["main"](
        ["--quick", "--out", str(tmp_path / "novelty.png")])
    out = capsys.readouterr().out
    assert "one-class SVM (nu=0.05)" in out and "largest difference" in out
