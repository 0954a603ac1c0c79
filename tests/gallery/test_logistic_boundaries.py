"""Kernel logistic regression's boundaries: with the linear and polynomial kernels it is
scikit-learn's LogisticRegression on the explicit features (same C), and with RBF on the
features of an exact factorisation K = Z Z'."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from gallery._load import load_example
from kernelkit.features import ExplicitFeatures

ex = load_example("logistic_boundaries")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _closed_form_gram(name, A, B):
    if name == "linear":
        return A @ B.T + 1.0
    if name == "polynomial":
        return (A @ B.T + 1.0) ** 3
    sq = (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-np.maximum(sq, 0.0))


def _reference_proba(Z, y, Z_test):
    sk = LogisticRegression(C=ex.C, fit_intercept=False, solver="newton-cholesky", tol=1e-12,
                            max_iter=1000).fit(Z, y)
    return sk.predict_proba(Z_test)[:, list(sk.classes_).index(1)]


@pytest.mark.parametrize("name", ["linear", "polynomial"])
def test_probabilities_match_logistic_regression_on_explicit_features(res, name):
    X, y, X_test = res["X"], res["y"], res["X_test"]
    fmap = ExplicitFeatures(ex.KERNELS[name]).fit(X)
    Z, Z_test = fmap.transform(X), fmap.transform(X_test)
    K = _closed_form_gram(name, X, X)  # the features are the kernel's: Z Z' = K
    assert np.max(np.abs(Z @ Z.T - K)) < 1e-10 * np.max(np.abs(K))
    model = res["models"][name]
    proba = model.predict_proba(X_test)[:, list(model.classes_).index(1)]
    assert np.max(np.abs(proba - _reference_proba(Z, y, Z_test))) < 1e-5


def test_rbf_probabilities_match_logistic_regression_on_exact_features(res):
    """K = L L' (Cholesky): z(x) = L^-1 k(X, x) reproduces k on the training points, and
    the penalised model lives in their span, so LogisticRegression on z is the same model."""
    X, y, X_test = res["X"], res["y"], res["X_test"]
    K = _closed_form_gram("rbf", X, X)
    L = np.linalg.cholesky(K + 1e-12 * np.eye(len(X)))
    Z = L  # rows z(x_i) = L^-1 K[:, i] = L[i]
    Z_test = np.linalg.solve(L, _closed_form_gram("rbf", X, X_test)).T
    model = res["models"]["rbf"]
    proba = model.predict_proba(X_test)[:, list(model.classes_).index(1)]
    assert np.max(np.abs(proba - _reference_proba(Z, y, Z_test))) < 1e-5


def test_more_flexible_kernels_fit_banana_better(res):
    rows = res["rows"]
    assert rows["linear"]["test_accuracy"] < 0.65  # a line cannot follow the bananas
    assert rows["polynomial"]["train_log_loss"] < rows["linear"]["train_log_loss"]
    assert rows["rbf"]["test_accuracy"] > rows["polynomial"]["test_accuracy"] + 0.05


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4  # three panels and the colour bar
    assert [ax.get_title().split(":")[0] for ax in fig.axes[:3]] == list(ex.LABELS.values())
