"""The ``kernelkit`` command: demo, fit, predict, info.

Every command is a small function over parsed arguments that returns an exit
code; :func:`main` turns expected errors into one line on stderr,
``kernelkit: error: <message>``, and an exit code: 2 for a bad command line
(unknown option, bad kernel expression, bad alpha), 1 for a problem met
while running (missing or malformed file, wrong number of columns, memory
budget). ``--debug`` shows the traceback instead. With ``--json`` stdout
holds exactly one JSON document.

Inputs are used as given: ``kernelkit fit`` does not standardise, because a
model file stores the estimator only and the scaling would be lost on
``predict``. Scale the columns first if the kernel needs it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

__all__ = ["main", "build_parser"]

_PROG = "kernelkit"


class UsageError(Exception):
    """A bad command-line value that argparse cannot check itself (exit code 2)."""


# ---------------------------------------------------------------- helpers

def _fail_usage(message):
    raise UsageError(message)


def _parse_alpha(text, option="--alpha"):
    try:
        value = float(text)
    except ValueError:
        _fail_usage(f"{option}: {text!r} is not a number")
    if not math.isfinite(value) or value < 0:
        _fail_usage(f"{option} must be >= 0 and finite (the ridge penalty), got {text}")
    return value


def _parse_alphas(text):
    values = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = float(item)
        except ValueError:
            _fail_usage(f"--cv-alphas: {item!r} is not a number; write e.g. 1e-3,1e-2,0.1")
        if not math.isfinite(value) or value <= 0:
            _fail_usage(f"--cv-alphas: every alpha must be > 0 and finite, got {item}")
        values.append(value)
    return values


def _parse_kernel(text):
    from .exceptions import KernelSpecError
    from .kernels import parse_kernel

    try:
        return parse_kernel(text)
    except KernelSpecError as exc:
        raise UsageError(f"--kernel: {exc}") from None


def _emit_json(obj, out):
    out.write(json.dumps(obj, indent=2, allow_nan=False) + "\n")


def _rmse(y, pred):
    return float(np.sqrt(np.mean((np.asarray(y) - pred) ** 2)))


def _model_metadata(path):
    """Format fields of a model file, and the target column named at fit time."""
    from .persistence import read_metadata

    meta = read_metadata(path)
    target = meta.get("user", {}).get("target") if isinstance(meta.get("user"), dict) else None
    return {"format": meta.get("format"), "format_version": meta.get("format_version"),
            "kernelkit_version": meta.get("kernelkit_version"), "target": target}


def _n_train(model):
    if getattr(model, "n_samples_fit_", None) is not None:
        return int(model.n_samples_fit_)
    X_fit = getattr(model, "X_fit_", None)
    if X_fit is not None:
        return int(X_fit.shape[0])
    dual = getattr(model, "dual_coef_", None)
    return None if dual is None else int(dual.shape[0])


def _model_summary(model):
    """What ``info`` and ``fit`` say about a fitted model."""
    name = type(model).__name__
    cv = name == "KernelRidgeCV"
    alpha = model.alpha_ if cv else model.alpha
    alpha = np.asarray(alpha, dtype=np.float64)
    names = getattr(model, "feature_names_in_", None)
    return {
        "estimator": name,
        "kernel": repr(model.kernel_),
        "solver": "dual" if cv else model.solver_,
        "n_features": int(model.n_features_in_),
        "feature_names": None if names is None else [str(n) for n in names],
        # A primal model stores weights only; the number of training points is not kept.
        "n_train": _n_train(model),
        "alpha": float(alpha) if alpha.ndim == 0 else alpha.tolist(),
        "jitter": None if cv else float(getattr(model, "jitter_", 0.0)),
        "loo_mse": float(model.best_score_) if cv else None,
    }


def _names(names, limit=8):
    """A list of column names for a message, shortened when long."""
    names = [repr(str(n)) for n in names]
    if len(names) > limit:
        return f"[{', '.join(names[:limit - 2])}, ...] ({len(names)} in all)"
    return f"[{', '.join(names)}]"


def _print_fields(fields, out):
    width = max(len(k) for k, _ in fields)
    for key, value in fields:
        out.write(f"{key + ':':<{width + 1}} {value}\n")


def _show(value):
    return "-" if value is None else value


# ---------------------------------------------------------------- commands

def cmd_demo(args, out, err):
    from .demo import format_demo, run_demo

    def log(message):
        err.write(f"{_PROG}: {message}\n")
        err.flush()

    result = run_demo(quick=args.quick, out_dir=args.out, log=log)
    if args.json:
        _emit_json(result, out)
    else:
        out.write(format_demo(result) + "\n")
    ok = all(p.get("persistence", {}).get("identical", True) for p in result["parts"])
    return 0 if ok else 1


def cmd_fit(args, out, err):
    from .datasets import read_table
    from .models import KernelRidge, KernelRidgeCV
    from .persistence import save

    # Check the whole command line before touching any file.
    kernel = _parse_kernel(args.kernel)
    if args.cv_alphas is not None:
        if args.alpha is not None:
            _fail_usage("give either --alpha or --cv-alphas, not both")
        if args.solver != "auto":
            _fail_usage("--solver cannot be combined with --cv-alphas (leave-one-out "
                        "selection always uses the dual eigendecomposition)")
        alphas = _parse_alphas(args.cv_alphas)
        model = KernelRidgeCV(kernel=kernel, alphas=alphas)
    else:
        alpha = 1.0 if args.alpha is None else _parse_alpha(args.alpha)
        model = KernelRidge(kernel=kernel, alpha=alpha, solver=args.solver)
    out_path = Path(args.out)
    if out_path.is_dir():
        _fail_usage(f"--out {args.out} is a directory; give a file name such as model.kk")
    if not out_path.absolute().parent.is_dir():
        _fail_usage(f"--out {args.out}: directory {out_path.parent} does not exist")

    X, y, names = read_table(args.data, target=args.target)
    if y.dtype.kind != "f":
        raise ValueError(f"{args.data}: target column {args.target!r} is not numeric "
                         f"(e.g. {str(y[0])!r}); kernelkit fit does regression")
    start = time.perf_counter()
    model.fit(X, y)
    fit_time = time.perf_counter() - start
    # The column names travel in the model file, so that predict can match them.
    model.feature_names_in_ = np.asarray(names, dtype=object)
    train_rmse = _rmse(y, _predict_quietly(model, X))
    save(model, out_path, metadata={"target": args.target})

    summary = _model_summary(model)
    summary.update(data=str(args.data), target=args.target, n=int(X.shape[0]),
                   d=int(X.shape[1]), train_rmse=train_rmse, fit_time=fit_time,
                   path=str(out_path), file_size=int(out_path.stat().st_size))
    if args.json:
        _emit_json(summary, out)
        return 0
    fields = [("data", f"{args.data} (target {args.target!r})"),
              ("n, d", f"{summary['n']}, {summary['d']}"),
              ("estimator", summary["estimator"]), ("kernel", summary["kernel"]),
              ("solver", summary["solver"]), ("alpha", summary["alpha"])]
    if summary["loo_mse"] is not None:
        fields.append(("LOO RMSE", f"{math.sqrt(summary['loo_mse']):.6g}"))
    if summary["jitter"]:
        fields.append(("jitter", f"{summary['jitter']:.3g}"))
    fields += [("train RMSE", f"{train_rmse:.6g}"), ("fit time", f"{fit_time:.3f} s"),
               ("saved", f"{out_path} ({summary['file_size']} bytes)")]
    _print_fields(fields, out)
    return 0


def _predict_quietly(model, X):
    # The CLI matched the columns by name already; scikit-learn would warn that
    # the array has no feature names although the model was fitted with some.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        return model.predict(X)


def _select_columns(model, X, names, target, path):
    """Features in the model's order, and the target column or None."""
    fitted = getattr(model, "feature_names_in_", None)
    n_in = int(model.n_features_in_)
    if target is not None and target not in names:
        raise ValueError(f"{path}: no target column {target!r}; the columns are {_names(names)}")
    if fitted is None:  # a model fitted in Python on an array: columns by position
        keep = [j for j, name in enumerate(names) if name != target]
        if len(keep) != n_in:
            hint = (" (if one of them is the target, name it with --target)"
                    if target is None and len(keep) == n_in + 1 else "")
            raise ValueError(f"{path}: the model expects {n_in} feature columns but the file "
                             f"has {len(keep)}{hint}")
        y = None if target is None else X[:, names.index(target)]
        return X[:, keep], y, target
    fitted = [str(n) for n in fitted]
    missing = [n for n in fitted if n not in names]
    if missing:
        raise ValueError(f"{path}: the model expects {n_in} feature columns {_names(fitted)}, "
                         f"but {_names(missing)} {'is' if len(missing) == 1 else 'are'} missing "
                         f"from the file (its columns are {_names(names)})")
    extra = [n for n in names if n not in fitted]
    if target is None and len(extra) == 1:
        target = extra[0]  # the fit's target column, or at least the one non-feature column
    elif target is not None and target in fitted:
        raise ValueError(f"--target {target!r} is one of the model's feature columns")
    elif [n for n in extra if n != target]:
        others = [n for n in extra if n != target]
        raise ValueError(f"{path}: has {len(names)} columns but the model expects {n_in} "
                         f"features; columns {others} are not features of the model. "
                         "Remove them, or name the target column with --target")
    X_sel = X[:, [names.index(n) for n in fitted]]
    y = None if target is None else X[:, names.index(target)]
    return X_sel, y, target


def cmd_predict(args, out, err):
    from .datasets import read_table
    from .persistence import load

    model = load(args.model)
    X, _, names = read_table(args.data, target=None)
    target = args.target
    if target is None:  # the column the model was fitted against, when present
        fitted_target = _model_metadata(args.model)["target"]
        target = fitted_target if fitted_target in names else None
    X, y, target = _select_columns(model, X, names, target, args.data)
    pred = np.asarray(_predict_quietly(model, X), dtype=np.float64)
    if pred.ndim == 2 and pred.shape[1] == 1:
        pred = pred[:, 0]
    if pred.ndim != 1:
        raise ValueError(f"the model predicts {pred.shape[1]} targets; kernelkit predict "
                         "writes one column")
    summary = {"model": str(args.model), "data": str(args.data), "n": int(len(pred)),
               "target": target, "rmse": None if y is None else _rmse(y, pred),
               "out": None if args.out is None else str(args.out)}
    # repr of a float reads back as the same float: predictions survive the text file.
    text = "prediction\n" + "".join(f"{float(v)!r}\n" for v in pred)
    if args.out is not None:
        Path(args.out).write_text(text)
    if args.json:
        if args.out is None:
            summary["predictions"] = pred.tolist()
        _emit_json(summary, out)
        return 0
    if args.out is None:
        out.write(text)
    note = out if args.out is not None else err  # keep stdout pure CSV when it holds the data
    msg = f"predicted {len(pred)} rows with {args.model}"
    if args.out is not None:
        msg += f" -> {args.out}"
    if summary["rmse"] is not None:
        msg += f"; RMSE against column {target!r}: {summary['rmse']:.6g}"
    note.write(msg + "\n")
    return 0


def cmd_info(args, out, err):
    from .persistence import load

    model = load(args.model)
    info = _model_summary(model)
    info.update(_model_metadata(args.model))
    info["path"] = str(args.model)
    info["file_size"] = int(Path(args.model).stat().st_size)
    if args.json:
        _emit_json(info, out)
        return 0
    fields = [("file", f"{info['path']} ({info['file_size']} bytes)"),
              ("format", f"{info['format']} version {info['format_version']}, written by "
                         f"kernelkit {info['kernelkit_version']}"),
              ("estimator", info["estimator"]), ("kernel", info["kernel"]),
              ("solver", info["solver"]), ("alpha", info["alpha"])]
    if info["loo_mse"] is not None:
        fields.append(("LOO RMSE", f"{math.sqrt(info['loo_mse']):.6g}"))
    fields += [("jitter", _show(info["jitter"])),
               ("n_features", info["n_features"]),
               ("n training", _show(info["n_train"]))]
    if info.get("target"):
        fields.append(("target", info["target"]))
    if info["feature_names"] is not None:
        fields.append(("features", ", ".join(info["feature_names"])))
    _print_fields(fields, out)
    return 0


# ---------------------------------------------------------------- parser and main

def _count(text, name):
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--{name} must be a number such as 1e6, got {text!r}") from None
    if not value >= 1 or value != int(value) or value > 1e15:
        raise UsageError(f"--{name} must be a whole number >= 1, got {text!r}")
    return int(value)


def cmd_plan(args, out, err):
    from .calibration import machine_rates
    from .config import get_config, parse_memory
    from .planning import plan

    n, d = _count(args.n, "n"), _count(args.d, "d")
    D = None if args.D is None else _count(args.D, "D")
    T = None if args.iterations is None else _count(args.iterations, "iterations")
    try:
        memory = parse_memory(args.memory) if args.memory else get_config()["memory"]
    except ValueError as exc:
        raise UsageError(f"--memory: {exc}") from None
    kernel = None
    if args.kernel:
        from .kernels import parse_kernel

        try:
            kernel = parse_kernel(args.kernel)
        except ValueError as exc:
            raise UsageError(f"--kernel: {exc}") from None
    result = plan(n, d, kernel, args.loss, n_features=D, iterations=T, memory=memory,
                  rates=machine_rates(), include_exact=True)
    if args.json:
        _emit_json({"choice": result.choice, "reason": result.reason,
                    "problem": {k: v for k, v in result.problem.items()},
                    "memory_budget": memory,
                    "candidates": [{"name": c.name, "seconds": _finite(c.seconds),
                                    "memory": _finite(c.memory), "feasible": c.feasible,
                                    "note": c.note} for c in result.candidates]}, out)
    else:
        out.write(result.explain() + "\n")
    return 0


def _finite(x):
    return None if x == float("inf") else float(x)


def cmd_calibrate(args, out, err):
    from .calibration import calibrate, save_rates

    rates = calibrate()
    path = save_rates(rates)
    if args.json:
        _emit_json({"rates": rates, "path": str(path)}, out)
    else:
        for key, value in rates.items():
            out.write(f"{key:<16}{value:.3g} per second\n")
        out.write(f"saved to {path}\n")
    return 0


def build_parser():
    """The argparse parser of the ``kernelkit`` command."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=_PROG, description="Kernel machines at every scale: demo, fit, predict, info, plan.")
    parser.add_argument("--version", action="version", version=f"{_PROG} {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    common.add_argument("--debug", action="store_true",
                        help="show the traceback of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("demo", parents=[common], help="exact kernel ridge on bundled real data",
                       description="Kernel ridge on the bundled CPU-activity data against "
                                   "baselines and scikit-learn, then save and reload.")
    p.add_argument("--quick", action="store_true", help="smaller problems (seconds)")
    p.add_argument("--out", metavar="DIR", help="directory for the model file "
                   "(default: a temporary directory)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("fit", parents=[common], help="fit kernel ridge on a table, save it",
                       description="Fit kernel ridge regression on a CSV/TSV table (.gz ok) "
                                   "with a header row, and save the model. Inputs are used "
                                   "as given (no standardisation).")
    p.add_argument("data", metavar="DATA", help="CSV or TSV file with a header row")
    p.add_argument("--target", required=True, metavar="COL", help="name of the target column")
    p.add_argument("--kernel", default="rbf", metavar="EXPR",
                   help="kernel expression, e.g. 'rbf(gamma=0.1)' or 'poly(degree=2) + "
                        "linear' (default: rbf)")
    p.add_argument("--alpha", metavar="A", help="ridge penalty >= 0 (default: 1.0)")
    p.add_argument("--solver", choices=("auto", "dual", "primal"), default="auto",
                   help="exact solver (default: auto, the planner decides)")
    p.add_argument("--cv-alphas", metavar="A1,A2,...",
                   help="choose alpha among these by exact leave-one-out (KernelRidgeCV)")
    p.add_argument("--out", required=True, metavar="MODEL", help="model file to write (*.kk)")
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", parents=[common], help="predict with a saved model",
                       description="Predict with a saved model. Columns are matched by name "
                                   "when the model knows them; a column that is not a feature "
                                   "(or --target) is taken as the target and the RMSE shown.")
    p.add_argument("model", metavar="MODEL", help="model file written by kernelkit fit")
    p.add_argument("data", metavar="DATA", help="CSV or TSV file with a header row")
    p.add_argument("--target", metavar="COL", help="target column to drop and score against")
    p.add_argument("--out", metavar="FILE", help="write predictions here (default: stdout)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("plan", parents=[common], help="which strategy the planner picks, and why",
                       description="Predicted time and memory of every way to learn with a "
                                   "kernel (four SGD strategies and the exact solvers) for a "
                                   "problem size, and the planner's choice.")
    p.add_argument("--n", required=True, metavar="N", help="number of samples, e.g. 1e6")
    p.add_argument("--d", required=True, metavar="D", help="number of input features")
    p.add_argument("--loss", default="squared",
                   choices=("squared", "logistic", "hinge", "squared_hinge", "huber"))
    p.add_argument("--D", metavar="D", help="feature dimension of an explicit/random map")
    p.add_argument("--iterations", metavar="T", help="SGD steps (default 10 n)")
    p.add_argument("--memory", metavar="SIZE", help="memory budget, e.g. 8GB")
    p.add_argument("--kernel", metavar="EXPR", help="kernel expression (shown only)")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("calibrate", parents=[common], help="measure this machine's rates",
                       description="Measure GEMM, Cholesky, kernel and elementwise rates "
                                   "(about a second) and cache them for the planner.")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("info", parents=[common], help="describe a saved model",
                       description="Describe a saved model file.")
    p.add_argument("model", metavar="MODEL")
    p.set_defaults(func=cmd_info)
    return parser


def _expected_errors():
    from .exceptions import MemoryBudgetError

    # KernelSpecError and ModelFormatError are ValueErrors.
    return (OSError, ValueError, TypeError, MemoryBudgetError, MemoryError)


def main(argv=None):
    """Run the ``kernelkit`` command; returns the exit code.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for an error while running, 2 for a bad command line.
    """
    out, err = sys.stdout, sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or argparse's usage error (code 2)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return args.func(args, out, err)
        except BrokenPipeError:
            # stdout closed early (e.g. piped into head): stop quietly, as cat does.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            return 1
        except UsageError as exc:
            if args.debug:
                raise
            err.write(f"{_PROG}: error: {exc}\n")
            return 2
        except _expected_errors() as exc:
            if args.debug:
                raise
            err.write(f"{_PROG}: error: {_message(exc)}\n")
            return 1
        except KeyboardInterrupt:
            err.write(f"{_PROG}: interrupted\n")
            return 130


def _message(exc):
    if isinstance(exc, FileNotFoundError) and exc.filename is not None:
        return f"no such file: '{exc.filename}'"
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc)
    return text if text else type(exc).__name__


def _show_warning(message, category, filename, lineno, file=None, line=None):
    # Warnings (e.g. NumericalWarning for jitter) as one readable line, no source path.
    sys.stderr.write(f"{_PROG}: warning: {category.__name__}: {message}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
