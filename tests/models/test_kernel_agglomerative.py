"""KernelAgglomerativeClustering against scikit-learn's AgglomerativeClustering."""

import warnings

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering
from sklearn.datasets import make_moons
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError, MemoryBudgetError, NumericalWarning
from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import RBF, Polynomial, Spectrum
from kernelkit.models import KernelAgglomerativeClustering


def _distances(K):
    d = np.diag(K)
    return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * K, 0.0))


@pytest.fixture(scope="module")
def moons():
    X, _ = make_moons(150, noise=0.08, random_state=0)
    return X


@pytest.mark.parametrize("linkage", ["single", "complete", "average"])
@pytest.mark.parametrize("n_clusters", [2, 5])
def test_equals_sklearn_on_precomputed_distances(moons, linkage, n_clusters):
    D = _distances(rbf_kernel(moons, gamma=2.0))
    ref = AgglomerativeClustering(n_clusters, metric="precomputed", linkage=linkage,
                                  compute_distances=True).fit(D)
    est = KernelAgglomerativeClustering(n_clusters, kernel=RBF(gamma=2.0), linkage=linkage,
                                        compute_distances=True).fit(moons)
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
    np.testing.assert_array_equal(est.children_, ref.children_)
    np.testing.assert_allclose(est.distances_, ref.distances_, rtol=1e-10, atol=1e-12)
    assert est.n_clusters_ == n_clusters and est.n_leaves_ == len(moons)


@pytest.mark.parametrize("kernel", [Polynomial(degree=2, gamma=1.0, coef0=1.0), "linear"])
def test_ward_equals_sklearn_ward_on_explicit_features(moons, kernel):
    # the polynomial kernel's feature map is finite and exact: Ward there is scikit-learn's
    Z = moons if kernel == "linear" else ExplicitFeatures(kernel).fit_transform(moons)
    for n_clusters in (2, 4):
        ref = AgglomerativeClustering(n_clusters, linkage="ward", compute_distances=True).fit(Z)
        est = KernelAgglomerativeClustering(n_clusters, kernel=kernel, linkage="ward",
                                            compute_distances=True).fit(moons)
        assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
        np.testing.assert_array_equal(est.children_, ref.children_)
        np.testing.assert_allclose(est.distances_, ref.distances_, rtol=1e-8, atol=1e-10)


def test_distance_threshold(moons):
    D = _distances(rbf_kernel(moons, gamma=2.0))
    ref = AgglomerativeClustering(None, metric="precomputed", linkage="average",
                                  distance_threshold=0.5).fit(D)
    est = KernelAgglomerativeClustering(None, kernel="rbf(gamma=2.0)", linkage="average",
                                        distance_threshold=0.5).fit(moons)
    assert est.n_clusters_ == ref.n_clusters_ > 2
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
    assert est.distances_.shape == (len(moons) - 1,)
    assert not hasattr(KernelAgglomerativeClustering(3).fit(moons), "distances_")


def test_string_kernel():
    rng = np.random.default_rng(0)
    motifs = ["ACGTACGTAC", "TTTTGGGGCC", "CACACACACA"]
    S = np.array(["".join(c if rng.uniform() > 0.15 else rng.choice(list("ACGT")) for c in m)
                  for m in motifs for _ in range(10)])
    kernel = Spectrum(k=2, normalize=False)
    D = _distances(kernel(S, S))
    for linkage in ("average", "complete"):
        ref = AgglomerativeClustering(3, metric="precomputed", linkage=linkage).fit(D)
        est = KernelAgglomerativeClustering(3, kernel=kernel, linkage=linkage).fit(S)
        assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
    est = KernelAgglomerativeClustering(3, kernel=kernel, linkage="ward").fit(S)
    assert adjusted_rand_score(np.repeat([0, 1, 2], 10), est.labels_) == 1.0  # the motifs


def test_nystroem_with_every_point_a_center(moons):
    X = moons[::2]
    D = _distances(rbf_kernel(X, gamma=0.5))
    ref = AgglomerativeClustering(3, metric="precomputed", linkage="average").fit(D)
    est = KernelAgglomerativeClustering(3, kernel=RBF(gamma=0.5), linkage="average",
                                        approximation="nystroem", n_centers=len(X),
                                        random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)  # tiny eigenvalues dropped
        est.fit(X)
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0
    assert est.plan_.choice == "nystroem" and est.plan_.choices[0].value == "nystroem"


@pytest.mark.parametrize("linkage", ["ward", "average", "complete"])
def test_budget_refusal_before_any_work(linkage):
    X = np.random.default_rng(0).normal(size=(1500, 2))  # 1.1M pairs, 17 MB > 16 MB
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=r"n\(n-1\)/2 = 1124250") as info:
            KernelAgglomerativeClustering(2, kernel="rbf", linkage=linkage).fit(X)
        est = KernelAgglomerativeClustering(2, kernel="rbf", linkage=linkage).fit(X[:1000])
    assert "linkage='single'" in str(info.value)  # the message names the ways out
    assert est.plan_.choices[1].value == "condensed distances"  # 8 MB: fits
    assert est.plan_.choices[0].value == "exact"


@pytest.fixture(scope="module")
def large():
    """1500 points: their 1.1M distances (17 MB) do not fit a 16 MB budget."""
    X, _ = make_moons(1500, noise=0.05, random_state=1)
    return X


def test_single_linkage_by_spanning_tree_when_distances_do_not_fit(large):
    D = _distances(rbf_kernel(large, gamma=2.0))
    ref = AgglomerativeClustering(4, metric="precomputed", linkage="single",
                                  compute_distances=True).fit(D)
    with config_context(memory="16MB"):
        est = KernelAgglomerativeClustering(4, kernel=RBF(gamma=2.0), linkage="single",
                                            compute_distances=True).fit(large)
    assert est.plan_.choices[1].value == "minimum spanning tree"
    np.testing.assert_array_equal(est.children_, ref.children_)
    np.testing.assert_allclose(est.distances_, ref.distances_, rtol=1e-9, atol=1e-12)
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0


def test_nystroem_ward_by_chain_when_distances_do_not_fit(large):
    from kernelkit.features import Nystroem

    with config_context(memory="16MB"):
        est = KernelAgglomerativeClustering(3, kernel=RBF(gamma=2.0), linkage="ward",
                                            approximation="nystroem", n_centers=30,
                                            random_state=0, compute_distances=True).fit(large)
    assert est.plan_.choices[1].value == "nearest-neighbour chain"
    # scikit-learn's Ward on the same Nystroem features
    Z = Nystroem(RBF(gamma=2.0), n_components=30, random_state=0).fit_transform(large)
    ref = AgglomerativeClustering(3, linkage="ward", compute_distances=True).fit(Z)
    np.testing.assert_array_equal(est.children_, ref.children_)
    np.testing.assert_allclose(est.distances_, ref.distances_, rtol=1e-9, atol=1e-12)
    assert adjusted_rand_score(ref.labels_, est.labels_) == 1.0


@pytest.mark.parametrize("params", [{"n_clusters": None}, {"distance_threshold": 1.0},
                                    {"n_clusters": 0}, {"linkage": "centroid"},
                                    {"kernel": "precomputed"}, {"distance_threshold": -1.0,
                                                                "n_clusters": None}])
def test_bad_parameters(moons, params):
    with pytest.raises(InvalidParameterError):
        KernelAgglomerativeClustering(**params).fit(moons)


def test_bad_input(moons):
    with pytest.raises(ValueError, match="more clusters than samples"):
        KernelAgglomerativeClustering(200).fit(moons)
    with pytest.raises(ValueError, match="minimum of 2"):
        KernelAgglomerativeClustering(1).fit(moons[:1])
    X = moons.copy()
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="inf"):
        KernelAgglomerativeClustering().fit(X)


def test_no_model_file(moons, tmp_path):
    est = KernelAgglomerativeClustering(2).fit(moons)
    with pytest.raises(ValueError, match="cannot save a KernelAgglomerativeClustering"):
        kernelkit.save(est, tmp_path / "m.kk")
    assert not hasattr(est, "predict")  # as scikit-learn's AgglomerativeClustering
