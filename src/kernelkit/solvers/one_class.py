"""The one-class SVM (nu formulation, Schoelkopf et al. 2001) on the SMO loop of :mod:`.smo`.

libsvm's dual (Chang & Lin 2011, section 2.4)::

    min_a  1/2 a'Ka   s.t.  0 <= a_i <= C_i,  sum_i a_i = nu sum_i C_i

with C_i = 1 (or the sample weights, as scikit-learn's libsvm). It is the
classifier's problem with every label +1 and a zero linear term, started from
libsvm's feasible point (the first samples at their bound C_i until nu sum C_i
is used up, the next one fractional), so the same working-set selection,
shrinking, stopping rule and row cache solve it. The decision function is
f(x) = sum_i a_i k(x_i, x) - rho, rho from libsvm's ``calculate_rho``.

References
----------
Schoelkopf, B., Platt, J. C., Shawe-Taylor, J., Smola, A. J. and Williamson,
R. C. (2001). Estimating the support of a high-dimensional distribution.
Neural Computation 13(7), 1443-1471.
Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for support vector
machines. ACM Transactions on Intelligent Systems and Technology 2(3), 27.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..gram import KernelRows
from .smo import _drive, _GramRows, row_source

__all__ = ["OneClassResult", "one_class_gram", "one_class_kernel", "one_class_start"]


@dataclass(frozen=True)
class OneClassResult:
    """Solution of the one-class SVM dual.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        0 <= alpha_i <= C_i, sum alpha = nu sum C.
    rho : float
        f(x) = sum_i alpha_i k(x_i, x) - rho.
    n_iter : int
    objective : float
        1/2 alpha'K alpha (minimised).
    max_violation : float
        m(alpha) - M(alpha) at the end (< tol when converged).
    converged : bool
    """

    alpha: np.ndarray
    rho: float
    n_iter: int
    objective: float
    max_violation: float
    converged: bool


def one_class_start(C, nu):
    """libsvm's starting point: alpha_i = min(C_i, what is left of nu sum C), in order.

    With unit bounds: the first floor(nu n) alphas are 1, the next one
    nu n - floor(nu n), the rest 0 (``solve_one_class`` in libsvm's svm.cpp, with
    scikit-learn's per-sample bounds).
    """
    C = np.asarray(C, dtype=np.float64)
    alpha = np.zeros(C.shape[0])
    nu_l = 0.0
    for c in C.tolist():  # libsvm's order of summation (round-off included)
        nu_l += c * nu
    i = 0
    while nu_l > 0 and i < C.shape[0]:
        alpha[i] = min(C[i], nu_l)
        nu_l -= alpha[i]
        i += 1
    return alpha


def _solve(source, QD, C, nu, tol, max_iter, shrinking, callback):
    n = QD.shape[0]
    Cb = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)))
    y = np.ones(n)
    p = np.zeros(n)
    res, G = _drive(source, y, Cb, QD, tol, max_iter, shrinking, p, alpha0=one_class_start(Cb, nu),
                    callback=callback)
    # G = K alpha (p = 0): the objective without another product
    return OneClassResult(alpha=res.alpha, rho=-res.bias, n_iter=res.n_iter,
                          objective=0.5 * float(res.alpha @ G),
                          max_violation=res.max_violation, converged=res.converged)


def one_class_gram(K, nu, C=1.0, *, tol=1e-3, max_iter=None, shrinking=True, callback=None):
    """Solve the one-class SVM dual by SMO on a stored Gram matrix (libsvm's formulation).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix (not modified).
    nu : float in (0, 1]
        Upper bound on the fraction of training errors and lower bound on the
        fraction of support vectors.
    C : float or ndarray of shape (n,), default=1.0
        Bounds C_i > 0 (scikit-learn: the sample weights).
    tol, max_iter, shrinking, callback
        As :func:`~kernelkit.solvers.smo.smo_gram`.

    Returns
    -------
    OneClassResult
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    return _solve(_GramRows(K), np.ascontiguousarray(np.diag(K)), C, nu, tol, max_iter,
                  shrinking, callback)


def one_class_kernel(kernel, X, nu, C=1.0, *, tol=1e-3, max_iter=None, shrinking=True,
                     cache_bytes=None, batch=64, callback=None):
    """Solve the one-class SVM dual with kernel rows on demand (LRU cache), as
    :func:`one_class_gram` (``X`` validated inputs of ``kernel``; ``cache_bytes``
    and ``batch`` as :func:`~kernelkit.solvers.smo.smo_kernel`)."""
    source, QD = row_source(KernelRows(kernel, X), cache_bytes, batch)
    return _solve(source, QD, C, nu, tol, max_iter, shrinking, callback)
