"""Losses l(z; y) of L2-regularised linear models and their derivatives in z.

The score is z = f(x) = w'psi(x) = sum_j u_j k(x, x_j). Labels are real for
regression losses and in {-1, +1} for margin losses. Every function is
vectorised over arrays and numerically safe for large |z| (log-sum-exp,
``np.logaddexp``, ``scipy.special.expit``): no overflow, no NaN.

=================  ===============================  ===========================
loss               l(z; y)                          dl/dz
=================  ===============================  ===========================
squared            (z - y)^2 / 2                    z - y
logistic           log(1 + exp(-y z))               -y expit(-y z)
hinge              max(0, 1 - y z)                  -y [y z < 1]  (a subgradient)
squared_hinge      max(0, 1 - y z)^2 / 2            -y max(0, 1 - y z)
huber (epsilon)    (z-y)^2/2 if |z-y|<=eps, else    clip(z - y, -eps, eps)
                   eps |z-y| - eps^2/2
epsilon_           max(0, |z - y| - eps)            sign(z - y) [|z-y| > eps]
insensitive                                         (a subgradient)
=================  ===============================  ===========================

The epsilon-insensitive loss is support vector regression's (Vapnik 1995;
scikit-learn's ``SVR`` and ``SGDRegressor(loss="epsilon_insensitive")``); like
the hinge loss it has no curvature, so only the (sub)gradient solvers apply.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

__all__ = ["Loss", "LOSSES", "get_loss"]


@dataclass(frozen=True)
class Loss:
    """A loss with its value, first and second derivative in the score z.

    Attributes
    ----------
    name : str
    classification : bool
        Whether labels must be in {-1, +1}.
    smooth : bool
        Whether the second derivative exists everywhere (Newton applies).
    epsilon : float
        Huber threshold, or the half-width of the epsilon-insensitive tube
        (unused by the others).
    """

    name: str
    classification: bool
    smooth: bool
    epsilon: float = 1.35

    def value(self, z, y):
        """l(z; y), elementwise."""
        z, y = np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if self.name == "squared":
            return 0.5 * (z - y) ** 2
        if self.name == "logistic":
            return np.logaddexp(0.0, -y * z)
        if self.name == "hinge":
            return np.maximum(0.0, 1.0 - y * z)
        if self.name == "squared_hinge":
            return 0.5 * np.maximum(0.0, 1.0 - y * z) ** 2
        r = np.abs(z - y)
        e = self.epsilon
        if self.name == "epsilon_insensitive":
            return np.maximum(0.0, r - e)
        return np.where(r <= e, 0.5 * r ** 2, e * r - 0.5 * e * e)

    def derivative(self, z, y):
        """dl/dz (a subgradient for the hinge loss), elementwise."""
        z, y = np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if self.name == "squared":
            return z - y
        if self.name == "logistic":
            return -y * expit(-y * z)
        if self.name == "hinge":
            return np.where(y * z < 1.0, -y, 0.0)
        if self.name == "squared_hinge":
            return -y * np.maximum(0.0, 1.0 - y * z)
        if self.name == "epsilon_insensitive":
            r = z - y
            return np.where(np.abs(r) > self.epsilon, np.sign(r), 0.0)
        return np.clip(z - y, -self.epsilon, self.epsilon)

    def second_derivative(self, z, y):
        """d^2 l / dz^2 (a generalised one where l is not twice differentiable)."""
        z, y = np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if self.name == "squared":
            return np.ones_like(z)
        if self.name == "logistic":
            p = expit(y * z)
            return p * (1.0 - p)
        if self.name in ("hinge", "epsilon_insensitive"):
            return np.zeros_like(z)
        if self.name == "squared_hinge":
            return (y * z < 1.0).astype(np.float64)
        return (np.abs(z - y) <= self.epsilon).astype(np.float64)


LOSSES = {
    "squared": Loss("squared", classification=False, smooth=True),
    "logistic": Loss("logistic", classification=True, smooth=True),
    "hinge": Loss("hinge", classification=True, smooth=False),
    "squared_hinge": Loss("squared_hinge", classification=True, smooth=False),
    "huber": Loss("huber", classification=False, smooth=False),
    "epsilon_insensitive": Loss("epsilon_insensitive", classification=False, smooth=False,
                                epsilon=0.1),
}


def get_loss(name, epsilon=1.35):
    """The :class:`Loss` called ``name`` (``"huber"`` takes ``epsilon`` > 0,
    ``"epsilon_insensitive"`` ``epsilon`` >= 0)."""
    if isinstance(name, Loss):
        return name
    if name not in LOSSES:
        raise ValueError(f"unknown loss {name!r}; choose one of {sorted(LOSSES)}")
    if name == "huber":
        if not epsilon > 0:
            raise ValueError(f"huber epsilon must be > 0, got {epsilon!r}")
        return Loss("huber", classification=False, smooth=False, epsilon=float(epsilon))
    if name == "epsilon_insensitive":
        if not epsilon >= 0:
            raise ValueError(f"epsilon_insensitive epsilon must be >= 0, got {epsilon!r}")
        return Loss(name, classification=False, smooth=False, epsilon=float(epsilon))
    return LOSSES[name]
