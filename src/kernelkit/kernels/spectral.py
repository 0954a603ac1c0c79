"""Spectral densities of shift-invariant kernels (Bochner's theorem).

A continuous shift-invariant PSD kernel k(x - y) with k(0) = s is s times the
characteristic function of a probability density p(w):
k(delta) = s E_w[cos(w' delta)]. Random Fourier features sample w from p.

The table (Rahimi & Recht 2007, with their names):

========================================  ======================================
kernel                                    density of w (per coordinate)
========================================  ======================================
Gaussian  exp(-gamma ||delta||^2)          Normal(0, 2 gamma)
Laplacian exp(-gamma ||delta||_1)          Cauchy(0, gamma)
Cauchy    prod 1/(1 + gamma^2 delta_i^2)   Laplace(0, gamma)
========================================  ======================================

Scaling keeps the density and multiplies the scale; a sum is a mixture
(weights proportional to the scales); a product is the density of the sum of
independent draws (a convolution).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["SpectralDensity", "Gaussian", "CauchyDensity", "LaplaceDensity", "Dirac",
           "ScaledDensity", "Mixture", "Convolution"]


class SpectralDensity:
    """A probability density of frequencies w with a kernel scale s = k(0)."""

    scale = 1.0

    def sample(self, n_features, n_components, random_state=None):
        """Draw frequencies.

        Parameters
        ----------
        n_features : int
            Dimension d of the input.
        n_components : int
            Number D of frequencies.
        random_state : int, RandomState or None

        Returns
        -------
        ndarray of shape (n_features, n_components)
            One frequency per column, so that ``X @ W`` gives the phases.
        """
        return self._sample(n_features, n_components, check_random_state(random_state))

    def _sample(self, d, D, rng):
        raise NotImplementedError


@dataclass(frozen=True)
class Gaussian(SpectralDensity):
    """Normal(0, 2 gamma I): the density of the RBF kernel exp(-gamma ||delta||^2)."""

    gamma: float
    scale: float = 1.0

    def _sample(self, d, D, rng):
        return rng.normal(scale=np.sqrt(2.0 * self.gamma), size=(d, D))


@dataclass(frozen=True)
class CauchyDensity(SpectralDensity):
    """Independent Cauchy(0, gamma) coordinates: the density of the Laplacian kernel."""

    gamma: float
    scale: float = 1.0

    def _sample(self, d, D, rng):
        return self.gamma * rng.standard_cauchy(size=(d, D))


@dataclass(frozen=True)
class LaplaceDensity(SpectralDensity):
    """Independent Laplace(0, gamma) coordinates: the density of the Cauchy kernel."""

    gamma: float
    scale: float = 1.0

    def _sample(self, d, D, rng):
        return rng.laplace(scale=self.gamma, size=(d, D))


@dataclass(frozen=True)
class Dirac(SpectralDensity):
    """All mass at w = 0: the density of a constant kernel."""

    scale: float = 1.0

    def _sample(self, d, D, rng):
        return np.zeros((d, D))


@dataclass(frozen=True)
class ScaledDensity(SpectralDensity):
    """The density of ``c * k``: that of k, with scale multiplied by c.

    (Not the kernel :class:`kernelkit.kernels.Scaled`, whose spectral density
    this is.)
    """

    inner: SpectralDensity
    factor: float

    @property
    def scale(self):
        return self.factor * self.inner.scale

    def _sample(self, d, D, rng):
        return self.inner._sample(d, D, rng)


#: Former name of :class:`ScaledDensity` (it shared its name with the kernel ``Scaled``).
Scaled = ScaledDensity


@dataclass(frozen=True)
class Mixture(SpectralDensity):
    """The density of ``k1 + k2``: a mixture with weights s1/(s1+s2), s2/(s1+s2)."""

    first: SpectralDensity
    second: SpectralDensity

    @property
    def scale(self):
        return self.first.scale + self.second.scale

    def _sample(self, d, D, rng):
        total = self.scale
        if total <= 0:
            return np.zeros((d, D))
        pick_first = rng.random_sample(D) < self.first.scale / total
        W = np.empty((d, D))
        W[:, pick_first] = self.first._sample(d, int(pick_first.sum()), rng)
        W[:, ~pick_first] = self.second._sample(d, int((~pick_first).sum()), rng)
        return W


@dataclass(frozen=True)
class Convolution(SpectralDensity):
    """The density of ``k1 * k2``: w = w1 + w2 with independent draws."""

    first: SpectralDensity
    second: SpectralDensity

    @property
    def scale(self):
        return self.first.scale * self.second.scale

    def _sample(self, d, D, rng):
        return self.first._sample(d, D, rng) + self.second._sample(d, D, rng)
