"""Theory as code: the RKHS norm of fitted models, the generalisation bound of a
kernel class, the kitchen-sink oracle inequality. References: scikit-learn's
linear models (explicit w), brute-force double loops over closed-form kernels,
the closed forms of the bounds, and a Monte-Carlo Rademacher average."""

import math

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.svm import SVC

from kernelkit.diagnostics import (GeneralizationBound, KitchenSinksBound, generalization_bound,
                                   kitchen_sinks_bound, rkhs_norm)
from kernelkit.features import RandomFourierFeatures
from kernelkit.models import KernelMachine, KernelMachineClassifier, KernelRidge, KernelSVC


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=40)
    labels = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])  # three classes
    return X, y, labels


def _brute_norm(u, X, k):
    """sqrt(sum_ij u_i u_j k(x_i, x_j)) by a double loop."""
    total = 0.0
    for i in range(len(u)):
        for j in range(len(u)):
            total += u[i] * u[j] * k(X[i], X[j])
    return math.sqrt(max(total, 0.0))


def test_linear_kernel_ridge_norm_is_the_norm_of_ridge_weights(data):
    X, y, _ = data
    dual = KernelRidge("linear", alpha=0.5, solver="dual", fit_intercept=False).fit(X, y)
    ridge = Ridge(alpha=0.5, fit_intercept=False).fit(X, y)  # the same w, explicitly
    assert rkhs_norm(dual) == pytest.approx(np.linalg.norm(ridge.coef_), rel=1e-10)


def test_polynomial_dual_norm_equals_explicit_features_and_brute_force(data):
    X, y, _ = data
    kernel = "poly(degree=2, gamma=0.5, coef0=1)"
    dual = KernelRidge(kernel, alpha=0.3, solver="dual", fit_intercept=False).fit(X, y)
    primal = KernelRidge(kernel, alpha=0.3, solver="primal", fit_intercept=False).fit(X, y)
    brute = _brute_norm(dual.dual_coef_, X, lambda a, b: (0.5 * a @ b + 1.0) ** 2)
    assert rkhs_norm(dual) == pytest.approx(brute, rel=1e-10)
    assert rkhs_norm(primal) == pytest.approx(np.linalg.norm(primal.coef_), rel=1e-12)
    assert rkhs_norm(primal) == pytest.approx(brute, rel=1e-8)  # the same function


def test_kernel_machine_dual_and_primal(data):
    X, y, labels = data
    m = KernelMachine("rbf(gamma=0.2)", loss="huber", alpha=0.5).fit(X, y)
    assert m.representation_ == "dual"
    brute = _brute_norm(m.dual_coef_, X, lambda a, b: math.exp(-0.2 * ((a - b) ** 2).sum()))
    assert rkhs_norm(m) == pytest.approx(brute, rel=1e-10)
    clf = KernelMachineClassifier("rbf(gamma=0.2)", loss="logistic", alpha=0.5).fit(X, labels)
    norms = rkhs_norm(clf)  # one-vs-rest: one norm per class
    assert norms.shape == (3,)
    for c in range(3):
        assert norms[c] == pytest.approx(
            _brute_norm(clf.dual_coef_[:, c], X,
                        lambda a, b: math.exp(-0.2 * ((a - b) ** 2).sum())), rel=1e-10)
    w = KernelMachine("rbf(gamma=0.2)", solver="sgd", strategy="features_cached",
                      features=RandomFourierFeatures("rbf(gamma=0.2)", n_components=20,
                                                     random_state=0),
                      n_epochs=30, random_state=0).fit(X, y)
    assert rkhs_norm(w) == pytest.approx(math.sqrt(np.sum(w.coef_ ** 2)), rel=1e-12)


@pytest.mark.parametrize("binary", [True, False])
def test_svc_norm_per_binary_problem_equals_scikit_learn_linear_svc(data, binary):
    X, _, labels = data
    y = (labels > 0).astype(int) if binary else labels
    ours = KernelSVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    ref = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)  # coef_: one w per pair, (0,1), ...
    expected = np.linalg.norm(ref.coef_, axis=1)
    got = np.atleast_1d(rkhs_norm(ours))
    np.testing.assert_allclose(got, expected, rtol=2e-3)
    assert np.ndim(rkhs_norm(ours)) == (0 if binary else 1)


def test_falkon_and_precomputed(data):
    X, y, _ = data
    falkon = KernelRidge("rbf(gamma=0.2)", alpha=0.1, solver="falkon", n_centers=10,
                         random_state=0).fit(X, y)
    C = falkon.centers_
    brute = _brute_norm(falkon.dual_coef_, C, lambda a, b: math.exp(-0.2 * ((a - b) ** 2).sum()))
    assert rkhs_norm(falkon) == pytest.approx(brute, rel=1e-10)
    K = np.exp(-0.2 * ((X[:, None] - X[None]) ** 2).sum(-1))
    pre = KernelRidge("precomputed", alpha=0.1, fit_intercept=False).fit(K, y)
    with pytest.raises(ValueError, match="precomputed kernel: pass K"):
        rkhs_norm(pre)
    assert rkhs_norm(pre, K=K) == pytest.approx(
        math.sqrt(pre.dual_coef_ @ K @ pre.dual_coef_), rel=1e-12)
    with pytest.raises(ValueError, match="not fitted"):
        rkhs_norm(KernelRidge())


# ---- the generalisation bound of the class ||f|| <= B -----------------------------
def test_generalization_bound_terms_are_the_closed_forms(data):
    X, _, _ = data
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1)) * 2.0  # k(x, x) = 2
    n, B, L, delta = len(X), 3.0, 1.5, 0.1
    b = generalization_bound(K, B=B, delta=delta, lipschitz=L)
    assert isinstance(b, GeneralizationBound)
    assert b.complexity == pytest.approx(2 * L * B * math.sqrt(2.0 * n) / n, rel=1e-12)
    M = 2 * L * B * math.sqrt(2.0)
    assert b.loss_range == pytest.approx(M)
    assert b.confidence == pytest.approx(3 * M * math.sqrt(math.log(2 / delta) / (2 * n)))
    assert b.total == pytest.approx(b.complexity + b.confidence)
    given = generalization_bound(K, B=B, delta=delta, lipschitz=L, loss_range=1.0)
    assert given.confidence == pytest.approx(3 * math.sqrt(math.log(2 / delta) / (2 * n)))


def test_complexity_term_bounds_a_monte_carlo_rademacher_average(data):
    """sup_{||f|| <= B} (1/n) sum sigma_i f(x_i) = (B/n) sqrt(sigma'K sigma) exactly; its
    mean over sigma is below B sqrt(tr K)/n (Jensen), half the complexity term at L = 1."""
    X, _, _ = data
    K = np.exp(-0.3 * ((X[:, None] - X[None]) ** 2).sum(-1))
    n, B = len(X), 2.0
    sigma = np.random.default_rng(1).choice([-1.0, 1.0], size=(4000, n))
    monte_carlo = np.mean(B / n * np.sqrt(np.einsum("ri,ij,rj->r", sigma, K, sigma)))
    bound = generalization_bound(K, B=B).complexity / 2
    assert monte_carlo <= bound
    assert monte_carlo > 0.5 * bound  # and not vacuous by a large factor


def test_generalization_bound_of_a_model_uses_its_norm_and_diagonal(data):
    X, y, _ = data
    m = KernelRidge("rbf(gamma=0.2)", alpha=0.5, solver="dual").fit(X, y)
    b = generalization_bound(m, delta=0.05)
    assert b.B == pytest.approx(rkhs_norm(m)) and b.trace == pytest.approx(len(X))
    with pytest.raises(ValueError, match="B is needed"):
        generalization_bound(np.eye(3))
    with pytest.raises(ValueError, match="keeps no training inputs"):
        generalization_bound(KernelSVC().fit(X, y > 0), B=1.0)
    with pytest.raises(ValueError, match="delta"):
        generalization_bound(np.eye(3), B=1.0, delta=1.5)


# ---- the kitchen sinks -------------------------------------------------------------
def test_kitchen_sinks_bound_closed_form_and_scaling():
    n, q, C, L, delta = 2500.0, 400.0, 3.0, 1.0, 0.05
    t = kitchen_sinks_bound(n, q, C, L, delta, terms=True)
    assert isinstance(t, KitchenSinksBound)
    assert t.estimation == pytest.approx(
        4 * L * C / math.sqrt(n) * (1 + math.sqrt(math.log(2 / delta) / 2)), rel=1e-14)
    assert t.approximation == pytest.approx(
        L * C / math.sqrt(q) * (1 + math.sqrt(2 * math.log(1 / delta))), rel=1e-14)
    assert kitchen_sinks_bound(n, q, C, L, delta) == pytest.approx(t.total)
    # 1/sqrt(n) and 1/sqrt(q): four times the data halves the estimation term, ...
    assert kitchen_sinks_bound(4 * n, q, C, L, delta, terms=True).estimation == \
        pytest.approx(t.estimation / 2)
    assert kitchen_sinks_bound(n, 4 * q, C, L, delta, terms=True).approximation == \
        pytest.approx(t.approximation / 2)
    # ... and the bound is linear in L C
    assert kitchen_sinks_bound(n, q, 2 * C, 3 * L, delta) == pytest.approx(6 * t.total)
    curve = kitchen_sinks_bound(n, np.array([10, 100, 1000]), C, L, delta)
    assert curve.shape == (3,) and np.all(np.diff(curve) < 0)
    for bad in ({"n": 0}, {"q": -1}, {"C": np.inf}, {"delta": 0.0}):
        args = {**dict(n=n, q=q, C=C, lipschitz=L, delta=delta), **bad}
        with pytest.raises(ValueError):
            kitchen_sinks_bound(**args)
