"""The feature map of the SGD feature strategies when the kernel has no finite one.

"Form psi, run your favourite linear method": a shift-invariant kernel (RBF,
Laplacian, Cauchy, Matern, their positive scalings, sums and products) has a
spectral density, so its random Fourier features psi(x) = sqrt(2 s / D)
cos(W'x + b) give psi(x)'psi(y) -> k(x, y) as D grows (Rahimi & Recht 2007).
:func:`random_fourier_map` draws them for ``strategy="features_on_the_fly"`` or
``"features_cached"`` when no ``features=`` was given and the kernel has no
finite map, and says so as a :class:`~kernelkit.planning.Choice` in ``plan_``.
Kernels with neither (sigmoid, string kernels, a user's callable) keep the
refusal, which names the two ways out.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from ..features import RandomFourierFeatures
from ..planning import Choice

__all__ = ["DEFAULT_RANDOM_FEATURES", "random_fourier_map"]

#: D of the random Fourier features drawn for a features strategy without
#: ``features=``: the entrywise kernel error is then about sqrt(2/D) ~ 0.045 (one
#: standard deviation for k(0) = 1; Hoeffding: below sqrt(8 log(2/delta) / D) with
#: probability 1 - delta). Pass ``features=RandomFourierFeatures(kernel,
#: n_components=D)`` for another D.
DEFAULT_RANDOM_FEATURES = 1000


def random_fourier_map(kernel, strategy, random_state):
    """Unfitted random Fourier features of ``kernel`` for ``strategy``, and the Choice.

    Parameters
    ----------
    kernel : Kernel
        The resolved kernel of the fit.
    strategy : str
        The features strategy asked for (for the messages).
    random_state : int, RandomState or None
        The estimator's seed; the frequencies get their own integer seed drawn from it.

    Returns
    -------
    fmap : RandomFourierFeatures
        ``n_components=DEFAULT_RANDOM_FEATURES``, to be fitted on the training X.
    choice : Choice

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
    D = DEFAULT_RANDOM_FEATURES
    fmap = RandomFourierFeatures(kernel, n_components=D, random_state=seed)
    choice = Choice("random Fourier features", D,
                    f"strategy={strategy!r} without features=, and {kernel!r} has no finite "
                    f"feature map: D={D} random Fourier features of its spectral density "
                    f"(kernel error about sqrt(2/D) = {np.sqrt(2.0 / D):.3f}); pass "
                    "features=RandomFourierFeatures(kernel, n_components=...) for another D")
    return fmap, choice
