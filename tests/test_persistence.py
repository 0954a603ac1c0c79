"""Safe model files: round trips, and every kind of malformed file is refused."""

import io
import json
import os
import zipfile

import numpy as np
import pytest

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.kernels import RBF, Composed, Linear, Polynomial, Warped
from kernelkit.models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelRidge, KernelRidgeCV, KernelSVC)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, np.sin(X[:, 0]) + X[:, 1]


@pytest.mark.parametrize("model", [
    KernelRidge(kernel=RBF(gamma=0.5) + 0.1 * Polynomial(degree=2), alpha=0.1),
    KernelRidge(kernel="rbf(gamma=0.2)", alpha=np.array([0.1, 1.0])),
    KernelRidge(kernel=Linear(), solver="primal"),
    KernelRidgeCV(kernel="laplacian", alphas=(0.1, 1.0), param_grid={"gamma": [0.1, 1.0]}),
])
def test_round_trip_predictions_identical(model, data, tmp_path):
    X, y = data
    if np.ndim(model.get_params().get("alpha", 0)) == 1:
        y = np.column_stack([y, -y])
    model.fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    again = kernelkit.load(path)
    assert type(again) is type(model)
    assert again.get_params(deep=False).keys() == model.get_params(deep=False).keys()
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_precomputed_round_trip(data, tmp_path):
    X, y = data
    K = RBF(gamma=0.3)(X)
    model = KernelRidge(kernel="precomputed", alpha=0.5).fit(K, y)
    kernelkit.save(model, tmp_path / "p.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "p.kk").predict(K), model.predict(K))


def test_feature_names_survive(data, tmp_path):
    pd = pytest.importorskip("pandas")  # pandas is in the test extra
    X, y = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    model = KernelRidge(kernel="rbf").fit(df, y)
    kernelkit.save(model, tmp_path / "n.kk")
    assert list(kernelkit.load(tmp_path / "n.kk").feature_names_in_) == ["a", "b", "c"]


def test_is_a_zip_of_json_and_npy_only(data, tmp_path):
    X, y = data
    kernelkit.save(KernelRidge(kernel="rbf").fit(X, y), tmp_path / "m.kk")
    with zipfile.ZipFile(tmp_path / "m.kk") as zf:
        names = sorted(zf.namelist())
        meta = json.loads(zf.read("metadata.json"))
    assert names == ["X_fit_.npy", "dual_coef_.npy", "intercept_.npy", "metadata.json"]
    assert meta["format"] == "kernelkit-model" and meta["estimator"] == "KernelRidge"
    assert meta["params"]["kernel"] == {"value": "rbf"}
    assert meta["attributes"]["kernel_"]["kernel"]["kernel"] == "RBF"


def test_unsavable_models(data, tmp_path):
    X, y = data
    with pytest.raises(ValueError, match="not fitted"):
        kernelkit.save(KernelRidge(), tmp_path / "x.kk")
    warped = KernelRidge(kernel=Warped(RBF(), lambda A: np.ones(len(A)))).fit(X, y)
    with pytest.raises(ValueError, match="callable"):
        kernelkit.save(warped, tmp_path / "x.kk")
    with pytest.raises(ValueError, match="cannot save"):
        kernelkit.save(object(), tmp_path / "x.kk")
    composed = KernelRidge(kernel=Composed(RBF(), np.tanh)).fit(X, y)
    with pytest.raises(ValueError):
        kernelkit.save(composed, tmp_path / "x.kk")
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_atomic_write_keeps_old_file_on_failure(data, tmp_path, monkeypatch):
    X, y = data
    path = tmp_path / "m.kk"
    kernelkit.save(KernelRidge(kernel="rbf").fit(X, y), path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError, match="disk full"):
        kernelkit.save(KernelRidge(kernel="linear").fit(X, y), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.kk"]


# ---- malformed files ----------------------------------------------------------------
@pytest.fixture
def saved(data, tmp_path):
    X, y = data
    path = tmp_path / "m.kk"
    kernelkit.save(KernelRidge(kernel="rbf(gamma=0.5)", alpha=0.1).fit(X, y), path)
    return path


def _rewrite(path, meta=None, arrays=None, drop=(), extra=None):
    """Rewrite a model file with edited metadata/arrays (a forged file)."""
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    if meta is not None:
        members["metadata.json"] = json.dumps(meta).encode()
    for name, arr in (arrays or {}).items():
        buf = io.BytesIO()
        np.lib.format.write_array(buf, arr, allow_pickle=True)
        members[f"{name}.npy"] = buf.getvalue()
    for name in drop:
        members.pop(name)
    members.update(extra or {})
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob)


def _meta(path):
    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("metadata.json"))


def test_truncated_anywhere(saved):
    blob = saved.read_bytes()
    for cut in sorted({1, 10, 100, len(blob) // 3, len(blob) // 2, len(blob) - 30,
                       len(blob) - 1}):
        saved.write_bytes(blob[:cut])
        with pytest.raises(ModelFormatError):
            kernelkit.load(saved)


def test_flipped_byte_in_array_payload(saved):
    blob = bytearray(saved.read_bytes())
    pos = blob.find(b"dual_coef_.npy")
    blob[pos + 200] ^= 0xFF  # inside the stored payload: the zip CRC catches it
    saved.write_bytes(bytes(blob))
    with pytest.raises(ModelFormatError):
        kernelkit.load(saved)


def test_not_a_model_file(tmp_path):
    p = tmp_path / "junk.kk"
    p.write_bytes(b"\x80\x04\x95 this is a pickle, honestly")
    with pytest.raises(ModelFormatError, match="not a kernelkit model"):
        kernelkit.load(p)
    with pytest.raises(FileNotFoundError):
        kernelkit.load(tmp_path / "missing.kk")


@pytest.mark.parametrize("edit,match", [
    (lambda m: m.update(format_version=99), "newer"),
    (lambda m: m.update(format="other"), "not a kernelkit model"),
    (lambda m: m.update(estimator="os.system"), "unknown estimator"),
    (lambda m: m["params"].update(kernel={"kernel": {"kernel": "Evil", "params": {}}}),
     "unknown kernel"),
    (lambda m: m["params"].update(bogus={"value": 1}), "unknown parameters"),
    (lambda m: m["params"].update(alpha={"value": -1.0}), "alpha"),
    (lambda m: m["arrays"]["dual_coef_"].update(shape=[3]), "shape"),
    (lambda m: m["arrays"]["dual_coef_"].update(dtype="object"), "malformed"),
    (lambda m: m["attributes"].update(n_features_in_={"value": 7}), "X_fit_ has shape"),
    (lambda m: m["attributes"].update(__class__={"value": "x"}), "unknown attributes"),
    (lambda m: m.pop("arrays"), "arrays"),
])
def test_forged_metadata(saved, edit, match):
    meta = _meta(saved)
    edit(meta)
    _rewrite(saved, meta=meta)
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(saved)


def test_object_array_is_never_unpickled(saved):
    evil = np.array([object()], dtype=object)
    _rewrite(saved, arrays={"dual_coef_": evil})
    with pytest.raises(ModelFormatError):
        kernelkit.load(saved)


def test_non_finite_and_inconsistent_arrays(saved):
    meta = _meta(saved)
    with zipfile.ZipFile(saved) as zf:
        coef = np.lib.format.read_array(io.BytesIO(zf.read("dual_coef_.npy")))
    coef[3] = np.nan
    _rewrite(saved, arrays={"dual_coef_": coef})
    with pytest.raises(ModelFormatError, match="NaN"):
        kernelkit.load(saved)
    short = np.zeros(5)
    meta["arrays"]["dual_coef_"]["shape"] = [5]
    _rewrite(saved, meta=meta, arrays={"dual_coef_": short})
    with pytest.raises(ModelFormatError, match="X_fit_ has shape"):
        kernelkit.load(saved)


def test_missing_and_extra_members(saved, tmp_path):
    _rewrite(saved, drop=["X_fit_.npy"])
    with pytest.raises(ModelFormatError):
        kernelkit.load(saved)
    other = tmp_path / "o.kk"
    saved.rename(other)
    _rewrite(other, extra={"payload.py": b"import os"})
    with pytest.raises(ModelFormatError, match="unexpected"):
        kernelkit.load(other)


def test_user_metadata_and_read_metadata(data, tmp_path):
    X, y = data
    path = tmp_path / "u.kk"
    kernelkit.save(KernelRidge(kernel="linear").fit(X, y), path, metadata={"target": "price"})
    meta = kernelkit.persistence.read_metadata(path)
    assert meta["user"] == {"target": "price"} and meta["estimator"] == "KernelRidge"
    assert kernelkit.load(path).n_samples_fit_ == len(X)
    with pytest.raises(ValueError, match="plain JSON"):
        kernelkit.save(KernelRidge().fit(X, y), path, metadata={"f": object()})
    (tmp_path / "bad.kk").write_bytes(b"garbage")
    with pytest.raises(ModelFormatError):
        kernelkit.persistence.read_metadata(tmp_path / "bad.kk")


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("multiclass", ["ovo", "ovr"])
def test_svc_round_trip(labels, multiclass, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 2))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    if labels == "str":
        y = np.array(["a", "b", "c"])[y]
    model = KernelSVC(kernel="rbf(gamma=0.5)", C=2.0, multiclass=multiclass).fit(X, y)
    kernelkit.save(model, tmp_path / "s.kk")
    again = kernelkit.load(tmp_path / "s.kk")
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert again.support_.dtype == np.int64 and list(again.classes_) == list(model.classes_)


def test_svc_forged_support_counts(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    path = tmp_path / "s.kk"
    kernelkit.save(KernelSVC(kernel="rbf").fit(X, y), path)
    meta = _meta(path)
    with zipfile.ZipFile(path) as zf:
        counts = np.lib.format.read_array(io.BytesIO(zf.read("n_support_.npy")))
    _rewrite(path, arrays={"n_support_": counts + 1})
    with pytest.raises(ModelFormatError, match="support_"):
        kernelkit.load(path)
    assert meta["estimator"] == "KernelSVC"


@pytest.mark.parametrize("make", [
    lambda: KernelMachine(kernel="rbf(gamma=0.5)", loss="huber", alpha=0.1),
    lambda: KernelMachine(kernel="poly(degree=2)", alpha=0.1, solver="sgd",
                          strategy="features_cached", random_state=0),
    lambda: KernelMachineClassifier(kernel="rbf(gamma=0.5)", loss="hinge", random_state=0),
    lambda: KernelLogisticRegression(kernel="rbf(gamma=0.5)", C=5.0),
    lambda: KernelLogisticRegression(kernel="rbf(gamma=0.5)", multi_class="ovr",
                                     solver="newton"),
])
def test_kernel_machines_round_trip(make, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2))
    model = make()
    if hasattr(model, "predict_proba") or "Classifier" in type(model).__name__:
        y = np.array(["lo", "mid", "hi"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.7)]
    else:
        y = np.sin(X[:, 0]) + X[:, 1]
    model.fit(X, y)
    kernelkit.save(model, tmp_path / "k.kk")
    again = kernelkit.load(tmp_path / "k.kk")
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("est", [kernelkit.KernelSVC(), kernelkit.KernelRidgeClassifier(),
                                 kernelkit.KernelKNeighborsClassifier(3)])
def test_boolean_labels_round_trip(tmp_path, est):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = X[:, 0] > 0
    est.fit(X, y)
    kernelkit.save(est, tmp_path / "m.kk")
    back = kernelkit.load(tmp_path / "m.kk")
    assert back.classes_.dtype == bool
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_multi_output_classifier_is_refused_clearly(tmp_path):
    X = np.random.default_rng(0).normal(size=(40, 3))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(int)
    est = kernelkit.KernelKNeighborsClassifier(3).fit(X, Y)
    with pytest.raises(ValueError, match="one array per output"):
        kernelkit.save(est, tmp_path / "m.kk")
    assert not (tmp_path / "m.kk").exists()
