"""The approximation error of random Fourier features on cpu_act: Hoeffding's level is the
closed form sqrt(8 log(2/delta) / D), the error falls like 1/sqrt(D), the worst pair stays
under Rahimi & Recht's uniform level."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("approximation_error")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_hoeffding_level_is_the_closed_form(res):
    D = np.array(res["n_features"], dtype=float)
    for curve in res["curves"].values():
        assert curve.scale == 1.0 and curve.delta == pytest.approx(0.05)
        assert np.allclose(curve.hoeffding_epsilon, np.sqrt(8 * np.log(2 / 0.05) / D))
        # for one pair the error is rarely above it; averaged over all pairs, never
        assert np.all(np.median(curve.mean_error, axis=1) < curve.hoeffding_epsilon)


def test_rbf_second_moment_and_laplacian_without_uniform_bound(res):
    rbf = res["curves"]["RBF"]
    assert rbf.kernel.startswith("RBF(gamma=")
    g = float(rbf.kernel.split("gamma=")[1].rstrip(")"))
    assert rbf.sigma2 == pytest.approx(2 * g * 21)  # w ~ N(0, 2 gamma I) in 21 dimensions
    assert np.all(np.isinf(res["curves"]["Laplacian"].uniform_epsilon))


def test_error_falls_like_one_over_sqrt_d(res):
    D = np.array(res["n_features"], dtype=float)
    for name, curve in res["curves"].items():
        slope = np.polyfit(np.log(D), np.log(np.median(curve.mean_error, axis=1)), 1)[0]
        assert -0.6 < slope < -0.4, name
        finite = np.isfinite(curve.uniform_epsilon)
        assert np.all(np.max(curve.max_error, axis=1)[finite] < curve.uniform_epsilon[finite])


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert all(ax.get_xscale() == "log" for ax in fig.axes)
