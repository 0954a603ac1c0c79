"""KernelSVCCV / KernelSVRCV against scikit-learn's GridSearchCV over KernelSVC / KernelSVR
on the same grid and folds: same scores (to the solver's tolerance), same choice, same
refitted model."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.preprocessing import StandardScaler

from kernelkit.exceptions import InvalidParameterError
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC, KernelSVCCV, KernelSVR, KernelSVRCV
from kernelkit.tuning import GridEdgeWarning

CS = [0.03, 0.3, 3.0, 30.0]
GAMMAS = [0.003, 0.03, 0.3]


def _scores_by_params(results, rename=None):
    out = {}
    for params, score in zip(results["params"], results["mean_test_score"]):
        key = tuple(sorted((rename.get(k, k) if rename else k, float(v))
                           for k, v in params.items()))
        out[key] = score
    return out


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(y), 150, replace=False)
    return StandardScaler().fit_transform(X[rows]), y[rows]


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _compare_with_grid_search(search, reference, X, y, rename):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y)
    reference.fit(X, y)
    ours = _scores_by_params(search.cv_results_)
    theirs = _scores_by_params(reference.cv_results_, rename)
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-6), key
    assert search.best_params_ == {rename.get(k, k): v
                                   for k, v in reference.best_params_.items()}
    assert search.best_score_ == pytest.approx(reference.best_score_, abs=1e-6)
    assert search.best_index_ == reference.best_index_
    assert np.array_equal(search.cv_results_["rank_test_score"],
                          reference.cv_results_["rank_test_score"])


@pytest.mark.parametrize("data, multiclass", [("cancer", "ovo"), ("wine", "ovo"),
                                              ("wine", "ovr")])
def test_svc_cv_equals_grid_search(request, data, multiclass):
    X, y = request.getfixturevalue(data)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = KernelSVCCV(RBF(gamma=1.0), Cs=CS, param_grid={"gamma": GAMMAS}, cv=cv,
                         tol=1e-8, multiclass=multiclass)
    reference = GridSearchCV(KernelSVC(RBF(gamma=1.0), tol=1e-8, multiclass=multiclass),
                             {"C": CS, "kernel__gamma": GAMMAS}, cv=cv)
    _compare_with_grid_search(search, reference, X, y, {"kernel__gamma": "gamma"})


def test_svc_cv_with_class_weight_and_a_scorer(cancer):
    X, y = cancer
    search = KernelSVCCV(RBF(gamma=0.03), Cs=CS, cv=4, tol=1e-8, class_weight="balanced",
                         scoring="roc_auc")
    reference = GridSearchCV(KernelSVC(RBF(gamma=0.03), tol=1e-8, class_weight="balanced"),
                             {"C": CS}, cv=4, scoring="roc_auc")
    _compare_with_grid_search(search, reference, X, y, {})


def test_svc_cv_refit_is_kernel_svc_with_the_best_parameters(cancer):
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search = KernelSVCCV(RBF(gamma=1.0), Cs=CS, param_grid={"gamma": GAMMAS}, cv=3).fit(X, y)
    best = KernelSVC(RBF(gamma=search.best_params_["gamma"]), C=search.C_).fit(X, y)
    assert search.kernel_ == best.kernel_
    assert np.array_equal(search.best_estimator_.support_, best.support_)
    assert np.allclose(search.best_estimator_.dual_coef_, best.dual_coef_)
    assert np.allclose(search.decision_function(X), best.decision_function(X))
    assert np.array_equal(search.predict(X), best.predict(X))
    assert search.score(X, y) == best.score(X, y)
    assert np.array_equal(search.classes_, best.classes_)
    assert search.n_features_in_ == X.shape[1]


def test_svc_cv_without_a_stored_gram_matrix_gives_the_same_search(cancer):
    X, y = cancer
    stored = KernelSVCCV(RBF(gamma=0.03), Cs=CS, cv=3, tol=1e-8).fit(X, y)
    cold = KernelSVCCV(RBF(gamma=0.03), Cs=CS, cv=3, tol=1e-8, cache=False).fit(X, y)
    assert stored.plan_.choices[0].value and not cold.plan_.choices[0].value
    assert np.allclose(stored.cv_results_["mean_test_score"], cold.cv_results_["mean_test_score"])
    assert stored.best_params_ == cold.best_params_
    # gamma="scale" is fixed once from all rows on both paths (not per fold when cold)
    stored = KernelSVCCV("rbf", Cs=CS, cv=3, tol=1e-8).fit(X, y)
    cold = KernelSVCCV("rbf", Cs=CS, cv=3, tol=1e-8, cache=False).fit(X, y)
    assert np.allclose(stored.cv_results_["mean_test_score"], cold.cv_results_["mean_test_score"])


def test_svc_cv_precomputed_equals_the_kernel(cancer):
    X, y = cancer
    kernel = RBF(gamma=0.03)
    a = KernelSVCCV(kernel, Cs=CS, cv=3, tol=1e-8).fit(X, y)
    b = KernelSVCCV("precomputed", Cs=CS, cv=3, tol=1e-8).fit(gram(kernel, X), y)
    assert np.allclose(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert np.allclose(b.decision_function(gram(kernel, X[:5], X)), a.decision_function(X[:5]))


def test_default_grid_and_edge_warning(cancer):
    X, y = cancer
    search = KernelSVCCV(RBF(gamma=0.03), cv=3)
    with pytest.warns(GridEdgeWarning, match="C=0.01 is the smallest"):
        KernelSVCCV(RBF(gamma=0.03), Cs=[0.01, 0.02], cv=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y)
    assert np.allclose(np.unique(search.cv_results_["param_C"].astype(float)),
                       np.logspace(-2, 4, 7))
    edge = [c for c in search.plan_.choices if c.what == "C within its grid"]
    assert len(edge) == 1 and edge[0].value == (search.C_ not in (0.01, 1e4))


def test_svr_cv_equals_grid_search_and_refit():
    X, y = make_regression(150, 4, noise=5.0, random_state=0)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    cv = KFold(3, shuffle=True, random_state=1)
    search = KernelSVRCV(RBF(gamma=1.0), Cs=CS, param_grid={"gamma": GAMMAS}, cv=cv,
                         epsilon=0.05, tol=1e-8)
    reference = GridSearchCV(KernelSVR(RBF(gamma=1.0), epsilon=0.05, tol=1e-8),
                             {"C": CS, "kernel__gamma": GAMMAS}, cv=cv)
    _compare_with_grid_search(search, reference, X, y, {"kernel__gamma": "gamma"})
    best = KernelSVR(RBF(gamma=search.best_params_["gamma"]), C=search.C_, epsilon=0.05,
                     tol=1e-8).fit(X, y)
    assert np.allclose(search.predict(X), best.predict(X), atol=1e-6)
    assert search.score(X, y) == pytest.approx(best.score(X, y), abs=1e-8)


@pytest.mark.parametrize("params, match", [
    ({"Cs": [1.0, -1.0]}, "Cs must be"),
    ({"Cs": []}, "Cs must be"),
    ({"Cs": 0}, "Cs must be"),
    ({"param_grid": {"C": [1.0]}}, "give the values of C as Cs"),
    ({"param_grid": {"gamma": []}}, "non-empty list"),
    ({"cv": 1}, "cv must be"),
    ({"scoring": 3}, "scoring must be"),
])
def test_bad_parameters_are_named(cancer, params, match):
    X, y = cancer
    for cls in (KernelSVCCV, KernelSVRCV):
        with pytest.raises(InvalidParameterError, match=match):
            cls(RBF(gamma=0.1), **params).fit(X, y)


def test_bad_data_and_unfitted():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="at least 2 classes"):
        KernelSVCCV(Cs=[1.0], cv=2).fit(X, np.zeros(20))
    with pytest.raises(InvalidParameterError, match="param_grid cannot be used"):
        KernelSVCCV("precomputed", param_grid={"gamma": [1.0]}).fit(X @ X.T,
                                                                    np.r_[[0] * 10, [1] * 10])
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        KernelSVCCV().predict(X)


def test_not_converged_fits_are_warned(cancer):
    X, y = cancer
    with pytest.warns(ConvergenceWarning, match="fits of the search stopped at max_iter"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GridEdgeWarning)
            KernelSVCCV(RBF(gamma=0.03), Cs=[1.0, 100.0], cv=2, max_iter=3).fit(X, y)


def test_the_refitted_model_is_saved_and_the_search_is_refused_clearly(cancer, tmp_path):
    import kernelkit

    X, y = cancer
    search = KernelSVCCV(RBF(gamma=0.03), Cs=[0.3, 3.0], cv=3).fit(X, y)
    kernelkit.save(search.best_estimator_, tmp_path / "best.kk")
    restored = kernelkit.load(tmp_path / "best.kk")
    assert np.array_equal(restored.predict(X), search.predict(X))
    with pytest.raises(ValueError, match="cannot save a KernelSVCCV"):
        kernelkit.save(search, tmp_path / "search.kk")


def test_sample_weight_as_grid_search(cancer):
    X, y = cancer
    w = np.random.default_rng(3).uniform(0.0, 2.0, len(y))
    w[:10] = 0.0  # left out of the fits, as libsvm
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = KernelSVCCV(RBF(gamma=0.03), Cs=CS, cv=cv, tol=1e-8)
    reference = GridSearchCV(KernelSVC(RBF(gamma=0.03), tol=1e-8), {"C": CS}, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, y, sample_weight=w)
    reference.fit(X, y, sample_weight=w)
    assert np.allclose(search.cv_results_["mean_test_score"],
                       reference.cv_results_["mean_test_score"], atol=1e-6)
    assert np.allclose(search.decision_function(X),
                       reference.best_estimator_.decision_function(X), atol=1e-6)
    t = X[:, 0] + 0.1 * np.sin(X[:, 1])
    cv = KFold(3, shuffle=True, random_state=0)
    search = KernelSVRCV(RBF(gamma=0.03), Cs=CS, cv=cv, tol=1e-8)
    reference = GridSearchCV(KernelSVR(RBF(gamma=0.03), tol=1e-8), {"C": CS}, cv=cv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        search.fit(X, t, sample_weight=w)
    reference.fit(X, t, sample_weight=w)
    assert np.allclose(search.cv_results_["mean_test_score"],
                       reference.cv_results_["mean_test_score"], atol=1e-6)
    assert np.allclose(search.predict(X), reference.best_estimator_.predict(X), atol=1e-6)
