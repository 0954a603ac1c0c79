"""Universal features: the table's RMSE is that of the fits on the grid; more random units
fit better (nested least squares); an independent random-cosine least squares agrees."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("universal_features")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_table_is_the_rmse_of_the_fits(res):
    for basis, fit in res["fits"].items():
        assert tuple(fit.q_values) == ex.Q_VALUES
        for target, curves in fit.fits.items():
            rmse = np.sqrt(np.mean((curves - fit.targets[target][None, :]) ** 2, axis=1))
            assert np.allclose(fit.errors[target], rmse, rtol=1e-10)
            # nested features: more units never fit much worse
            assert np.all(np.diff(fit.errors[target]) < 1e-2), (basis, target)
            assert fit.errors[target][-1] < fit.errors[target][0]


def test_targets_are_the_notes_functions(res):
    x = res["fits"]["cosine"].x
    assert np.allclose(res["fits"]["cosine"].targets["sine"], np.sin(3 * np.pi * x))
    assert np.allclose(res["fits"]["cosine"].targets["abs"], np.abs(x))


def test_independent_random_cosines_fit_the_sine(res):
    """Our own draw: 100 cosines cos(w x + b), w ~ N(0, 10^2), least squares by numpy."""
    rng = np.random.default_rng(7)
    w, b = rng.normal(0, 10, 100), rng.uniform(0, 2 * np.pi, 100)
    x_train = rng.uniform(-1, 1, 1000)
    coef = np.linalg.lstsq(np.cos(np.outer(x_train, w) + b), np.sin(3 * np.pi * x_train),
                           rcond=1e-10)[0]
    x = res["fits"]["cosine"].x
    ours = np.sqrt(np.mean((np.cos(np.outer(x, w) + b) @ coef - np.sin(3 * np.pi * x)) ** 2))
    assert ours < 1e-3 and res["fits"]["cosine"].errors["sine"][2] < 1e-3


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3  # one panel per target
