"""Exact regularisation paths of kernel ridge: leave-one-out and GCV for every alpha.

Everything here is a function of ``G^-1 = (K + alpha I)^-1`` through three
quantities, for the (shifted) targets ``y0``:

- ``a = G^-1 y0`` (the dual coefficients),
- ``b = G^-1 1`` (what the intercept adds),
- ``d = diag(G^-1)``.

They come either from one eigendecomposition ``K = Q diag(w) Q'`` for all
alphas at O(n^2) each (:func:`eigen_path`), or from one Cholesky factor and
its triangular inverse per alpha (:func:`cholesky_path`): 9-10 n^3 flops once
against (2/3) n^3 per alpha (:func:`choose_factorisation` picks by count).

The intercept is kernel ridge's (:class:`~kernelkit.models.KernelRidge` with
``fit_intercept=True``): the mean of the training targets, added to a kernel
ridge fit of the centred targets (the kernel itself is not centred). The
model fitted without sample i uses the mean of the other n - 1 targets,
``m_{-i} = (n m - y_i) / (n - 1)``, and its leave-one-out residual is exactly

    y_i - f_{-i}(x_i) = (a_i - m_{-i} b_i) / d_i

(Allen's PRESS identity applied to the targets ``y - m_{-i}``, whose value
at i does not enter ``f_{-i}``). With ``y0 = y - m`` (so ``m = 0``, which
changes no residual) ``m_{-i} = -y0_i / (n - 1)``. GCV uses the hat matrix
of the same model, ``H_1 = J + H (I - J)`` with ``H = K G^-1 = I - alpha G^-1``
and ``J = 11'/n``: ``tr(H_1) = 1 + tr(H) - 1'H1 / n``.

References
----------
Allen, D. M. (1974). The relationship between variable selection and data
augmentation and a method for prediction. Technometrics 16(1), 125-127.
Golub, G. H., Heath, M. & Wahba, G. (1979). Generalized cross-validation as a
method for choosing a good ridge parameter. Technometrics 21(2), 215-223.
Rifkin, R. & Lippert, R. (2007). Notes on regularized least squares. MIT-CSAIL-TR-2007-025.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

import contextlib

from .._pages import fresh_empty
from ..linalg import eigh_psd, one_blas_thread

__all__ = ["PathPoint", "centre_targets", "path_point", "eigen_path", "cholesky_path",
           "choose_factorisation", "EIGH_CHOLESKY_RATIO", "squared_distances",
           "blas_threads_for", "SINGLE_THREAD_MAX_ORDER"]

#: Time of one symmetric eigendecomposition (LAPACK dsyevd) over one Cholesky
#: factorisation plus its triangular inverse (dpotrf + dtrtri) of the same order,
#: measured on the 2-core dev box with one BLAS thread (best of 2, busy machine,
#: load ~10): n = 1000: 0.40 s vs 0.05 s (8.0); n = 2000: 2.29 vs 0.23 (10.0);
#: n = 3000: 9.59 vs 0.86 (11.1); an earlier run at n = 2000 gave 1.20 vs 0.22
#: (5.5): dsyevd's memory-bound tridiagonal reduction suffers most from a busy
#: machine. The eigendecomposition pays off from about this many alphas on.
EIGH_CHOLESKY_RATIO = 8.0
# Rows of Q per block when forming diag(Q diag(v) Q') for all alphas (bounds the temporary).
_ROWS = 1024
#: Up to this order the factorisations and products of a path run on one BLAS thread:
#: OpenBLAS threads gain little there and, on a busy machine, cost up to 100x
#: (measured at load 14 on the 2-core box: eigh of a 525 x 525 matrix 1.28 s with two
#: threads; 0.05 s expected on one), as ``solvers.normal_equations`` found for D = 500.
#: On a quiet machine two threads pay from about n = 2000 (Cholesky 45 vs 71 ms, eigh
#: 0.74 vs 1.10 s; equal at n = 1000), hence the limit between the two.
SINGLE_THREAD_MAX_ORDER = 1024


def blas_threads_for(order):
    """One BLAS thread up to :data:`SINGLE_THREAD_MAX_ORDER`, else all (a context)."""
    return one_blas_thread() if order <= SINGLE_THREAD_MAX_ORDER else contextlib.nullcontext()


@dataclass(frozen=True)
class PathPoint:
    """Leave-one-out and GCV of one alpha, with the fitted dual coefficients.

    Attributes
    ----------
    alpha : float
    coef : ndarray of shape (n, t)
        ``G^-1 y0``: the dual coefficients of the model on all samples.
    loo_residuals : ndarray of shape (n, t)
        ``y_i - f_{-i}(x_i)``, exact.
    gcv : ndarray of shape (t,)
        Generalised cross-validation, ``mean(residual^2) / (1 - tr(H_1) / n)^2``.
    """

    alpha: float
    coef: np.ndarray
    loo_residuals: np.ndarray
    gcv: np.ndarray


def centre_targets(y, fit_intercept):
    """``(y0, mean)``: 2-D float64 targets shifted by their column means (or not).

    Shifting y by a constant changes neither the residuals nor the dual
    coefficients of the model with an intercept, and keeps the sums of the
    path free of cancellation.
    """
    y = np.asarray(y, dtype=np.float64)
    y = y[:, None] if y.ndim == 1 else y
    if not fit_intercept:
        return y, np.zeros(y.shape[1])
    mean = y.mean(axis=0)
    return y - mean, mean


def path_point(alpha, a, b, d, y0, fit_intercept):
    """Leave-one-out residuals and GCV from ``a = G^-1 y0``, ``b = G^-1 1``, ``d = diag(G^-1)``.

    Parameters
    ----------
    alpha : float
    a : ndarray of shape (n, t)
    b : ndarray of shape (n,)
    d : ndarray of shape (n,)
    y0 : ndarray of shape (n, t)
        Targets, centred when ``fit_intercept`` (:func:`centre_targets`).
    fit_intercept : bool

    Returns
    -------
    PathPoint
    """
    n = d.shape[0]
    d = np.maximum(d, np.finfo(np.float64).tiny)  # diag of an SPD inverse: > 0
    trace_h = n - alpha * float(d.sum())
    if fit_intercept:
        mean_without_i = -y0 / (n - 1)
        loo = (a - mean_without_i * b[:, None]) / d[:, None]
        trace_h += 1.0 - (n - alpha * float(b.sum())) / n
    else:
        loo = a / d[:, None]
    residual = alpha * a  # (I - H) y0 = alpha G^-1 y0 (y0 has mean 0 with an intercept)
    denominator = max(1.0 - trace_h / n, np.finfo(np.float64).eps)
    gcv = np.mean(residual ** 2, axis=0) / denominator ** 2
    return PathPoint(float(alpha), a, loo, gcv)


def eigen_path(w, Q, y0, alphas, fit_intercept=True):
    """Every alpha from one eigendecomposition ``K = Q diag(w) Q'``.

    Parameters
    ----------
    w : ndarray of shape (n,)
        Eigenvalues (clipped at 0, :func:`kernelkit.linalg.eigh_psd`).
    Q : ndarray of shape (n, n)
    y0 : ndarray of shape (n, t)
        Targets from :func:`centre_targets`.
    alphas : sequence of float
        Each > 0.
    fit_intercept : bool, default=True

    Returns
    -------
    list of PathPoint
        One per alpha, in the order given; O(n^2 (t + 2)) each.
    """
    with blas_threads_for(len(w)):
        return _eigen_path(w, Q, y0, alphas, fit_intercept)


def _eigen_path(w, Q, y0, alphas, fit_intercept):
    n, t = y0.shape
    alphas = np.asarray(alphas, dtype=np.float64)
    inv = 1.0 / (w[:, None] + alphas[None, :])                     # (n, A)
    rhs = Q.T @ np.column_stack([y0, np.ones(n)])                   # (n, t + 1)
    scaled = inv[:, :, None] * rhs[:, None, :]                      # (n, A, t + 1)
    ab = (Q @ scaled.reshape(n, -1)).reshape(n, alphas.size, t + 1)
    diag = np.empty((n, alphas.size))
    for r0 in range(0, n, _ROWS):  # diag(Q diag(inv) Q') = (Q * Q) @ inv, by row blocks
        q = Q[r0:r0 + _ROWS]
        diag[r0:r0 + _ROWS] = (q * q) @ inv
    return [path_point(alpha, ab[:, j, :t], ab[:, j, t], diag[:, j], y0, fit_intercept)
            for j, alpha in enumerate(alphas)]


def cholesky_path(K, y0, alphas, fit_intercept=True):
    """Every alpha by its own Cholesky factor ``K + alpha I = L L'`` and ``L^-1``.

    ``G^-1 = L^-T L^-1``, so ``diag(G^-1)`` is the column sums of squares of
    ``L^-1``: (2/3) n^3 flops per alpha, all in level-3 LAPACK. ``K`` is not
    modified. An alpha whose factorisation fails (K far from PSD) falls back
    to the eigendecomposition.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y0 : ndarray of shape (n, t)
    alphas : sequence of float
    fit_intercept : bool, default=True

    Returns
    -------
    list of PathPoint
    """
    with blas_threads_for(K.shape[0]):
        return _cholesky_path(K, y0, alphas, fit_intercept)


def _cholesky_path(K, y0, alphas, fit_intercept):
    n = K.shape[0]
    rhs = np.column_stack([y0, np.ones(n)])
    points = []
    for alpha in np.asarray(alphas, dtype=np.float64):
        G = np.array(K, dtype=np.float64, order="F")  # LAPACK's order: factored in place
        G.flat[::n + 1] += alpha
        L, info = scipy.linalg.lapack.dpotrf(G, lower=1, clean=1, overwrite_a=1)
        if info == 0:
            Linv, info = scipy.linalg.lapack.dtrtri(L, lower=1, overwrite_c=1)
        if info != 0:
            w, Q = eigh_psd(K)
            points.extend(eigen_path(w, Q, y0, [alpha], fit_intercept))
            continue
        ab = Linv.T @ (Linv @ rhs)
        diag = np.einsum("ij,ij->j", Linv, Linv)
        points.append(path_point(alpha, ab[:, :-1], ab[:, -1], diag, y0, fit_intercept))
    return points


def choose_factorisation(n_alphas, setting="auto"):
    """``"eigen"`` (one eigendecomposition per kernel) or ``"cholesky"`` (one per alpha).

    Returns
    -------
    (str, str)
        The choice and why, for the estimator's ``plan_``.
    """
    if setting != "auto":
        return setting, "set by the user"
    if n_alphas >= EIGH_CHOLESKY_RATIO:
        return "eigen", (f"{n_alphas} alphas >= {EIGH_CHOLESKY_RATIO:g}: one eigendecomposition "
                         "costs about as much as that many Cholesky factors with inverses")
    return "cholesky", (f"{n_alphas} alphas < {EIGH_CHOLESKY_RATIO:g}: a Cholesky factor and its "
                        "inverse per alpha cost less than one eigendecomposition")


def squared_distances(X, Y=None):
    """``||x_i - y_j||^2`` in float64 from one matrix product of centred rows, clamped at 0.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (m, d), optional
        None: ``X`` itself (exact zeros on the diagonal).

    Returns
    -------
    ndarray of shape (n, m)
    """
    X = np.asarray(X, dtype=np.float64)
    shift = X.mean(axis=0)  # centred rows: less cancellation in |x|^2 + |y|^2 - 2 x'y
    X = X - shift
    # a copy for X's own distances: numpy sends X @ X.T to the threaded dsyrk, which
    # crashes the wheel's OpenBLAS on tall inputs (G of shape (20000, 200)); a second
    # buffer makes it a gemm
    Yv = X.copy() if Y is None else np.asarray(Y, dtype=np.float64) - shift
    # new pages mapped in one call (the 2 GB of 16,000 rows took seconds page by page)
    D = np.matmul(X, Yv.T, out=fresh_empty((X.shape[0], Yv.shape[0]), np.float64,
                                           populate=True))
    D *= -2.0
    D += np.einsum("ij,ij->i", X, X)[:, None]
    D += np.einsum("ij,ij->i", Yv, Yv)[None, :]
    np.maximum(D, 0.0, out=D)
    if Y is None:
        np.fill_diagonal(D, 0.0)
    return D
