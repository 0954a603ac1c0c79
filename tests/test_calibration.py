"""Calibration: measured rates are positive, cached per machine, defaults otherwise."""

import json

import pytest

from kernelkit import calibration, config, config_context, get_config
from kernelkit.planning import RATES, plan_ridge


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "_global", {})  # settings read afresh, restored after
    yield tmp_path


def test_defaults_without_a_cache(cache_dir):
    assert calibration.machine_rates() == RATES


def test_calibrate_save_and_reuse(cache_dir):
    rates = calibration.calibrate()
    assert set(rates) == set(RATES) and all(v > 0 for v in rates.values())
    path = calibration.save_rates(rates)
    assert path.parent == cache_dir
    assert calibration.machine_rates() == pytest.approx(rates)
    # faster rates -> shorter predicted times, the counted work proportionally (the
    # fixed per-fit overhead does not scale with the rates)
    from kernelkit.planning import FIT_OVERHEAD_S
    slow = plan_ridge(2000, 10, rates={k: v for k, v in RATES.items()})
    fast = plan_ridge(2000, 10, rates={k: 10 * v for k, v in RATES.items()})
    assert fast.candidates[0].seconds - FIT_OVERHEAD_S == pytest.approx(
        (slow.candidates[0].seconds - FIT_OVERHEAD_S) / 10)


def test_cache_of_another_machine_or_corrupt_is_ignored(cache_dir):
    (cache_dir / "rates.json").write_text(json.dumps({"machine": "elsewhere",
                                                      "rates": {k: 1.0 for k in RATES}}))
    assert calibration.machine_rates() == RATES
    config.reload_rates()
    (cache_dir / "rates.json").write_text("{not json")
    assert calibration.machine_rates() == RATES
    # this machine's, but measured by an older method (no "method"): ignored too
    (cache_dir / "rates.json").write_text(json.dumps({"machine": config.machine_key(),
                                                      "rates": {k: 1.0 for k in RATES}}))
    config.reload_rates()
    assert calibration.machine_rates() == RATES
    (cache_dir / "rates.json").write_text(json.dumps({"machine": config.machine_key(),
                                                      "method": config.RATES_METHOD,
                                                      "rates": {k: 1.0 for k in RATES}}))
    config.reload_rates()
    assert calibration.machine_rates() == {k: 1.0 for k in RATES}


def test_rates_are_a_visible_setting(cache_dir):
    cfg = get_config()
    assert cfg["rates"] == RATES and "reference machine" in cfg["rates_source"]
    path = calibration.save_rates({k: 2 * v for k, v in RATES.items()})
    cfg = get_config()
    assert cfg["rates"] == {k: 2 * v for k, v in RATES.items()}
    assert str(path) in cfg["rates_source"]
    # the planner's default rates are the ones in force
    ref = plan_ridge(3000, 10, rates=cfg["rates"])
    assert plan_ridge(3000, 10).candidates[0].seconds == ref.candidates[0].seconds
    with config_context(rates={"gemm": 1e9}):
        inner = get_config()
        assert inner["rates"]["gemm"] == 1e9 and inner["rates"]["cholesky"] == 2 * RATES["cholesky"]
        assert inner["rates_source"] == "set by config_context"
        assert plan_ridge(3000, 10).candidates[0].seconds > ref.candidates[0].seconds
    assert get_config()["rates"]["gemm"] == 2 * RATES["gemm"]


@pytest.mark.parametrize("rates, match", [
    ({"flops": 1e9}, "unknown rate 'flops'"), ({"gemm": -1.0}, "positive finite"),
    ({"gemm": float("nan")}, "positive finite"), ({"gemm": True}, "positive finite"),
    ([1e9], "must be a dict"),
])
def test_bad_rates_are_refused(cache_dir, rates, match):
    with pytest.raises(ValueError, match=match):
        with config_context(rates=rates):
            pass  # pragma: no cover


def test_falkon_is_planned_with_iterations_growing_with_n_up_to_max_iter():
    from kernelkit.planning import FALKON_ITERATIONS, falkon_iterations

    assert falkon_iterations(10_000) == FALKON_ITERATIONS
    counts = [falkon_iterations(n) for n in (1_000, 10_000, 40_000, 160_000, 10**6, 10**8)]
    assert counts == sorted(counts) and counts[-1] == 100  # capped at KernelRidge's max_iter
    assert abs(falkon_iterations(160_000) - 91) <= 5  # the measured plateau (planner.py)
    assert falkon_iterations(10**8, max_iter=150) == 150 < falkon_iterations(10**8, max_iter=10**4)
