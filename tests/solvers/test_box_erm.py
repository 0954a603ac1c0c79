"""Box-constrained ERM against least squares, L-BFGS-B with bounds, and the hinge LP."""

import numpy as np
import pytest
from scipy.optimize import linprog, minimize

from kernelkit.solvers.box_erm import box_erm, erm_objective, lipschitz_estimate


def _problem(n=150, q=25, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Z = np.cos(X @ rng.normal(size=(3, q)) + rng.uniform(0, 2 * np.pi, q))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=n)
    return Z, y


def _lbfgsb(Z, y, bound, loss, fit_intercept):
    """Independent reference: scipy's L-BFGS-B with the box as bounds."""
    n, q = Z.shape

    def f(theta):
        s = Z @ theta[:q] + (theta[q] if fit_intercept else 0.0)
        if loss == "squared":
            d = s - y
            v = 0.5 * np.mean(d * d)
        else:
            m = -y * s
            v = np.mean(np.logaddexp(0.0, m))
            d = -y / (1.0 + np.exp(-m))
        g = Z.T @ d / n
        return v, (np.append(g, d.mean()) if fit_intercept else g)

    bounds = [(-bound, bound)] * q + [(None, None)] * fit_intercept
    res = minimize(f, np.zeros(q + fit_intercept), jac=True, method="L-BFGS-B", bounds=bounds,
                   options=dict(ftol=1e-15, gtol=1e-13, maxiter=20000, maxcor=30))
    return res.x[:q], res.fun


def test_huge_box_is_least_squares():
    Z, y = _problem()
    res = box_erm(Z, y, 1e8, max_iter=100_000, tol=1e-11)
    ls = np.linalg.lstsq(Z, y, rcond=None)[0]
    assert res.converged
    np.testing.assert_allclose(res.coef, ls, atol=1e-6 * np.abs(ls).max())


def test_huge_box_with_intercept_is_least_squares_with_ones():
    Z, y = _problem(seed=1)
    res = box_erm(Z, y + 3.0, 1e8, fit_intercept=True, max_iter=100_000, tol=1e-11)
    ls = np.linalg.lstsq(np.column_stack([Z, np.ones(len(Z))]), y + 3.0, rcond=None)[0]
    np.testing.assert_allclose(np.append(res.coef, res.intercept), ls,
                               atol=1e-6 * np.abs(ls).max())


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_small_box_matches_lbfgsb(loss, fit_intercept):
    Z, y = _problem(seed=2)
    if loss == "logistic":
        y = np.where(y > 0, 1.0, -1.0)
    bound = 0.05
    res = box_erm(Z, y, bound, loss, fit_intercept=fit_intercept, max_iter=50_000, tol=1e-10)
    ref, ref_obj = _lbfgsb(Z, y, bound, loss, fit_intercept)
    assert res.converged
    assert np.sum(np.abs(res.coef) == bound) >= 1  # the box is active: a real test
    np.testing.assert_allclose(res.coef, ref, atol=1e-5)
    obj = erm_objective(Z, y, res.coef, res.intercept, loss)
    assert obj <= ref_obj + 1e-10
    assert res.objective[-1] == pytest.approx(obj, rel=1e-12)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_kkt_conditions(loss):
    Z, y = _problem(seed=3)
    if loss == "logistic":
        y = np.where(y > 0, 1.0, -1.0)
    bound = 0.1
    res = box_erm(Z, y, bound, loss, fit_intercept=True, max_iter=50_000, tol=1e-11)
    s = Z @ res.coef + res.intercept
    d = s - y if loss == "squared" else -y / (1.0 + np.exp(y * s))
    g = Z.T @ d / len(y)
    upper, lower = res.coef >= bound, res.coef <= -bound
    inner = ~(upper | lower)
    assert upper.any() or lower.any()
    assert (g[upper] <= 1e-9).all()  # at beta_i = B the descent direction points outward
    assert (g[lower] >= -1e-9).all()
    np.testing.assert_allclose(g[inner], 0.0, atol=1e-7)
    assert abs(d.mean()) < 1e-7  # the free intercept is stationary


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_hinge_within_smoothing_of_the_lp_optimum(fit_intercept):
    Z, y = _problem(n=120, q=20, seed=4)
    y = np.where(y > 0, 1.0, -1.0)
    n, q = Z.shape
    bound, mu = 0.05, 1e-3
    res = box_erm(Z, y, bound, "hinge", fit_intercept=fit_intercept, max_iter=50_000,
                  tol=1e-9, smoothing=mu)
    # The hinge ERM as a linear programme: variables beta, b, slacks xi.
    cost = np.r_[np.zeros(q + 1), np.ones(n) / n]
    A = np.hstack([-y[:, None] * Z, -y[:, None], -np.eye(n)])
    bounds = [(-bound, bound)] * q + [(None, None) if fit_intercept else (0, 0)] + \
        [(0, None)] * n
    lp = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    obj = erm_objective(Z, y, res.coef, res.intercept, "hinge")
    assert lp.fun - 1e-9 <= obj <= lp.fun + mu / 2


@pytest.mark.parametrize("loss", ["squared", "logistic", "hinge"])
def test_box_always_respected_and_columns_independent(loss):
    Z, y = _problem(seed=5)
    Y = np.column_stack([y, -y, 0.5 * y])
    if loss != "squared":
        Y = np.where(Y > 0, 1.0, -1.0)
    bound = 0.02
    res = box_erm(Z, Y, bound, loss, fit_intercept=True, max_iter=3000, tol=1e-9)
    assert res.coef.shape == (Z.shape[1], 3) and res.intercept.shape == (3,)
    assert np.abs(res.coef).max() <= bound
    single = box_erm(Z, Y[:, 1], bound, loss, fit_intercept=True, max_iter=3000, tol=1e-9)
    np.testing.assert_allclose(res.coef[:, 1], single.coef, atol=1e-4)


def test_objective_history_and_max_iter():
    Z, y = _problem(seed=6)
    res = box_erm(Z, y, 1e3, max_iter=5, tol=0.0)
    assert res.n_iter == 5 and not res.converged and len(res.objective) == 5
    assert res.objective[-1] < res.objective[0]


def test_lipschitz_estimate_is_the_top_eigenvalue():
    Z, _ = _problem(seed=7)
    A = np.column_stack([Z, np.ones(len(Z))])
    top = np.linalg.eigvalsh(A.T @ A / len(Z))[-1]
    est = lipschitz_estimate(Z, fit_intercept=True, n_iter=200)
    assert est <= top * (1 + 1e-12) and est == pytest.approx(top, rel=1e-6)


def test_bad_arguments():
    Z, y = _problem()
    with pytest.raises(ValueError, match="loss"):
        box_erm(Z, y, 1.0, "huber")
    with pytest.raises(ValueError, match="bound"):
        box_erm(Z, y, 0.0)
