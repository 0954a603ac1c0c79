"""kernelkit: kernel machines at every scale.

Exact when the n x n problem is affordable, approximate when it is not, with
kernels as objects with an algebra, a blocked Gram engine within a memory
budget, scikit-learn compatible estimators and safe model files.

Importing kernelkit computes, compiles and starts nothing, and imports almost
nothing: every public name below is loaded on first use (PEP 562), so that
``kernelkit --help`` answers before numpy, scipy, scikit-learn and numba load.
"""

from __future__ import annotations

import importlib
import sys
import types

from ._version import __version__

#: Where each public name lives (loaded on first access).
_LAZY = {
    "config_context": ".config", "get_config": ".config", "set_config": ".config",
    "InvalidParameterError": ".exceptions", "KernelSpecError": ".exceptions",
    "MemoryBudgetError": ".exceptions", "ModelFormatError": ".exceptions",
    "NumericalWarning": ".exceptions",
    "psd_check": ".diagnostics",
    "Nystroem": ".features", "RandomFourierFeatures": ".features",
    "RandomKitchenSinks": ".features", "TaylorFeatures": ".features",
    "WeisfeilerLehmanFeatures": ".features",
    "GramOperator": ".gram", "gram": ".gram",
    "parse_kernel": ".kernels",
    "load": ".persistence", "save": ".persistence",
}
for _name in ("KernelKMeans", "KernelKNeighborsClassifier", "KernelKNeighborsRegressor",
              "KernelLogisticRegression", "KernelMachine", "KernelMachineClassifier",
              "KernelOneClassSVM", "KernelOutlierDetector", "KernelRidge",
              "KernelRidgeClassifier", "KernelRidgeCV", "KernelSVC", "KernelSVR",
              "KitchenSinksClassifier", "KitchenSinksRegressor", "KernelLogisticRegressionCV",
              "KernelMachineClassifierCV", "KernelMachineCV", "KernelSVCCV", "KernelSVRCV",
              "KernelPCA", "KernelAgglomerativeClustering", "KernelDBSCAN",
              "KernelSimilarity"):
    _LAZY[_name] = ".models"
del _name

#: Subpackages reachable as attributes (``kernelkit.models``) after ``import kernelkit``.
_SUBMODULES = ("calibration", "cli", "config", "datasets", "demo", "diagnostics",
               "exceptions", "features", "gram", "kernels", "linalg", "models",
               "persistence", "planning", "plotting", "solvers", "testing", "tuning")

__all__ = ["__version__", *_LAZY]


def __getattr__(name):
    """Load a public name (or a subpackage) on first access."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'kernelkit' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))


class _Package(types.ModuleType):
    """The package's module type: a submodule named like a public function
    (``kernelkit.gram``, the module of ``kernelkit.gram()``) does not replace the
    function when it is imported (the import system sets the parent's attribute)."""

    def __setattr__(self, name, value):
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
