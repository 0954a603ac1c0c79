"""KernelRidgeCV beyond the exact size (Nystroem, random features) and
KernelRidgeClassifierCV: against KernelRidge(solver="falkon"), refits on folds,
scikit-learn's GridSearchCV and brute-force leave-one-out."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, LeaveOneOut

import kernelkit
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF
from kernelkit.models import (KernelRidge, KernelRidgeClassifier, KernelRidgeClassifierCV,
                              KernelRidgeCV)
from kernelkit.tuning import GridEdgeWarning


def _data(n=400, seed=0, shift=50.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=n) + shift


def _quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        return est.fit(X, y)


def test_nystroem_refit_is_kernel_ridge_falkon_solution():
    X, y = _data()
    cv = _quiet(KernelRidgeCV(alphas=(1e-3, 1e-2, 1e-1, 1.0), param_grid={"gamma": [0.3, 1.0]},
                              solver="nystroem", n_centers=60, random_state=0), X, y)
    assert cv.plan_.choice == "nystroem" and cv.solver_ == "falkon" and cv.criterion_ == "gcv"
    ref = KernelRidge(kernel=cv.kernel_, alpha=cv.alpha_, solver="falkon", n_centers=60,
                      random_state=0, tol=1e-10, max_iter=500).fit(X, y)
    np.testing.assert_array_equal(cv.centers_, ref.centers_)
    np.testing.assert_allclose(cv.predict(X), ref.predict(X), rtol=1e-7, atol=1e-7)


def test_nystroem_gamma_grid_from_distances_equals_per_kernel_blocks():
    X, y = _data(n=300, seed=1)
    grid = dict(alphas=(1e-2, 1e-1, 1.0), solver="nystroem", n_centers=40, random_state=1)
    a = _quiet(KernelRidgeCV(param_grid={"gamma": [0.3, 1.0]}, **grid), X, y)
    mse = []
    for gamma in (0.3, 1.0):  # one candidate each: no shared distances
        single = _quiet(KernelRidgeCV(kernel=RBF(gamma=gamma), **grid), X, y)
        mse.extend(single.cv_results_["mean_squared_error"])
    np.testing.assert_allclose(a.cv_results_["mean_squared_error"], mse, rtol=1e-8)


def test_nystroem_k_fold_equals_refits_with_the_same_centers():
    X, y = _data(n=240, seed=2)
    cv = _quiet(KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(1e-2, 1.0), solver="nystroem",
                              n_centers=30, cv=3, random_state=3), X, y)
    assert cv.criterion_ == "3-fold"
    # the folds are KFold(3, shuffle=True) of a seed drawn from random_state; recover
    # them by refitting on each part with the centers the model kept
    from sklearn.model_selection import KFold
    from sklearn.utils import check_random_state
    seed = check_random_state(3).randint(2 ** 31 - 1)
    C, kernel = cv.centers_, RBF(gamma=0.5)
    for alpha, mse in zip((1e-2, 1.0), cv.cv_results_["mean_squared_error"]):
        sse = 0.0
        for tr, va in KFold(3, shuffle=True, random_state=seed).split(X):
            Knm, Kmm = kernel(X[tr], C), kernel(C)
            m = y[tr].mean()
            c = np.linalg.solve(Knm.T @ Knm + alpha * Kmm, Knm.T @ (y[tr] - m))
            sse += np.sum((y[va] - m - kernel(X[va], C) @ c) ** 2)
        assert mse == pytest.approx(sse / len(X), rel=1e-7)


def test_random_features_path_is_primal_ridge_on_the_features():
    X, y = _data(n=300, seed=4)
    cv = _quiet(KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(1e-2, 1e-1, 1.0),
                              solver="features", n_components=50, random_state=0), X, y)
    assert cv.solver_ == "primal"
    Z = RandomFourierFeatures(RBF(gamma=0.5), n_components=50, random_state=0).fit_transform(X)
    w = np.linalg.solve(Z.T @ Z + cv.alpha_ * np.eye(50), Z.T @ (y - y.mean()))
    np.testing.assert_allclose(cv.predict(X), Z @ w + y.mean(), rtol=1e-9)


def test_auto_plans_nystroem_beyond_the_exact_size():
    from kernelkit.models import _ridge_search

    X, y = _data(n=200, seed=5)
    old = _ridge_search.EXACT_MAX_N
    _ridge_search.EXACT_MAX_N = 100
    try:
        cv = _quiet(KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.1, 1.0), random_state=0),
                    X, y)
    finally:
        _ridge_search.EXACT_MAX_N = old
    assert cv.plan_.choice == "nystroem" and "n = 200 > 100" in cv.plan_.reason
    assert np.sqrt(np.mean((cv.predict(X) - y) ** 2)) < 0.3


def _labels(n=40, seed=6, k=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    score = X[:, 0] * X[:, 1] if k == 2 else np.arctan2(X[:, 1], X[:, 0])
    y = (score > 0).astype(int) if k == 2 else np.digitize(score, [-1.0, 1.0])
    flip = rng.random(n) < 0.1
    return X, np.where(flip, (y + 1) % k, y)


@pytest.mark.parametrize("k", [2, 3])
def test_classifier_loo_accuracy_equals_brute_force(k):
    X, y = _labels(n=16, k=k)
    names = np.array(["ant", "bee", "cat"])[y]
    clf = _quiet(KernelRidgeClassifierCV(alphas=(0.01, 0.3), param_grid={"gamma": [2.0]}),
                 X, names)
    for params, alpha, acc in zip(clf.cv_results_["params"], clf.cv_results_["alpha"],
                                  clf.cv_results_["accuracy"]):
        hits = 0
        for i in range(len(X)):
            keep = np.arange(len(X)) != i
            m = KernelRidgeClassifier(kernel=RBF(**params), alpha=alpha,
                                      solver="dual").fit(X[keep], names[keep])
            hits += m.predict(X[i:i + 1])[0] == names[i]
        assert acc == pytest.approx(hits / len(X), abs=1e-12)
    assert clf.best_score_ == max(clf.cv_results_["accuracy"])
    ref = KernelRidgeClassifier(kernel=clf.kernel_, alpha=clf.alpha_).fit(X, names)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), rtol=1e-8,
                               atol=1e-10)


def test_classifier_choice_equals_grid_search_with_leave_one_out():
    X, y = _labels(n=20, seed=7)
    grid = {"alpha": [0.01, 1.0], "gamma": [0.3, 3.0]}
    ref = GridSearchCV(KernelRidgeClassifier(kernel="rbf"), {"alpha": grid["alpha"],
                       "kernel__gamma": grid["gamma"]}, cv=LeaveOneOut()).fit(X, y)
    clf = _quiet(KernelRidgeClassifierCV(alphas=grid["alpha"],
                                         param_grid={"gamma": grid["gamma"]}), X, y)
    assert clf.best_score_ == pytest.approx(ref.best_score_, abs=1e-12)
    best = clf.cv_results_["accuracy"].max()
    assert ref.best_score_ == pytest.approx(best, abs=1e-12)


def test_classifier_squared_error_scoring_and_nystroem():
    X, y = _labels(n=200, seed=8)
    clf = _quiet(KernelRidgeClassifierCV(alphas=(0.01, 0.1, 1.0), param_grid={"gamma": [0.3, 1.0]},
                                         solver="nystroem", n_centers=40, random_state=0), X, y)
    assert clf.criterion_ == "gcv" and "accuracy" not in clf.cv_results_
    assert clf.score(X, y) > 0.8
    sq = _quiet(KernelRidgeClassifierCV(alphas=(0.01, 0.1), scoring="squared_error"), X[:40],
                y[:40])
    assert sq.best_score_ == min(sq.cv_results_["mean_squared_error"])


def test_classifier_and_nystroem_models_save_and_load(tmp_path):
    X, y = _labels(n=60, seed=9, k=3)
    Xr, yr = _data(n=200, seed=9)
    models = [(_quiet(KernelRidgeClassifierCV(alphas=(0.01, 0.1)), X, y), X),
              (_quiet(KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.01, 0.1), solver="nystroem",
                                    n_centers=20, random_state=0), Xr, yr), Xr)]
    for model, data in models:
        kernelkit.save(model, tmp_path / "m.kk")
        loaded = kernelkit.load(tmp_path / "m.kk")
        np.testing.assert_allclose(loaded.predict(data) if data is Xr else
                                   loaded.decision_function(data),
                                   model.predict(data) if data is Xr else
                                   model.decision_function(data), rtol=1e-12)


def test_distinct_centers_are_kernel_ridge_falkons():
    X, y = _data(n=300, seed=10)
    X = np.vstack([X, X[:200]])  # many repeated rows
    y = np.r_[y, y[:200] + 0.05]
    cv = _quiet(KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(1e-2, 1e-1), solver="nystroem",
                              n_centers=60, center_selection="distinct", random_state=0), X, y)
    ref = KernelRidge(kernel=RBF(gamma=0.5), alpha=cv.alpha_, solver="falkon", n_centers=60,
                      center_selection="distinct", random_state=0, tol=1e-10,
                      max_iter=500).fit(X, y)
    np.testing.assert_array_equal(cv.centers_, ref.centers_)
    np.testing.assert_allclose(cv.predict(X), ref.predict(X), rtol=1e-7, atol=1e-7)
    assert "distinct rows" in str(cv.plan_)


def test_random_feature_search_saves_and_loads(tmp_path):
    # the random Fourier weights travel as the model's nested feature map
    import kernelkit
    from kernelkit.models import KernelRidgeCV

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    model = KernelRidgeCV(solver="features", n_components=20, alphas=[0.01, 0.1],
                          random_state=0).fit(X, np.sin(X[:, 0]))
    kernelkit.save(model, tmp_path / "rf.kk")
    loaded = kernelkit.load(tmp_path / "rf.kk")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.feature_map_.random_weights_,
                                  model.feature_map_.random_weights_)


def test_a_failed_refit_leaves_the_fitted_classifier_whole():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, "a", "b")
    model = KernelRidgeClassifierCV(alphas=[0.1, 1.0]).fit(X, y)
    before = model.predict(X)
    with pytest.raises(ValueError, match="only one class"):
        model.fit(X, np.full(60, "c"))
    assert list(model.classes_) == ["a", "b"]
    np.testing.assert_array_equal(model.predict(X), before)


def test_learned_kernel_ridge_refuses_sparse_input_instead_of_densifying():
    import scipy.sparse as sp
    from kernelkit.models import LearnedKernelRidge

    X = sp.random(40, 5, density=0.3, format="csr", random_state=0)
    with pytest.raises(ValueError, match="dense X.*toarray"):
        LearnedKernelRidge(kernel=RBF(gamma=0.5)).fit(X, np.arange(40.0))
