"""KernelRidgeCV (exact path): leave-one-out against brute-force refits, scikit-learn's
GridSearchCV, the intercept, grid edges, plans, persistence and bad input."""

import warnings

import numpy as np
import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import KFold, GridSearchCV, LeaveOneOut
from sklearn.preprocessing import StandardScaler

import kernelkit
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge, KernelRidgeCV
from kernelkit.tuning import GridEdgeWarning


def _data(n=30, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=n) + shift


def _brute_loo_mse(kernel, X, y, alpha, fit_intercept):
    errs = []
    for i in range(len(X)):
        keep = np.arange(len(X)) != i
        m = KernelRidge(kernel=kernel, alpha=alpha, solver="dual",
                        fit_intercept=fit_intercept).fit(X[keep], y[keep])
        errs.append(m.predict(X[i:i + 1])[0] - y[i])
    return float(np.mean(np.square(errs)))


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("factorisation", ["eigen", "cholesky"])
def test_loo_scores_equal_brute_force_refits(fit_intercept, factorisation):
    X, y = _data(n=14, shift=5.0)
    cv = KernelRidgeCV(kernel="rbf", alphas=(0.01, 1.0), param_grid={"gamma": [0.2, 2.0]},
                       fit_intercept=fit_intercept, factorisation=factorisation)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        cv.fit(X, y)
    for params, alpha, mse in zip(cv.cv_results_["params"], cv.cv_results_["alpha"],
                                  cv.cv_results_["loo_mse"]):
        ref = _brute_loo_mse(RBF(**params), X, y, alpha, fit_intercept)
        assert mse == pytest.approx(ref, rel=1e-8)
    best = int(np.argmin(cv.cv_results_["loo_mse"]))
    assert cv.alpha_ == cv.cv_results_["alpha"][best]
    assert cv.kernel_ == RBF(**cv.cv_results_["params"][best])
    assert cv.plan_.choice == "exact"
    assert any(c.what == "factorisation" and c.value == factorisation for c in cv.plan_.choices)


def test_refit_equals_kernel_ridge_with_the_selected_parameters():
    X, y = _data(n=50, seed=1, shift=3.0)
    y2 = np.column_stack([y, -2 * y])
    for target in (y, y2):
        cv = KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.01, 0.05, 0.5)).fit(X, target)
        ref = KernelRidge(kernel=cv.kernel_, alpha=cv.alpha_).fit(X, target)
        np.testing.assert_allclose(cv.predict(X), ref.predict(X), rtol=1e-8, atol=1e-9)
        np.testing.assert_allclose(cv.intercept_, ref.intercept_, rtol=1e-12)


def test_shifted_target_gives_the_same_model_shifted():
    X, y = _data(n=60, seed=2)
    Xt, yt = _data(n=40, seed=3)
    grid = dict(alphas=(1e-3, 1e-2, 1e-1, 1.0), param_grid={"gamma": [0.3, 1.0, 3.0]})
    base = KernelRidgeCV(**grid).fit(X, y)
    shifted = KernelRidgeCV(**grid).fit(X, y + 100.0)
    assert (shifted.alpha_, shifted.kernel_) == (base.alpha_, base.kernel_)
    rmse = np.sqrt(np.mean((base.predict(Xt) - yt) ** 2))
    rmse_shifted = np.sqrt(np.mean((shifted.predict(Xt) - 100.0 - yt) ** 2))
    assert rmse_shifted == pytest.approx(rmse, rel=1e-8)
    assert rmse < 0.5 * np.std(yt)


def test_gcv_criterion_equals_the_direct_formula():
    X, y = _data(n=25, seed=4, shift=2.0)
    cv = KernelRidgeCV(kernel=RBF(gamma=0.8), alphas=(0.03, 0.3), cv="gcv").fit(X, y)
    n = len(X)
    K = RBF(gamma=0.8)(X)
    J = np.full((n, n), 1.0 / n)
    for alpha, gcv in zip(cv.cv_results_["alpha"], cv.cv_results_["mean_squared_error"]):
        H1 = J + K @ np.linalg.inv(K + alpha * np.eye(n)) @ (np.eye(n) - J)
        ref = np.mean((y - H1 @ y) ** 2) / (1 - np.trace(H1) / n) ** 2
        assert gcv == pytest.approx(ref, rel=1e-9)
    assert cv.criterion_ == "gcv" and "loo_mse" not in cv.cv_results_


def test_choice_equals_scikit_learn_grid_search_with_leave_one_out():
    X, y = _data(n=24, seed=5, shift=10.0)
    gammas, alphas = [0.1, 0.5, 2.0, 8.0], [1e-3, 1e-2, 1e-1, 1.0]
    # scikit-learn's KernelRidge has no intercept: centring y by each training fold's
    # mean (TransformedTargetRegressor) is KernelRidge(fit_intercept=True)'s model
    ref = GridSearchCV(TransformedTargetRegressor(SkKernelRidge(kernel="rbf"),
                                                  transformer=StandardScaler(with_std=False)),
                       {"regressor__gamma": gammas, "regressor__alpha": alphas},
                       cv=LeaveOneOut(), scoring="neg_mean_squared_error").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        cv = KernelRidgeCV(alphas=alphas, param_grid={"gamma": gammas}).fit(X, y)
    assert cv.alpha_ == ref.best_params_["regressor__alpha"]
    assert cv.kernel_.gamma == ref.best_params_["regressor__gamma"]
    assert cv.best_score_ == pytest.approx(-ref.best_score_, rel=1e-8)


def test_edge_warnings_fire_and_are_recorded():
    X, y = _data(n=40, seed=6)
    noise = np.random.default_rng(6).normal(size=40)  # nothing to learn: the largest alpha
    with pytest.warns(GridEdgeWarning, match="alpha=100 is the largest"):
        cv = KernelRidgeCV(kernel=RBF(gamma=1.0), alphas=(1e-8, 100.0)).fit(X, noise)
    edge = [c for c in cv.plan_.choices if c.what == "alpha within its grid"]
    assert edge and edge[0].value is False
    with pytest.warns(GridEdgeWarning, match="gamma=0.01 is the largest"):
        KernelRidgeCV(alphas=(1e-4, 1e-2, 1.0), param_grid={"gamma": [1e-3, 1e-2]}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GridEdgeWarning)
        cv = KernelRidgeCV(alphas=(1e-4, 1e-2, 1.0),
                           param_grid={"gamma": [0.1, 1.0, 10.0]}).fit(X, y)
    assert all(c.value for c in cv.plan_.choices if "within its grid" in c.what)


def test_gamma_grid_reuses_one_distance_matrix_with_the_same_scores():
    X, y = _data(n=30, seed=7)
    grid = dict(alphas=(0.01, 0.1), param_grid={"gamma": [0.5, 1.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        a = KernelRidgeCV(**grid).fit(X, y)
        b = KernelRidgeCV(kernel=RBF() + 0.0 * RBF(), **{**grid, "param_grid": {
            "k1__gamma": [0.5, 1.5]}}).fit(X, y)  # a Sum: profiles combine
        c = KernelRidgeCV(kernel="laplacian", **grid).fit(X, y)  # no profile: Gram per candidate
    reuse = {ch.what: ch.value for ch in a.plan_.choices}["kernel matrices"]
    assert reuse.startswith("from one squared-distance")
    assert {ch.what: ch.value for ch in c.plan_.choices}["kernel matrices"].startswith("one Gram")
    np.testing.assert_allclose(a.cv_results_["loo_mse"], b.cv_results_["loo_mse"], rtol=1e-9)


def test_precomputed_and_persistence(tmp_path):
    X, y = _data(n=30, seed=8, shift=4.0)
    K = RBF(gamma=0.5)(X)
    pre = KernelRidgeCV(kernel="precomputed", alphas=(0.01, 0.1, 1.0)).fit(K, y)
    direct = KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.01, 0.1, 1.0)).fit(X, y)
    np.testing.assert_allclose(pre.predict(K), direct.predict(X), rtol=1e-8)
    path = tmp_path / "cv.kk"
    kernelkit.save(direct, path)
    loaded = kernelkit.load(path)
    np.testing.assert_allclose(loaded.predict(X), direct.predict(X), rtol=1e-13)
    assert loaded.intercept_ == direct.intercept_


@pytest.mark.parametrize("params, match", [
    (dict(alphas=(0.0, 1.0)), "alphas"),
    (dict(alphas=()), "alphas"),
    (dict(solver="nystroem", cv=KFold(3)), "splitter"),
    (dict(cv=1), "cv"),
    (dict(solver="nystroem", cv="loo"), "loo"),
    (dict(solver="exact", factorisation="qr"), "factorisation"),
])
def test_bad_parameters(params, match):
    X, y = _data(n=10)
    with pytest.raises(InvalidParameterError, match=match):
        KernelRidgeCV(**params).fit(X, y)


def test_bad_input():
    X, y = _data(n=10)
    with pytest.raises(InvalidParameterError, match="precomputed"):
        KernelRidgeCV(kernel="precomputed", param_grid={"gamma": [1.0]}).fit(np.eye(10), y)
    with pytest.raises(ValueError, match="at least 3 samples"):
        KernelRidgeCV().fit(X[:2], y[:2])
    with pytest.raises(ValueError):
        KernelRidgeCV().fit(X, y[:5])
