"""KernelLogisticRegressionCV against GridSearchCV(KernelLogisticRegression) on the same
grid and folds: same scores (to the solvers' tolerance), same choice, same refit."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import KernelLogisticRegression, KernelLogisticRegressionCV
from kernelkit.tuning import GridEdgeWarning

CS = [0.1, 1.0, 10.0]
GAMMAS = [0.01, 0.1]


def _data(name):
    if name == "binary":
        X, y = make_classification(120, 5, flip_y=0.1, random_state=0)
    else:
        X, y = load_wine(return_X_y=True)
        X, y = X[::2], y[::2]  # 89 rows: the reference search stays fast
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("data, multi_class, scoring", [
    ("binary", "multinomial", "neg_log_loss"), ("wine", "ovr", None),
    ("wine", "multinomial", "neg_log_loss")])
def test_equals_grid_search(data, multi_class, scoring):
    X, y = _data(data)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = KernelLogisticRegressionCV(RBF(gamma=1.0), Cs=CS, param_grid={"gamma": GAMMAS},
                                        cv=cv, multi_class=multi_class, scoring=scoring)
    # Newton where it applies (binary, one-vs-rest): the same optimum as "auto"'s L-BFGS, faster
    solver = "lbfgs" if data == "wine" and multi_class == "multinomial" else "newton"
    reference = GridSearchCV(KernelLogisticRegression(RBF(gamma=1.0), multi_class=multi_class,
                                                      solver=solver),
                             {"C": CS, "kernel__gamma": GAMMAS}, cv=cv, scoring=scoring)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y)
    reference.fit(X, y)
    ours = {(p["C"], p["gamma"]): s for p, s in zip(search.cv_results_["params"],
                                                    search.cv_results_["mean_test_score"])}
    for p, s in zip(reference.cv_results_["params"], reference.cv_results_["mean_test_score"]):
        assert ours[(p["C"], p["kernel__gamma"])] == pytest.approx(s, abs=1e-6)
    assert search.best_params_ == {"C": reference.best_params_["C"],
                                   "gamma": reference.best_params_["kernel__gamma"]}
    best = reference.best_estimator_
    assert np.allclose(search.predict_proba(X), best.predict_proba(X), atol=1e-5)
    assert np.array_equal(search.predict(X), best.predict(X))
    assert np.array_equal(search.classes_, best.classes_)


def test_refit_and_edge_warning():
    X, y = _data("binary")
    with pytest.warns(GridEdgeWarning, match="C="):
        search = KernelLogisticRegressionCV(RBF(gamma=0.1), Cs=[1e-3, 2e-3], cv=3).fit(X, y)
    best = KernelLogisticRegression(RBF(gamma=0.1), C=search.C_).fit(X, y)
    assert np.allclose(search.decision_function(X), best.decision_function(X), atol=1e-6)
    assert np.allclose(search.predict_log_proba(X), best.predict_log_proba(X), atol=1e-6)
    assert search.plan_.choices[1].value  # warm starts along C


def test_bad_input():
    X, y = _data("binary")
    with pytest.raises(InvalidParameterError, match="does not take kernel='precomputed'"):
        KernelLogisticRegressionCV("precomputed").fit(X @ X.T, y)
    with pytest.raises(InvalidParameterError, match="Cs must be"):
        KernelLogisticRegressionCV(Cs=[0.0]).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        KernelLogisticRegressionCV().fit(X, np.ones(len(y)))


def test_sample_weight_as_grid_search():
    X, y = _data("binary")
    w = np.random.default_rng(3).uniform(0.0, 2.0, len(y))
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = KernelLogisticRegressionCV(RBF(gamma=0.1), Cs=CS, cv=cv)
    reference = GridSearchCV(KernelLogisticRegression(RBF(gamma=0.1), solver="newton"),
                             {"C": CS}, cv=cv, scoring="neg_log_loss")
    search.set_params(scoring="neg_log_loss")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y, sample_weight=w)
    reference.fit(X, y, sample_weight=w)
    assert np.allclose(search.cv_results_["mean_test_score"],
                       reference.cv_results_["mean_test_score"], atol=1e-6)
    assert np.allclose(search.predict_proba(X), reference.best_estimator_.predict_proba(X),
                       atol=1e-5)
