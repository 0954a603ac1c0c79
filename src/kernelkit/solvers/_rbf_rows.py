"""Single RBF kernel rows for SMO's rows on demand at small d, one compiled pass each.

SMO asks for one row at a time. Through the general kernel interface a row of
n = 10,000 on d = 14 cost about 1 ms (the inputs' mean and norms recomputed,
temporaries allocated); here the centred inputs (feature-major, so the inner
products of one row with all others run along contiguous memory) and their
squared norms are prepared once, and a row is one pass computing

    -gamma max(0, ||x_i||^2 + ||x_k||^2 - 2 x_i'x_k)     for every k,

written straight into its slot, then numpy's vectorised ``exp`` in place, and
the exact diagonal k(x_i, x_i) = 1. The compiled pass has a plain-numpy twin
(``solvers._reference.rbf_exponent_row_ref``), tested against it.

Only the isotropic RBF kernel (the caller, which knows its kernels, passes its
gamma) on dense float64 inputs whose squared norms are far from overflow is
served here (:func:`rbf_row_engine` says ``None`` otherwise, and rows come
from :class:`~kernelkit.kernels.KernelRows`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["RBFRowEngine", "rbf_row_engine", "rbf_exponent_row"]

# Squared norms above this could overflow the expansion (the kernel then takes its
# scaled path): not served here.
_SQ_NORM_LIMIT = 1e300


@njit(cache=True, nogil=True, error_model="numpy")
def rbf_exponent_row(XT, sq, gamma, i, out):
    """``out[k] = -gamma max(0, sq[i] + sq[k] - 2 XT[:, i]'XT[:, k])`` for every k.

    Parameters
    ----------
    XT : ndarray of shape (d, n), float64, C-contiguous
        Centred inputs, feature-major.
    sq : ndarray of shape (n,)
        Their squared norms.
    gamma : float
    i : int
    out : ndarray of shape (n,), float64
    """
    d, n = XT.shape
    for k in range(n):
        out[k] = 0.0
    for f in range(d):  # inner products, one contiguous feature row at a time
        xf = XT[f, i]
        row = XT[f]
        for k in range(n):
            out[k] += row[k] * xf
    si = sq[i]
    for k in range(n):
        dist = si + sq[k] - 2.0 * out[k]
        out[k] = -gamma * (dist if dist > 0.0 else 0.0)  # clamped at 0


class RBFRowEngine:
    """Rows k(x_i, X) of the RBF kernel on prepared inputs.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
        Inputs (as the kernel prepared them).
    gamma : float
    """

    def __init__(self, X, gamma):
        Xc = X - X.mean(axis=0)  # distances unchanged; the expansion loses fewer digits
        self.XT = np.ascontiguousarray(Xc.T)
        self.sq = np.einsum("ij,ij->i", Xc, Xc)
        self.gamma = float(gamma)

    def row_into(self, i, out):
        """Write row ``i`` (n values, float64) into ``out``."""
        rbf_exponent_row(self.XT, self.sq, self.gamma, i, out)
        np.exp(out, out=out)
        out[i] = 1.0  # exact diagonal


def rbf_row_engine(kernel_rows, gamma):
    """An :class:`RBFRowEngine` for ``kernel_rows`` (a symmetric
    :class:`~kernelkit.kernels.KernelRows` of the isotropic RBF kernel of width
    ``gamma``, as the caller knows it) on dense float64 inputs of moderate norm,
    else ``None``."""
    X = kernel_rows.X
    if not (kernel_rows.symmetric and isinstance(X, np.ndarray) and X.dtype == np.float64
            and X.ndim == 2):
        return None
    engine = RBFRowEngine(X, gamma)
    if not (np.all(np.isfinite(engine.sq)) and engine.sq.max(initial=0.0) <= _SQ_NORM_LIMIT):
        return None
    return engine
