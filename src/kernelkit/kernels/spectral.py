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
           "StudentT", "ScaledDensity", "Mixture", "Convolution"]


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
class StudentT(SpectralDensity):
    """Multivariate Student-t, 2 nu degrees of freedom, scale 1 / length_scale: Matern's density.

    w = z sqrt(2 nu / g) / length_scale with z ~ Normal(0, I_d) and g ~ chi2(2 nu),
    one g per frequency (a multivariate t, not independent coordinates).
    """

    nu: float
    length_scale: float
    scale: float = 1.0

    def _sample(self, d, D, rng):
        z = rng.normal(size=(d, D))
        g = rng.chisquare(2.0 * self.nu, size=D)
        return z * np.sqrt(2.0 * self.nu / g)[None, :] / self.length_scale


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


class _Combination(SpectralDensity):
    """A density made of n >= 2 parts (a flat sum or product of kernels)."""

    def __init__(self, first, second, *more):
        object.__setattr__(self, "parts", (first, second) + tuple(more))

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other):
        return type(self) is type(other) and self.parts == other.parts

    def __hash__(self):
        return hash((type(self).__name__, self.parts))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(map(repr, self.parts))})"

    @property
    def first(self):
        """The parts but the last, as one density (the left operand of the old binary node)."""
        return self.parts[0] if len(self.parts) == 2 else type(self)(*self.parts[:-1])

    @property
    def second(self):
        """The last part."""
        return self.parts[-1]


class Mixture(_Combination):
    """The density of ``k1 + k2 + ...``: a mixture with weights s_i / sum_j s_j.

    Sampled as the nested mixture ``((p1 + p2) + p3) + ...`` was, with a loop
    instead of recursion, so a sum of thousands of kernels samples the same
    frequencies as before, without a deep call stack: each level splits its
    columns between the first m - 1 parts and part m (one uniform draw per
    column, outermost level first); then the parts sample their columns in order.
    """

    @property
    def scale(self):
        total = self.parts[0].scale
        for part in self.parts[1:]:
            total = total + part.scale
        return total

    def _sample(self, d, D, rng):
        parts = self.parts
        prefix = [parts[0].scale]  # prefix[m] = scale of the first m + 1 parts, left to right
        for part in parts[1:]:
            prefix.append(prefix[-1] + part.scale)
        W = np.zeros((d, D))
        columns = [None] * len(parts)  # the columns each part samples
        cols = np.arange(D)
        for m in range(len(parts) - 1, 0, -1):
            total = prefix[m]
            if total <= 0:  # this level and every one inside it: zero frequencies
                cols = None
                break
            pick_first = rng.random_sample(len(cols)) < prefix[m - 1] / total
            columns[m] = cols[~pick_first]
            cols = cols[pick_first]
        columns[0] = cols
        for part, cols in zip(parts, columns):
            if cols is not None:
                W[:, cols] = part._sample(d, len(cols), rng)
        return W


class Convolution(_Combination):
    """The density of ``k1 * k2 * ...``: w = w1 + w2 + ... with independent draws."""

    @property
    def scale(self):
        total = self.parts[0].scale
        for part in self.parts[1:]:
            total = total * part.scale
        return total

    def _sample(self, d, D, rng):
        W = self.parts[0]._sample(d, D, rng)
        for part in self.parts[1:]:
            W = W + part._sample(d, D, rng)
        return W
