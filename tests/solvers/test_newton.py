"""Newton (IRLS) and L-BFGS in u-space: closed forms, scikit-learn, each other."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.solvers.losses import get_loss
from kernelkit.solvers.newton import (lbfgs_dual, lbfgs_multinomial, multinomial_objective,
                                      newton_dual)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 4))
    y_reg = X[:, 0] + 0.1 * rng.normal(size=100)
    y_bin = np.where(X[:, 0] + 0.5 * rng.normal(size=100) > 0, 1.0, -1.0)
    y_3 = np.digitize(X[:, 0] + X[:, 1] + 0.3 * rng.normal(size=100), [-0.7, 0.7])
    return X, y_reg, y_bin, y_3


def test_squared_loss_is_closed_form_ridge(data):
    X, y, _, _ = data
    K = gram(RBF(gamma=0.2), X)
    n, lam = len(y), 0.01
    res = newton_dual(K, y, "squared", lam)
    exact = np.linalg.solve(K + n * lam * np.eye(n), y)
    np.testing.assert_allclose(res.coef, exact, rtol=1e-9, atol=1e-10)
    assert res.converged and res.n_iter <= 3


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_binary_logistic_matches_sklearn(data, C, solver):
    X, _, y, _ = data
    n = len(y)
    sk = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(X, y)
    fn = newton_dual if solver == "newton" else lbfgs_dual
    res = fn(X @ X.T, y, "logistic", 1.0 / (n * C))
    assert res.converged
    np.testing.assert_allclose(X.T @ res.coef, sk.coef_[0], atol=1e-5 * max(1, abs(sk.coef_).max()))


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_multinomial_matches_sklearn(data, C):
    X, _, _, y = data
    n = len(y)
    sk = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(X, y)
    res = lbfgs_multinomial(X @ X.T, np.eye(3)[y], 1.0 / (n * C))
    np.testing.assert_allclose((X.T @ res.coef).T, sk.coef_,
                               atol=1e-5 * max(1, abs(sk.coef_).max()))


@pytest.mark.parametrize("loss", ["huber", "squared_hinge", "logistic"])
def test_newton_and_lbfgs_reach_the_same_minimum(data, loss):
    X, y_reg, y_bin, _ = data
    y = y_reg if loss == "huber" else y_bin
    K = gram(RBF(gamma=0.2), X)
    lam = 0.005
    a = newton_dual(K, y, loss, lam)
    b = lbfgs_dual(K, y, loss, lam, tol=1e-10)
    assert a.converged
    assert a.objective <= b.objective + 1e-9
    assert b.objective - a.objective < 1e-5 * abs(a.objective)
    # Stationarity of Newton's answer: K (lam u + l'(Ku)/n) = 0.
    f = K @ a.coef
    grad = K @ (lam * a.coef + get_loss(loss).derivative(f, y) / len(y))
    assert np.max(np.abs(grad)) < 1e-8


def test_separable_data_stays_finite():
    # Separable data and almost no penalty: margins grow large; no overflow, no NaN.
    X = np.array([[-3.0], [-2.0], [-1.0], [1.0], [2.0], [3.0]])
    y = np.array([-1.0, -1, -1, 1, 1, 1])
    K = X @ X.T
    for res in (newton_dual(K, y, "logistic", 1e-10, max_iter=200),
                lbfgs_dual(K, y, "logistic", 1e-10)):
        assert np.isfinite(res.coef).all() and np.isfinite(res.objective)
        assert np.all(np.sign(K @ res.coef) == y)
    F = np.array([[1000.0, -1000.0, 0.0]])
    assert np.isfinite(multinomial_objective(F, np.array([[0.0, 1.0, 0.0]]), np.zeros((1, 3)),
                                             1.0))


class _Operator:
    """K behind matvec/matmat only (what a GramOperator offers), without its cost."""

    def __init__(self, K):
        self.K, self.shape = K, K.shape

    def matvec(self, v):
        return self.K @ v

    def matmat(self, V):
        return self.K @ V


def test_lbfgs_on_an_operator_that_never_stores_K(data):
    # u-space is conditioned like K^2: ~1000 iterations instead of ~15, same minimum.
    X, _, y, y3 = data
    K = gram(RBF(gamma=0.2), X)
    lam = 0.05
    a = lbfgs_dual(K, y, "logistic", lam, tol=1e-10)
    b = lbfgs_dual(_Operator(K), y, "logistic", lam, tol=1e-10)
    assert b.objective == pytest.approx(a.objective, rel=1e-7)
    Y = np.eye(3)[y3]
    a = lbfgs_multinomial(K, Y, lam, tol=1e-10)
    b = lbfgs_multinomial(_Operator(K), Y, lam, tol=1e-10)
    assert b.objective == pytest.approx(a.objective, rel=1e-7)
