"""Timing, table and JSON helpers shared by the benchmarks (see BENCHMARKS.md).

Every benchmark runs the peer and kernelkit in the same process, alternating
(peer, kernelkit, peer, kernelkit, ...), and quotes the median of the repeats.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
# Benchmarks use the full shared data files; default to ../shared/data next to the repo
# so that `python benchmarks/<name>.py` works from any directory.
os.environ.setdefault("KERNELKIT_SHARED_DATA",
                      str(Path(__file__).resolve().parents[2] / "shared" / "data"))


def parse_args(description):
    """The common command line: ``--quick`` (a small version that finishes in seconds)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, for a smoke test; results go to <name>_quick.json")
    return parser.parse_args()


def timed(fn):
    """(seconds, result) of one call of ``fn()``; collects garbage first so the
    previous result's memory is returned before the clock starts."""
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def alternate(fns, repeats):
    """Run each callable of the dict ``fns`` once per round, in order, ``repeats`` rounds.

    Returns ``{name: {"median": s, "times": [...], "result": last result}}``.
    Results of earlier rounds are dropped before the call that replaces them,
    so at most one result per callable is alive.
    """
    out = {name: {"times": [], "result": None} for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            out[name]["result"] = None
            seconds, result = timed(fn)
            out[name]["times"].append(seconds)
            out[name]["result"] = result
    for rec in out.values():
        rec["median"] = statistics.median(rec["times"])
    return out


def peak_rss_gb():
    """Peak resident set size of this process so far, in GB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def machine():
    """What the figures were measured with."""
    import numpy
    import scipy
    import sklearn
    import numba
    from threadpoolctl import threadpool_info

    blas = [{k: d.get(k) for k in ("internal_api", "version", "num_threads")}
            for d in threadpool_info() if d.get("user_api") == "blas"]
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "n_cpus": os.cpu_count(), "python": sys.version.split()[0],
            "numpy": numpy.__version__, "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__, "numba": numba.__version__, "blas": blas,
            # The machine is shared: a load average above the core count means other
            # processes competed for the cores during the run (figures are then noisier).
            "loadavg_1_5_15_at_end": os.getloadavg()}


def fmt(x, spec=".3g"):
    return "-" if x is None else format(x, spec)


def print_table(rows, columns):
    """Print ``rows`` (dicts) as an aligned text table of ``columns`` = [(key, title, spec)]."""
    cells = [[title for _, title, _ in columns]]
    for row in rows:
        cells.append([fmt(row.get(key), spec) if not isinstance(row.get(key), str)
                      else row[key] for key, _, spec in columns])
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    for k, r in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
        if k == 0:
            print("  ".join("-" * w for w in widths))
    sys.stdout.flush()


def write_json(name, payload, quick=False):
    """Write ``benchmarks/results/<name>.json`` (``<name>_quick.json`` for --quick runs)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}{'_quick' if quick else ''}.json"
    payload = dict(payload, machine=machine(),
                   date=time.strftime("%Y-%m-%d %H:%M:%S %Z"), quick=quick)
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {path}")
    return path
