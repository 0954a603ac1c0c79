"""Load a gallery example (``examples/<topic>.py``) as a module, from its file."""

import importlib.util
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(topic):
    """Import ``examples/<topic>.py`` under the name ``gallery_<topic>`` and return it."""
    path = EXAMPLES / f"{topic}.py"
    name = f"gallery_{topic}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
