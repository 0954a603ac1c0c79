"""Bad dask inputs end in one-line errors that name the row in X (not in its chunk),
the column, or the fix; on the local scheduler and on the LocalCluster alike."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from kernelkit.dask import (DaskKernelKMeans, DaskKernelRidge,  # noqa: E402
                            DaskKernelRidgeClassifier, ParallelPostFit)
from kernelkit import KernelRidge  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 3))
Y = X[:, 0] - X[:, 1]


def _ridge(where, **kw):
    m = DaskKernelRidge("rbf", n_components=10, random_state=0, **kw)
    m.client = where
    return m


@pytest.mark.parametrize("solver", ["features", "falkon"])
@pytest.mark.parametrize("row", [0, 150, 299])
def test_non_finite_x_names_its_row_in_x(where, solver, row):
    Xb = X.copy()
    Xb[row, 1] = np.inf if row % 2 else np.nan
    with pytest.raises(ValueError, match=rf"X contains NaN or infinity in row {row} "):
        _ridge(where, solver=solver).fit(da.from_array(Xb, chunks=100), Y)


def test_non_finite_y_and_bad_weights_name_what_is_wrong(where):
    Xd = da.from_array(X, chunks=100)
    yb = Y.copy()
    yb[201] = np.nan
    with pytest.raises(ValueError, match=r"y contains NaN or infinity in row 201 "):
        _ridge(where).fit(Xd, da.from_array(yb, chunks=100))
    for bad in (np.nan, -2.0, np.inf):
        sw = np.ones(300)
        sw[120] = bad
        with pytest.raises(ValueError, match=r"sample_weight must be finite and >= 0, but "
                                             r"sample_weight\[120\]"):
            _ridge(where).fit(Xd, Y, sample_weight=da.from_array(sw, chunks=100))


def test_shapes_a_fit_cannot_take():
    with pytest.raises(ValueError, match="must be 2-D.*reshape"):
        _ridge(None).fit(da.from_array(X[:, 0], chunks=100), Y)
    with pytest.raises(ValueError, match="0 rows"):
        _ridge(None).fit(da.from_array(X[:0], chunks=100), Y[:0])
    with pytest.raises(ValueError, match="0 rows"):
        DaskKernelKMeans(2, n_components=5).fit(da.from_array(X[:0], chunks=100))
    with pytest.raises(ValueError, match="regressor.*DaskKernelRidgeClassifier"):
        _ridge(None).fit(da.from_array(X, chunks=100), np.array(["a", "b", "c"] * 100))


def test_labels_that_are_not_classes():
    Xd = da.from_array(X, chunks=100)
    labels = (X[:, 0] > 0).astype(float)
    labels[7] = np.nan
    clf = DaskKernelRidgeClassifier(n_components=10, random_state=0)
    with pytest.raises(ValueError, match="NaN: a missing label is not a class"):
        clf.fit(Xd, labels)
    with pytest.raises(ValueError, match="regression target"):
        clf.fit(Xd, Y)  # 300 distinct floats
    whole = np.where(X[:, 0] > 0, 2.0, -1.0)  # whole-number floats are classes
    assert list(clf.fit(Xd, whole).classes_) == [-1.0, 2.0]


def _frame(cols):
    order = ["abc".index(c) for c in cols]
    return dd.from_pandas(pd.DataFrame(X[:, order], columns=list(cols)), npartitions=3)


@pytest.mark.parametrize("make", [
    lambda: DaskKernelRidge(n_components=10, random_state=0),
    lambda: DaskKernelRidgeClassifier(n_components=10, random_state=0),
    lambda: DaskKernelKMeans(2, n_components=10, random_state=0),
])
def test_columns_are_matched_by_name_or_refused(make):
    m = make()
    y = (X[:, 0] > 0).astype(int)
    m.fit(_frame("abc"), *(() if isinstance(m, DaskKernelKMeans) else (y,)))
    assert list(m.feature_names_in_) == ["a", "b", "c"]
    same = m.predict(_frame("abc")).compute()
    np.testing.assert_array_equal(same, m.predict(X))
    with pytest.raises(ValueError, match=r"another order \(c, a, b instead of a, b, c\).*"
                                         r"feature_names_in_"):
        m.predict(_frame("cab"))
    renamed = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "z"]), npartitions=3)
    with pytest.raises(ValueError, match=r"missing \['c'\], unexpected \['z'\]"):
        m.predict(renamed)
    with pytest.raises(ValueError, match="X has 2 features, but .* with 3 features"):
        m.predict(da.from_array(X[:, :2], chunks=100))
    m.fit(X, *(() if isinstance(m, DaskKernelKMeans) else (y,)))  # refit on an array
    assert not hasattr(m, "feature_names_in_")


@pytest.mark.filterwarnings("error:X does not have valid feature names")
def test_parallel_post_fit_matches_columns_by_name():
    frame = pd.DataFrame(X, columns=list("abc"))
    wrapped = ParallelPostFit(KernelRidge(alpha=0.1)).fit(frame, Y)
    good = wrapped.predict(_frame("abc")).compute()
    np.testing.assert_allclose(good, wrapped.estimator_.predict(frame), rtol=1e-12)
    with pytest.raises(ValueError, match="another order"):
        wrapped.predict(_frame("bca"))


def test_predict_checks_finite_rows():
    m = _ridge(None).fit(X, Y)
    Xb = X.copy()
    Xb[250, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity in row 250 "):
        m.predict(da.from_array(Xb, chunks=100)).compute()


def test_verbose_fits_report_each_pass(capsys, where):
    m = DaskKernelRidge("rbf", solver="falkon", n_components=20, max_iter=5, random_state=0,
                        verbose=1)
    m.client = where
    m.fit(da.from_array(X, chunks=100), Y)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("kernelkit dask:")]
    assert any("column variances" in ln for ln in lines)
    assert len(lines) >= 3 and all(" done in " in ln for ln in lines)
    DaskKernelRidge("rbf", n_components=20, random_state=0).fit(X, Y)
    assert "kernelkit dask:" not in capsys.readouterr().err


@pytest.mark.parametrize("kernel", ["spectrum(k=2)", "mean_embedding", "sst"])
def test_kernels_on_objects_are_refused_with_the_way_out(kernel):
    with pytest.raises(ValueError, match="needs a kernel on numeric vectors.*ParallelPostFit"):
        DaskKernelRidge(kernel, n_centers=5).fit(X, Y)


def test_a_failed_refit_keeps_the_fitted_model():
    """All or nothing, as in memory: a refit that raises leaves the old classes and
    coefficients (it used to keep the new classes_ with the old coefficients)."""
    clf = DaskKernelRidgeClassifier(n_centers=10, random_state=0)
    clf.fit(X, np.where(X[:, 0] > 0, "a", "b"))
    before = clf.predict(X)
    with pytest.raises(Exception):
        clf.set_params(alpha=-1).fit(X, np.array(["c", "d", "e"] * 100))
    assert list(clf.classes_) == ["a", "b"]
    np.testing.assert_array_equal(clf.set_params(alpha=1.0).predict(X), before)
