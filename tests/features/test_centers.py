"""Center selection (uniform, kernel k-means++, leverage) and the feature-space distance,
against brute-force and closed-form references."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from kernelkit import gram
from kernelkit.features.centers import (kmeanspp_centers, leverage_centers, leverage_scores,
                                        select_centers, sq_dist_from_inner, take_rows,
                                        uniform_centers)
from kernelkit.kernels import RBF, Polynomial


@pytest.fixture
def blobs():
    X, _ = make_blobs(n_samples=400, centers=5, cluster_std=2.5, n_features=3, random_state=0)
    return X


def _brute_sq_dist(k, X, Z):
    return np.array([[k(x, x) - 2 * k(x, z) + k(z, z) for z in Z] for x in X])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sq_dist_from_inner_is_the_expansion_clamped_at_zero(dtype):
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 3)), rng.normal(size=(4, 3))
    poly = lambda a, b: (float(a @ b) + 1.0) ** 2  # noqa: E731
    kernel = Polynomial(degree=2, gamma=1.0, coef0=1.0)
    inner = gram(kernel, X, Z).astype(dtype)
    D = sq_dist_from_inner(inner, kernel.diag(X), kernel.diag(Z))
    assert D.dtype == np.float64 and D.shape == (7, 4)
    np.testing.assert_allclose(D, _brute_sq_dist(poly, X, Z),
                               rtol=1e-5 if dtype == np.float32 else 1e-12)
    # A point against itself: round-off may go below 0, the clamp keeps 0.
    self_d = sq_dist_from_inner(gram(kernel, X), kernel.diag(X), kernel.diag(X))
    assert (self_d >= 0).all() and np.abs(np.diag(self_d)).max() < 1e-10


def test_sq_dist_from_inner_one_column_and_in_place():
    diag = np.array([1.0, 2.0, 3.0])
    inner = np.array([0.5, 2.0, -1.0])
    np.testing.assert_array_equal(sq_dist_from_inner(inner, diag, 0.25), [0.25, 0.0, 5.25])
    G = np.array([[0.5, 4.0], [2.0, 0.0], [-1.0, 1.0]])
    out = sq_dist_from_inner(G, diag, np.array([0.25, 1.0]), out=G)
    assert out is G
    np.testing.assert_array_equal(G, [[0.25, 0.0], [0.0, 3.0], [5.25, 2.0]])


def test_take_rows_on_arrays_and_lists():
    np.testing.assert_array_equal(take_rows(np.arange(5), [3, 1]), [3, 1])
    assert take_rows(["a", "b", "c"], [2, 0]) == ["c", "a"]


def test_uniform_centers_are_sorted_and_distinct():
    idx = uniform_centers(50, 20, np.random.RandomState(0))
    assert len(set(idx)) == 20 and (np.diff(idx) > 0).all()


def _textbook_kmeanspp(kernel, X, M, rng):
    """Arthur & Vassilvitskii's D^2 sampling, point by point (the first uniformly)."""
    k = lambda a, b: float(gram(kernel, a[None], b[None])[0, 0])  # noqa: E731
    n = len(X)
    chosen = [rng.randint(n)]
    while len(chosen) < M:
        d2 = np.array([0.0 if i in chosen else
                       max(min(k(X[i], X[i]) - 2 * k(X[i], X[c]) + k(X[c], X[c])
                               for c in chosen), 0.0) for i in range(n)])
        chosen.append(int(rng.choice(n, p=d2 / d2.sum())))
    return chosen


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plain_kmeanspp_is_textbook_d2_sampling(seed):
    X = np.random.default_rng(seed).normal(size=(40, 2))
    kernel = RBF(gamma=0.5)
    ours = kmeanspp_centers(kernel, X, 6, np.random.RandomState(seed))
    ref = _textbook_kmeanspp(kernel, X, 6, np.random.RandomState(seed))
    np.testing.assert_array_equal(ours, ref)


def test_kmeanspp_is_seeded_and_reproducible(blobs):
    kernel = RBF(gamma=0.1)
    diag = kernel.diag(blobs)
    sw = np.ones(len(blobs))
    seeds = [kmeanspp_centers(kernel, blobs, 5, np.random.RandomState(s), sample_weight=sw,
                              n_local_trials=None, diag=diag) for s in (7, 7, 8)]
    np.testing.assert_array_equal(seeds[0], seeds[1])
    assert len(set(seeds[0])) == 5
    assert not np.array_equal(seeds[0], seeds[2])


@pytest.mark.parametrize("n_local_trials", [1, None])
def test_kmeanspp_never_draws_weightless_rows(blobs, n_local_trials):
    kernel = RBF(gamma=0.1)
    sw = np.zeros(len(blobs))
    sw[::7] = 1.0
    for s in range(5):
        idx = kmeanspp_centers(kernel, blobs, 5, np.random.RandomState(s), sample_weight=sw,
                               n_local_trials=n_local_trials)
        assert (sw[idx] > 0).all() and len(set(idx)) == 5


def test_greedy_kmeanspp_lowers_the_potential(blobs):
    # The best of 2 + log k candidates per center: on average a lower potential
    # sum_i min_c d^2(x_i, c) than plain D^2 sampling.
    kernel = RBF(gamma=0.1)
    diag = kernel.diag(blobs)

    def potential(idx):
        return sq_dist_from_inner(gram(kernel, blobs, blobs[idx]), diag, diag[idx]).min(1).sum()

    plain = [potential(kmeanspp_centers(kernel, blobs, 5, np.random.RandomState(s)))
             for s in range(10)]
    greedy = [potential(kmeanspp_centers(kernel, blobs, 5, np.random.RandomState(s),
                                         n_local_trials=None)) for s in range(10)]
    assert np.mean(greedy) < np.mean(plain)


def test_kmeanspp_on_duplicates_picks_distinct_points():
    X = np.repeat(np.arange(4.0)[:, None], 5, axis=0)
    idx = kmeanspp_centers(RBF(gamma=1.0), X, 4, np.random.RandomState(0))
    assert sorted(X[idx, 0]) == [0.0, 1.0, 2.0, 3.0]
    # More centers than distinct points: the rest are any unchosen rows.
    idx = kmeanspp_centers(RBF(gamma=1.0), X, 6, np.random.RandomState(0))
    assert len(set(idx)) == 6


def test_leverage_scores_with_every_row_as_pilot_are_exact():
    X = np.random.default_rng(0).normal(size=(60, 2))
    kernel, ridge = RBF(gamma=0.5), 0.3
    K = gram(kernel, X)
    exact = np.diag(K @ np.linalg.inv(K + ridge * np.eye(len(X))))
    np.testing.assert_allclose(leverage_scores(kernel, X, ridge, np.arange(len(X))), exact,
                               atol=1e-8)


def test_leverage_scores_from_a_pilot_are_the_nystroem_residual():
    # Alaoui & Mahoney's estimate: (k_ii - K_iP (K_PP + ridge I)^-1 K_Pi) / ridge, by an
    # explicit solve; it is never below the exact ridge leverage score (the Nystroem
    # residual is at least the exact one).
    X = np.random.default_rng(1).normal(size=(80, 3))
    kernel, ridge, pilot = RBF(gamma=0.3), 0.05, np.arange(0, 80, 3)
    K = gram(kernel, X)
    KP = K[:, pilot]
    quad = np.einsum("ij,ji->i", KP, np.linalg.solve(K[np.ix_(pilot, pilot)]
                                                     + ridge * np.eye(len(pilot)), KP.T))
    ours = leverage_scores(kernel, X, ridge, pilot)
    np.testing.assert_allclose(ours, (np.diag(K) - quad) / ridge, rtol=1e-8, atol=1e-10)
    exact = np.diag(K @ np.linalg.inv(K + ridge * np.eye(len(X))))
    assert (ours >= exact - 1e-8).all()


def test_leverage_centers_are_distinct_and_seeded(blobs):
    a = leverage_centers(RBF(gamma=0.1), blobs, 20, np.random.RandomState(0))
    b = leverage_centers(RBF(gamma=0.1), blobs, 20, np.random.RandomState(0))
    np.testing.assert_array_equal(a, b)
    assert len(set(a)) == 20


@pytest.mark.parametrize("method", ["uniform", "kmeans++", "leverage"])
def test_select_centers_dispatches(method, blobs):
    kernel = RBF(gamma=0.1)
    ref = {"uniform": lambda r: uniform_centers(len(blobs), 8, r),
           "kmeans++": lambda r: kmeanspp_centers(kernel, blobs, 8, r),
           "leverage": lambda r: leverage_centers(kernel, blobs, 8, r)}[method]
    np.testing.assert_array_equal(select_centers(kernel, blobs, 8, method,
                                                 np.random.RandomState(3)),
                                  ref(np.random.RandomState(3)))


def test_select_centers_unknown_method():
    with pytest.raises(ValueError, match="center selection must be one of"):
        select_centers(RBF(), np.zeros((3, 1)), 2, "random", np.random.RandomState(0))


def test_distinct_centers_keep_first_rows_and_count_repeats():
    from kernelkit.features.centers import distinct_centers

    X = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [5.0, 6.0], [3.0, 4.0]])
    kept, counts = distinct_centers(X, np.array([4, 0, 1, 2, 3]))
    np.testing.assert_array_equal(kept, [4, 0, 3])
    np.testing.assert_array_equal(counts, [2, 2, 1])
    kept, counts = distinct_centers(["ab", "c", "ab", "d"], np.arange(4))
    np.testing.assert_array_equal(kept, [0, 1, 3])
    np.testing.assert_array_equal(counts, [2, 1, 1])
    kept, counts = distinct_centers(X, np.array([], dtype=int))
    assert kept.size == counts.size == 0
