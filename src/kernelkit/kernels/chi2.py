"""Chi-squared kernels for histograms (non-negative features), as scikit-learn's."""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import Interval, Options, check_vectors
from .base import Kernel
from .data_dependent import GAMMA_RULES

__all__ = ["Chi2", "AdditiveChi2"]


def _chi2_sum(X, Y):
    """sum_k (x_k - y_k)^2 / (x_k + y_k), terms with x_k + y_k = 0 counted as 0.

    One pass per feature over the (n, m) block (no (n, m, d) temporary).
    """
    out = np.zeros((len(X), len(Y)))
    num = np.empty_like(out)
    den = np.empty_like(out)
    for k in range(X.shape[1]):
        np.subtract(X[:, k:k + 1], Y[:, k], out=num)
        np.multiply(num, num, out=num)
        np.add(X[:, k:k + 1], Y[:, k], out=den)
        np.divide(num, den, out=num, where=den > 0)
        num[den <= 0] = 0.0
        out += num
    return out


class _Chi2Base(Kernel):
    def check_input(self, X, name="X"):
        X = check_vectors(X, name)
        if X.size and float(np.min(X)) < 0:
            raise ValueError(f"{type(self).__name__} is a kernel on histograms: {name} must be "
                             f"non-negative, but its smallest value is {float(np.min(X))!r}. "
                             "Use counts or frequencies (or shift/rescale the features)")
        return X


class Chi2(_Chi2Base):
    """The exponential chi-squared kernel exp(-gamma sum_k (x_k - y_k)^2 / (x_k + y_k)).

    As ``sklearn.metrics.pairwise.chi2_kernel``. Inputs must be non-negative
    (histograms); it is positive semi-definite on them.

    Parameters
    ----------
    gamma : float or {"scale", "auto"}, default="scale"
        > 0. ``"scale"`` is 1 / sum_k (var_k / mean_k) over the columns of the
        training X (columns of mean 0 left out): for two rows drawn from X,
        (x_k - y_k)^2 / (x_k + y_k) is about var_k / mean_k, so gamma times
        the chi-squared distance is of order 1. ``"auto"`` is 1 / n_features.
        Fixed at fit (:meth:`Kernel.resolve`); ``k(X, Y)`` fixes it on X.
        scikit-learn's ``chi2_kernel`` defaults to gamma=1.0.

    References
    ----------
    Zhang, Marszalek, Lazebnik & Schmid (2007), Local features and kernels for
    classification of texture and object categories, IJCV 73(2).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Chi2
    >>> np.round(Chi2(gamma=1.0)(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])), 4)  # exp(-2)
    array([[0.1353]])
    """

    _param_constraints = {"gamma": [Interval(Real, 0, None, closed="neither"),
                                    Options(str, GAMMA_RULES)]}
    _data_dependent_params = {"gamma": "chi2_gamma"}

    def __init__(self, gamma="scale"):
        self.gamma = gamma
        self._check_params()

    def _block(self, X, Y, diag_offset):
        return np.exp(-float(self.gamma) * _chi2_sum(X, Y))

    def _diag(self, X):
        return np.ones(len(X))

    def value_bound(self, X, Y):
        return 1.0


class AdditiveChi2(_Chi2Base):
    """The additive chi-squared kernel -sum_k (x_k - y_k)^2 / (x_k + y_k).

    As ``sklearn.metrics.pairwise.additive_chi2_kernel``: values are <= 0 and
    the kernel is only conditionally positive definite (``is_psd`` is False);
    ``Chi2`` (its exponential) is PSD. Inputs must be non-negative.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import AdditiveChi2
    >>> AdditiveChi2()(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]))
    array([[-2.]])
    """

    def __init__(self):
        pass

    @property
    def is_psd(self):
        return False

    def _block(self, X, Y, diag_offset):
        return -_chi2_sum(X, Y)

    def _diag(self, X):
        return np.zeros(len(X))
