"""Model files of random kitchen sinks: round trips, callables refused, tampering caught."""

import json
import zipfile

import numpy as np
import pytest

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.features import RandomKitchenSinks
from kernelkit.models import KitchenSinksClassifier, KitchenSinksRegressor


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, np.sin(X[:, 0]) + X[:, 1]


@pytest.mark.parametrize("model", [
    KitchenSinksRegressor(30, random_state=0),
    KitchenSinksRegressor(20, basis="bump", fit_intercept=False, random_state=1),
    KitchenSinksClassifier(25, basis="sigmoid", random_state=0),
    KitchenSinksClassifier(25, loss="hinge", sampler="uniform", gamma=0.3, max_iter=5000,
                           random_state=0),
])
@pytest.mark.parametrize("n_targets", [1, 3])
def test_round_trip_predictions_identical(model, n_targets, data, tmp_path):
    X, y = data
    if isinstance(model, KitchenSinksClassifier):
        y = np.digitize(y, [-0.5, 0.5]) if n_targets == 3 else np.where(y > 0, "p", "n")
    elif n_targets == 3:
        y = np.column_stack([y, -y, 2 * y])
    model.fit(X, y)
    kernelkit.save(model, tmp_path / "m.kk")
    again = kernelkit.load(tmp_path / "m.kk")
    assert type(again) is type(model) and not hasattr(again, "kernel_")
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    if isinstance(model, KitchenSinksClassifier):
        np.testing.assert_array_equal(again.classes_, model.classes_)
        np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("basis", ["cosine", "sigmoid", "bump"])
def test_transformer_round_trip(basis, data, tmp_path):
    X, _ = data
    fmap = RandomKitchenSinks(16, basis=basis, dtype="float32", random_state=0).fit(X)
    kernelkit.save(fmap, tmp_path / "f.kk")
    again = kernelkit.load(tmp_path / "f.kk")
    out = again.transform(X)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, fmap.transform(X))


def test_callables_are_refused(data, tmp_path):
    X, y = data
    model = KitchenSinksRegressor(10, basis=lambda X, W: np.sin(X @ W), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="callable"):
        kernelkit.save(model, tmp_path / "c.kk")
    fmap = RandomKitchenSinks(10, sampler=lambda rng, q, d: rng.normal(size=(d, q))).fit(X)
    with pytest.raises(ValueError, match="callable"):
        kernelkit.save(fmap, tmp_path / "c.kk")


def _rewrite(path, edit_meta=None, arrays=None):
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    meta = json.loads(members["metadata.json"])
    if edit_meta:
        edit_meta(meta)
    members["metadata.json"] = json.dumps(meta).encode()
    for name, arr in (arrays or {}).items():
        import io
        buf = io.BytesIO()
        np.lib.format.write_array(buf, arr, allow_pickle=False)
        members[f"{name}.npy"] = buf.getvalue()
        meta["arrays"][name] = {"dtype": arr.dtype.name, "shape": list(arr.shape)}
        members["metadata.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)


def test_tampered_files_are_refused(data, tmp_path):
    X, y = data
    model = KitchenSinksRegressor(12, C=1.0, random_state=0).fit(X, y)
    path = tmp_path / "t.kk"
    kernelkit.save(model, path)
    _rewrite(path, arrays={"coef_": np.full(12, 1.0)})  # outside |beta| <= C / q
    with pytest.raises(ModelFormatError, match="box"):
        kernelkit.load(path)
    kernelkit.save(model, path)
    _rewrite(path, arrays={"random_weights_": np.zeros((2, 12))})
    with pytest.raises(ModelFormatError, match="random_weights_"):
        kernelkit.load(path)
    kernelkit.save(model, path)

    def more_components(meta):
        meta["params"]["n_components"] = {"value": 13}
    _rewrite(path, edit_meta=more_components)
    with pytest.raises(ModelFormatError):
        kernelkit.load(path)
