"""The options of ``kernelkit fit``, checked before any file is read: every bad value
or combination is one line (a :class:`~kernelkit.cli.usage.UsageError`, exit code 2)."""

from __future__ import annotations

import math

from .usage import fail_usage, parse_alpha, parse_count, parse_fraction, parse_kernel

__all__ = ["fit_settings"]


def fit_settings(args):
    """The :class:`~kernelkit.cli.fitting.FitSettings` of parsed ``fit`` arguments."""
    from .fitting import FitSettings

    settings = FitSettings(task=args.task, solver=args.solver, scale=not args.no_scale,
                           impute=getattr(args, "impute", None),
                           holdout=parse_fraction(args.holdout), model=args.model,
                           proba=args.proba)
    if args.kernel is not None:
        settings.kernel = parse_kernel(args.kernel)
    _check_model_options(args)
    for one, many, name, what in (("alpha", "cv_alphas", "alpha", "the ridge penalty"),
                                  ("gamma", "cv_gammas", "gamma", "the kernel's width"),
                                  ("C", "cv_C", "C", "the inverse penalty")):
        flag = "--" + one
        if getattr(args, many) is not None:
            if getattr(args, one) is not None:
                fail_usage(f"give either {flag} or --{many.replace('_', '-')}, not both")
            grid = _parse_grid(getattr(args, many), f"--{many.replace('_', '-')}", name)
            setattr(settings, "cv_Cs" if one == "C" else many, tuple(grid))
        elif getattr(args, one) is not None:
            setattr(settings, one, parse_alpha(args.alpha) if one == "alpha"
                    else _parse_positive(getattr(args, one), flag, what))
    if args.gamma is not None or args.cv_gammas is not None:
        from .search import searches_gamma

        if settings.kernel is not None and not searches_gamma(settings.kernel):
            option = "--gamma" if args.gamma is not None else "--cv-gammas"
            fail_usage(f"{option}: the kernel {settings.kernel!r} has no gamma left to "
                        "choose; write gamma inside --kernel, or drop it from there")
    if args.centers is not None:
        if args.solver != "falkon":
            fail_usage("--centers goes with --solver falkon")
        settings.centers = parse_count(args.centers, "--centers")
    return settings


def _check_model_options(args):
    """One line for an option that does not go with --model."""
    if args.model == "ridge":
        if args.C is not None or args.cv_C is not None:
            fail_usage("--C and --cv-C go with --model svm or logistic; kernel ridge takes "
                        "--alpha (the penalty, about 1/C)")
        if args.proba:
            fail_usage("--proba: kernel ridge gives no class probabilities; use --model "
                        "logistic, or --model svm --proba")
        return
    if args.alpha is not None or args.cv_alphas is not None:
        fail_usage(f"--alpha and --cv-alphas go with --model ridge; --model {args.model} "
                    "takes --C (the inverse penalty, about 1/alpha)")
    if args.solver != "auto" or args.centers is not None:
        fail_usage(f"--solver and --centers choose kernel ridge's solver; --model "
                    f"{args.model} has its own")
    if args.task == "regress":
        fail_usage(f"--model {args.model} classifies; --task regress takes --model ridge")


def _parse_grid(text, option, name):
    values = []
    for item in text.split(","):
        item = item.strip()
        try:
            value = float(item)
        except ValueError:
            fail_usage(f"{option}: {item!r} is not a number; write e.g. 1e-3,1e-2,0.1")
        if not math.isfinite(value) or value <= 0:
            fail_usage(f"{option}: every {name} must be > 0 and finite, got {item}")
        values.append(value)
    return values


def _parse_positive(text, option, what):
    try:
        value = float(text)
    except ValueError:
        fail_usage(f"{option}: {text!r} is not a number")
    if not math.isfinite(value) or value <= 0:
        fail_usage(f"{option} must be > 0 and finite ({what}), got {text}")
    return value
