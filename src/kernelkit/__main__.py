"""``python -m kernelkit``: the ``kernelkit`` command."""

import sys

from .cli import main

sys.exit(main())
