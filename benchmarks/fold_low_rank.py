"""The k-fold ridge search with and without its low-rank preconditioner, on other tables.

Question: does the low-rank (Nystroem) preconditioner of ``KernelRidgeCV``'s exact
k-fold search (``tuning/low_rank.py``, planned per kernel from a probe of its first
fold) pay off beyond the California grid it was measured on, and do the planner's
predicted CG iterations hold there?

Tables (``../shared/data``, 8 to 21 columns, standardised, target standardised): the
first 6,000 rows of a fixed permutation of Friedman #1 (``564_fried``), house_16H
(``574_house_16H``) and cpu_act (``197_cpu_act``); grid gamma = {0.1, 1, 10} / d x
alpha = {1e-3, 1e-2, 0.1, 1, 10}; ``KFold(5, shuffle=True, random_state=0)``, so
4,800 rows per fold. "without" runs the same search with the probe switched off
(``models._ridge_kfold.low_rank_worth_probing`` made to answer False: no probe, so the
plans hold float32 and float64 factors only, as before the low rank existed), run just
before "with" in one process. Printed: both times, their ratio, the largest relative difference of
the candidates' mean scores, and the plan's predicted and taken iterations per fold.

Run: ``python benchmarks/fold_low_rank.py`` (about 3 minutes) or ``--quick`` (2,000 rows).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import parse_args, print_table, timed, write_json

from kernelkit.datasets import load_shared_table
from kernelkit.models import KernelRidgeCV
import kernelkit.models._ridge_kfold as ridge_kfold
from sklearn.model_selection import KFold

TABLES = ("564_fried", "574_house_16H", "197_cpu_act")
ALPHAS = (1e-3, 1e-2, 0.1, 1.0, 10.0)
GAMMA_FACTORS = (0.1, 1.0, 10.0)


def _rows(name, n):
    X, y, _ = load_shared_table(name)
    perm = np.random.default_rng(0).permutation(len(X))[:n]
    X, y = np.asarray(X, dtype=np.float64)[perm], np.asarray(y, dtype=np.float64)[perm]
    return (X - X.mean(axis=0)) / X.std(axis=0), (y - y.mean()) / y.std()


def _search(X, y, low_rank):
    real = ridge_kfold.low_rank_worth_probing
    if not low_rank:
        ridge_kfold.low_rank_worth_probing = lambda *args, **kwargs: False
    try:
        d = X.shape[1]
        est = KernelRidgeCV("rbf", alphas=list(ALPHAS),
                            param_grid={"gamma": [g / d for g in GAMMA_FACTORS]},
                            cv=KFold(5, shuffle=True, random_state=0), fit_intercept=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # grid-edge notes: not timed text
            return est.fit(X, y)
    finally:
        ridge_kfold.low_rank_worth_probing = real


def main():
    args = parse_args(__doc__.splitlines()[0])
    n = 2000 if args.quick else 6000
    rows = []
    for name in TABLES:
        X, y = _rows(name, n)
        t_without, without = timed(lambda: _search(X, y, False))
        t_with, with_ = timed(lambda: _search(X, y, True))
        a = without.cv_results_["mean_test_score"]
        b = with_.cv_results_["mean_test_score"]
        solves = [c for c in with_.plan_.choices if c.what == "fold solves"][0]
        its = solves.reason.split("; ")
        taken = next((s for s in its if "CG iterations per fold taken" in s), "")
        rows.append({"table": name, "n": n, "d": X.shape[1], "without_s": t_without,
                     "with_s": t_with, "ratio": t_without / t_with,
                     "max_score_rel_diff": float(np.max(np.abs(a - b) / np.abs(a))),
                     "iterations": taken, "plan": solves.value,
                     "loadavg_after": os.getloadavg()})
        print(f"{name}: {solves.value}\n  {taken}", flush=True)
    print_table(rows, [("table", "table", ""), ("without_s", "without s", ".1f"),
                       ("with_s", "with s", ".1f"), ("ratio", "ratio", ".2f"),
                       ("max_score_rel_diff", "score rel diff", ".1e")])
    write_json("fold_low_rank", {"alphas": ALPHAS, "gamma_times_1_over_d": GAMMA_FACTORS,
                                 "rows": rows}, quick=args.quick)


if __name__ == "__main__":
    main()
