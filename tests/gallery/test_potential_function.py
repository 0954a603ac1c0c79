"""The kernel perceptron (potential-function method): converges on separable data, within
Novikoff's bound (R / gamma)^2 computed here, and equals the perceptron on explicit features."""

import numpy as np
import pytest
from scipy.optimize import minimize

from gallery._load import load_example

ex = load_example("potential_function")
POLY, RBF = "polynomial (x'y + 1)^2", "gaussian potential"


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _features(name, X):
    """Exact features with Z Z' = K: the monomials of (x'y + 1)^2 by hand, or Cholesky for RBF."""
    if name == POLY:
        x1, x2, r = X[:, 0], X[:, 1], np.sqrt(2.0)
        return np.column_stack([np.ones(len(X)), r * x1, r * x2, x1 ** 2, r * x1 * x2, x2 ** 2])
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    return np.linalg.cholesky(np.exp(-sq) + 1e-12 * np.eye(len(X)))


def _max_margin(Z, y):
    """gamma of min ||w||^2 s.t. y_i w'z_i >= 1 (SLSQP on the primal), from the solution found."""
    A = y[:, None] * Z
    sol = minimize(lambda w: (w @ w, 2 * w), np.linalg.lstsq(A, np.ones(len(y)), rcond=None)[0],
                   jac=True, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda w: A @ w - 1.0,
                                 "jac": lambda w: A}], options={"maxiter": 500, "ftol": 1e-12})
    w = sol.x
    return float(np.min(A @ w) / np.linalg.norm(w))


@pytest.mark.parametrize("name", [POLY, RBF])
def test_converges_within_novikoffs_bound(res, name):
    X, y = res["X"], res["y"]
    r = res["kernels"][name]
    assert r["converged"] and r["train_accuracy"] == 1.0
    Z = _features(name, X)
    R = np.sqrt(np.max(np.sum(Z ** 2, axis=1)))
    gamma = _max_margin(Z, y)
    assert gamma > 0  # the data are separable in this feature space
    assert len(r["mistakes"]) <= (R / gamma) ** 2
    assert r["R"] == pytest.approx(R, rel=1e-9)
    # the example's margin is that of a real separator: at most the optimum, and close to it
    assert r["gamma"] <= gamma * (1 + 1e-6)
    assert r["gamma"] == pytest.approx(gamma, rel=1e-3)
    # charges: one per mistake
    assert r["charges"].sum() == len(r["mistakes"])
    assert np.array_equal(np.bincount(r["mistakes"], minlength=len(y)), r["charges"])


def test_kernel_perceptron_is_the_explicit_feature_perceptron(res):
    assert res["primal"]["mistakes"] == res["kernels"][POLY]["mistakes"]
    assert res["primal"]["max_difference"] < 1e-10
    # w = sum_i c_i y_i phi(x_i)
    X, y = res["X"], res["y"]
    w = _features(POLY, X).T @ (res["kernels"][POLY]["charges"] * y)
    assert np.max(np.abs(w - res["primal"]["w"])) < 1e-10


def test_perceptron_loop_on_a_textbook_case():
    """Two points, linear kernel: x = (1, 0), y = +1 and x = (0, 1), y = -1."""
    K = np.array([[1.0, 0.0], [0.0, 1.0]])
    charges, mistakes, steps, epochs, converged = ex.kernel_perceptron(K, np.array([1.0, -1.0]))
    assert mistakes == [0, 1] and steps == [0, 1] and epochs == 2 and converged
    assert np.array_equal(charges, [1.0, 1.0])


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert fig.axes[2].get_yscale() == "symlog"
