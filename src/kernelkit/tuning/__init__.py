"""Choosing hyperparameters: regularisation paths, grid checks and learned kernel parameters.

This room sits between ``solvers`` and ``models``: it uses kernels, the Gram engine,
``linalg`` and the solvers, and the estimators (``KernelRidgeCV``, the ``*CV`` learners,
``LearnedKernelRidge``) and the command line call it.
"""

from .grid import GridEdgeWarning, on_edge, warn_if_on_edge

__all__ = ["GridEdgeWarning", "on_edge", "warn_if_on_edge"]
