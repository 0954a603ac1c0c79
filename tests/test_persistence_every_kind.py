"""What ``save`` writes, ``load`` reads (issue 23): every public estimator and
transformer of kernelkit, the scikit-learn preprocessors the model-file guide
lists and the column selections it allows, fitted on small data, either round-trip
with identical outputs or are refused at save with a message -- never a file
that ``load`` rejects."""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier, is_regressor
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, RobustScaler, StandardScaler

import kernelkit
from kernelkit.models import KernelRidge

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
Y_CLASS = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
Y_REAL = X[:, 0] + X[:, 1] ** 2
X_NEW = np.random.default_rng(1).normal(size=(15, 3))
OUTPUTS = ("predict", "decision_function", "predict_proba", "transform", "score_samples",
           "similarities")


def _graphs(n, seed):
    rng = np.random.default_rng(seed)
    out = np.empty(n, dtype=object)
    for i in range(n):
        m = 4 + i % 3
        edges = np.array([[j, (j + 1) % m] for j in range(m)], dtype=np.int64)
        out[i] = (edges, rng.integers(0, 2, m))
    return out


def _public():
    for name in kernelkit.__all__:
        obj = getattr(kernelkit, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            yield pytest.param(obj, id=name)


def _fit(est):
    if type(est).__name__ == "WeisfeilerLehmanFeatures":
        return est.fit(_graphs(12, 0)), _graphs(6, 1)
    if is_classifier(est):
        return est.fit(X, Y_CLASS), X_NEW
    if is_regressor(est):
        return est.fit(X, Y_REAL), X_NEW
    return est.fit(X), X_NEW


def _outputs(est, X_query):
    out = {}
    for method in OUTPUTS:
        if hasattr(est, method):
            value = getattr(est, method)(X_query)
            out[method] = value.toarray() if hasattr(value, "toarray") else np.asarray(value)
    if hasattr(est, "kneighbors"):
        out["kneighbors"] = np.asarray(est.kneighbors(X_query, n_neighbors=3))
    return out


def _round_trip_or_refused(model, X_query, tmp_path):
    path = tmp_path / "m.kk"
    try:
        kernelkit.save(model, path)
    except ValueError as exc:  # refused at save: with a message, and no file left
        assert str(exc) and "cannot save" in str(exc) or "not fitted" in str(exc), str(exc)
        assert not path.exists()
        return None
    again = kernelkit.load(path)  # a file save wrote must load
    expected, got = _outputs(model, X_query), _outputs(again, X_query)
    assert expected, f"{type(model).__name__} has none of {OUTPUTS}: nothing compared"
    assert got.keys() == expected.keys()
    for method, value in expected.items():
        np.testing.assert_array_equal(got[method], value, err_msg=method)
    return again


@pytest.mark.parametrize("cls", list(_public()))
def test_every_public_estimator_round_trips_or_is_refused_at_save(cls, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, X_query = _fit(cls())
        if not any(hasattr(model, m) for m in OUTPUTS):  # clusterers of the training set
            with pytest.raises(ValueError, match="cannot save"):
                kernelkit.save(model, tmp_path / "m.kk")
            return
        _round_trip_or_refused(model, X_query, tmp_path)


def _columns():
    return [
        ColumnTransformer([("s", StandardScaler(), [-1])], remainder="passthrough"),
        ColumnTransformer([("s", MinMaxScaler(), [-2, -1])]),
        ColumnTransformer([("p", "passthrough", [0, 1]), ("s", RobustScaler(), [2])]),
        ColumnTransformer([("d", "drop", [0]), ("s", StandardScaler(), [2])],
                          remainder="passthrough"),
        ColumnTransformer([("i", make_pipeline(SimpleImputer(), StandardScaler()), [0, 2])],
                          remainder="drop"),
    ]


@pytest.mark.parametrize("ct", _columns(), ids=["negative", "negatives", "passthrough",
                                               "drop-and-remainder", "pipeline"])
def test_column_selections_the_guide_lists_round_trip(ct, tmp_path):
    model = make_pipeline(ct, KernelRidge("rbf", alpha=0.1)).fit(X, Y_REAL)
    again = _round_trip_or_refused(model, X_NEW, tmp_path)
    assert again is not None, "the guide lists this selection: it must round-trip"


@pytest.mark.parametrize("step", [StandardScaler(), MinMaxScaler(), RobustScaler(),
                                  SimpleImputer(strategy="median"),
                                  OneHotEncoder(sparse_output=False),
                                  OneHotEncoder()],  # sparse output: refused at save
                         ids=["standard", "minmax", "robust", "imputer", "onehot",
                              "onehot-sparse"])
def test_listed_preprocessors_round_trip_or_are_refused(step, tmp_path):
    data = np.round(X * 2) if isinstance(step, OneHotEncoder) else X
    step.fit(data)
    _round_trip_or_refused(step, data[:10], tmp_path)


def test_dask_kmeans_to_local_round_trips(tmp_path):
    da = pytest.importorskip("dask.array")
    from kernelkit.dask import DaskKernelKMeans

    local = DaskKernelKMeans(n_clusters=3, random_state=0).fit(
        da.from_array(X, chunks=20)).to_local()
    assert local.labels_ is None  # the training labels stay on the cluster
    again = _round_trip_or_refused(local, X_NEW, tmp_path)
    assert again is not None and again.labels_ is None
