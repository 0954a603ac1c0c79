"""kernelkit: kernel machines at every scale.

Exact when the n x n problem is affordable, approximate when it is not, with
kernels as objects with an algebra, a blocked Gram engine within a memory
budget, scikit-learn compatible estimators and safe model files.

Importing kernelkit computes, compiles and starts nothing.
"""

from .config import config_context, get_config, set_config
from .exceptions import (InvalidParameterError, KernelSpecError, MemoryBudgetError,
                         ModelFormatError, NumericalWarning)
from .diagnostics import psd_check
from .features import Nystroem, RandomFourierFeatures, RandomKitchenSinks, TaylorFeatures
from .features import WeisfeilerLehmanFeatures
from .gram import GramOperator, gram
from .kernels import parse_kernel
from .models import (KernelKMeans, KernelKNeighborsClassifier, KernelKNeighborsRegressor,
                     KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                     KernelOneClassSVM, KernelOutlierDetector, KernelRidge,
                     KernelRidgeClassifier, KernelRidgeCV, KernelSVC, KernelSVR, KitchenSinksClassifier, KitchenSinksRegressor)
from .models import (KernelLogisticRegressionCV, KernelMachineClassifierCV, KernelMachineCV,
                     KernelSVCCV, KernelSVRCV)
from .models import KernelPCA
from .models import KernelAgglomerativeClustering, KernelDBSCAN, KernelSimilarity
from .persistence import load, save
from ._version import __version__

__all__ = [
    "__version__", "config_context", "get_config", "set_config", "NumericalWarning",
    "ModelFormatError", "KernelSpecError", "MemoryBudgetError", "InvalidParameterError", "gram", "GramOperator",
    "parse_kernel", "save", "load", "psd_check",
    # estimators and transformers (also in kernelkit.models / kernelkit.features)
    "KernelRidge", "KernelRidgeCV", "KernelRidgeClassifier", "KernelSVC", "KernelSVR",
    "KernelLogisticRegression", "KernelMachine", "KernelMachineClassifier",
    "KernelKNeighborsClassifier", "KernelKNeighborsRegressor", "KernelKMeans",
    "KernelOutlierDetector", "KernelOneClassSVM", "KitchenSinksRegressor", "KitchenSinksClassifier",
    "RandomFourierFeatures", "Nystroem", "RandomKitchenSinks", "TaylorFeatures",
    "WeisfeilerLehmanFeatures",
    "KernelSVCCV", "KernelSVRCV", "KernelLogisticRegressionCV", "KernelMachineCV",
    "KernelMachineClassifierCV", "KernelPCA",
    "KernelDBSCAN", "KernelAgglomerativeClustering", "KernelSimilarity",
]
