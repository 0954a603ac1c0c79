"""``kernelkit fit`` against scikit-learn's ``GridSearchCV`` on the same split and grid.

For each data set one 80/20 split (seed 0). ``kernelkit fit train.csv --holdout 0``
searches gamma with alpha (exact leave-one-out) or C (``--model svm``: 3-fold
stratified cross-validation) on the training rows and refits on all of them;
``kernelkit predict`` scores the test rows. The peer is ``GridSearchCV`` over the same
gamma grid (scale/16 .. 4 scale, scale = 1/(n_features X.var()) of the standardised
training columns) and the same alpha or C grid, 3 folds (shuffled, seed 0), refitted
on all training rows: ``KernelRidge`` (scikit-learn's, behind a ``StandardScaler`` and
with the target centred, as the command does) or ``SVC``. Both are timed end to end
(the command: fit, not predict; the peer: the search and its refit).

Data: diabetes and breast cancer (bundled with scikit-learn), fried (Friedman's
function, ``564_fried`` of the shared data) on a random 10,000 rows; ``--quick``: fried
on 1,500 rows.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

import numpy as np

SEED = 0


def _data(quick):
    from sklearn.datasets import load_breast_cancer, load_diabetes

    from kernelkit.datasets import load_shared_table

    sets = []
    X, y = load_diabetes(return_X_y=True)
    sets.append(("diabetes", X, y, "regress"))
    X, y = load_breast_cancer(return_X_y=True)
    sets.append(("breast cancer", X, y, "classify"))
    X, y, _ = load_shared_table("564_fried")
    rows = np.random.default_rng(SEED).choice(len(y), 1500 if quick else 10000, replace=False)
    sets.append(("fried 1.5k" if quick else "fried 10k", X[rows], y[rows], "regress"))
    return sets


def _split(n):
    order = np.random.default_rng(SEED).permutation(n)
    n_test = int(round(0.2 * n))
    return order[n_test:], order[:n_test]


def _write(path, X, y, integer):
    names = [f"x{j}" for j in range(X.shape[1])]
    with open(path, "w") as fh:
        fh.write(",".join(names + ["y"]) + "\n")
        for row, t in zip(X, y):
            label = str(int(t)) if integer else repr(float(t))
            fh.write(",".join(repr(float(v)) for v in row) + "," + label + "\n")


def _score(task, y, pred):
    if task == "classify":
        return float(np.mean(np.asarray(pred) == np.asarray(y)))
    return float(np.sqrt(np.mean((np.asarray(pred, dtype=np.float64) - y) ** 2)))


def _command_line(X, y, train, test, task, extra):
    """Seconds of ``kernelkit fit`` and the held-out score of ``kernelkit predict``."""
    from kernelkit.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _write(tmp / "train.csv", X[train], y[train], task == "classify")
        _write(tmp / "test.csv", X[test], y[test], task == "classify")
        argv = ["fit", str(tmp / "train.csv"), "--target", "y", "--holdout", "0",
                "--out", str(tmp / "m.kk"), "--json"] + extra
        start = time.perf_counter()
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            assert main(argv) == 0, argv  # the choices (stderr) stay on the screen
        seconds = time.perf_counter() - start
        with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink), \
                contextlib.redirect_stdout(sink):
            assert main(["predict", str(tmp / "m.kk"), str(tmp / "test.csv"),
                         "--out", str(tmp / "p.csv")]) == 0
        cells = (tmp / "p.csv").read_text().split()[1:]
    pred = [int(c) for c in cells] if task == "classify" else [float(c) for c in cells]
    return seconds, _score(task, y[test], pred)


def _grid_search(X, y, train, test, task, model):
    """Seconds and held-out score of GridSearchCV over the command's grid."""
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from kernelkit.cli.search import ALPHA_GRID, C_GRID, GAMMA_FACTORS

    Xs = StandardScaler().fit_transform(X[train])
    gammas = [f / (Xs.shape[1] * Xs.var()) for f in GAMMA_FACTORS]
    start = time.perf_counter()
    if model == "svm":
        pipe = make_pipeline(StandardScaler(), SVC(kernel="rbf"))
        grid = {"svc__gamma": gammas, "svc__C": list(C_GRID)}
        cv = StratifiedKFold(3, shuffle=True, random_state=SEED)
        search = GridSearchCV(pipe, grid, scoring="accuracy", cv=cv)
    else:
        pipe = TransformedTargetRegressor(  # the target centred, as the command does
            make_pipeline(StandardScaler(), KernelRidge(kernel="rbf")),
            transformer=StandardScaler(with_std=False))
        grid = {"regressor__kernelridge__gamma": gammas,
                "regressor__kernelridge__alpha": list(ALPHA_GRID)}
        # squared error of the 0/1 target for a classifier too: the criterion of the
        # command's ridge classifier (leave-one-out squared error of the +-1 coding)
        splitter = StratifiedKFold if task == "classify" else KFold
        search = GridSearchCV(pipe, grid, scoring="neg_mean_squared_error",
                              cv=splitter(3, shuffle=True, random_state=SEED))
    search.fit(X[train], y[train])
    seconds = time.perf_counter() - start
    pred = search.predict(X[test])
    if task == "classify" and model != "svm":
        pred = np.where(pred > 0.5, 1, 0)  # the 0/1 target regressed (peer of ridge)
    return seconds, _score(task, y[test], pred), search.best_params_


def run(quick):
    rows = []
    print(f"{'data':<14} {'model':<9} {'metric':<9} {'kernelkit fit':>14} {'GridSearchCV':>13} "
          f"{'score ratio':>11} {'fit s':>8} {'grid s':>8} {'time ratio':>10}")
    for name, X, y, task in _data(quick):
        train, test = _split(len(y))
        models = ["ridge", "svm"] if task == "classify" else ["ridge"]
        for model in models:
            extra = [] if model == "ridge" else ["--model", model]
            cli_s, cli_score = _command_line(X, y, train, test, task, extra)
            peer_s, peer_score, best = _grid_search(X, y, train, test, task, model)
            metric = "accuracy" if task == "classify" else "RMSE"
            peer = ("SVC" if model == "svm" else "KernelRidge")
            row = {"data": name, "n_train": int(len(train)), "n_test": int(len(test)),
                   "model": model, "peer": f"GridSearchCV({peer})", "metric": metric,
                   "cli_score": cli_score, "grid_search_score": peer_score,
                   "cli_seconds": cli_s, "grid_search_seconds": peer_s,
                   "grid_search_best": {k.split("__")[-1]: float(v) for k, v in best.items()}}
            # > 1 means the command is worse (RMSE higher, accuracy lower)
            row["score_ratio"] = (cli_score / peer_score if metric == "RMSE"
                                  else peer_score / cli_score)
            row["time_ratio"] = cli_s / peer_s
            rows.append(row)
            print(f"{name:<14} {model:<9} {metric:<9} {cli_score:>14.4f} {peer_score:>13.4f} "
                  f"{row['score_ratio']:>11.3f} {cli_s:>8.1f} {peer_s:>8.1f} "
                  f"{row['time_ratio']:>10.2f}", flush=True)
    print("score ratio > 1: kernelkit fit worse than GridSearchCV (the target: <= 1.01); "
          "time ratio: fit seconds / GridSearchCV seconds (the target: <= 0.2)")
    return {"rows": rows}


if __name__ == "__main__":
    import sys

    run("--quick" in sys.argv)
