"""SGD in the four strategies: compiled loops vs twins, the strategies' identity, convergence."""

import numpy as np
import pytest

from kernelkit.features import ExplicitFeatures
from kernelkit.gram import gram
from kernelkit.kernels import RBF, Polynomial
from kernelkit.solvers.losses import get_loss
from kernelkit.solvers.ridge import dual_ridge
from kernelkit.solvers._reference import sgd_u_steps_ref, sgd_w_steps_ref
from kernelkit.solvers.sgd import (STRATEGIES, _new_state, default_eta0, sgd, sgd_order,
                                   sgd_step_sizes, sgd_u_steps, sgd_w_steps)

LOSSES = ["squared", "logistic", "hinge", "squared_hinge", "huber"]


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    score = X[:, 0] - 0.5 * X[:, 1] * X[:, 2]
    y_cls = np.where(score + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    y_reg = score + 0.1 * rng.normal(size=120)
    kernel = Polynomial(degree=2, gamma=0.5, coef0=1.0)
    fmap = ExplicitFeatures(kernel).fit(X)
    return X, y_cls, y_reg, kernel, fmap, fmap.transform(X), gram(kernel, X)


def _targets(problem, loss):
    return problem[2] if not get_loss(loss).classification else problem[1]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("schedule,average", [("optimal", -1), ("optimal", 100),
                                              ("pegasos", 0)])
def test_compiled_loops_match_twins(problem, loss, schedule, average):
    X, _, _, _, _, Z, K = problem
    y = _targets(problem, loss)
    n, lam = len(y), 0.05
    order = sgd_order(n, 3 * n, 7)
    etas = sgd_step_sizes(3 * n, lam, default_eta0(loss, K.diagonal().max(), lam), schedule)
    v, a, state = np.zeros(Z.shape[1]), np.zeros(Z.shape[1]), _new_state()
    sgd_w_steps(Z, order, y[order], etas, lam, loss, v, a, state, 0, average)
    w, wbar, _ = sgd_w_steps_ref(Z, order, y[order], etas, lam, loss, np.zeros(Z.shape[1]),
                                 np.zeros(Z.shape[1]), 0, 0, average)
    np.testing.assert_allclose(state[0] * v, w, rtol=1e-10, atol=1e-12 * np.abs(w).max())
    if average >= 0:
        np.testing.assert_allclose(state[1] * a + state[2] * v, wbar, rtol=1e-10,
                                   atol=1e-12 * np.abs(wbar).max())
    v, a, state = np.zeros(n), np.zeros(n), _new_state()
    sgd_u_steps(K, order, order, y[order], etas, lam, loss, v, a, state, 0, average)
    u, ubar, _ = sgd_u_steps_ref(K, order, order, y[order], etas, lam, loss, np.zeros(n),
                                 np.zeros(n), 0, 0, average)
    np.testing.assert_allclose(state[0] * v, u, rtol=1e-10, atol=1e-12 * np.abs(u).max())
    if average >= 0:
        np.testing.assert_allclose(state[1] * a + state[2] * v, ubar, rtol=1e-10,
                                   atol=1e-12 * np.abs(ubar).max())


def test_lazy_scale_is_renormalised(problem):
    # (1 - eta lam) = 0.5 for 500 steps: the scale would be 0.5^500 ~ 3e-151, and the
    # averaged iterate gamma a + B v would cancel catastrophically without renormalising.
    _, _, y, _, _, _, K = problem
    n = len(y)
    order = sgd_order(n, 500, 1)
    etas = np.full(500, 0.5)
    v, a, state = np.zeros(n), np.zeros(n), _new_state()
    sgd_u_steps(K, order, order, y[order], etas, 1.0, "squared", v, a, state, 0, 0)
    u, ubar, _ = sgd_u_steps_ref(K, order, order, y[order], etas, 1.0, "squared", np.zeros(n),
                                 np.zeros(n), 0, 0, 0)
    assert state[0] >= 1e-4 and np.isfinite(v).all()
    np.testing.assert_allclose(state[0] * v, u, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(state[1] * a + state[2] * v, ubar, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", ["squared", "logistic", "hinge", "squared_hinge", "huber"])
@pytest.mark.parametrize("average", [False, 50])
def test_four_strategies_learn_the_same_model(problem, loss, average):
    # The test: polynomial kernel with its explicit basis, same seed ->
    # the same predictions from all four strategies, to round-off.
    X, _, _, kernel, fmap, Z, K = problem
    y = _targets(problem, loss)
    lam = 0.01
    eta0 = default_eta0(loss, K.diagonal().max(), lam)
    preds = {}
    for strategy in STRATEGIES:
        res = sgd(strategy, y, loss, lam, X=X, kernel=kernel, features=fmap, n_epochs=3,
                  eta0=eta0, average=average, random_state=3)
        preds[strategy] = Z @ res.coef if res.representation == "w" else K @ res.coef
        assert res.n_iter == 3 * len(y)
        assert res.representation == ("w" if strategy.startswith("features") else "u")
    ref = preds["gram_cached"]
    for strategy, p in preds.items():
        assert np.max(np.abs(p - ref)) <= 1e-10 * np.max(np.abs(ref)), strategy


def test_on_the_fly_crosses_chunk_boundaries(problem):
    # T = 5000 steps: several chunks (of 2048 feature rows, of 2048 kernel rows at
    # n = 120) for the on-the-fly strategies.
    X, y, _, kernel, fmap, Z, K = problem
    a = sgd("features_on_the_fly", y, "logistic", 0.01, X=X, features=fmap, n_iter=5000,
            random_state=0)
    b = sgd("gram_cached", y, "logistic", 0.01, K=K, n_iter=5000, random_state=0)
    np.testing.assert_allclose(Z @ a.coef, K @ b.coef, rtol=1e-10, atol=1e-12)
    assert a.objective == pytest.approx(b.objective, rel=1e-10)


def test_kernel_on_the_fly_rbf_matches_gram_cached(problem):
    X, y, _, _, _, _, _ = problem
    k = RBF(gamma=0.3)
    a = sgd("kernel_on_the_fly", y, "hinge", 0.01, X=X, kernel=k, n_epochs=2, random_state=5)
    b = sgd("gram_cached", y, "hinge", 0.01, X=X, kernel=k, n_epochs=2, random_state=5)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)


def test_objective_is_reported(problem):
    X, _, y, kernel, _, _, K = problem
    res = sgd("gram_cached", y, "huber", 0.02, K=K, n_epochs=2, random_state=0)
    f = K @ res.coef
    expected = 0.01 * res.coef @ f + np.mean(get_loss("huber").value(f, y))
    assert res.objective == pytest.approx(expected, rel=1e-12)


def test_sgd_approaches_exact_ridge(problem):
    # Squared loss is lam-strongly convex: SGD -> the ridge solution with alpha = n lam.
    _, _, y, _, _, _, K = problem
    n, lam = len(y), 0.1
    u_star, _ = dual_ridge(K, y, n * lam)
    f_star = K @ u_star
    errors = []
    for n_epochs in (2, 20, 200):
        res = sgd("gram_cached", y, "squared", lam, K=K, n_epochs=n_epochs, random_state=0,
                  eta0=default_eta0("squared", K.diagonal().max(), lam), average=n)
        errors.append(np.max(np.abs(K @ res.coef - f_star)) / np.max(np.abs(f_star)))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-2


def test_order_and_schedules():
    order = sgd_order(10, 25, 0)
    assert len(order) == 25
    assert sorted(order[:10]) == list(range(10)) and sorted(order[10:20]) == list(range(10))
    np.testing.assert_array_equal(order, sgd_order(10, 25, 0))
    np.testing.assert_allclose(sgd_step_sizes(3, 0.5, 2.0), [2.0, 1.0, 2 / 3])
    np.testing.assert_allclose(sgd_step_sizes(3, 0.5, 2.0, "pegasos"), [2.0, 1.0, 2 / 3])
    with pytest.raises(ValueError, match="schedule"):
        sgd_step_sizes(3, 0.5, 1.0, "constant")
    with pytest.raises(ValueError, match="strategy"):
        sgd("newton", np.ones(3), "squared", 0.1, K=np.eye(3))
