"""The kernel k-means solver against scikit-learn's KMeans (linear kernel) and brute force."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from kernelkit import GramOperator, gram
from kernelkit.kernels import RBF, Linear
from kernelkit.solvers.kernel_kmeans import (kernel_kmeans, lloyd_feature_space,
                                             operator_products, stored_gram_products)


@pytest.fixture
def blobs():
    X, _ = make_blobs(n_samples=300, centers=4, cluster_std=2.0, n_features=3, random_state=2)
    return X


def _one_hot(member, a, k):
    A = np.zeros((len(member), k))
    A[np.arange(len(member)), member] = a
    return A


def test_products_equal_k_times_the_weight_matrix(blobs):
    kernel = RBF(gamma=0.1)
    K = gram(kernel, blobs)
    rng = np.random.default_rng(0)
    member = rng.integers(0, 4, size=len(blobs))
    A = _one_hot(member, rng.uniform(size=len(blobs)), 4)
    np.testing.assert_allclose(stored_gram_products(K, 4)(member, A), K @ A, rtol=1e-12)
    np.testing.assert_allclose(operator_products(GramOperator(kernel, blobs))(member, A), K @ A,
                               rtol=1e-12)


@pytest.mark.parametrize("store_gram", [True, False])
def test_linear_kernel_equals_sklearn_lloyd(blobs, store_gram):
    init = blobs[[0, 50, 100, 150]]
    sw = np.random.default_rng(1).uniform(0.5, 2.0, size=len(blobs))
    ref = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(blobs, sample_weight=sw)
    res = kernel_kmeans(Linear(), blobs, sw, 4, init=init, n_init=1, max_iter=300, tol=0.0,
                        rng=np.random.RandomState(0), store_gram=store_gram)
    np.testing.assert_array_equal(res.labels, ref.labels_)
    assert res.inertia == pytest.approx(ref.inertia_, rel=1e-9)
    assert res.n_iter == ref.n_iter_
    # The means: m_c = sum_j weights_j x_j over the members of c; ||m_c||^2 as stored.
    means = np.array([(res.weights[res.member == c, None] * blobs[res.member == c]).sum(0)
                      for c in range(4)])
    np.testing.assert_allclose(means, ref.cluster_centers_, atol=1e-10)
    np.testing.assert_allclose(res.center_norms, (means ** 2).sum(1), rtol=1e-10)


def test_lloyd_from_given_centers_against_brute_force(blobs):
    # One Lloyd step by hand: assign to the nearest center, means of the members.
    X, C = blobs, blobs[[3, 70, 140, 210]]
    kernel = Linear()
    sw = np.ones(len(X))
    G, csq = gram(kernel, X, C), (C ** 2).sum(1)
    labels, inertia, n_iter, member, A, csq_final = lloyd_feature_space(
        stored_gram_products(gram(kernel, X), 4), kernel.diag(X), sw, G, csq, 1, 0.0)
    first = ((X[:, None] - C[None]) ** 2).sum(-1).argmin(1)
    np.testing.assert_array_equal(member, first)
    means = np.array([X[first == c].mean(0) for c in range(4)])
    D = ((X[:, None] - means[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(labels, D.argmin(1))  # reassigned to the final means
    assert inertia == pytest.approx(D.min(1).sum(), rel=1e-10)
    assert n_iter == 1


def test_best_of_n_init_runs_has_the_lowest_inertia(blobs):
    kernel = RBF(gamma=0.05)
    sw = np.ones(len(blobs))
    single = [kernel_kmeans(kernel, blobs, sw, 4, init="random", n_init=1, max_iter=100,
                            tol=0.0, rng=np.random.RandomState(s), store_gram=True).inertia
              for s in range(3)]
    rng = np.random.RandomState(0)
    best = kernel_kmeans(kernel, blobs, sw, 4, init="random", n_init=3, max_iter=100, tol=0.0,
                         rng=rng, store_gram=True)
    assert best.inertia <= single[0] + 1e-9
