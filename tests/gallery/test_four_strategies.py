"""The four strategies learn one model: decision values, objectives and w = Z'u agree."""

import numpy as np
import pytest
from sklearn.svm import SVC

from gallery._load import load_example
from kernelkit.planning import STRATEGIES

ex = load_example("four_strategies")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_the_four_strategies_agree(res):
    assert sorted(res["strategies"]) == sorted(STRATEGIES)
    assert {res["representation"][s] for s in STRATEGIES} == {"primal", "dual"}
    assert max(res["max_difference"].values()) < 1e-10
    objectives = np.array(list(res["objective"].values()))
    assert np.ptp(objectives) < 1e-10 * abs(objectives[0])
    assert len(set(res["train_accuracy"].values())) == 1
    assert len(set(res["test_accuracy"].values())) == 1


def test_primal_coefficients_are_the_dual_ones_mapped_by_the_features(res):
    assert res["w_vs_Zu"] < 1e-10
    # and independently of the example: Z'u with Z from the closed-form basis of (x'y + 1)^2
    X = res["X"]
    x1, x2, r2 = X[:, 0], X[:, 1], np.sqrt(2.0)
    Z = np.column_stack([np.ones(len(X)), r2 * x1, r2 * x2, x1 ** 2, r2 * x1 * x2, x2 ** 2])
    u = res["models"]["gram_cached"].dual_coef_
    f_dual = res["models"]["gram_cached"].decision_function(X)
    assert np.max(np.abs(Z @ (Z.T @ u) - f_dual)) < 1e-10


def test_accuracy_is_that_of_the_exact_svm(res):
    """SGD reaches the accuracy of libsvm's SVM with C = 1 / alpha on the same kernel."""
    X, y = res["X"], res["y"]
    X_test, y_test = ex.circle_data(res["n_test"], seed=1)
    sk = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1.0 / ex.ALPHA).fit(X, y)
    for s in STRATEGIES:
        assert res["test_accuracy"][s] >= sk.score(X_test, y_test) - 0.03
        assert res["train_accuracy"][s] >= 0.95


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert fig.axes[1].get_yscale() == "log"
