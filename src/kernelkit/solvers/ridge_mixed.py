"""Exact kernel ridge in mixed precision: a float32 Cholesky factor preconditions
float64 conjugate gradient.

(K + alpha I) u = y is solved to float64 accuracy without an n x n float64
matrix: K is computed block by block in float64 and stored in float32 (4 n^2
bytes, half of float64), K + alpha I is factored in float32 (``spotrf``, about
twice the rate of ``dpotrf``), and that factor preconditions conjugate
gradient on the float64 system, whose products with K recompute K's blocks in
float64 (:class:`kernelkit.gram.GramOperator`). The preconditioned matrix
(L L')^-1 (K + alpha I) is the identity up to the float32 factor's relative
error (~cond x 6e-8), so each iteration gains that many digits: a few
iterations reach a float64-level residual when cond x 6e-8 << 1. When the
system is too ill-conditioned for float32 the iterations stall: the caller
sees ``converged=False`` and the residual (and warns). A jitter the float32
factorisation needed changes only the preconditioner, not the solution.

This is iterative refinement in its conjugate-gradient form (Higham 2002,
ch. 12; Carson & Higham 2018 for the mixed-precision analysis).

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed. SIAM.
Carson, E. and Higham, N. J. (2018). Accelerating the solution of linear systems by
iterative refinement in three precisions. SIAM J. Sci. Comput. 40(2), A817-A847.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .._budget import row_blocks, rows_per_block
from .._compiled import mirror_lower
from .._validation import n_rows
from ..gram import GramOperator, KernelRows
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
    """

    coef: np.ndarray
    jitter: float
    n_iter: int
    converged: bool
    residual_norm: float | np.ndarray


def _float32_gram(kernel, X):
    """K(X, X) computed in float64 blocks (lower triangle, mirrored), stored in float32."""
    rows = KernelRows(kernel, X, None, dtype=np.float64)
    n = rows.shape[0]
    K = np.empty((n, n), dtype=np.float32)
    step = rows_per_block(n, n_temporaries=1)
    buf = np.empty((min(step, n), n))
    for r0, r1 in row_blocks(n, step):
        block = rows.block(r0, r1, out=buf[:r1 - r0, :r1], lower=True)
        K[r0:r1, :r1] = block
    if n > 1:
        mirror_lower(K)
    return K


class _Shifted:
    """v -> S^(1/2) K S^(1/2) v + alpha v in float64, K's blocks recomputed."""

    def __init__(self, op, root, alpha):
        self.op, self.root, self.alpha = op, root, alpha
        self.shape = op.shape

    def matmat(self, V):
        W = V if self.root is None else V * self.root[:, None]
        Z = self.op.matmat(W)
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
    Memory: the float32 n x n matrix (its factor overwrites it) plus the
    blocked factorisation's and the products' row blocks.
    """
    n = n_rows(X)
    y = np.asarray(y, dtype=np.float64)
    Y = y[:, None] if y.ndim == 1 else y
    root = None if sample_weight is None else np.sqrt(np.asarray(sample_weight, np.float64))
    A = _float32_gram(kernel, X)
    if root is not None:
        r32 = root.astype(np.float32)
        A *= r32[:, None]
        A *= r32[None, :]
    A.flat[:: n + 1] += np.float32(alpha)
    chol = robust_cholesky(A, overwrite_a=True, dtype=np.float32)
    B = Y if root is None else Y * root[:, None]
    op = _Shifted(GramOperator(kernel, X), root, float(alpha))
    res = pcg(op, B, M=_Float32Factor(chol.L), rtol=rtol, maxiter=maxiter, callback=callback)
    U = res.x if root is None else res.x * root[:, None]
    b_norm = np.maximum(np.linalg.norm(B, axis=0), np.finfo(float).tiny)
    rn = np.atleast_1d(np.asarray(res.residual_norm, dtype=np.float64)) / b_norm
    one = y.ndim == 1
    return MixedRidgeResult(U[:, 0] if one else U, float(chol.jitter), int(res.n_iter),
                            bool(res.converged), float(rn[0]) if one else rn)
