"""A low-rank (Nystroem) preconditioner for ``K + alpha I`` with large alphas.

The k-fold ridge search (:mod:`kernelkit.tuning.fold_path`) solves ``(K + alpha I) u
= y`` for a grid of alphas on each training fold. For the small alphas a float32
Cholesky factor of ``K + alpha_ref I`` is the preconditioner, at (1/3) m^3 flops. For
an alpha above the eigenvalues K's leading part leaves out, a rank-r approximation
``K ~ F F'`` is enough: with ``F F' = U diag(s) U'`` and ``lam`` its smallest kept
eigenvalue, the preconditioner of Frangella, Tropp and Udell,

    P^-1 = (lam + alpha) U (diag(s) + alpha I)^-1 U' + (I - U U'),

makes the condition number of ``P^-1 (K + alpha I)`` at most ``(lam + alpha + ||K -
F F'||) / alpha``, and it costs m r^2 flops to build (not m^3) and one read each of
two m x r matrices per application (:data:`BYTES_PER_RANK_ROW`). ``F`` comes from
randomly pivoted Cholesky (Chen, Epperly, Tropp and Webber), a block of pivots at a
time: pivots drawn with probability proportional to the diagonal of the residual
``K - F F'``, which reads only the pivots' rows of K.

References
----------
Chen, Y., Epperly, E. N., Tropp, J. A. and Webber, R. J. (2025). Randomly pivoted
Cholesky: practical approximation of a kernel matrix with few entry evaluations.
Communications on Pure and Applied Mathematics 78(5), 995-1041.
Frangella, Z., Tropp, J. A. and Udell, M. (2023). Randomized Nystroem
preconditioning. SIAM Journal on Matrix Analysis and Applications 44(2), 718-752.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .._compiled import matmat_t

__all__ = ["LowRankPreconditioner", "randomly_pivoted_cholesky", "low_rank_rank",
           "low_rank_bytes", "LOW_RANK_MAX", "PIVOT_BLOCK", "APPLY_COMPILED_MAX",
           "BYTES_PER_RANK_ROW"]

#: Largest rank of the preconditioner (it holds two m x rank float64 matrices: 205 MB
#: at m = 12,800, and a third while it is built). On California (m = 12,800, RBF gamma
#: 0.1-2), rank 1000 left alpha = 1 at 6-37 CG iterations to a 1e-12 residual and
#: alpha = 10 at 4-16.
LOW_RANK_MAX = 1000
#: Pivots drawn per block (one GEMM of the m rows with the block's columns each).
PIVOT_BLOCK = 100
#: Columns up to which an application is two compiled passes (one over ``G'``, one over
#: ``G``, :func:`kernelkit._compiled.matmat_t`) instead of BLAS's GEMM, which reads a
#: tall matrix several times over for a few columns (measured at m = 4800, rank 480,
#: 3 columns: 7.2 ms by GEMM).
APPLY_COMPILED_MAX = 16
#: Bytes per row and unit of rank while the preconditioner is built (F, G and G', float64);
#: 16 once built.
BYTES_PER_RANK_ROW = 24
# eigenvalues of F'F below this fraction of the largest are left out of U (their
# directions then get the identity, which keeps P SPD and avoids dividing by them)
_KEEP_FRACTION = 1e-9


def low_rank_rank(m):
    """The rank asked of the preconditioner for a training fold of ``m`` rows.

    Parameters
    ----------
    m : int

    Returns
    -------
    int
        ``min(LOW_RANK_MAX, m // 10)``, at least 1.
    """
    return int(max(1, min(LOW_RANK_MAX, m // 10)))


def low_rank_bytes(m, rank):
    """Peak bytes of building a rank-``rank`` preconditioner for ``m`` rows (F, G and G')."""
    return float(BYTES_PER_RANK_ROW) * m * rank


def randomly_pivoted_cholesky(K, rank, *, block=PIVOT_BLOCK, seed=0):
    """``K ~ F F'`` of rank at most ``rank`` by block randomly pivoted Cholesky.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite (only its diagonal and the pivots' rows are
        read; each is checked finite).
    rank : int
        Largest number of pivots (columns of F).
    block : int, default=:data:`PIVOT_BLOCK`
        Pivots drawn per block.
    seed : int, default=0
        The pivots' random generator (the same K and seed give the same F). The
        search fixes it: only speed and ``plan_`` depend on the pivots, its answers
        (solved to the tolerance) do not.

    Returns
    -------
    F : ndarray of shape (m, r), r <= rank, float64
        ``K - F F'`` is PSD (up to round-off) and zero on the pivots' rows.
    pivots : ndarray of shape (r,)

    Raises
    ------
    ValueError
        When K's diagonal or a pivot's row holds NaN or infinity.

    Notes
    -----
    Each block draws ``block`` indices with probability proportional to the
    residual's diagonal (with replacement, repeats dropped), forms the residual's
    columns ``G = K[:, S] - F F[S]'`` and accepts the pivots of a greedy pivoted
    Cholesky of ``G[S]`` whose residual diagonal stays above round-off, so a
    duplicate or dependent row never divides by zero. It stops early when the
    residual's trace is at round-off level.
    """
    m = K.shape[0]
    rank = int(min(rank, m))
    d = np.array(np.diagonal(K), dtype=np.float64)
    if not np.isfinite(d).all():
        raise ValueError("K has a non-finite diagonal entry")
    F = np.zeros((m, rank))
    pivots = np.empty(rank, dtype=np.intp)
    tiny = 1e-13 * max(float(d.max(initial=0.0)), np.finfo(np.float64).tiny)
    rng = np.random.default_rng(seed)
    r = 0
    while r < rank:
        np.maximum(d, 0.0, out=d)
        total = float(d.sum())
        if not total > m * tiny:
            break
        S = np.unique(rng.choice(m, size=min(block, rank - r), p=d / total))
        G = K[S, :].T.astype(np.float64, copy=False)  # K symmetric: rows are columns
        if not np.isfinite(G).all():
            raise ValueError("K has a NaN or infinite entry in a pivot's row; the kernel "
                             "values overflowed or the data hold NaN/inf: check X and "
                             "the kernel's parameters")
        if r:
            G -= F[:, :r] @ F[S, :r].T
        H = G[S].copy()
        accepted = []
        L = np.zeros_like(H)
        for _ in range(S.size):  # greedy pivoted Cholesky of the block's residual
            diag = np.diagonal(H).copy()
            diag[accepted] = -np.inf
            p = int(np.argmax(diag))
            if not diag[p] > tiny:
                break
            col = H[:, p] / np.sqrt(H[p, p])
            L[:, len(accepted)] = col
            H -= np.outer(col, col)
            accepted.append(p)
        if not accepted:
            d[S] = 0.0  # residual at round-off there: never drawn again
            continue
        a = len(accepted)
        Lp = L[accepted, :a]  # lower triangular: the factor of G[S][acc, acc]
        new = scipy.linalg.solve_triangular(Lp, G[:, accepted].T, lower=True,
                                            check_finite=False).T
        F[:, r:r + a] = new
        pivots[r:r + a] = S[accepted]
        d -= np.einsum("ij,ij->i", new, new)
        d[S[accepted]] = 0.0
        r += a
    return F[:, :r], pivots[:r]


class LowRankPreconditioner:
    """``R -> P_alpha^-1 R`` (Frangella, Tropp and Udell) from ``K ~ F F'``, one alpha
    per column.

    Parameters
    ----------
    F : ndarray of shape (m, r)
        From :func:`randomly_pivoted_cholesky`.

    Attributes
    ----------
    eigenvalues : ndarray of shape (q,)
        The kept eigenvalues ``s`` of ``F F'``, decreasing.
    tail : float
        The smallest kept eigenvalue (``lam``; 0.0 for a rank-0 ``F``), what the
        planner's iteration estimate reads.
    G, Gt : ndarray of shape (m, q) and (q, m)
        ``F V`` in both layouts (C order).

    Notes
    -----
    ``U = G diag(s)^-1/2`` with ``G = F V`` and ``F'F = V diag(s) V'``, so the
    application is ``R + G diag(c(alpha) / s) G' R`` with ``c / s = (lam - s) / ((s +
    alpha) s)`` (exactly 0 at ``s = lam``): two passes over G (held in both layouts, so
    each is one compiled pass reading it once for up to :data:`APPLY_COMPILED_MAX`
    columns), in float64. The operator is SPD up to round-off; where ``(lam + alpha) /
    (s_max + alpha)`` falls to the round-off level, CG may meet a breakdown, and the
    caller's residual check then gives that alpha its own float64 factor.
    """

    def __init__(self, F):
        F = np.asarray(F, dtype=np.float64)
        if F.shape[1]:
            s, V = np.linalg.eigh(F.T @ F)
            keep = s > _KEEP_FRACTION * max(float(s[-1]), 0.0)
            self.eigenvalues, V = s[keep][::-1], V[:, keep][:, ::-1]
        else:
            self.eigenvalues, V = np.zeros(0), np.zeros((0, 0))
        self.G = np.ascontiguousarray(F @ V)        # (m, q)
        self.Gt = np.ascontiguousarray(self.G.T)    # (q, m): G' R in one pass too
        self.tail = float(self.eigenvalues[-1]) if self.eigenvalues.size else 0.0

    @property
    def rank(self):
        """The kept rank q."""
        return int(self.eigenvalues.size)

    def apply(self, R, alphas):
        """``P_alpha^-1 R``, column j with its own alpha.

        Parameters
        ----------
        R : ndarray of shape (m, k)
        alphas : float or array-like of shape (k,)
            Each > 0.

        Returns
        -------
        ndarray of shape (m, k), float64
        """
        R = np.asarray(R, dtype=np.float64)
        if not self.rank:
            return R.copy()
        alphas = np.broadcast_to(np.asarray(alphas, dtype=np.float64), (R.shape[1],))
        s = self.eigenvalues[:, None]
        c = (self.tail - s) / ((s + alphas[None, :]) * s)
        k = R.shape[1]
        if k > APPLY_COMPILED_MAX:
            return R + self.G @ (c * (self.Gt @ R))
        Tt = matmat_t(self.Gt, np.ascontiguousarray(R.T), np.empty((k, self.rank)))
        Wt = np.ascontiguousarray((c * Tt.T).T)
        return R + matmat_t(self.G, Wt, np.empty((k, R.shape[0]))).T
