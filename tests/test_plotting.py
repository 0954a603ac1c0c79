"""plotting: the universal-features fit (numbers) and the figures (Agg, no display)."""

import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from kernelkit.diagnostics import approximation_curve  # noqa: E402
from kernelkit.kernels import RBF, Laplacian  # noqa: E402
from kernelkit.plotting import (TARGET_FUNCTIONS, plot_approximation_curve,  # noqa: E402
                                plot_universal_features, universal_features_fit)


@pytest.mark.parametrize("basis", ["cosine", "relu", "step"])
def test_fit_error_decreases_with_q(basis):
    res = universal_features_fit((5, 20, 100, 500), basis=basis, random_state=0)
    for name, err in res.errors.items():
        assert err.shape == (4,)
        assert np.all(np.diff(err) <= 1e-6 + 0.05 * err[:-1]), (name, err)
        assert err[-1] < 0.5 * err[0], (name, err)
    # the errors are the RMSE of the stored fits against the targets on the grid
    fit = res.fits["abs"][2]
    assert np.sqrt(np.mean((fit - np.abs(res.x)) ** 2)) == pytest.approx(res.errors["abs"][2])
    assert len(res.table()) == 12


def test_smooth_target_is_fitted_closely_and_step_is_hardest():
    res = universal_features_fit((5, 500), basis="cosine", random_state=1)
    assert res.errors["sine"][-1] < 1e-3
    assert res.errors["step"][-1] > res.errors["abs"][-1]


def test_least_squares_against_an_independent_solve():
    """With q = 5 features the fit is the ordinary least-squares solution."""
    res = universal_features_fit((5,), targets={"cube": lambda x: x ** 3}, basis="relu",
                                 n_train=200, random_state=np.random.RandomState(3))
    # redraw the same training points and units with the same seed
    r = np.random.RandomState(3)
    x_train = r.uniform(-1, 1, 200)
    c, s = r.uniform(-1, 1, 5), r.choice([-1.0, 1.0], 5)
    P = np.maximum(s * (x_train[:, None] - c), 0)
    coef = np.linalg.lstsq(P, x_train ** 3, rcond=None)[0]
    expected = np.maximum(s * (res.x[:, None] - c), 0) @ coef
    assert np.allclose(res.fits["cube"][0], expected, atol=1e-8)


def test_universal_features_figure():
    fig = plot_universal_features(q_values=(5, 50), targets=("sine", "step"))
    axes = fig.get_axes()
    assert len(axes) == 2
    assert all(len(ax.get_lines()) == 3 for ax in axes)  # target + 2 fits
    assert "sine" in axes[0].get_title()
    fig.savefig(__import__("io").BytesIO(), format="png")


def test_approximation_curve_figure():
    X = np.random.default_rng(0).normal(size=(60, 3))
    curve = approximation_curve(RBF(gamma=0.3), X, [10, 100], n_repeats=2)
    fig = plot_approximation_curve(curve)
    ax = fig.get_axes()[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [line.get_label() for line in ax.get_lines()]
    assert len(labels) == 4 and any("Rahimi-Recht" in s for s in labels)
    assert np.allclose(ax.get_lines()[0].get_ydata(), np.median(curve.max_error, axis=1))
    # Laplacian: no uniform bound, the note says why; drawn into a given Axes
    from matplotlib.figure import Figure

    lap = approximation_curve(Laplacian(0.3), X, [10, 100], n_repeats=2)
    fig2 = Figure()
    ax2 = fig2.add_subplot()
    assert plot_approximation_curve(lap, ax=ax2) is fig2
    assert not any("Rahimi-Recht" in line.get_label() for line in ax2.get_lines())
    assert any("infinite second moment" in " ".join(t.get_text().split()) for t in ax2.texts)


def test_bad_arguments():
    with pytest.raises(ValueError, match="basis"):
        universal_features_fit(basis="wavelet")
    with pytest.raises(ValueError, match="unknown target"):
        universal_features_fit(targets=("sine", "sawtooth"))
    with pytest.raises(ValueError, match="q_values"):
        universal_features_fit(q_values=(0, 5))
    with pytest.raises(TypeError, match="not both"):
        plot_universal_features(universal_features_fit((5,)), q_values=(5,))
    assert set(TARGET_FUNCTIONS) == {"sine", "abs", "step"}


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        plot_universal_features(q_values=(5,))
