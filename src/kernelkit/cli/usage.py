"""Command-line values that argparse cannot check itself, and how they are refused.

The ground floor of :mod:`kernelkit.cli`: :class:`UsageError` (exit code 2), the
parsers of numbers and kernels shared by the commands and the ``fit`` options,
and :func:`column_list`, the short list of column names used in messages. It
imports no other module of the command line, so ``commands``, ``options`` and
``predicting`` all take from it without a circle.
"""

from __future__ import annotations

import math

__all__ = ["UsageError", "fail_usage", "parse_alpha", "parse_kernel", "parse_fraction",
           "parse_count", "column_list"]


class UsageError(Exception):
    """A bad command-line value that argparse cannot check itself (exit code 2)."""


def fail_usage(message):
    """Raise :class:`UsageError` with ``message``."""
    raise UsageError(message)


def parse_alpha(text, option="--alpha"):
    """``text`` as a ridge penalty: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        fail_usage(f"{option}: {text!r} is not a number")
    if not math.isfinite(value) or value < 0:
        fail_usage(f"{option} must be >= 0 and finite (the ridge penalty), got {text}")
    return value


def parse_kernel(text):
    """``text`` as a kernel expression (:func:`kernelkit.kernels.parse_kernel`)."""
    from ..exceptions import KernelSpecError
    from ..kernels import parse_kernel as parse

    try:
        return parse(text)
    except KernelSpecError as exc:
        raise UsageError(f"--kernel: {exc}") from None


def parse_fraction(text):
    """``text`` as the hold-out fraction, in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        fail_usage(f"--holdout: {text!r} is not a number")
    if not 0 <= value < 1:
        fail_usage(f"--holdout must be in [0, 1) (a fraction of the rows), got {text}")
    return value


def parse_count(text, option):
    """``text`` as a whole number >= 1 (at most 1e15; "1e6" is accepted)."""
    try:
        value = float(text)
    except ValueError:
        fail_usage(f"{option} must be a number such as 1e6, got {text!r}")
    if not 1 <= value <= 1e15 or value != int(value):
        fail_usage(f"{option} must be a whole number >= 1, got {text}")
    return int(value)


def column_list(names, limit=8):
    """A list of column names for a message, shortened when long."""
    names = [repr(str(n)) for n in names]
    if len(names) > limit:
        return f"[{', '.join(names[:limit - 2])}, ...] ({len(names)} in all)"
    return f"[{', '.join(names)}]"
