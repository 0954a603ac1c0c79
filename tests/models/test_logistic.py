"""KernelLogisticRegression against scikit-learn's LogisticRegression (linear kernel)."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier

from kernelkit.kernels import RBF, Linear
from kernelkit.models.logistic import KernelLogisticRegression


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    s = X[:, 0] + 0.7 * X[:, 1] + 0.4 * rng.normal(size=150)
    return X, np.where(s > 0, "yes", "no"), np.array(["a", "b", "c"])[np.digitize(s, [-0.6, 0.6])]


def _sk(C, ovr=False):
    sk = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000)
    return OneVsRestClassifier(sk) if ovr else sk


@pytest.mark.parametrize("C", [0.05, 1.0, 30.0])
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_binary_matches_sklearn(data, C, solver):
    X, y, _ = data
    ours = KernelLogisticRegression(Linear(), C=C, solver=solver).fit(X, y)
    sk = _sk(C).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, sk.classes_)
    np.testing.assert_allclose(X.T @ ours.dual_coef_, sk.coef_[0], atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_multinomial_matches_sklearn(data, C):
    X, _, y = data
    ours = KernelLogisticRegression(Linear(), C=C).fit(X, y)
    sk = _sk(C).fit(X, y)
    assert ours.multi_class_ == "multinomial"
    np.testing.assert_allclose((X.T @ ours.dual_coef_).T, sk.coef_, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.predict_log_proba(X), sk.predict_log_proba(X), atol=1e-5)


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_ovr_matches_sklearn(data, solver):
    X, _, y = data
    ours = KernelLogisticRegression(Linear(), C=2.0, multi_class="ovr", solver=solver).fit(X, y)
    sk = _sk(2.0, ovr=True).fit(X, y)
    W = np.column_stack([e.coef_[0] for e in sk.estimators_])
    np.testing.assert_allclose(X.T @ ours.dual_coef_, W, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)


def test_sgd_solver_approximates(data):
    X, y, _ = data
    exact = KernelLogisticRegression(RBF(gamma=0.3), C=1.0).fit(X, y).predict_proba(X)
    sgd = KernelLogisticRegression(RBF(gamma=0.3), C=1.0, solver="sgd", n_epochs=20,
                                   random_state=0).fit(X, y)
    assert sgd.solver_ == "sgd"
    assert np.max(np.abs(sgd.predict_proba(X) - exact)) < 0.05


def test_large_margins_are_safe():
    X = np.array([[-50.0], [-40.0], [40.0], [50.0]])
    y = np.array([0, 0, 1, 1])
    m = KernelLogisticRegression(Linear(), C=1e6).fit(X, y)
    Xt = np.array([[-1e4], [1e4], [0.0]])
    P, L = m.predict_proba(Xt), m.predict_log_proba(Xt)
    assert np.isfinite(P).all() and np.isfinite(L).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert L[0, 1] < -100 and L[1, 0] < -100  # not clipped to log(0) = -inf
    m3 = KernelLogisticRegression(Linear(), C=1e6).fit(
        np.array([[-50.0], [0.0], [50.0], [-49.0], [1.0], [49.0]]), [0, 1, 2, 0, 1, 2])
    assert np.isfinite(m3.predict_log_proba(Xt)).all()


@pytest.mark.parametrize("kw,match", [
    (dict(C=0.0), "C must be a number > 0"), (dict(C=-1.0), "C must be a number > 0"),
    (dict(solver="saga"), "solver must be"), (dict(multi_class="crammer"), "multi_class"),
    (dict(strategy="fast"), "strategy must be"),
])
def test_parameter_errors(data, kw, match):
    X, y, _ = data
    with pytest.raises(ValueError, match=match):
        KernelLogisticRegression(**kw).fit(X, y)


def test_one_class_and_multinomial_solver_errors(data):
    X, y, y3 = data
    with pytest.raises(ValueError, match="only one class"):
        KernelLogisticRegression().fit(X, np.full(len(X), "yes"))
    with pytest.raises(ValueError, match="needs solver='lbfgs'"):
        KernelLogisticRegression(solver="newton").fit(X, y3)
