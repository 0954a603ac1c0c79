"""The parser of ``kernelkit`` and :func:`main`, which turns expected errors into one
line on stderr and an exit code (see :mod:`kernelkit.cli`)."""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from .commands import (PROG, UsageError, cmd_calibrate, cmd_demo, cmd_fit, cmd_info,
                       cmd_plan, cmd_predict)

__all__ = ["main", "build_parser"]


def build_parser():
    """The argparse parser of the ``kernelkit`` command."""
    from .._version import __version__

    parser = argparse.ArgumentParser(
        prog=PROG, description="Kernel machines at every scale: demo, fit, predict, info, plan, "
                               "calibrate.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    common.add_argument("--debug", action="store_true",
                        help="show the traceback of errors")
    common.add_argument("--progress", action="store_true",
                        help="show the progress of long fits on stderr (a bar with tqdm "
                             "installed, else plain lines), and each automatic choice")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("demo", parents=[common], help="the library's tour on bundled real data",
                       description="Four parts on bundled real data: regression (exact "
                                   "kernel ridge against baselines and scikit-learn, saved "
                                   "and reloaded), classification (kernel SVM and kernel "
                                   "logistic regression against scikit-learn, the planner's "
                                   "table), scale (the planner choosing Falkon under a small "
                                   "memory budget, next to random features and Nystroem) and "
                                   "strings (string kernels on DNA splice junctions).")
    p.add_argument("--quick", action="store_true", help="smaller problems (seconds)")
    p.add_argument("--out", metavar="DIR", help="directory for the model file "
                   "(default: a temporary directory)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("fit", parents=[common], help="fit a kernel model on a table, save it",
                       description="Fit kernel ridge regression or a kernel classifier on a "
                                   "CSV/TSV table (.gz ok) with a header row and save the "
                                   "model. By default the columns are standardised and the "
                                   "target centred (both stored in the model file), the task "
                                   "is inferred, gamma and alpha (or C) are searched on the "
                                   "training rows (leave-one-out for ridge, cross-validation "
                                   "for svm and logistic), and a hold-out figure is printed "
                                   "next to the training one; every automatic choice is "
                                   "printed on stderr, and a value chosen at the edge of its "
                                   "grid is warned.")
    p.add_argument("data", metavar="DATA", help="CSV or TSV file with a header row")
    p.add_argument("--target", required=True, metavar="COL", help="name of the target column")
    p.add_argument("--task", choices=("auto", "regress", "classify"), default="auto",
                   help="default auto: classify text labels or few distinct integers")
    p.add_argument("--model", choices=("ridge", "svm", "logistic"), default="ridge",
                   help="default ridge (KernelRidge, or KernelRidgeClassifier); svm "
                        "(KernelSVC) and logistic (KernelLogisticRegression) classify")
    p.add_argument("--kernel", metavar="EXPR",
                   help="kernel expression, e.g. 'rbf(gamma=0.1)' or 'poly(degree=2) + "
                        "linear' (default: rbf); a gamma left out (gamma='scale') is searched")
    p.add_argument("--gamma", metavar="G", help="fix the kernel's gamma > 0 (default: searched "
                   "over scale/16 .. 4 scale, scale = 1/(n_features X.var()))")
    p.add_argument("--cv-gammas", metavar="G1,G2,...", help="the candidate gammas")
    p.add_argument("--alpha", metavar="A", help="ridge penalty >= 0 (default: searched by "
                   "leave-one-out, 1e-6 .. 10)")
    p.add_argument("--cv-alphas", metavar="A1,A2,...",
                   help="the candidate penalties to choose alpha from")
    p.add_argument("--C", metavar="C", help="the C > 0 of --model svm or logistic (default: "
                   "searched by cross-validation, 0.01 .. 1000)")
    p.add_argument("--cv-C", metavar="C1,C2,...", dest="cv_C", help="the candidate C values")
    p.add_argument("--proba", action="store_true",
                   help="with --model svm: fit the class probabilities (Platt scaling, "
                        "costs about 5 more fits) that predict --proba writes (--model "
                        "logistic always has them)")
    p.add_argument("--solver", choices=("auto", "dual", "primal", "falkon"), default="auto",
                   help="default auto: the planner decides and says why")
    p.add_argument("--centers", metavar="M", help="Nystroem centers for --solver falkon "
                   "(default sqrt(n) log n)")
    p.add_argument("--holdout", default="0.2", metavar="F",
                   help="fraction of rows held out for the validation figure (default 0.2; "
                        "0: none); the saved model is fitted on all rows")
    p.add_argument("--no-scale", action="store_true",
                   help="use the columns as given (no standardisation)")
    p.add_argument("--onehot", action="store_true",
                   help="one-hot encode the text columns (unseen categories at predict: all "
                        "zeros); the encoder is stored in the model file")
    p.add_argument("--impute", choices=("mean", "median"),
                   help="fill empty (or NA, NaN, null, ?) cells of numeric columns with the "
                        "column's mean or median on the training rows (SimpleImputer, stored "
                        "in the model file: predict fills gaps the same way); default: "
                        "refuse rows with gaps")
    p.add_argument("--id", metavar="COL", help="an identifier column: not a feature, passed "
                   "through to the predictions of kernelkit predict")
    p.add_argument("--out", required=True, metavar="MODEL", help="model file to write (*.kk)")
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("predict", parents=[common], help="predict with a saved model",
                       description="Predict with a saved model. Columns are matched by name "
                                   "when the model knows them; the fit's target column (or "
                                   "--target, or the one column that is not a feature and not "
                                   "an identifier) is scored against. An identifier column "
                                   "(--id, the fit's --id, or one named like 'id') is written "
                                   "beside each prediction.")
    p.add_argument("model", metavar="MODEL", help="model file written by kernelkit fit")
    p.add_argument("data", metavar="DATA", help="CSV or TSV file with a header row")
    p.add_argument("--target", metavar="COL", help="target column to drop and score against")
    p.add_argument("--id", metavar="COL", help="identifier column written beside each "
                   "prediction (default: the fit's --id, or one column named like an id)")
    p.add_argument("--proba", action="store_true",
                   help="also write the class probabilities, one column per class "
                        "(proba_<class>; models of --model logistic, or svm fitted with "
                        "--proba)")
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
    p.add_argument("--D", metavar="D", help="feature dimension of an explicit/random map "
                   "(default 1000; 0: the kernel has none)")
    p.add_argument("--iterations", metavar="T", help="SGD steps (default 10 n)")
    p.add_argument("--memory", metavar="SIZE", help="memory budget, e.g. 8GB")
    p.add_argument("--kernel", metavar="EXPR", help="kernel expression (shown only)")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("calibrate", parents=[common], help="measure this machine's rates",
                       description="Measure GEMM, Cholesky, kernel and elementwise rates "
                                   "(a few seconds) and cache them for the planner.")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("info", parents=[common], help="describe a saved model",
                       description="Describe a saved model file.")
    p.add_argument("model", metavar="MODEL")
    p.set_defaults(func=cmd_info)
    return parser


def _expected_errors():
    from ..exceptions import MemoryBudgetError

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
            if getattr(args, "progress", False):
                from ..config import config_context

                with config_context(verbosity=1):
                    return args.func(args, out, err)
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
            err.write(f"{PROG}: error: {exc}\n")
            return 2
        except _expected_errors() as exc:
            if args.debug:
                raise
            err.write(f"{PROG}: error: {_message(exc)}\n")
            return 1
        except KeyboardInterrupt:
            err.write(f"{PROG}: interrupted\n")
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
    sys.stderr.write(f"{PROG}: warning: {category.__name__}: {message}\n")
