"""Calibration: measured rates are positive, cached per machine, defaults otherwise."""

import json

import pytest

from kernelkit import calibration
from kernelkit.planning import RATES, plan_ridge


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELKIT_CACHE_DIR", str(tmp_path))
    calibration._memo.clear()
    yield tmp_path
    calibration._memo.clear()


def test_defaults_without_a_cache(cache_dir):
    assert calibration.machine_rates() == RATES


def test_calibrate_save_and_reuse(cache_dir):
    rates = calibration.calibrate()
    assert set(rates) == set(RATES) and all(v > 0 for v in rates.values())
    path = calibration.save_rates(rates)
    assert path.parent == cache_dir
    assert calibration.machine_rates() == pytest.approx(rates)
    # faster rates -> shorter predicted times, proportionally
    slow = plan_ridge(2000, 10, rates={k: v for k, v in RATES.items()})
    fast = plan_ridge(2000, 10, rates={k: 10 * v for k, v in RATES.items()})
    assert fast.candidates[0].seconds == pytest.approx(slow.candidates[0].seconds / 10)


def test_cache_of_another_machine_or_corrupt_is_ignored(cache_dir):
    (cache_dir / "rates.json").write_text(json.dumps({"machine": "elsewhere",
                                                      "rates": {k: 1.0 for k in RATES}}))
    assert calibration.machine_rates() == RATES
    calibration._memo.clear()
    (cache_dir / "rates.json").write_text("{not json")
    assert calibration.machine_rates() == RATES
