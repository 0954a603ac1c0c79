"""Choosing hyperparameters: regularisation paths, grid checks and learned kernel parameters.

This room sits between ``solvers`` and ``models``: it uses kernels, the Gram engine,
``linalg`` and the solvers, and the estimators (``KernelRidgeCV``, the ``*CV`` learners,
``LearnedKernelRidge``) and the command line call it.
"""

__all__ = []
