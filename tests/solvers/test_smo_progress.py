"""SMO reports progress by time when kernel rows are computed on demand (a chunk of
10,000 steps took minutes at n = 30,000: the bar showed 0 it)."""

import sys

import numpy as np

from kernelkit import KernelSVC, config_context
from kernelkit import _progress
from kernelkit.solvers import smo


def test_rows_on_demand_report_between_chunks(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    monkeypatch.setattr(_progress, "PLAIN_EVERY_SECONDS", 0.0)
    monkeypatch.setattr(smo, "REPORT_SECONDS", 0.0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    with config_context(memory="16MB"):  # the 1500 x 1500 Gram matrix is not stored
        model = KernelSVC(verbose=1).fit(X, y)
    assert "rows on demand" in model.plan_.explain() or "False" in model.plan_.explain()
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "SMO:" in ln and " it in " in ln]
    steps = int(np.sum(model.n_iter_))
    assert steps < smo.PROGRESS_CHUNK  # one chunk: reports by chunk alone would be one line
    assert len(lines) >= 5
    counts = [int(ln.split("SMO: ")[1].split(" it")[0]) for ln in lines]
    assert counts == sorted(counts) and counts[-1] == steps
