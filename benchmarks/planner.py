"""How honest is the planner? Predicted against measured fit times on this machine.

The planner (:func:`kernelkit.planning.plan_ridge`) predicts seconds as counted work
divided by this machine's rates. This benchmark measures the rates first
(:func:`kernelkit.calibration.calibrate`, the work of ``kernelkit calibrate``, put in
force for the run only), then fits ``KernelRidge(solver="auto")`` on shapes where each
strategy is chosen and prints predicted seconds, measured seconds and their ratio
(issue 20's target: within 2x). Falkon's rows also print the conjugate-gradient
iterations the model assumes against those the fit took.

Data: Friedman #1 generated (``sklearn.datasets.make_friedman1``, 10 features of
which 5 matter), standardised; the cpu_act table (bundled) for the primal row.

``python benchmarks/planner.py [--quick]``
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import parse_args, print_table, timed, write_json  # noqa: E402


def friedman(n, seed=0):
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=n, n_features=10, noise=1.0, random_state=seed)
    return (X - X.mean(0)) / X.std(0), y


def cases(quick):
    """(label, X, y, estimator) for each strategy the planner may choose."""
    from kernelkit.datasets import load_cpu_act
    from kernelkit.models import KernelRidge

    out = []
    for n in ((1000, 2000) if quick else (2000, 4000, 8000)):
        X, y = friedman(n)
        out.append((f"dual n={n}", X, y, KernelRidge("rbf(gamma=0.1)", alpha=1e-2)))
    Xc, yc = load_cpu_act(return_X_y=True)
    Xc = (Xc - Xc.mean(0)) / Xc.std(0)
    out.append((f"primal poly2 n={len(yc)}", Xc, yc,
                KernelRidge("poly(degree=2, gamma=0.05)", alpha=1e-2)))
    for n in ((30_000,) if quick else (40_000, 160_000)):
        X, y = friedman(n)
        out.append((f"falkon n={n}", X, y,
                    KernelRidge("rbf(gamma=0.1)", alpha=1e-4, random_state=0)))
    return out


def main():
    args = parse_args(__doc__.splitlines()[0])
    import kernelkit
    from kernelkit.calibration import calibrate
    from kernelkit.planning import falkon_iterations

    rates = calibrate()
    print("rates: " + ", ".join(f"{k} {v:.3g}" for k, v in rates.items()))
    rows = []
    with kernelkit.config_context(rates=rates):
        for label, X, y, model in cases(args.quick):
            seconds, fitted = timed(lambda: model.fit(X, y))
            plan = fitted.plan_
            chosen = next(c for c in plan.candidates if c.name == plan.choice)
            row = {"case": label, "choice": plan.choice, "predicted_s": chosen.seconds,
                   "measured_s": seconds, "ratio": seconds / chosen.seconds,
                   "iterations": int(getattr(fitted, "n_iter_", 1))}
            if plan.choice == "falkon":
                row["assumed_iterations"] = falkon_iterations(len(y))
                row["M"] = plan.problem.get("M")
            rows.append(row)
            print(f"{label}: {plan.choice} predicted {chosen.seconds:.3g} s, "
                  f"measured {seconds:.3g} s (x{row['ratio']:.2f}), "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
    print()
    print_table(rows, [("case", "case", "s"), ("choice", "strategy", "s"),
                       ("predicted_s", "predicted s", ".3g"), ("measured_s", "measured s", ".3g"),
                       ("ratio", "measured/predicted", ".2f"), ("iterations", "iters", "d"),
                       ("assumed_iterations", "assumed", "d")])
    write_json("planner", {"rates": rates, "rows": rows}, quick=args.quick)


if __name__ == "__main__":
    main()
