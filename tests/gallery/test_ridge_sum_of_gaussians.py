"""Kernel ridge as a sum of Gaussians: the bumps add up to predict; u = (K + alpha I)^-1 y is
scikit-learn KernelRidge's dual_coef_."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge

from gallery._load import load_example

ex = load_example("ridge_sum_of_gaussians")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_sum_of_the_bumps_is_the_prediction(res):
    for alpha in ex.ALPHAS:
        fit = res["fits"][alpha]
        scale = max(1.0, np.max(np.abs(fit["prediction"])))
        assert np.max(np.abs(fit["sum_of_bumps"] - fit["prediction"])) < 1e-12 * scale
        assert fit["max_difference"] < 1e-12 * scale
        # the bumps by hand, from u alone
        X, grid, u = res["X"][:, 0], res["grid"], fit["u"]
        by_hand = sum(u[i] * np.exp(-ex.GAMMA * (grid - X[i]) ** 2) for i in range(len(X)))
        assert np.max(np.abs(by_hand - fit["prediction"])) < 1e-12 * scale


def test_heights_are_the_ridge_solution(res):
    X, y = res["X"], res["y"]
    K = np.exp(-ex.GAMMA * (X - X.T) ** 2)
    for alpha in ex.ALPHAS:
        u = res["fits"][alpha]["u"]
        assert np.allclose(u, np.linalg.solve(K + alpha * np.eye(len(X)), y),
                           rtol=1e-9, atol=1e-10)
        sk = SklearnKernelRidge(alpha=alpha, kernel="rbf", gamma=ex.GAMMA).fit(X, y)
        assert np.allclose(u, sk.dual_coef_, rtol=1e-8, atol=1e-10)
        assert np.allclose(res["fits"][alpha]["prediction"], sk.predict(res["grid"][:, None]),
                           rtol=1e-8, atol=1e-10)


def test_larger_alpha_means_smaller_bumps(res):
    small, large = (res["fits"][a] for a in sorted(ex.ALPHAS))
    assert np.max(np.abs(large["u"])) < np.max(np.abs(small["u"]))
    assert large["train_rmse"] > small["train_rmse"]


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == len(ex.ALPHAS)
    # each panel: n bumps + their sum + sin + data (+ the legend's proxy line)
    assert len(fig.axes[0].lines) >= len(res["X"]) + 3
