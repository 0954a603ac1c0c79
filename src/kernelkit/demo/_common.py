"""What every demo part shares: settings, timing, result rows and text tables."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["DemoSettings", "timed", "result_row", "table", "fmt_time", "fmt_bytes"]


@dataclass(frozen=True)
class DemoSettings:
    """What every part gets.

    Attributes
    ----------
    quick : bool
        Smaller problems, for tests (a few seconds instead of tens).
    out_dir : pathlib.Path
        Where parts write files (model files).
    log : callable or None
        ``log(message)`` for progress lines; None is silent.
    """

    quick: bool
    out_dir: Path
    log: object = None

    def say(self, message):
        if self.log is not None:
            self.log(message)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def result_row(key, model, kernel, solver, n, fit_time, y_true, y_pred):
    from sklearn.metrics import r2_score

    return {"key": key, "model": model, "kernel": kernel, "solver": solver, "n": int(n),
            "fit_time": None if fit_time is None else float(fit_time),
            "test_rmse": float(np.sqrt(np.mean((y_true - y_pred) ** 2))),
            "r2": float(r2_score(y_true, y_pred))}


def fmt_time(s):
    if s is None:
        return "-"
    return f"{s * 1e3:.0f} ms" if s < 1 else f"{s:.2f} s"


def fmt_bytes(b):
    return f"{b / 1024:.1f} KB" if b < 1024**2 else f"{b / 1024**2:.1f} MB"


def table(rows, columns):
    """Left-aligned text columns, right-aligned numbers; columns = [(title, key, fmt)]."""
    cells = [[fmt(r[key]) for _, key, fmt in columns] for r in rows]
    widths = [max(len(title), *(len(c[i]) for c in cells)) for i, (title, _, _) in
              enumerate(columns)]
    numeric = [fmt is not str for _, _, fmt in columns]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line([title for title, _, _ in columns]), line(["-" * w for w in widths])]
    out += [line(c) for c in cells]
    return out
