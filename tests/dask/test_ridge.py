"""DaskKernelRidge(Classifier) equals its in-memory twin, on the cluster and locally."""

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import kernelkit  # noqa: E402
from kernelkit import KernelRidge, KernelRidgeClassifier  # noqa: E402
from kernelkit.dask import DaskKernelRidge, DaskKernelRidgeClassifier  # noqa: E402
from kernelkit.solvers.normal_equations import (feature_normal_equations,  # noqa: E402
                                                solve_normal_equations)

KERNEL = "rbf(gamma=0.3)"


def _data(n=1200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


def _fitted(est, where):
    est.client = where
    return est


@pytest.mark.parametrize("features", ["nystroem", "rff"])
def test_features_equal_in_memory_normal_equations(where, features):
    X, y = _data()
    Xd = da.from_array(X, chunks=300)
    m = _fitted(DaskKernelRidge(KERNEL, alpha=0.1, solver="features", features=features,
                                n_components=80, random_state=0, fit_intercept=False),
                where).fit(Xd, y)
    ne = feature_normal_equations(m.feature_map_.transform, X, y, n_jobs=1)
    W = solve_normal_equations(ne, 0.1)[0][:, 0]
    np.testing.assert_allclose(m.coef_, W, rtol=1e-10, atol=1e-10 * np.abs(W).max())
    pred = m.predict(Xd)
    assert isinstance(pred, da.Array) and pred.chunks == (Xd.chunks[0],)
    np.testing.assert_allclose(pred.compute(), m.feature_map_.transform(X) @ W, rtol=1e-9,
                               atol=1e-9)
    # several alphas from the one pass
    m.refit(1.0)
    np.testing.assert_allclose(m.coef_, solve_normal_equations(ne, 1.0)[0][:, 0], rtol=1e-10,
                               atol=1e-12)


def test_features_sample_weight(where):
    X, y = _data(600)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(X))
    m = _fitted(DaskKernelRidge(KERNEL, alpha=0.1, solver="features", n_components=40,
                                random_state=0, fit_intercept=False), where).fit(da.from_array(X, chunks=200), y,
                                                           sample_weight=w)
    s = np.sqrt(w)[:, None]
    ne = feature_normal_equations(lambda A: A, m.feature_map_.transform(X) * s, y * s[:, 0],
                                  n_jobs=1)
    W = solve_normal_equations(ne, 0.1)[0][:, 0]
    np.testing.assert_allclose(m.coef_, W, rtol=1e-10, atol=1e-10 * np.abs(W).max())


def test_falkon_equals_kernel_ridge(where):
    X, y = _data(800)
    Xd = da.from_array(X, chunks=400)
    kw = dict(alpha=1.0, tol=1e-10, max_iter=200, random_state=0)
    m = _fitted(DaskKernelRidge(KERNEL, solver="falkon", n_components=60, fit_intercept=False,
                                **kw), where).fit(Xd, y)
    ref = KernelRidge(KERNEL, solver="falkon", n_centers=60, fit_intercept=False,
                      **kw).fit(X, y)
    np.testing.assert_array_equal(m.centers_, ref.centers_)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())
    local = m.to_local()
    assert type(local) is KernelRidge
    np.testing.assert_allclose(local.predict(X), ref.predict(X), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(m.predict(Xd).compute(), ref.predict(X), rtol=1e-8, atol=1e-8)


def test_falkon_recomputed(client):
    persist = False
    X, y = _data(800)
    kw = dict(alpha=1.0, tol=1e-10, max_iter=200, random_state=0)
    m = DaskKernelRidge(KERNEL, solver="falkon", n_components=40, persist=persist,
                        fit_intercept=False, **kw)
    m.client = client
    m.fit(da.from_array(X, chunks=400), y)
    assert m.store_choice_.value is persist
    ref = KernelRidge(KERNEL, solver="falkon", n_centers=40, fit_intercept=False,
                      **kw).fit(X, y)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())


def test_classifier_equals_in_memory(where):
    X, y = _data(600)
    labels = np.array(["a", "b", "c"])[np.digitize(y, [-0.5, 0.5])]
    kw = dict(alpha=1.0, tol=1e-10, max_iter=200, random_state=0)
    Xd = da.from_array(X, chunks=300)
    m = _fitted(DaskKernelRidgeClassifier(KERNEL, solver="falkon", n_components=30,
                                          fit_intercept=False, **kw), where).fit(Xd, labels)
    ref = KernelRidgeClassifier(KERNEL, solver="falkon", n_centers=30, fit_intercept=False,
                                **kw).fit(X, labels)
    np.testing.assert_array_equal(m.classes_, ref.classes_)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())
    pred = m.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), ref.predict(X))
    np.testing.assert_array_equal(m.to_local().predict(X), ref.predict(X))


def test_intercept_equals_in_memory(where):
    # an uncentred target (level 12, as log house prices): the intercept carries it
    X, y = _data(800)
    y = y + 12.0
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(X))
    Xd = da.from_array(X, chunks=300)
    kw = dict(alpha=1.0, tol=1e-10, max_iter=200, random_state=0)
    m = _fitted(DaskKernelRidge(KERNEL, solver="falkon", n_components=60, **kw),
                where).fit(Xd, y, sample_weight=w)
    ref = KernelRidge(KERNEL, solver="falkon", n_centers=60, **kw).fit(X, y, sample_weight=w)
    assert ref.fit_intercept and abs(ref.intercept_ - np.average(y, weights=w)) < 1e-12
    np.testing.assert_allclose(m.intercept_, ref.intercept_, rtol=1e-13)
    np.testing.assert_allclose(m.dual_coef_, ref.dual_coef_, rtol=1e-8,
                               atol=1e-8 * np.abs(ref.dual_coef_).max())
    np.testing.assert_allclose(m.predict(Xd).compute(), ref.predict(X), rtol=1e-8)
    np.testing.assert_allclose(m.to_local().predict(X), ref.predict(X), rtol=1e-8)
    # features: the same as fitting y - mean without intercept, plus the mean
    f = _fitted(DaskKernelRidge(KERNEL, alpha=0.1, solver="features", n_components=40,
                                random_state=0), where).fit(Xd, y)
    g = _fitted(DaskKernelRidge(KERNEL, alpha=0.1, solver="features", n_components=40,
                                random_state=0, fit_intercept=False), where).fit(Xd, y - y.mean())
    np.testing.assert_allclose(f.intercept_, y.mean(), rtol=1e-13)
    np.testing.assert_allclose(f.coef_, g.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(f.predict(X), g.predict(X) + y.mean(), rtol=1e-10)
    # classifier: the mean of each {-1, +1} column, as KernelRidgeClassifier
    labels = np.array(["a", "b", "c"])[np.digitize(y - 12, [-0.5, 0.5])]
    c = _fitted(DaskKernelRidgeClassifier(KERNEL, solver="falkon", n_components=30, **kw),
                where).fit(Xd, labels)
    cref = KernelRidgeClassifier(KERNEL, solver="falkon", n_centers=30, **kw).fit(X, labels)
    np.testing.assert_allclose(c.intercept_, cref.intercept_, rtol=1e-13)
    np.testing.assert_allclose(c.decision_function(X), cref.decision_function(X), rtol=1e-7,
                               atol=1e-8)
    np.testing.assert_array_equal(c.to_local().predict(X), cref.predict(X))


def test_binary_classifier_features_numpy_input():
    X, y = _data(500)
    m = DaskKernelRidgeClassifier(KERNEL, alpha=0.1, solver="features", n_components=30,
                                  random_state=0).fit(X, y > 0)
    out = m.predict(X)
    assert isinstance(out, np.ndarray) and out.dtype == bool
    assert (out == (y > 0)).mean() > 0.85


def test_clone_pickle_save_and_client_dropped(client, tmp_path):
    X, y = _data(400)
    m = DaskKernelRidge(KERNEL, alpha=0.1, solver="falkon", n_components=30, random_state=0)
    m.client = client
    assert clone(m).client is None and "client" not in m.get_params()
    m.fit(X, y)
    back = pickle.loads(pickle.dumps(m))
    assert back.client is None
    np.testing.assert_array_equal(back.dual_coef_, m.dual_coef_)
    assert isinstance(m.dual_coef_, np.ndarray) and isinstance(m.centers_, np.ndarray)
    path = tmp_path / "m.kk"
    kernelkit.save(m.to_local(), path)
    np.testing.assert_allclose(kernelkit.load(path).predict(X), m.predict(X), rtol=1e-12)


def test_grid_search_and_pipeline():
    X, y = _data(300)
    pipe = make_pipeline(StandardScaler(), DaskKernelRidge(KERNEL, solver="features",
                                                           n_components=20, random_state=0))
    gs = GridSearchCV(pipe, {"daskkernelridge__alpha": [0.1, 1.0]}, cv=2).fit(X, y)
    assert gs.best_score_ > 0.5


def test_auto_and_inputs(client):
    X, y = _data(500)
    m = DaskKernelRidge(KERNEL, alpha=0.1, n_components=20, random_state=0)
    m.client = client
    m.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=250))  # y rechunked to X
    assert m.solver_ == "falkon" and m.solver_choice_.value == "falkon"
    assert m.store_choice_.value is True
    with pytest.raises(ValueError, match="rows"):
        m.fit(X, y[:-1])


def test_import_kernelkit_does_not_import_dask():
    import subprocess
    import sys

    code = "import sys, kernelkit; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_falkon_checkpoint_resumes(tmp_path):
    # a fit stopped after 4 iterations, started again with the same checkpoint,
    # ends where one uninterrupted fit of 12 iterations ends
    X, y = _data(600)
    Xd = da.from_array(X, chunks=300)
    kw = dict(alpha=1e-3, tol=1e-14, n_components=50, random_state=0)
    path = tmp_path / "cg.npz"
    first = DaskKernelRidge(KERNEL, solver="falkon", max_iter=4, checkpoint=str(path), **kw)
    first.fit(Xd, y)
    assert first.n_iter_ == 4 and path.exists()
    resumed = DaskKernelRidge(KERNEL, solver="falkon", max_iter=12, checkpoint=path, **kw)
    resumed.fit(Xd, y)
    whole = DaskKernelRidge(KERNEL, solver="falkon", max_iter=12, **kw).fit(Xd, y)
    assert resumed.n_iter_ == whole.n_iter_ == 12
    np.testing.assert_allclose(resumed.dual_coef_, whole.dual_coef_, rtol=1e-12, atol=1e-12)
