"""User-defined losses for the kernel machines (issue 21, item 3: "any L2-regularised
linear model can be kernelised").

References: the built-in losses re-written as user losses (the same fits), and
scipy.optimize's minimum of the same objective over u.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import clone

import kernelkit
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import KernelMachine, KernelMachineClassifier
from kernelkit.solvers import make_loss


def _log_cosh(curvature=True):
    return make_loss(lambda z, y: np.logaddexp(z - y, y - z) - np.log(2.0),
                     lambda z, y: np.tanh(z - y),
                     (lambda z, y: 1.0 - np.tanh(z - y) ** 2) if curvature else None,
                     name="log_cosh")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=30)
    y[::6] += 3.0  # outliers
    return X, y


def _brute_force(K, y, value, gradient, alpha):
    """min_u (alpha/2) u'Ku + sum_i l((Ku)_i; y_i) by scipy's L-BFGS-B in v (K = B B')."""
    w, Q = np.linalg.eigh(K)
    keep = w > 1e-12 * w[-1]
    B = Q[:, keep] * np.sqrt(w[keep])

    def fun(v):
        f = B @ v
        return (0.5 * alpha * v @ v + value(f, y).sum(), alpha * v + B.T @ gradient(f, y))

    res = minimize(fun, np.zeros(B.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 20_000})
    return B @ res.x, res.fun


@pytest.mark.parametrize("curvature", [True, False])
def test_user_loss_reaches_the_brute_force_minimum(data, curvature):
    X, y = data
    kernel, alpha = RBF(gamma=0.5), 0.2
    loss = _log_cosh(curvature)
    model = KernelMachine(kernel, loss=loss, alpha=alpha, tol=1e-10, max_iter=2000).fit(X, y)
    assert model.solver_ == ("newton" if curvature else "lbfgs")
    f_ref, J_ref = _brute_force(kernel(X, X), y, loss.value_fn, loss.gradient_fn, alpha)
    np.testing.assert_allclose(model.predict(X), f_ref, atol=1e-5)
    # objective_ is J / n in the solvers' scaling
    assert model.objective_[0] * len(y) == pytest.approx(J_ref, rel=1e-8)


def test_built_in_losses_rewritten_by_hand_are_the_same_fit(data):
    X, y = data
    squared = make_loss(lambda z, y: 0.5 * (z - y) ** 2, lambda z, y: z - y,
                        lambda z, y: np.ones_like(z), name="my_squared")
    ours = KernelMachine(RBF(gamma=0.5), loss=squared, alpha=0.2).fit(X, y)
    ref = KernelMachine(RBF(gamma=0.5), loss="squared", alpha=0.2).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-10)
    logistic = make_loss(lambda z, y: np.logaddexp(0.0, -y * z),
                         lambda z, y: -y * expit(-y * z),
                         lambda z, y: expit(y * z) * expit(-y * z), name="my_logistic",
                         kind="margin")
    labels = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "a", "b")
    ours = KernelMachineClassifier(RBF(gamma=0.5), loss=logistic, alpha=0.2, tol=1e-12,
                                   fit_intercept=True).fit(X, labels)
    ref = KernelMachineClassifier(RBF(gamma=0.5), loss="logistic", alpha=0.2, tol=1e-12,
                                  fit_intercept=True).fit(X, labels)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-9)


def test_plan_records_the_user_loss_and_clone_keeps_it(data):
    X, y = data
    model = KernelMachine(RBF(gamma=0.5), loss=_log_cosh(False), alpha=0.2).fit(X, y)
    text = model.plan_.explain()
    assert "log_cosh (user-defined, without curvature)" in text
    assert "no curvature for Newton: L-BFGS" in text
    copy = clone(model)
    assert copy.loss is not None and copy.loss.name == "log_cosh"
    np.testing.assert_allclose(copy.fit(X, y).predict(X), model.predict(X))


def test_a_model_with_a_user_loss_is_refused_at_save(data, tmp_path):
    X, y = data
    model = KernelMachine(RBF(gamma=0.5), loss=_log_cosh(), alpha=0.2).fit(X, y)
    with pytest.raises(ValueError, match="user-defined.*never code"):
        kernelkit.save(model, tmp_path / "m.kk")
    assert not (tmp_path / "m.kk").exists()


@pytest.mark.parametrize("value, gradient, curvature, match", [
    (lambda z, y: math.cosh(z - y), lambda z, y: np.sinh(z - y), None,
     "raised TypeError.*vectorised"),
    (lambda z, y: float(np.sum((z - y) ** 2)), lambda z, y: z - y, None,
     r"returned shape \(\).*vectorised"),
    (lambda z, y: np.log(np.abs(z - y)), lambda z, y: 1.0 / (z - y), None, "must be finite"),
    (lambda z, y: 0.5 * (z - y) ** 2, lambda z, y: 2.0 * (z - y), None,
     "central difference.*must be dl/dz"),
    (lambda z, y: np.exp(-(z - y) ** 2), lambda z, y: -2 * (z - y) * np.exp(-(z - y) ** 2),
     lambda z, y: (4 * (z - y) ** 2 - 2) * np.exp(-(z - y) ** 2), "curvature.*< 0.*convex"),
])
def test_unusable_losses_are_refused_at_fit(data, value, gradient, curvature, match):
    X, y = data
    loss = make_loss(value, gradient, curvature, name="bad")
    with pytest.raises(ValueError, match=match):
        KernelMachine(loss=loss).fit(X, y)


def test_make_loss_and_the_estimators_check_their_arguments(data):
    X, y = data
    with pytest.raises(ValueError, match="built-in loss's"):
        make_loss(np.subtract, np.subtract, name="huber")
    with pytest.raises(ValueError, match="kind"):
        make_loss(np.subtract, np.subtract, name="x", kind="ranking")
    with pytest.raises(TypeError, match="gradient must be a callable"):
        make_loss(np.subtract, 3.0, name="x")
    with pytest.raises(InvalidParameterError, match="regression loss.*kind='margin'"):
        KernelMachineClassifier(loss=_log_cosh()).fit(X, y > 0)
    with pytest.raises(InvalidParameterError, match="solver='sgd'.*newton.*lbfgs"):
        KernelMachine(loss=_log_cosh(), solver="sgd").fit(X, y)
    with pytest.raises(InvalidParameterError, match="needs the loss's curvature"):
        KernelMachine(loss=_log_cosh(False), solver="newton").fit(X, y)
    with pytest.raises(InvalidParameterError, match="make_loss"):
        KernelMachine(loss="cauchy").fit(X, y)


def test_sample_weight_and_intercept_with_a_user_loss(data):
    X, y = data
    w = np.random.default_rng(1).integers(1, 4, size=len(y))
    rows = np.repeat(np.arange(len(y)), w)
    est = KernelMachine(RBF(gamma=0.5), loss=_log_cosh(), alpha=0.2, fit_intercept=True,
                        tol=1e-12)
    a = est.fit(X, y + 4.0, sample_weight=w).predict(X)
    b = clone(est).fit(X[rows], y[rows] + 4.0).predict(X)
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_a_loss_with_its_kink_at_z_equal_y_is_accepted():
    """The pinball (quantile) loss has no derivative at z = y: the probe does not hold
    that against it, and L-BFGS fits it (the 0.9-quantile: ~90% of y below f)."""
    from kernelkit.models import KernelMachine
    from kernelkit.solvers import make_loss

    tau = 0.9
    pinball = make_loss(lambda z, y: np.where(z > y, (1 - tau) * (z - y), tau * (y - z)),
                        lambda z, y: np.where(z > y, 1 - tau, -tau), name="pinball")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 1))
    y = X[:, 0] + rng.normal(size=200)
    model = KernelMachine("linear", loss=pinball, alpha=1e-3, fit_intercept=True).fit(X, y)
    below = np.mean(y <= model.predict(X))
    assert 0.8 < below < 0.97
