"""KernelMachineCV / KernelMachineClassifierCV against GridSearchCV over KernelMachine /
KernelMachineClassifier (solver="newton") on the same grid and folds."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.preprocessing import StandardScaler

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import (KernelMachine, KernelMachineClassifier, KernelMachineClassifierCV,
                              KernelMachineCV)
from kernelkit.tuning import GridEdgeWarning

ALPHAS = [1e-3, 1e-2, 1e-1, 1.0]
GAMMAS = [0.03, 0.3]


def _compare(search, reference, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y)
    reference.fit(X, y)
    ours = {(p["alpha"], p["gamma"]): s for p, s in zip(search.cv_results_["params"],
                                                        search.cv_results_["mean_test_score"])}
    for p, s in zip(reference.cv_results_["params"], reference.cv_results_["mean_test_score"]):
        assert ours[(p["alpha"], p["kernel__gamma"])] == pytest.approx(s, abs=1e-6)
    assert search.best_params_ == {"alpha": reference.best_params_["alpha"],
                                   "gamma": reference.best_params_["kernel__gamma"]}
    assert search.alpha_ == reference.best_params_["alpha"]
    assert np.allclose(search.predict(X) if search._is_classifier is False
                       else search.decision_function(X),
                       reference.best_estimator_.predict(X) if search._is_classifier is False
                       else reference.best_estimator_.decision_function(X), atol=1e-6)


@pytest.mark.parametrize("loss", ["squared", "huber"])
def test_regressor_equals_grid_search(loss):
    X, y = make_regression(90, 4, noise=10.0, random_state=0)
    X, y = StandardScaler().fit_transform(X), (y - y.mean()) / y.std()
    cv = KFold(3, shuffle=True, random_state=0)
    search = KernelMachineCV(RBF(gamma=1.0), loss=loss, alphas=ALPHAS,
                             param_grid={"gamma": GAMMAS}, cv=cv, epsilon=0.5)
    reference = GridSearchCV(KernelMachine(RBF(gamma=1.0), loss=loss, solver="newton",
                                           epsilon=0.5),
                             {"alpha": ALPHAS, "kernel__gamma": GAMMAS}, cv=cv)
    _compare(search, reference, X, y)


@pytest.mark.parametrize("loss, n_classes", [("logistic", 2), ("squared_hinge", 3)])
def test_classifier_equals_grid_search(loss, n_classes):
    X, y = make_classification(90, 5, n_informative=3, n_classes=n_classes, flip_y=0.1,
                               random_state=0)
    X = StandardScaler().fit_transform(X)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = KernelMachineClassifierCV(RBF(gamma=1.0), loss=loss, alphas=ALPHAS,
                                       param_grid={"gamma": GAMMAS}, cv=cv)
    reference = GridSearchCV(KernelMachineClassifier(RBF(gamma=1.0), loss=loss,
                                                     solver="newton"),
                             {"alpha": ALPHAS, "kernel__gamma": GAMMAS}, cv=cv)
    _compare(search, reference, X, y)
    assert np.array_equal(search.predict(X), reference.best_estimator_.predict(X))
    assert np.array_equal(search.classes_, np.unique(y))


def test_default_alphas_edge_warning_and_bad_input():
    X, y = make_regression(60, 3, noise=1.0, random_state=0)
    with pytest.warns(GridEdgeWarning, match="alpha="):
        search = KernelMachineCV(RBF(gamma=0.3), alphas=[10.0, 100.0], cv=3).fit(X, y)
    assert search.alpha_ == 10.0 and not search.plan_.choices[2].value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search = KernelMachineCV(RBF(gamma=0.3), cv=3).fit(X, y)
    assert np.allclose(np.unique(search.cv_results_["param_alpha"].astype(float)),
                       np.logspace(-6, 1, 8))
    with pytest.raises(InvalidParameterError, match="alphas must be"):
        KernelMachineCV(alphas=[-1.0]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="give the values of alpha as alphas"):
        KernelMachineCV(param_grid={"alpha": [1.0]}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="loss must be"):
        KernelMachineCV(loss="epsilon_insensitive").fit(X, y)
    with pytest.raises(InvalidParameterError, match="precomputed"):
        KernelMachineClassifierCV("precomputed").fit(X @ X.T, y > 0)
