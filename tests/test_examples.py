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


def test_universal_features_example_runs_without_matplotlib(tmp_path):
    """The example prints its table and says there is no picture when matplotlib is
    missing (a stub on the path makes `import matplotlib` fail)."""
    import subprocess
    import sys
    from pathlib import Path

    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "matplotlib.py").write_text("raise ImportError('no matplotlib here')\n")
    example = Path(__file__).resolve().parents[1] / "examples" / "universal_features.py"
    env = dict(__import__("os").environ, PYTHONPATH=str(stub))
    proc = subprocess.run([sys.executable, str(example), "--out", str(tmp_path / "u.png")],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "no picture" in proc.stdout and not (tmp_path / "u.png").exists()
