"""Kernel hierarchical and density-based clustering: the feature space finds the rings,
the moons and the rays where the Euclidean methods (scikit-learn's) do not."""

import numpy as np
import pytest
from sklearn.cluster import DBSCAN, AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score

from gallery._load import load_example

ex = load_example("kernel_clustering")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


@pytest.mark.parametrize("data", ["rings", "moons"])
@pytest.mark.parametrize("linkage", ["ward", "average"])
def test_linkages_find_the_groups_in_feature_space_only(res, data, linkage):
    X, y = res[f"{data}_X"], res[f"{data}_y"]
    # scikit-learn itself, in input space: clearly below a perfect partition
    euclidean = AgglomerativeClustering(2, linkage=linkage).fit_predict(X)
    assert adjusted_rand_score(y, euclidean) < 0.5
    assert res["ari"][f"{data} {linkage} euclidean"] == adjusted_rand_score(y, euclidean)
    # the kernel version's labels, scored by scikit-learn: every point in its group
    assert adjusted_rand_score(y, res["labels"][f"{data} {linkage} kernel"]) == 1.0


def test_dbscan_on_rays_needs_the_normalised_kernel(res):
    X, y = res["rays_X"], res["rays_y"]
    # Euclidean DBSCAN (scikit-learn) at every radius and min_samples of a wide grid
    best = max(adjusted_rand_score(y, DBSCAN(eps=e, min_samples=m).fit_predict(X))
               for e in np.geomspace(0.005, 3.0, 20) for m in (2, 4, 8, 16))
    assert best < 0.5
    labels = res["labels"]["rays dbscan kernel"]
    assert adjusted_rand_score(y, labels) == 1.0
    # the normalised kernel's feature distance is sqrt(2 - 2 cos): scikit-learn's cosine
    # distance 1 - cos at eps^2 / 2 gives the same neighbourhoods, label for label
    ref = DBSCAN(eps=ex.RAYS_EPS ** 2 / 2, min_samples=ex.RAYS_MIN_SAMPLES,
                 metric="cosine").fit_predict(X)
    np.testing.assert_array_equal(labels, ref)


def test_rbf_dbscan_is_euclidean_dbscan_at_the_mapped_radius(res):
    # ||phi(x) - phi(y)||^2 = 2 - 2 exp(-gamma r^2) <= eps^2  <=>  r <= sqrt(-ln(1 - eps^2/2)/gamma)
    eps, gamma = res["rbf_dbscan_eps"], res["rbf_dbscan_gamma"]
    r = np.sqrt(-np.log(1 - eps ** 2 / 2) / gamma)
    assert res["rbf_dbscan_euclidean_eps"] == pytest.approx(r, rel=1e-15)
    ref = DBSCAN(eps=r, min_samples=5).fit_predict(res["moons_X"])
    np.testing.assert_array_equal(res["rbf_dbscan"], ref)
    assert len(set(ref)) > 1


def test_plot_has_six_panels(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 6
    assert fig.axes[3].get_title().startswith("Ward, feature space: ARI 1.00")
