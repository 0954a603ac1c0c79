"""k-NN in the Euclidean order for kernels of the Euclidean distance, against the
feature-space path, a brute-force loop and scikit-learn; the float32 candidate pass
against its numpy twin and its error bound."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.neighbors import KNeighborsClassifier

import kernelkit.solvers.distances as dist
from kernelkit._compiled import bounded_candidates
from kernelkit._compiled._reference import bounded_candidates_ref
from kernelkit.kernels import RBF, Laplacian, Linear, Matern, Polynomial
from kernelkit.models import KernelKNeighborsClassifier, KernelKNeighborsRegressor
from kernelkit.planning import Choice


def _feature_space_only(monkeypatch):
    monkeypatch.setattr(dist, "neighbour_order_choice",
                        lambda *a, **k: Choice("neighbour order", "feature space", "test"))


def _both_paths(monkeypatch, kernel, Xq, X, k, exclude_self=False):
    diag = kernel.diag(X)
    fast = dist.kneighbors_blocked(kernel, Xq, X, diag, k, exclude_self=exclude_self)
    with monkeypatch.context() as m:
        _feature_space_only(m)
        slow = dist.kneighbors_blocked(kernel, Xq, X, diag, k, exclude_self=exclude_self)
    return fast, slow


def _brute(X, Xq, k, exclude_self=False):
    """Squared Euclidean distances from coordinate differences, ordered by (value, index)."""
    out = []
    for i, q in enumerate(Xq):
        d = ((X - q) ** 2).sum(axis=1)
        if exclude_self:
            d[i] = np.inf
        out.append(np.lexsort((np.arange(len(X)), d))[:k])
    return np.array(out)


@pytest.mark.parametrize("d", [5, 40])  # the float64 pass, and float32 candidates
@pytest.mark.parametrize("kernel", [RBF(gamma=0.05), Matern(nu=1.5, length_scale=3.0),
                                    2.0 * RBF(gamma=0.02) + RBF(gamma=0.1),
                                    RBF(gamma=0.03) * Matern(nu=0.5, length_scale=5.0)])
def test_euclidean_order_equals_feature_space_path(monkeypatch, kernel, d):
    rng = np.random.default_rng(d)
    X, Xq = rng.normal(size=(400, d)), rng.normal(size=(60, d))
    for k, self_ in ((1, False), (7, False), (5, True)):
        q = X if self_ else Xq
        (s1, i1), (s2, i2) = _both_paths(monkeypatch, kernel, q, X, k, self_)
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_allclose(s1, s2, rtol=1e-10, atol=1e-13)
        np.testing.assert_array_equal(i1, _brute(X, q, k, self_))


@pytest.mark.parametrize("d", [3, 36])
def test_repeated_rows_and_exact_ties_go_by_index(monkeypatch, d):
    # Integer points, each with its negation as often (the mean is exactly 0, so the
    # centred expansion is exact): squared distances are exact integers and ties are
    # exact ties; points repeat, so some queries sit on several training points.
    rng = np.random.default_rng(1)
    half = rng.integers(-1, 2, size=(15, d)).astype(float)
    base = np.vstack([half, -half])
    X = np.repeat(base, np.tile(rng.integers(1, 5, size=15), 2), axis=0)
    Xq = np.vstack([base[:10], rng.integers(-1, 2, size=(10, d)).astype(float)])
    kernel = RBF(gamma=0.5 / d)
    for k, q, self_ in ((3, Xq, False), (6, X, True)):
        (s1, i1), (s2, i2) = _both_paths(monkeypatch, kernel, q, X, k, self_)
        np.testing.assert_array_equal(i1, _brute(X, q, k, self_))
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_allclose(s1, s2, rtol=1e-10, atol=1e-13)
    zero = s1[:, 0] == 0.0  # a point and its repeat: distance exactly 0
    assert zero.any()


def test_more_near_ties_than_candidate_room_fall_back_to_float64(monkeypatch):
    # 100 copies of one point: every copy is a candidate for k = 2 (room 4k + 32 = 40)
    rng = np.random.default_rng(2)
    X = np.vstack([np.tile(rng.normal(size=(1, 40)), (100, 1)), rng.normal(size=(50, 40))])
    for q, self_ in ((X[:3] + 0.0, False), (X, True)):
        (s1, i1), (s2, i2) = _both_paths(monkeypatch, RBF(gamma=0.01), q, X, 2, self_)
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_array_equal(i1, _brute(X, q, 2, self_))


@pytest.mark.parametrize("self_offset", [-1, 0, 2])
def test_bounded_candidates_match_numpy_twin_and_contain_the_float64_neighbours(self_offset):
    rng = np.random.default_rng(3)
    Q, F = rng.normal(size=(30, 64)), rng.normal(size=(200, 64))
    qq, ff = (Q * Q).sum(1), (F * F).sum(1)
    G = Q.astype(np.float32) @ F.astype(np.float32).T
    c, c2 = dist.float32_distance_bound(64)
    floor = np.full(30, 1e-12)
    args = (G, qq, ff, np.sqrt(qq), np.sqrt(ff), c, c2, 4, self_offset, floor)
    cand, counts = bounded_candidates(*args, 12)
    cand_ref, counts_ref = bounded_candidates_ref(*args, 12)
    np.testing.assert_array_equal(counts, counts_ref)
    np.testing.assert_array_equal(cand, cand_ref)
    assert np.all(counts >= 4)
    # the bound holds: |d32 - d64| <= e for every entry
    D32 = qq[:, None] + ff[None, :] - 2.0 * G
    D64 = qq[:, None] + ff[None, :] - 2.0 * (Q @ F.T)
    E = c * np.sqrt(qq)[:, None] * np.sqrt(ff)[None, :] + c2 * (qq[:, None] + ff[None, :])
    assert np.all(np.abs(D32 - D64) <= E)
    if self_offset >= 0:
        rows = np.arange(30)
        D64[rows, rows + self_offset] = np.inf
    true = np.argsort(D64, axis=1, kind="stable")[:, :4]
    for i in range(30):
        assert set(true[i]) <= set(cand[i, :counts[i]])
    small = bounded_candidates(*args, 1)  # too little room: counts still complete
    np.testing.assert_array_equal(small[1], counts)


def test_choices_say_which_path_and_why():
    X = np.random.default_rng(4).normal(size=(50, 40))
    y = np.arange(50) % 2
    m = KernelKNeighborsClassifier(3, kernel="rbf(gamma=0.1)").fit(X, y)
    choices = {c.what: c for c in m.plan_.choices}
    assert choices["neighbour order"].value == "euclidean"
    assert choices["candidate precision"].value == "float32 candidates, float64 check"
    small = KernelKNeighborsRegressor(3, kernel=RBF(gamma=0.1)).fit(X[:, :5], y)
    assert {c.what: c.value for c in small.plan_.choices}["candidate precision"] == "float64"
    lin = {c.what: c.value for c in KernelKNeighborsClassifier(3, kernel=Linear()).fit(X, y)
           .plan_.choices}
    assert lin["neighbour order"] == "euclidean"  # the feature space is the input space
    for kernel, X_ in ((Laplacian(gamma=0.1), X), (Polynomial(degree=2), X),
                       (RBF(gamma=0.1), sp.csr_matrix(X)), (Linear(), sp.csr_matrix(X))):
        m = KernelKNeighborsClassifier(3, kernel=kernel).fit(X_, y)
        assert {c.what: c.value for c in m.plan_.choices} == {"neighbour order":
                                                               "feature space"}


def test_rbf_predictions_equal_scikit_learn_euclidean_knn():
    rng = np.random.default_rng(5)
    X, Xt = rng.random((600, 50)), rng.random((150, 50))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)
    ours = KernelKNeighborsClassifier(5, kernel=RBF(gamma=0.02)).fit(X, y)
    peer = KNeighborsClassifier(5, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours.kneighbors(Xt)[1], peer.kneighbors(Xt)[1])
    np.testing.assert_array_equal(ours.predict(Xt), peer.predict(Xt))
    # the distances are feature-space ones: sqrt(2 - 2 exp(-gamma ||x - z||^2))
    d_eu = peer.kneighbors(Xt)[0]
    np.testing.assert_allclose(ours.kneighbors(Xt)[0],
                               np.sqrt(2 - 2 * np.exp(-0.02 * d_eu ** 2)), rtol=1e-9)


@pytest.mark.parametrize("d", [5, 40])
@pytest.mark.parametrize("kernel, c", [(Linear(), 1.0), (2.5 * Linear(), 2.5)])
def test_linear_kernel_uses_the_euclidean_order(monkeypatch, kernel, c, d):
    """||phi(x) - phi(z)||^2 = c ||x - z||^2: the same neighbours and distances as the
    feature-space path, the brute-force loop and scikit-learn's Euclidean k-NN."""
    rng = np.random.default_rng(10 + d)
    X, Xq = rng.normal(3.0, 1.0, size=(400, d)), rng.normal(3.0, 1.0, size=(60, d))
    assert kernel.feature_distance_scale() == c and kernel.sq_euclidean_profile() is None
    for k, self_ in ((1, False), (6, False), (4, True)):
        q = X if self_ else Xq
        (s1, i1), (s2, i2) = _both_paths(monkeypatch, kernel, q, X, k, self_)
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_array_equal(i1, _brute(X, q, k, self_))
        np.testing.assert_allclose(s1, s2, rtol=1e-9, atol=1e-9)
        true = np.array([((X[i] - qi) ** 2).sum(axis=1) for i, qi in zip(i1, q)])
        np.testing.assert_allclose(s1, c * true, rtol=1e-12, atol=1e-12)
    y = (X[:, 0] > 3).astype(int)
    ours = KernelKNeighborsClassifier(5, kernel=kernel).fit(X, y)
    peer = KNeighborsClassifier(5, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours.kneighbors(Xq)[1], peer.kneighbors(Xq)[1])
    np.testing.assert_allclose(ours.kneighbors(Xq)[0], np.sqrt(c) * peer.kneighbors(Xq)[0],
                               rtol=1e-10)


def test_only_positive_multiples_of_linear_have_a_distance_scale():
    assert (0.0 * Linear()).feature_distance_scale() is None
    assert (Linear() + RBF()).feature_distance_scale() is None
    assert Polynomial(degree=1).feature_distance_scale() is None  # (gamma x'y + coef0)
