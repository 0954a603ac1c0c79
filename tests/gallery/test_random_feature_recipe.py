"""The random-feature recipe: a saved pipeline predicts identically, and the recipe
approaches the exact kernel model (computed here, independently of the example)."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from gallery._load import load_example
from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.kernels import RBF

ex = load_example("random_feature_recipe")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _exact_ridge_rmse(n_train, n_test):
    """Kernel ridge with an unpenalised intercept by hand: centre y, solve (K + a I) u = y_c,
    on standardised inputs (the train split's mean and std)."""
    Xr, yr, Xt, yt = ex.split(*load_cpu_act(return_X_y=True), n_train, n_test)
    mu, sd = Xr.mean(0), Xr.std(0)
    sd[sd == 0] = 1.0
    Xr, Xt = (Xr - mu) / sd, (Xt - mu) / sd
    k = RBF(gamma=ex.REGRESSION_GAMMA)
    u = np.linalg.solve(k(Xr) + ex.REGRESSION_ALPHA * np.eye(len(Xr)), yr - yr.mean())
    return float(np.sqrt(np.mean((k(Xt, Xr) @ u + yr.mean() - yt) ** 2)))


def test_saved_recipes_predict_identically(res):
    assert all(r["reload_difference"] == 0.0 for r in res["rows"])


def test_the_recipe_is_within_reach_of_the_exact_kernel_model(res):
    exact = _exact_ridge_rmse(res["n_regression"], res["n_test"])
    assert res["exact_rmse"] == pytest.approx(exact, rel=1e-6)  # KernelRidge is kernel ridge
    largest = res["rows"][-1]
    # stated distances: within 10% of the exact RMSE, 2 points of accuracy at D = 800
    assert largest["rmse"] <= 1.10 * exact
    assert largest["rmse"] < 0.6 * res["regression_baseline"]  # and far better than the mean
    assert largest["accuracy"] >= res["exact_accuracy"] - 0.02
    assert largest["agreement"] >= 0.95
    # more features, closer to the exact model's predictions
    assert largest["rmse_gap_to_exact"] < res["rows"][0]["rmse_gap_to_exact"]


def test_ridge_on_random_features_is_kernel_ridge_on_their_kernel(res):
    """The recipe's Ridge equals kernel ridge with k(x, y) = psi(x)'psi(y), exactly (its
    intercept centres the features and y: the kernel of the centred features)."""
    Xr, yr, Xt, _ = ex.split(*load_cpu_act(return_X_y=True), 200, 50)
    model = ex.regression_recipe(100).fit(Xr, yr)
    scaler, rff, ridge = model.steps[0][1], model.steps[1][1], model.steps[2][1]
    assert isinstance(ridge, Ridge)
    Z, Zt = rff.transform(scaler.transform(Xr)), rff.transform(scaler.transform(Xt))
    Zc, Ztc = Z - Z.mean(0), Zt - Z.mean(0)
    u = np.linalg.solve(Zc @ Zc.T + ex.REGRESSION_ALPHA * np.eye(len(Z)), yr - yr.mean())
    np.testing.assert_allclose(model.predict(Xt), Ztc @ (Zc.T @ u) + yr.mean(), rtol=1e-8)
    cls = ex.classification_recipe(50).fit(*ex.split(*load_banana(return_X_y=True), 100, 10)[:2])
    assert isinstance(cls.steps[-1][1], LogisticRegression)


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert fig.axes[0].get_xscale() == "log"
    assert "RMSE" in fig.axes[0].get_ylabel() and "error" in fig.axes[1].get_ylabel()
