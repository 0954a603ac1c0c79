"""Pipelines and feature maps in safe model files: round trips give identical
predictions, files keep format 1 for single estimators, and crafted pipeline
files are refused."""

import json
import zipfile

import numpy as np
import pytest
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.features import ExplicitFeatures, Nystroem, RandomFourierFeatures
from kernelkit.kernels import Spectrum
from kernelkit.models import KernelRidge, KernelSVC


@pytest.fixture(scope="module")
def cpu():
    X, y = load_cpu_act(return_X_y=True)
    return X[:400], y[:400]


def _round_trip(model, tmp_path, name="m.kk"):
    path = tmp_path / name
    kernelkit.save(model, path)
    return kernelkit.load(path), path


@pytest.mark.parametrize("scaler", [StandardScaler(), MinMaxScaler(feature_range=(-1, 1)),
                                    RobustScaler(quantile_range=(10.0, 90.0))])
def test_scaled_kernel_models_round_trip(scaler, cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(scaler, KernelRidge("rbf(gamma=0.05)", alpha=0.1)).fit(X, y)
    again, path = _round_trip(model, tmp_path)
    assert isinstance(again, Pipeline) and [n for n, _ in again.steps] == \
        [n for n, _ in model.steps]
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert kernelkit.persistence.read_metadata(path)["format_version"] == 2


def test_svc_behind_a_scaler_and_nested_pipelines(tmp_path):
    X, y = load_banana(return_X_y=True)
    X, y = X[:300] * 100.0, y[:300]
    inner = make_pipeline(StandardScaler(), "passthrough")
    model = Pipeline([("prep", inner), ("svc", KernelSVC("rbf(gamma=1)"))]).fit(X, y)
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("fmap", [
    RandomFourierFeatures("rbf(gamma=0.1)", n_components=64, random_state=0),
    RandomFourierFeatures("laplacian(gamma=0.1)", n_components=64, variant="paired",
                          random_state=0),
    RandomFourierFeatures("rbf(gamma=0.1)", n_components=64, variant="orthogonal",
                          random_state=0),
    Nystroem("rbf(gamma=0.1)", n_components=30, random_state=0),
    Nystroem("rbf(gamma=0.1)", n_components=30, centers="kmeans++", random_state=0),
    ExplicitFeatures("poly(degree=2)"),
])
def test_feature_maps_alone_and_in_pipelines(fmap, cpu, tmp_path):
    X, y = cpu
    X = StandardScaler().fit_transform(X)
    fitted = fmap.fit(X)
    again, path = _round_trip(fitted, tmp_path)
    np.testing.assert_array_equal(again.transform(X), fitted.transform(X))
    assert kernelkit.persistence.read_metadata(path)["format_version"] == 1
    from sklearn.linear_model import Ridge

    # "form psi, run your favourite linear method": the pipeline saves and predicts alike
    recipe = make_pipeline(type(fmap)(**fmap.get_params()), Ridge()).fit(X, y)
    again, _ = _round_trip(recipe, tmp_path, "recipe.kk")
    np.testing.assert_array_equal(again.predict(X), recipe.predict(X))


def test_nystroem_on_strings_round_trips(tmp_path):
    texts = ["acgtacgt", "ttgacc", "gattaca", "ccgtaa", "acgttg", "gggccc"] * 3
    fmap = Nystroem(Spectrum(k=2), n_components=5, random_state=0).fit(texts)
    again, _ = _round_trip(fmap, tmp_path)
    np.testing.assert_array_equal(again.transform(texts), fmap.transform(texts))


def test_single_estimators_stay_format_1(cpu, tmp_path):
    X, y = cpu
    _, path = _round_trip(KernelRidge("rbf(gamma=0.05)").fit(X, y), tmp_path)
    assert kernelkit.persistence.read_metadata(path)["format_version"] == 1


def test_unfitted_or_unknown_steps_are_refused(cpu, tmp_path):
    X, y = cpu
    with pytest.raises(ValueError, match="not fitted"):
        kernelkit.save(make_pipeline(StandardScaler(), KernelRidge()), tmp_path / "u.kk")
    from sklearn.decomposition import PCA

    with pytest.raises(ValueError, match="cannot save a PCA"):
        kernelkit.save(make_pipeline(PCA(2), KernelRidge()).fit(X, y), tmp_path / "p.kk")


def _edit(path, out, edit, rename=None):
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "metadata.json":
                meta = json.loads(data)
                edit(meta)
                data = json.dumps(meta).encode()
            zout.writestr(rename(info.filename) if rename else info.filename, data)
    return out


def _swap_steps(name):
    a, b = "steps/0/", "steps/1/"
    return b + name[len(a):] if name.startswith(a) else a + name[len(b):] \
        if name.startswith(b) else name


@pytest.mark.parametrize("edit, match", [
    (lambda m: m["steps"].append({"name": "x", "estimator": "PCA", "params": {},
                                  "attributes": {}, "arrays": {}}), "unknown estimator 'PCA'"),
    (lambda m: m["steps"][0].update(name=m["steps"][1]["name"]), "distinct"),
    (lambda m: m["steps"][0].update(name="a__b"), "without '__'"),
    (lambda m: m.update(steps=[]), "non-empty list of steps"),
    (lambda m: m.update(format_version=1), "does not match"),
    (lambda m: m["steps"][0]["arrays"].pop("scale_"), "unexpected contents"),
    (lambda m: m["steps"][0]["arrays"]["scale_"].update(shape=[3]), "scale_"),
    (lambda m: m["steps"][0]["params"].update(with_mean={"value": "yes"}), "with_mean"),
    (lambda m: m["steps"][0].update(steps=[]), "only a Pipeline has steps"),
    (lambda m: m["steps"].insert(0, {"name": "p", "estimator": "passthrough", "x": 1}),
     "passthrough step holds nothing"),
])
def test_crafted_pipeline_files_are_refused(edit, match, cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(StandardScaler(), KernelRidge("rbf(gamma=0.05)")).fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(_edit(path, tmp_path / "bad.kk", edit))


def test_an_estimator_before_the_last_step_is_refused(cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(StandardScaler(), KernelRidge("rbf(gamma=0.05)")).fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    bad = _edit(path, tmp_path / "r.kk", lambda m: m["steps"].reverse(), rename=_swap_steps)
    with pytest.raises(ModelFormatError, match="not a transformer"):
        kernelkit.load(bad)


def test_deeply_nested_pipelines_are_refused(cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(StandardScaler(), KernelRidge())
    for _ in range(5):
        model = Pipeline([("inner", model)])
    model.fit(X, y)
    with pytest.raises(ValueError, match="nested more than"):
        kernelkit.save(model, tmp_path / "deep.kk")


def test_scaler_with_a_non_positive_scale_is_refused(cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(StandardScaler(), KernelRidge()).fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp_path / "z.kk", "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "steps/0/scale_.npy":
                import io

                arr = np.load(io.BytesIO(data))
                arr[0] = 0.0
                buf = io.BytesIO()
                np.save(buf, arr)
                data = buf.getvalue()
            zout.writestr(info.filename, data)
    with pytest.raises(ModelFormatError, match="scale_ must be > 0"):
        kernelkit.load(tmp_path / "z.kk")


@pytest.mark.parametrize("scaler", [StandardScaler(with_mean=False),
                                    StandardScaler(with_std=False),
                                    RobustScaler(with_centering=False)])
def test_scalers_without_some_statistics_round_trip(scaler, cpu, tmp_path):
    X, y = cpu
    model = make_pipeline(scaler, KernelRidge("rbf(gamma=0.05)")).fit(X, y)
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_a_crafted_deep_pipeline_is_refused_at_load(tmp_path):
    node = {"estimator": "Pipeline", "params": {}, "attributes": {}, "arrays": {},
            "steps": [{"name": "p", "estimator": "passthrough"}]}
    for _ in range(6):
        node = {"estimator": "Pipeline", "params": {}, "attributes": {}, "arrays": {},
                "steps": [{"name": "inner", **node}]}
    meta = {"format": "kernelkit-model", "format_version": 2, "kernelkit_version": "0", **node}
    path = tmp_path / "deep.kk"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("metadata.json", json.dumps(meta))
    with pytest.raises(ModelFormatError, match="nested more than"):
        kernelkit.load(path)
