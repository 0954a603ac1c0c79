"""Random cosines: the features are sqrt(2) cos(w'x + b), and the average of their products
converges to the RBF kernel at the Monte-Carlo rate."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("random_cosines")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _one_feature_variance(x):
    """Var of sqrt(2) cos(w x + b) sqrt(2) cos(b) for k = exp(-gamma x^2): 1 + k(2x)/2 - k(x)^2."""
    k = np.exp(-ex.GAMMA * x ** 2)
    return 1.0 + np.exp(-ex.GAMMA * 4 * x ** 2) / 2.0 - k ** 2


def test_features_are_random_cosines():
    X = np.random.default_rng(0).normal(size=(7, 2))
    Z, rff = ex.cosines(X, 5, seed=3)
    by_hand = np.sqrt(2.0) * np.cos(X @ rff.random_weights_ + rff.random_offset_)
    assert np.max(np.abs(Z - by_hand)) < 1e-12


def test_average_converges_to_the_kernel(res):
    x, exact = res["x"], res["exact"]
    assert np.allclose(exact, np.exp(-x ** 2 / 2))  # gamma = 1/2: k(x, 0) = exp(-x^2/2)
    sd = np.sqrt(_one_feature_variance(x) / max(ex.N_AVERAGES))
    assert np.max(np.abs(res["averages"][max(ex.N_AVERAGES)] - exact)) < 5.0 * np.max(sd)
    # the 2-D average of D products: within a few standard deviations everywhere
    assert res["rmse_2d"] < 3.0 * np.sqrt(1.5 / res["n_features_2d"])


def test_error_falls_like_one_over_sqrt_d(res):
    Ds = np.array(list(res["rmse"]), dtype=float)
    errors = np.array(list(res["rmse"].values()))
    slope = np.polyfit(np.log(Ds), np.log(errors), 1)[0]
    assert -0.65 < slope < -0.35
    # the level: RMSE ~ sqrt(mean over the grid of Var_1(x)) / sqrt(D)
    level = np.sqrt(np.mean(_one_feature_variance(res["x"])))
    assert 0.5 * level < np.median(errors * np.sqrt(Ds)) < 1.5 * level


def test_bochner_independently_of_the_library():
    """E[2 cos(w x + b) cos(w y + b)] = exp(-gamma (x - y)^2) with w ~ N(0, 2 gamma)."""
    rng = np.random.default_rng(1)
    w = rng.normal(scale=np.sqrt(2 * ex.GAMMA), size=200_000)
    b = rng.uniform(0, 2 * np.pi, size=w.size)
    for x in (0.0, 0.7, 1.5, 3.0):
        mean = np.mean(2 * np.cos(w * x + b) * np.cos(b))
        assert abs(mean - np.exp(-ex.GAMMA * x ** 2)) < 5 * np.sqrt(1.5 / w.size)


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 6
    assert fig.axes[2].get_xscale() == "log"
