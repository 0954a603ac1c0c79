"""Random features in depth: orthogonal blocks checked on the frequencies, sigma_p^2 against
2 gamma d and the sampled frequencies, the Rahimi-Recht formula written out, the box ERM
against scipy's bounded least squares, KernelMachine(features=...) against ridge on the
features and the same SGD on the feature vectors."""

import warnings

import numpy as np
import pytest
from scipy.optimize import lsq_linear
from sklearn.exceptions import ConvergenceWarning

from gallery._load import load_example
from kernelkit.diagnostics import rahimi_recht_bound, spectral_second_moment
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF, Laplacian, Linear
from kernelkit.models import KernelMachine

ex = load_example("random_features_in_depth")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_orthogonal_features_have_orthogonal_blocks_and_smaller_error(res):
    o = res["orthogonal"]
    for D in o["Ds"]:
        assert o["errors"]["orthogonal", D] < o["errors"]["cos_bias", D]
    for v in ex.VARIANTS:
        assert o["errors"][v, o["Ds"][-1]] < 0.5 * o["errors"][v, o["Ds"][0]]
    X = np.random.default_rng(0).normal(size=(5, ex.ORTHO_D))
    W = RandomFourierFeatures(RBF(gamma=ex.ORTHO_GAMMA), 4 * ex.ORTHO_D, variant="orthogonal",
                              random_state=0).fit(X).random_weights_
    for start in range(0, W.shape[1], ex.ORTHO_D):
        G = W[:, start:start + ex.ORTHO_D].T @ W[:, start:start + ex.ORTHO_D]
        np.testing.assert_allclose(G - np.diag(np.diag(G)), 0.0, atol=1e-10 * G.max())


def test_spectral_second_moment_is_two_gamma_d_and_the_sampled_mean(res):
    rr = res["bound"]
    assert rr["sigma2"] == pytest.approx(2 * ex.BOUND_GAMMA * rr["d"], rel=1e-12)
    # ||w||^2 / (2 gamma) is chi-squared with d degrees of freedom: variance 2 d (2 gamma)^2
    n = rr["n_draws"] * rr["rows"][-1]["D"]
    se = np.sqrt(2 * rr["d"]) * 2 * ex.BOUND_GAMMA / np.sqrt(n)
    assert abs(rr["sigma2_sampled"] - rr["sigma2"]) <= 4 * se
    assert spectral_second_moment(Laplacian(gamma=1.0).spectral_density(), 2) == np.inf
    assert rahimi_recht_bound(100, 0.1, sigma2=np.inf, diameter=1.0, n_features=2) == np.inf


def test_rahimi_recht_bound_written_out_and_never_below_the_measured_frequency(res):
    rr = res["bound"]
    d, eps = rr["d"], ex.BOUND_EPS
    for r in rr["rows"]:
        closed = 2 ** 8 * (np.sqrt(rr["sigma2"]) * rr["diameter"] / eps) ** 2 * np.exp(
            -r["D"] * eps ** 2 / (4 * (d + 2)))
        assert r["bound"] == pytest.approx(closed, rel=1e-12)
        se = np.sqrt(0.25 / rr["n_draws"])
        assert r["measured"] <= r["bound"] + 3 * se
    kw = {"sigma2": rr["sigma2"], "diameter": rr["diameter"], "n_features": d}
    assert rahimi_recht_bound(rr["D_needed"], eps, **kw) <= 0.05
    assert rahimi_recht_bound(rr["D_needed"] - 1, eps, **kw) > 0.05
    # the sampled sup over the pairs: measured P falls from 1 towards 0 as D grows
    measured = [r["measured"] for r in rr["rows"]]
    assert measured[0] == 1.0 and measured[-1] == 0.0


def test_box_erm_is_bounded_least_squares(res):
    ks = res["sinks"]
    Z, y = ks["Z"], ks["y_train"] - ks["y_train"].mean()
    bound = ex.SINKS_C[0] / ks["qs"][-1]
    ref = lsq_linear(Z, y, bounds=(-bound, bound), tol=1e-12, method="bvls")
    direct = ks["direct"]
    assert np.abs(direct.coef).max() <= bound * (1 + 1e-12)
    obj = lambda b: 0.5 * np.mean((Z @ b - y) ** 2)
    assert obj(direct.coef) <= obj(ref.x) * (1 + 1e-6) + 1e-12
    np.testing.assert_allclose(direct.coef, ref.x, atol=1e-3 * bound)


def test_kitchen_sinks_stay_in_the_box_and_a_loose_box_fits(res):
    ks = res["sinks"]
    for (C, q), reg in ks["models"].items():
        assert np.abs(reg.coef_).max() <= C / q * (1 + 1e-12)
        f = reg.feature_map_.transform(ks["X_test"]) @ reg.coef_ + reg.intercept_
        np.testing.assert_allclose(reg.predict(ks["X_test"]), f, rtol=1e-12, atol=1e-12)
    big = ks["qs"][-1]
    assert ks["rmse"][100.0, big] < 0.25  # near the noise, 0.2
    assert ks["rmse"][1.0, big] > 2 * ks["rmse"][100.0, big]  # |f - b| <= C = 1 underfits


def test_kernel_machine_on_random_features_is_ridge_on_the_features(res):
    km = res["machine"]
    for D, m in km["models"].items():
        Z, Zt = m.feature_map_.transform(km["X_train"]), m.feature_map_.transform(km["X_test"])
        assert isinstance(m.feature_map_, RandomFourierFeatures) and Z.shape[1] == D
        # the same SGD on the feature vectors with the linear kernel
        lin = KernelMachine(Linear(), alpha=km["alpha"], solver="sgd",
                            strategy="features_cached", n_epochs=20, average=True,
                            random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lin.fit(Z, km["y_train"])
        np.testing.assert_allclose(m.predict(km["X_test"]), lin.predict(Zt), atol=1e-10)
        # and close to the closed-form ridge on the features
        w = np.linalg.solve(Z.T @ Z + km["alpha"] * np.eye(D), Z.T @ km["y_train"])
        assert np.sqrt(np.mean((Zt @ w - m.predict(km["X_test"])) ** 2)) < 0.02
    assert km["rmse"][km["Ds"][-1]] < km["rmse"][km["Ds"][0]]
    assert km["rmse"][km["Ds"][-1]] < 1.25 * km["exact_rmse"]


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4
    assert fig.axes[0].get_xscale() == "log" and fig.axes[1].get_yscale() == "log"
