"""Kernel machines and logistic regression: class/sample weights, epsilon-insensitive
loss, progress, ConvergenceWarning, and the planner's Newton choices."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVR

from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelLogisticRegression, KernelMachine, KernelMachineClassifier


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    s = X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=120)
    y2 = np.where(s > 0.4, "pos", "neg")  # unbalanced
    y3 = np.array(["a", "b", "c"])[np.digitize(s, [-0.5, 0.7])]
    return X, y2, y3


def _sk(C, **kw):
    return LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000, **kw)


@pytest.mark.parametrize("class_weight", ["balanced", {"neg": 1.0, "pos": 3.0}])
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_logistic_class_and_sample_weight_match_sklearn(data, class_weight, solver):
    X, y, _ = data
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    ours = KernelLogisticRegression(Linear(), C=0.7, solver=solver, class_weight=class_weight)
    ours.fit(X, y, sample_weight=sw)
    sk = _sk(0.7, class_weight=class_weight).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X),
                               rtol=1e-6, atol=1e-6)


def test_logistic_multinomial_weights_match_sklearn(data):
    X, _, y = data
    ours = KernelLogisticRegression(Linear(), C=2.0, class_weight="balanced").fit(X, y)
    sk = _sk(2.0, class_weight="balanced").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-5)


def test_logistic_integer_weights_are_repeated_rows(data):
    X, y, _ = data
    w = np.arange(len(y)) % 3
    kern = RBF(gamma=0.5)
    a = KernelLogisticRegression(kern, C=1.0).fit(X, y, sample_weight=w)
    # C multiplies the sum of the losses: the same C for the repeated rows
    b = KernelLogisticRegression(kern, C=1.0).fit(np.repeat(X, w, 0), np.repeat(y, w))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_machine_classifier_class_weight_equals_sample_weight_by_class(data):
    X, y, _ = data
    kern = RBF(gamma=0.5)
    a = KernelMachineClassifier(kern, loss="logistic", alpha=0.5, solver="newton",
                                class_weight={"neg": 1.0, "pos": 4.0}).fit(X, y)
    b = KernelLogisticRegression(kern, C=2.0, solver="newton",
                                 class_weight={"neg": 1.0, "pos": 4.0}).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)
    unweighted = KernelMachineClassifier(kern, loss="hinge", alpha=0.5, random_state=0).fit(X, y)
    weighted = KernelMachineClassifier(kern, loss="hinge", alpha=0.5, random_state=0,
                                       class_weight="balanced").fit(X, y)
    # the minority class ("pos") gains predictions when it weighs more
    assert (weighted.predict(X) == "pos").sum() > (unweighted.predict(X) == "pos").sum()
    with pytest.raises(ValueError):
        KernelMachineClassifier(kern, class_weight={"nope": 2.0}).fit(X, y)


def test_epsilon_insensitive_approaches_svr():
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(80, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=80)
    C, eps = 5.0, 0.1
    # SVR has an intercept; a kernel with a constant term absorbs it (penalised:
    # small at this C); compare with the same kernel through precomputed Gram.
    kern = RBF(gamma=1.0) + 1.0
    K = kern(X, X) if callable(kern) else None
    from kernelkit.gram import gram
    K = gram(kern, X)
    svr = SVR(kernel="precomputed", C=C, epsilon=eps, tol=1e-8).fit(K, y)
    ours = KernelMachine(kern, loss="epsilon_insensitive", alpha=1.0 / C, epsilon=eps,
                         solver="sgd", strategy="gram_cached", n_epochs=300, average=True,
                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours.fit(X, y)
    gap = np.abs(ours.predict(X) - svr.predict(K))
    assert gap.max() < 0.1 and np.mean(gap) < 0.03


def test_epsilon_insensitive_is_refused_by_newton_and_lbfgs():
    for solver in ("newton", "lbfgs"):
        with pytest.raises(InvalidParameterError, match="no curvature|curvature"):
            KernelMachine(loss="epsilon_insensitive", solver=solver).fit([[0.0], [1.0]], [0, 1])
    m = KernelMachine(loss="epsilon_insensitive", epsilon=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(np.arange(10.0)[:, None], np.arange(10.0))
    assert m.solver_ == "sgd"
    with pytest.raises(InvalidParameterError, match="epsilon > 0"):
        KernelMachine(loss="huber", epsilon=0.0).fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("make", [
    lambda: KernelMachine(RBF(gamma=0.5), loss="huber", alpha=1e-3, solver="newton", max_iter=1),
    lambda: KernelMachine(RBF(gamma=0.5), loss="huber", alpha=1e-3, solver="lbfgs", max_iter=2),
    lambda: KernelLogisticRegression(RBF(gamma=0.5), C=100.0, solver="newton", max_iter=1),
    lambda: KernelLogisticRegression(RBF(gamma=0.5), C=100.0, max_iter=2),  # multinomial
    lambda: KernelMachineClassifier(RBF(gamma=0.5), alpha=1e-3, n_epochs=1, random_state=0),
])
def test_stopping_short_warns_and_keeps_the_residual(data, make):
    X, y2, y3 = data
    est = make()
    y = (X[:, 0] if isinstance(est, KernelMachine)
         else y3 if isinstance(est, KernelLogisticRegression) and est.solver == "auto" else y2)
    with pytest.warns(ConvergenceWarning):
        est.fit(X, y)
    if est.solver_ == "sgd":
        assert est.last_epoch_change_[0] > 0.01
    else:
        assert est.gradient_norm_[0] > 0


def test_converged_fits_do_not_warn(data):
    X, y, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = KernelLogisticRegression(RBF(gamma=0.5), solver="newton").fit(X, y)
        KernelMachine(RBF(gamma=0.5), loss="huber", solver="newton").fit(X, X[:, 0])
    assert m.gradient_norm_[0] < 1e-6


def test_verbose_shows_progress(data, capsys):
    X, y, _ = data
    KernelLogisticRegression(RBF(gamma=0.5), solver="newton", verbose=1).fit(X, y)
    KernelMachineClassifier(RBF(gamma=0.5), random_state=0, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "Newton" in err and "SGD" in err
    with config_context(verbosity=1):
        KernelMachine(RBF(gamma=0.5), solver="lbfgs").fit(X, X[:, 0])
    assert "L-BFGS" in capsys.readouterr().err
    KernelMachine(RBF(gamma=0.5), solver="lbfgs").fit(X, X[:, 0])
    assert capsys.readouterr().err == ""


def test_planner_choices_for_newton(data):
    from kernelkit.planning import choose_logistic_solver, choose_newton_inner
    assert choose_newton_inner(100).value == "direct"
    assert choose_newton_inner(5000).value == "cg"
    assert choose_logistic_solver(500, False).value == "lbfgs"
    assert choose_logistic_solver(5000, False).value == "newton"
    assert choose_logistic_solver(5000, True).value == "lbfgs"
    X, y, _ = data
    big = np.repeat(X, 5, axis=0) + 1e-3 * np.random.default_rng(0).normal(size=(600, 3))
    m = KernelLogisticRegression(RBF(gamma=0.5)).fit(big, np.repeat(y, 5))
    inner = [c for c in m.plan_.choices if c.what == "Newton's inner solve"]
    assert m.solver_ == "lbfgs" and not inner  # n = 600 <= 1000: as before
    km = KernelMachine(RBF(gamma=0.5), loss="huber").fit(big, big[:, 0])
    assert [c.value for c in km.plan_.choices if c.what == "Newton's inner solve"] == ["cg"]


def test_large_c_logistic_goes_to_newton_with_the_same_optimum(data):
    # L-BFGS's iterations grow with C (the grid's corner), Newton's stay few: from
    # C = LOGISTIC_NEWTON_MIN_C on, "auto" picks Newton, and both reach the same model.
    from kernelkit.planning import LOGISTIC_NEWTON_MIN_C, choose_logistic_solver
    assert choose_logistic_solver(500, False, C=LOGISTIC_NEWTON_MIN_C).value == "newton"
    assert choose_logistic_solver(500, False, C=1.0).value == "lbfgs"
    assert choose_logistic_solver(500, True, C=1e4).value == "lbfgs"  # multinomial
    X, y, _ = data
    auto = KernelLogisticRegression(RBF(gamma=0.5), C=100.0, tol=1e-10).fit(X, y)
    lbfgs = KernelLogisticRegression(RBF(gamma=0.5), C=100.0, solver="lbfgs", tol=1e-10,
                                     max_iter=5000).fit(X, y)
    assert auto.solver_ == "newton"
    np.testing.assert_allclose(auto.decision_function(X), lbfgs.decision_function(X),
                               rtol=1e-5, atol=1e-5)
