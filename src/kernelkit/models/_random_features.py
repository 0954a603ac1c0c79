"""The feature map of the SGD feature strategies when the kernel has no finite one.

"Form psi, run your favourite linear method": a shift-invariant kernel (RBF,
Laplacian, Cauchy, Matern, their positive scalings, sums and products) has a
spectral density, so its random Fourier features psi(x) = sqrt(2 s / D)
cos(W'x + b) give psi(x)'psi(y) -> k(x, y) as D grows (Rahimi & Recht 2007).
:func:`random_fourier_map` draws them for ``strategy="features_on_the_fly"`` or
``"features_cached"`` when no ``features=`` was given and the kernel has no
finite map (the planner, :func:`kernelkit.planning.sgd.plan_machine_sgd`, decided
how many and records it in ``plan_``).
Kernels with neither (sigmoid, string kernels, a user's callable) keep the
refusal, which names the two ways out.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ..features import RandomFourierFeatures
from ..planning.sgd import DEFAULT_RANDOM_FEATURES

__all__ = ["DEFAULT_RANDOM_FEATURES", "random_fourier_map"]


def random_fourier_map(kernel, strategy, random_state, n_components=DEFAULT_RANDOM_FEATURES):
    """Unfitted random Fourier features of ``kernel`` for ``strategy``.

    Parameters
    ----------
    kernel : Kernel
        The resolved kernel of the fit.
    strategy : str
        The features strategy asked for (for the messages).
    random_state : int, RandomState or None
        The estimator's seed; the frequencies get their own integer seed drawn from it.
    n_components : int, default=DEFAULT_RANDOM_FEATURES
        D, as planned.

    Returns
    -------
    RandomFourierFeatures
        ``n_components`` features, to be fitted on the training X.

    Raises
    ------
    ValueError
        If the kernel has neither a finite feature map nor a spectral density.
    """
    density = None
    if getattr(kernel, "input_kind", "vector") in ("vector", "any"):
        try:
            density = kernel.spectral_density()
        except (ValueError, NotImplementedError, TypeError):
            density = None
    if density is None or not density.scale > 0:
        raise ValueError(
            f"strategy={strategy!r} learns w on a feature map psi, but {kernel!r} has neither a "
            "finite feature map (linear, polynomial) nor a spectral density (random Fourier "
            "features exist for shift-invariant kernels on vectors: RBF, Laplacian, Cauchy, "
            "Matern and their positive sums and products); pass features=... (e.g. "
            "kernelkit.features.Nystroem(kernel), which also serves string kernels, or any "
            "transformer with transform(X)) or use strategy='kernel_on_the_fly' or "
            "'gram_cached'")
    seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    return RandomFourierFeatures(kernel, n_components=int(n_components), random_state=seed)
