"""Model files of string-kernel models: strings stored as fixed-width unicode, never pickled."""

import gzip
import io
import json
import zipfile

import numpy as np
import pytest

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.datasets import load_sms_spam
from kernelkit.kernels import Spectrum, Subsequence, WeightedDegree
from kernelkit.models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelRidge, KernelRidgeCV, KernelSVC)

X = ["acgtac", "ggtaca", "ttagca", "acgtta", "gatcga", "cgatcg", "aaccgg", "tgcatg"] * 2
Y = np.array([0, 1, 0, 1, 1, 0, 1, 0] * 2)
X_NEW = ["acgggt", "tttaca", "gatc", "cgcgcgta"]


@pytest.mark.parametrize("model, target", [
    (KernelRidge(Spectrum(k=2) + 0.5 * Subsequence(p=2, decay=0.7), alpha=0.1), "real"),
    (KernelRidgeCV("spectrum(k=2)", alphas=[0.1, 1.0]), "real"),
    (KernelSVC(Subsequence(p=3, decay=0.5, all_lengths=True)), "labels"),
    (KernelSVC(WeightedDegree(degree=2), multiclass="ovr"), "three"),
    (KernelMachine("ssk(2, 0.6)", alpha=0.5), "real"),
    (KernelMachineClassifier(Spectrum(k=3), loss="logistic", solver="newton"), "labels"),
    (KernelLogisticRegression(Spectrum(k=1, normalize=False)), "three"),
])
def test_string_models_round_trip(model, target, tmp_path):
    y = {"real": Y + 0.25, "labels": np.where(Y == 1, "yes", "no"),
         "three": np.arange(len(Y)) % 8 % 3}[target]  # duplicates share labels
    model.fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    again = kernelkit.load(path)
    np.testing.assert_array_equal(again.predict(X_NEW), model.predict(X_NEW))
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("metadata.json"))
        strings = "support_vectors_" if isinstance(model, KernelSVC) else "X_fit_"
        assert meta["arrays"][strings]["dtype"].startswith("<U")
        arr = np.lib.format.read_array(io.BytesIO(zf.read(f"{strings}.npy")), allow_pickle=False)
    assert arr.dtype.kind == "U" and arr.ndim == 1
    assert set(arr) <= set(X)
    assert not hasattr(again, "n_features_in_")


def _rewrite(path, out, *, array=None, value=None, meta_edit=None):
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "metadata.json" and meta_edit:
                meta = json.loads(data)
                meta_edit(meta)
                data = json.dumps(meta).encode()
            if array and name == f"{array}.npy":
                buf = io.BytesIO()
                np.lib.format.write_array(buf, value, allow_pickle=True)
                data = buf.getvalue()
            zout.writestr(name, data)


def test_object_arrays_and_mismatched_strings_are_refused(tmp_path):
    model = KernelRidge(Spectrum(k=2)).fit(X, Y.astype(float))
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    n = len(X)
    # an object array (a pickle inside the .npy) is never read
    bad = tmp_path / "object.kk"
    _rewrite(path, bad, array="X_fit_", value=np.array(X, dtype=object),
             meta_edit=lambda m: m["arrays"]["X_fit_"].update(dtype="object"))
    with pytest.raises(ModelFormatError, match="malformed description"):
        kernelkit.load(bad)
    bad2 = tmp_path / "object2.kk"  # the metadata still says <U6: the pickle is refused
    _rewrite(path, bad2, array="X_fit_", value=np.array(X, dtype=object))
    with pytest.raises(ModelFormatError, match="X_fit_ is corrupt|X_fit_ has dtype|X_fit_: member of .* cannot hold"):
        kernelkit.load(bad2)
    # numbers where the string kernel needs strings
    bad3 = tmp_path / "numbers.kk"
    _rewrite(path, bad3, array="X_fit_", value=np.zeros(n),
             meta_edit=lambda m: m["arrays"]["X_fit_"].update(dtype="float64"))
    with pytest.raises(ModelFormatError, match="X_fit_ .* strings"):
        kernelkit.load(bad3)
    # strings with a vector kernel
    bad4 = tmp_path / "vector.kk"
    _rewrite(path, bad4, meta_edit=lambda m: m["attributes"].update(
        kernel_={"kernel": {"kernel": "RBF", "params": {"gamma": 1.0}}}, n_features_in_={
            "value": 1}))
    with pytest.raises(ModelFormatError, match="X_fit_"):
        kernelkit.load(bad4)


def test_saving_an_object_array_is_refused(tmp_path):
    model = KernelRidge(Spectrum(k=2)).fit(X, Y.astype(float))
    model.X_fit_ = np.array(X, dtype=object)
    with pytest.raises(ValueError, match="object array"):
        kernelkit.save(model, tmp_path / "m.kk")


def test_load_sms_spam_from_a_shared_directory(tmp_path, monkeypatch):
    rows = ["Label\tSMS", "ham\tsee you at 5\x0cok", "spam\tWIN a prize!\tnow", "ham\t"]
    (tmp_path / "sms_spam.tsv.gz").write_bytes(gzip.compress("\n".join(rows).encode()))
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path))
    X_, y_ = load_sms_spam(return_X_y=True)
    assert X_.dtype.kind == "U"
    assert X_.tolist() == ["see you at 5\x0cok", "WIN a prize!\tnow", ""]
    assert y_.tolist() == ["ham", "spam", "ham"]
    ds = load_sms_spam()
    assert ds.target_name == "Label" and len(ds.data) == 3
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="KERNELKIT_SHARED_DATA"):
        load_sms_spam()
