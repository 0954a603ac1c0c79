"""Data from stores: parquet (a dask DataFrame and Series) and zarr, on the cluster."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from kernelkit import KernelRidge  # noqa: E402
from kernelkit.dask import DaskKernelRidge  # noqa: E402

KERNEL = "rbf(gamma=0.3)"
KW = dict(alpha=1.0, solver="falkon", n_components=40, tol=1e-10, max_iter=200,
          random_state=0)


def _data(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)


def test_parquet_dataframe_and_series(tmp_path, client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(target=y)
    dd.from_pandas(frame, npartitions=3).to_parquet(tmp_path / "table")
    table = dd.read_parquet(tmp_path / "table")
    m = DaskKernelRidge(KERNEL, **KW)
    m.client = client
    m.fit(table[["a", "b", "c"]], table["target"])
    ref = KernelRidge(KERNEL, alpha=1.0, solver="falkon", n_centers=40, tol=1e-10,
                      max_iter=200, random_state=0).fit(X, y)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())
    np.testing.assert_allclose(m.predict(X), ref.predict(X), rtol=1e-8, atol=1e-8)


def test_zarr_store(tmp_path, client):
    zarr = pytest.importorskip("zarr")
    X, y = _data()
    store = zarr.open_array(str(tmp_path / "X.zarr"), mode="w", shape=X.shape,
                            chunks=(200, 3), dtype="f8")
    store[:] = X
    Xz = da.from_zarr(str(tmp_path / "X.zarr"))
    assert Xz.numblocks == (3, 1)
    m = DaskKernelRidge(KERNEL, **KW)
    m.client = client
    m.fit(Xz, y)
    ref = KernelRidge(KERNEL, alpha=1.0, solver="falkon", n_centers=40, tol=1e-10,
                      max_iter=200, random_state=0).fit(X, y)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())
    pred = m.predict(Xz)
    assert isinstance(pred, da.Array) and pred.chunks[0] == Xz.chunks[0]
    np.testing.assert_allclose(pred.compute(), ref.predict(X), rtol=1e-8, atol=1e-8)
