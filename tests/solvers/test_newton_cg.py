"""Newton with a preconditioned CG inner solve: the same optimum as the direct solver."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.solvers.newton import lbfgs_dual, lbfgs_multinomial, newton_dual
from kernelkit.solvers.newton_cg import newton_cg_dual, pivoted_cholesky


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    y_reg = np.sin(X[:, 0]) + 0.2 * rng.normal(size=300)
    y_bin = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0, 1.0, -1.0)
    return X, y_reg, y_bin, gram(RBF(gamma=0.2), X)


@pytest.mark.parametrize("loss", ["squared", "logistic", "huber", "squared_hinge"])
@pytest.mark.parametrize("alpha", [1.0, 0.01])
def test_cg_reaches_the_direct_optimum(data, loss, alpha):
    X, y_reg, y_bin, K = data
    y = y_reg if loss in ("squared", "huber") else y_bin
    lam = alpha / len(y)
    a = newton_dual(K, y, loss, lam)
    b = newton_cg_dual(K, y, loss, lam, max_rank=20)  # a weak preconditioner on purpose
    assert a.converged and b.converged
    fa, fb = K @ a.coef, K @ b.coef
    assert np.max(np.abs(fa - fb)) <= 1e-6 * np.max(np.abs(fa))
    assert b.grad_norm < 1e-6


def test_squared_loss_is_the_closed_form(data):
    _, y, _, K = data
    n = len(y)
    res = newton_cg_dual(K, y, "squared", 0.1 / n)
    exact = np.linalg.solve(K + 0.1 * np.eye(n), y)
    np.testing.assert_allclose(K @ res.coef, K @ exact, rtol=0, atol=1e-7 * np.abs(K @ exact).max())


def test_cg_matches_sklearn_logistic_on_linear_features(data):
    X, _, y, _ = data
    n, C = len(y), 2.0
    sk = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(X, y)
    res = newton_cg_dual(X @ X.T, y, "logistic", 1.0 / (n * C))
    np.testing.assert_allclose(X @ (X.T @ res.coef), X @ sk.coef_[0], rtol=1e-6, atol=1e-7)


def test_pivoted_cholesky_is_exact_at_full_rank(data):
    X, _, _, K = data
    L, piv, trace = pivoted_cholesky(K[:60, :60], 60)
    np.testing.assert_allclose(L @ L.T, K[:60, :60], atol=1e-9)
    assert np.allclose(np.triu(L[piv], 1), 0.0) and trace < 1e-8


@pytest.mark.parametrize("solver", ["newton", "newton_cg", "lbfgs"])
def test_integer_weights_are_repeated_rows(data, solver):
    X, _, y, _ = data
    X, y = X[:80], y[:80]
    w = np.arange(80) % 3  # 0, 1 or 2 copies
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    kern = RBF(gamma=0.2)
    fn = {"newton": newton_dual, "newton_cg": newton_cg_dual, "lbfgs": lbfgs_dual}[solver]
    # Same objective up to the 1/n factor: lam * n is the same penalty on the sum.
    a = fn(gram(kern, X), y, "logistic", 1.0 / len(y), sample_weight=w.astype(float))
    b = fn(gram(kern, Xr), yr, "logistic", 1.0 / len(yr))
    fa = gram(kern, X, X) @ a.coef
    fb = gram(kern, X, Xr) @ b.coef
    np.testing.assert_allclose(fa, fb, rtol=1e-5, atol=1e-6)


def test_multinomial_weights_are_repeated_rows(data):
    X, _, _, _ = data
    X = X[:60]
    y = np.digitize(X[:, 0] + X[:, 1], [-0.5, 0.5])
    w = np.arange(60) % 3
    Xr, yr = np.repeat(X, w, axis=0), np.repeat(y, w)
    kern = RBF(gamma=0.2)
    a = lbfgs_multinomial(gram(kern, X), np.eye(3)[y], 1.0 / 60, sample_weight=w.astype(float),
                          tol=1e-10)
    b = lbfgs_multinomial(gram(kern, Xr), np.eye(3)[yr], 1.0 / len(yr), tol=1e-10)
    np.testing.assert_allclose(gram(kern, X) @ a.coef, gram(kern, X, Xr) @ b.coef, atol=1e-5)


def test_callbacks_see_every_step(data):
    _, _, y, K = data
    seen = []
    res = newton_cg_dual(K, y, "logistic", 1e-3, callback=lambda it, g: seen.append((it, g)))
    assert [it for it, _ in seen] == list(range(1, res.n_iter + 1))
    assert seen[-1][1] < seen[0][1]
    seen.clear()
    res = lbfgs_dual(K, y, "logistic", 1e-3, callback=lambda it, g: seen.append(it))
    assert seen == list(range(1, res.n_iter + 1))


def test_pegasos_progress_chunks_give_the_same_result(data):
    from kernelkit.solvers import pegasos as pg
    X, _, y, K = data
    steps = []
    a = pg.pegasos_gram(K, y, 1.0, 25_000, random_state=0)
    b = pg.pegasos_gram(K, y, 1.0, 25_000, random_state=0, callback=steps.append)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert sum(steps) == 25_000 and len(steps) == 3
    steps.clear()
    c = pg.pegasos_kernel(RBF(gamma=0.2), X, y, 1.0, 1500, random_state=0, callback=steps.append)
    assert sum(steps) == 1500
    np.testing.assert_allclose(c.alpha, pg.pegasos_gram(K, y, 1.0, 1500, random_state=0).alpha,
                               rtol=1e-12)


@pytest.mark.parametrize("strategy", ["gram_cached", "kernel_on_the_fly"])
def test_sgd_sample_weights(data, strategy):
    from kernelkit.solvers.sgd import sgd
    X, _, y, K = data
    common = dict(X=X, kernel=RBF(gamma=0.2), K=K if strategy == "gram_cached" else None,
                  n_epochs=2, eta0=0.5, random_state=0)
    a = sgd(strategy, y, "hinge", 1e-2, **common)
    b = sgd(strategy, y, "hinge", 1e-2, sample_weight=np.ones(len(y)), **common)
    np.testing.assert_array_equal(a.coef, b.coef)
    w = np.ones(len(y))
    w[:50] = 0.0
    c = sgd(strategy, y, "hinge", 1e-2, sample_weight=w, **common)
    assert not c.coef[:50].any() and c.coef[50:].any()  # weight 0: never a support vector
    assert a.last_epoch_change is not None and a.last_epoch_change >= 0


def test_epsilon_insensitive_loss():
    from kernelkit.solvers.losses import get_loss
    loss = get_loss("epsilon_insensitive", 0.3)
    z = np.array([-1.0, 0.1, 0.5, 2.0])
    y = np.zeros(4)
    np.testing.assert_allclose(loss.value(z, y), [0.7, 0.0, 0.2, 1.7])
    np.testing.assert_allclose(loss.derivative(z, y), [-1.0, 0.0, 1.0, 1.0])
    assert not loss.smooth and not loss.second_derivative(z, y).any()
    with pytest.raises(ValueError):
        get_loss("epsilon_insensitive", -1.0)
