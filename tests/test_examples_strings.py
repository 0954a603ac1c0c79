"""The string-kernel examples run (on small data) and exit cleanly without shared data."""

import gzip
import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dna_example_on_a_subset(monkeypatch, capsys):
    module = _load("dna_splice")
    X, y = module.load_dna_splice(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), size=1400, replace=False)
    monkeypatch.setattr(module, "load_dna_splice", lambda return_X_y: (X[idx], y[idx]))
    acc = module.main()
    assert acc > 0.85  # 400 training sequences; the full split reaches 0.965
    assert "weighted degree" in capsys.readouterr().out


def test_sms_example_without_and_with_data(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path / "nowhere"))
    module = _load("sms_spam")
    assert module.main() is None
    assert "needs the SMS spam collection" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    ham = ["see you at " + str(rng.integers(1, 12)) + " ok" for _ in range(60)]
    spam = ["WIN a FREE prize now! call 0800" + str(rng.integers(100, 999)) for _ in range(20)]
    rows = ["Label\tSMS"] + [f"ham\t{t}" for t in ham] + [f"spam\t{t}" for t in spam]
    (tmp_path / "sms_spam.tsv.gz").write_bytes(gzip.compress("\n".join(rows).encode()))
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path))
    acc, f1 = module.main()
    assert acc == 1.0 and f1 == 1.0
