"""The commands of ``kernelkit``: one function per command over parsed arguments,
returning an exit code (see :mod:`kernelkit.cli`)."""

from __future__ import annotations

import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

from .usage import UsageError, fail_usage, parse_count

PROG = "kernelkit"
#: Random-feature dimension that ``kernelkit plan`` considers when --D is not given.
DEFAULT_PLAN_D = 1000


# ---------------------------------------------------------------- helpers

def _emit_json(obj, out):
    out.write(json.dumps(obj, indent=2, allow_nan=False) + "\n")


def _rmse(y, pred):
    return float(np.sqrt(np.mean((np.asarray(y) - pred) ** 2)))


def _model_metadata(path):
    """Format fields of a model file, and the target column named at fit time."""
    from ..persistence import read_metadata

    meta = read_metadata(path)
    user = meta.get("user") if isinstance(meta.get("user"), dict) else {}
    return {"format": meta.get("format"), "format_version": meta.get("format_version"),
            "kernelkit_version": meta.get("kernelkit_version"), "target": user.get("target"),
            "user": user}


def _n_train(model):
    if getattr(model, "support_vectors_", None) is not None:
        return None  # an SVM keeps its support vectors only
    if getattr(model, "n_samples_fit_", None) is not None:
        return int(model.n_samples_fit_)
    X_fit = getattr(model, "X_fit_", None)
    if X_fit is not None:
        return int(X_fit.shape[0])
    dual = getattr(model, "dual_coef_", None)
    return None if dual is None else int(dual.shape[0])


def _model_summary(model):
    """What ``info`` and ``fit`` say about a fitted model (any allow-listed estimator, or
    a pipeline: its steps, then its last step)."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        steps = [f"{n}: {_step_name(e)}" for n, e in model.steps]
        info = _model_summary(model.steps[-1][1])
        info["estimator"] = f"Pipeline({', '.join(steps)})"
        names = getattr(model, "feature_names_in_", None)
        info["feature_names"] = None if names is None else [str(n) for n in names]
        n_in = getattr(model, "n_features_in_", None)  # a string model has none
        info["n_features"] = None if n_in is None else int(n_in)
        return info
    name = type(model).__name__
    cv = name == "KernelRidgeCV"
    params = model.get_params(deep=False)
    alpha = model.alpha_ if cv else params.get("alpha")
    if alpha is not None:
        alpha = np.asarray(alpha, dtype=np.float64)
        alpha = float(alpha) if alpha.ndim == 0 else alpha.tolist()
    names = getattr(model, "feature_names_in_", None)
    kernel = getattr(model, "kernel_", None)
    n_features = getattr(model, "n_features_in_", None)
    return {
        "estimator": name,
        "kernel": None if kernel is None else repr(kernel),
        "solver": "dual" if cv else getattr(model, "solver_", params.get("solver")),
        "n_features": None if n_features is None else int(n_features),
        "feature_names": None if names is None else [str(n) for n in names],
        # A primal model stores weights only; the number of training points is not kept.
        "n_train": _n_train(model),
        "alpha": alpha,
        "C": params.get("C"),
        "jitter": None if cv or not hasattr(model, "jitter_") else float(model.jitter_),
        "loo_mse": float(model.best_score_) if cv else None,
        "can_predict": hasattr(model, "predict"),
        "n_support_vectors": (None if getattr(model, "support_vectors_", None) is None
                              else int(len(model.support_vectors_))),
    }


def _step_name(est):
    if isinstance(est, str):
        return est
    parts = getattr(est, "transformers", None)  # a ColumnTransformer: its parts too
    if parts is None or not isinstance(parts, list):
        return type(est).__name__
    inner = ", ".join(f"{n}: {_step_name(e)}" for n, e, _ in parts)
    return f"{type(est).__name__}({inner})"


def _print_fields(fields, out):
    width = max(len(k) for k, _ in fields)
    for key, value in fields:
        out.write(f"{key + ':':<{width + 1}} {value}\n")


def _show(value):
    return "-" if value is None else value


# ---------------------------------------------------------------- commands

def cmd_demo(args, out, err):
    from ..demo import format_demo, run_demo

    def log(message):
        err.write(f"{PROG}: {message}\n")
        err.flush()

    result = run_demo(quick=args.quick, out_dir=args.out, log=log)
    if args.json:
        _emit_json(result, out)
    else:
        out.write(format_demo(result) + "\n")
    ok = all(p.get("persistence", {}).get("identical", True) for p in result["parts"])
    return 0 if ok else 1


def cmd_fit(args, out, err):
    from ..persistence import save
    from .fitting import build_and_fit
    from .options import fit_settings
    from .tables import fit_inputs, read_columns

    settings = fit_settings(args)  # the whole command line checked before any file

    out_path = Path(args.out)
    if out_path.is_dir():
        fail_usage(f"--out {args.out} is a directory; give a file name such as model.kk")
    if not out_path.absolute().parent.is_dir():
        fail_usage(f"--out {args.out}: directory {out_path.parent} does not exist")

    table = read_columns(args.data, target=args.target, id_column=args.id,
                         allow_missing=settings.impute is not None)
    X, input_notes = fit_inputs(table, settings, args.onehot, args.data)
    if table.missing:
        input_notes.append("gaps filled by --impute " + settings.impute + ": " + ", ".join(
            f"{name} {count}" for name, count in table.missing.items()))
    y, names = table.y, table.names
    if args.task == "regress" and y.dtype.kind != "f":
        raise ValueError(f"{args.data}: target column {args.target!r} is not numeric "
                         f"(e.g. {str(y[0])!r}); use --task classify for labels")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        model, report = build_and_fit(X, y, settings)
    fit_time = time.perf_counter() - start
    report["notes"][:0] = input_notes
    meta = {"target": args.target, "task": report["task"]}
    if args.id is not None:
        meta["id"] = args.id
    if settings.strings:
        meta["text_column"] = names[0]  # a string model has no feature names of its own
    else:
        # The column names travel in the model file, so that predict can match them.
        model[0].feature_names_in_ = np.asarray(names, dtype=object)
    if settings.onehot is not None:
        meta["onehot"] = [names[j] for j in settings.onehot]
    save(model, out_path, metadata=meta)

    metric = "accuracy" if report["task"] == "classify" else "RMSE"
    summary = _model_summary(model)
    summary.update(data=str(args.data), target=args.target, n=int(len(X)),
                   d=int(len(names)), task=report["task"], metric=metric,
                   id=args.id, onehot=meta.get("onehot"), text_column=meta.get("text_column"),
                   train_score=report["train_score"],
                   validation_score=report["validation_score"],
                   validation=report.get("validation"), notes=report["notes"],
                   fit_time=fit_time, path=str(out_path), model=args.model,
                   chosen=report["values"], on_grid_edge=report["edges"],
                   file_size=int(out_path.stat().st_size))
    if report["task"] == "regress":
        summary["train_rmse"] = report["train_score"]
    if args.json:
        _emit_json(summary, out)
        return 0
    for note in report["notes"]:
        err.write(f"{PROG}: {note}\n")
    fields = [("data", f"{args.data} (target {args.target!r}, {report['task']})"),
              ("n, d", f"{summary['n']}, {summary['d']}"),
              ("estimator", summary["estimator"]), ("kernel", summary["kernel"]),
              ("solver", summary["solver"])]
    fields += [(name, summary[name]) for name in ("alpha", "C") if summary[name] is not None]
    fields.append((f"train {metric}", f"{report['train_score']:.6g}"))
    if report["validation_score"] is not None:
        fields.append((f"valid. {metric}", f"{report['validation_score']:.6g} "
                                           f"({report['validation']})"))
    fields += [("fit time", f"{fit_time:.3f} s"),
               ("saved", f"{out_path} ({summary['file_size']} bytes)")]
    _print_fields(fields, out)
    return 0


def _predict_quietly(model, X):
    # The CLI matched the columns by name already; scikit-learn would warn that
    # the array has no feature names although the model was fitted with some.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        return model.predict(X)


def cmd_predict(args, out, err):
    from ..persistence import load
    from .predicting import (as_frame, check_probabilities, header, label_json, label_text,
                             predict_inputs, select_columns)

    model = load(args.model)
    if not hasattr(model, "predict"):
        raise ValueError(f"{args.model} holds a {type(model).__name__}, which transforms data "
                         "but does not predict; kernelkit predict needs a model file of an "
                         "estimator with predict (e.g. one written by kernelkit fit)")
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    if args.proba:
        check_probabilities(final, args.model)
    meta, notes = _model_metadata(args.model), []
    X, y_col, names, target, id_name, ids = predict_inputs(model, meta["user"], args,
                                                           header(args.data), notes)
    if names is None:  # a string-kernel model: the text column is X
        y = y_col
    else:
        X, y, target = select_columns(model, X, names, target, args.data, y_col, notes)
        X = as_frame(model, X, args.data)
    pred = np.asarray(_predict_quietly(model, X))
    classify = hasattr(final, "classes_")
    if not classify:
        pred = pred.astype(np.float64)
    if pred.ndim == 2 and pred.shape[1] == 1:
        pred = pred[:, 0]
    if pred.ndim != 1:
        raise ValueError(f"the model predicts {pred.shape[1]} targets; kernelkit predict "
                         "writes one column")
    if y is None:
        quality = None
    elif classify:  # 1 and 1.0 are the same label (a number read from the file)
        quality = float(np.mean([label_text(p) == label_text(t) for p, t in zip(pred, y)]))
    else:
        quality = _rmse(np.asarray(y, dtype=np.float64), pred)
    metric = "accuracy" if classify else "rmse"
    summary = {"model": str(args.model), "data": str(args.data), "n": int(len(pred)),
               "target": target, metric: quality, "id": id_name,
               "out": None if args.out is None else str(args.out)}
    # repr of a float reads back as the same float: predictions survive the text file.
    cells = ([_csv_cell(label_text(v)) for v in pred] if classify
             else [f"{float(v)!r}" for v in pred])
    head = "prediction"
    if args.proba:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            proba = np.asarray(model.predict_proba(X), dtype=np.float64)
        classes = [label_text(c) for c in final.classes_]
        head += "".join("," + _csv_cell(f"proba_{c}") for c in classes)
        cells = [c + "".join(f",{float(p)!r}" for p in row) for c, row in zip(cells, proba)]
        summary["classes"] = [label_json(c) for c in final.classes_]
    if ids is not None:  # the identifier first, so that rows join back to the input
        cells = [f"{_csv_cell(str(i))},{c}" for i, c in zip(ids, cells)]
        head = f"{_csv_cell(id_name)},{head}"
    text = head + "\n" + "".join(f"{c}\n" for c in cells)
    if args.out is not None:
        Path(args.out).write_text(text)
    if args.json:
        if args.out is None:
            summary["predictions"] = (pred.tolist() if not classify
                                      else [label_json(v) for v in pred])
            if args.proba:
                summary["probabilities"] = proba.tolist()
            if ids is not None:
                summary["ids"] = [str(i) for i in ids]
        _emit_json(summary, out)
        return 0
    for note in notes:
        err.write(f"{PROG}: {note}\n")
    if args.out is None:
        out.write(text)
    note = out if args.out is not None else err  # keep stdout pure CSV when it holds the data
    msg = f"predicted {len(pred)} rows with {args.model}"
    if args.out is not None:
        msg += f" -> {args.out}"
    if quality is not None:
        msg += (f"; accuracy against column {target!r}: {quality:.6g}" if classify else
                f"; RMSE against column {target!r}: {quality:.6g}")
    note.write(msg + "\n")
    return 0


def _csv_cell(text):
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def cmd_info(args, out, err):
    from ..persistence import load

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
              ("estimator", info["estimator"]), ("kernel", _show(info["kernel"])),
              ("solver", _show(info["solver"]))]
    if info["alpha"] is not None:
        fields.append(("alpha", info["alpha"]))
    if info["C"] is not None:
        fields.append(("C", info["C"]))
    if info["loo_mse"] is not None:
        fields.append(("LOO RMSE", f"{math.sqrt(info['loo_mse']):.6g}"))
    fields += [("jitter", _show(info["jitter"])),
               ("n_features", _show(info["n_features"])),
               ("n training", _show(info["n_train"]))]
    if info["n_support_vectors"] is not None:
        fields.append(("support vectors", info["n_support_vectors"]))
    if info.get("target"):
        fields.append(("target", info["target"]))
    user = info.get("user") or {}
    for key, label in (("id", "id column"), ("text_column", "text column")):
        if isinstance(user.get(key), str):
            fields.append((label, user[key]))
    if isinstance(user.get("onehot"), list):
        fields.append(("one-hot", ", ".join(map(str, user["onehot"]))
                       + " (OneHotEncoder, handle_unknown='ignore')"))
    if info["feature_names"] is not None:
        fields.append(("features", ", ".join(info["feature_names"])))
    _print_fields(fields, out)
    return 0


# ---------------------------------------------------------------- parser and main

def cmd_plan(args, out, err):
    from ..calibration import machine_rates
    from ..config import get_config, parse_memory
    from ..planning import plan_sgd

    n, d = parse_count(args.n, "--n"), parse_count(args.d, "--d")
    if args.D is None:
        D = DEFAULT_PLAN_D
        err.write(f"{PROG}: random features considered with D={D} (set --D; --D 0 for a "
                  "kernel without a feature map)\n")
    else:
        D = None if args.D.strip() == "0" else parse_count(args.D, "--D")
    T = None if args.iterations is None else parse_count(args.iterations, "--iterations")
    try:
        memory = parse_memory(args.memory) if args.memory else get_config()["memory"]
    except ValueError as exc:
        raise UsageError(f"--memory: {exc}") from None
    kernel = None
    if args.kernel:
        from ..kernels import parse_kernel

        try:
            kernel = parse_kernel(args.kernel)
        except ValueError as exc:
            raise UsageError(f"--kernel: {exc}") from None
    result = plan_sgd(n, d, kernel, args.loss, n_features=D, iterations=T, memory=memory,
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
    from ..calibration import calibrate, save_rates

    rates = calibrate()
    path = save_rates(rates)
    if args.json:
        _emit_json({"rates": rates, "path": str(path)}, out)
    else:
        for key, value in rates.items():
            out.write(f"{key:<16}{value:.3g} per second\n")
        out.write(f"saved to {path}\n")
    return 0
