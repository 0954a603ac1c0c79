"""Learning in the dual: dual and primal ridge are one model; the ridge classifier is ridge
on +-1 targets; SVR's support vectors are the points on or outside the tube; the losses."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.svm import SVR

from gallery._load import load_example

ex = load_example("learning_in_the_dual")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_dual_and_primal_ridge_are_the_same_function(res):
    assert res["D"] == 56  # monomials of degree <= 3 in 5 variables: C(8, 3)
    assert res["dual_vs_primal"] < 1e-10 and res["w_vs_Zu"] < 1e-10
    # the dual coefficients against scikit-learn's kernel ridge, (K + n lambda I) u = y
    X, y = ex.cubic_data(res["n"], seed=0)
    sk = SkKernelRidge(alpha=res["n"] * ex.LAM, kernel="poly", degree=3, gamma=1.0,
                       coef0=1.0).fit(X, y)
    assert np.allclose(res["u"], sk.dual_coef_, rtol=1e-8, atol=1e-8)


def test_kernel_ridge_plans_dual_for_few_points_and_primal_for_many(res):
    assert res["n_small"] < res["D"] < res["n_large"]
    assert (res["solver_small"], res["solver_large"]) == ("dual", "primal")
    assert res["estimator_vs_dual_small"] < 1e-10 and res["estimator_vs_dual_large"] < 1e-8


def test_ridge_classifier_is_ridge_on_plus_minus_one(res):
    assert res["classifier_vs_ridge"] < 1e-10
    X, y = res["X_banana"], res["y_banana"]
    sk = SkKernelRidge(alpha=0.1, kernel="rbf", gamma=1.0).fit(X, y - y.mean())
    scores = sk.predict(X) + y.mean()
    assert np.max(np.abs(res["classifier"].decision_function(X) - scores)) < 1e-8
    assert res["classifier_accuracy"] == pytest.approx(np.mean(np.sign(scores) == y))


def test_svr_support_vectors_are_outside_the_tube_and_match_scikit_learn(res):
    assert res["max_residual_inside"] <= ex.EPSILON + 1e-6
    assert res["min_residual_support"] >= ex.EPSILON - 1e-3
    assert 0 < res["n_support"] < res["n_sinc"]
    x, t = ex.sinc_data(res["n_sinc"], seed=2)
    sk = SVR(kernel="rbf", gamma=2.0, C=10.0, epsilon=ex.EPSILON, tol=1e-6).fit(x, t)
    grid = np.linspace(-3, 3, 50)[:, None]
    assert np.max(np.abs(sk.predict(grid) - res["svr"].predict(grid))) < 1e-3
    assert abs(len(sk.support_) - res["n_support"]) <= 1


def test_the_losses_closed_forms():
    z = np.linspace(-3, 3, 13)
    one, zero = np.ones_like(z), np.zeros_like(z)
    forms = {
        "squared": (zero, 0.5 * z ** 2),
        "logistic": (one, np.log1p(np.exp(-z))),
        "hinge": (one, np.maximum(0, 1 - z)),
        "squared_hinge": (one, 0.5 * np.maximum(0, 1 - z) ** 2),
        "huber": (zero, np.where(np.abs(z) <= 1, 0.5 * z ** 2, np.abs(z) - 0.5)),
        "epsilon_insensitive": (zero, np.maximum(0, np.abs(z) - ex.EPSILON)),
    }
    for name in ex.LOSSES:
        loss = ex.get_loss(name, ex.EPSILON if name == "epsilon_insensitive" else 1.0)
        y, expected = forms[name]
        assert np.allclose(loss.value(z, y), expected, rtol=0, atol=1e-12), name


def test_plot_draws_three_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert len(fig.axes[0].lines) == len(ex.LOSSES)
