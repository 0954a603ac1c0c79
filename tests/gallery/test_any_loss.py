"""Any loss kernelised: each fit's objective is scipy.optimize's minimum of the same
objective (alpha/2) u'Ku + sum_i l((Ku)_i + b; y_i), over u and the intercept b."""

import numpy as np
import pytest
from scipy.optimize import minimize

from gallery._load import load_example
from kernelkit.solvers.losses import get_loss

ex = load_example("any_loss")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _loss_functions(label, res):
    if label in ("squared", "huber"):
        loss = get_loss(label, res["huber_epsilon"])
        return loss.value, loss.derivative
    user = ex.log_cosh_loss() if label.startswith("log-cosh") else ex.cauchy_loss(res["cauchy_c"])
    return user.value_fn, user.gradient_fn


def _scipy_minimum(res, label, start=None):
    """min over (v, b) with u = P v, K = B B' (scipy's BFGS on the smooth objective)."""
    X, y = res["X"], res["y"]
    K = np.exp(-res["gamma"] * (X - X.T) ** 2)
    w, Q = np.linalg.eigh(K)
    keep = w > 1e-12 * w[-1]
    B = Q[:, keep] * np.sqrt(w[keep])
    value, gradient = _loss_functions(label, res)
    alpha = res["alpha"]

    def fun(theta):
        v, b = theta[:-1], theta[-1]
        f = B @ v + b
        g = gradient(f, y)
        return (0.5 * alpha * v @ v + value(f, y).sum(), np.r_[alpha * v + B.T @ g, g.sum()])

    x0 = np.zeros(B.shape[1] + 1) if start is None else start(B)
    out = minimize(fun, x0, jac=True, method="BFGS", options={"gtol": 1e-9, "maxiter": 20_000})
    return out.fun, B


@pytest.mark.parametrize("label", ["squared", "huber", "log-cosh (user)"])
def test_convex_fits_reach_scipys_minimum(res, label):
    fit = res["fits"][label]
    reference, _ = _scipy_minimum(res, label)
    assert fit["objective"] == pytest.approx(reference, rel=1e-7)
    assert fit["solver"] == "newton"


def test_cauchy_fit_is_a_minimum_scipy_cannot_improve(res):
    """Cauchy is not convex: scipy started at our fit's (v, b) finds nothing lower, and
    started from 0 it finds the same minimum (the one L-BFGS reaches from u = 0)."""
    fit = res["fits"]["Cauchy (user)"]
    assert fit["solver"] == "lbfgs"
    from_zero, B = _scipy_minimum(res, "Cauchy (user)")
    assert fit["objective"] == pytest.approx(from_zero, rel=1e-6)
    def ours(B):  # v = B'u for u in K's range (K = B B', u = P v)
        return np.r_[B.T @ fit["dual_coef"], fit["intercept"]]

    polished, _ = _scipy_minimum(res, "Cauchy (user)", start=ours)
    assert polished == pytest.approx(fit["objective"], rel=1e-8)


def test_robust_losses_resist_the_outliers(res):
    rmse = {label: fit["rmse_to_truth"] for label, fit in res["fits"].items()}
    for robust in ("huber", "log-cosh (user)", "Cauchy (user)"):
        assert rmse[robust] < 0.5 * rmse["squared"]
    # the squared loss's intercept is pulled up by the one-sided outliers
    assert res["fits"]["squared"]["intercept"] > res["fits"]["Cauchy (user)"]["intercept"]


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert len(fig.axes[0].lines) == 3 + len(res["fits"])
    assert len(fig.axes[1].lines) == 4
