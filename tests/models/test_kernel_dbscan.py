"""KernelDBSCAN against scikit-learn's DBSCAN on the same feature-space distances."""

import warnings

import numpy as np
import pytest
from sklearn.cluster import DBSCAN
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError, NumericalWarning
from kernelkit.features import Nystroem
from kernelkit.kernels import RBF, Spectrum
from kernelkit.models import KernelDBSCAN


def _distances(K):
    """Feature-space distances from a full kernel matrix (the reference, not blocked)."""
    d = np.diag(K)
    return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * K, 0.0))


@pytest.fixture(scope="module")
def moons():
    X, _ = make_moons(300, noise=0.08, random_state=0)
    return X


@pytest.mark.parametrize("eps, min_samples", [(0.2, 5), (0.3, 10), (0.1, 3), (0.6, 40)])
def test_equals_sklearn_dbscan_on_precomputed_distances(moons, eps, min_samples):
    D = _distances(rbf_kernel(moons, gamma=2.0))
    ref = DBSCAN(eps=eps, min_samples=min_samples, metric="precomputed").fit(D)
    est = KernelDBSCAN(eps, min_samples=min_samples, kernel=RBF(gamma=2.0)).fit(moons)
    np.testing.assert_array_equal(est.labels_, ref.labels_)  # label for label
    np.testing.assert_array_equal(est.core_sample_indices_, ref.core_sample_indices_)
    np.testing.assert_array_equal(est.components_, moons[ref.core_sample_indices_])
    assert est.plan_.choices[0].value == "exact"
    assert est.plan_.choices[1].value == "stored"


def test_sample_weight_equals_sklearn(moons):
    w = np.random.default_rng(1).uniform(0.0, 3.0, size=len(moons))
    D = _distances(rbf_kernel(moons, gamma=2.0))
    ref = DBSCAN(eps=0.25, min_samples=8, metric="precomputed").fit(D, sample_weight=w)
    est = KernelDBSCAN(0.25, min_samples=8, kernel="rbf(gamma=2.0)").fit(moons, sample_weight=w)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    np.testing.assert_array_equal(est.fit_predict(moons, sample_weight=w), ref.labels_)


def test_linear_kernel_is_euclidean_dbscan(moons):
    ref = DBSCAN(eps=0.15, min_samples=6).fit(moons)
    est = KernelDBSCAN(0.15, min_samples=6, kernel="linear").fit(moons)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_neighbourhoods_recomputed_when_they_do_not_fit():
    # 1200 points, every pair within eps: 1.44M pairs (17 MB) > half of a 16 MB budget
    X = np.random.default_rng(0).normal(size=(1200, 2))
    D = _distances(rbf_kernel(X, gamma=0.1))
    for eps, ms in ((10.0, 5), (0.05, 3)):
        ref = DBSCAN(eps=eps, min_samples=ms, metric="precomputed").fit(D)
        with config_context(memory="16MB"):
            est = KernelDBSCAN(eps, min_samples=ms, kernel=RBF(gamma=0.1)).fit(X)
        np.testing.assert_array_equal(est.labels_, ref.labels_)
    # the first fit's 1.44M pairs did not fit: recomputed by row blocks
    with config_context(memory="16MB"):
        est = KernelDBSCAN(10.0, min_samples=5, kernel=RBF(gamma=0.1)).fit(X)
    assert est.plan_.choices[1].value == "recomputed"
    assert "memory budget" in est.plan_.choices[1].reason


def test_no_block_beyond_the_block_share_of_the_budget(monkeypatch):
    import kernelkit.models._distance_space as space_module

    seen = []
    real = space_module.sq_distances

    def recording(kernel, Xq, diag_q, X_fit, diag_fit):
        D = real(kernel, Xq, diag_q, X_fit, diag_fit)
        seen.append(D.nbytes)
        return D

    monkeypatch.setattr(space_module, "sq_distances", recording)
    X = np.random.default_rng(0).normal(size=(1200, 2))
    with config_context(memory="16MB"):
        KernelDBSCAN(10.0, min_samples=5, kernel=RBF(gamma=0.1)).fit(X)
    assert len(seen) > 3  # the 1200 x 1200 distances (11 MB) came in blocks
    assert max(seen) <= 16 * 1024**2 / 8  # each within the block share (1/8) of the budget


def test_replayed_neighbourhoods_in_small_chunks(moons, monkeypatch):
    import kernelkit.models.cluster_density as cd

    monkeypatch.setattr(cd, "_REPLAY_PAIRS", 7)
    D = _distances(rbf_kernel(moons, gamma=2.0))
    ref = DBSCAN(eps=0.3, min_samples=10, metric="precomputed").fit(D)
    est = KernelDBSCAN(0.3, min_samples=10, kernel=RBF(gamma=2.0)).fit(moons)
    np.testing.assert_array_equal(est.labels_, ref.labels_)


def test_nystroem_distances(moons):
    # every point a center: the Nystroem features reproduce the kernel (to round-off)
    X = moons[::3]
    D = _distances(rbf_kernel(X, gamma=0.5))
    ref = DBSCAN(eps=0.3, min_samples=5, metric="precomputed").fit(D)
    est = KernelDBSCAN(0.3, min_samples=5, kernel=RBF(gamma=0.5), approximation="nystroem",
                       n_centers=1000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)  # tiny eigenvalues dropped
        est.fit(X)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    # fewer centers: Euclidean DBSCAN on the Nystroem features of the same centers
    est = KernelDBSCAN(0.3, min_samples=10, kernel=RBF(gamma=2.0), approximation="nystroem",
                       n_centers=40, random_state=0).fit(moons)
    Z = Nystroem(RBF(gamma=2.0), n_components=40, random_state=0).fit_transform(moons)
    np.testing.assert_array_equal(est.labels_, DBSCAN(eps=0.3, min_samples=10).fit(Z).labels_)
    assert est.plan_.choice == "nystroem"
    assert est.plan_.choices[0].value == "nystroem"


def test_string_kernel():
    rng = np.random.default_rng(0)
    motifs = ["ACGTACGTAC", "TTTTGGGGCC", "CACACACACA"]
    S = np.array(["".join(c if rng.uniform() > 0.15 else rng.choice(list("ACGT")) for c in m)
                  for m in motifs for _ in range(15)])
    kernel = Spectrum(k=2, normalize=False)
    D = _distances(kernel(S, S))
    ref = DBSCAN(eps=2.5, min_samples=4, metric="precomputed").fit(D)
    est = KernelDBSCAN(2.5, min_samples=4, kernel=kernel).fit(S)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert len(set(ref.labels_) - {-1}) >= 2  # the test sees clusters, not one blob
    assert est.components_.dtype.kind == "U"


@pytest.mark.parametrize("params", [{"eps": 0.0}, {"eps": -1.0}, {"min_samples": 0},
                                    {"kernel": "precomputed"}, {"approximation": "random"},
                                    {"n_centers": 0}])
def test_bad_parameters(moons, params):
    with pytest.raises(InvalidParameterError):
        KernelDBSCAN(**params).fit(moons)


def test_bad_input(moons):
    X = moons.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelDBSCAN().fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        KernelDBSCAN().fit(moons, sample_weight=-np.ones(len(moons)))


def test_no_model_file(moons, tmp_path):
    est = KernelDBSCAN(0.3, kernel="rbf(gamma=2.0)").fit(moons)
    with pytest.raises(ValueError, match="cannot save a KernelDBSCAN"):
        kernelkit.save(est, tmp_path / "m.kk")
    assert not hasattr(est, "predict")  # as scikit-learn's DBSCAN


def test_plan_printed_at_verbosity(moons, capsys):
    with config_context(verbosity=1):
        KernelDBSCAN(0.3, kernel="rbf(gamma=2.0)").fit(moons)
    out = capsys.readouterr().out
    assert "approximation: exact" in out and "neighbourhoods: stored" in out
