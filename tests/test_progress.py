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
