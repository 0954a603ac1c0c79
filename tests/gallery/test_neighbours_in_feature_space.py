"""Neighbours in feature space: sq_distances against the explicit feature map and a loop over
the kernel formula; kernel k-NN against scikit-learn (Euclidean, Manhattan and precomputed
feature-space distances); most_similar against a brute-force cosine of the kernel."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from gallery._load import load_example
from kernelkit import gram
from kernelkit.kernels import RBF

ex = load_example("neighbours_in_feature_space")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_sq_distances_are_the_explicit_map_and_the_formula(res):
    np.testing.assert_allclose(res["D_kernel"], res["D_map"], rtol=1e-12, atol=1e-12)
    k = lambda a, b: float(a @ b) ** 2  # (x'z)^2 written out
    loop = np.array([[k(a, a) - 2 * k(a, b) + k(b, b) for b in res["B"]] for a in res["A"]])
    np.testing.assert_allclose(res["D_kernel"], loop, rtol=1e-12, atol=1e-12)
    # the quadratic kernel cannot tell x from -x: distance 0 in its feature space
    assert np.all(ex.feature_space_sq_distances(ex.QUADRATIC, res["A"], -res["A"]).diagonal()
                  <= 1e-12)


def test_banana_knn_equals_scikit_learn(res):
    b = res["banana"]
    for r in b["rows"]:
        np.testing.assert_array_equal(r["linear"], r["sklearn_euclidean"])
        np.testing.assert_array_equal(r["laplacian"], r["sklearn_manhattan"])
        # the quadratic kernel's neighbours are its own: scikit-learn on its feature map
        ref = KNeighborsClassifier(r["k"]).fit(ex.quadratic_map(b["X_train"]), b["y_train"])
        agree = np.mean(ref.predict(ex.quadratic_map(b["X_test"])) == r["quadratic"])
        assert agree >= 0.99  # equal up to ties between equally distant neighbours
        assert np.mean(r["quadratic"] == b["y_test"]) < np.mean(r["linear"] == b["y_test"])


def test_regression_equals_precomputed_feature_space_distances(res):
    r = res["regression"]
    K = gram(RBF(gamma=0.5), r["grid"], r["x"])
    dist = np.sqrt(np.maximum(2.0 - 2.0 * K, 0.0))  # k(x, x) = 1 for RBF
    train = np.sqrt(np.maximum(2.0 - 2.0 * gram(RBF(gamma=0.5), r["x"]), 0.0))
    for (k, weights), curve in r["curves"].items():
        ref = KNeighborsRegressor(k, weights=weights, metric="precomputed").fit(train, r["y"])
        np.testing.assert_allclose(curve, ref.predict(dist), rtol=1e-10, atol=1e-10)
    truth = np.sin(r["grid"][:, 0])
    rmse = {k: np.sqrt(np.mean((r["curves"][k, "uniform"] - truth) ** 2))
            for k in ex.REGRESSION_KS}
    assert rmse[5] < rmse[1]  # k = 1 follows the noise (sd 0.3)


def test_dna_knn_beats_the_majority_and_most_similar_is_the_brute_force_cosine(res):
    d = res["dna"]
    assert all(acc > d["majority"] + 0.15 for acc in d["accuracy"].values())
    K = gram(ex.DNA_KERNEL, [d["query"]], d["items"])[0]
    kq = gram(ex.DNA_KERNEL, [d["query"]])[0, 0]
    kii = np.array([gram(ex.DNA_KERNEL, [s])[0, 0] for s in d["items"][:3]])
    diag = ex.DNA_KERNEL.diag(d["items"])
    np.testing.assert_allclose(diag[:3], kii, rtol=1e-12)
    cosine = K / np.sqrt(kq * diag)
    order = np.argsort(-cosine, kind="stable")[:5]
    np.testing.assert_allclose(d["similarity"], cosine[order], rtol=1e-10)
    np.testing.assert_allclose(cosine[d["nearest"]], cosine[order], rtol=1e-10)  # ties
    assert np.all(np.diff(d["similarity"]) <= 1e-15)


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert fig.axes[0].get_xscale() == "log"
    assert fig.axes[2].get_ylabel() == "test accuracy"
