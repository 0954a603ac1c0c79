"""Kernel ridge for many alphas on one training fold: one factorisation, then CG.

The k-fold search of :class:`~kernelkit.models.KernelRidgeCV` (``cv`` an int or a
splitter, ``solver="exact"``) solves ``(K + alpha I) U = Y`` on each fold's training
rows for every alpha of the grid. scikit-learn's ``GridSearchCV(KernelRidge())``
factors ``K + alpha I`` once per alpha, (1/3) m^3 flops each. Here one float32
Cholesky factor ``L L' ~ K + alpha_ref I`` (``spotrf`` through
:func:`kernelkit.linalg.robust_cholesky`, about twice ``dpotrf``'s rate, and free of
the threaded-potrf crash) preconditions float64 conjugate gradient for all alphas at
once. The preconditioned matrix ``(K + alpha_ref I)^-1 (K + alpha I)`` has its
eigenvalues in ``[min(1, a / a_ref), max(1, a / a_ref)]`` (up to the float32
factor's error), so a few tens of iterations reach a float64-level residual; each
iteration is one product of K with the active columns of every alpha (one pass
over K for the whole grid) and two float32 triangular solves. A column that does
not reach the tolerance in :data:`FOLD_MAXITER` iterations is solved by its own
float64 Cholesky factor (counted in the result, never silent).

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed.,
ch. 12 (iterative refinement). SIAM.
Saad, Y. (2003). Iterative Methods for Sparse Linear Systems, 2nd ed., ch. 9
(preconditioned conjugate gradient). SIAM.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..exceptions import NumericalWarning
from ..linalg import pcg, robust_cholesky
from .paths import blas_threads_for

__all__ = ["FoldSolves", "shifted_solves", "fold_solves", "reference_alpha",
           "FOLD_RTOL", "FOLD_MAXITER"]

#: Relative residual ``||y - (K + alpha I) u|| / ||y||`` every alpha is solved to:
#: held-out errors then equal those of a float64 Cholesky solve to ~1e-10 relative.
FOLD_RTOL = 1e-12
#: Iterations of the batched CG before a column falls back to its own float64 factor.
FOLD_MAXITER = 300


@dataclass(frozen=True)
class FoldSolves:
    """Result of :func:`shifted_solves`.

    Attributes
    ----------
    coef : ndarray of shape (n_alphas, m, t)
        ``(K + alpha_j I)^-1 Y`` for every alpha.
    alpha_ref : float
        The shift of the float32 factor.
    n_iter : int
        CG iterations (one pass over K each, for all active alphas).
    fallbacks : int
        Alphas solved by their own float64 Cholesky factor (CG short of the tolerance).
    residual : ndarray of shape (n_alphas,)
        Final relative residual per alpha (largest over targets), recomputed exactly.
    """

    coef: np.ndarray
    alpha_ref: float
    n_iter: int
    fallbacks: int
    residual: np.ndarray


def reference_alpha(alphas):
    """The factor's shift: the geometric middle of the grid's extremes (each alpha's
    preconditioned spectrum then spans at most the square root of the grid's ratio)."""
    alphas = np.asarray(alphas, dtype=np.float64)
    return float(np.sqrt(alphas.min() * alphas.max()))


def _factor(K, shift):
    """Float32 Cholesky factor (Fortran order, lower) of ``K + shift I``."""
    A = K.T.astype(np.float32)  # K symmetric: its transpose is the Fortran-ordered copy
    A.flat[:: A.shape[0] + 1] += np.float32(shift)
    return robust_cholesky(A, overwrite_a=True, dtype=np.float32).L


def _precondition(L, R):
    """``(L L')^-1 R`` by two float32 triangular solves; float64 out."""
    trtrs = scipy.linalg.lapack.strtrs
    Z, info = trtrs(L, np.asfortranarray(R, dtype=np.float32), lower=1, trans=0,
                    overwrite_b=1)
    if info == 0:
        Z, info = trtrs(L, Z, lower=1, trans=1, overwrite_b=1)
    if info != 0:
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")
    return Z.astype(np.float64)


def shifted_solves(K, Y, alphas, *, rtol=FOLD_RTOL, maxiter=FOLD_MAXITER, alpha_ref=None):
    """``(K + alpha I)^-1 Y`` for every alpha from one float32 factor and batched CG.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite, float64 (not modified).
    Y : ndarray of shape (m, t)
    alphas : sequence of float
        Each > 0.
    rtol : float, default=:data:`FOLD_RTOL`
    maxiter : int, default=:data:`FOLD_MAXITER`
    alpha_ref : float, optional
        The factor's shift; default :func:`reference_alpha`.

    Returns
    -------
    FoldSolves
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    alphas = np.asarray(alphas, dtype=np.float64)
    m, t = Y.shape
    n_a = alphas.size
    ref = reference_alpha(alphas) if alpha_ref is None else float(alpha_ref)
    L = _factor(K, ref)
    shift = np.repeat(alphas, t)                    # column j: alpha j // t, target j % t
    B = np.tile(Y, (1, n_a))
    b_norm = np.maximum(np.linalg.norm(B, axis=0), np.finfo(np.float64).tiny)
    with warnings.catch_warnings():
        # a breakdown (p'Ap <= 0 from round-off on a PSD K) stops that column; the
        # residual check below gives it its own float64 factor, so it is not news
        warnings.simplefilter("ignore", NumericalWarning)
        run = pcg(K, B, M=lambda R: _precondition(L, R), rtol=rtol, maxiter=maxiter,
                  shift=shift)
    X, n_iter = run.x, run.n_iter
    del L
    true = np.linalg.norm(B - (K @ X + shift * X), axis=0) / b_norm
    fallbacks = 0
    for a in range(n_a):
        cols = slice(a * t, (a + 1) * t)
        if true[cols].max() <= 100 * rtol:  # held-out errors still to ~1e-9
            continue
        fallbacks += 1
        G = np.array(K, order="F")
        G.flat[:: m + 1] += alphas[a]
        chol = robust_cholesky(G, overwrite_a=True)
        X[:, cols] = scipy.linalg.cho_solve((chol.L, True), Y, check_finite=False)
        del G, chol
        true[cols] = (np.linalg.norm(Y - (K @ X[:, cols] + alphas[a] * X[:, cols]), axis=0)
                      / b_norm[cols])
    coef = X.reshape(m, n_a, t).transpose(1, 0, 2)
    return FoldSolves(np.ascontiguousarray(coef), ref, n_iter, fallbacks,
                      true.reshape(n_a, t).max(axis=1))


def _direct_solves(K, Y, alphas, coef, info):
    """One float64 Cholesky factor per alpha into ``coef``; counts into ``info``."""
    m = Y.shape[0]
    b_norm = np.maximum(np.linalg.norm(Y, axis=0), np.finfo(np.float64).tiny)
    with blas_threads_for(m):
        for j, a in alphas:
            G = np.array(K, dtype=np.float64, order="F")
            G.flat[:: m + 1] += a
            chol = robust_cholesky(G, overwrite_a=True)
            coef[j] = scipy.linalg.cho_solve((chol.L, True), Y, check_finite=False)
            del G, chol
            info["factors"] += 1
            res = np.linalg.norm(Y - K @ coef[j] - a * coef[j], axis=0) / b_norm
            info["residual"] = max(info["residual"], float(res.max()))


def fold_solves(K, Y, alphas, groups, *, rtol=FOLD_RTOL, maxiter=FOLD_MAXITER):
    """``(K + alpha I)^-1 Y`` for every alpha, group by group as planned.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite, float64 (not modified).
    Y : ndarray of shape (m,) or (m, t)
    alphas : sequence of float
        Each > 0.
    groups : sequence of (sequence of int, float or None)
        Indices into ``alphas`` and a shift: one float32 factor of ``K + shift I``
        preconditions :func:`shifted_solves` for the group's alphas; shift None, one
        float64 Cholesky factor per alpha of the group. Every alpha in exactly one
        group. The planner's choice
        (:func:`kernelkit.planning.fold_search.plan_fold_solves`), given as it is.
    rtol : float, default=:data:`FOLD_RTOL`
    maxiter : int, default=:data:`FOLD_MAXITER`

    Returns
    -------
    (coef, info)
        ``coef`` of shape (n_alphas, m, t) in the order of ``alphas``; ``info`` a dict
        with ``factors`` (float32 and float64), ``n_iter`` (summed over groups),
        ``fallbacks``, ``residual`` (largest) and ``direct`` (True when every alpha had
        its own float64 factor).
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    seen = sorted(int(i) for idx, _ in groups for i in idx)
    if seen != list(range(alphas.size)):
        raise ValueError(f"groups must hold each of the {alphas.size} alphas' indices "
                         f"exactly once, got {seen}")
    coef = np.empty((alphas.size, Y.shape[0], Y.shape[1]))
    info = {"factors": 0, "n_iter": 0, "fallbacks": 0, "residual": 0.0,
            "direct": all(shift is None for _, shift in groups)}
    for idx, shift in groups:
        idx = np.asarray(idx, dtype=np.intp)
        if shift is None:
            _direct_solves(K, Y, [(int(j), alphas[j]) for j in idx], coef, info)
            continue
        r = shifted_solves(K, Y, alphas[idx], rtol=rtol, maxiter=maxiter, alpha_ref=shift)
        coef[idx] = r.coef
        info["factors"] += 1
        info["n_iter"] += r.n_iter
        info["fallbacks"] += r.fallbacks
        info["residual"] = max(info["residual"], float(r.residual.max()))
    return coef, info
