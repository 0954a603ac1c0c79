"""The GP log marginal likelihood and its optimum against scikit-learn's
GaussianProcessRegressor, and the Nystroem objectives' gradients against finite differences."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel

from kernelkit.kernels import RBF, Matern
from kernelkit.tuning import (kernel_parameters, log_marginal_likelihood,
                              optimize_marginal_likelihood)
from kernelkit.tuning.nystroem_objective import nystroem_objective

X, Y_RAW = make_friedman1(n_samples=60, n_features=5, noise=0.5, random_state=0)
X = (X - X.mean(0)) / X.std(0)
Y = Y_RAW - Y_RAW.mean()
NOISE = 0.3


@pytest.mark.parametrize("theta", [np.log([2.0, 1.5]), np.log([0.7, 3.0]), np.log([30.0, 0.4])])
def test_lml_equals_scikit_learn(theta):
    params = kernel_parameters(2.0 * RBF(length_scale=1.5))
    gpr = GaussianProcessRegressor(ConstantKernel(2.0) * SkRBF(1.5), alpha=NOISE,
                                   optimizer=None).fit(X, Y)
    ref, ref_grad = gpr.log_marginal_likelihood(theta, eval_gradient=True)
    lml, grad = log_marginal_likelihood(params, X, Y, NOISE, theta, eval_gradient=True)
    np.testing.assert_allclose(lml, ref, rtol=1e-10)
    np.testing.assert_allclose(grad[:-1], ref_grad, rtol=1e-8, atol=1e-10)


def test_lml_with_normalize_y_is_the_lml_of_standardised_targets():
    gpr = GaussianProcessRegressor(ConstantKernel(2.0) * SkRBF([1.0, 2.0, 1.0, 3.0, 1.0]),
                                   alpha=NOISE, normalize_y=True, optimizer=None).fit(X, Y_RAW)
    params = kernel_parameters(2.0 * RBF(length_scale=[1.0, 2.0, 1.0, 3.0, 1.0]))
    z = (Y_RAW - Y_RAW.mean()) / Y_RAW.std()
    theta = params.theta + 0.3
    np.testing.assert_allclose(log_marginal_likelihood(params, X, z, NOISE, theta),
                               gpr.log_marginal_likelihood(theta), rtol=1e-10)


def test_lml_gradient_in_alpha_and_two_targets():
    params = kernel_parameters(0.5 * Matern(nu=2.5, length_scale=2.0) + RBF(gamma=0.1))
    Y2 = np.column_stack([Y, np.sin(X[:, 0])])
    z = np.append(params.theta, np.log(NOISE))

    def f(z):
        return log_marginal_likelihood(params, X, Y2, np.exp(z[-1]), z[:-1], eval_gradient=True)

    _, grad = f(z)
    fd = [(f(z + h)[0] - f(z - h)[0]) / 2e-6 for h in np.eye(len(z)) * 1e-6]
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
    # two targets: the sum of the two likelihoods, as scikit-learn
    one = [log_marginal_likelihood(params, X, Y2[:, j], NOISE) for j in range(2)]
    np.testing.assert_allclose(log_marginal_likelihood(params, X, Y2, NOISE), sum(one))


def test_lml_of_an_indefinite_system_is_minus_infinity():
    params = kernel_parameters(RBF(gamma=1.0))
    Xd = np.vstack([X[:3], X[:3]])  # repeated rows: K singular, alpha tiny
    assert log_marginal_likelihood(params, Xd, Y[:6], -1e-3) == -np.inf


@pytest.mark.parametrize("normalize_y", [False, True])
def test_optimum_equals_scikit_learn_with_fixed_noise(normalize_y):
    target = Y_RAW if normalize_y else Y
    gpr = GaussianProcessRegressor(ConstantKernel(1.0) * SkRBF(1.0), alpha=NOISE,
                                   normalize_y=normalize_y).fit(X, target)
    z = (Y_RAW - Y_RAW.mean()) / Y_RAW.std() if normalize_y else Y
    kernel, alpha, lml, result = optimize_marginal_likelihood(
        kernel_parameters(1.0 * RBF(length_scale=1.0)), X, z, NOISE, alpha_bounds="fixed")
    assert alpha == NOISE
    np.testing.assert_allclose(lml, gpr.log_marginal_likelihood_value_, rtol=1e-6)
    np.testing.assert_allclose(kernel_parameters(kernel).theta, gpr.kernel_.theta, rtol=1e-3,
                               atol=1e-4)
    assert result.trajectory and result.trajectory[-1]["fun"] == pytest.approx(-lml)


def test_optimum_with_learnt_noise_equals_scikit_learn_white_kernel():
    gpr = GaussianProcessRegressor(ConstantKernel(10.0) * SkRBF(1.0) + WhiteKernel(0.1),
                                   alpha=0.0).fit(X, Y)
    kernel, alpha, lml, _ = optimize_marginal_likelihood(
        kernel_parameters(10.0 * RBF(length_scale=1.0)), X, Y, 0.1, alpha_bounds=(1e-5, 1e5))
    assert 1e-3 < alpha < 10.0 and kernel.scale > 1.0  # not the all-noise optimum
    np.testing.assert_allclose(lml, gpr.log_marginal_likelihood_value_, rtol=1e-6)
    np.testing.assert_allclose(np.append(kernel_parameters(kernel).theta, np.log(alpha)),
                               gpr.kernel_.theta, rtol=1e-3, atol=1e-4)


def test_restarts_stay_within_bounds_and_are_reproducible():
    params = kernel_parameters(1.0 * RBF(length_scale=1.0), (1e-2, 1e2))
    runs = [optimize_marginal_likelihood(params, X, Y, 0.1, alpha_bounds=(1e-3, 10.0),
                                         n_restarts=2, random_state=np.random.RandomState(0),
                                         max_iter=30) for _ in range(2)]
    result = runs[0][3]
    assert len(result.starts) == 3
    for step in result.trajectory:
        assert np.all(step["x"][:-1] >= np.log(1e-2) - 1e-12)
        assert np.all(step["x"][:-1] <= np.log(1e2) + 1e-12)
        assert np.log(1e-3) - 1e-12 <= step["x"][-1] <= np.log(10.0) + 1e-12
    assert runs[0][2] == runs[1][2]
    assert runs[0][2] == max(-s["fun"] for s in result.starts)


@pytest.mark.parametrize("objective", ["gcv", "holdout"])
@pytest.mark.parametrize("kernel", [RBF(length_scale=[0.3, 0.5, 1.0, 2.0, 1.0]),
                                    2.0 * Matern(nu=1.5, length_scale=0.7)], ids=repr)
def test_nystroem_objective_gradients(objective, kernel):
    params = kernel_parameters(kernel)
    centers = X[:15]
    validation = np.arange(len(X)) % 4 == 0
    z = np.append(params.theta, np.log(0.05))

    def f(z):
        return nystroem_objective(params, X, Y, centers, np.exp(z[-1]), z[:-1],
                                  objective=objective, validation=validation)

    value, grad = f(z)
    fd = np.array([(f(z + h)[0] - f(z - h)[0]) / 2e-5 for h in np.eye(len(z)) * 1e-5])
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7 * np.abs(fd).max())


def test_gcv_with_all_rows_as_centers_is_the_exact_gcv():
    kernel, alpha = RBF(gamma=0.2), 0.5
    K = kernel(X)
    H = K @ np.linalg.inv(K + alpha * np.eye(len(X)))
    n = len(X)
    exact = n * np.sum((Y - H @ Y) ** 2) / (n - np.trace(H)) ** 2
    value, _ = nystroem_objective(kernel_parameters(kernel), X, Y, X, alpha)
    np.testing.assert_allclose(value, exact, rtol=1e-8)


def test_holdout_is_the_validation_error_of_nystroem_ridge():
    kernel, alpha = RBF(gamma=0.2), 0.5
    validation = np.arange(len(X)) % 3 == 0
    centers = X[::2]
    A, B = kernel(X[~validation], centers), kernel(centers)
    beta = np.linalg.solve(A.T @ A + alpha * B, A.T @ Y[~validation])
    expected = np.mean((Y[validation] - kernel(X[validation], centers) @ beta) ** 2)
    value, _ = nystroem_objective(kernel_parameters(kernel), X, Y, centers, alpha,
                                  objective="holdout", validation=validation)
    np.testing.assert_allclose(value, expected, rtol=1e-8)
