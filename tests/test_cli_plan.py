"""`kernelkit plan` and `kernelkit calibrate`."""

import json

from kernelkit import calibration, config
from kernelkit.cli import main
from kernelkit.planning import plan


def test_plan_table_and_json_agree_with_the_planner(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "_global", {})  # settings read afresh, restored after
    assert main(["plan", "--n", "1e6", "--d", "50", "--loss", "hinge", "--memory", "8GB"]) == 0
    text = capsys.readouterr().out
    assert "kernel_on_the_fly" in text and "exact_dual (SMO)" in text and "choice:" in text
    assert "exceeds the memory budget" in text  # a 1e6 x 1e6 Gram matrix
    assert main(["plan", "--n", "20000", "--d", "784", "--D", "2000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ref = plan(20000, 784, n_features=2000, memory=doc["memory_budget"], include_exact=True)
    assert doc["choice"] == ref.choice
    assert [c["name"] for c in doc["candidates"]] == [c.name for c in ref.candidates]


def test_plan_bad_arguments(capsys):
    assert main(["plan", "--n", "lots", "--d", "3"]) == 2
    assert "--n must be a number" in capsys.readouterr().err
    assert main(["plan", "--n", "10", "--d", "3", "--memory", "big"]) == 2
    assert main(["plan", "--n", "10", "--d", "3", "--loss", "magic"]) == 2


def test_calibrate_writes_the_cache(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "_global", {})  # settings read afresh, restored after
    assert main(["calibrate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (tmp_path / "rates.json").exists() and doc["rates"]["gemm"] > 0
    assert calibration.machine_rates()["gemm"] == doc["rates"]["gemm"]


def test_plan_offers_falkon_for_squared_loss_and_picks_it_at_a_million_points():
    from kernelkit.planning import falkon_centers

    big = plan(1_000_000, 50, loss="squared", memory=8 * 1024**3, include_exact=True)
    names = [c.name for c in big.candidates]
    assert "falkon (Nystroem + CG)" in names
    assert big.choice == "falkon (Nystroem + CG)"
    fk = next(c for c in big.candidates if c.name.startswith("falkon"))
    assert f"M={falkon_centers(1_000_000)}" in fk.note
    # Small problems: exact ridge is cheaper than any approximation's fixed costs.
    small = plan(2000, 10, loss="squared", memory=8 * 1024**3, include_exact=True)
    assert small.choice == "exact_dual (Cholesky)"
    # Falkon is a least-squares solver: not offered for the hinge loss.
    hinge = plan(1_000_000, 50, loss="hinge", memory=8 * 1024**3, include_exact=True)
    assert not any(c.name.startswith("falkon") for c in hinge.candidates)


def test_plan_considers_random_features_by_default(capsys):
    assert main(["plan", "--n", "1e5", "--d", "20", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    feats = [c for c in doc["candidates"] if c["name"].startswith("features")]
    assert feats and all(c["feasible"] for c in feats)
    assert "D=1000" in captured.err
    assert main(["plan", "--n", "1e5", "--d", "20", "--D", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert not any(c["feasible"] for c in doc["candidates"] if c["name"].startswith("features"))


def test_planner_takes_memory_sizes_as_text():
    from kernelkit.planning import plan_ridge

    assert plan(10_000, 10, memory="8GB").problem["n"] == 10_000
    a = plan_ridge(50_000, 10, memory="1GB", n_centers=500)
    b = plan_ridge(50_000, 10, memory=1024**3, n_centers=500)
    assert a.choice == b.choice and a.candidates == b.candidates
