"""Recommendation by normalised kernel similarity: the nearest items against a brute-force
loop, and the shares of nearest items in the same group recomputed here."""

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("recommendation")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _loop_nearest(similarity, n_items, query, k):
    """The k most similar other items of item ``query`` by one loop over the items."""
    sims = np.array([similarity(query, j) if j != query else -np.inf for j in range(n_items)])
    order = sorted(range(n_items), key=lambda j: (-sims[j], j))[:k]
    return sims[order], np.array(order)


def test_product_neighbours_equal_a_brute_force_loop(res):
    for name in ("ratings", "centred ratings"):
        items = res[f"{name} items"]

        def cosine(i, j, items=items):
            return float(items[i] @ items[j]) / np.sqrt(float(items[i] @ items[i])
                                                        * float(items[j] @ items[j]))

        for q in range(0, len(items), 9):
            sims, order = _loop_nearest(cosine, len(items), q, ex.K_NEAREST)
            np.testing.assert_array_equal(res[f"{name} indices"][q], order)
            np.testing.assert_allclose(res[f"{name} similarities"][q], sims, rtol=1e-12)


def _weighted_degree(s, t, D=3):
    """Raetsch and Sonnenburg's weighted-degree kernel, written out: k-mers of length
    1..D matched at the same position, weighted 2 (D - d + 1) / (D (D + 1))."""
    return sum(2.0 * (D - d + 1) / (D * (D + 1)) * (s[i:i + d] == t[i:i + d])
               for d in range(1, D + 1) for i in range(min(len(s), len(t)) - d + 1))


def test_dna_neighbours_equal_a_brute_force_loop(res):
    seqs = res["dna"]
    k = _weighted_degree

    def normalised(i, j):
        return k(seqs[i], seqs[j]) / np.sqrt(k(seqs[i], seqs[i]) * k(seqs[j], seqs[j]))

    for q in (0, 117):
        sims, order = _loop_nearest(normalised, len(seqs), q, ex.K_NEAREST)
        np.testing.assert_allclose(res["dna weighted degree similarities"][q], sims, rtol=1e-12)
        np.testing.assert_array_equal(res["dna weighted degree indices"][q], order)


def test_shares_of_the_same_group(res):
    genre, junction = res["genre"], res["junction"]

    def share(indices, groups):  # recomputed here, by a loop
        return np.mean([groups[j] == groups[i] for i, row in enumerate(indices) for j in row])

    for name in ("ratings", "centred ratings"):
        assert res["share"][f"{name}, normalised"] == pytest.approx(
            share(res[f"{name} indices"], genre), abs=1e-12)
        assert res["share"][f"{name}, inner product"] == pytest.approx(
            share(res[f"{name} inner product indices"], genre), abs=1e-12)
    # chance: 19 of the 79 other products share a genre
    assert res["chance"]["ratings"] == pytest.approx(19 / 79)
    # normalising removes the popularity of the raw ratings; centring removes more
    assert res["share"]["ratings, normalised"] > res["share"]["ratings, inner product"] + 0.1
    assert res["share"]["centred ratings, normalised"] > 0.9
    # a position-aware string kernel finds the junction type far above chance
    wd = share(res["dna weighted degree indices"], junction)
    spectrum = share(res["dna spectrum (3-mers) indices"], junction)
    _, counts = np.unique(junction, return_counts=True)
    chance = np.sum(counts * (counts - 1)) / (len(junction) * (len(junction) - 1))
    assert res["chance"]["dna"] == pytest.approx(chance)
    assert wd > chance + 0.15 and wd > spectrum


def test_plot_has_the_matrix_and_the_shares(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3  # the matrix, its colour bar, the shares
    assert fig.axes[0].get_images()[0].get_array().shape == (80, 80)
    assert len(fig.axes[1].patches) == len(res["share"]) or len(fig.axes[2].patches) == len(
        res["share"])
