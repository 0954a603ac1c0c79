"""The circle example: (x'y)^2 is phi(x)'phi(y); the degree-2 SVM separates, the linear one cannot."""

import numpy as np
import pytest
from sklearn.svm import SVC

from gallery._load import load_example

ex = load_example("circle")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_kernel_is_the_inner_product_of_the_explicit_map():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(40, 2)), rng.normal(size=(30, 2))
    K = (X @ Y.T) ** 2  # the closed form, written here
    assert np.max(np.abs(K - ex.phi(X) @ ex.phi(Y).T)) < 1e-12
    # phi by hand: (x1^2, sqrt(2) x1 x2, x2^2)
    x = np.array([[1.5, -2.0]])
    assert np.allclose(ex.phi(x), [[2.25, -3.0 * np.sqrt(2.0), 4.0]], rtol=0, atol=1e-15)


def test_degree_two_separates_and_linear_cannot(res):
    assert res["kernel_vs_phi"] < 1e-12
    assert res["phi_vs_explicit_features"] < 1e-12
    assert res["poly_train"] == 1.0 and res["poly_test"] == 1.0
    assert res["linear_test"] < 0.9
    # no linear rule beats "always outside" by much here; the inside share is the check
    assert res["linear_test"] <= 1.0 - res["inside_share"] + 0.02
    # the kernel SVM and the linear SVM on phi(x) are one model
    assert res["decision_poly_vs_plane"] < 1e-3
    # the plane is the circle: w1 ~ w3, w2 ~ 0, offset ~ r^2 (up to the margin's slack)
    w, b = res["plane_w"], res["plane_b"]
    assert abs(w[0] - w[2]) < 0.15 * abs(w[0]) and abs(w[1]) < 0.15 * abs(w[0])
    assert abs(-b / (0.5 * (w[0] + w[2])) - ex.RADIUS ** 2) < 0.2


def test_scikit_learn_agrees(res):
    X, y, X_test, y_test = res["X"], res["y"], res["X_test"], res["y_test"]
    for key, sk in (("poly", SVC(kernel="poly", degree=2, gamma=1.0, coef0=0.0, C=ex.C)),
                    ("linear", SVC(kernel="linear", C=ex.C))):
        sk.fit(X, y)
        assert abs(sk.score(X_test, y_test) - res[f"{key}_test"]) <= 0.01


def test_plot_has_the_plane_and_the_boundaries(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert fig.axes[1].name == "3d"
