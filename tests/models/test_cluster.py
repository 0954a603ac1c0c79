"""Kernel k-means against scikit-learn's KMeans (linear kernel) and feature-space loops."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

import kernelkit
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelKMeans


@pytest.fixture
def blobs():
    X, _ = make_blobs(n_samples=400, centers=5, cluster_std=2.5, n_features=3, random_state=0)
    return X


def rings(n=200, noise=0.08, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, size=2 * n)
    r = np.r_[np.ones(n), 3 * np.ones(n)]
    X = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=noise, size=(2 * n, 2))
    return X, np.r_[np.zeros(n), np.ones(n)]


@pytest.mark.parametrize("weighted", [False, True])
def test_linear_kernel_equals_sklearn_kmeans(blobs, weighted):
    X = blobs
    rng = np.random.default_rng(1)
    init = X[rng.choice(len(X), 5, replace=False)]
    sw = rng.uniform(0.5, 2.0, size=len(X)) if weighted else None
    ref = KMeans(5, init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(X, sample_weight=sw)
    ours = KernelKMeans(5, kernel="linear", init=init, tol=0.0).fit(X, sample_weight=sw)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-6)
    assert ours.n_iter_ == ref.n_iter_
    Xq = rng.normal(scale=5.0, size=(50, 3))
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Xq))


def test_stopping_by_tol_and_max_iter_as_sklearn(blobs):
    X = blobs
    init = X[:5]
    for kw in ({"max_iter": 2, "tol": 0.0}, {"max_iter": 300, "tol": 1e-2}):
        ref = KMeans(5, init=init, n_init=1, algorithm="lloyd", **kw).fit(X)
        # Our tol is relative to the total variance, scikit-learn's to its mean per feature.
        ours_tol = kw["tol"] / X.shape[1]
        ours = KernelKMeans(5, kernel="linear", init=init, max_iter=kw["max_iter"],
                            tol=ours_tol).fit(X)
        np.testing.assert_array_equal(ours.labels_, ref.labels_)
        assert ours.n_iter_ == ref.n_iter_
        assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-6)


def test_rbf_separates_concentric_rings_where_euclidean_fails():
    X, y = rings()
    euclid = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    kernel = KernelKMeans(2, kernel=RBF(gamma=0.5), n_init=10, random_state=0).fit_predict(X)
    assert adjusted_rand_score(y, euclid) < 0.1
    assert adjusted_rand_score(y, kernel) > 0.99


def _brute_force_sq_dist(k_fn, X, labels, Xq, n_clusters):
    """||phi(x) - m_c||^2 by the formula, with loops over the members of each cluster."""
    out = np.empty((len(Xq), n_clusters))
    for c in range(n_clusters):
        members = X[labels == c]
        m = len(members)
        within = sum(k_fn(a, b) for a in members for b in members) / m ** 2
        for i, x in enumerate(Xq):
            out[i, c] = k_fn(x, x) - 2 * sum(k_fn(x, a) for a in members) / m + within
    return out


def test_inertia_and_predict_against_brute_force():
    X, _ = make_blobs(n_samples=40, centers=3, n_features=2, random_state=3)
    X = X / 5.0
    model = KernelKMeans(3, kernel=Polynomial(degree=2, gamma=1.0, coef0=1.0),
                         random_state=0, tol=0.0).fit(X)
    poly = lambda a, b: (float(a @ b) + 1.0) ** 2  # noqa: E731
    D = _brute_force_sq_dist(poly, X, model.labels_, X, 3)
    assert model.inertia_ == pytest.approx(D[np.arange(40), model.labels_].sum(), rel=1e-9)
    np.testing.assert_array_equal(D.argmin(axis=1), model.labels_)  # a fixed point
    Xq = np.random.default_rng(0).normal(size=(10, 2))
    Dq = _brute_force_sq_dist(poly, X, model.labels_, Xq, 3)
    np.testing.assert_array_equal(model.predict(Xq), Dq.argmin(axis=1))


def test_kmeans_is_seeded_and_reproducible(blobs):
    # k-means++ itself is tested in tests/features/test_centers.py
    a = KernelKMeans(5, kernel=RBF(gamma=0.1), random_state=3).fit(blobs)
    b = KernelKMeans(5, kernel=RBF(gamma=0.1), random_state=3).fit(blobs)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_


def test_integer_weights_equal_repeated_rows(blobs):
    X = blobs[:120]
    w = np.random.default_rng(0).integers(1, 4, size=len(X))
    init = X[[0, 30, 60, 90]]
    weighted = KernelKMeans(4, kernel=RBF(gamma=0.05), init=init, tol=0.0).fit(X, sample_weight=w)
    repeated = KernelKMeans(4, kernel=RBF(gamma=0.05), init=init, tol=0.0).fit(np.repeat(X, w, 0))
    np.testing.assert_array_equal(np.repeat(weighted.labels_, w), repeated.labels_)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-10)


def test_blocked_gram_equals_stored_gram():
    X, _ = make_blobs(n_samples=1600, centers=4, n_features=2, random_state=1)
    init = X[:4]
    stored = KernelKMeans(4, kernel=RBF(gamma=0.2), init=init, tol=0.0).fit(X)
    with kernelkit.config_context(memory="16MB"):  # K is 20 MB: recomputed in blocks
        blocked = KernelKMeans(4, kernel=RBF(gamma=0.2), init=init, tol=0.0).fit(X)
        np.testing.assert_array_equal(blocked.predict(X[:100]), stored.predict(X[:100]))
    np.testing.assert_array_equal(blocked.labels_, stored.labels_)
    assert blocked.inertia_ == pytest.approx(stored.inertia_, rel=1e-10)


def test_empty_cluster_takes_the_farthest_point(blobs):
    X = blobs
    init = np.vstack([X[:3], [[1e3, 1e3, 1e3]]])  # the last center attracts no point
    ours = KernelKMeans(4, kernel="linear", init=init, tol=0.0).fit(X)
    ref = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    assert set(ours.labels_) == {0, 1, 2, 3}
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-6)


@pytest.mark.filterwarnings("ignore::kernelkit.NumericalWarning")  # a dropped ~0 eigenvalue
def test_nystroem_with_every_point_a_center_is_exact():
    X, _ = rings(n=40)
    init = X[[0, 40]]
    kernel = RBF(gamma=0.5)
    exact = KernelKMeans(2, kernel=kernel, init=init, tol=0.0).fit(X)
    approx = KernelKMeans(2, kernel=kernel, init=init, tol=0.0, approximation="nystroem",
                          n_components=len(X), random_state=0).fit(X)
    np.testing.assert_array_equal(approx.labels_, exact.labels_)
    assert approx.inertia_ == pytest.approx(exact.inertia_, rel=1e-6)
    np.testing.assert_array_equal(approx.predict(X), exact.predict(X))


def test_nystroem_approximation_on_rings():
    X, y = rings(n=300)
    model = KernelKMeans(2, kernel=RBF(gamma=0.5), approximation="nystroem", n_components=80,
                         n_init=10, random_state=0).fit(X)
    assert adjusted_rand_score(y, model.labels_) > 0.95
    assert model.cluster_centers_.shape[0] == 2


def test_bad_input_is_refused(blobs):
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=4"):
        KernelKMeans(4).fit(blobs[:3])
    with pytest.raises(ValueError, match="precomputed"):
        KernelKMeans(2, kernel="precomputed").fit(blobs)
    with pytest.raises(ValueError, match="init has 2 centers"):
        KernelKMeans(3, init=blobs[:2]).fit(blobs)
    with pytest.raises(ValueError, match="features"):
        KernelKMeans(2, init=blobs[:2, :2]).fit(blobs)
    with pytest.raises(ValueError, match="approximation"):
        KernelKMeans(2, approximation="rff").fit(blobs)
    with pytest.raises(ValueError, match="init must be"):
        KernelKMeans(2, init="farthest").fit(blobs)
    with pytest.raises(ValueError, match="NaN"):
        KernelKMeans(2).fit(np.full((5, 2), np.nan))
