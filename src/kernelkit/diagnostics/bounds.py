"""Probability bounds on the error of random Fourier features (pure arithmetic).

Re-exported by :mod:`kernelkit.diagnostics`; see the functions for the
derivations.

Hoeffding, one fixed pair (x, y)
--------------------------------
With the cos+bias feature z_w(x) = sqrt(2 s) cos(w'x + b), each term
z_w(x) z_w(y) = 2 s cos(w'x + b) cos(w'y + b) lies in [-2 s, 2 s]: a range of
4 s. The estimate z(x)'z(y) is the mean of D independent such terms with mean
k(x, y), so Hoeffding's inequality gives::

    P(|z(x)'z(y) - k(x, y)| >= a) <= 2 exp(-2 D a^2 / (4 s)^2) = 2 exp(-D a^2 / (8 s^2))

which for s = k(0) = 1 is the lectures' 2 exp(-D a^2 / 8): the 8 is
(range 4)^2 / 2. The paired (cos, sin) feature averages D/2 terms
cos(w'(x - y)) in [-s, s] (range 2 s), so its bound is 2 exp(-D a^2 / (4 s^2)).

Rahimi & Recht (2007), Claim 1, uniform over a set M
---------------------------------------------------
For a shift-invariant kernel with k(0) = 1 on a compact M of diameter
diam(M) in R^d and the cos+bias features::

    P(sup_{x, y in M} |z(x)'z(y) - k(x, y)| >= eps)
        <= 2^8 (sigma_p diam(M) / eps)^2 exp(-D eps^2 / (4 (d + 2)))

with sigma_p^2 = E_p[w'w], the second moment of the spectral density. For
the RBF kernel exp(-gamma ||delta||^2) (w ~ Normal(0, 2 gamma I)) it is
2 gamma d; for the Cauchy kernel (independent Laplace(0, gamma) coordinates)
2 gamma^2 d; for the Laplacian kernel the density is a product of Cauchy
densities, whose second moment is infinite, so the claim gives no bound
(we return inf / NaN and say so). For a kernel of scale s the error scales by
s, so eps is replaced by eps / s.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["hoeffding_bound", "hoeffding_epsilon", "rahimi_recht_bound",
           "rahimi_recht_epsilon", "spectral_second_moment"]

_HOEFFDING_DENOMINATOR = {"cos_bias": 8.0, "paired": 4.0}


def _positive(value, name):
    """``value`` as float64 (a number or an array): finite and > 0 everywhere, not empty
    (the check of every bound's sizes and scales, :mod:`.learning_bounds`' too)."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.size == 0 or not np.all(np.isfinite(arr) & (arr > 0)):
        raise ValueError(f"{name} must be > 0 and finite, got {value!r}")
    return arr


def _probability(delta, scalar=False):
    """``delta`` in (0, 1): a number or an array of numbers (bools and text refused);
    a float when ``scalar`` (then an array is refused)."""
    arr = np.asarray(delta)
    if arr.dtype.kind not in "iuf" or (scalar and arr.ndim) or \
            not np.all((arr > 0) & (arr < 1)):
        raise ValueError(f"delta must be a probability in (0, 1), got {delta!r}")
    return float(arr) if scalar else arr.astype(np.float64)


def _variant_denominator(variant):
    if variant not in _HOEFFDING_DENOMINATOR:
        raise ValueError(f"variant must be one of {list(_HOEFFDING_DENOMINATOR)}, got {variant!r}")
    return _HOEFFDING_DENOMINATOR[variant]


def hoeffding_bound(D, a, *, scale=1.0, variant="cos_bias"):
    """Hoeffding's bound on P(``|z(x)'z(y) - k(x, y)|`` >= a) for one fixed pair.

    ``2 exp(-D a^2 / (8 s^2))`` for cos+bias features (each term in
    [-2 s, 2 s]), ``2 exp(-D a^2 / (4 s^2))`` for paired cos/sin features; see
    the module docstring for the derivation. Values above 1 are returned as
    computed (the bound is then vacuous).

    Parameters
    ----------
    D : int or array-like
        Number of features, > 0.
    a : float or array-like
        Error level, > 0.
    scale : float, default=1.0
        s = k(0), the kernel's value at zero distance.
    variant : {"cos_bias", "paired"}, default="cos_bias"

    Returns
    -------
    float or ndarray
        Broadcast over ``D`` and ``a``.

    Examples
    --------
    >>> round(hoeffding_bound(800, 0.1), 6)  # 2 exp(-1)
    0.735759
    """
    D, a = _positive(D, "D"), _positive(a, "a")
    s = _positive(scale, "scale")
    out = 2.0 * np.exp(-D * a ** 2 / (_variant_denominator(variant) * s ** 2))
    return float(out) if out.ndim == 0 else out


def hoeffding_epsilon(D, delta, *, scale=1.0, variant="cos_bias"):
    """The error a with ``hoeffding_bound(D, a) == delta``: sqrt(8 s^2 log(2/delta) / D).

    For one fixed pair, ``|z(x)'z(y) - k(x, y)|`` < a with probability >= 1 - delta.

    Parameters
    ----------
    D : int or array-like
    delta : float in (0, 1)
    scale : float, default=1.0
    variant : {"cos_bias", "paired"}, default="cos_bias"

    Returns
    -------
    float or ndarray
    """
    D, delta, s = _positive(D, "D"), _probability(delta), _positive(scale, "scale")
    out = s * np.sqrt(_variant_denominator(variant) * np.log(2.0 / delta) / D)
    return float(out) if out.ndim == 0 else out


def spectral_second_moment(density, n_features):
    """sigma_p^2 = E[w'w] of a spectral density (``kernel.spectral_density()``).

    Gaussian(gamma): 2 gamma d; Laplace(gamma) coordinates (Cauchy kernel):
    2 gamma^2 d; Cauchy coordinates (Laplacian kernel): inf; Dirac: 0. A
    mixture (sum of kernels) averages with the scale weights; a convolution
    (product of kernels) adds (independent zero-mean draws); scaling keeps it.
    """
    from ..kernels import spectral

    d = int(n_features)
    if isinstance(density, spectral.Gaussian):
        return 2.0 * density.gamma * d
    if isinstance(density, spectral.LaplaceDensity):
        return 2.0 * density.gamma ** 2 * d
    if isinstance(density, spectral.CauchyDensity):
        return math.inf
    if isinstance(density, spectral.Dirac):
        return 0.0
    if isinstance(density, spectral.ScaledDensity):
        return spectral_second_moment(density.inner, d)
    if isinstance(density, spectral.Convolution):  # flat: one part per factor
        return sum(spectral_second_moment(p, d) for p in density.parts)
    if isinstance(density, spectral.Mixture):
        scales = [p.scale for p in density.parts]
        moments = [spectral_second_moment(p, d) for p in density.parts]
        total = density.scale
        if total <= 0:
            return 0.0
        # 0 * inf is NaN; a zero-weight component contributes nothing.
        return sum(s / total * m for s, m in zip(scales, moments) if s > 0)
    raise TypeError(f"no second moment known for the spectral density {density!r}")


def _check_rr(sigma2, diameter, n_features):
    sigma2 = float(sigma2)
    if not sigma2 >= 0:  # NaN or negative
        raise ValueError(f"sigma_p^2 must be >= 0 (or inf), got {sigma2!r}")
    diameter = float(_positive(diameter, "diameter"))
    if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features (the input dimension d) must be an integer >= 1, "
                         f"got {n_features!r}")
    return sigma2, diameter, int(n_features)


def rahimi_recht_bound(D, eps, *, sigma2, diameter, n_features, scale=1.0):
    """Rahimi & Recht (2007) Claim 1: bound on P(sup_M ``|z(x)'z(y) - k(x, y)|`` >= eps).

    ``2^8 (sigma_p diam(M) s / eps)^2 exp(-D (eps / s)^2 / (4 (d + 2)))``.
    Returns ``inf`` when sigma_p^2 is infinite (Laplacian kernel: its Cauchy
    spectral density has no second moment, so the claim gives no bound).

    Parameters
    ----------
    D : int or array-like
        Number of cos+bias features.
    eps : float or array-like
        Uniform error level, > 0.
    sigma2 : float
        E_p[w'w] (:func:`spectral_second_moment`).
    diameter : float
        Diameter of the set M (e.g. of the data), > 0.
    n_features : int
        Input dimension d.
    scale : float, default=1.0
        s = k(0).

    Returns
    -------
    float or ndarray
    """
    sigma2, diameter, d = _check_rr(sigma2, diameter, n_features)
    D, eps, s = _positive(D, "D"), _positive(eps, "eps"), float(_positive(scale, "scale"))
    e = eps / s
    with np.errstate(invalid="ignore"):
        out = 2.0 ** 8 * sigma2 * diameter ** 2 / e ** 2 * np.exp(-D * e ** 2 / (4.0 * (d + 2)))
    if math.isinf(sigma2):
        out = np.full(np.broadcast(D, e).shape, np.inf)
    return float(out) if np.ndim(out) == 0 else out


def rahimi_recht_epsilon(D, delta, *, sigma2, diameter, n_features, scale=1.0):
    """The eps at which :func:`rahimi_recht_bound` equals ``delta``.

    With c = D / (4 (d + 2)) and A = 2^8 sigma_p^2 diam^2 / delta, the bound
    equals delta when (eps/s)^2 = t solves A exp(-c t) / t = 1, i.e.
    c t e^(c t) = c A, so t = W(c A) / c with W the Lambert W function
    (principal branch; the bound decreases in t, so the root is unique).
    Returns ``inf`` when sigma_p^2 is infinite and 0 when it is 0.

    Parameters
    ----------
    D : int or array-like
    delta : float in (0, 1)
    sigma2, diameter, n_features, scale
        As in :func:`rahimi_recht_bound`.

    Returns
    -------
    float or ndarray
        With probability >= 1 - delta the error is below eps for every pair of M.
    """
    from scipy.special import lambertw

    sigma2, diameter, d = _check_rr(sigma2, diameter, n_features)
    D, delta = _positive(D, "D"), _probability(delta)
    s = float(_positive(scale, "scale"))
    if math.isinf(sigma2) or sigma2 == 0:
        out = np.full(np.broadcast(D, delta).shape, np.inf if sigma2 else 0.0)
    else:
        c = D / (4.0 * (d + 2))
        A = 2.0 ** 8 * sigma2 * diameter ** 2 / delta
        out = s * np.sqrt(np.real(lambertw(c * A)) / c)
    return float(out) if np.ndim(out) == 0 else out
