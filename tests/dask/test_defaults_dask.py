"""kernelkit.dask fixes gamma="scale" (the default) from the whole X, as the in-memory
estimators do (issue 20): the reference is scikit-learn's SVC(gamma="scale")._gamma."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from sklearn.svm import SVC  # noqa: E402

import kernelkit  # noqa: E402
from kernelkit.dask import DaskKernelKMeans, DaskKernelRidge, gram  # noqa: E402
from kernelkit.kernels import RBF, Laplacian  # noqa: E402


def _data(n=600, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 2.0, 0.5, 3.0]) + 1.0
    return X, np.sin(X[:, 0]) + 0.1 * X[:, 1]


def _svc_gamma(X):
    return SVC().fit(X, np.arange(len(X)) % 2)._gamma


def test_dask_estimators_resolve_scale_on_the_whole_x():
    X, y = _data()
    Xd = da.from_array(X, chunks=150)  # every chunk has its own variance: the rule must not
    g = _svc_gamma(X)
    for solver in ("features", "falkon"):
        m = DaskKernelRidge(solver=solver, n_components=30, random_state=0).fit(Xd, y)
        assert m.kernel == "rbf" and m.kernel_.gamma == pytest.approx(g, rel=1e-12)
        assert np.isfinite(m.predict(X[:20])).all()
    km = DaskKernelKMeans(n_clusters=3, n_components=30, random_state=0).fit(Xd)
    assert km.kernel_.gamma == pytest.approx(g, rel=1e-12)


def test_dask_gram_resolves_on_x_lazily_as_the_in_memory_gram():
    X, _ = _data(200)
    Xd = da.from_array(X, chunks=70)
    for k in (RBF(), Laplacian() + RBF(gamma="auto")):
        K = gram(k, Xd, Xd[:30])
        np.testing.assert_allclose(K.compute(), kernelkit.gram(k, X, X[:30]), rtol=1e-10)
