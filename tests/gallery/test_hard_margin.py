"""The hard-margin SVM: its margin 1/||w|| is the brute-force QP's (SLSQP on the notes'
normalised form min ||w||^2/2 s.t. y_i (w'x_i + b) >= 1), its support vectors are the QP's
active constraints, and the soft margins shrink to it as C grows."""

import numpy as np
import pytest
from scipy.optimize import minimize

from gallery._load import load_example

ex = load_example("hard_margin")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _qp(X, y):
    cons = {"type": "ineq", "fun": lambda t: y * (X @ t[:2] + t[2]) - 1.0,
            "jac": lambda t: np.column_stack([y[:, None] * X, y])}
    out = minimize(lambda t: 0.5 * t[:2] @ t[:2], np.zeros(3), jac=lambda t: np.r_[t[:2], 0.0],
                   constraints=[cons], method="SLSQP", options={"ftol": 1e-15, "maxiter": 500})
    assert out.success
    return out.x[:2], out.x[2]


def test_margin_is_the_brute_force_qps(res):
    X, y = res["X"], res["y"]
    w, b = _qp(X, y)
    hard = res["fits"][np.inf]
    assert hard["margin"] == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-6)
    np.testing.assert_allclose(hard["w"], w, atol=1e-5)
    assert hard["b"] == pytest.approx(b, abs=1e-5)
    # ||w||^2 = sum of the alphas at the optimum
    assert hard["sum_alpha"] == pytest.approx(w @ w, rel=1e-6)
    # the support vectors are the QP's active constraints y_i f(x_i) = 1
    active = np.flatnonzero(y * (X @ w + b) < 1 + 1e-5)
    np.testing.assert_array_equal(np.sort(hard["support"]), active)


def test_soft_margins_shrink_to_the_hard_one(res):
    margins = [res["fits"][C]["margin"] for C in res["Cs"]]
    assert all(a >= b - 1e-9 for a, b in zip(margins, margins[1:]))
    assert res["fits"][np.inf]["inside"] == 0
    assert res["fits"][min(res["Cs"])]["inside"] > 0


def test_rbf_hard_margin_separates_the_rings(res):
    margins, support = res["rbf_margins"], res["rbf_support"]
    assert margins.min() > 1 - 1e-6
    np.testing.assert_allclose(margins[support], 1.0, atol=1e-4)


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4
    # the classifiers' panels: fills, margin lines, points, support vectors
    assert all(len(ax.collections) >= 4 for ax in fig.axes[:3])
    assert len(fig.axes[3].lines) == 4  # two tubes' centres, the data, the outlier


def test_hard_tube_holds_every_point_and_the_outlier_drags_the_fit(res):
    from sklearn.svm import SVR

    tube = res["tube"]
    X, out, eps = tube["X"], tube["outlier"], tube["epsilon"]
    for fit in tube["fits"].values():
        assert fit["max_residual"] <= eps + 1e-4
        # the hard tube is scikit-learn's SVR at a very large C
        ref = SVR(kernel="rbf", gamma=tube["gamma"], C=1e10, epsilon=eps, tol=1e-8)
        ref.fit(X, fit["y"])
        np.testing.assert_allclose(fit["train"], ref.predict(X), atol=1e-3)
    dragged = tube["fits"]["one outlier"]
    assert dragged["train"][out] >= dragged["y"][out] - eps - 1e-4
    assert tube["largest_move"] > 1.0
