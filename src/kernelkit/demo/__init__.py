"""The ``kernelkit`` demo: the library's main jobs on bundled real data, timed.

The demo is a list of parts (:data:`PARTS`); each part is a function that
takes a :class:`DemoSettings` and returns a plain dict (JSON-ready: only
str, int, float, bool, None, lists and dicts), with a formatter that turns
the dict into text. Parts print nothing: the command-line interface decides
what to show, so ``kernelkit demo --json`` and the table read the same result.
Each part lives in its own module (``regression``, ``classification``,
``scale``, ``strings``); a new part is one more entry in PARTS.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ._common import DemoSettings
from .classification import format_classification, part_classification
from .regression import format_regression, part_regression
from .scale import format_scale, part_scale
from .strings import format_strings, part_strings
from .warmup import warm_up

__all__ = ["DemoSettings", "PARTS", "run_demo", "format_demo"]

#: The demo's parts, in order: (name, part function, text formatter).
PARTS = [
    ("regression", part_regression, format_regression),
    ("classification", part_classification, format_classification),
    ("scale", part_scale, format_scale),
    ("strings", part_strings, format_strings),
]


def run_demo(quick=False, out_dir=None, *, log=None):
    """Run every part of the demo and return the results.

    Parameters
    ----------
    quick : bool, default=False
        Smaller problems (for tests).
    out_dir : str or path-like, optional
        Directory for the model files (created if missing). Default: a
        temporary directory, removed before returning; the paths in the
        result then no longer exist.
    log : callable, optional
        Called with one-line progress messages.

    Returns
    -------
    dict
        ``kernelkit_version``, ``quick``, ``out_dir``, ``temporary``,
        ``wall_time`` (seconds), ``compile_time`` (seconds spent compiling or loading
        the compiled loops before anything is timed) and ``parts``: one dict per
        part, JSON-ready.
    """
    from .._version import __version__

    start = time.perf_counter()
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="kernelkit-demo-")
        out = Path(tmp.name)
    else:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
    try:
        settings = DemoSettings(quick=bool(quick), out_dir=out, log=log)
        settings.say("compiling kernelkit's loops (the first run after an install; numba "
                     "caches them on disk for the next runs)")
        compile_time = warm_up()
        parts = [fn(settings) for _, fn, _ in PARTS]
    finally:
        if tmp is not None:
            tmp.cleanup()
    return {"kernelkit_version": __version__, "quick": bool(quick), "out_dir": str(out),
            "temporary": tmp is not None, "wall_time": time.perf_counter() - start,
            "compile_time": compile_time, "parts": parts}


_FORMATTERS = {name: fmt for name, _, fmt in PARTS}


def format_demo(result):
    """The demo's result (from :func:`run_demo`) as readable text."""
    lines = [f"kernelkit {result['kernelkit_version']} demo"
             + (" (quick)" if result["quick"] else "")]
    compile_time = result.get("compile_time")
    if compile_time is not None:
        lines.append(f"Compiled loops ready in {compile_time:.1f} s (compiled on the first run "
                     "after an install, then read from numba's cache); the fit times below "
                     "exclude compilation.")
    for i, part in enumerate(result["parts"], 1):
        title = f"{i}. {part['title']}"
        lines += ["", title, "=" * len(title)]
        lines += _FORMATTERS[part["name"]](part, result["temporary"])
    lines += ["", f"Total wall time: {result['wall_time']:.1f} s"]
    return "\n".join(lines)
