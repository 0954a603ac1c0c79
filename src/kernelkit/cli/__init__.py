"""The ``kernelkit`` command: demo, fit, predict, info.

Every command is a small function over parsed arguments that returns an exit
code; :func:`main` turns expected errors into one line on stderr,
``kernelkit: error: <message>``, and an exit code: 2 for a bad command line
(unknown option, bad kernel expression, bad alpha), 1 for a problem met
while running (missing or malformed file, wrong number of columns, memory
budget). ``--debug`` shows the traceback instead. With ``--json`` stdout
holds exactly one JSON document.

``kernelkit fit`` builds a pipeline (``cli/fitting.py``): standardised columns, a
centred target, gamma and alpha chosen and printed, and, for tables with text
(``cli/tables.py``), one text column through a string kernel or text columns
one-hot encoded (``--onehot``); the model file stores all of it. ``--id`` sets an
identifier column aside, which ``kernelkit predict`` (``cli/predicting.py``)
writes beside each prediction and never scores against.
"""

from .main import build_parser, main

__all__ = ["main", "build_parser"]
