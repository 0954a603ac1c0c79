"""The kernel shapes example: k(0, t) against the closed forms (and scikit-learn's Matern),
the spline kernel against its integral, the spectra's decay i^-(2 nu + 1), and the effective
dimension against trace(K (K + n alpha I)^-1)."""

import numpy as np
import pytest
from scipy.integrate import quad
from sklearn.gaussian_process.kernels import Matern as SkMatern

from gallery._load import load_example

ex = load_example("kernel_shapes")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_curves_are_the_closed_forms(res):
    t, c = res["t"], res["curves"]
    closed = {
        "Gaussian (RBF)": np.exp(-t ** 2 / 2),
        "Laplacian": np.exp(-np.abs(t)),
        "Cauchy": 1.0 / (1.0 + t ** 2),
    }
    for nu in (0.5, 1.5, 2.5):
        name = {0.5: "Matern nu = 1/2", 1.5: "Matern nu = 3/2", 2.5: "Matern nu = 5/2"}[nu]
        closed[name] = SkMatern(length_scale=1.0, nu=nu)(np.zeros((1, 1)), t[:, None])[0]
    for name, k in closed.items():
        assert np.max(np.abs(c[name]["k"] - k)) < 1e-12, name
        assert c[name]["at_1"] == pytest.approx(np.interp(1.0, t, k), abs=1e-12)
    # Matern 1/2 is the Laplacian; the kink: slope -1 at 0+, the smooth ones are flat there
    assert np.max(np.abs(c["Matern nu = 1/2"]["k"] - c["Laplacian"]["k"])) < 1e-15
    for name, entry in c.items():
        expected = -1.0 if name in ("Matern nu = 1/2", "Laplacian") else 0.0
        assert entry["slope_0"] == pytest.approx(expected, abs=1e-4), name


def _spline_by_quadrature(s, t, order):
    poly = sum((s * t) ** r for r in range(order + 1))
    integral = quad(lambda u: max(s - u, 0.0) ** order * max(t - u, 0.0) ** order,
                    0.0, max(min(s, t), 1e-300))[0]
    return poly + integral


def test_spline_kernel_is_its_integral_over_the_knots(res):
    grid = res["s_grid"]
    for (order, s), values in res["spline"].items():
        for j in range(0, len(grid), 10):
            assert values[j] == pytest.approx(_spline_by_quadrature(s, grid[j], order),
                                              rel=1e-10, abs=1e-12)
        if order == 0:  # 1 + min(s, t): flat after the knot at s
            assert np.allclose(values[grid >= s], 1.0 + s, rtol=0, atol=1e-14)


def test_spectra_decay_like_the_smoothness_says(res):
    e = res["exponents"]
    for name, nu in (("Matern nu = 1/2", 0.5), ("Matern nu = 3/2", 1.5),
                     ("Matern nu = 5/2", 2.5)):
        assert e[name] == pytest.approx(-(2 * nu + 1), abs=0.5), name
    assert e["Laplacian"] == pytest.approx(e["Matern nu = 1/2"], abs=1e-6)
    assert e["linear spline"] == pytest.approx(-4.0, abs=0.6)  # like nu = 3/2 (Sobolev H^2)
    assert e["Gaussian (RBF)"] < -10 and e["Cauchy"] < -8  # faster than any power


def test_effective_dimension_is_the_trace_formula(res):
    x, n = res["x"], res["n"]
    d = np.abs(x - x.T)
    grams = {"Gaussian (RBF)": np.exp(-d ** 2 / (2 * 0.2 ** 2)), "Laplacian": np.exp(-d / 0.2)}
    for name, K in grams.items():
        for alpha, value in zip(res["alphas"], res["at_alphas"][name]):
            trace = np.trace(np.linalg.solve(K + n * alpha * np.eye(n), K))
            assert value == pytest.approx(trace, rel=1e-8), (name, alpha)
    for name, curve in res["d_eff"].items():
        assert np.all(np.diff(curve) < 0) and np.all((curve > 0) & (curve < n)), name
    # at one penalty the rougher kernel resolves more directions
    i = res["alphas"].index(1e-4)
    order = ["Gaussian (RBF)", "Matern nu = 5/2", "Matern nu = 3/2", "Matern nu = 1/2"]
    values = [res["at_alphas"][name][i] for name in order]
    assert values == sorted(values)


def test_plot_has_four_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4
    assert fig.axes[2].get_xscale() == "log" and fig.axes[3].get_xscale() == "log"
