"""kernelkit.gram shows progress over its row blocks (issue 12), through the one
progress API, and only when asked and when there is more than one block."""

import numpy as np

import kernelkit
from kernelkit import _progress


def _no_tqdm(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def _small_blocks(monkeypatch, rows=100):
    import kernelkit.kernels.base as base

    monkeypatch.setattr(base, "rows_per_block", lambda m, *a, **k: rows)


def test_gram_progress_over_blocks(monkeypatch, capsys):
    _no_tqdm(monkeypatch)
    _small_blocks(monkeypatch)
    X = np.random.default_rng(0).normal(size=(600, 3))
    expected = kernelkit.gram("rbf(gamma=0.5)", X)
    K = kernelkit.gram("rbf(gamma=0.5)", X, verbose=1)  # six blocks of rows
    np.testing.assert_array_equal(K, expected)
    err = capsys.readouterr().err
    assert "Gram blocks: started of 600 rows" in err and "600/600 rows" in err
    assert "(done)" in err


def test_gram_is_silent_by_default_and_for_one_block(monkeypatch, capsys):
    _no_tqdm(monkeypatch)
    _small_blocks(monkeypatch)
    X = np.random.default_rng(0).normal(size=(300, 3))
    kernelkit.gram("rbf", X)
    kernelkit.gram("rbf", X[:20], verbose=1)  # one block: nothing to follow
    assert capsys.readouterr().err == ""
    with kernelkit.config_context(verbosity=1):
        kernelkit.gram("rbf", X, X[:50])
    assert "Gram blocks" in capsys.readouterr().err
    assert _progress.is_verbose(0) is False
