"""Streamed normal equations against Z'Z computed at once, primal_ridge and sklearn's Ridge."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from kernelkit.features import RandomFourierFeatures
from kernelkit.solvers import primal_ridge
from kernelkit.solvers.normal_equations import (feature_normal_equations, normal_block,
                                                solve_normal_equations)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1000, 4))
    Y = np.column_stack([np.sin(X[:, 0]) + 0.1 * rng.standard_normal(1000), X[:, 1] ** 2 + 3.0])
    return X, Y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_block_equals_direct_products(dtype, order):
    rng = np.random.default_rng(1)
    Z = np.asarray(rng.standard_normal((300, 40)), dtype=dtype, order=order)
    Y = rng.standard_normal((300, 3))
    part = normal_block(Z, Y)
    Z64 = Z.astype(np.float64)
    tol = 1e-12 if dtype == np.float64 else 1e-4
    assert np.allclose(np.triu(part.ZtZ), np.triu(Z64.T @ Z64), rtol=tol, atol=tol * 300)
    assert np.allclose(np.tril(part.ZtZ, -1), 0.0)  # syrk fills one triangle only
    assert np.allclose(part.ZtY, Z64.T @ Y, rtol=tol, atol=tol * 300)
    assert np.allclose(part.z_sum, Z64.sum(0), rtol=tol, atol=tol * 300)
    assert part.n == 300 and part.ZtZ.dtype == np.float64


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_streamed_equals_stored_features(data, n_jobs):
    X, Y = data
    rff = RandomFourierFeatures("rbf(gamma=0.5)", 64, random_state=0).fit(X)
    Z = rff.transform(X)
    ne = feature_normal_equations(rff.transform, X, Y, block_rows=97, n_jobs=n_jobs)
    assert ne.n == len(X)
    assert np.allclose(ne.ZtZ, Z.T @ Z, rtol=1e-12, atol=1e-10)
    assert np.allclose(ne.ZtZ, ne.ZtZ.T)
    assert np.allclose(ne.ZtY, Z.T @ Y, rtol=1e-12, atol=1e-10)
    assert np.allclose(ne.y_sum, Y.sum(0))
    W, b, jitter = solve_normal_equations(ne, 0.3)
    W_ref, _ = primal_ridge(Z, Y, 0.3)
    assert np.allclose(W, W_ref, rtol=1e-9, atol=1e-10) and np.all(b == 0) and jitter == 0


def test_intercept_matches_sklearn_ridge(data):
    X, Y = data
    rff = RandomFourierFeatures("rbf(gamma=0.5)", 50, random_state=0).fit(X)
    Z = rff.transform(X)
    ne = feature_normal_equations(rff.transform, X, Y[:, 1], block_rows=128, n_jobs=1)
    W, b, _ = solve_normal_equations(ne, 2.0, fit_intercept=True)
    ref = Ridge(alpha=2.0).fit(Z, Y[:, 1])
    assert np.allclose(W[:, 0], ref.coef_, rtol=1e-8, atol=1e-10)
    assert b[0] == pytest.approx(ref.intercept_, rel=1e-10)


def test_float32_features_close_to_float64(data):
    X, Y = data
    kw = dict(kernel="rbf(gamma=0.5)", n_components=64, random_state=0)
    f64 = RandomFourierFeatures(**kw).fit(X)
    f32 = RandomFourierFeatures(**kw, dtype="float32").fit(X)
    W64, _, _ = solve_normal_equations(feature_normal_equations(f64.transform, X, Y), 1.0)
    W32, _, _ = solve_normal_equations(feature_normal_equations(f32.transform, X, Y), 1.0)
    p64, p32 = f64.transform(X) @ W64, f32.transform(X).astype(np.float64) @ W32
    assert np.max(np.abs(p64 - p32)) < 1e-4 * np.max(np.abs(p64))


def test_empty_input():
    with pytest.raises(ValueError, match="no rows"):
        feature_normal_equations(lambda A: A, np.empty((0, 2)), np.empty(0))
