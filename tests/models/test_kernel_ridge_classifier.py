"""KernelRidgeClassifier against RidgeClassifier and KernelRidge on {-1, +1} targets."""

import numpy as np
import pytest
from sklearn.linear_model import RidgeClassifier

from kernelkit import KernelRidgeClassifier as TopLevel
from kernelkit import load, save
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge, KernelRidgeClassifier


def _blobs(n=150, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, 4)) + 2.0 * np.eye(k, 4)[y]
    return X, y, rng.normal(size=(40, 4)) + 1.0


@pytest.mark.parametrize("k", [2, 3])
def test_linear_kernel_equals_ridge_classifier_without_intercept(k):
    X, y, Xt = _blobs(k=k)
    ours = KernelRidgeClassifier("linear", alpha=2.0, solver="dual",
                                 fit_intercept=False).fit(X, y)
    ref = RidgeClassifier(alpha=2.0, fit_intercept=False, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt),
                               rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    np.testing.assert_array_equal(ours.classes_, ref.classes_)


def test_equals_kernel_ridge_on_plus_minus_one_targets_with_any_labels():
    X, y, Xt = _blobs(k=3)
    labels = np.array(["cat", "dog", "emu"])[y]
    clf = KernelRidgeClassifier(RBF(gamma=0.3), alpha=0.5).fit(X, labels)
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    reg = KernelRidge(RBF(gamma=0.3), alpha=0.5).fit(X, Y)
    scores = reg.predict(Xt)
    np.testing.assert_allclose(clf.decision_function(Xt), scores, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), np.array(["cat", "dog", "emu"])[
        scores.argmax(axis=1)])
    assert clf.dual_coef_.shape == (150, 3) and clf.solver_ == "dual"


def test_binary_has_one_column_and_predicts_the_sign():
    X, y, Xt = _blobs(k=2)
    clf = KernelRidgeClassifier(RBF(gamma=0.3), alpha=0.5).fit(X, np.array([-7, 9])[y])
    reg = KernelRidge(RBF(gamma=0.3), alpha=0.5).fit(X, np.where(y == 1, 1.0, -1.0))
    d = clf.decision_function(Xt)
    assert d.shape == (40,)
    np.testing.assert_allclose(d, reg.predict(Xt), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), np.where(d > 0, 9, -7))


def test_falkon_classifier_matches_falkon_ridge_and_learns():
    X, y, Xt = _blobs(n=400, k=3)
    kw = dict(alpha=0.1, solver="falkon", n_centers=80, random_state=0)
    clf = TopLevel(RBF(gamma=0.3), **kw).fit(X, y)
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    reg = KernelRidge(RBF(gamma=0.3), **kw).fit(X, Y)
    np.testing.assert_allclose(clf.decision_function(Xt), reg.predict(Xt), rtol=1e-10,
                               atol=1e-12)
    assert clf.centers_.shape == (80, 4) and clf.n_iter_ >= 1
    exact = KernelRidgeClassifier(RBF(gamma=0.3), alpha=0.1, solver="dual").fit(X, y)
    X2, y2, _ = _blobs(n=400, k=3, seed=1)  # held out
    assert clf.score(X2, y2) >= exact.score(X2, y2) - 0.03 and clf.score(X2, y2) > 0.8


def test_one_class_and_multioutput_are_refused():
    X, y, _ = _blobs()
    with pytest.raises(ValueError, match="one class"):
        KernelRidgeClassifier().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="1-D"):
        KernelRidgeClassifier().fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="alpha"):
        KernelRidgeClassifier(alpha=[1.0, 2.0]).fit(X, y)


@pytest.mark.parametrize("solver", ["dual", "falkon", "primal"])
def test_save_load_round_trip(tmp_path, solver):
    X, y, Xt = _blobs(k=3)
    kernel = "linear" if solver == "primal" else RBF(gamma=0.3)
    clf = KernelRidgeClassifier(kernel, alpha=0.5, solver=solver, n_centers=40,
                                random_state=0).fit(X, np.array(["a", "b", "c"])[y])
    save(clf, tmp_path / "c.kk")
    back = load(tmp_path / "c.kk")
    np.testing.assert_array_equal(back.classes_, clf.classes_)
    np.testing.assert_allclose(back.decision_function(Xt), clf.decision_function(Xt),
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(back.predict(Xt), clf.predict(Xt))
