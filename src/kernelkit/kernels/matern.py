"""The Matern kernel for nu = 1/2, 3/2, 5/2, with its Student-t spectral density."""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import Interval, Options
from . import spectral
from .base import Kernel, check_resolved
from .data_dependent import GAMMA_RULES

__all__ = ["Matern"]


class Matern(Kernel):
    """The Matern kernel with smoothness nu in {0.5, 1.5, 2.5}.

    With r = ||x - y|| / length_scale:
    nu = 0.5: exp(-r); nu = 1.5: (1 + sqrt(3) r) exp(-sqrt(3) r);
    nu = 2.5: (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r) -- as
    ``sklearn.gaussian_process.kernels.Matern``.

    Parameters
    ----------
    nu : {0.5, 1.5, 2.5}, default=1.5
        Smoothness (the closed forms; other values are refused).
    length_scale : float or {"scale", "auto"}, default="scale"
        Width, > 0. ``"scale"`` is sqrt(n_features X.var() / 2), the length
        whose RBF gamma 1 / (2 length_scale^2) is scikit-learn's
        ``gamma="scale"`` (a Matern kernel tends to that RBF as nu grows);
        ``"auto"`` is sqrt(n_features / 2). Fixed at fit from the training
        data (:meth:`Kernel.resolve`); ``k(X, Y)`` fixes it on X.

    Notes
    -----
    Its spectral density (Bochner) is a multivariate Student-t with 2 nu
    degrees of freedom and scale 1 / length_scale, which random Fourier
    features sample (:class:`~kernelkit.kernels.spectral.StudentT`).

    References
    ----------
    Rasmussen & Williams (2006), Gaussian Processes for Machine Learning, sec. 4.2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Matern
    >>> np.round(Matern(nu=0.5, length_scale=1.0)(np.array([[0.0], [1.0]])), 4)  # exp(-1)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """

    _param_constraints = {
        "nu": [Options(float, (0.5, 1.5, 2.5))],
        "length_scale": [Interval(Real, 0, None, closed="neither"), Options(str, GAMMA_RULES)],
    }
    _data_dependent_params = {"length_scale": "length_scale"}

    def __init__(self, nu=1.5, length_scale="scale"):
        self.nu = nu
        self.length_scale = length_scale
        self._check_params()

    @property
    def is_shift_invariant(self):
        return True

    def spectral_density(self):
        check_resolved(self)
        return spectral.StudentT(nu=float(self.nu), length_scale=float(self.length_scale))

    def sq_euclidean_profile(self):
        check_resolved(self)

        def f(s):
            return self._of_distance(np.sqrt(s) / float(self.length_scale))
        return f

    def _of_distance(self, r):
        nu = float(self.nu)
        if nu == 0.5:
            return np.exp(-r)
        if nu == 1.5:
            s = np.sqrt(3.0) * r
            return (1.0 + s) * np.exp(-s)
        s = np.sqrt(5.0) * r
        return (1.0 + s + s * s / 3.0) * np.exp(-s)

    def _block(self, X, Y, diag_offset):
        shift = Y.mean(axis=0)  # distances are shift-invariant; centring keeps digits
        Xc, Yc = X - shift, Y - shift
        d2 = (np.einsum("ij,ij->i", Xc, Xc)[:, None] + np.einsum("ij,ij->i", Yc, Yc)[None, :]
              - 2.0 * (Xc @ Yc.T))
        np.maximum(d2, 0.0, out=d2)  # round-off
        if diag_offset >= 0:  # exact diagonal of a symmetric Gram matrix
            i = np.arange(len(X))
            inside = i + diag_offset < len(Y)
            d2[i[inside], i[inside] + diag_offset] = 0.0
        return self._of_distance(np.sqrt(d2) / float(self.length_scale))

    def _diag(self, X):
        return np.ones(len(X))

    def value_bound(self, X, Y):
        return 1.0
