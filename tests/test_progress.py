"""The progress API every long fit uses: silent, tqdm bar, or plain lines."""

import sys

import pytest

import kernelkit
from kernelkit import _progress
from kernelkit._progress import Progress, is_verbose, progress


def test_quiet_is_silent(capsys):
    with progress(10, "stage", verbose=0) as bar:
        assert type(bar) is Progress
        bar.update(5, gap=0.1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_verbosity_setting_turns_it_on():
    assert not is_verbose(0)
    assert is_verbose(1)
    with kernelkit.config_context(verbosity=1):
        assert is_verbose(0)


def test_plain_lines_without_tqdm(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)   # import fails as if absent
    monkeypatch.setattr(_progress, "_TQDM_HINT_SHOWN", False)
    with progress(100, "SMO", verbose=1, unit="iter") as bar:
        for _ in range(100):
            bar.update(1, gap=0.25)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("kernelkit SMO: started of 100 iter")
    assert "pip install tqdm" in err[0]
    assert err[-1].endswith("(done)") and "100/100 iter" in err[-1] and "gap=0.25" in err[-1]
    assert 5 <= len(err) <= 12                      # about one line per 10%, not one per step


def test_tqdm_bar_when_installed(capsys):
    pytest.importorskip("tqdm")
    with progress(3, "Falkon CG", verbose=1) as bar:
        assert type(bar).__name__ == "_Bar"
        bar.update(3, residual=1e-3)
    assert "kernelkit Falkon CG" in capsys.readouterr().err


@pytest.mark.parametrize("bar_kind", ["lines", "tqdm"])
def test_a_stage_ends_saying_why_it_stopped(capsys, monkeypatch, bar_kind):
    if bar_kind == "lines":
        monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with progress(100, "Falkon CG", verbose=1) as bar:
        for _ in range(29):
            bar.update(1)
        bar.finish("converged: relative residual 1e-09 <= tol 1e-06")
    err = capsys.readouterr().err
    assert "converged: relative residual 1e-09 <= tol 1e-06" in err
    assert "29" in err.strip().splitlines()[-1]
    assert "(done)" not in err  # one ending, the reason


def test_the_bar_opens_at_the_first_step(monkeypatch):
    """Set-up before the first iteration (a preconditioner) does not enter the rate."""
    pytest.importorskip("tqdm")
    opened = []

    class Spy:
        def __init__(self, **kw):
            opened.append(kw)

        def update(self, n):
            pass

        def set_postfix(self, *a, **k):
            pass

        def close(self):
            pass

    bar = _progress._Bar(Spy, 100, "Falkon CG", "it")
    assert opened == []
    bar.update(1)
    assert opened and opened[0]["initial"] == 1 and opened[0]["total"] == 100


def test_falkon_fit_prints_why_it_stopped(capsys, monkeypatch):
    import warnings

    import numpy as np

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = np.sin(X[:, 0])
    kernelkit.KernelRidge(solver="falkon", n_centers=50, alpha=1e-2, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "Falkon CG" in err
    assert "converged: relative residual" in err or "solved directly" in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kernelkit.KernelRidge(solver="falkon", n_centers=50, alpha=1e-6, max_iter=2,
                              verbose=1).fit(X, y)
    assert "stopped at max_iter=2" in capsys.readouterr().err
