"""Random Fourier features: the mean of z(x)'z(y) is k(x, y); the variance is the closed form
/ D, and the closed form itself matches a quadrature of its definition."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("rff_unbiasedness")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _variance_by_quadrature(delta, gamma, variant):
    """Var of one feature's product at x = 0, ||y|| = delta, from its definition:
    t = w'y ~ Normal(0, 2 gamma delta^2) (Gauss-Hermite), b ~ U[0, 2 pi] (trapezoid, periodic)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    t = np.sqrt(2.0 * gamma) * delta * nodes
    weights = weights / weights.sum()
    k = np.exp(-gamma * delta ** 2)
    if variant == "paired":  # one frequency: cos(w'x) cos(w'y) + sin(w'x) sin(w'y) = cos(t)
        return weights @ np.cos(t) ** 2 - k ** 2
    b = np.linspace(0.0, 2.0 * np.pi, 256, endpoint=False)
    prod = 2.0 * np.cos(b)[None, :] * np.cos(t[:, None] + b[None, :])
    return weights @ np.mean(prod ** 2, axis=1) - k ** 2


@pytest.mark.parametrize("variant", ["cos_bias", "paired"])
@pytest.mark.parametrize("delta", [0.0, 0.3, 1.0, 2.0, 3.5])
def test_closed_form_variance_against_quadrature(variant, delta):
    one = _variance_by_quadrature(delta, ex.GAMMA, variant)
    # the example's closed form is for D features (D/2 frequencies when paired): times D
    per_feature = one if variant == "cos_bias" else 2.0 * one
    assert ex.feature_variance(delta, variant) == pytest.approx(per_feature, abs=1e-12)
    k, k2 = np.exp(-ex.GAMMA * delta ** 2), np.exp(-ex.GAMMA * 4 * delta ** 2)
    if variant == "paired":  # the form (1 + k(2 delta) - 2 k(delta)^2) / 2 per frequency
        assert one == pytest.approx((1.0 + k2 - 2.0 * k ** 2) / 2.0, abs=1e-12)
    else:  # the offset b adds 1/2 to it
        assert one == pytest.approx((1.0 + k2 - 2.0 * k ** 2) / 2.0 + 0.5, abs=1e-12)


def test_mean_is_the_kernel(res):
    R = res["n_draws"]
    for (variant, D), E in res["samples"].items():
        for delta, e in zip(ex.DISTANCES, E):
            k = np.exp(-ex.GAMMA * delta ** 2)
            se = np.sqrt(ex.feature_variance(delta, variant) / D / R)
            assert abs(e.mean() - k) <= 4.0 * se + 1e-12, (variant, D, delta)


def test_variance_is_the_closed_form_over_d(res):
    R = res["n_draws"]
    for (variant, D), E in res["samples"].items():
        for delta, e in zip(ex.DISTANCES, E):
            closed = ex.feature_variance(delta, variant) / D
            if closed == 0.0:  # paired features at delta = 0: exactly 1 every time
                assert np.max(np.abs(e - 1.0)) < 1e-12
                continue
            c = e - e.mean()
            se_var = np.sqrt((np.mean(c ** 4) - np.var(c) ** 2) / R)
            assert abs(np.var(e, ddof=1) - closed) <= 4.0 * se_var, (variant, D, delta)


def test_variance_shrinks_like_one_over_d(res):
    for variant in ex.VARIANTS:
        for j, delta in enumerate(ex.DISTANCES):
            if ex.feature_variance(delta, variant) == 0.0:
                continue
            v10 = np.var(res["samples"][variant, 10][j])
            v1000 = np.var(res["samples"][variant, 1000][j])
            assert 100.0 * 0.75 < v10 / v1000 < 100.0 * 1.33


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert fig.axes[1].get_xscale() == "log" and fig.axes[1].get_yscale() == "log"


def test_paired_features_vary_less_at_the_same_d():
    """cos + b minus paired, at D features: (k(delta)^2 - k(2 delta)/2) / D >= 0."""
    for delta in np.linspace(0.0, 4.0, 41):
        k, k2 = np.exp(-ex.GAMMA * delta ** 2), np.exp(-ex.GAMMA * 4 * delta ** 2)
        gap = ex.feature_variance(delta, "cos_bias") - ex.feature_variance(delta, "paired")
        assert gap == pytest.approx(k ** 2 - k2 / 2.0, abs=1e-14) and gap >= 0.0
