"""The bounds of the generalisation-bounds example, recomputed here from their closed
forms (B by a brute-force quadratic form), hold against the gaps recomputed from the
fitted models' decision values."""

import math

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("generalization_bounds")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _loss(y, f):
    return np.mean(np.log1p(np.exp(-y * f)))  # small |f| here: no overflow


def test_rademacher_bound_holds_against_the_observed_gap(res):
    delta = ex.DELTA
    for row in res["rademacher"]:
        n, model = row["n"], row["model"]
        X, y, X_test, y_test = ex.banana(n, res["n_test"])
        np.testing.assert_array_equal(model.X_fit_, X)
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))  # RBF(gamma=1) by hand
        u = model.dual_coef_
        B = math.sqrt(u @ K @ u)
        bound = 2 * B * math.sqrt(np.trace(K)) / n + 3 * (2 * B) * math.sqrt(
            math.log(2 / delta) / (2 * n))
        assert row["B"] == pytest.approx(B, rel=1e-8)
        assert row["bound"] == pytest.approx(bound, rel=1e-8)
        gap = _loss(y_test, model.decision_function(X_test)) - _loss(y, model.decision_function(X))
        assert row["gap"] == pytest.approx(gap, abs=1e-12)
        assert bound >= gap
        # f is in the class: |f(x)| <= B kappa = B everywhere (reproducing property)
        assert np.abs(model.decision_function(X_test)).max() <= B * (1 + 1e-9)


def test_kitchen_sink_deviation_bound_holds_against_the_observed_gap(res):
    n, C, delta = res["n_sinks"], ex.C_SINKS, ex.DELTA
    X, y, X_test, y_test = ex.banana(n, res["n_test"])
    deviation = 2 * C / math.sqrt(n) * (1 + math.sqrt(math.log(2 / delta) / 2))
    for row in res["sinks"]:
        model, q = row["model"], row["q"]
        assert np.abs(model.coef_).max() <= C / q * (1 + 1e-9)  # the box of the theorem
        assert model.intercept_ == 0.0
        f_test = model.decision_function(X_test)
        assert np.abs(f_test).max() <= C * (1 + 1e-9)  # |f| <= sum |beta| <= C
        gap = _loss(y_test, f_test) - _loss(y, model.decision_function(X))
        assert row["gap"] == pytest.approx(gap, abs=1e-12)
        assert row["deviation_bound"] == pytest.approx(deviation, rel=1e-12)
        assert deviation >= abs(gap)
        approximation = C / math.sqrt(q) * (1 + math.sqrt(2 * math.log(1 / delta)))
        assert row["bound"] == pytest.approx(2 * deviation + approximation, rel=1e-12)
    # more sinks: a smaller approximation term and a lower test loss
    assert res["sinks"][-1]["approximation"] < res["sinks"][0]["approximation"]
    assert res["sinks"][-1]["test_loss"] < res["sinks"][0]["test_loss"]


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in fig.axes)
