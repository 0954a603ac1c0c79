"""Kernel outlier scores against NearestNeighbors and brute-force feature-space loops."""

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelOutlierDetector


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    planted = rng.normal(size=(5, 3)) * 0.3 + 6.0 * rng.choice([-1, 1], size=(5, 3))
    return np.vstack([X, planted]), rng.normal(size=(30, 3))


@pytest.mark.parametrize("k", [1, 4])
def test_knn_with_linear_kernel_equals_nearest_neighbors(data, k):
    X, Xq = data
    det = KernelOutlierDetector(kernel="linear", method="knn", n_neighbors=k).fit(X)
    nn = NearestNeighbors(n_neighbors=k).fit(X)
    np.testing.assert_allclose(-det.score_samples(Xq), nn.kneighbors(Xq)[0][:, -1], rtol=1e-10)
    np.testing.assert_allclose(-det.score_samples(X), nn.kneighbors(X)[0][:, -1],
                               rtol=1e-10, atol=1e-12)


def _poly(a, b):
    return (0.5 * float(a @ b) + 1.0) ** 2


def test_mean_method_against_brute_force(data):
    X, Xq = data
    X = X[:40]
    det = KernelOutlierDetector(kernel=Polynomial(degree=2, gamma=0.5, coef0=1.0),
                                method="mean").fit(X)
    n = len(X)
    total = sum(_poly(a, b) for a in X for b in X) / n ** 2
    ref = [np.sqrt(max(_poly(x, x) - 2 * sum(_poly(x, a) for a in X) / n + total, 0.0))
           for x in Xq]
    np.testing.assert_allclose(-det.score_samples(Xq), ref, rtol=1e-9)


def test_knn_method_with_rbf_against_brute_force(data):
    X, Xq = data
    gamma, k = 0.4, 3
    det = KernelOutlierDetector(kernel=RBF(gamma=gamma), n_neighbors=k).fit(X)
    ref = []
    for x in Xq:
        d2 = sorted(2.0 - 2.0 * np.exp(-gamma * np.sum((x - z) ** 2)) for z in X)
        ref.append(np.sqrt(d2[k - 1]))
    np.testing.assert_allclose(-det.score_samples(Xq), ref, rtol=1e-8)


@pytest.mark.parametrize("method", ["knn", "mean"])
def test_planted_outliers_are_found(data, method):
    X, _ = data
    kernel = RBF(gamma=0.1)
    det = KernelOutlierDetector(kernel=kernel, method=method, contamination=5 / len(X))
    labels = det.fit_predict(X)
    np.testing.assert_array_equal(np.flatnonzero(labels == -1), np.arange(150, 155))
    auto = KernelOutlierDetector(kernel=kernel, method=method).fit(X)
    flagged = np.flatnonzero(auto.predict(X) == -1)
    assert set(range(150, 155)) <= set(flagged) and len(flagged) <= 0.1 * len(X)


def test_outlier_api(data):
    X, Xq = data
    det = KernelOutlierDetector(kernel=RBF(gamma=0.2), contamination=0.1).fit(X)
    scores = det.score_samples(Xq)
    np.testing.assert_allclose(det.decision_function(Xq), scores - det.offset_)
    np.testing.assert_array_equal(det.predict(Xq), np.where(scores >= det.offset_, 1, -1))
    np.testing.assert_array_equal(det.fit_predict(X), det.fit(X).predict(X))
    assert (det.predict(X) == -1).sum() == pytest.approx(0.1 * len(X), abs=1)
    assert det.predict(X).dtype.kind == "i"


def test_bad_input_is_refused(data):
    X, _ = data
    with pytest.raises(ValueError, match="contamination"):
        KernelOutlierDetector(contamination=0.7).fit(X)
    with pytest.raises(ValueError, match="method"):
        KernelOutlierDetector(method="lof").fit(X)
    with pytest.raises(ValueError, match="n_neighbors=5 must be <= n_samples=3"):
        KernelOutlierDetector().fit(X[:3])
    with pytest.raises(ValueError, match="precomputed"):
        KernelOutlierDetector(kernel="precomputed").fit(X)
