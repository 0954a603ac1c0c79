"""KernelRidge against scikit-learn, closed forms and brute force."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge

import kernelkit
from kernelkit.datasets import load_cpu_act
from kernelkit.exceptions import MemoryBudgetError
from kernelkit.kernels import RBF, Laplacian, Linear, Polynomial, Sigmoid
from kernelkit.models import KernelRidge


@pytest.fixture(scope="module")
def cpu():
    X, y = load_cpu_act(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))[:1200]
    X, y = X[idx], y[idx]
    X = (X - X.mean(0)) / X.std(0)
    return X[:900], y[:900], X[900:], y[900:]


@pytest.mark.parametrize("ours,theirs", [
    (RBF(gamma=0.05), dict(kernel="rbf", gamma=0.05)),
    (Laplacian(gamma=0.05), dict(kernel="laplacian", gamma=0.05)),
    (Polynomial(degree=2, gamma=0.1, coef0=1.0), dict(kernel="poly", degree=2, gamma=0.1,
                                                       coef0=1.0)),
])
def test_matches_sklearn_on_real_data(cpu, ours, theirs):
    Xtr, ytr, Xte, _ = cpu
    a = KernelRidge(kernel=ours, alpha=0.3, solver="dual", fit_intercept=False).fit(Xtr, ytr).predict(Xte)
    b = SkKernelRidge(alpha=0.3, **theirs).fit(Xtr, ytr).predict(Xte)
    assert np.max(np.abs(a - b)) <= 1e-8 * np.max(np.abs(b))


def test_primal_equals_dual_polynomial(cpu):
    Xtr, ytr, Xte, _ = cpu
    Xtr, Xte = Xtr[:, :5], Xte[:, :5]
    k = Polynomial(degree=3, gamma=0.2, coef0=1.0)
    primal = KernelRidge(kernel=k, alpha=0.5, solver="primal").fit(Xtr, ytr)
    dual = KernelRidge(kernel=k, alpha=0.5, solver="dual").fit(Xtr, ytr)
    assert primal.solver_ == "primal" and dual.solver_ == "dual"
    np.testing.assert_allclose(primal.predict(Xte), dual.predict(Xte), rtol=1e-7,
                               atol=1e-7 * np.abs(dual.predict(Xte)).max())


def test_auto_picks_primal_when_features_are_few(cpu):
    Xtr, ytr, _, _ = cpu
    model = KernelRidge(kernel="linear", alpha=1.0).fit(Xtr, ytr)
    assert model.solver_ == "primal"
    assert "primal" in model.plan_.explain()
    model = KernelRidge(kernel="rbf(gamma=0.1)", alpha=1.0).fit(Xtr, ytr)
    assert model.solver_ == "dual"


def test_linear_kernel_ridge_equals_ridge_without_intercept(cpu):
    Xtr, ytr, Xte, _ = cpu
    for solver in ("primal", "dual"):
        ours = KernelRidge(kernel=Linear(), alpha=2.0, solver=solver, fit_intercept=False).fit(Xtr, ytr)
        ref = Ridge(alpha=2.0, fit_intercept=False).fit(Xtr, ytr)
        np.testing.assert_allclose(ours.predict(Xte), ref.predict(Xte), rtol=1e-8,
                                   atol=1e-8 * np.abs(ref.predict(Xte)).max())


def test_closed_form_small_problem():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), rng.normal(size=30)
    K = np.exp(-0.7 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    u = np.linalg.solve(K + 0.1 * np.eye(30), y)
    model = KernelRidge(kernel=RBF(gamma=0.7), alpha=0.1, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, u, rtol=1e-9, atol=1e-10)


def test_multi_output_and_per_target_alpha():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2])
    alpha = np.array([0.1, 2.0])
    both = KernelRidge(kernel="rbf(gamma=0.4)", alpha=alpha, fit_intercept=False).fit(X, Y).predict(X)
    for j in range(2):
        one = KernelRidge(kernel="rbf(gamma=0.4)", alpha=alpha[j], fit_intercept=False).fit(X, Y[:, j]).predict(X)
        np.testing.assert_allclose(both[:, j], one, rtol=1e-8, atol=1e-10)
    ref = SkKernelRidge(kernel="rbf", gamma=0.4, alpha=alpha).fit(X, Y).predict(X)
    np.testing.assert_allclose(both, ref, rtol=1e-8, atol=1e-10)


def test_sample_weight_matches_sklearn_and_repetition():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    sw = rng.integers(1, 4, size=40).astype(float)
    ours = KernelRidge(kernel="rbf(gamma=0.5)", alpha=0.3, fit_intercept=False).fit(
        X, y, sample_weight=sw)
    ref = SkKernelRidge(kernel="rbf", gamma=0.5, alpha=0.3).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10)
    # integer weights = repeated rows
    rep = np.repeat(np.arange(40), sw.astype(int))
    rep_model = KernelRidge(kernel="rbf(gamma=0.5)", alpha=0.3, fit_intercept=False).fit(X[rep], y[rep])
    np.testing.assert_allclose(ours.predict(X), rep_model.predict(X), rtol=1e-6, atol=1e-8)


def test_precomputed_equals_kernel_object():
    rng = np.random.default_rng(4)
    X, y, Xt = rng.normal(size=(50, 3)), rng.normal(size=50), rng.normal(size=(10, 3))
    k = RBF(gamma=0.3)
    direct = KernelRidge(kernel=k, alpha=0.2).fit(X, y).predict(Xt)
    pre = KernelRidge(kernel="precomputed", alpha=0.2).fit(k(X), y).predict(k(Xt, X))
    np.testing.assert_allclose(direct, pre, rtol=1e-10, atol=1e-12)


def test_jitter_recorded_for_singular_gram():
    X = np.tile(np.arange(5.0), 8)[:, None]  # 40 rows, rank-1 Gram matrix
    y = 2.0 * X[:, 0]
    with pytest.warns(kernelkit.NumericalWarning):
        model = KernelRidge(kernel="linear", alpha=0.0, solver="dual",
                            fit_intercept=False).fit(X, y)
    assert model.jitter_ > 0
    np.testing.assert_allclose(model.predict(X), y, atol=1e-3)


def test_blocked_prediction_matches_small_budget():
    rng = np.random.default_rng(5)
    X, y, Xt = rng.normal(size=(400, 4)), rng.normal(size=400), rng.normal(size=(1000, 4))
    model = KernelRidge(kernel="rbf(gamma=0.2)", alpha=0.5).fit(X, y)
    full = model.predict(Xt)
    with kernelkit.config_context(memory="16MB"):
        from kernelkit._budget import rows_per_block
        assert rows_per_block(400) < len(Xt)
        blocked = model.predict(Xt)
    np.testing.assert_allclose(full, blocked, rtol=1e-12, atol=1e-12)


# ---- bad input -------------------------------------------------------------------
@pytest.mark.parametrize("X,y,match", [
    ([[1.0, np.nan], [2.0, 3.0]], [1.0, 2.0], "NaN"),
    ([[1.0, np.inf], [2.0, 3.0]], [1.0, 2.0], "inf"),
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "reshape"),
    ([[1.0], [2.0]], [1.0, 2.0, 3.0], "inconsistent numbers of samples"),
    (np.empty((0, 2)), [], "0 sample"),
])
def test_bad_input_value_errors(X, y, match):
    with pytest.raises(ValueError, match=match):
        KernelRidge(kernel="rbf").fit(X, y)


def test_strings_for_numeric_kernel():
    with pytest.raises(TypeError, match="strings"):
        KernelRidge(kernel="rbf").fit(["ab", "cd"], [1.0, 2.0])


def test_bad_hyperparameters():
    X, y = np.eye(3), np.ones(3)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        KernelRidge(solver="magic").fit(X, y)
    with pytest.raises(ValueError, match="explicit feature map"):
        KernelRidge(kernel="rbf", solver="primal").fit(X, y)
    with pytest.raises(ValueError, match="unknown kernel"):
        KernelRidge(kernel="rbff(gamma=1)").fit(X, y)
    with pytest.raises(ValueError, match="alpha has 2 values"):
        KernelRidge(alpha=[1.0, 2.0]).fit(X, y)


def test_non_psd_precomputed_is_refused_clearly():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        KernelRidge(kernel="precomputed", alpha=1e-3).fit(K, [1.0, 0.0])
    with pytest.raises(ValueError, match="square"):
        KernelRidge(kernel="precomputed").fit(np.ones((3, 2)), [1.0, 2.0, 3.0])


def test_sigmoid_kernel_is_flagged_not_psd():
    assert not Sigmoid().is_psd


def test_memory_budget_is_respected():
    X, y = np.random.default_rng(0).normal(size=(3000, 2)), np.zeros(3000)
    with kernelkit.config_context(memory="32MB"):
        # solver="auto" now falls back to Nystroem (falkon): see test_kernel_ridge_falkon.py
        with pytest.raises(MemoryBudgetError, match="memory budget"):
            KernelRidge(kernel="rbf", solver="dual").fit(X, y)


def test_predict_wrong_number_of_features():
    model = KernelRidge(kernel="rbf").fit(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="X has 2 features, but KernelRidge is expecting 3"):
        model.predict(np.ones((1, 2)))


def test_picklable_for_joblib():
    import pickle

    model = KernelRidge(kernel="rbf(gamma=0.5) + linear", alpha=0.1).fit(np.eye(4), np.arange(4.))
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(np.eye(4)), model.predict(np.eye(4)))


def test_grid_search_reaches_nested_kernel_parameters():
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(6)
    X = rng.normal(size=(80, 2))
    y = np.sin(2 * X[:, 0])
    search = GridSearchCV(KernelRidge(kernel=RBF(gamma=1.0) + Linear(), alpha=0.1),
                          {"kernel__k1__gamma": [0.01, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["kernel__k1__gamma"] == 1.0


# ---- fit_intercept -----------------------------------------------------------------

@pytest.mark.parametrize("solver,kernel", [("dual", "rbf(gamma=0.5)"), ("primal", "poly(degree=2, gamma=1)"),
                                           ("falkon", "rbf(gamma=0.5)")])
def test_intercept_is_sklearn_on_centred_y_plus_the_mean(solver, kernel):
    rng = np.random.default_rng(7)
    X, Xt = rng.normal(size=(60, 3)), rng.normal(size=(15, 3))
    y = np.sin(X[:, 0]) + 12.0
    sw = rng.uniform(0.5, 2.0, size=60)
    ours = KernelRidge(kernel, alpha=0.3, solver=solver, n_centers=60, tol=1e-12,
                       max_iter=500).fit(X, y, sample_weight=sw)
    mean = np.average(y, weights=sw)
    assert ours.intercept_ == pytest.approx(mean, rel=1e-14)
    sk_kernel = dict(kernel="rbf", gamma=0.5) if kernel.startswith("rbf") else \
        dict(kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    ref = SkKernelRidge(alpha=0.3, **sk_kernel).fit(X, y - mean, sample_weight=sw)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt) + mean, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("solver", ["dual", "falkon"])
def test_uncentred_target_gives_shifted_predictions(solver):
    rng = np.random.default_rng(8)
    X, Xt = rng.normal(size=(80, 2)), 3.0 * rng.normal(size=(20, 2))  # some far away
    y = X[:, 0] ** 2 - X[:, 1]
    Y = np.column_stack([y, -2.0 * y])
    kw = dict(alpha=0.1, solver=solver, n_centers=40, random_state=0, tol=1e-12, max_iter=500)
    base = KernelRidge("rbf(gamma=0.5)", **kw).fit(X, Y).predict(Xt)
    shifted = KernelRidge("rbf(gamma=0.5)", **kw).fit(X, Y + 1e6).predict(Xt)
    np.testing.assert_allclose(shifted - 1e6, base, atol=1e-6)
    # Without an intercept the far-away predictions fall toward 0, not toward 1e6.
    none = KernelRidge("rbf(gamma=0.5)", fit_intercept=False, **kw).fit(X, Y + 1e6)
    assert np.abs(none.predict(Xt) - 1e6).max() > 1e5
    assert none.intercept_.shape == (2,) and not none.intercept_.any()


def test_intercept_survives_save_and_old_files_without_it_load(tmp_path):
    rng = np.random.default_rng(9)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40) + 5.0
    model = KernelRidge("rbf(gamma=0.5)", alpha=0.1).fit(X, y)
    kernelkit.save(model, tmp_path / "m.kk")
    back = kernelkit.load(tmp_path / "m.kk")
    assert back.intercept_ == model.intercept_ and back.fit_intercept
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    old = KernelRidge("rbf(gamma=0.5)", alpha=0.1, fit_intercept=False).fit(X, y)
    del old.intercept_  # as written before these attributes existed
    kernelkit.save(old, tmp_path / "old.kk")
    back = kernelkit.load(tmp_path / "old.kk")
    assert back.intercept_ == 0.0 and not back.fit_intercept
    np.testing.assert_array_equal(back.predict(X), old.predict(X))
