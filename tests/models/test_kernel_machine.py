"""KernelMachine / KernelMachineClassifier: equivalences, the four strategies, errors."""

import numpy as np
import pytest

from kernelkit.datasets import load_cpu_act
from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelRidge
from kernelkit.models.kernel_machine import KernelMachine, KernelMachineClassifier
from kernelkit.planning import STRATEGIES


@pytest.fixture(scope="module")
def cpu():
    X, y = load_cpu_act(return_X_y=True)
    idx = np.random.default_rng(0).permutation(len(X))[:400]
    X, y = X[idx][:, :6], y[idx]
    X = (X - X.mean(0)) / X.std(0)
    return X, (y - y.mean()) / y.std()


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_squared_loss_is_kernel_ridge(cpu, solver):
    X, y = cpu
    a = KernelMachine(RBF(gamma=0.1), alpha=0.5, solver=solver, tol=1e-10).fit(X, y)
    b = KernelRidge(RBF(gamma=0.1), alpha=0.5, solver="dual").fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=0, atol=1e-6)
    if solver == "newton":
        np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-8, atol=1e-10)


def test_multi_output_regression(cpu):
    X, y = cpu
    Y = np.column_stack([y, -2 * y])
    a = KernelMachine(RBF(gamma=0.1), alpha=0.5, solver="newton").fit(X, Y)
    b = KernelRidge(RBF(gamma=0.1), alpha=0.5).fit(X, Y)
    assert a.dual_coef_.shape == (len(X), 2)
    np.testing.assert_allclose(a.predict(X[:20]), b.predict(X[:20]), atol=1e-8)


@pytest.mark.parametrize("est,y_kind", [
    (KernelMachine(loss="squared"), "reg"), (KernelMachine(loss="huber"), "reg"),
    (KernelMachineClassifier(loss="hinge"), "cls"),
    (KernelMachineClassifier(loss="logistic"), "cls"),
    (KernelMachineClassifier(loss="squared_hinge"), "cls"),
])
def test_four_strategies_same_model_through_the_estimator(cpu, est, y_kind):
    X, y = cpu
    X = X[:200, :4]
    y = y[:200] if y_kind == "reg" else np.where(y[:200] > 0, "high", "low")
    preds = {}
    for strategy in STRATEGIES:
        m = est.set_params(kernel=Polynomial(degree=2, gamma=0.3), alpha=1.0, solver="sgd",
                           strategy=strategy, n_epochs=3, random_state=4).fit(X, y)
        assert m.strategy_ == strategy
        assert m.representation_ == ("primal" if strategy.startswith("features") else "dual")
        preds[strategy] = m.predict(X) if y_kind == "reg" else m.decision_function(X)
    ref = preds["gram_cached"]
    for strategy, p in preds.items():
        assert np.max(np.abs(p - ref)) <= 1e-10 * np.max(np.abs(ref)), strategy


def test_auto_strategy_keeps_the_plan(cpu):
    X, y = cpu
    m = KernelMachine(Polynomial(degree=2), alpha=1.0, solver="sgd", random_state=0).fit(X, y)
    assert m.plan_.choice == m.strategy_ and m.strategy_ in STRATEGIES
    assert "choice:" in m.plan_.explain()
    m = KernelMachine(RBF(gamma=0.1), alpha=1.0, solver="sgd", random_state=0).fit(X, y)
    assert m.strategy_ in ("kernel_on_the_fly", "gram_cached")


def test_sgd_gets_close_to_the_exact_solution(cpu):
    X, y = cpu
    exact = KernelMachine(RBF(gamma=0.1), alpha=20.0, solver="newton").fit(X, y).predict(X)
    sgd = KernelMachine(RBF(gamma=0.1), alpha=20.0, solver="sgd", n_epochs=30, average=400,
                        random_state=0).fit(X, y).predict(X)
    assert np.max(np.abs(sgd - exact)) < 0.05 * np.max(np.abs(exact))


def test_huber_is_robust_to_an_outlier():
    rng = np.random.default_rng(1)
    X = np.sort(rng.uniform(-2, 2, size=(80, 1)), axis=0)
    y = np.sin(X[:, 0])
    y_bad = y.copy()
    y_bad[40] += 30.0
    kw = dict(kernel=RBF(gamma=1.0), alpha=0.1, solver="newton")
    sq = KernelMachine(loss="squared", **kw).fit(X, y_bad).predict(X)
    hub = KernelMachine(loss="huber", epsilon=0.5, **kw).fit(X, y_bad).predict(X)
    near = np.abs(X[:, 0] - X[40, 0]) < 0.5
    assert np.max(np.abs(hub - y)[near]) < 0.3 * np.max(np.abs(sq - y)[near])


def test_classifier_labels_and_multiclass(cpu):
    X, y = cpu
    labels = np.array(["low", "mid", "high"])[np.digitize(y, [-0.3, 0.3])]
    m = KernelMachineClassifier(RBF(gamma=0.2), loss="logistic", alpha=0.01).fit(X, labels)
    assert set(m.classes_) == {"low", "mid", "high"}
    assert m.decision_function(X).shape == (len(X), 3)
    assert m.score(X, labels) > 0.8
    m = KernelMachineClassifier(RBF(gamma=0.2), alpha=0.01, random_state=0).fit(X, y > 0)
    assert m.decision_function(X).shape == (len(X),)
    assert m.predict(X).dtype == bool and m.score(X, y > 0) > 0.85


def test_any_transformer_as_features(cpu):
    # A transformer without n_components_ (scikit-learn's PolynomialFeatures): the
    # planner is told its output dimension, and SGD runs on its features.
    from sklearn.preprocessing import PolynomialFeatures

    X, y = cpu
    m = KernelMachine(Polynomial(degree=2, gamma=1.0), solver="sgd", features=PolynomialFeatures(2),
                      random_state=0).fit(X, y)
    assert m.plan_.problem["D"] == 28 and m.representation_ == "primal"
    assert m.strategy_ in STRATEGIES and np.isfinite(m.predict(X)).all()


def test_explicit_features_argument(cpu):
    X, y = cpu
    k = Polynomial(degree=2, gamma=0.3)
    a = KernelMachine(k, solver="sgd", strategy="features_cached",
                      features=ExplicitFeatures(k), random_state=0).fit(X, y)
    b = KernelMachine(k, solver="sgd", strategy="features_cached", random_state=0).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)


@pytest.mark.parametrize("est,match", [
    (KernelMachine(loss="hinge"), "KernelMachineClassifier"),
    (KernelMachineClassifier(loss="squared"), "loss must be one of"),
    (KernelMachine(loss="cubic"), "loss must be one of"),
    (KernelMachine(alpha=0.0), "alpha must be"),
    (KernelMachine(solver="cg"), "solver must be"),
    (KernelMachine(strategy="fast"), "strategy must be"),
    (KernelMachine(loss="huber", epsilon=-1.0), "epsilon"),
    (KernelMachineClassifier(loss="hinge", solver="newton"), "the hinge loss has none"),
    (KernelMachine(kernel="precomputed"), "precomputed"),
    (KernelMachine(n_epochs=0), "n_epochs must be an integer >= 1"),
    (KernelMachine(max_iter=2.5), "max_iter must be"),
    (KernelMachine(tol=0.0), "tol must be"),
    (KernelMachine(eta0=-1.0), "eta0 must be"),
])
def test_parameter_errors(cpu, est, match):
    X, y = cpu
    with pytest.raises(ValueError, match=match):
        est.fit(X[:20], y[:20] if isinstance(est, KernelMachine) else y[:20] > 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("strategy", ["features_on_the_fly", "features_cached"])
def test_feature_strategy_of_rbf_draws_random_fourier_features(cpu, strategy):
    """Without features=, a shift-invariant kernel's features strategies learn w on
    random Fourier features (D recorded in plan_) whose Z Z' approximates K."""
    from kernelkit.models._random_features import DEFAULT_RANDOM_FEATURES

    X, y = cpu
    X, y = X[:30], y[:30]
    kernel = RBF(gamma=0.05)
    m = KernelMachine(kernel, solver="sgd", strategy=strategy, random_state=0).fit(X, y)
    assert m.representation_ == "primal" and m.strategy_ == strategy
    assert m.feature_map_.n_components_ == DEFAULT_RANDOM_FEATURES
    choice = [c for c in m.plan_.choices if c.what == "random Fourier features"]
    assert len(choice) == 1 and choice[0].value == DEFAULT_RANDOM_FEATURES
    Z = m.feature_map_.transform(X)
    K = np.exp(-0.05 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))  # closed form
    # Hoeffding for one pair: |error| < sqrt(8 log(2/delta) / D) = 0.24 at delta = 1e-6
    assert np.abs(Z @ Z.T - K).max() < 0.24
    np.testing.assert_allclose(m.predict(X), Z @ m.coef_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strategy", ["features_on_the_fly", "features_cached"])
def test_feature_strategy_without_any_feature_map_says_what_to_do(cpu, strategy):
    X, y = cpu
    with pytest.raises(ValueError, match="neither a finite feature map.*nor a spectral "
                                         "density.*kernel_on_the_fly"):
        KernelMachine("sigmoid", solver="sgd", strategy=strategy).fit(X[:20], y[:20])


def test_one_class_is_refused(cpu):
    X, _ = cpu
    with pytest.raises(ValueError, match="only one class"):
        KernelMachineClassifier().fit(X[:10], np.ones(10))


@pytest.mark.parametrize("features_name", ["rff", "nystroem"])
def test_four_strategies_agree_with_random_features(cpu, features_name):
    """With random features the four strategies give one model: the feature routes use
    psi(x), the kernel routes the kernel psi(x)'psi(z) it induces (a Composed kernel)."""
    from kernelkit.features import Nystroem, RandomFourierFeatures
    from kernelkit.kernels import Composed, Linear

    X, y = cpu
    X, y = X[:200, :4], y[:200]
    fmap = (RandomFourierFeatures(RBF(gamma=0.2), n_components=40, random_state=3)
            if features_name == "rff" else
            Nystroem(RBF(gamma=0.2), n_components=40, random_state=3))
    induced = Composed(Linear(), fmap.fit(X).transform)
    preds = {}
    for strategy in STRATEGIES:
        m = KernelMachine(induced, alpha=1.0, solver="sgd", strategy=strategy, n_epochs=3,
                          features=fmap, random_state=4).fit(X, y)
        assert m.representation_ == ("primal" if strategy.startswith("features") else "dual")
        preds[strategy] = m.predict(X)
    ref = preds["gram_cached"]
    for strategy, p in preds.items():
        assert np.max(np.abs(p - ref)) <= 1e-9 * np.max(np.abs(ref)), strategy
