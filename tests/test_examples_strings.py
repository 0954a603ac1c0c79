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


def test_dna_example_on_a_subset(tmp_path, capsys):
    import matplotlib

    matplotlib.use("Agg")
    module = _load("dna_splice")
    results = module.main(["--quick", "--out", str(tmp_path / "dna.png")])
    acc = results["accuracy"]
    # 1,000 training sequences; the full split reaches 0.965
    assert acc["weighted degree (positional)"] > 0.85
    assert acc["weighted degree (positional)"] > acc["spectrum (position-free)"]
    assert results["confusion"].sum() == 400
    assert "weighted degree" in capsys.readouterr().out
    assert (tmp_path / "dna.png").stat().st_size > 10_000


def test_sms_example_without_and_with_data(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path / "nowhere"))
    module = _load("sms_spam")
    assert module.main(["--out", str(tmp_path / "sms.png")]) is None
    assert "needs the SMS spam collection" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    ham = ["see you at " + str(rng.integers(1, 12)) + " ok" for _ in range(60)]
    spam = ["WIN a FREE prize now! call 0800" + str(rng.integers(100, 999)) for _ in range(20)]
    rows = ["Label\tSMS"] + [f"ham\t{t}" for t in ham] + [f"spam\t{t}" for t in spam]
    (tmp_path / "sms_spam.tsv.gz").write_bytes(gzip.compress("\n".join(rows).encode()))
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path))
    import matplotlib

    matplotlib.use("Agg")
    results = module.main(["--out", str(tmp_path / "sms.png")])
    assert results["accuracy"] == 1.0 and results["f1"] == 1.0
    assert (tmp_path / "sms.png").exists()
