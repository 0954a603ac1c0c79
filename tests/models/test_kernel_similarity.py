"""KernelSimilarity and most_similar against brute-force loops and scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity

import kernelkit
from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import Polynomial, Spectrum
from kernelkit.models import KernelSimilarity, most_similar


def _brute_force(k, queries, items, n, exclude_self=False):
    """Similarities by one loop over every (query, item) pair, then the n largest
    (ties by index)."""
    sims = np.zeros((len(queries), len(items)))
    for a, x in enumerate(queries):
        for b, y in enumerate(items):
            kxx, kyy = k(x, x), k(y, y)
            sims[a, b] = k(x, y) / np.sqrt(kxx * kyy) if kxx > 0 and kyy > 0 else 0.0
    if exclude_self:
        sims[np.arange(len(queries)), np.arange(len(queries))] = -np.inf
    order = np.array([np.lexsort((np.arange(len(items)), -row))[:n] for row in sims])
    return np.take_along_axis(sims, order, axis=1), order


def _poly(x, y):
    return (0.5 * float(np.dot(x, y)) + 1.0) ** 3


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 4)), rng.normal(size=(7, 4))


def test_polynomial_against_brute_force(data):
    items, queries = data
    est = KernelSimilarity(4, kernel=Polynomial(degree=3, gamma=0.5, coef0=1.0)).fit(items)
    sim, ind = est.kneighbors(queries)
    ref_sim, ref_ind = _brute_force(_poly, queries, items, 4)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(sim, ref_sim, rtol=1e-12)
    full = est.similarities(queries)
    np.testing.assert_allclose(np.take_along_axis(full, ind, axis=1), sim, rtol=1e-12)


def test_items_as_queries_exclude_themselves(data):
    items, _ = data
    est = KernelSimilarity(3, kernel=Polynomial(degree=3, gamma=0.5, coef0=1.0)).fit(items)
    sim, ind = est.kneighbors()
    ref_sim, ref_ind = _brute_force(_poly, items, items, 3, exclude_self=True)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(sim, ref_sim, rtol=1e-12)


def test_linear_kernel_is_cosine_similarity(data):
    items, queries = data
    items = items.copy()
    items[5] = 0.0  # zero vector: similarity 0, as scikit-learn's cosine_similarity
    S = KernelSimilarity(kernel="linear").fit(items).similarities(queries)
    np.testing.assert_allclose(S, cosine_similarity(queries, items), atol=1e-14)
    assert (S[:, 5] == 0).all()


def test_blocks_within_a_small_budget():
    rng = np.random.default_rng(1)
    items, queries = rng.normal(size=(2000, 3)), rng.normal(size=(300, 3))
    with config_context(memory="16MB"):  # 65 queries per block: several blocks
        sim, ind = KernelSimilarity(5, kernel="linear").fit(items).kneighbors(queries)
    C = cosine_similarity(queries, items)
    ref = np.argsort(-C, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(ind, ref)
    np.testing.assert_allclose(sim, np.take_along_axis(C, ref, axis=1), atol=1e-14)


def test_whole_matrix_refused_beyond_the_budget():
    from kernelkit.exceptions import MemoryBudgetError

    items = np.ones((1500, 2))  # 1500 x 1500 similarities: 17 MB > 16 MB
    est = KernelSimilarity(kernel="linear").fit(items)
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match="kneighbors"):
            est.similarities()
        assert est.kneighbors(n_neighbors=2)[0].shape == (1500, 2)  # blocks: fine


def test_strings_against_brute_force():
    words = np.array(["kernel", "kernels", "colonel", "carnal", "channel", "funnel", "tunnel",
                      "panel", "kennel", "camel"])
    kernel = Spectrum(k=2, normalize=False)

    def k(a, b):
        return float(kernel(np.array([a]), np.array([b]))[0, 0])

    sim, ind = most_similar(words, np.array(["kernal", "tunel"]), k=3, kernel=kernel)
    ref_sim, ref_ind = _brute_force(k, ["kernal", "tunel"], words, 3)
    np.testing.assert_array_equal(ind, ref_ind)
    np.testing.assert_allclose(sim, ref_sim, rtol=1e-12)


def test_save_and_load(data, tmp_path):
    items, queries = data
    est = KernelSimilarity(4, kernel="rbf").fit(items)  # gamma="scale" fixed at fit
    kernelkit.save(est, tmp_path / "s.kk")
    back = kernelkit.load(tmp_path / "s.kk")
    for a, b in zip(est.kneighbors(queries), back.kneighbors(queries)):
        np.testing.assert_array_equal(a, b)
    words = np.array(["kernel", "kennel", "funnel", "panel"])
    est = KernelSimilarity(2, kernel=Spectrum(k=2)).fit(words)
    kernelkit.save(est, tmp_path / "w.kk")
    back = kernelkit.load(tmp_path / "w.kk")
    np.testing.assert_array_equal(back.kneighbors(np.array(["tunnel"]))[1],
                                  est.kneighbors(np.array(["tunnel"]))[1])


def test_load_refuses_inconsistent_state(data, tmp_path):
    from kernelkit.exceptions import ModelFormatError
    from kernelkit.persistence._allowlist import allow_list

    est = KernelSimilarity(kernel="linear").fit(data[0])
    est.diag_fit_ = -est.diag_fit_
    with pytest.raises(ModelFormatError, match="diag_fit_"):
        allow_list()["KernelSimilarity"].check("m.kk", est)


@pytest.mark.parametrize("params", [{"n_neighbors": 0}, {"kernel": "precomputed"},
                                    {"n_neighbors": 2.5}])
def test_bad_parameters(data, params):
    with pytest.raises(InvalidParameterError):
        KernelSimilarity(**params).fit(data[0])


def test_bad_queries(data):
    items, queries = data
    est = KernelSimilarity(kernel="linear").fit(items)
    with pytest.raises(ValueError, match="n_neighbors"):
        est.kneighbors(queries, n_neighbors=61)
    with pytest.raises(ValueError, match="besides the query itself"):
        est.kneighbors(n_neighbors=60)
    with pytest.raises(ValueError, match="features"):
        est.kneighbors(queries[:, :3])
    with pytest.raises(InvalidParameterError):
        est.kneighbors(queries, n_neighbors=0)
