"""Hostile model files: every malformed, crafted or non-regular file ends in a clear
ModelFormatError (or FileNotFoundError), never in another exception, a large
allocation, a hang or a wrong model."""

import io
import json
import os
import struct
import threading
import zipfile

import numpy as np
import pytest

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.models import KernelOutlierDetector, KernelRidge, KernelSVC


@pytest.fixture(scope="module")
def small_model_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    model = KernelRidge(kernel="rbf(gamma=0.5)", alpha=0.1).fit(X, X[:, 0])
    path = tmp_path_factory.mktemp("hostile") / "small.kk"
    kernelkit.save(model, path)
    return path, model, X


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return [(i.filename, zf.read(i.filename)) for i in zf.infolist()]


def _write(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


def _edit_meta(members, edit):
    out = []
    for name, data in members:
        if name == "metadata.json":
            meta = json.loads(data)
            edit(meta)
            data = json.dumps(meta).encode()
        out.append((name, data))
    return out


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def test_every_byte_flipped_and_every_truncation(small_model_file, tmp_path):
    """A flipped byte anywhere gives ModelFormatError or the very same model (a flip in
    a field nobody reads); a file cut anywhere gives ModelFormatError."""
    path, model, X = small_model_file
    raw = path.read_bytes()
    # A copy of X: predicting on the very array the model was fitted on takes the
    # symmetric Gram path (exact unit diagonal), a loaded model's X_fit_ is another array.
    X = X.copy()
    expected = model.predict(X)
    target = tmp_path / "f.kk"
    outcomes = {"refused": 0, "same model": 0}
    for i in range(len(raw)):
        target.write_bytes(raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:])
        try:
            again = kernelkit.load(target)
        except ModelFormatError:
            outcomes["refused"] += 1
            continue
        np.testing.assert_array_equal(again.predict(X), expected)
        outcomes["same model"] += 1
    assert outcomes["refused"] > 0.9 * len(raw)
    for cut in range(len(raw)):
        target.write_bytes(raw[:cut])
        with pytest.raises(ModelFormatError):
            kernelkit.load(target)


def test_member_inflating_beyond_the_metadata_is_refused_before_reading(small_model_file,
                                                                       tmp_path):
    path, _, _ = small_model_file
    members = _members(path)
    # an .npy header declaring 1e12 float64 while the metadata says a short vector
    fake = bytearray(_npy(np.zeros(3)))
    text = fake[10:].decode("latin1").replace("(3,)", "(1000000000000,)")
    crafted = [(n, bytes(fake[:8]) + struct.pack("<H", len(text)) + text.encode("latin1")
                if n == "dual_coef_.npy" else d) for n, d in members]
    assert fake[:6] == b"\x93NUMPY"
    with pytest.raises(ModelFormatError, match="dual_coef_"):
        kernelkit.load(_write(tmp_path / "a.kk", crafted))
    # the metadata itself declaring an enormous array: refused from the sizes alone
    huge = _edit_meta(members, lambda m: m["arrays"]["dual_coef_"].update(shape=[10**12]))
    with pytest.raises(ModelFormatError, match="declares .* bytes of arrays in a file of"):
        kernelkit.load(_write(tmp_path / "b.kk", huge))
    # a member padded far beyond its array
    padded = [(n, d + b"\0" * 100_000 if n == "dual_coef_.npy" else d) for n, d in members]
    with pytest.raises(ModelFormatError, match="cannot hold"):
        kernelkit.load(_write(tmp_path / "c.kk", padded))


def test_compressed_encrypted_and_duplicated_members(small_model_file, tmp_path):
    path, _, _ = small_model_file
    members = _members(path)
    with pytest.raises(ModelFormatError, match="compressed"):
        kernelkit.load(_write(tmp_path / "z.kk", members, zipfile.ZIP_DEFLATED))
    # an unknown compression method (zipfile's NotImplementedError) and the encryption flag
    raw = bytearray((_write(tmp_path / "s.kk", members)).read_bytes())
    for flag_offset, value, match in ((8, 99, "compressed"), (6, 1, "encrypted")):
        bad = bytearray(raw)
        at = bad.find(b"PK\x01\x02")  # the central directory's first record
        while at >= 0:
            bad[at + 2 + flag_offset:at + 4 + flag_offset] = struct.pack("<H", value)
            at = bad.find(b"PK\x01\x02", at + 4)
        (tmp_path / "m.kk").write_bytes(bytes(bad))
        with pytest.raises(ModelFormatError, match=match):
            kernelkit.load(tmp_path / "m.kk")
    with pytest.warns(UserWarning, match="Duplicate name"):
        second_array = _write(tmp_path / "d1.kk", members + [
            ("dual_coef_.npy", _npy(np.full(12, 1e6)))])
    with pytest.raises(ModelFormatError, match="more than once"):
        kernelkit.load(second_array)
    with pytest.warns(UserWarning, match="Duplicate name"):
        second_meta = _write(tmp_path / "d2.kk", [("metadata.json", b"{}")] + members)
    with pytest.raises(ModelFormatError, match="more than once"):
        kernelkit.load(second_meta)
    with pytest.raises(ModelFormatError, match="more than once"):
        kernelkit.persistence.read_metadata(second_meta)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_strict_json_numbers(literal, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    model = KernelOutlierDetector(kernel="rbf").fit(X)
    path = tmp_path / "o.kk"
    kernelkit.save(model, path)
    members = _members(path)
    edited = []
    for name, data in members:
        if name == "metadata.json":
            meta = json.loads(data)
            meta["attributes"]["offset_"] = {"value": "PLACEHOLDER"}
            data = json.dumps(meta).replace('"PLACEHOLDER"', literal).encode()
        edited.append((name, data))
    with pytest.raises(ModelFormatError, match="strict JSON|overflows"):
        kernelkit.load(_write(tmp_path / "nan.kk", edited))


def test_non_finite_class_labels(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.repeat([0, 1, 2], 10)
    path = tmp_path / "svc.kk"
    kernelkit.save(KernelSVC(kernel="rbf").fit(X, y), path)
    text = zipfile.ZipFile(path).read("metadata.json").decode()
    meta = json.loads(text)
    meta["attributes"]["classes_"] = {"numbers": ["A", "B", 2]}
    with pytest.raises(ModelFormatError, match="numbers"):
        kernelkit.load(_write(tmp_path / "c1.kk", _edit_meta(
            _members(path), lambda m: m["attributes"].update(classes_=meta["attributes"]["classes_"]))))
    bad = text.replace('"classes_": {\n   "numbers": [\n    0,\n    1,', '"classes_": {"numbers": [NaN, NaN,')
    assert bad != text
    members = [(n, bad.encode() if n == "metadata.json" else d) for n, d in _members(path)]
    with pytest.raises(ModelFormatError, match="strict JSON"):
        kernelkit.load(_write(tmp_path / "c2.kk", members))


@pytest.mark.parametrize("version", [0, -1, 2**40, 1.5, True, "1"])
def test_format_version_both_ways(small_model_file, tmp_path, version):
    path, _, _ = small_model_file
    edited = _edit_meta(_members(path), lambda m: m.update(format_version=version))
    with pytest.raises(ModelFormatError, match="format"):
        kernelkit.load(_write(tmp_path / "v.kk", edited))


def test_deep_nesting_and_malformed_tags(small_model_file, tmp_path):
    path, _, _ = small_model_file
    members = _members(path)
    deep = "[" * 5000 + "]" * 5000
    crafted = [(n, d.replace(b'"attributes": {', b'"deep": ' + deep.encode() + b', "attributes": {', 1)
                if n == "metadata.json" else d) for n, d in members]
    assert crafted != members
    with pytest.raises(ModelFormatError, match="nests|strict JSON"):
        kernelkit.load(_write(tmp_path / "deep.kk", crafted))
    for tag in ({"dict": 5}, {"list": {"a": 1}}, {"strings": [1, 2]}, {"array": "x"},
                {"value": [1]}, {"bogus": 1}, {"a": 1, "b": 2}, []):
        edited = _edit_meta(members, lambda m: m["params"].update(alpha=tag))
        with pytest.raises(ModelFormatError):
            kernelkit.load(_write(tmp_path / "tag.kk", edited))


def test_save_refuses_deep_metadata_and_names_the_users_path(small_model_file, tmp_path):
    _, model, _ = small_model_file
    deep = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ValueError, match="metadata must be plain JSON"):
        kernelkit.save(model, tmp_path / "m.kk", metadata=deep)
    with pytest.raises(IsADirectoryError, match=str(tmp_path)) as info:
        kernelkit.save(model, tmp_path)
    assert ".tmp" not in str(info.value)
    missing = tmp_path / "no" / "such" / "dir" / "m.kk"
    with pytest.raises(FileNotFoundError, match="cannot write the model file") as info:
        kernelkit.save(model, missing)
    assert str(missing) in str(info.value) and ".tmp" not in str(info.value)


def test_devices_pipes_and_directories_are_refused_without_reading(tmp_path):
    if os.path.exists("/dev/zero"):
        with pytest.raises(ModelFormatError, match="not a regular file"):
            kernelkit.load("/dev/zero")
    with pytest.raises(ModelFormatError, match="directory"):
        kernelkit.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="no model file"):
        kernelkit.load(tmp_path / "absent.kk")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.kk"
        os.mkfifo(fifo)
        result = {}

        def attempt():
            try:
                kernelkit.load(fifo)
            except Exception as exc:  # noqa: BLE001 - the type is what we check
                result["exc"] = exc

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "load() blocked on a named pipe"
        assert isinstance(result.get("exc"), ModelFormatError)
        assert "not a regular file" in str(result["exc"])


# ---- per-estimator ranges of the restored numbers (issue 13) ---------------------------
def _saved(tmp_path, model, name):
    path = tmp_path / f"{name}.kk"
    kernelkit.save(model, path)
    return _members(path)


def _replace_array(members, member, arr):
    return [(n, _npy(arr) if n == member else d) for n, d in members]


@pytest.fixture(scope="module")
def range_models(tmp_path_factory):
    from kernelkit.features import RandomKitchenSinks
    from kernelkit.models import KernelKMeans

    tmp = tmp_path_factory.mktemp("ranges")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.repeat([0, 1, 2], 10)
    return tmp, {
        "svc": _saved(tmp, KernelSVC(kernel="rbf").fit(X, y), "svc"),
        "kmeans": _saved(tmp, KernelKMeans(n_clusters=2, random_state=0).fit(X), "kmeans"),
        "rks": _saved(tmp, RandomKitchenSinks(n_components=5, random_state=0).fit(X), "rks"),
        "outlier": _saved(tmp, KernelOutlierDetector(kernel="rbf").fit(X), "outlier"),
        "ridge": _saved(tmp, KernelRidge(kernel="rbf").fit(X, X[:, 0]), "ridge"),
    }


_SCALAR_CASES = [
    ("rks", "gamma_", -0.5, "gamma_"), ("rks", "gamma_", 0.0, "gamma_"),
    ("kmeans", "inertia_", -1.0, "inertia_"), ("kmeans", "n_iter_", -3, "n_iter_"),
    ("kmeans", "n_iter_", 2.5, "n_iter_"), ("svc", "classes_", {"numbers": [0, 1, 1]}, "classes_"),
    ("svc", "classes_", {"strings": ["a", "b", "a"]}, "classes_"),
    ("outlier", "offset_", "x", "offset_"), ("ridge", "jitter_", -1e-3, "jitter_"),
]


@pytest.mark.parametrize("which, attr, value, name", _SCALAR_CASES)
def test_out_of_range_scalars_are_refused_naming_the_attribute(range_models, which, attr,
                                                               value, name):
    tmp, saved = range_models
    tagged = value if isinstance(value, dict) else {"value": value}
    members = _edit_meta(saved[which], lambda m: m["attributes"].update({attr: tagged}))
    with pytest.raises(ModelFormatError, match=name):
        kernelkit.load(_write(tmp / f"{which}-{attr}.kk", members))


def test_out_of_range_arrays_are_refused_naming_the_attribute(range_models):
    tmp, saved = range_models
    svc = saved["svc"]
    arrays = {n: np.load(io.BytesIO(d)) for n, d in svc if n.endswith(".npy")}
    n_iter = arrays["n_iter_.npy"].copy()
    n_iter[0] = -1
    with pytest.raises(ModelFormatError, match="n_iter_"):
        kernelkit.load(_write(tmp / "a1.kk", _replace_array(svc, "n_iter_.npy", n_iter)))
    support = arrays["support_.npy"].copy()
    support[0] = -5
    with pytest.raises(ModelFormatError, match="support_"):
        kernelkit.load(_write(tmp / "a2.kk", _replace_array(svc, "support_.npy", support)))
    # the untouched files load
    for which, members in saved.items():
        kernelkit.load(_write(tmp / f"ok-{which}.kk", members))
