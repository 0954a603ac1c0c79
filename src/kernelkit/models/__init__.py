"""scikit-learn compatible estimators: validate, plan, solve, store fitted state."""

from .kernel_ridge import KernelRidge
from .kernel_ridge_cv import KernelRidgeCV

__all__ = ["KernelRidge", "KernelRidgeCV"]
