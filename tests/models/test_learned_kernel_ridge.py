"""LearnedKernelRidge against scikit-learn's GaussianProcessRegressor and a grid search,
and KernelRidge.predict(return_std=True) against the GP posterior."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge, LearnedKernelRidge
from kernelkit.models import learned_kernel_ridge

X, Y = make_friedman1(n_samples=80, n_features=5, noise=0.5, random_state=0)
X = (X - X.mean(0)) / X.std(0)
Q = np.random.default_rng(1).normal(size=(7, 5))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_optimum_equals_gaussian_process_regressor(normalize_y):
    model = LearnedKernelRidge(kernel=RBF(length_scale=1.0), alpha=0.3, alpha_bounds="fixed",
                               normalize_y=normalize_y).fit(X, Y)
    z = (Y - Y.mean()) / (Y.std() if normalize_y else 1.0)
    gpr = GaussianProcessRegressor(ConstantKernel(z.var()) * SkRBF(1.0), alpha=0.3,
                                   normalize_y=normalize_y).fit(X, Y if normalize_y else z)
    assert model.objective_ == "marginal_likelihood"
    np.testing.assert_allclose(model.log_marginal_likelihood_,
                               gpr.log_marginal_likelihood_value_, rtol=1e-6)
    np.testing.assert_allclose(model.theta_[:-1], gpr.kernel_.theta, rtol=1e-3, atol=1e-4)
    # the same GP: posterior mean and standard deviation
    mean, std = model.predict(Q, return_std=True)
    ref_mean, ref_std = gpr.predict(Q, return_std=True)
    np.testing.assert_allclose(mean, ref_mean + (0.0 if normalize_y else Y.mean()),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(std, ref_std, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("y_shape", ["1d", "2d"])
def test_kernel_ridge_return_std_equals_the_gp_posterior(y_shape):
    kernel = 2.5 * RBF(length_scale=[1.0, 2.0, 0.5, 3.0, 1.5])
    y = Y if y_shape == "1d" else np.column_stack([Y, -Y])
    model = KernelRidge(kernel=kernel, alpha=0.2, solver="dual").fit(X, y)
    mean, std = model.predict(Q, return_std=True)
    gpr = GaussianProcessRegressor(ConstantKernel(2.5) * SkRBF([1.0, 2.0, 0.5, 3.0, 1.5]),
                                   alpha=0.2, optimizer=None).fit(X, y - y.mean(axis=0))
    ref_mean, ref_std = gpr.predict(Q, return_std=True)
    np.testing.assert_allclose(mean, ref_mean + y.mean(axis=0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(std, ref_std, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.predict(X[:3], return_std=True)[1],
                               gpr.predict(X[:3], return_std=True)[1], rtol=1e-6, atol=1e-8)


def test_return_std_with_sample_weights_is_a_gp_with_noise_alpha_over_weight():
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=len(X))
    model = KernelRidge(kernel=RBF(gamma=0.3), alpha=0.2, fit_intercept=False)
    model.fit(X, Y, sample_weight=weights)
    gpr = GaussianProcessRegressor(ConstantKernel(1.0, "fixed") * SkRBF(np.sqrt(1 / 0.6)),
                                   alpha=0.2 / weights, optimizer=None).fit(X, Y)
    mean, std = model.predict(Q, return_std=True)
    ref_mean, ref_std = gpr.predict(Q, return_std=True)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-8)
    np.testing.assert_allclose(std, ref_std, rtol=1e-7, atol=1e-9)


def test_return_std_refuses_other_solvers():
    falkon = KernelRidge(kernel=RBF(gamma=0.1), alpha=0.1, solver="falkon", n_centers=20,
                         random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="exact dual solver"):
        falkon.predict(Q, return_std=True)
    K = RBF(gamma=0.1)(X)
    pre = KernelRidge(kernel="precomputed", alpha=0.1).fit(K, Y)
    with pytest.raises(ValueError, match="precomputed"):
        pre.predict(K[:2], return_std=True)
    several = KernelRidge(kernel=RBF(gamma=0.1), alpha=[0.1, 1.0]).fit(X, np.column_stack([Y, Y]))
    with pytest.raises(ValueError, match="one alpha"):
        several.predict(Q, return_std=True)


def test_learned_per_feature_scales_beat_the_best_isotropic_grid():
    """Friedman #1 with 5 irrelevant features (issue 20's target, on small data)."""
    X, y = make_friedman1(n_samples=200, n_features=10, noise=1.0, random_state=0)
    Xt, yt = make_friedman1(n_samples=1000, n_features=10, noise=0.0, random_state=1)
    grid = GridSearchCV(SkKernelRidge(kernel="rbf"),
                        {"gamma": np.logspace(-3, 1, 9), "alpha": np.logspace(-4, 0, 5)},
                        cv=3).fit(X, y - y.mean())
    grid_rmse = np.sqrt(np.mean((grid.predict(Xt) + y.mean() - yt) ** 2))
    model = LearnedKernelRidge(kernel="rbf", alpha=0.1, ard=True).fit(X, y)  # gamma="scale"
    rmse = np.sqrt(np.mean((model.predict(Xt) - yt) ** 2))
    assert rmse < 0.8 * grid_rmse, (rmse, grid_rmse)
    scales = model.kernel_.k.length_scale
    assert scales[:5].max() < scales[5:].min()  # the five irrelevant features are found


@pytest.mark.parametrize("objective", ["gcv", "holdout"])
def test_nystroem_objectives_learn_and_respect_bounds(objective):
    X, y = make_friedman1(n_samples=200, n_features=6, noise=1.0, random_state=0)
    Xt, yt = make_friedman1(n_samples=500, n_features=6, noise=0.0, random_state=1)
    start = LearnedKernelRidge(kernel=RBF(length_scale=1.0), alpha=1.0, max_iter=1,
                               objective=objective, n_centers=60, random_state=0)
    model = LearnedKernelRidge(kernel=RBF(length_scale=1.0), alpha=1.0, ard=True,
                               objective=objective, n_centers=60, kernel_bounds=(0.05, 50.0),
                               alpha_bounds=(1e-4, 10.0), max_iter=25, random_state=0)
    with warnings.catch_warnings():  # 25 steps may stop short of the tolerances
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert model.objective_ == objective and model.log_marginal_likelihood_ is None
    scales = model.kernel_.length_scale
    assert np.all((scales >= 0.05 * (1 - 1e-9)) & (scales <= 50.0 * (1 + 1e-9)))
    assert 1e-4 * (1 - 1e-9) <= model.alpha_ <= 10.0 * (1 + 1e-9)
    values = [step["objective"] for step in model.trajectory_]
    assert values[-1] == pytest.approx(model.objective_value_) and values[-1] < values[0]
    rmse = np.sqrt(np.mean((model.predict(Xt) - yt) ** 2))
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):  # one step: short of the tolerances
        start.fit(X, y)
    assert rmse < np.sqrt(np.mean((start.predict(Xt) - yt) ** 2))


def test_bounds_name_the_parameters_of_the_kernel_as_given():
    model = LearnedKernelRidge(kernel=RBF(length_scale=1.0) + RBF(gamma=0.1), alpha=0.3,
                               kernel_bounds={"k1__length_scale": (2.0, 3.0),
                                              "k2__gamma": "fixed", "scale": (1.0, 2.0)},
                               alpha_bounds="fixed").fit(X, Y)
    k1, k2 = model.kernel_.k.terms
    assert 2.0 - 1e-9 <= k1.length_scale <= 3.0 + 1e-9 and k2.gamma == 0.1
    assert 1.0 - 1e-9 <= model.kernel_.scale <= 2.0 + 1e-9
    assert model.theta_names_ == ["scale", "k__k1__length_scale", "alpha"]


def test_auto_objective_is_recorded_and_switches_with_n(monkeypatch, capsys):
    model = LearnedKernelRidge(kernel=RBF(gamma=0.2), alpha=0.5, max_iter=5, verbose=1)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, Y)
    out = capsys.readouterr().out
    assert model.plan_.choice == "marginal_likelihood" and "iteration 1" in out
    assert "learnt parameters" in out and len(model.trajectory_) >= 1
    assert set(model.trajectory_[0]["params"]) == {"scale", "k__gamma", "alpha"}
    monkeypatch.setattr(learned_kernel_ridge, "MARGINAL_LIKELIHOOD_MAX_N", 50)
    model = LearnedKernelRidge(kernel=RBF(gamma=0.2), alpha=0.5, max_iter=5, n_centers=20,
                               random_state=0)
    with pytest.warns(ConvergenceWarning):
        model.fit(X, Y)
    assert model.objective_ == "gcv" and "n = 80 > 50" in model.plan_.reason


def test_bad_parameters_are_refused():
    for params, match in [({"alpha_bounds": (1.0, 0.1)}, "alpha_bounds"),
                          ({"objective": "loo"}, "objective"),
                          ({"kernel": "precomputed"}, "precomputed"),
                          ({"alpha": 0.0}, "alpha"),
                          ({"kernel_bounds": (0.0, 1.0)}, "bounds")]:
        with pytest.raises(InvalidParameterError, match=match):
            LearnedKernelRidge(**params).fit(X, Y)
    with pytest.raises(ValueError, match="one target"):
        LearnedKernelRidge(objective="gcv").fit(X, np.column_stack([Y, Y]))


def test_model_file_round_trip(tmp_path):
    from kernelkit.persistence import load, save

    model = LearnedKernelRidge(kernel=RBF(length_scale=1.0), alpha=0.3, ard=True,
                               normalize_y=True).fit(X, Y)
    save(model, tmp_path / "m.kk")
    back = load(tmp_path / "m.kk")
    np.testing.assert_allclose(back.predict(Q), model.predict(Q), rtol=1e-12)
    np.testing.assert_allclose(back.predict(Q, return_std=True)[1],
                               model.predict(Q, return_std=True)[1], rtol=1e-10)
    assert back.kernel_ == model.kernel_


@parametrize_with_checks([LearnedKernelRidge(kernel=RBF(gamma=0.5), max_iter=3)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_return_std_after_a_refit_is_the_new_models():
    # the cached posterior factor belongs to one fitted state: a refit that changes the
    # rows, the kernel or alpha must not reuse it (KernelRidgeCV, LearnedKernelRidge too)
    from kernelkit.models import KernelRidgeCV

    rng = np.random.default_rng(3)
    X1, X2 = rng.normal(size=(60, 2)), rng.normal(size=(45, 2))
    y1, y2 = np.sin(X1[:, 0]), np.cos(X2[:, 1])
    Q = rng.normal(size=(7, 2))
    for make in (lambda: KernelRidgeCV(alphas=[1e-2, 1e-1], param_grid={"gamma": [0.3, 1.0]}),
                 lambda: LearnedKernelRidge(kernel=RBF(gamma=0.5), alpha=0.1, max_iter=5)):
        model = make().fit(X1, y1)
        model.predict(Q, return_std=True)  # caches the first fit's factor
        model.fit(X2, y2)
        fresh = make().fit(X2, y2)
        np.testing.assert_allclose(model.predict(Q, return_std=True)[1],
                                   fresh.predict(Q, return_std=True)[1], rtol=1e-10)
    ridge = KernelRidge(RBF(gamma=0.5), alpha=0.1).fit(X1, y1)
    ridge.predict(Q, return_std=True)
    ridge.set_params(alpha=1.0).fit(X1, y1)  # the same rows array, another alpha
    np.testing.assert_allclose(ridge.predict(Q, return_std=True)[1],
                               KernelRidge(RBF(gamma=0.5), alpha=1.0).fit(X1, y1)
                               .predict(Q, return_std=True)[1], rtol=1e-10)


def test_default_fit_on_targets_of_large_variance_matches_the_normalised_one():
    # diabetes' targets have variance ~5,900: with alpha started at 1 in absolute units the
    # search ran gamma to its bound (the all-noise optimum, RMSE 71 vs SVR()'s 66). Started
    # at alpha * var(y), the unnormalised fit finds the normalised fit's model.
    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:200]
    y = y[:200]
    raw = LearnedKernelRidge().fit(X, y)
    normalised = LearnedKernelRidge(normalize_y=True).fit(X, y)
    gamma = raw.kernel_.k.gamma
    assert 1e-3 < gamma < 1.0  # not at a bound
    np.testing.assert_allclose(gamma, normalised.kernel_.k.gamma, rtol=1e-3)
    np.testing.assert_allclose(raw.predict(X), normalised.predict(X), rtol=1e-3, atol=1e-2)
