"""scikit-learn compatible estimators: validate, plan, solve, store fitted state."""

from .kernel_machine import KernelMachine, KernelMachineClassifier
from .kernel_ridge import KernelRidge
from .kernel_ridge_cv import KernelRidgeCV
from .kitchen_sinks import KitchenSinksClassifier, KitchenSinksRegressor
from .logistic import KernelLogisticRegression
from .svm import KernelSVC

__all__ = ["KernelRidge", "KernelRidgeCV", "KernelSVC", "KernelMachine",
           "KernelMachineClassifier", "KernelLogisticRegression",
           "KitchenSinksRegressor", "KitchenSinksClassifier"]
