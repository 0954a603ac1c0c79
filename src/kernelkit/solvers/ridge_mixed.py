"""Exact kernel ridge in mixed precision: a float32 Cholesky factor preconditions
float64 conjugate gradient.

(K + alpha I) u = y is solved to float64 accuracy without an n x n float64
matrix: K is computed block by block in float64 and stored in float32 (4 n^2
bytes, half of float64), K + alpha I is factored in float32 (about twice the
rate of float64; above order 16000 by the blocked Cholesky of
:mod:`kernelkit.linalg_blocked`, at the float32 GEMM rate), and that factor
preconditions conjugate gradient on the float64 system, whose products with K
recompute K's blocks in float64. The preconditioned matrix
(L L')^-1 (K + alpha I) is the identity up to the float32 factor's relative
error (~cond x 6e-8), so each iteration gains that many digits: a few
iterations reach a float64-level residual when cond x 6e-8 << 1. When the
system is too ill-conditioned for float32 the iterations stall: the caller
sees ``converged=False`` and the residual (and warns). A jitter the float32
factorisation needed changes only the preconditioner, not the solution.

This is iterative refinement in its conjugate-gradient form (Higham 2002,
ch. 12; Carson & Higham 2018 for the mixed-precision analysis).

The n^3 / 3 flops of the factorisation are the bound of the whole fit; the
rest is kept to a few n^2 passes. K is symmetric, so both the float32 fill
and each product with K compute only the blocks of rows of its lower
triangle, K[r0:r1, :r1] (half the kernel values), the products using each
block twice (K[r0:r1, :r1] V[:r1] and its transpose onto rows :r0). The
blocks are asked for as blocks of the rectangle K(X, X') with X' = X, which
the kernels compute on every core by tiles (``kernels/tiled.py``) straight
into the float32 matrix (values in float64, rounded once); the diagonal is
then computed like any other entry (RBF's to within an ulp of 1, never above).

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed. SIAM.
Carson, E. and Higham, N. J. (2018). Accelerating the solution of linear systems by
iterative refinement in three precisions. SIAM J. Sci. Comput. 40(2), A817-A847.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from .._budget import row_blocks, rows_per_block
from .._compiled import mirror_lower
from .._validation import n_rows
from ..gram import KernelRows
from .buffers import fresh_empty
from ..linalg import pcg, robust_cholesky

__all__ = ["MixedRidgeResult", "dual_ridge_mixed", "MIXED_RTOL", "MIXED_MAXITER"]

#: Relative residual ||y - (K + alpha I) u|| / ||y|| the iterations stop at: float64
#: round-off of the products is ~1e-15 relative, so 1e-12 is reachable and leaves
#: predictions equal to a float64 Cholesky solve's to ~1e-10 on a well-posed problem.
MIXED_RTOL = 1e-12
#: Iterations before giving up (each recomputes K once); a well-conditioned system
#: needs 3-8.
MIXED_MAXITER = 30


@dataclass(frozen=True)
class MixedRidgeResult:
    """Result of :func:`dual_ridge_mixed`.

    Attributes
    ----------
    coef : ndarray of shape (n,) or (n, t)
    jitter : float
        Jitter the float32 factorisation needed (preconditioner only).
    n_iter : int
    converged : bool
    residual_norm : float or ndarray of shape (t,)
        Final ||y - (K + alpha I) u|| / ||y|| per target.
    seconds : dict
        Wall-clock seconds of the phases: ``"gram"`` (K's lower triangle in
        float32), ``"cholesky"`` (the float32 factorisation), ``"refinement"``
        (the float64 conjugate-gradient iterations).
    """

    coef: np.ndarray
    jitter: float
    n_iter: int
    converged: bool
    residual_norm: float | np.ndarray
    seconds: dict = field(default_factory=dict)


def _lower_rows(kernel, X):
    """K(X, X) as the rectangle K(X, X'), X' = X: its large blocks run on the tiled engine."""
    return KernelRows(kernel, X, X, dtype=np.float64)


def _float32_gram(rows):
    """K(X, X) in float32: its lower triangle by blocks of rows, mirrored."""
    n = rows.shape[0]
    # Every page mapped in one call before the blocks are written (buffers.fresh_empty:
    # at n = 40,000 the 6.4 GB took 5.5-11.7 s of page faults, 2.4-4.5 s populated)
    K = fresh_empty((n, n), np.float32, populate=True)
    for r0, r1 in row_blocks(n, rows_per_block(n, n_temporaries=1)):
        rows.block(r0, r1, out=K[r0:r1, :r1], lower=True)  # float64 values, rounded
    if n > 1:
        mirror_lower(K)
    return K


class _Shifted:
    """V -> S^(1/2) K S^(1/2) V + alpha V in float64, K's lower blocks recomputed.

    Each block K[r0:r1, :r1] serves twice (K symmetric): rows r0:r1 of the
    product, and its transpose for rows :r0. Its buffer is kept between
    products (no fresh pages).
    """

    def __init__(self, rows, root, alpha):
        self.rows, self.root, self.alpha = rows, root, alpha
        self.shape = rows.shape
        n = rows.shape[0]
        self._step = rows_per_block(n, n_temporaries=1)
        self._buffer = np.empty((min(self._step, n), n))

    def matmat(self, V):
        W = V if self.root is None else V * self.root[:, None]
        Z = np.zeros_like(W)
        for r0, r1 in row_blocks(self.shape[0], self._step):
            B = self.rows.block(r0, r1, out=self._buffer[:r1 - r0, :r1], lower=True)
            Z[r0:r1] += B @ W[:r1]
            if r0:
                Z[:r0] += B[:, :r0].T @ W[r0:r1]
        if self.root is not None:
            Z *= self.root[:, None]
        return Z + self.alpha * V


class _Float32Factor:
    """R -> (L L')^-1 R with the float32 lower factor L; float64 out."""

    def __init__(self, L):
        self.L = L
        self.shape = L.shape

    def matmat(self, R):
        Z = scipy.linalg.solve_triangular(self.L, R.astype(np.float32), lower=True,
                                          check_finite=False)
        Z = scipy.linalg.solve_triangular(self.L, Z, lower=True, trans="T", overwrite_b=True,
                                          check_finite=False)
        return Z.astype(np.float64)


def dual_ridge_mixed(kernel, X, y, alpha, *, sample_weight=None, rtol=MIXED_RTOL,
                     maxiter=MIXED_MAXITER, callback=None):
    """Solve (K + alpha I) u = y with a float32 Cholesky and float64 conjugate gradient.

    Parameters
    ----------
    kernel : Kernel
    X : validated input of ``kernel``, n rows
    y : ndarray of shape (n,) or (n, t)
    alpha : float
        Ridge penalty (> 0 unless K is positive definite).
    sample_weight : ndarray of shape (n,), optional
        Weights s_i of the squared errors: (S^1/2 K S^1/2 + alpha I) v = S^1/2 y,
        u = S^1/2 v (as :func:`kernelkit.solvers.dual_ridge`).
    rtol : float, default=:data:`MIXED_RTOL`
    maxiter : int, default=:data:`MIXED_MAXITER`
    callback : callable, optional
        Called after each iteration with the iterate.

    Returns
    -------
    MixedRidgeResult

    Notes
    -----
    Memory: the float32 n x n matrix (its factor overwrites it) plus one
    block of rows of K in float64 (the memory budget's block share).
    """
    n = n_rows(X)
    y = np.asarray(y, dtype=np.float64)
    Y = y[:, None] if y.ndim == 1 else y
    root = None if sample_weight is None else np.sqrt(np.asarray(sample_weight, np.float64))
    rows = _lower_rows(kernel, X)
    start = time.perf_counter()
    A = _float32_gram(rows)
    if root is not None:
        r32 = root.astype(np.float32)
        A *= r32[:, None]
        A *= r32[None, :]
    A.flat[:: n + 1] += np.float32(alpha)
    factored = time.perf_counter()
    chol = robust_cholesky(A, overwrite_a=True, dtype=np.float32)
    refined = time.perf_counter()
    B = Y if root is None else Y * root[:, None]
    op = _Shifted(rows, root, float(alpha))
    res = pcg(op, B, M=_Float32Factor(chol.L), rtol=rtol, maxiter=maxiter, callback=callback)
    seconds = {"gram": factored - start, "cholesky": refined - factored,
               "refinement": time.perf_counter() - refined}
    U = res.x if root is None else res.x * root[:, None]
    b_norm = np.maximum(np.linalg.norm(B, axis=0), np.finfo(float).tiny)
    rn = np.atleast_1d(np.asarray(res.residual_norm, dtype=np.float64)) / b_norm
    one = y.ndim == 1
    return MixedRidgeResult(U[:, 0] if one else U, float(chol.jitter), int(res.n_iter),
                            bool(res.converged), float(rn[0]) if one else rn, seconds)
