"""Model files of models on objects (sets, trees): the training objects as plain arrays
and strict JSON through their kind's codec, never pickled; predictions identical after
load; inconsistent or crafted object arrays refused with ModelFormatError."""

import io
import json
import zipfile

import numpy as np
import pytest
from sklearn.linear_model import RidgeClassifier
from sklearn.pipeline import make_pipeline

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.features import Nystroem
from kernelkit.kernels import Linear, MeanEmbedding, RBF, SubsetTree
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier, KernelMachine,
                              KernelOutlierDetector, KernelRidge, KernelRidgeClassifier,
                              KernelSVC)

RNG = np.random.default_rng(0)
SETS = [RNG.normal(size=(int(RNG.integers(1, 6)), 2)) + (i % 2) for i in range(24)]
SETS_NEW = [RNG.normal(size=(int(RNG.integers(1, 6)), 2)) for _ in range(5)]
TREES = ["(S (NP a) (VP b))", "(S (NP (D the) (N dog)) (VP barks))",
         "(S (NP a) (VP (V saw) (NP b)))", "(S (NP (D a) (N cat)) (VP (V saw) (NP c)))",
         "(NP (D the) (N apple))", "(S (VP b) (NP a))"] * 3
TREES_NEW = ["(S (NP (D the) (N cat)) (VP runs))", "(S (NP a) (VP (V ran)))", "(X)"]
Y = np.arange(len(SETS)) % 2
YT = np.array([0, 1, 0, 1, 1, 0] * 3)


def _round_trip(model, X_new, tmp_path):
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    again = kernelkit.load(path)
    method = "predict" if hasattr(model, "predict") else "transform"
    np.testing.assert_array_equal(getattr(again, method)(X_new), getattr(model, method)(X_new))
    return path, again


@pytest.mark.parametrize("model", [
    KernelRidge(MeanEmbedding(RBF(gamma=0.5)), alpha=0.1),
    KernelRidge(MeanEmbedding(), alpha=0.1, solver="falkon", n_centers=6),
    KernelSVC(MeanEmbedding(RBF(gamma=0.5), normalize=True)),
    KernelRidgeClassifier(MeanEmbedding(Linear()) + 0.5 * MeanEmbedding(RBF(gamma=1.0))),
    KernelKNeighborsClassifier(kernel=MeanEmbedding(RBF(gamma=0.5)), n_neighbors=3),
    KernelMachine(MeanEmbedding(RBF(gamma=0.5)), alpha=0.5),
])
def test_set_models_round_trip(model, tmp_path):
    target = Y + 0.25 if isinstance(model, (KernelRidge, KernelMachine)) else Y
    model.fit(SETS, target)
    path, again = _round_trip(model, SETS_NEW, tmp_path)
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("metadata.json"))
        names = zf.namelist()
    stored = next(a for a in ("X_fit_", "support_vectors_", "centers_") if a in meta["arrays"])
    spec = meta["arrays"][stored]
    assert spec["objects"] == "set" and set(spec["parts"]) == {"values", "offsets"}
    assert f"{stored}.values.npy" in names and not any(n.endswith(".pkl") for n in names)
    kept = getattr(again, stored)
    assert kept.dtype == object and all(a.dtype == np.float64 and a.ndim == 2 for a in kept)
    assert not hasattr(again, "n_features_in_")


@pytest.mark.parametrize("model", [
    KernelSVC(SubsetTree(decay=0.5), C=10.0),
    KernelRidge(SubsetTree(decay=0.4, normalize=False), alpha=0.1),
    KernelKNeighborsClassifier(kernel=SubsetTree(), n_neighbors=1),
])
def test_tree_models_round_trip(model, tmp_path):
    model.fit(TREES, YT)
    path, again = _round_trip(model, TREES_NEW, tmp_path)
    stored = "support_vectors_" if isinstance(model, KernelSVC) else "X_fit_"
    assert [t.text for t in getattr(again, stored)] == [t.text for t in getattr(model, stored)]


def test_unsupervised_and_pipelines_round_trip(tmp_path):
    km = KernelKMeans(kernel=MeanEmbedding(RBF(gamma=0.5)), n_clusters=2, random_state=0).fit(SETS)
    _round_trip(km, SETS_NEW, tmp_path)
    od = KernelOutlierDetector(kernel=SubsetTree()).fit(TREES)
    _round_trip(od, TREES_NEW, tmp_path)
    ny = Nystroem(SubsetTree(), n_components=5, random_state=0).fit(TREES)
    _round_trip(ny, TREES_NEW, tmp_path)
    pipe = make_pipeline(Nystroem(MeanEmbedding(RBF(gamma=0.5)), n_components=8,
                                  random_state=0), RidgeClassifier()).fit(SETS, Y)
    _round_trip(pipe, SETS_NEW, tmp_path)


# ---- crafted files -------------------------------------------------------------------
def _rewrite(path, out, *, member=None, value=None, meta_edit=None):
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "metadata.json" and meta_edit:
                meta = json.loads(data)
                meta_edit(meta)
                data = json.dumps(meta).encode()
            if member and name == member:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, value, allow_pickle=False)
                data = buf.getvalue()
            zout.writestr(name, data)
    return out


@pytest.fixture(scope="module")
def set_model_file(tmp_path_factory):
    model = KernelRidge(MeanEmbedding(RBF(gamma=0.5)), alpha=0.1).fit(SETS, Y + 0.25)
    path = tmp_path_factory.mktemp("objects") / "sets.kk"
    kernelkit.save(model, path)
    return path


def _offsets_edit(new):
    def edit(meta):
        meta["arrays"]["X_fit_"]["parts"]["offsets"]["shape"] = [len(new)]
    return edit


@pytest.mark.parametrize("case, words", [
    ("offsets_decreasing", "inconsistent"),
    ("empty_set", "inconsistent"),
    ("offsets_beyond_values", "inconsistent"),
    ("unknown_kind", "malformed objects description"),
    ("tree_kind_for_set_kernel", "parts"),
    ("wrong_dtype", "expected a 1-D int64"),
    ("count_disagrees", "inconsistent"),
    ("extra_field", "malformed objects description"),
    ("nan_value", "NaN"),
])
def test_crafted_object_arrays_are_refused(set_model_file, tmp_path, case, words):
    out = tmp_path / "bad.kk"
    with zipfile.ZipFile(set_model_file) as zf:
        meta = json.loads(zf.read("metadata.json"))
        offsets = np.lib.format.read_array(io.BytesIO(zf.read("X_fit_.offsets.npy")))
        values = np.lib.format.read_array(io.BytesIO(zf.read("X_fit_.values.npy")))
    spec = meta["arrays"]["X_fit_"]
    if case == "offsets_decreasing":
        bad = offsets.copy()
        bad[1], bad[2] = bad[2], bad[1]
        _rewrite(set_model_file, out, member="X_fit_.offsets.npy", value=bad)
    elif case == "empty_set":
        bad = offsets.copy()
        bad[2] = bad[1]
        _rewrite(set_model_file, out, member="X_fit_.offsets.npy", value=bad)
    elif case == "offsets_beyond_values":
        bad = offsets.copy()
        bad[-1] += 5
        _rewrite(set_model_file, out, member="X_fit_.offsets.npy", value=bad)
    elif case == "unknown_kind":
        _rewrite(set_model_file, out,
                 meta_edit=lambda m: m["arrays"]["X_fit_"].__setitem__("objects", "blob"))
    elif case == "tree_kind_for_set_kernel":
        _rewrite(set_model_file, out,
                 meta_edit=lambda m: m["arrays"]["X_fit_"].__setitem__("objects", "tree"))
    elif case == "wrong_dtype":
        def edit(m):
            m["arrays"]["X_fit_"]["parts"]["offsets"]["dtype"] = "float64"
        _rewrite(set_model_file, out, member="X_fit_.offsets.npy",
                 value=offsets.astype(np.float64), meta_edit=edit)
    elif case == "count_disagrees":
        _rewrite(set_model_file, out,
                 meta_edit=lambda m: m["arrays"]["X_fit_"].__setitem__("count",
                                                                       spec["count"] + 1))
    elif case == "extra_field":
        _rewrite(set_model_file, out,
                 meta_edit=lambda m: m["arrays"]["X_fit_"].__setitem__("pickle", True))
    elif case == "nan_value":
        bad = values.copy()
        bad[0, 0] = np.nan
        _rewrite(set_model_file, out, member="X_fit_.values.npy", value=bad)
    with pytest.raises(ModelFormatError, match=words):
        kernelkit.load(out)


def test_tree_texts_are_parsed_again_on_load(tmp_path):
    """The stored code points are read back through the tree parser: a tampered text
    (unbalanced brackets) is a ModelFormatError, not a wrong model."""
    model = KernelRidge(SubsetTree(), alpha=0.1).fit(TREES, YT + 0.5)
    path = tmp_path / "trees.kk"
    kernelkit.save(model, path)
    with zipfile.ZipFile(path) as zf:
        codes = np.lib.format.read_array(io.BytesIO(zf.read("X_fit_.codes.npy")))
    bad = codes.copy()
    bad[bad == ord(")")][:1] = ord("x")
    first_close = int(np.flatnonzero(codes == ord(")"))[0])
    bad[first_close] = ord("x")
    _rewrite(path, tmp_path / "bad.kk", member="X_fit_.codes.npy", value=bad)
    with pytest.raises(ModelFormatError, match="unbalanced"):
        kernelkit.load(tmp_path / "bad.kk")
    bad = codes.copy()
    bad[0] = 0xD800
    _rewrite(path, tmp_path / "bad2.kk", member="X_fit_.codes.npy", value=bad)
    with pytest.raises(ModelFormatError, match="Unicode"):
        kernelkit.load(tmp_path / "bad2.kk")
