"""Hyperparameters without guesswork (issue 20): untuned defaults, tuned models, learned
kernel parameters and the solvers' time across a grid, each side by side with
scikit-learn in one run.

Every part lives in ``benchmarks/_tuning_<part>.py`` and exposes
``run(quick: bool) -> dict`` (it prints its own table and returns its rows).
``python benchmarks/tuning.py [--quick] [--part untuned,tuned,...]`` runs them in order
and writes ``results/tuning.json`` with the machine and the load average.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import write_json  # noqa: E402

PARTS = ("untuned", "tuned", "learned", "grid", "cli", "paths")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke test")
    parser.add_argument("--part", default=",".join(PARTS),
                        help=f"comma-separated subset of {PARTS}")
    args = parser.parse_args()
    payload = {}
    for part in args.part.split(","):
        path = Path(__file__).resolve().parent / f"_tuning_{part}.py"
        if not path.exists():
            print(f"[{part}] not built yet ({path.name} missing)")
            continue
        print(f"\n=== {part} (load average {os.getloadavg()[0]:.2f}) ===")
        module = importlib.import_module(f"_tuning_{part}")
        payload[part] = module.run(args.quick)
    name = "tuning" if args.part == ",".join(PARTS) else "tuning_" + args.part.replace(",", "_")
    write_json(name, payload, quick=args.quick)


if __name__ == "__main__":
    main()
