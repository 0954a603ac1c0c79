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

from .main import build_parser, main

__all__ = ["main", "build_parser"]
