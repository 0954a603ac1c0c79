"""The memory-light trees (Ward's nearest-neighbour chain, single linkage by Prim's
spanning tree) against scipy.cluster.hierarchy.linkage on the full distances."""

import numpy as np
import pytest
from scipy.cluster.hierarchy import cophenet, linkage
from scipy.spatial.distance import pdist, squareform

from kernelkit.solvers.linkage import (merges_to_linkage, single_linkage_by_rows,
                                       ward_chain_linkage)


@pytest.mark.parametrize("n, d", [(2, 1), (3, 2), (60, 3), (400, 8)])
def test_ward_chain_equals_scipy(n, d):
    F = np.random.default_rng(n).normal(size=(n, d))
    Z, ref = ward_chain_linkage(F), linkage(F, method="ward")
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], ref[:, [0, 1, 3]])
    np.testing.assert_allclose(Z[:, 2], ref[:, 2], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n, d", [(2, 1), (3, 2), (60, 3), (400, 8)])
def test_single_linkage_by_rows_equals_scipy(n, d):
    F = np.random.default_rng(n).normal(size=(n, d))
    D = squareform(pdist(F))
    calls = []
    Z = single_linkage_by_rows(n, lambda i: D[i] ** 2, callback=calls.append)
    ref = linkage(pdist(F), method="single")
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], ref[:, [0, 1, 3]])
    np.testing.assert_allclose(Z[:, 2], ref[:, 2], rtol=1e-12)
    assert calls == list(range(1, n))


def test_ties_give_the_same_hierarchy():
    # repeated points and a grid: many equal distances; merge order within ties may
    # differ, the hierarchy (cophenetic distances) may not
    g = np.arange(5.0)
    F = np.vstack([np.c_[np.repeat(g, 5), np.tile(g, 5)], [[0.0, 0.0], [4.0, 4.0]]])
    y = pdist(F)
    for method, Z in (("ward", ward_chain_linkage(F)),
                      ("single", single_linkage_by_rows(len(F), lambda i: squareform(y)[i] ** 2))):
        ref = linkage(y, method=method)
        np.testing.assert_allclose(np.sort(Z[:, 2]), np.sort(ref[:, 2]), atol=1e-12)
        np.testing.assert_allclose(cophenet(Z), cophenet(ref), atol=1e-12)


def test_merges_to_linkage_renames_clusters():
    # points 0..3: merge (2, 3) at 1, then (0, 1) at 0.5, then (1, 3) at 2 -- sorted by distance
    Z = merges_to_linkage(4, [(2, 3, 1.0), (0, 1, 0.5), (1, 3, 2.0)])
    np.testing.assert_array_equal(Z, [[0, 1, 0.5, 2], [2, 3, 1.0, 2], [4, 5, 2.0, 4]])
