"""The version of kernelkit, on the ground floor.

One place for ``__version__``: the package root re-exports it, and the rooms that
print or record it (the command line, the demo, model files) import it from here,
so no room imports the package root it lives under. Imports nothing.
"""

__version__ = "0.1.0"
