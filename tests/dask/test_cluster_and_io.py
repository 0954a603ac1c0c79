"""DaskKernelKMeans, lazy gram, DaskGramOperator, distributed predict and from_npy."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from sklearn.cluster import KMeans  # noqa: E402

import kernelkit  # noqa: E402
from kernelkit import GramOperator, KernelSVC  # noqa: E402
from kernelkit.dask import (DaskGramOperator, DaskKernelKMeans, DaskKernelRidge,  # noqa: E402
                            ParallelPostFit, from_npy, gram, predict)

KERNEL = "rbf(gamma=0.3)"


def _blobs(n=600, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    return centers[rng.integers(0, 3, size=n)] + rng.normal(size=(n, 2))


def test_kmeans_equals_lloyd_in_memory(where):
    X = _blobs(300)
    Xd_chunks = 150
    Xd = da.from_array(X, chunks=Xd_chunks)
    km = DaskKernelKMeans(3, kernel=KERNEL, n_components=20, random_state=0)
    km.client = where
    km.fit(Xd)
    Z = km.feature_map_.transform(X)
    # the twin: scikit-learn's Lloyd on the same features from the same start
    start = km.feature_map_.transform(km._rows(Xd, _start_rows(len(X)), None))
    ref = KMeans(3, init=start, n_init=1, tol=1e-4, algorithm="lloyd").fit(Z)
    np.testing.assert_allclose(km.cluster_centers_, ref.cluster_centers_, rtol=1e-8, atol=1e-10)
    labels = km.predict(Xd)
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), ref.labels_)
    np.testing.assert_array_equal(km.to_local().predict(X), ref.labels_)


def _start_rows(n):
    from sklearn.utils import check_random_state
    from kernelkit.features.centers import uniform_centers

    rng = check_random_state(0)
    uniform_centers(n, 20, rng)  # the Nystroem rows, drawn first
    return uniform_centers(n, 3, rng)


def test_lazy_gram_and_operator(client):
    X = np.random.default_rng(0).normal(size=(300, 3))
    C = X[:20]
    Xd = da.from_array(X, chunks=100)
    G = gram(KERNEL, Xd)
    assert isinstance(G, da.Array) and G.chunks == ((100,) * 3,) * 2
    np.testing.assert_allclose(G.compute(), kernelkit.gram(KERNEL, X), rtol=1e-14)
    np.testing.assert_allclose(gram(KERNEL, Xd, C).compute(), kernelkit.gram(KERNEL, X, C),
                               rtol=1e-14)
    w = np.random.default_rng(1).uniform(size=300)
    y = np.random.default_rng(2).normal(size=(300, 2))
    op = DaskGramOperator(KERNEL, Xd, C, sample_weight=w, targets=y, client=client)
    ref = GramOperator(KERNEL, X, C, sample_weight=w)
    V = np.random.default_rng(3).normal(size=(20, 2))
    got, gy = op.gram_matmat(V, op.targets_placeholder())
    want, wy = ref.gram_matmat(V, y)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(gy, wy, rtol=1e-12)
    np.testing.assert_allclose(client.compute(op.matmat(V)).result(), ref.matmat(V), rtol=1e-12)
    kept = DaskGramOperator(KERNEL, Xd, C, sample_weight=w, targets=y, client=client, persist=True)
    assert kept.stores and not op.stores and kept.store_choice is None
    np.testing.assert_allclose(kept.gram_matmat(V, kept.targets_placeholder())[0], want,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="persist_choice"):  # the operator plans nothing
        DaskGramOperator(KERNEL, Xd, C, client=client, persist="auto")


def test_predict_any_model_is_lazy_with_x_chunks(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    svc = KernelSVC(kernel=KERNEL, C=1.0).fit(X, y)
    Xd = da.from_array(X, chunks=60)
    out = predict(svc, Xd)
    assert isinstance(out, da.Array) and out.chunks == Xd.chunks[:1]
    np.testing.assert_array_equal(client.compute(out).result(), svc.predict(X))
    ppf = ParallelPostFit(KernelSVC(kernel=KERNEL, C=1.0)).fit(X, y)
    np.testing.assert_allclose(ppf.decision_function(Xd).compute(), svc.decision_function(X))


def test_from_npy_reads_row_ranges(tmp_path, where):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(700, 3))
    y = np.cos(X[:, 0])
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    Xd, yd = from_npy(tmp_path / "X.npy", 250), from_npy(tmp_path / "y.npy", 250)
    assert Xd.chunks == ((250, 250, 200), (3,))
    assert not any("memmap" in type(v).__name__ for v in dict(Xd.__dask_graph__()).values())
    m = DaskKernelRidge(KERNEL, alpha=0.1, solver="features", n_components=30, random_state=0)
    m.client = where
    m.fit(Xd, yd)
    ref = DaskKernelRidge(KERNEL, alpha=0.1, solver="features", n_components=30,
                          random_state=0).fit(da.from_array(X, chunks=250), y)
    if where is None:  # the same process and threads: the same sums, bit for bit
        np.testing.assert_array_equal(m.coef_, ref.coef_)
    else:  # worker processes run BLAS with other thread counts: rounding-level differences
        np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-11, atol=1e-13)
