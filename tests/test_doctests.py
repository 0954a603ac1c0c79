"""The docstrings' Examples run as doctests with the tests (``python -m pytest -q``).

They are collected here, from the kernelkit the tests import, rather than with
``--doctest-modules`` over ``src/``: after ``pip install .`` (not editable)
pytest would import ``src/kernelkit`` a second time beside the installed copy
and refuse the mismatch.
"""

import doctest
import importlib
import inspect
import pkgutil

import pytest

import kernelkit
import kernelkit.kernels

# Importing __main__ runs the command line and exits.
NOT_IMPORTED = {"kernelkit.__main__"}
MODULES = sorted(m.name for m in pkgutil.walk_packages(kernelkit.__path__, "kernelkit.")
                 if m.name not in NOT_IMPORTED)


def _examples(module):
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, module.__name__) if t.examples]


@pytest.mark.parametrize("name", ["kernelkit"] + MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    # ELLIPSIS: pytest's default for doctests.
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    for test in _examples(module):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_doctests_are_found():
    n = sum(len(_examples(importlib.import_module(name))) for name in ["kernelkit"] + MODULES)
    assert n >= 50, n


KERNEL_CLASSES = sorted(
    name for name in kernelkit.kernels.__all__
    if inspect.isclass(getattr(kernelkit.kernels, name))
    and issubclass(getattr(kernelkit.kernels, name), kernelkit.kernels.Kernel)
    and name != "Kernel")


@pytest.mark.parametrize("name", KERNEL_CLASSES)
def test_every_public_kernel_class_has_an_example(name):
    doc = getattr(kernelkit.kernels, name).__doc__ or ""
    assert "Examples\n" in doc and ">>> " in doc, f"{name} has no Examples section"
