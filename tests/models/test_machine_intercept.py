"""KernelMachine(fit_intercept=True) and sample_weight (issue 21, item 3).

References: the closed form of kernel ridge with an unpenalised intercept (its
KKT system, and scikit-learn's KernelRidge on the centred kernel and target),
fits on rows repeated by integer weights, scikit-learn's LogisticRegression on a
linear kernel, and scipy.optimize's minimum of the same Huber objective.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

import kernelkit
from kernelkit.exceptions import InvalidParameterError
from kernelkit.gram import GramOperator
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelMachine, KernelMachineClassifier, KernelRidge
from kernelkit.solvers.losses import get_loss
from kernelkit.solvers.newton import lbfgs_dual
from kernelkit.solvers.newton_intercept import newton_intercept_dual


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + 5.0 + 0.1 * rng.normal(size=40)
    return X, y


def _kkt_solution(K, y, alpha):
    """min (alpha/2) u'Ku + 1/2 ||Ku + b - y||^2: (K + alpha I) u + b 1 = y, 1'u = 0."""
    n = len(y)
    A = np.block([[K + alpha * np.eye(n), np.ones((n, 1))], [np.ones((1, n)), np.zeros((1, 1))]])
    sol = np.linalg.solve(A, np.r_[y, 0.0])
    return sol[:n], sol[n]


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_squared_loss_intercept_is_the_closed_form(data, solver):
    X, y = data
    kernel, alpha = RBF(gamma=0.5), 0.3
    model = KernelMachine(kernel, alpha=alpha, fit_intercept=True, solver=solver,
                          tol=1e-10, max_iter=500).fit(X, y)
    K = kernel(X, X)
    u, b = _kkt_solution(K, y, alpha)
    tol = 1e-9 if solver == "newton" else 1e-5
    assert model.intercept_ == pytest.approx(b, abs=tol)
    np.testing.assert_allclose(model.dual_coef_, u, atol=tol * 10)
    X_new = np.random.default_rng(1).normal(size=(7, 2))
    np.testing.assert_allclose(model.predict(X_new), kernel(X_new, X) @ u + b, atol=tol * 10)
    # scikit-learn's KernelRidge on the centred kernel and target: the same fit
    H = np.eye(len(y)) - 1.0 / len(y)
    Kc = H @ K @ H
    ref = SkKernelRidge(alpha=alpha, kernel="precomputed").fit(Kc, y - y.mean())
    np.testing.assert_allclose(model.predict(X), ref.predict(Kc) + y.mean(), atol=tol * 10)


def test_default_has_no_intercept_and_is_kernel_ridge(data):
    X, y = data
    model = KernelMachine(RBF(gamma=0.5), alpha=0.3).fit(X, y)
    assert model.fit_intercept is False and model.intercept_ == 0.0
    ridge = KernelRidge(RBF(gamma=0.5), alpha=0.3, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(model.predict(X), ridge.predict(X), atol=1e-8)


@pytest.mark.parametrize("loss", ["squared", "huber"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_integer_weights_equal_repeated_rows_newton(data, loss, fit_intercept):
    X, y = data
    y = y.copy()
    y[:3] += 4.0  # outliers: Huber's linear pieces are used
    w = np.random.default_rng(2).integers(0, 4, size=len(y))
    rows = np.repeat(np.arange(len(y)), w)
    est = KernelMachine(RBF(gamma=0.5), loss=loss, alpha=0.2, solver="newton", tol=1e-12,
                        max_iter=200, fit_intercept=fit_intercept, epsilon=0.5)
    weighted = est.fit(X, y, sample_weight=w.astype(float))
    X_new = np.random.default_rng(3).normal(size=(9, 2))
    pred_w = weighted.predict(X_new)
    repeated = clone(est).fit(X[rows], y[rows])
    np.testing.assert_allclose(pred_w, repeated.predict(X_new), atol=1e-8)
    assert weighted.intercept_ == pytest.approx(repeated.intercept_, abs=1e-8)


def test_integer_weights_equal_repeated_rows_lbfgs_and_classifier(data):
    X, y = data
    w = np.random.default_rng(4).integers(1, 4, size=len(y))
    rows = np.repeat(np.arange(len(y)), w)
    X_new = np.random.default_rng(5).normal(size=(9, 2))
    est = KernelMachine(RBF(gamma=0.5), alpha=0.2, solver="lbfgs", tol=1e-10, max_iter=2000,
                        fit_intercept=True)
    a = est.fit(X, y, sample_weight=w).predict(X_new)
    b = clone(est).fit(X[rows], y[rows]).predict(X_new)
    np.testing.assert_allclose(a, b, atol=1e-5)
    labels = np.where(y > np.median(y), "hi", "lo")
    clf = KernelMachineClassifier(RBF(gamma=0.5), loss="logistic", alpha=0.2, tol=1e-12,
                                  fit_intercept=True)
    a = clf.fit(X, labels, sample_weight=w).decision_function(X_new)
    b = clone(clf).fit(X[rows], labels[rows]) \
        .decision_function(X_new)
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_logistic_intercept_is_scikit_learns_logistic_regression(data):
    X, y = data
    labels = (y > np.median(y)).astype(int)
    alpha = 0.5
    ours = KernelMachineClassifier(Linear(), loss="logistic", alpha=alpha, tol=1e-12,
                                   fit_intercept=True).fit(X, labels)
    ref = LogisticRegression(C=1.0 / alpha, tol=1e-12, max_iter=10_000).fit(X, labels)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-6)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_huber_intercept_is_the_brute_force_minimum(data):
    X, y = data
    y = y.copy()
    y[::7] += 6.0
    alpha, eps = 0.4, 0.3
    ours = KernelMachine(Linear(), loss="huber", epsilon=eps, alpha=alpha, fit_intercept=True,
                         solver="newton", tol=1e-12).fit(X, y)
    huber = get_loss("huber", eps)

    def objective(theta):  # (alpha/2)||w||^2 + sum huber(Xw + b - y), linear features
        w, b = theta[:-1], theta[-1]
        r = X @ w + b
        grad_f = huber.derivative(r, y)
        return (0.5 * alpha * w @ w + huber.value(r, y).sum(),
                np.r_[alpha * w + X.T @ grad_f, grad_f.sum()])

    res = minimize(objective, np.zeros(3), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10_000})
    w_ref, b_ref = res.x[:-1], res.x[-1]
    assert ours.intercept_ == pytest.approx(b_ref, abs=1e-6)
    np.testing.assert_allclose(ours.predict(X), X @ w_ref + b_ref, atol=1e-6)
    # the objective the model reports is the same minimum (divided by n)
    assert ours.objective_[0] == pytest.approx(res.fun / len(y), rel=1e-9)


def test_lbfgs_on_an_operator_with_intercept_matches_newton(data):
    X, y = data
    kernel = RBF(gamma=0.5)
    lam = 3.0 / len(y)
    newton = newton_intercept_dual(kernel(X, X), y, "huber", lam, tol=1e-12)
    # in u-space (K never stored) L-BFGS is conditioned like K^2: 120 steps reach
    # the objective to ~1e-6, not Newton's 1e-12
    operator = lbfgs_dual(GramOperator(kernel, X), y, get_loss("huber", 1.35), lam, tol=1e-9,
                          max_iter=120, fit_intercept=True)
    assert newton.converged
    assert operator.intercept == pytest.approx(newton.intercept, abs=1e-3)
    assert operator.objective == pytest.approx(newton.objective, rel=5e-6)
    assert operator.objective >= newton.objective * (1 - 1e-12)  # Newton's is the minimum


def test_multi_target_intercepts_and_plan(data):
    X, y = data
    Y = np.column_stack([y, -2.0 * y + 1.0])
    model = KernelMachine(RBF(gamma=0.5), alpha=0.3, fit_intercept=True).fit(X, Y)
    assert model.intercept_.shape == (2,)
    for j in range(2):
        single = KernelMachine(RBF(gamma=0.5), alpha=0.3, fit_intercept=True).fit(X, Y[:, j])
        np.testing.assert_allclose(model.predict(X)[:, j], single.predict(X), atol=1e-10)
    text = model.plan_.explain()
    assert "intercept" in text and "one Cholesky factorisation per step" in text


def test_intercept_refusals_say_what_to_do(data):
    X, y = data
    with pytest.raises(InvalidParameterError, match="fit_intercept=True.*newton.*lbfgs"):
        KernelMachine(fit_intercept=True, solver="sgd").fit(X, y)
    with pytest.raises(InvalidParameterError, match="hinge loss has no curvature.*squared_hinge"):
        KernelMachineClassifier(fit_intercept=True, loss="hinge").fit(X, y > 5)
    with pytest.raises(ValueError, match="[Nn]egative|sample_weight"):
        KernelMachine().fit(X, y, sample_weight=-np.ones(len(y)))


def test_intercept_saves_and_loads(data, tmp_path):
    X, y = data
    for model in (KernelMachine(RBF(gamma=0.5), alpha=0.3, fit_intercept=True).fit(X, y),
                  KernelMachineClassifier(RBF(gamma=0.5), loss="logistic", fit_intercept=True)
                  .fit(X, np.digitize(y, np.quantile(y, [0.33, 0.66])))):
        path = tmp_path / "m.kk"
        kernelkit.save(model, path)
        loaded = kernelkit.load(path)
        assert loaded.fit_intercept is True
        method = "predict" if isinstance(model, KernelMachine) else "decision_function"
        np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(model, method)(X))
