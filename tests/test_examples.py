"""The example scripts run from a fresh clone (bundled data only) and write their pictures."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("script, args, expect", [
    ("universal_features.py", ["--basis", "relu"], "q=500"),
    ("approximation_error.py", ["--n", "150"], "Rahimi-Recht"),
])
def test_example_runs(tmp_path, script, args, expect):
    env = dict(os.environ, MPLBACKEND="Agg")
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    out = tmp_path / "picture.png"
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args, "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert expect in proc.stdout
    assert out.stat().st_size > 10_000
