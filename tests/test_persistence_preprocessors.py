"""OneHotEncoder, SimpleImputer and ColumnTransformer in safe model files: the
restored steps equal the in-memory ones (same state, same predictions), refused
settings say why at save time, and crafted files are refused at load."""

import io
import json
import zipfile

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, RobustScaler, StandardScaler

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.models import KernelRidge, KernelSVC


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(0)
    n = 90
    X = np.empty((n, 4), dtype=object)
    X[:, 0] = rng.choice(["red", "green", "blue"], n)
    X[:, 1] = rng.normal(size=n)
    X[:, 2] = rng.choice(["a", "b"], n)
    X[:, 3] = rng.normal(size=n) * 10
    y = np.where(X[:, 0] == "red", 2.0, 0.0) + X[:, 1].astype(float)
    return X, y


def _unseen(X):
    X = X.copy()
    X[0, 0], X[1, 2] = "purple", "zzz"
    return X


def _round_trip(model, tmp_path):
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    return kernelkit.load(path), path


def _same_state(a, b):
    """Every attribute of the in-memory step is restored (private ones included)."""
    assert set(vars(a)) == set(vars(b)), set(vars(a)) ^ set(vars(b))


@pytest.mark.parametrize("encoder", [
    OneHotEncoder(handle_unknown="ignore", sparse_output=False),
    OneHotEncoder(drop="first", sparse_output=False),
    OneHotEncoder(drop="if_binary", sparse_output=False, dtype=np.float32),
])
def test_column_transformer_with_onehot_round_trips(encoder, mixed, tmp_path):
    X, y = mixed
    ct = ColumnTransformer([("onehot", encoder, [0, 2]), ("scale", StandardScaler(), [1, 3])])
    model = make_pipeline(ct, KernelRidge("rbf(gamma=0.2)", alpha=0.1)).fit(X, y)
    again, path = _round_trip(model, tmp_path)
    Xt = _unseen(X) if encoder.handle_unknown == "ignore" else X
    np.testing.assert_array_equal(again.predict(Xt), model.predict(Xt))
    np.testing.assert_array_equal(again[0].transform(Xt), model[0].transform(Xt))
    _same_state(model[0], again[0])
    for name in ("onehot", "scale"):
        _same_state(model[0].named_transformers_[name], again[0].named_transformers_[name])
    enc = again[0].named_transformers_["onehot"]
    assert [c.tolist() for c in enc.categories_] == \
        [c.tolist() for c in model[0].named_transformers_["onehot"].categories_]
    assert enc.dtype is encoder.dtype
    assert list(again[0].get_feature_names_out()) == list(model[0].get_feature_names_out())
    assert kernelkit.persistence.read_metadata(path)["format_version"] == 2


@pytest.mark.parametrize("remainder", ["drop", "passthrough"])
def test_imputers_names_and_remainders(remainder, mixed, tmp_path):
    X, y = mixed
    X = X.copy()
    X[3, 1] = np.nan
    X[5, 0] = np.nan
    ct = ColumnTransformer([
        ("text", make_pipeline(SimpleImputer(strategy="most_frequent"),
                               OneHotEncoder(handle_unknown="ignore", sparse_output=False)),
         [0]),
        ("num", make_pipeline(SimpleImputer(strategy="median"), RobustScaler()), [1]),
        ("skip", "drop", [2]),
    ], remainder=remainder)
    model = make_pipeline(ct, KernelSVC("rbf(gamma=0.5)")).fit(X, np.where(y > 1, "hi", "lo"))
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    _same_state(model[0], again[0])
    imp_a = model[0].named_transformers_["text"][0]
    imp_b = again[0].named_transformers_["text"][0]
    _same_state(imp_a, imp_b)
    assert imp_b.statistics_.dtype == object and imp_b._fit_dtype == imp_a._fit_dtype
    assert again[0].output_indices_ == model[0].output_indices_


def test_columns_by_name_and_numeric_categories(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"city": rng.choice(["x", "y", "z"], 60), "rooms": rng.integers(1, 5, 60),
                          "area": rng.normal(size=60)})
    y = frame["area"].to_numpy() + frame["rooms"].to_numpy()
    ct = ColumnTransformer([("cat", OneHotEncoder(sparse_output=False), ["city", "rooms"]),
                            ("num", MinMaxScaler(), ["area"])])
    model = make_pipeline(ct, KernelRidge("rbf", alpha=0.1)).fit(frame, y)
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.predict(frame), model.predict(frame))
    assert again[0].named_transformers_["cat"].categories_[1].dtype.kind == "i"


def test_imputer_and_encoder_alone(tmp_path):
    X = np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 5.0]])
    imp = SimpleImputer(strategy="constant", fill_value=-1.0).fit(X)
    again, path = _round_trip(imp, tmp_path)
    np.testing.assert_array_equal(again.transform(X), imp.transform(X))
    assert kernelkit.persistence.read_metadata(path)["format_version"] == 1
    enc = OneHotEncoder(sparse_output=False).fit(np.array([["a"], ["b"], ["a"]]))
    again, _ = _round_trip(enc, tmp_path)
    np.testing.assert_array_equal(again.transform([["b"], ["a"]]), [[0, 1], [1, 0]])


@pytest.mark.parametrize("step, match", [
    (OneHotEncoder(), "sparse_output=True"),
    (OneHotEncoder(sparse_output=False, min_frequency=2), "infrequent"),
    (OneHotEncoder(sparse_output=False, categories=[["a", "b", "c"]]), "categories='auto'"),
    (SimpleImputer(missing_values=-1), "missing_values=-1"),
    (SimpleImputer(add_indicator=True), "add_indicator"),
])
def test_refused_settings_say_why(step, match, tmp_path):
    X = np.array([["a"], ["b"], ["a"]], dtype=object) if isinstance(step, OneHotEncoder) \
        else np.array([[1.0], [-1.0 if step.missing_values == -1 else np.nan], [3.0]])
    with pytest.raises(ValueError, match=match):
        kernelkit.save(step.fit(X), tmp_path / "x.kk")


def test_column_transformer_refusals(mixed, tmp_path):
    X, _ = mixed
    enc = OneHotEncoder(sparse_output=False)
    for ct, match in [
        (ColumnTransformer([("o", enc, lambda X: [0])]), "callable"),
        (ColumnTransformer([("o", enc, [0])], remainder=StandardScaler()), "remainder"),
        (ColumnTransformer([("o", enc, slice(0, 1))]), "ints or column names"),
        (ColumnTransformer([("o", OneHotEncoder(), [0])], sparse_threshold=1.0), "sparse"),
    ]:
        with pytest.raises(ValueError, match=match):
            kernelkit.save(ct.fit(X[:, [0, 1]]), tmp_path / "x.kk")
    with pytest.raises(ValueError, match="not fitted"):
        kernelkit.save(ColumnTransformer([("o", enc, [0])]), tmp_path / "x.kk")


def _ct_file(mixed, tmp_path):
    X, y = mixed
    ct = ColumnTransformer([("onehot", OneHotEncoder(sparse_output=False), [0, 2]),
                            ("scale", StandardScaler(), [1, 3])])
    model = make_pipeline(ct, KernelRidge("rbf", alpha=0.1)).fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    return path


def _edit(path, out, edit=None, arrays=None):
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "metadata.json" and edit is not None:
                meta = json.loads(data)
                edit(meta)
                data = json.dumps(meta).encode()
            elif arrays and info.filename in arrays:
                arr = arrays[info.filename](np.load(io.BytesIO(data)))
                buf = io.BytesIO()
                np.save(buf, arr)
                data = buf.getvalue()
            zout.writestr(info.filename, data)
    return out


def _ct(meta):
    return meta["steps"][0]


@pytest.mark.parametrize("edit, match", [
    (lambda m: _ct(m)["transformers"][0].update(columns="lambda X: X"), "not among"),
    (lambda m: _ct(m)["transformers"][0].update(columns={"a": 1}), "ints or column names"),
    (lambda m: _ct(m)["transformers"][0].update(columns=[0, "a"]), "ints or column names"),
    (lambda m: _ct(m)["transformers"][0].update(columns=[0, 9]), "out of range"),
    (lambda m: _ct(m)["transformers"][1].update(name="remainder"), "not 'remainder'"),
    (lambda m: _ct(m)["params"].update(remainder={"value": "builtins.eval"}), "remainder"),
    (lambda m: _ct(m)["params"].update(extra={"value": 1}), "unknown parameters"),
    (lambda m: _ct(m).update(transformers=[]), "non-empty list of transformers"),
    (lambda m: _ct(m)["transformers"][0].update(estimator="Pickle"), "unknown estimator"),
    (lambda m: _ct(m)["transformers"][0]["params"].update(sparse_output={"value": True}),
     "sparse_output"),
    (lambda m: _ct(m)["transformers"][0]["params"].update(dtype={"value": "object"}), "dtype"),
    (lambda m: _ct(m)["transformers"][0]["arrays"]["categories_text_"].update(shape=[10**9]),
     "declares .* bytes of arrays"),
    (lambda m: _ct(m)["transformers"][0]["arrays"]["categories_text_"].update(dtype="|O"),
     "malformed description"),
    (lambda m: _ct(m)["transformers"][0]["arrays"].pop("category_counts_"),
     "unexpected contents"),
    (lambda m: m.update(format_version=1), "does not match"),
])
def test_crafted_column_transformer_files_are_refused(edit, match, mixed, tmp_path):
    path = _ct_file(mixed, tmp_path)
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(_edit(path, tmp_path / "bad.kk", edit))


@pytest.mark.parametrize("member, change, match", [
    ("category_counts_", lambda a: a + 1, "do not match category_counts_"),
    ("category_kinds_", lambda a: a + 7, "kinds 0-3"),
    ("categories_text_", lambda a: a[::-1].copy(), "sorted and distinct"),
])
def test_inconsistent_categories_are_refused(member, change, match, mixed, tmp_path):
    path = _ct_file(mixed, tmp_path)
    bad = _edit(path, tmp_path / "bad.kk",
                arrays={f"steps/0/transformers/0/{member}.npy": change})
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(bad)
