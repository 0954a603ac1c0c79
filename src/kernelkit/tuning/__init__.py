"""Choosing hyperparameters: regularisation paths, grid checks and learned kernel parameters.

This room sits between ``solvers`` and ``models``: it uses kernels, the Gram engine,
``linalg`` and the solvers, and the estimators (``KernelRidgeCV``, the ``*CV`` learners,
``LearnedKernelRidge``) and the command line call it.
"""

from .grid import GridEdgeWarning, on_edge, warn_if_on_edge
from .nystroem_path import Moments, NystroemPath, accumulate_moments, whitening
from .paths import PathPoint, centre_targets, cholesky_path, eigen_path
from .kernel_params import KernelParameters, contract_derivatives, kernel_parameters
from .marginal_likelihood import log_marginal_likelihood, optimize_marginal_likelihood
from ._optimize import OptimizationResult, minimize_with_restarts

__all__ = ["GridEdgeWarning", "on_edge", "warn_if_on_edge",
           "Moments", "NystroemPath", "accumulate_moments", "whitening",
           "PathPoint", "centre_targets", "cholesky_path", "eigen_path",
           "KernelParameters", "kernel_parameters", "contract_derivatives",
           "log_marginal_likelihood", "optimize_marginal_likelihood",
           "OptimizationResult", "minimize_with_restarts"]
