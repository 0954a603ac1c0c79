"""Crafted pipeline files (issue 23): a declared cap on steps, counts checked against
what they describe before anything is sized from them, and no resources decided by
a file (n_jobs, pre_dispatch, verbose reset at load)."""

import json
import os
import tracemalloc
import zipfile

import numpy as np
import psutil
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.models import KernelRidge, KernelSVC
from kernelkit.persistence.model_files import MAX_STEPS


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X[:, 0] - 2 * X[:, -1] + 0.1 * rng.normal(size=n)


def _rewrite(src, dst, edit, rename=None):
    """Copy a model file, editing its metadata (and renaming members) on the way."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        meta = json.loads(zin.read("metadata.json"))
        edit(meta)
        zout.writestr("metadata.json", json.dumps(meta))
        for name in zin.namelist():
            if name != "metadata.json":
                zout.writestr(rename(name) if rename else name, zin.read(name))
    return dst


def test_real_pipeline_predicts_bit_for_bit(tmp_path):
    X, y = _data()
    model = make_pipeline(StandardScaler(), MinMaxScaler(), StandardScaler(),
                          KernelRidge("rbf(gamma=0.3)", alpha=0.05)).fit(X, y)
    kernelkit.save(model, tmp_path / "m.kk")
    again = kernelkit.load(tmp_path / "m.kk")
    X_new = _data(seed=1)[0]
    assert again.predict(X_new).tobytes() == model.predict(X_new).tobytes()


def _identity_steps_file(tmp_path, n_steps):
    """A real (scaler, ridge) file rewritten to hold n_steps identity scalers."""
    X, y = _data()
    model = make_pipeline(StandardScaler(with_mean=False, with_std=False),
                          KernelRidge("rbf", alpha=0.1)).fit(X, y)
    kernelkit.save(model, tmp_path / "real.kk")

    def edit(meta):
        scaler, ridge = meta["steps"]
        meta["steps"] = [dict(scaler, name=f"s{i}") for i in range(n_steps)] + [ridge]

    path = _rewrite(tmp_path / "real.kk", tmp_path / f"steps{n_steps}.kk", edit,
                    lambda name: name.replace("steps/1/", f"steps/{n_steps}/"))
    return model, X, path


def test_steps_up_to_the_cap_load_and_predict_exactly(tmp_path):
    model, X, path = _identity_steps_file(tmp_path, MAX_STEPS - 1)
    again = kernelkit.load(path)
    assert len(again.steps) == MAX_STEPS
    assert again.predict(X).tobytes() == model.predict(X).tobytes()


@pytest.mark.parametrize("n_steps", [MAX_STEPS, 10_000])
def test_crafted_files_over_the_step_cap_are_refused(tmp_path, n_steps):
    _, _, path = _identity_steps_file(tmp_path, n_steps)
    with pytest.raises(ModelFormatError, match=f"at most {MAX_STEPS}"):
        kernelkit.load(path)


def test_save_refuses_pipelines_over_the_cap(tmp_path):
    X, y = _data()
    steps = [(f"s{i}", StandardScaler()) for i in range(MAX_STEPS)] + \
        [("m", KernelRidge("rbf", alpha=0.1))]
    model = Pipeline(steps).fit(X, y)
    with pytest.raises(ValueError, match=f"at most {MAX_STEPS} steps"):
        kernelkit.save(model, tmp_path / "m.kk")
    assert not (tmp_path / "m.kk").exists()


def _column_model(tmp_path, n_jobs=None):
    X, y = _data()
    ct = ColumnTransformer([("s", StandardScaler(), [0, 1])], remainder="passthrough")
    model = make_pipeline(ct, KernelRidge("rbf", alpha=0.1)).fit(X, y)
    expected = model.predict(X)
    ct.set_params(n_jobs=n_jobs, verbose=n_jobs is not None)  # as a file may say
    kernelkit.save(model, tmp_path / "ct.kk")
    return expected, X, tmp_path / "ct.kk"


def _set_ct(key, value):
    def edit(meta):
        meta["steps"][0]["attributes"][key] = {"value": value}
    return edit


@pytest.mark.parametrize("declared", [10**18, 2**20 + 1, 0, -4])
def test_absurd_column_counts_are_refused_without_allocating(tmp_path, declared):
    _, _, path = _column_model(tmp_path)
    bad = _rewrite(path, tmp_path / "bad.kk", _set_ct("n_features_in_", declared))
    tracemalloc.start()
    try:
        with pytest.raises(ModelFormatError, match="n_features_in_"):
            kernelkit.load(bad)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20


def test_column_counts_must_agree_with_the_next_step(tmp_path):
    # 6 input columns declared, 4 fitted: the remainder passes 4 on, the ridge takes 4
    _, _, path = _column_model(tmp_path)
    bad = _rewrite(path, tmp_path / "bad.kk", _set_ct("n_features_in_", 6))
    with pytest.raises(ModelFormatError, match="takes 4 columns but step"):
        kernelkit.load(bad)


def test_a_file_decides_no_processes_threads_or_output(tmp_path):
    expected, X, path = _column_model(tmp_path, n_jobs=8)
    meta = kernelkit.persistence.read_metadata(path)
    assert meta["steps"][0]["params"]["n_jobs"] == {"value": 8}  # the file says 8
    again = kernelkit.load(path)
    assert again[0].n_jobs is None and again[0].verbose is False
    me = psutil.Process(os.getpid())
    before = {p.pid for p in me.children(recursive=True)}
    np.testing.assert_array_equal(again.predict(X), expected)
    started = {p.pid for p in me.children(recursive=True)} - before
    assert not started


def test_estimator_verbose_is_reset_at_load(tmp_path):
    X, y = _data()
    model = KernelSVC("rbf", C=1.0, verbose=2).fit(X, y > 0)
    kernelkit.save(model, tmp_path / "svc.kk")
    pipe = make_pipeline(StandardScaler(), KernelRidge("rbf", alpha=0.1, verbose=1))
    kernelkit.save(pipe.set_params(verbose=True).fit(X, y), tmp_path / "pipe.kk")
    assert kernelkit.load(tmp_path / "svc.kk").verbose == 0
    again = kernelkit.load(tmp_path / "pipe.kk")
    assert again.verbose is False and again[-1].verbose == 0


def test_malformed_resource_values_are_still_errors(tmp_path):
    _, _, path = _column_model(tmp_path, n_jobs=2)

    def edit(meta):
        meta["steps"][0]["params"]["n_jobs"] = {"value": "all of them"}

    with pytest.raises(ModelFormatError, match="n_jobs"):
        kernelkit.load(_rewrite(path, tmp_path / "bad.kk", edit))
