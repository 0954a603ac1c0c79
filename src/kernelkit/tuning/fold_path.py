"""Kernel ridge for many alphas on one training fold: float32 factors, float64 CG.

The k-fold search of :class:`~kernelkit.models.KernelRidgeCV` (``cv`` an int or a
splitter, ``solver="exact"``) solves ``(K + alpha I) U = Y`` on each fold's training
rows for every alpha of the grid. scikit-learn's ``GridSearchCV(KernelRidge())``
factors ``K + alpha I`` once per alpha in float64, (1/3) m^3 flops each. Here a group
of alphas shares one float32 Cholesky factor ``L L' ~ K + alpha_ref I`` (``spotrf``
through :func:`kernelkit.linalg.robust_cholesky`, about twice ``dpotrf``'s rate, one
threaded LAPACK call up to the order where the wheel's ``spotrf`` is known safe, blocked
beyond) preconditioning float64 conjugate gradient for the
group's alphas; a group of one alpha at its own shift is mixed-precision iterative
refinement (a few iterations reach a float64-level residual). The preconditioned
matrix ``(K + alpha_ref I)^-1 (K + alpha I)`` has its eigenvalues in
``[min(1, a / a_ref), max(1, a / a_ref)]`` (up to the float32 factor's error). Each
iteration is memory-bound: one product of K with the active columns and two float32
triangular solves. K V is one compiled pass over K's lower triangle for up to
:data:`PRODUCT_COMPILED_MAX` columns (:func:`kernelkit._compiled.symmetric_matmat_t`:
half the bytes of a full product; OpenBLAS's GEMM with a few columns reads the whole
matrix several times over), and both solves one compiled pass each over the factor
for all columns up to :data:`TRIANGULAR_COMPILED_MAX` (:func:`kernelkit._compiled.cho_solve_t`;
``strsv`` reads it once per column). Several groups, each with its own factor, run
as one batched CG (:func:`merged_solves`), so each iteration reads K once for all of
them. A group of large alphas may instead be preconditioned by a low-rank (Nystroem)
factor of K (:mod:`kernelkit.tuning.low_rank`: m r^2 flops instead of m^3/3), in the
same batched CG. The float32 factors are written into buffers kept across calls
(``work``), so no fresh pages per factor. A column that does
not reach the tolerance in ``maxiter`` iterations switches to its own float64
Cholesky factor: counted in the result (the search records it in ``plan_``), with a
:class:`~sklearn.exceptions.ConvergenceWarning` only if that answer too is short of
the tolerance.

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed.,
ch. 12 (iterative refinement). SIAM.
Saad, Y. (2003). Iterative Methods for Sparse Linear Systems, 2nd ed., ch. 9
(preconditioned conjugate gradient). SIAM.
Frangella, Z., Tropp, J. A. and Udell, M. (2023). Randomized Nystroem
preconditioning. SIAM Journal on Matrix Analysis and Applications 44(2), 718-752.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from sklearn.exceptions import ConvergenceWarning

from .._compiled import cho_solve_t, symmetric_matmat_t
from .._pages import fresh_empty
from ..exceptions import NumericalWarning
from ..linalg import pcg, robust_cholesky
from .low_rank import LowRankPreconditioner, randomly_pivoted_cholesky
from .paths import blas_threads_for

__all__ = ["FoldSolves", "shifted_solves", "merged_solves", "fold_solves", "reference_alpha",
           "low_rank_preconditioner",
           "FOLD_RTOL", "FOLD_MAXITER", "PRODUCT_COMPILED_MAX", "TRIANGULAR_COMPILED_MAX"]

#: Relative residual ``||y - (K + alpha I) u|| / ||y||`` every alpha is solved to:
#: held-out errors then equal those of a float64 Cholesky solve to ~1e-10 relative.
FOLD_RTOL = 1e-12
#: Iterations of the batched CG before a column falls back to its own float64 factor.
FOLD_MAXITER = 300
#: Columns up to which the product with K is one compiled pass over K's lower triangle
#: (:func:`kernelkit._compiled.symmetric_matmat_t`); above it, GEMM (compute-bound by
#: then). Measured at m = 12,800 on the 2-core machine: 1 column 0.024 s (BLAS's
#: matrix-vector product 0.033-0.045 s), 2 columns 0.024 s (GEMM 0.12 s), 5 columns
#: 0.035 s (0.12 s), 12 columns 0.076 s (0.15 s).
PRODUCT_COMPILED_MAX = 16
#: Columns up to which the float32 triangular solves are one compiled pass per
#: direction for all columns (:func:`kernelkit._compiled.cho_solve_t`); above it, LAPACK's
#: ``strtrs``. Measured at m = 12,800: 1 column 0.028 s (``strsv`` 0.032 s), 2 columns
#: 0.033 s (0.060 s per column, ``strtrs`` 0.097 s), 5 columns 0.062 s (0.145 s, 0.133 s),
#: 12 columns 0.104 s (0.368 s, 0.120 s).
TRIANGULAR_COMPILED_MAX = 12


@dataclass(frozen=True)
class FoldSolves:
    """Result of :func:`shifted_solves` and :func:`merged_solves`.

    Attributes
    ----------
    coef : ndarray of shape (n_alphas, m, t)
        ``(K + alpha_j I)^-1 Y`` for every alpha.
    alpha_ref : float
        The shift of the float32 factor (of the first one, for :func:`merged_solves`;
        NaN when only the low-rank preconditioner ran).
    n_iter : int
        CG iterations (one pass over K each, for all active alphas).
    fallbacks : int
        Alphas switched to their own float64 Cholesky factor (CG short of the tolerance).
    residual : ndarray of shape (n_alphas,)
        Final relative residual per alpha (largest over targets), recomputed exactly.
    fallback_alphas : tuple of float
        The alphas switched to their own float64 factor.
    cg_residual : float
        The largest relative residual CG had left for them (0.0 without a switch).
    factor_shifts : tuple of float
        The shifts of the float32 factors, one per factor.
    low_rank : int
        Rank of the low-rank preconditioner used (0: none).
    """

    coef: np.ndarray
    alpha_ref: float
    n_iter: int
    fallbacks: int
    residual: np.ndarray
    fallback_alphas: tuple = ()
    cg_residual: float = 0.0
    factor_shifts: tuple = ()
    low_rank: int = 0


def reference_alpha(alphas):
    """The factor's shift: the geometric middle of the grid's extremes (each alpha's
    preconditioned spectrum then spans at most the square root of the grid's ratio)."""
    alphas = np.asarray(alphas, dtype=np.float64)
    return float(np.sqrt(alphas.min() * alphas.max()))


class _Gram:
    """``V -> K V`` for CG, K symmetric: one compiled pass over K's lower triangle for
    up to :data:`PRODUCT_COMPILED_MAX` columns, GEMM above."""

    def __init__(self, K):
        self.K = K
        self.shape = K.shape

    def matmat(self, V):
        k = V.shape[1]
        if k > PRODUCT_COMPILED_MAX:
            return self.K @ V
        Vt = np.ascontiguousarray(V.T, dtype=np.float64)
        return symmetric_matmat_t(self.K, Vt, np.empty((k, self.K.shape[0]))).T


def _shifted_copy(K, shift, dtype, work=None, slot=0):
    """``K + shift I`` in Fortran order and ``dtype``, written into ``work["factor32"]``
    (``"factor32_<slot>"`` for ``slot`` > 0) or ``work["factor64"]`` (a flat buffer kept
    and grown across calls) if given."""
    m = K.shape[0]
    if work is None:  # all pages mapped in one call, no THP stall
        A = fresh_empty(m * m, dtype, populate=True).reshape((m, m), order="F")
    else:
        key = (("factor32" if slot == 0 else f"factor32_{slot}") if dtype == np.float32
               else "factor64")
        flat = work.get(key)
        if flat is None or flat.size < m * m:  # all pages mapped in one call, no THP stall
            work[key] = flat = fresh_empty(m * m, dtype, populate=True)
        A = flat[: m * m].reshape((m, m), order="F")
    np.copyto(A.T, K, casting="same_kind")  # K symmetric: A.T (C order) = K is A = K
    A.flat[:: m + 1] += dtype(shift)
    return A


def _factor(K, shift, work=None, slot=0):
    """Float32 Cholesky factor (Fortran order, lower) of ``K + shift I``.

    Not checked finite again (0.2 s per factor at m = 12,800): K's blocks were when
    they were computed. A NaN that got through anyway ends in the clear ValueError
    either way: if ``spotrf`` fails on it, :func:`kernelkit.linalg.robust_cholesky`
    checks and raises at once; if it factors through it (OpenBLAS does), the solves are
    non-finite, which :func:`_precondition` refuses, and the alphas switch to float64
    factors, which check."""
    A = _shifted_copy(K, shift, np.float32, work, slot)
    return robust_cholesky(A, overwrite_a=True, dtype=np.float32, check_finite=False).L


class _ColumnPreconditioner:
    """``R -> (L_g L_g')^-1 R`` with each column's own factor ``g`` (for
    :func:`kernelkit.linalg.pcg`, which passes the active columns' indices); a
    :class:`~kernelkit.tuning.low_rank.LowRankPreconditioner` among the factors
    applies ``P_alpha^-1`` with each column's own alpha (``shift_of_column``).

    One factor for all columns is the plain preconditioner of :func:`shifted_solves`.
    A factor whose float32 solves overflow gives zeros for its columns from then on
    (``failed`` holds it): CG stops those columns as breakdowns (``r'z = 0``) and the
    caller's residual check switches only their alphas to float64 factors; the other
    groups go on."""

    def __init__(self, factors, factor_of_column, shift_of_column=None):
        self.factors = factors
        self.factor_of_column = np.asarray(factor_of_column, dtype=np.intp)
        self.shift_of_column = shift_of_column
        self.failed = set()

    def matmat_columns(self, R, cols):
        Z = np.zeros(R.shape)
        which = self.factor_of_column[cols]
        for g, L in enumerate(self.factors):
            sel = np.flatnonzero(which == g)
            if sel.size and g not in self.failed:
                if isinstance(L, LowRankPreconditioner):
                    Z[:, sel] = L.apply(R[:, sel], self.shift_of_column[cols[sel]])
                    continue
                try:
                    Z[:, sel] = _precondition(L, R[:, sel])
                except np.linalg.LinAlgError:
                    self.failed.add(g)
        return Z


def low_rank_preconditioner(K, rank):
    """The fold's low-rank preconditioner.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite.
    rank : int
        Largest rank.

    Returns
    -------
    LowRankPreconditioner
        From :func:`~kernelkit.tuning.low_rank.randomly_pivoted_cholesky` with a fixed
        seed (``plan_`` reproducible; the answers, solved to the tolerance, do not
        depend on it). Peak memory :func:`~kernelkit.tuning.low_rank.low_rank_bytes`.
    """
    F = randomly_pivoted_cholesky(K, int(rank))[0]
    return LowRankPreconditioner(F)


def _precondition(L, R):
    """``(L L')^-1 R`` by two float32 triangular solves (float64 arithmetic in the
    compiled pass); float64 out."""
    k = R.shape[1]
    if k <= TRIANGULAR_COMPILED_MAX and L.flags.f_contiguous:
        Z = cho_solve_t(L.T, np.array(R.T, dtype=np.float64, order="C")).T
    else:
        trtrs = scipy.linalg.lapack.strtrs
        Z, info = trtrs(L, np.asfortranarray(R, dtype=np.float32), lower=1, trans=0,
                        overwrite_b=1)
        if info == 0:
            Z, info = trtrs(L, Z, lower=1, trans=1, overwrite_b=1)
        if info != 0:
            raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")
        Z = Z.astype(np.float64)
    if not np.isfinite(Z).all():
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")
    return Z


def shifted_solves(K, Y, alphas, *, rtol=FOLD_RTOL, maxiter=FOLD_MAXITER, alpha_ref=None,
                   work=None):
    """``(K + alpha I)^-1 Y`` for every alpha from one float32 factor and batched CG.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite, float64 (not modified). The CG's products
        read its lower triangle only; the exact residuals and a float64 factor, all of
        it.
    Y : ndarray of shape (m, t)
    alphas : sequence of float
        Each > 0.
    rtol : float, default=:data:`FOLD_RTOL`
    maxiter : int, default=:data:`FOLD_MAXITER`
    alpha_ref : float, optional
        The factor's shift; default :func:`reference_alpha`.
    work : dict, optional
        Keeps the float32 factor's buffer for the next call (``"factor32"``).

    Returns
    -------
    FoldSolves

    Warns
    -----
    ConvergenceWarning
        When an alpha's final answer is short of ``100 * rtol``. An alpha whose CG
        stops short of it within ``maxiter`` iterations switches to its own float64
        factor (counted in ``fallbacks``, listed in ``fallback_alphas``); that switch
        alone does not warn, as the factor solves the system directly.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    ref = reference_alpha(alphas) if alpha_ref is None else float(alpha_ref)
    return merged_solves(K, Y, alphas, [ref] * alphas.size, rtol=rtol, maxiter=maxiter,
                         work=work)


def merged_solves(K, Y, alphas, shifts, *, rtol=FOLD_RTOL, maxiter=FOLD_MAXITER, work=None,
                  low_rank=None):
    """:func:`shifted_solves` for groups of alphas with their own float32 factors, in one
    batched CG: each iteration one pass over K for the active columns of every group
    (the groups one after the other would read K once per group and iteration).

    Parameters
    ----------
    K, Y, rtol, maxiter
        As :func:`shifted_solves`.
    alphas : sequence of float
        Each > 0.
    shifts : sequence of float or ("rank", int)
        Alpha ``j`` is preconditioned by the float32 factor of ``K + shifts[j] I``;
        alphas with the same shift share it. All factors are held at once (4 m^2
        bytes each). ``("rank", r)``: by the low-rank preconditioner of rank r (one
        for all such alphas, of the largest r given; 16 m r bytes, 24 m r while built).
    work : dict, optional
        Keeps the factors' buffers for the next call (``"factor32"``,
        ``"factor32_1"``, ...).
    low_rank : LowRankPreconditioner, optional
        One already built for this K (e.g. by the search's probe), used for the
        ``("rank", r)`` alphas instead of a new one.

    Returns
    -------
    FoldSolves
        ``alpha_ref`` the first factor's shift, ``factor_shifts`` all of them.

    Warns
    -----
    ConvergenceWarning
        As :func:`shifted_solves`.
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    alphas = np.asarray(alphas, dtype=np.float64)
    shifts = list(shifts)
    if len(shifts) != alphas.size:
        raise ValueError(f"shifts must give one shift per alpha ({alphas.size}), got "
                         f"{len(shifts)}")
    m, t = Y.shape
    n_a = alphas.size
    ranked = [s for s in shifts if isinstance(s, tuple)]
    if any(len(s) != 2 or s[0] != "rank" for s in ranked):
        raise ValueError(f"a shift is a float or ('rank', r), got {ranked}")
    refs = np.unique(np.asarray([s for s in shifts if not isinstance(s, tuple)],
                                dtype=np.float64))
    rank = max((int(s[1]) for s in ranked), default=0)
    factor_of_alpha = np.array([refs.size if isinstance(s, tuple)
                                else int(np.searchsorted(refs, float(s))) for s in shifts],
                               dtype=np.intp)
    factors = [_factor(K, float(r), work, slot) for slot, r in enumerate(refs)]
    if ranked:
        factors.append(low_rank if low_rank is not None else low_rank_preconditioner(K, rank))
    used_rank = factors[-1].rank if ranked else 0
    shift = np.repeat(alphas, t)                    # column j: alpha j // t, target j % t
    M = _ColumnPreconditioner(factors, np.repeat(factor_of_alpha, t), shift)
    B = np.tile(Y, (1, n_a))
    b_norm = np.maximum(np.linalg.norm(B, axis=0), np.finfo(np.float64).tiny)
    with warnings.catch_warnings():
        # a breakdown (p'Ap <= 0 from round-off on a PSD K) stops that column; the
        # residual check below gives it its own float64 factor, so it is not news
        warnings.simplefilter("ignore", NumericalWarning)
        run = pcg(_Gram(K), B, M=M, rtol=rtol, maxiter=maxiter, shift=shift)
    # a factor whose float32 solves overflowed stopped its columns: their alphas switch
    # to their own float64 factors below
    X, n_iter, overflowed = run.x, run.n_iter, bool(M.failed)
    del factors, M
    true = np.linalg.norm(B - (_Gram(K).matmat(X) + shift * X), axis=0) / b_norm
    tol = 100 * rtol  # held-out errors to ~1e-9 of a float64 Cholesky solve's
    # "not <=": a NaN residual counts as short of the tolerance
    short = [a for a in range(n_a) if not true[a * t:(a + 1) * t].max() <= tol]
    cg_residual = float(max((true[a * t:(a + 1) * t].max() for a in short), default=0.0))
    fallbacks = 0
    for a in short:  # CG short of tol: the alpha switches to its own float64 factor
        cols = slice(a * t, (a + 1) * t)
        fallbacks += 1
        G = _shifted_copy(K, alphas[a], np.float64, work)  # the kept buffer, no new m x m
        chol = robust_cholesky(G, overwrite_a=True)
        X[:, cols] = scipy.linalg.cho_solve((chol.L, True), Y, check_finite=False)
        del G, chol
        true[cols] = (np.linalg.norm(Y - (K @ X[:, cols] + alphas[a] * X[:, cols]), axis=0)
                      / b_norm[cols])
    residual = true.reshape(n_a, t).max(axis=1)
    still_short = [a for a in short if not residual[a] <= tol]
    if still_short:  # the switch is in the result; only an answer short of tol warns
        by = " and ".join(([f"the float32 factor(s) at {', '.join(f'{r:.3g}' for r in refs)}"]
                           if refs.size else [])
                          + ([f"the rank-{used_rank} Nystroem factor"] if ranked else []))
        cg = (f"conjugate gradient preconditioned by {by} stopped after {n_iter} "
              f"iterations at relative residual {cg_residual:.1e}"
              + (" (a float32 factor's solves overflowed)" if overflowed else ""))
        warnings.warn(
            f"{cg}, and the "
            f"float64 Cholesky factor it switched to left {residual[still_short].max():.1e} "
            f"(tolerance {tol:.0e}) for alpha = "
            f"{', '.join(f'{alphas[a]:g}' for a in still_short)}: the system is too "
            "ill-conditioned for that tolerance; use larger alphas", ConvergenceWarning,
            stacklevel=2)
    coef = X.reshape(m, n_a, t).transpose(1, 0, 2)
    return FoldSolves(np.ascontiguousarray(coef), float(refs[0]) if refs.size else np.nan,
                      n_iter, fallbacks, residual, tuple(float(alphas[a]) for a in short),
                      cg_residual, tuple(float(r) for r in refs),
                      used_rank)


def _direct_solves(K, Y, alphas, coef, info, work=None, rtol=FOLD_RTOL):
    """One float64 Cholesky factor per alpha into ``coef``; counts into ``info``.

    Warns ``ConvergenceWarning`` (as a switched alpha of :func:`shifted_solves` does)
    when an answer's relative residual is above ``100 * rtol``: the system is then
    too ill-conditioned for a float64 factor to reach the tolerance."""
    m = Y.shape[0]
    b_norm = np.maximum(np.linalg.norm(Y, axis=0), np.finfo(np.float64).tiny)
    short = {}
    with blas_threads_for(m):
        for j, a in alphas:
            G = _shifted_copy(K, a, np.float64, work)
            chol = robust_cholesky(G, overwrite_a=True)
            coef[j] = scipy.linalg.cho_solve((chol.L, True), Y, check_finite=False)
            del G, chol
            info["factors"] += 1
            res = float((np.linalg.norm(Y - K @ coef[j] - a * coef[j], axis=0) / b_norm).max())
            info["residual"] = max(info["residual"], res)
            if not res <= 100 * rtol:  # NaN counts as short
                short[a] = res
    if short:
        warnings.warn(
            f"the float64 Cholesky factors left relative residual {max(short.values()):.1e} "
            f"(tolerance {100 * rtol:.0e}) for alpha = {', '.join(f'{a:g}' for a in short)}: "
            "the system is too ill-conditioned for that tolerance; use larger alphas",
            ConvergenceWarning, stacklevel=3)


def fold_solves(K, Y, alphas, groups, *, rtol=FOLD_RTOL, maxiter=FOLD_MAXITER, work=None,
                merge=False, low_rank=None):
    """``(K + alpha I)^-1 Y`` for every alpha, group by group as planned.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric positive semi-definite, float64 (not modified).
    Y : ndarray of shape (m,) or (m, t)
    alphas : sequence of float
        Each > 0.
    groups : sequence of (sequence of int, float or None or ("rank", int))
        Indices into ``alphas`` and a shift: one float32 factor of ``K + shift I``
        preconditions :func:`shifted_solves` for the group's alphas; shift None, one
        float64 Cholesky factor per alpha of the group; ``("rank", r)``, the low-rank
        preconditioner of rank r (:mod:`kernelkit.tuning.low_rank`), with the float32
        groups when they merge. Every alpha in exactly one group. The planner's choice
        (:func:`kernelkit.planning.fold_search.plan_fold_solves`), given as it is.
    rtol : float, default=:data:`FOLD_RTOL`
    maxiter : int, default=:data:`FOLD_MAXITER`
    work : dict, optional
        Buffers kept across calls (the float32 factors'), see :func:`merged_solves`.
    merge : bool, default=False
        The CG groups in one batched CG (:func:`merged_solves`: one pass over K per
        iteration for all of them, their preconditioners held at once, 4 m^2 bytes per
        float32 factor and 16 m r for the low-rank one: the caller checks that they
        fit, as the k-fold search does against the memory budget); False, one group
        after the other (one factor's buffer).
    low_rank : LowRankPreconditioner, optional
        Already built for this K, for a ``("rank", r)`` group (see :func:`merged_solves`).

    Returns
    -------
    (coef, info)
        ``coef`` of shape (n_alphas, m, t) in the order of ``alphas``; ``info`` a dict
        with ``factors`` (float32 and float64), ``n_iter`` (CG iterations, i.e. passes
        over K, summed over the CG runs), ``merged`` (True when several CG groups
        -- float32 factors, the low-rank one -- shared one CG run), ``fallbacks``
        (alphas switched from CG to their own float64 factor), ``fallback_alphas``
        (which), ``residual`` (largest), ``direct``
        (True when every alpha had its own float64 factor) and ``low_rank`` (the
        low-rank preconditioner's rank, 0 without one).
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    seen = sorted(int(i) for idx, _ in groups for i in idx)
    if seen != list(range(alphas.size)):
        raise ValueError(f"groups must hold each of the {alphas.size} alphas' indices "
                         f"exactly once, got {seen}")
    coef = np.empty((alphas.size, Y.shape[0], Y.shape[1]))
    cg_groups = [(np.asarray(idx, dtype=np.intp),
                  (str(s[0]), int(s[1])) if isinstance(s, tuple) else float(s))
                 for idx, s in groups if s is not None]
    info = {"factors": 0, "n_iter": 0, "fallbacks": 0, "fallback_alphas": (),
            "residual": 0.0, "direct": not cg_groups, "low_rank": 0,
            "merged": bool(merge and len(cg_groups) > 1)}
    for idx, shift in groups:
        if shift is None:
            idx = np.asarray(idx, dtype=np.intp)
            _direct_solves(K, Y, [(int(j), alphas[j]) for j in idx], coef, info, work, rtol)
    runs = ([(np.concatenate([i for i, _ in cg_groups]),
              [s for i, s in cg_groups for _ in range(i.size)])]
            if info["merged"] else [(i, [s] * i.size) for i, s in cg_groups])
    for idx, shifts in runs:
        r = merged_solves(K, Y, alphas[idx], shifts, rtol=rtol, maxiter=maxiter, work=work,
                          low_rank=low_rank)
        coef[idx] = r.coef
        info["factors"] += len(r.factor_shifts)
        info["low_rank"] = max(info["low_rank"], r.low_rank)
        info["n_iter"] += r.n_iter
        info["fallbacks"] += r.fallbacks
        info["fallback_alphas"] += r.fallback_alphas
        info["residual"] = max(info["residual"], float(r.residual.max()))
    return coef, info
