"""Kernels users bring: a Python function ``k(X, Y) -> Gram matrix`` wrapped as a Kernel.

scikit-learn's convention (``SVC(kernel=my_kernel)``): the function takes two
2-D arrays of shapes (n, d) and (m, d) and returns the (n, m) array of kernel
values. :class:`CallableKernel` calls it on blocks of rows through the block
API, so every estimator, ``gram`` and ``GramOperator`` take it; each block is
checked (shape, a real numeric dtype, finite values) so a wrong function fails
with a message naming it, not deep inside a solver.

What a function cannot give, the wrapper does not pretend to have: no
spectral density (random Fourier features refuse it, Nystroem works), no
positive semi-definiteness assumed (``is_psd`` is False), and no model file
(code is never stored in one).
"""

from __future__ import annotations

import numpy as np

from .base import Kernel

__all__ = ["CallableKernel", "CALLABLE_NOT_STORED"]

#: Why a model with a callable kernel cannot be written to a model file.
CALLABLE_NOT_STORED = ("a callable kernel cannot be stored safely; model files hold data, "
                       "never code. Use a built-in kernel or an expression string (see "
                       "kernelkit.kernels.parse_kernel), or keep the model in the running "
                       "process (pickle it yourself if you trust the reader)")

# Rows per call of the function when only the diagonal is wanted: k(x_i, x_i)
# comes from the diagonal of (b x b) blocks, b small so the waste stays small.
_DIAG_ROWS = 64


class CallableKernel(Kernel):
    """A kernel given as a Python function ``function(X, Y) -> K`` (scikit-learn's convention).

    Parameters
    ----------
    function : callable
        Takes float64 arrays X of shape (n, d) and Y of shape (m, d) and
        returns the (n, m) kernel values ``k(X[i], Y[j])``. It is called on
        blocks of rows, so it must be a pairwise function of the rows (as
        every kernel is). Positive semi-definiteness is not assumed.

    Notes
    -----
    Anything that takes a kernel takes a bare function too: it is wrapped in
    this class. The diagonal ``k(x_i, x_i)`` is taken from the function's
    values on small blocks (no separate diagonal function). Random Fourier
    features refuse this kernel (no spectral density is known; use Nystroem),
    and saving a model that holds it raises ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import CallableKernel
    >>> k = CallableKernel(lambda X, Y: (X @ Y.T + 1.0) ** 2)
    >>> k(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))  # (11 + 1)^2
    array([[144.]])
    """

    _param_constraints = {"function": ["callable"]}

    def __init__(self, function):
        self.function = function
        self._check_params()
        if isinstance(function, Kernel):
            raise TypeError("CallableKernel wraps a Python function, not a Kernel; pass the "
                            f"kernel {function!r} itself")

    @property
    def is_psd(self):
        return False  # a user's function: nothing is known

    def _name(self):
        return getattr(self.function, "__name__", type(self.function).__name__)

    def _block(self, X, Y, diag_offset):
        K = self.function(X, Y)
        where = f"the kernel function {self._name()}"
        if not hasattr(K, "shape") or not hasattr(K, "dtype"):
            raise TypeError(f"{where} must return a numpy array of shape (len(X), len(Y)), "
                            f"got {type(K).__name__}")
        K = np.asarray(K)
        if K.shape != (len(X), len(Y)):
            raise ValueError(f"{where} returned shape {K.shape} for X of {len(X)} rows and Y "
                             f"of {len(Y)} rows; it must return the ({len(X)}, {len(Y)}) array "
                             "of k(X[i], Y[j])")
        if K.dtype.kind not in "biuf":
            raise TypeError(f"{where} returned an array of dtype {K.dtype}; kernel values "
                            "must be real numbers")
        K = K.astype(np.float64, copy=False)
        if not np.isfinite(K).all():
            i, j = np.argwhere(~np.isfinite(K))[0]
            raise ValueError(f"{where} returned a non-finite value ({K[i, j]!r} at row {i}, "
                             f"column {j} of a block); kernel values must be finite")
        return K

    def _diag(self, X):
        out = np.empty(len(X))
        for r0 in range(0, len(X), _DIAG_ROWS):
            rows = X[r0:r0 + _DIAG_ROWS]
            out[r0:r0 + len(rows)] = np.diagonal(self._block(rows, rows, 0))
        return out

    def spectral_density(self):
        raise ValueError(f"{self!r} is a Python function: no spectral density is known, so "
                         "random Fourier features cannot be derived from it; use "
                         "kernelkit.features.Nystroem (or write the kernel as a built-in "
                         "expression)")

    def to_dict(self):
        """Refuse: a Python function cannot be written to a safe model file."""
        raise TypeError(CALLABLE_NOT_STORED)
