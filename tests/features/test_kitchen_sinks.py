"""RandomKitchenSinks against brute-force bases, moments of the samplers and the RBF kernel."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

from kernelkit.features import RandomKitchenSinks, kitchen_sinks


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(80, 3))


def _brute(fmap, X):
    """psi(x; w_j) one sample and one basis function at a time."""
    W, b = fmap.random_weights_.astype(np.float64), fmap.random_offset_
    out = np.empty((len(X), W.shape[1]))
    for i, x in enumerate(X):
        for j in range(W.shape[1]):
            if fmap.basis == "cosine":
                out[i, j] = np.cos(x @ W[:, j] + b[j])
            elif fmap.basis == "sigmoid":
                out[i, j] = np.tanh(x @ W[:, j] + b[j])
            else:
                out[i, j] = float(np.linalg.norm(x - W[:, j]) <= b[j])
    return out


@pytest.mark.parametrize("basis", ["cosine", "sigmoid", "bump"])
@pytest.mark.parametrize("sampler", [None, "normal", "uniform", "data"])
def test_transform_is_the_basis(basis, sampler, X):
    fmap = RandomKitchenSinks(40, basis=basis, sampler=sampler, random_state=0).fit(X)
    Z = fmap.transform(X[:30])
    assert Z.shape == (30, 40) and Z.dtype == np.float64
    ref = _brute(fmap, X[:30])
    if basis == "bump":  # a point exactly on a sphere may round either way
        assert np.mean(Z != ref) < 1e-3
        assert set(np.unique(Z)) <= {0.0, 1.0}
    else:
        np.testing.assert_allclose(Z, ref, atol=1e-12)


def test_sampler_moments():
    X = np.random.default_rng(1).normal(size=(50, 4)) * 2.0
    gamma = 0.3
    W = RandomKitchenSinks(20000, gamma=gamma, random_state=0).fit(X).random_weights_
    assert W.var() == pytest.approx(2 * gamma, rel=0.02) and abs(W.mean()) < 0.01
    U = RandomKitchenSinks(20000, sampler="uniform", gamma=gamma, random_state=0).fit(X)
    a = np.sqrt(6 * gamma)
    assert np.abs(U.random_weights_).max() <= a
    assert U.random_weights_.var() == pytest.approx(2 * gamma, rel=0.02)
    b = RandomKitchenSinks(20000, random_state=0).fit(X).random_offset_
    assert b.min() >= 0 and b.max() <= 2 * np.pi and b.mean() == pytest.approx(np.pi, rel=0.02)


def test_gamma_scale_and_data_sampler(X):
    fmap = RandomKitchenSinks(10, sampler="data", random_state=0).fit(X)
    assert fmap.gamma_ is None
    for w in fmap.random_weights_.T:  # every column is a training point
        assert np.any(np.all(X == w, axis=1))
    assert RandomKitchenSinks(5).fit(X).gamma_ == pytest.approx(1 / (3 * X.var()))


def test_sigmoid_hyperplanes_pass_through_training_points(X):
    fmap = RandomKitchenSinks(25, basis="sigmoid", random_state=0).fit(X)
    phase = X @ fmap.random_weights_ + fmap.random_offset_  # zero at the chosen point
    assert np.all(np.min(np.abs(phase), axis=0) < 1e-12)


def test_bump_centers_and_default_bandwidth(X):
    fmap = RandomKitchenSinks(200, basis="bump", random_state=0).fit(X)
    D = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)[np.triu_indices(len(X), 1)]
    assert fmap.bandwidth_ == pytest.approx(np.quantile(D, 0.1))
    assert 0.05 < fmap.transform(X).mean() < 0.2  # about a tenth of the data per bump
    box = RandomKitchenSinks(200, basis="bump", sampler="uniform", bandwidth=0.7,
                             random_state=0).fit(X)
    W = box.random_weights_
    assert np.all(W.min(1) >= X.min(0)) and np.all(W.max(1) <= X.max(0))
    assert box.bandwidth_ == 0.7 and np.all(box.random_offset_ == 0.7)


def test_normalized_cosine_approximates_rbf(X):
    gamma = 0.4
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-gamma * D)
    errors = []
    for q in (100, 1000, 10000):
        Z = RandomKitchenSinks(q, gamma=gamma, normalize=True, random_state=0).fit_transform(X)
        errors.append(np.abs(Z @ Z.T - K).max())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.08


@pytest.mark.parametrize("basis", ["sigmoid", "bump"])
def test_blocks_and_float32_agree(basis, X, monkeypatch):
    fmap = RandomKitchenSinks(64, basis=basis, random_state=0).fit(X)
    Z = fmap.transform(X)
    monkeypatch.setattr(kitchen_sinks, "rows_per_block", lambda *a, **k: 7)
    np.testing.assert_array_equal(fmap.transform(X), Z)
    monkeypatch.undo()
    Z32 = RandomKitchenSinks(64, basis=basis, dtype="float32",
                             random_state=0).fit(X).transform(X)
    assert Z32.dtype == np.float32
    if basis == "bump":  # points near a sphere may round either way
        assert np.mean(Z32 != Z) < 1e-3
    else:
        np.testing.assert_allclose(Z32, Z, atol=1e-5)


def test_callables(X):
    seen = {}

    def sampler(rng, q, d):
        seen["args"] = (type(rng).__name__, q, d)
        return rng.normal(size=(d, q))

    fmap = RandomKitchenSinks(7, basis=lambda A, W: np.maximum(A @ W, 0.0), sampler=sampler,
                              random_state=0).fit(X)
    assert seen["args"] == ("RandomState", 7, 3)
    np.testing.assert_allclose(fmap.transform(X), np.maximum(X @ fmap.random_weights_, 0))
    assert fmap.random_offset_ is None


@pytest.mark.parametrize("kwargs, match", [
    (dict(sampler=lambda rng, q, d: np.zeros((q, d + 1))), r"shape \(n_features, n_components\)"),
    (dict(sampler=lambda rng, q, d: np.full((d, q), np.nan)), "NaN"),
    (dict(basis=lambda A, W: A), r"must return \(n_samples, n_components\)"),
    (dict(basis=lambda A, W: np.full((len(A), W.shape[1]), np.inf)), "infinite"),
    (dict(n_components=0), "n_components"),
    (dict(basis="relu"), "basis must be one of"),
    (dict(sampler="cauchy"), "sampler must be"),
    (dict(gamma=-1.0), "gamma"),
    (dict(bandwidth=0.0), "bandwidth"),
    (dict(normalize="yes"), "normalize"),
    (dict(dtype="float16"), "dtype"),
])
def test_bad_parameters(kwargs, match, X):
    with pytest.raises(ValueError, match=match):
        RandomKitchenSinks(**{"n_components": 5, **kwargs}).fit(X)


def test_bad_input(X):
    fmap = RandomKitchenSinks(5, random_state=0)
    with pytest.raises(Exception, match="not fitted"):
        fmap.transform(X)
    fmap.fit(X)
    with pytest.raises(ValueError, match="expecting 3 features"):
        fmap.transform(X[:, :2])
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fmap.transform(bad)


@pytest.mark.parametrize("model", [Ridge(alpha=1e-3), Lasso(alpha=1e-3, max_iter=5000)])
def test_pipeline_with_linear_regressors(model):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(300, 2))
    y = np.sin(2 * X[:, 0]) * X[:, 1]
    pipe = make_pipeline(RandomKitchenSinks(300, gamma=1.0, random_state=0), model).fit(X, y)
    assert pipe.score(X, y) > 0.95


def test_pipeline_with_logistic_regression():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4, "out", "in")
    pipe = make_pipeline(RandomKitchenSinks(200, basis="bump", random_state=0),
                         LogisticRegression(C=100.0, max_iter=2000)).fit(X, y)
    assert pipe.score(X, y) > 0.9  # a linear model alone is at chance level here


def test_ridge_on_normalized_cosines_approaches_exact_kernel_ridge():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(200, 2))
    y = np.sin(2 * X[:, 0]) + np.cos(X[:, 1])
    X_test = rng.uniform(-2, 2, size=(100, 2))
    gamma, alpha = 0.5, 0.1
    exact = SkKernelRidge(alpha=alpha, kernel="rbf", gamma=gamma).fit(X, y).predict(X_test)
    errors = []
    for q in (50, 500, 5000):
        pipe = make_pipeline(RandomKitchenSinks(q, gamma=gamma, normalize=True, random_state=0),
                             Ridge(alpha=alpha, fit_intercept=False)).fit(X, y)
        errors.append(np.sqrt(np.mean((pipe.predict(X_test) - exact) ** 2)))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.05 * np.std(exact)
