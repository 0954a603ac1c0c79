"""Model files with sparse training rows: round trips, and hostile files refused.

A sparse attribute is stored as CSR ``data``/``indices``/``indptr`` members
plus its shape; the reader checks every declared size before reading, and
indptr, indices and the kernel before building the matrix.
"""

import io
import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import make_pipeline

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.features import Nystroem
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier, KernelRidge, KernelSVC,
                              KernelSVR)


def _data():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 9))
    A[rng.random(A.shape) < 0.6] = 0.0
    y = A[:, 0] - A[:, 1]
    return A, y, np.digitize(y, [-0.5, 0.5])


MODELS = [
    (KernelSVC(kernel="rbf(gamma=0.2)"), "multi", "support_vectors_"),
    (KernelSVR(kernel="laplacian(gamma=0.2)"), "reg", "support_vectors_"),
    (KernelRidge(kernel="poly(degree=2)"), "reg", "X_fit_"),
    (KernelRidge(kernel="rbf(gamma=0.2)", solver="falkon", n_centers=15, random_state=0),
     "reg", "centers_"),
    (KernelKNeighborsClassifier(kernel="rbf(gamma=0.2)"), "multi", "X_fit_"),
    (KernelKMeans(n_clusters=3, kernel="rbf(gamma=0.2)", random_state=0), None, "X_fit_"),
    (make_pipeline(Nystroem("rbf(gamma=0.2)", n_components=10, random_state=0),
                   KernelRidge("linear")), "reg", "steps/0/components_"),
]


@pytest.mark.parametrize("case", MODELS, ids=lambda c: type(c[0]).__name__ + "-" + c[2])
@pytest.mark.parametrize("kind", [sp.csr_matrix, sp.csr_array], ids=["matrix", "array"])
def test_sparse_training_rows_round_trip(case, kind, tmp_path):
    model, target, attr = case
    A, y, y3 = _data()
    S = kind(A)
    model.fit(S) if target is None else model.fit(S, y if target == "reg" else y3)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    loaded = kernelkit.load(path)
    np.testing.assert_array_equal(loaded.predict(S), model.predict(S))
    np.testing.assert_array_equal(loaded.predict(A), model.predict(A))
    owner = loaded.steps[0][1] if attr.startswith("steps/") else loaded
    stored = getattr(owner, attr.rsplit("/", 1)[-1])
    assert type(stored) is kind
    names = set(zipfile.ZipFile(path).namelist())
    assert {f"{attr}.{p}.npy" for p in ("data", "indices", "indptr")} <= names


@pytest.fixture
def sparse_file(tmp_path):
    A, y, _ = _data()
    model = KernelRidge(kernel="rbf(gamma=0.2)").fit(sp.csr_matrix(A), y)
    path = tmp_path / "sparse.kk"
    kernelkit.save(model, path)
    return path


def _rewrite(path, out, *, meta_edit=None, arrays=None):
    """Copy a model file with its metadata edited and some members replaced."""
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    meta = json.loads(members["metadata.json"])
    if meta_edit:
        meta_edit(meta)
    members["metadata.json"] = json.dumps(meta).encode()
    for name, arr in (arrays or {}).items():
        buf = io.BytesIO()
        np.lib.format.write_array(buf, arr, allow_pickle=False)
        members[name] = buf.getvalue()
        part = name[:-len(".npy")].rsplit(".", 1)[-1]
        meta["arrays"]["X_fit_"]["parts"][part]["shape"] = list(arr.shape)
        members["metadata.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out


def _parts(path):
    with zipfile.ZipFile(path) as zf:
        return {p: np.load(io.BytesIO(zf.read(f"X_fit_.{p}.npy"))) for p in
                ("data", "indices", "indptr")}


def test_hostile_indices_out_of_range(sparse_file, tmp_path):
    indices = _parts(sparse_file)["indices"].copy()
    indices[3] = 9  # n_features is 9: one past the last column
    bad = _rewrite(sparse_file, tmp_path / "b.kk", arrays={"X_fit_.indices.npy": indices})
    with pytest.raises(ModelFormatError, match=r"column indices outside \[0, 9\)"):
        kernelkit.load(bad)
    indices[3] = -1
    bad = _rewrite(sparse_file, tmp_path / "c.kk", arrays={"X_fit_.indices.npy": indices})
    with pytest.raises(ModelFormatError, match="column indices outside"):
        kernelkit.load(bad)


def test_hostile_indptr_not_monotone(sparse_file, tmp_path):
    indptr = _parts(sparse_file)["indptr"].copy()
    indptr[5], indptr[6] = indptr[6], indptr[5] - 1
    bad = _rewrite(sparse_file, tmp_path / "b.kk", arrays={"X_fit_.indptr.npy": indptr})
    with pytest.raises(ModelFormatError, match="indptr must rise monotonically"):
        kernelkit.load(bad)


def test_hostile_unsorted_or_repeated_indices(sparse_file, tmp_path):
    parts = _parts(sparse_file)
    indices, indptr = parts["indices"].copy(), parts["indptr"]
    row = int(np.flatnonzero(np.diff(indptr) >= 2)[0])
    a = indptr[row]
    indices[a + 1] = indices[a]
    bad = _rewrite(sparse_file, tmp_path / "b.kk", arrays={"X_fit_.indices.npy": indices})
    with pytest.raises(ModelFormatError, match="increase strictly within each row"):
        kernelkit.load(bad)


def test_hostile_declared_sizes(sparse_file, tmp_path):
    def huge(meta):
        meta["arrays"]["X_fit_"]["shape"][0] = 10 ** 12  # indptr would be 8 TB
        meta["arrays"]["X_fit_"]["parts"]["indptr"]["shape"] = [10 ** 12 + 1]

    with pytest.raises(ModelFormatError, match="declares .* bytes of arrays in a file of"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "b.kk", meta_edit=huge))

    def mismatch(meta):
        meta["arrays"]["X_fit_"]["parts"]["data"]["shape"] = [1]

    with pytest.raises(ModelFormatError, match="data and indices differ"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "c.kk", meta_edit=mismatch))

    def wrong_rows(meta):
        meta["arrays"]["X_fit_"]["shape"][0] += 1

    with pytest.raises(ModelFormatError, match="indptr has shape"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "d.kk", meta_edit=wrong_rows))

    def wrong_dtype(meta):
        meta["arrays"]["X_fit_"]["parts"]["indices"]["dtype"] = "float64"

    with pytest.raises(ModelFormatError, match="expected a 1-D int64 array"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "e.kk", meta_edit=wrong_dtype))

    def extra_key(meta):
        meta["arrays"]["X_fit_"]["format"] = "coo"

    with pytest.raises(ModelFormatError, match="malformed sparse description"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "f.kk", meta_edit=extra_key))


def test_hostile_sparse_where_no_sparse_may_be(sparse_file, tmp_path):
    def sparse_dual(meta):
        meta["arrays"]["dual_coef_"] = meta["arrays"]["X_fit_"]

    with pytest.raises(ModelFormatError, match="only .* may be sparse"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "b.kk", meta_edit=sparse_dual))

    def kronecker(meta):
        meta["attributes"]["kernel_"] = {"kernel": {"kernel": "KroneckerDelta", "params": {}}}
        meta["params"]["kernel"] = {"value": "kronecker"}

    with pytest.raises(ModelFormatError, match="does not take sparse input"):
        kernelkit.load(_rewrite(sparse_file, tmp_path / "c.kk", meta_edit=kronecker))


def test_sparse_attribute_outside_the_training_rows_cannot_be_saved(tmp_path):
    A, y, _ = _data()
    model = KernelRidge(kernel="rbf(gamma=0.2)").fit(A, y)
    model.dual_coef_ = sp.csr_matrix(model.dual_coef_[:, None])
    with pytest.raises(ValueError, match="only stored for the training rows"):
        kernelkit.save(model, tmp_path / "m.kk")
