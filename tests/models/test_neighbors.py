"""Kernel k-NN against scikit-learn's Euclidean k-NN and brute-force feature-space loops."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

import kernelkit
from kernelkit.kernels import RBF, Linear, Polynomial
from kernelkit.models import KernelKNeighborsClassifier, KernelKNeighborsRegressor


@pytest.fixture
def data():
    # Continuous random data: no two distances are equal, so neighbours are unique.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3).astype(int) + (X[:, 2] > 1.0)
    Xq = rng.normal(size=(60, 4))
    return X, y, Xq


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k", [1, 5, 12])
def test_linear_kernel_equals_sklearn_classifier(data, weights, k):
    X, y, Xq = data
    ours = KernelKNeighborsClassifier(k, weights=weights, kernel="linear").fit(X, y)
    ref = KNeighborsClassifier(k, weights=weights, algorithm="brute").fit(X, y)
    d, i = ours.kneighbors(Xq)
    d_ref, i_ref = ref.kneighbors(Xq)
    np.testing.assert_array_equal(i, i_ref)
    np.testing.assert_allclose(d, d_ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Xq))
    np.testing.assert_allclose(ours.predict_proba(Xq), ref.predict_proba(Xq), atol=1e-12)
    # X=None: each training point without itself, as scikit-learn.
    d0, i0 = ours.kneighbors()
    d0_ref, i0_ref = ref.kneighbors()
    np.testing.assert_array_equal(i0, i0_ref)
    np.testing.assert_allclose(d0, d0_ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_linear_kernel_equals_sklearn_regressor(data, weights):
    X, _, Xq = data
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2]])
    for y in (Y[:, 0], Y):
        ours = KernelKNeighborsRegressor(7, weights=weights).fit(X, y)
        ref = KNeighborsRegressor(7, weights=weights).fit(X, y)
        np.testing.assert_allclose(ours.predict(Xq), ref.predict(Xq), rtol=1e-12, atol=1e-12)


def test_distance_weights_with_a_query_on_a_training_point(data):
    X, y, _ = data
    Xq = X[:3] + np.array([[0.0], [0.0], [1e-3]])
    ours = KernelKNeighborsRegressor(4, weights="distance").fit(X, y.astype(float))
    ref = KNeighborsRegressor(4, weights="distance").fit(X, y.astype(float))
    np.testing.assert_allclose(ours.predict(Xq), ref.predict(Xq), atol=1e-12)
    assert ours.predict(X[:1])[0] == y[0]


def test_rbf_neighbour_order_is_euclidean(data):
    X, y, Xq = data
    gamma = 0.3
    ours = KernelKNeighborsClassifier(10, kernel=RBF(gamma=gamma)).fit(X, y)
    d_euc, i_euc = KNeighborsClassifier(10).fit(X, y).kneighbors(Xq)
    d, i = ours.kneighbors(Xq)
    np.testing.assert_array_equal(i, i_euc)
    # ||phi(x) - phi(z)||^2 = 2 - 2 exp(-gamma ||x - z||^2) for RBF.
    np.testing.assert_allclose(d, np.sqrt(2 - 2 * np.exp(-gamma * d_euc ** 2)), rtol=1e-9)


def _poly(x, z):
    return (0.5 * float(x @ z) + 1.0) ** 3


def _brute_force_neighbours(k_fn, X, Xq, k):
    """Feature-space distances by a loop over pairs, from the kernel's formula."""
    D = np.array([[k_fn(x, x) - 2 * k_fn(x, z) + k_fn(z, z) for z in X] for x in Xq])
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.sqrt(np.maximum(np.take_along_axis(D, idx, axis=1), 0)), idx


def test_polynomial_kernel_against_brute_force(data):
    X, y, Xq = data
    kernel = Polynomial(degree=3, gamma=0.5, coef0=1.0)
    ours = KernelKNeighborsClassifier(4, kernel=kernel).fit(X[:50], y[:50])
    d_ref, i_ref = _brute_force_neighbours(_poly, X[:50], Xq[:15], 4)
    d, i = ours.kneighbors(Xq[:15])
    np.testing.assert_array_equal(i, i_ref)
    np.testing.assert_allclose(d, d_ref, rtol=1e-8)
    # The polynomial feature space orders neighbours differently from Euclidean.
    assert not np.array_equal(i, KNeighborsClassifier(4).fit(X[:50], y[:50]).kneighbors(
        Xq[:15])[1])


def test_query_blocks_within_a_small_memory_budget():
    rng = np.random.default_rng(1)
    X, Xq = rng.normal(size=(3000, 3)), rng.normal(size=(400, 3))
    y = rng.normal(size=3000)
    model = KernelKNeighborsRegressor(6, kernel=RBF(gamma=0.2)).fit(X, y)
    full = model.kneighbors(Xq)
    with kernelkit.config_context(memory="16MB"):  # blocks of ~87 query rows
        blocked = model.kneighbors(Xq)
    np.testing.assert_array_equal(blocked[1], full[1])
    np.testing.assert_array_equal(blocked[0], full[0])


def test_ties_are_broken_by_training_index():
    X = np.array([[1.0], [-1.0], [1.0], [3.0]])
    model = KernelKNeighborsClassifier(3, kernel=Linear()).fit(X, [0, 1, 0, 1])
    _, ind = model.kneighbors([[0.0]])
    np.testing.assert_array_equal(ind, [[0, 1, 2]])


def test_bad_input_is_refused(data):
    X, y, Xq = data
    with pytest.raises(ValueError, match="precomputed"):
        KernelKNeighborsClassifier(kernel="precomputed").fit(X[:5], y[:5])
    with pytest.raises(ValueError, match="weights must be"):
        KernelKNeighborsClassifier(weights="gaussian").fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors"):
        KernelKNeighborsClassifier(0).fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
        KernelKNeighborsClassifier(10).fit(X[:5], y[:5]).predict(Xq)
    with pytest.raises(ValueError, match="NaN"):
        KernelKNeighborsClassifier().fit(X, y).predict(np.full((2, 4), np.nan))
    with pytest.raises(ValueError, match="features"):
        KernelKNeighborsClassifier().fit(X, y).predict(Xq[:, :3])
