"""Warm starts along a regularisation path: the warm-started solve reaches the cold
start's optimum (same dual objective to the solver's tolerance), from feasible seeds."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.solvers.newton import newton_dual
from kernelkit.solvers.newton_cg import newton_cg_dual
from kernelkit.solvers.smo import seed_alpha, smo_gram, smo_kernel
from kernelkit.solvers.svr import svr_gram, svr_kernel


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(160, 5, flip_y=0.1, random_state=0)
    kernel = RBF(gamma=0.3)
    return kernel, X, 2.0 * y - 1.0, gram(kernel, X)


def test_seed_alpha_is_feasible_and_keeps_bounds(problem):
    _, _, y, K = problem
    weights = np.where(y > 0, 2.0, 0.5)
    old = smo_gram(K, y, 1.0 * weights, tol=1e-8).alpha
    new = seed_alpha(old, 1.0 * weights, 10.0 * weights)
    assert np.all(new >= 0) and np.all(new <= 10.0 * weights)
    assert abs(new @ y) <= 1e-10 * max(1.0, new.sum())
    at_bound = np.isclose(old, weights)
    assert np.allclose(new[at_bound], 10.0 * weights[at_bound])
    assert np.all(new[old == 0] == 0)


@pytest.mark.parametrize("C_old, C_new", [(0.1, 1.0), (1.0, 10.0), (10.0, 1.0)])
def test_smo_warm_start_reaches_the_cold_optimum(problem, C_old, C_new):
    kernel, X, y, K = problem
    previous = smo_gram(K, y, C_old, tol=1e-8)
    cold = smo_gram(K, y, C_new, tol=1e-8)
    start = seed_alpha(previous.alpha, C_old, C_new)
    warm = smo_gram(K, y, C_new, tol=1e-8, alpha0=start)
    assert warm.converged and cold.converged
    assert warm.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)
    assert warm.bias == pytest.approx(cold.bias, abs=1e-5)
    assert np.allclose(K @ (warm.alpha * y), K @ (cold.alpha * y), atol=1e-5)
    rows = smo_kernel(kernel, X, y, C_new, tol=1e-8, alpha0=start)  # rows on demand
    assert rows.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)


def test_smo_path_warm_starts_take_fewer_steps_on_a_fine_grid(problem):
    _, _, y, K = problem
    Cs = np.logspace(-1, 2, 10)
    cold = sum(smo_gram(K, y, C, tol=1e-3).n_iter for C in Cs)
    steps, previous = 0, None
    for C in Cs:
        r = smo_gram(K, y, C, tol=1e-3,
                     alpha0=None if previous is None else seed_alpha(*previous, C))
        previous = (r.alpha, C)
        steps += r.n_iter
    assert steps < cold


def test_svr_warm_start_reaches_the_cold_optimum(problem):
    kernel, X, _, K = problem
    t = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    previous = svr_gram(K, t, 1.0, 0.05, tol=1e-8)
    assert previous.alpha.shape == (2 * len(t),)
    assert np.allclose(previous.alpha[:len(t)] - previous.alpha[len(t):], previous.coef)
    cold = svr_gram(K, t, 10.0, 0.05, tol=1e-8)
    start = seed_alpha(previous.alpha, 1.0, 10.0)
    warm = svr_gram(K, t, 10.0, 0.05, tol=1e-8, alpha0=start)
    assert warm.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)
    assert warm.primal_objective == pytest.approx(cold.primal_objective, rel=1e-6)
    assert np.allclose(K @ warm.coef + warm.bias, K @ cold.coef + cold.bias, atol=1e-5)
    rows = svr_kernel(kernel, X, t, 10.0, 0.05, tol=1e-8, alpha0=start)
    assert rows.dual_objective == pytest.approx(cold.dual_objective, rel=1e-9)


@pytest.mark.parametrize("solve", [newton_dual, newton_cg_dual])
def test_newton_warm_start_reaches_the_cold_optimum_in_fewer_steps(problem, solve):
    _, _, y, K = problem
    n = len(y)
    u, warm_steps, cold_steps = None, 0, 0
    for alpha in (1.0, 1e-2, 1e-4):
        lam = alpha / n
        cold = solve(K, y, "logistic", lam, tol=1e-8)
        warm = solve(K, y, "logistic", lam, tol=1e-8, u0=u)
        assert warm.converged and cold.converged
        assert warm.objective == pytest.approx(cold.objective, rel=1e-10, abs=1e-14)
        assert np.allclose(K @ warm.coef, K @ cold.coef, atol=1e-5)
        u = warm.coef
        warm_steps += warm.n_iter
        cold_steps += cold.n_iter
    assert warm_steps < cold_steps


def test_multinomial_warm_start_and_shared_basis_reach_the_cold_optimum(problem):
    from kernelkit.solvers.newton import lbfgs_multinomial, spectral_basis

    _, X, _, K = problem
    labels = np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))
    Y = np.eye(3)[labels]
    n = len(labels)
    basis = spectral_basis(K)
    previous, warm_steps, cold_steps = None, 0, 0
    for C in (0.1, 1.0, 10.0):
        lam = 1.0 / (n * C)
        cold = lbfgs_multinomial(K, Y, lam)
        warm = lbfgs_multinomial(K, Y, lam, u0=previous, basis=basis)
        assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
        assert np.allclose(K @ warm.coef, K @ cold.coef, atol=1e-3)
        previous = warm.coef
        warm_steps += warm.n_iter
        cold_steps += cold.n_iter
    assert warm_steps < cold_steps
