"""Kernel k-means on two rings: it finds the rings (whose feature-space inertia, computed
here from the Gram matrix, is below the half-moons'); Euclidean k-means cannot."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("clustering_rings")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _feature_space_inertia(K, labels):
    """sum_c [sum_{i in c} K_ii - (1/|c|) sum_{i, j in c} K_ij]: squared distances to the means."""
    total = 0.0
    for c in np.unique(labels):
        m = labels == c
        total += np.trace(K[np.ix_(m, m)]) - K[np.ix_(m, m)].sum() / m.sum()
    return total


def test_kernel_kmeans_finds_the_rings(res):
    assert res["ari_kernel"] > 0.95
    assert res["ari_euclidean"] < 0.2  # half-moons
    X = res["X"]
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    K = np.exp(-res["gamma"] * sq)
    rings = _feature_space_inertia(K, res["y"])
    assert _feature_space_inertia(K, res["kernel"]) <= rings + 1e-9
    assert rings < _feature_space_inertia(K, res["euclidean"])


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
