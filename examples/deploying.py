"""
Deploying a kernel model: model files and the command line
==========================================================

Lecture: Kernel machines in practice -- model files (save and load with
identical predictions) and the command line (fit, predict, plan, info).

A fitted kernel machine is its training points (or centers, or random
frequencies), its coefficients and its kernel. :func:`kernelkit.save` writes
exactly that -- arrays, the kernel as a registered expression, the pipeline's
steps -- into one file that :func:`kernelkit.load` reads back without
unpickling anything, so the loaded model predicts *bit for bit* what the
fitted one did. The table fits four kinds of model on the bundled cpu_act data
(8,192 computer-activity records, 21 features; the target, named ``usr``
here, is the share of time the CPUs run in user mode) and compares the predictions before and after
a round trip through a file.

The same work without writing Python: :func:`kernelkit.cli.main` is the
``kernelkit`` command. In a temporary directory the example writes the data as
CSV tables, then runs

    kernelkit fit train.csv --target usr --kernel 'rbf(gamma=0.05)' --alpha 0.1 --out model.kk
    kernelkit predict model.kk test.csv --out predictions.csv
    kernelkit info model.kk
    kernelkit plan --n 1e6 --d 21 --memory 16GB

and checks the command's predictions against the pipeline it promises
(standardised columns, kernel ridge with an intercept) fitted in Python.

Run: ``python examples/deploying.py`` (about 20 seconds)
"""

import argparse
import contextlib
import io
import os
import tempfile
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelkit
from kernelkit import cli
from kernelkit.datasets import load_cpu_act
from kernelkit.kernels import RBF
from kernelkit.models import (
    KernelKNeighborsRegressor,
    KernelRidge,
    KitchenSinksRegressor,
)
from kernelkit.persistence import save

GAMMA, ALPHA = 0.05, 0.1


def data(quick):
    """A train/test split of cpu_act (target 'usr'), with its column names."""
    ds = load_cpu_act()
    perm = np.random.default_rng(0).permutation(len(ds.target))
    n_train, n_test = (600, 300) if quick else (4000, 4192)
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    names = [str(n) for n in ds.feature_names]
    return ds.data[train], ds.target[train], ds.data[test], ds.target[test], names, "usr"


def models():
    """Four fitted-model kinds, each behind a StandardScaler."""
    kernel = RBF(gamma=GAMMA)
    return {
        "KernelRidge": KernelRidge(kernel, alpha=ALPHA),
        "KernelKNeighborsRegressor": KernelKNeighborsRegressor(5, kernel=kernel),
        "KernelRidge(falkon, M=100)": KernelRidge(kernel, alpha=ALPHA, solver="falkon",
                                                  n_centers=100, random_state=0),
        "KitchenSinksRegressor": KitchenSinksRegressor(200, C=200.0, gamma=GAMMA,
                                                       random_state=0),
    }


def write_csv(path, X, names, y=None, target=None):
    """A CSV table with a header row (full float precision)."""
    cols = names + ([target] if y is not None else [])
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for i in range(len(X)):
            vals = [repr(float(v)) for v in X[i]] + ([repr(float(y[i]))] if y is not None else [])
            f.write(",".join(vals) + "\n")


def command(*argv):
    """Run ``kernelkit <argv>`` (``cli.main``); return its exit code and its stdout."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue()


def run(quick=False):
    """Save/load round trips of four models, then the command line on CSV files."""
    Xtr, ytr, Xte, yte, names, target = data(quick)
    rows = []
    print(f"cpu_act: {len(Xtr)} training and {len(Xte)} test rows, target {target!r}\n")
    print(f"{'model':>28s} {'test RMSE':>10s} {'file bytes':>11s}  identical after load")
    with tempfile.TemporaryDirectory() as tmp:
        for name, est in models().items():
            model = make_pipeline(StandardScaler(), est)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(Xtr, ytr)
            path = os.path.join(tmp, "model.kk")
            save(model, path, metadata={"target": target})
            loaded = kernelkit.load(path)
            before, after = model.predict(Xte), loaded.predict(Xte)
            rows.append({"model": name, "rmse": float(np.sqrt(np.mean((before - yte) ** 2))),
                         "bytes": os.path.getsize(path),
                         "identical": bool(np.array_equal(before, after)),
                         "max_difference": float(np.abs(before - after).max()),
                         "user_metadata": kernelkit.persistence.read_metadata(path)["user"]})
            r = rows[-1]
            print(f"{name:>28s} {r['rmse']:10.3f} {r['bytes']:11d}  {r['identical']}")

        train_csv, test_csv = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        model_file, preds_csv = os.path.join(tmp, "model.kk"), os.path.join(tmp, "preds.csv")
        write_csv(train_csv, Xtr, names, ytr, target)
        write_csv(test_csv, Xte, names, yte, target)
        cli = {}
        print(f"\n$ kernelkit fit train.csv --target usr --kernel 'rbf(gamma={GAMMA})' "
              f"--alpha {ALPHA} --out model.kk")
        cli["fit"] = command("fit", train_csv, "--target", target, "--kernel",
                             f"rbf(gamma={GAMMA})", "--alpha", ALPHA, "--out", model_file)
        print(cli["fit"][1].replace(tmp + os.sep, ""))
        print("$ kernelkit predict model.kk test.csv --out preds.csv")
        cli["predict"] = command("predict", model_file, test_csv, "--out", preds_csv)
        print(cli["predict"][1].replace(tmp + os.sep, ""))
        print("$ kernelkit info model.kk")
        cli["info"] = command("info", model_file)
        print(cli["info"][1].replace(tmp + os.sep, ""))
        print("$ kernelkit plan --n 1e6 --d 21 --memory 16GB")
        cli["plan"] = command("plan", "--n", "1e6", "--d", "21", "--memory", "16GB")
        print(cli["plan"][1])
        with open(preds_csv) as f:
            lines = f.read().splitlines()
        cli_pred = np.array([float(v) for v in lines[1:]])
        with warnings.catch_warnings():  # the file knows the column names; Xte has none
            warnings.simplefilter("ignore", UserWarning)
            cli_loaded_pred = kernelkit.load(model_file).predict(Xte)
    return {"rows": rows, "cli": {k: v[0] for k, v in cli.items()},
            "cli_output": {k: v[1] for k, v in cli.items()}, "cli_header": lines[0],
            "cli_pred": cli_pred, "cli_loaded_pred": cli_loaded_pred, "X_train": Xtr,
            "y_train": ytr, "X_test": Xte, "y_test": yte, "names": names, "target": target}


def plot(results):
    """Model file sizes; the command line's predictions against the test targets."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.4), layout="constrained")
    ax_files, ax_cli = fig.subplots(1, 2)
    rows = results["rows"]
    ax_files.barh([r["model"] for r in rows], [r["bytes"] / 1024 for r in rows])
    for i, r in enumerate(rows):
        ax_files.text(r["bytes"] / 1024, i, " identical" if r["identical"] else " DIFFERENT",
                      va="center", fontsize=8)
    ax_files.set_xlabel("model file size (KiB)")
    ax_files.set_title("save -> load: predictions before and after")
    y = results["y_test"]
    ax_cli.plot(y, results["cli_pred"], ".", ms=3)
    ax_cli.plot([y.min(), y.max()], [y.min(), y.max()], "k--", lw=0.8)
    ax_cli.set_xlabel(f"test target {results['target']!r}")
    ax_cli.set_ylabel("kernelkit predict")
    ax_cli.set_title("the command line: fit, predict")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Model files and the command line.")
    parser.add_argument("--quick", action="store_true", help="small data (a test run)")
    parser.add_argument("--out", default="deploying.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
