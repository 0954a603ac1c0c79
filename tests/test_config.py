"""Settings: memory sizes, config_context nesting and restoring, environment variable."""

import threading

import pytest

import kernelkit
from kernelkit import config
from kernelkit.config import config_context, get_config, parse_memory, set_config

KB, MB, GB, TB = 1024, 1024**2, 1024**3, 1024**4


@pytest.fixture
def fresh_global(monkeypatch):
    """A private copy of the global settings, restored after the test."""
    monkeypatch.setattr(config, "_global", {})
    return config


@pytest.mark.parametrize("value, expected", [
    ("2GB", 2 * GB), ("512MB", 512 * MB), ("512 MiB", 512 * MB), ("1.5GB", int(1.5 * GB)),
    ("2gb", 2 * GB), ("10K", 10 * KB), ("10kb", 10 * KB), ("3T", 3 * TB), ("1TiB", TB),
    ("100", 100), ("100B", 100), (" 64 MB ", 64 * MB), ("1e9", 10**9), ("2e3KB", 2000 * KB),
    (1073741824, GB), (1e9, 10**9), (".5GB", GB // 2),
])
def test_parse_memory(value, expected):
    assert parse_memory(value) == expected
    assert isinstance(parse_memory(value), int)


@pytest.mark.parametrize("value", [
    "", "GB", "2XB", "-1GB", "2 G B", "two GB", "2.GB", "1e999", 0, -5, float("nan"),
    float("inf"), None, True, [1], "0MB",
])
def test_parse_memory_errors(value):
    with pytest.raises(ValueError):
        parse_memory(value)


@pytest.mark.parametrize("value", [0.5, "0.4B"])
def test_parse_memory_never_returns_zero(value):
    # "Raises ValueError if the value ... is not positive": a size that rounds to 0 bytes
    with pytest.raises(ValueError):
        parse_memory(value)


def test_defaults(fresh_global):
    cfg = get_config()
    assert set(cfg) == {"memory", "dtype", "verbosity", "rates", "rates_source"}
    assert cfg["dtype"] == "float64" and cfg["verbosity"] == 0
    assert cfg["memory"] >= 256 * MB
    cfg["dtype"] = "float32"  # a copy
    assert get_config()["dtype"] == "float64"


def test_config_context_nesting_and_restore(fresh_global):
    before = get_config()
    with config_context(memory="64MB"):
        assert get_config()["memory"] == 64 * MB
        with config_context(dtype="float32"):
            assert get_config()["memory"] == 64 * MB
            assert get_config()["dtype"] == "float32"
            with config_context(memory="32MB", verbosity=1):
                inner = get_config()
                assert (inner["memory"], inner["dtype"], inner["verbosity"]) == (32 * MB, "float32", 1)
            assert get_config()["memory"] == 64 * MB
        assert get_config()["dtype"] == "float64"
    assert get_config() == before


def test_config_context_restores_on_exception(fresh_global):
    before = get_config()
    with pytest.raises(RuntimeError):
        with config_context(memory="64MB", dtype="float32"):
            raise RuntimeError("boom")
    assert get_config() == before


def test_config_context_invalid_leaves_settings(fresh_global):
    before = get_config()
    with pytest.raises(ValueError):
        with config_context(memory="64MB", dtype="float16"):
            pass  # pragma: no cover
    assert get_config() == before


def test_config_context_is_local_to_thread(fresh_global):
    seen = {}
    with config_context(memory="64MB"):
        t = threading.Thread(target=lambda: seen.update(get_config()))
        t.start()
        t.join()
    assert seen["memory"] == get_config()["memory"]


def test_set_config(fresh_global):
    set_config(memory="100MB")
    assert get_config()["memory"] == 100 * MB
    set_config(dtype="float32")
    cfg = get_config()
    assert (cfg["memory"], cfg["dtype"], cfg["verbosity"]) == (100 * MB, "float32", 0)
    with config_context(memory="20MB"):
        assert get_config()["memory"] == 20 * MB
    assert get_config()["memory"] == 100 * MB
    set_config()  # None leaves everything
    assert get_config()["dtype"] == "float32"


@pytest.mark.parametrize("kwargs, match", [
    ({"memory": "15MB"}, "at least 16MB"), ({"memory": "lots"}, "memory size"),
    ({"dtype": "float16"}, "dtype"), ({"dtype": "half"}, "dtype"),
    ({"verbosity": -1}, "verbosity"), ({"verbosity": True}, "verbosity"),
    ({"verbosity": 1.0}, "verbosity"),
])
def test_invalid_settings(fresh_global, kwargs, match):
    with pytest.raises(ValueError, match=match):
        set_config(**kwargs)
    with pytest.raises(ValueError, match=match):
        with config_context(**kwargs):
            pass  # pragma: no cover


def test_unknown_setting():
    with pytest.raises(TypeError):
        set_config(threads=2)
    with pytest.raises(ValueError, match="unknown kernelkit setting"):
        config._validated(threads=2)


def test_environment_variable(fresh_global, monkeypatch):
    monkeypatch.setenv("KERNELKIT_MEMORY", "300MB")
    assert get_config()["memory"] == 300 * MB
    # read once, then cached
    monkeypatch.setenv("KERNELKIT_MEMORY", "400MB")
    assert get_config()["memory"] == 300 * MB
    monkeypatch.setattr(config, "_global", {})
    assert get_config()["memory"] == 400 * MB
    monkeypatch.setattr(config, "_global", {})
    monkeypatch.setenv("KERNELKIT_MEMORY", "1073741824")
    assert get_config()["memory"] == GB


def test_environment_variable_invalid(fresh_global, monkeypatch):
    monkeypatch.setenv("KERNELKIT_MEMORY", "a lot")
    with pytest.raises(ValueError, match="KERNELKIT_MEMORY"):
        get_config()


def test_environment_variable_unset(fresh_global, monkeypatch):
    monkeypatch.delenv("KERNELKIT_MEMORY", raising=False)
    assert get_config()["memory"] >= 256 * MB


def test_public_names():
    assert kernelkit.config_context is config_context
    assert kernelkit.get_config is get_config and kernelkit.set_config is set_config


@pytest.mark.parametrize("policy, inputs, expected", [
    ("float64", ["f4"], "float64"),  # the default keeps float64 matrices
    ("float32", ["f4"], "float32"),
    ("float32", ["f4", "f4"], "float32"),
    ("float32", ["f4", "f8"], "float64"),  # every input must be float32
    ("float32", ["f8"], "float64"),
    ("float32", ["list"], "float64"),  # strings and objects have no float32 to keep
])
def test_matrix_dtype_is_the_dtype_policy(policy, inputs, expected):
    import numpy as np

    arrays = [["a", "b"] if kind == "list" else np.zeros((2, 2), dtype=kind) for kind in inputs]
    with config_context(dtype=policy):
        assert np.dtype(config.matrix_dtype(*arrays)) == np.dtype(expected)


def test_gram_follows_the_policy():
    import numpy as np

    from kernelkit.gram import gram

    X = np.random.default_rng(0).normal(size=(5, 2)).astype(np.float32)
    for policy in ("float64", "float32"):
        with config_context(dtype=policy):
            assert gram("rbf", X).dtype == np.dtype(policy)
