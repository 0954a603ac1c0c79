"""scikit-learn compatible estimators: validate, plan, solve, store fitted state."""

from .kernel_ridge import KernelRidge
from .kernel_ridge_cv import KernelRidgeCV
from .svm import KernelSVC

__all__ = ["KernelRidge", "KernelRidgeCV", "KernelSVC"]
