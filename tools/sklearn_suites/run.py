"""Run scikit-learn's own test files against kernelkit, through thin adapters.

scikit-learn ships its tests in its wheel. This script copies the files named
below into a temporary folder, with a ``conftest.py`` that puts the adapters of
:mod:`adapters` where the files import from (``sklearn.svm.SVC`` is then
kernelkit's KernelSVC behind SVC's signature), keeps only the tests that use an
adapted class, runs them with pytest and counts the outcomes per file. Nothing
of scikit-learn's is copied into this repository.

Usage::

    python tools/sklearn_suites/run.py            # all files, table + JSON
    python tools/sklearn_suites/run.py --show-failures svm/tests/test_svm.py

The JSON (``tools/sklearn_suites/results.json``) lists every selected test with
its outcome and the first line of its error, to sort failures into "missing in
kernelkit" and "by design" (a different algorithm, scikit-learn internals).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FILES = {
    "svm/tests/test_svm.py": ["SVC", "SVR", "OneClassSVM"],
    "svm/tests/test_sparse.py": ["SVC", "SVR", "OneClassSVM"],
    "tests/test_kernel_ridge.py": ["KernelRidge"],
    "tests/test_kernel_approximation.py": ["RBFSampler", "Nystroem"],
    "neighbors/tests/test_neighbors.py": ["KNeighborsClassifier", "KNeighborsRegressor"],
    "cluster/tests/test_k_means.py": ["KMeans"],
}

CONFTEST = '''
import json, re, sys, inspect
pytest_plugins = ["sklearn.conftest"]   # scikit-learn's fixtures (global_random_seed, ...)
sys.path.insert(0, {here!r})
import adapters
MADE = adapters.install()
ADAPTED = tuple(MADE.values())
NAMES = {names!r}
RESULTS = {{}}

def _uses_adapted(item):
    spec = getattr(item, "callspec", None)
    if spec is not None:
        classes = [v for v in spec.params.values() if isinstance(v, type)]
        instances = [v for v in spec.params.values() if hasattr(v, "get_params")]
        if classes or instances:
            return any(issubclass(c, ADAPTED) for c in classes) or \\
                any(isinstance(v, ADAPTED) for v in instances)
    try:
        src = inspect.getsource(item.function)
    except (OSError, TypeError):
        return False
    names = NAMES.get(item.fspath.basename, [])
    return any(re.search(r"(?<![A-Za-z0-9_])" + n + r"\\b", src) for n in names)

def pytest_collection_modifyitems(session, config, items):
    keep = [it for it in items if _uses_adapted(it)]
    config.hook.pytest_deselected(items=[it for it in items if it not in keep])
    items[:] = keep

def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        prev = RESULTS.get(report.nodeid)
        if prev is not None and prev["outcome"] != "passed":
            return
        msg = ""
        if report.outcome != "passed":
            text = str(report.longrepr) if report.longrepr else ""
            errs = [l for l in text.splitlines() if l.startswith("E ")]
            msg = (errs[0] if errs else text.splitlines()[-1] if text else "")[:300]
        outcome = report.outcome if report.when == "call" else (
            "error" if report.outcome == "failed" else report.outcome)
        RESULTS[report.nodeid] = {{"outcome": outcome, "message": msg}}

def pytest_sessionfinish(session):
    with open({out!r}, "w") as f:
        json.dump(RESULTS, f)
'''


def run(files, timeout):
    import sklearn

    root = Path(sklearn.__file__).parent
    summary = {}
    with tempfile.TemporaryDirectory(prefix="kk-sklearn-suites-") as tmp:
        tmp = Path(tmp)
        for rel, names in files.items():
            src = root / rel
            if not src.exists():
                print(f"{rel}: not in this scikit-learn", file=sys.stderr)
                continue
            case = tmp / rel.replace("/", "_").removesuffix(".py")
            case.mkdir()
            dst = case / src.name
            text = src.read_text()
            # relative imports of the test package's helpers -> absolute
            pkg = "sklearn." + str(Path(rel).parent).replace("/", ".")
            text = re.sub(r"^from \.(\w*) import", lambda m: f"from {pkg}{'.' + m.group(1) if m.group(1) else ''} import",
                          text, flags=re.M)
            dst.write_text(text)
            out = case / "outcomes.json"
            (case / "conftest.py").write_text(CONFTEST.format(
                here=str(HERE), names={src.name: names}, out=str(out)))
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x" if False else "-q",
                   "--tb=short", "-W", "ignore", "--rootdir", str(case), str(dst)]
            proc = subprocess.run(cmd, cwd=case, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "PYTHONHASHSEED": "0"})
            seconds = time.perf_counter() - start
            results = json.loads(out.read_text()) if out.exists() else {}
            counts = {}
            for r in results.values():
                counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
            summary[rel] = {"counts": counts, "total": len(results), "seconds": round(seconds, 1),
                            "tests": results}
            if not results:
                summary[rel]["pytest_tail"] = proc.stdout[-2000:] + proc.stderr[-2000:]
            print(f"{rel:45s} passed {counts.get('passed', 0):4d} / {len(results):4d}  "
                  f"(failed {counts.get('failed', 0)}, errors {counts.get('error', 0)}, "
                  f"skipped {counts.get('skipped', 0)}; {seconds:.0f} s)", flush=True)
    return summary


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", help="subset of: " + ", ".join(FILES))
    p.add_argument("--show-failures", action="store_true")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--out", default=str(HERE / "results.json"))
    args = p.parse_args(argv)
    files = {f: FILES[f] for f in args.files} if args.files else FILES
    summary = run(files, args.timeout)
    passed = sum(s["counts"].get("passed", 0) for s in summary.values())
    total = sum(s["total"] for s in summary.values())
    print(f"{'all':45s} passed {passed:4d} / {total:4d}")
    if args.show_failures:
        for rel, s in summary.items():
            for node, r in s["tests"].items():
                if r["outcome"] != "passed":
                    print(f"{r['outcome']:7s} {node}\n        {r['message']}")
    Path(args.out).write_text(json.dumps(summary, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
