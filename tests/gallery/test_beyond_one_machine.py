"""Beyond one machine (Dask's local scheduler): the lazy Gram matrix against kernelkit.gram,
DaskKernelKMeans against scikit-learn's Lloyd on the same features, DaskKernelRidge against
scikit-learn's Ridge on the Nystroem features and the in-memory Falkon."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from gallery._load import load_example
from kernelkit import gram

pytest.importorskip("dask.array")
ex = load_example("beyond_one_machine")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_lazy_gram_is_the_gram_matrix_block_by_block(res):
    g = res["gram"]
    X, n = g["X"], len(g["X"])
    K = gram(ex.KERNEL, X)
    np.testing.assert_allclose(g["density"], K.mean(axis=1), rtol=1e-13)
    assert g["chunks"] == ((n // 4,) * 4,) * 2
    q = n // 4
    np.testing.assert_allclose(g["block"], K[:q, q:2 * q], rtol=1e-13)
    # the RBF kernel written out for one block entry
    assert g["block"][3, 5] == pytest.approx(
        np.exp(-ex.KERNEL.gamma * np.sum((X[3] - X[q + 5]) ** 2)), rel=1e-13)


def test_kernel_kmeans_equals_lloyd_in_memory(res):
    k = res["kmeans"]
    np.testing.assert_allclose(k["centers"], k["twin_centers"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(k["labels"], k["twin_labels"])
    np.testing.assert_array_equal(k["local_labels"], k["labels"])
    assert k["ari"] > 0.8  # three well separated blobs


def test_ridge_features_is_ridge_on_the_features_and_falkon_is_in_memory_falkon(res):
    r = res["ridge"]
    m = r["features_model"]
    Z = m.feature_map_.transform(r["X"])
    ref = Ridge(alpha=r["alpha_features"], fit_intercept=False, solver="cholesky").fit(Z, r["y"])
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-8, atol=1e-8 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(r["features_pred"], ref.predict(Z), rtol=1e-8, atol=1e-8)
    assert r["features_passes"] == 1
    np.testing.assert_allclose(r["falkon_coef"], r["local_coef"], rtol=1e-8,
                               atol=1e-8 * np.abs(r["local_coef"]).max())
    np.testing.assert_allclose(r["falkon_pred"], r["local_pred"], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(r["to_local_pred"], r["local_pred"], rtol=1e-8, atol=1e-8)
    assert r["falkon_passes"] > r["falkon_iter"]  # one pass per CG iteration


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert fig.axes[2].get_xlabel().startswith("in-memory")
