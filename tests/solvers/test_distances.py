"""Feature-space distances and blocked nearest neighbours against scikit-learn and brute force."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import euclidean_distances

import kernelkit
from kernelkit.kernels import RBF, Linear, Polynomial
from kernelkit.solvers.distances import (kneighbors_blocked, query_blocks, smallest_k_indices,
                                         sq_distances)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(150, 3)), rng.normal(size=(40, 3))


def test_linear_kernel_gives_squared_euclidean_distances(data):
    X, Q = data
    kernel = Linear()
    D = sq_distances(kernel, Q, kernel.diag(Q), X, kernel.diag(X))
    np.testing.assert_allclose(D, euclidean_distances(Q, X, squared=True), atol=1e-10)


def test_rbf_distance_is_two_minus_two_k(data):
    X, Q = data
    kernel = RBF(gamma=0.3)
    D = sq_distances(kernel, Q, kernel.diag(Q), X, kernel.diag(X))
    ref = 2.0 - 2.0 * np.exp(-0.3 * euclidean_distances(Q, X, squared=True))
    np.testing.assert_allclose(D, ref, atol=1e-12)


def test_a_training_point_is_at_distance_zero_exactly(data):
    X, _ = data
    kernel = Polynomial(degree=3, gamma=0.5, coef0=1.0)
    D = sq_distances(kernel, X[:10], kernel.diag(X[:10]), X, kernel.diag(X))
    np.testing.assert_array_equal(D[np.arange(10), np.arange(10)], 0.0)
    assert (D >= 0).all()


def test_query_blocks_cover_the_queries_within_the_budget():
    with kernelkit.config_context(memory="16MB"):
        blocks = list(query_blocks(1000, 2000))
    assert blocks[0][0] == 0 and blocks[-1][1] == 1000
    assert all(b[1] == c[0] for b, c in zip(blocks, blocks[1:]))
    rows = max(r1 - r0 for r0, r1 in blocks)
    assert 3 * rows * 2000 * 8 <= 16 * 1024**2 / 8  # three temporaries in the block share
    assert len(blocks) > 1


@pytest.mark.parametrize("k", [1, 5, 70])
def test_smallest_k_indices_is_a_stable_sort(k):
    D = np.random.default_rng(1).integers(0, 20, size=(30, 100)).astype(np.float64)
    np.testing.assert_array_equal(smallest_k_indices(D, k),
                                  np.argsort(D, axis=1, kind="stable")[:, :k])


def _brute_kneighbors(gamma, Q, X, k, exclude_self=False):
    """RBF: ||phi(q) - phi(x)||^2 = 2 - 2 exp(-gamma ||q - x||^2), then a stable sort."""
    D = 2.0 - 2.0 * np.exp(-gamma * ((Q[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    if exclude_self:
        np.fill_diagonal(D, np.inf)
    idx = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, idx, 1), idx


@pytest.mark.parametrize("exclude_self", [False, True])
def test_kneighbors_blocked_against_brute_force_in_many_blocks(exclude_self):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1500, 2))
    Q = X[:60] if exclude_self else rng.normal(size=(60, 2))
    kernel = RBF(gamma=0.7)
    with kernelkit.config_context(memory="16MB"):
        assert len(list(query_blocks(len(Q), len(X)))) > 1
        if exclude_self:
            # kneighbors(X=None): the queries are the training set itself
            sq, ind = kneighbors_blocked(kernel, X, X, kernel.diag(X), 4, exclude_self=True)
            sq, ind = sq[:60], ind[:60]
        else:
            sq, ind = kneighbors_blocked(kernel, Q, X, kernel.diag(X), 4)
    ref_sq, ref_ind = _brute_kneighbors(0.7, Q, X, 4, exclude_self)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(sq, ref_sq, atol=1e-12)
