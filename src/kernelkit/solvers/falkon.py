"""Nystroem kernel ridge regression by preconditioned conjugate gradient (Falkon).

With M centers C, f(x) = sum_j c_j k(x, C_j) minimises

    (1/n) sum_i s_i (y_i - f(x_i))^2 + lam ||f||^2,   i.e.
    (K_nM' S K_nM + n lam K_MM) c = K_nM' S y,

where ``n lam`` is scikit-learn's ``alpha`` (``sum_i s_i (y_i - f_i)^2 +
alpha ||f||^2``). Falkon (Rudi, Carratino & Rosasco 2017, Algorithm 1) solves
it by conjugate gradient on beta with c = T^-1 A^-1 beta, preconditioned by

    T = chol(K_MM + eps M I)  (upper),   A = chol(T T' / M + lam I)  (upper),

which makes the system about as well conditioned as a problem with n/M
times fewer samples, so ~10-30 iterations suffice. The operator replaces
T'^-1 K_MM T^-1 by I (exact up to the eps M jitter): the coefficients solve
the system with K_MM + eps M I.

Rank-deficient K_MM (centers that repeat, or lie numerically in the span of
others: KDD Cup 99's uniform centers are mostly such) is the paper's
appendix case: when many Cholesky pivots are at the jitter's level, T is
built from the eigen-directions of K_MM above a relative threshold instead,
T = diag(sqrt(s_r)) Q_r', and the iterations run in those r directions
(``rank``). Repeated centers are best dropped before (with their counts as
``center_weights``: A = chol(T D T' / sum(D) + lam I) then matches the drawn
sample); the model does not change, the preconditioner does.

Cost: K_MM (M^2 d), two Cholesky and one triangular product (M^3 together),
K_nM (n M d) once if it is stored, else at every iteration, and 4 n M t flops
per iteration for t targets. K_nM is stored when the caller says so
(``KernelRidge``'s plan: when it fits the memory budget);
its products run in row blocks (:class:`kernelkit.gram.GramOperator`), in
float32 when asked (RBF's float32 blocks are float32 matrix products, the
kernel's fast path), with the M-vector results summed in float64. With
float32, K_MM and the preconditioner's two Cholesky factorisations and
triangular product run in float32 too (about half the time of float64, the
M^3 part of a large fit); the factors stay float32 (mirrored: the
transpose in the upper triangle) and the iterations' triangular solves read
them in float64 arithmetic (compiled, :func:`kernelkit._compiled.tri_solve_t`).
Pure numerics: no estimator, no printing.

References
----------
Rudi, A., Carratino, L. and Rosasco, L. (2017). FALKON: an optimal large
scale kernel method. Advances in Neural Information Processing Systems 30
(NeurIPS 2017).

Why this module is long: the preconditioners (Cholesky, and the eigen-based one
for a rank-deficient K_MM), the direct r x r solve and CG's hand-over to it are one
solver's alternatives, chosen from what the fit finds in K_MM and in CG's rate;
apart, each would need the others' state. The choices that keep the
preconditioner at the GEMM rate (L'L by :func:`kernelkit.linalg_blocked.lower_gram_in_place`,
the blocked Cholesky above M = 4096, the thin triangular solves on one BLAS
thread) sit beside the factorisation they serve.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..exceptions import InvalidParameterError
from .._budget import fits, require
from .._compiled import mirror_lower, tri_solve_t
from .._validation import n_rows
from ..gram import GramOperator, KernelRows
from ..linalg import cho_solve, eigh_psd, one_blas_thread, pcg, robust_cholesky
from ..linalg_blocked import BLOCKED_BLOCK_SIZE, lower_gram_in_place
from .._choices import Choice
from .cg_checkpoint import load_state, problem_fingerprint, save_state
from .buffers import fresh_empty
from .cg_forecast import pcg_or_hand_over

__all__ = ["FalkonResult", "falkon", "dependent_pivots", "EIGEN_RTOL", "DEPENDENT_SHARE",
           "EIGEN_MAX_M", "DIRECT_CG_ITERATIONS", "THIN_COLUMNS"]

# Relative jitter eps of T = chol(K_MM + eps M I) (times mean diag K_MM): small
# enough that M = n reproduces exact kernel ridge to ~1e-8 on a well-posed problem.
_EPS = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-7}
#: Eigenvalues of K_MM kept by the eigen preconditioner: s_i > EIGEN_RTOL * max(s).
#: Measured on KDD Cup 99 (50k rows, M = 2000 drawn, 886 distinct, alpha = 1e-6,
#: 30 iterations): 1e-10 kept 446 directions, accuracy 0.945, residual 0.84;
#: 1e-8: 355, 0.987; 1e-6: 257 directions, 0.9965, residual 0.04. Directions
#: below ~1e-6 of the top are where a sample of M centers no longer describes
#: the data (the preconditioner's K_MM^2 / M stands for K_nM'K_nM / n), and
#: where float32 kernel blocks are round-off.
EIGEN_RTOL = 1e-6
#: "auto" preconditioner: the eigen form when more than this share of the
#: Cholesky pivots show dependent centers (a few near-duplicates are harmless;
#: KDD Cup 99's uniform centers have most of them).
DEPENDENT_SHARE = 0.01
#: ... and only up to this many centers: the eigendecomposition costs about 4
#: Cholesky factorisations (M = 8000: ~20 s here), and a large M of images
#: (Fashion-MNIST, M = 15000) is better left to the Cholesky form.
EIGEN_MAX_M = 8000
#: ``solve="auto"`` solves directly when forming the rank x rank system (one
#: product of K_nM with ``rank`` columns) costs no more than this many CG
#: iterations (each one product with t columns). Falkon's iterations to
#: statistical accuracy are ~10-30 (Rudi et al. 2017); KDD Cup 99 needed 35-67.
DIRECT_CG_ITERATIONS = 20
#: A product of K_nM with fewer columns than this runs at the speed of reading
#: K_nM, not of arithmetic: CG iterations are charged at least this many columns.
THIN_COLUMNS = 16


@dataclass(frozen=True)
class FalkonResult:
    """Result of :func:`falkon`.

    Attributes
    ----------
    coef : ndarray of shape (M,) or (M, t)
        Coefficients c of f(x) = K(x, C) c.
    n_iter : int
        Conjugate-gradient iterations (the most any target needed).
    converged : bool
        Whether every target met the tolerance.
    residual_norm : float or ndarray of shape (t,)
        Final preconditioned residual norms relative to the right-hand side.
    jitter : float
        Total jitter added to K_MM's diagonal (eps M plus any robust-Cholesky
        retry); 0.0 for the eigen preconditioner, which adds none.
    stored : bool
        Whether K_nM was kept in memory.
    store_choice : kernelkit.planning.Choice or None
        The planner's decision to store K_nM and why (sizes against the
        budget, or forced), when ``store`` was one; the operator's own when one
        was passed in; None for a plain ``store``.
    rank : int
        Dimension of the space the iterations ran in: M for the Cholesky
        preconditioner, the eigen-directions kept for the eigen one.
    preconditioner_choice : kernelkit.planning.Choice
        Which preconditioner ran ("cholesky" or "eigen") and why.
    solve_choice : kernelkit.planning.Choice
        Conjugate gradient or one direct solve in the ``rank`` directions, and why.
    """

    coef: np.ndarray
    n_iter: int
    converged: bool
    residual_norm: float | np.ndarray
    jitter: float
    stored: bool
    store_choice: object = None
    rank: int | None = None
    preconditioner_choice: object = None
    solve_choice: object = None


def _kmm(kernel, C, dtype, out=None):
    """K(C, C) as a C-ordered array of ``dtype`` (float32 GEMM for RBF in float32),
    written into ``out`` if given."""
    if dtype == np.float32 and kernel.input_kind == "vector":
        # K(C, C) as a cross block (no exact diagonal), as K_nM's blocks are computed
        return _kmm_cross_lower(KernelRows(kernel, C, C, dtype=np.float32), out)
    if kernel.input_kind == "vector" and not hasattr(C, "nnz"):  # float64 centers: float64
        C = np.asarray(C, dtype=np.float64)  # K_MM (sparse centers are float64 CSR already)
    if out is None:
        return np.array(kernel(C), dtype=dtype, order="C")
    out[...] = kernel(C)
    return out


def _kmm_cross_lower(rows, out=None):
    """K(C, C) of cross-block ``rows`` (KernelRows(kernel, C, C)): its lower
    triangle by row blocks, then mirrored.

    Block [s, e) takes only columns 0:e (``block(lower=True)``): about half the
    products and exps of the whole matrix (M^2 d (1 + b / M) flops for blocks
    of b = :data:`_KMM_ROWS` rows), each entry computed as the whole cross
    block computes it (the same rows, columns and float32 products).
    """
    M = rows.shape[0]
    if out is None:
        out = np.empty((M, M), dtype=rows.dtype)
    b = min(_KMM_ROWS, max(M, 1))
    scratch = np.empty(b * M, dtype=out.dtype)
    for s in range(0, M, b):
        e = min(s + b, M)
        block = scratch[:(e - s) * e].reshape(e - s, e)  # C-ordered, as blocks are written
        rows.block(s, e, out=block, lower=True)
        out[s:e, :e] = block
    return mirror_lower(out)


#: Rows per block of :func:`_kmm_cross_lower` (its extra work is b / M of half).
_KMM_ROWS = 1024


#: Centers above which the preconditioner's Cholesky factorisations run by
#: blocks of :data:`kernelkit.linalg_blocked.BLOCKED_BLOCK_SIZE` (float32 GEMM
#: updates) rather than as one ``potrf`` call or two halves: on the 2-core dev
#: box (load 12, the same process alternating), M = 8000 ran at 0.8 of a
#: 4096^3 sgemm by blocks of 1024 against 0.4-0.7 as one threaded call, and
#: M = 13,500 at 0.66-0.8 against 0.5-0.67 in halves of 6750.
_BLOCKED_MIN_M = 4096


def _gram_of_factor(L, lam, out=None, weights=None):
    """``L'DL / sum(D) + lam I`` (lower triangle and mirror), by block-row GEMMs.

    D = diag(``weights``), the identity by default (then ``L'L / M + lam I``).
    Only the lower triangle of ``L`` is read. In ``out`` (C-ordered, L's
    dtype) if given, else in a new array; ``L`` itself is not changed.
    D^(1/2) L is lower triangular too (:func:`kernelkit.linalg_blocked.lower_gram_in_place`).
    """
    M = L.shape[0]
    if out is None:
        out = np.empty((M, M), dtype=L.dtype)
    out[...] = L
    if weights is not None:
        out *= np.sqrt(weights).astype(L.dtype)[:, None]
    lower_gram_in_place(out)
    mirror_lower(out)
    out /= M if weights is None else float(np.sum(weights))
    out.flat[:: M + 1] += lam
    return out


def _cholesky_block(M):
    """Diagonal block order of the preconditioner's Cholesky factorisations."""
    return BLOCKED_BLOCK_SIZE if M > _BLOCKED_MIN_M else max(M, 1)


def _preconditioner(kernel, C, lam, dtype, weights=None):
    """Lower factors L (K_MM + eps M I = L L') and La (L'L / M + lam I = La La').

    With center ``weights`` D, La La' = L'DL / sum(D) + lam I. For float64 only
    the lower triangles (with the diagonals) of L and La are meaningful.

    For float32 the two Cholesky factorisations and the triangular product run
    in float32 (half the time of float64), and the factors stay float32 (their
    (M, M) arrays, 4 M^2 bytes each, where widened float64 copies took twice
    that in new memory: 1.5 GB at M = 13,500, 2-3.5 s of page mapping on this
    project's machine): each holds its factor in its lower triangle and the
    transpose in its upper one (mirrored), the layout in which the iterations'
    float64 solves read it (:func:`_tri`).
    """
    M = n_rows(C)
    f32 = np.dtype(dtype) == np.float32
    # Both float32 arrays are written whole (K, then L'L): their pages are mapped in
    # one call rather than by a fault each (buffers.fresh_empty).
    K = _kmm(kernel, C, dtype, fresh_empty((M, M), np.float32, populate=True) if f32 else None)
    eps = _EPS[np.dtype(dtype)] * max(float(np.mean(np.diag(K), dtype=np.float64)),
                                      np.finfo(float).tiny)
    K.flat[:: M + 1] += K.dtype.type(eps * M)
    if f32:
        block = _cholesky_block(M)
        chol = robust_cholesky(K, overwrite_a=True, dtype=np.float32, block_size=block,
                               jitter_start=eps * M)
        LtL = _gram_of_factor(K, lam, fresh_empty((M, M), np.float32, populate=True), weights)
        robust_cholesky(LtL, overwrite_a=True, dtype=np.float32, block_size=block,
                        jitter_start=max(lam, eps))
        # The iterations' solves run in float64 on these float32 factors (float32
        # solves lost 0.5% accuracy on Fashion-MNIST), reading the transposes.
        return mirror_lower(K), mirror_lower(LtL), eps * M + chol.jitter
    chol = robust_cholesky(K, overwrite_a=True, block_size=_cholesky_block(M))
    L = chol.L
    chol_a = robust_cholesky(_gram_of_factor(L, lam, weights=weights), overwrite_a=True,
                             block_size=_cholesky_block(M))
    return L, chol_a.L, eps * M + chol.jitter


def _eigen_preconditioner(kernel, C, lam, weights=None, rtol=None):
    """Falkon's preconditioner in the numerical range of K_MM (rank-deficient case).

    K_MM = Q diag(s) Q'; the r eigenvalues s_i > ``rtol`` * max(s) are kept and
    T = diag(sqrt(s_r)) Q_r' (r x M) replaces the Cholesky factor (Rudi et
    al. 2017, appendix, for rank-deficient K_MM): then T^+' K_MM T^+ = I_r
    exactly, with no jitter, and the problem is solved in the r directions
    where K_MM is well above its round-off. La = chol(T D T' / sum(D) + lam I).
    Computed in float64 (an eigendecomposition, about 4x a Cholesky's time).

    Returns
    -------
    Q : ndarray of shape (M, r)
    root : ndarray of shape (r,)
        sqrt(s_r).
    La : ndarray of shape (r, r)
        Lower factor (lower triangle meaningful).
    """
    K = _kmm(kernel, C, np.float64)
    w, Q = eigh_psd(K, overwrite_a=True)
    top = max(float(w[-1]), np.finfo(float).tiny) if w.size else 1.0
    keep = w > (EIGEN_RTOL if rtol is None else rtol) * top
    if not keep.any():
        keep[-1:] = True
    root, Q = np.sqrt(w[keep]), np.ascontiguousarray(Q[:, keep])
    if weights is None:
        G = np.diag(w[keep] / n_rows(C))
    else:
        G = (Q.T @ (Q * weights[:, None])) * (root[:, None] * root[None, :])
        G /= float(np.sum(weights))
    G.flat[:: len(G) + 1] += lam
    return Q, root, robust_cholesky(G, overwrite_a=True).L


class _Factors:
    """The preconditioner B = T^-1 A^-1 as four solves (Cholesky or eigen form)."""

    def __init__(self, La, L=None, Q=None, root=None):
        self.La, self.L, self.Q, self.root = La, L, Q, root

    def inv(self, W):  # T^-1 W: r-space -> M-space
        if self.L is not None:
            return _tri(self.L, W, "T")
        return self.Q @ (W / self.root[:, None])

    def inv_t(self, Z):  # T^-T Z: M-space -> r-space
        if self.L is not None:
            return _tri(self.L, Z, "N")
        return (self.Q.T @ Z) / self.root[:, None]


def dependent_pivots(L, jitter):
    """How many Cholesky pivots L_ii^2 of K_MM + jitter I are below 10 x jitter.

    A pivot is the part of a center's k(c, c) that the centers before it do not
    explain; one this small means the center lies (numerically) in their span,
    so K_MM is rank-deficient at the jitter's level."""
    d = np.diagonal(L).astype(np.float64)  # a float32 factor's pivots compared in float64
    return int(np.count_nonzero(d * d < 10.0 * jitter))


def _tri(L, B, trans):
    """Solve ``L X = B`` (``trans="N"``) or ``L' X = B`` (``"T"``); float64 result.

    ``L`` is a lower factor of :func:`_preconditioner`: float64, read in its
    lower triangle by LAPACK; or float32 with its transpose mirrored into the
    upper triangle, solved in float64 arithmetic by
    :func:`kernelkit._compiled.tri_solve_t` (which reads that upper triangle
    once per solve for up to :data:`_PANEL_COLUMNS` columns, on every core),
    panel by panel, for up to M / :data:`_PANELS_UP_TO` columns (the
    iterations' t targets); beyond (the direct solve's M columns) by LAPACK on
    a float64 copy of it, once per call.

    With few right-hand sides and a large float64 L the LAPACK solve runs on
    one BLAS thread: OpenBLAS splits a triangular solve's right-hand sides
    between its threads, each of which reads (packs) all of L, so the solve is
    bound by reading L either way; measured on the 2-core dev box (loaded), 10
    columns: 0.17 s against 0.23 s per pair of solves at M = 6000, 0.53-0.80 s
    against 1.24-1.33 s at M = 13,500.
    """
    k = B.shape[-1]
    if L.dtype == np.float32:
        if k <= max(_PANEL_COLUMNS, L.shape[0] // _PANELS_UP_TO):
            Rt = np.array(B.T, dtype=np.float64, order="C")
            for c0 in range(0, k, _PANEL_COLUMNS):  # rows of Rt: C-contiguous panels
                tri_solve_t(L, Rt[c0:c0 + _PANEL_COLUMNS], lower=trans == "N")
            return Rt.T
        L = L.astype(np.float64)  # LAPACK reads its lower triangle
    one = L.shape[0] >= _ONE_THREAD_SOLVE_MIN_M and k <= _ONE_THREAD_SOLVE_MAX_COLUMNS
    with one_blas_thread() if one else contextlib.nullcontext():
        X = scipy.linalg.solve_triangular(L, B.astype(L.dtype, copy=False), lower=True,
                                          trans=trans, check_finite=False)
    return X.astype(np.float64, copy=False)


#: Triangular solves with at least this many rows and at most this many columns
#: run on one BLAS thread (:func:`_tri`).
_ONE_THREAD_SOLVE_MIN_M = 2048
_ONE_THREAD_SOLVE_MAX_COLUMNS = 32
#: Columns per compiled solve with a float32 factor (:func:`_tri`): 13,500 x 10
#: columns took 0.03 s, a pass over the factor's triangle.
_PANEL_COLUMNS = 32
#: A float32 factor is solved with panel by panel for up to M / this many columns;
#: beyond, a float64 copy and LAPACK (estimated, not measured: the panels' passes
#: over the factor grow with the columns, the copy is made once; the iterations' t
#: targets stay far below, the direct solve's M columns far above).
_PANELS_UP_TO = 8


def falkon(kernel, X, C, y, alpha, *, sample_weight=None, tol=1e-7, maxiter=100,
           dtype=np.float64, store=False, callback=None, operator=None, center_weights=None,
           preconditioner="auto", rank_rtol=None, checkpoint=None, solve="auto"):
    """Nystroem kernel ridge regression by Falkon-preconditioned conjugate gradient.

    The iterations see K_nM only through an operator's ``gram_matmat``
    (a :class:`~kernelkit.gram.GramOperator` by default), so an operator
    computing its blocks elsewhere can be passed in.

    Parameters
    ----------
    kernel : Kernel
    X : ndarray of shape (n, d)
        Unused (may be None) when ``operator`` is given.
    C : ndarray of shape (M, d)
        The centers.
    y : ndarray of shape (n,) or (n, t)
        Targets; all t columns are solved together (one K_nM pass per iteration).
    alpha : float
        Ridge penalty in scikit-learn's convention (lam = alpha / n).
    sample_weight : ndarray of shape (n,), optional
    tol : float, default=1e-7
        Relative residual of the preconditioned system at which a target stops.
    maxiter : int, default=100
    dtype : {np.float64, np.float32}, default=np.float64
        Precision of K_nM storage and products (``GramOperator(block_dtype=...)``)
        and of the preconditioner's factorisations.
    store : bool or Choice, default=False
        Keep K_nM in memory after the first pass (``True``: its
        ``itemsize * n * M`` bytes and the preconditioner's ``16 M^2`` must fit
        the memory budget, else :class:`~kernelkit.MemoryBudgetError` before
        any work), or recompute its blocks at every iteration (``False``:
        within the budget whatever n is; the same iterates). The solver does
        not decide it: a :class:`~kernelkit.planning.Choice` made by the
        planner -- :func:`kernelkit.planning.falkon_store_choice` (store when
        it fits the budget), as :func:`kernelkit.planning.plan_kernel_ridge`
        makes it for ``KernelRidge`` -- is followed as it is and returned as
        ``store_choice``.
    callback : callable, optional
        Called as ``callback(n_iter)`` after each iteration (progress bars).
    operator : object, optional
        K_nM as an operator with ``shape`` (n, M) and ``gram_matmat(V, Y=None)``
        returning ``K' S K V`` (and ``K' S Y``), sample weights included, such
        as a :class:`~kernelkit.gram.GramOperator`. Then ``X``,
        ``sample_weight`` and ``store`` are not used (give the weights to the
        operator). Default: ``GramOperator(kernel, X, C, block_dtype=dtype,
        cache=<store>, sample_weight=sample_weight, n_temporaries=3)``.
    center_weights : ndarray of shape (M,), optional
        How many drawn centers each row of C stands for (repeated rows
        dropped by :func:`kernelkit.features.centers.distinct_centers`). The
        preconditioner then approximates K_nM' K_nM / n by
        K_MM diag(w) K_MM / sum(w), which is what the drawn sample gives; the
        model does not depend on them. Default: all ones.
    preconditioner : {"auto", "cholesky", "eigen"}, default="auto"
        ``"cholesky"``: T = chol(K_MM + eps M I), Falkon's Algorithm 1.
        ``"eigen"``: T from the eigen-directions of K_MM above ``rank_rtol``
        times its largest eigenvalue, for rank-deficient K_MM (the model is
        then restricted to those directions). ``"auto"``: Cholesky, unless
        more than :data:`DEPENDENT_SHARE` of its pivots are below 10 x jitter
        (:func:`dependent_pivots`), i.e. K_MM is numerically rank-deficient,
        and M <= :data:`EIGEN_MAX_M`.
        The choice is returned as ``preconditioner_choice``.
    rank_rtol : float, optional
        Relative eigenvalue threshold of the eigen preconditioner, default
        :data:`EIGEN_RTOL`.
    checkpoint : str or Path, optional
        A file where the CG state is written after every iteration
        (:mod:`kernelkit.solvers.cg_checkpoint`); a run started again with the
        same file and the same problem continues from it (``maxiter`` counts the
        iterations already done). A file of another problem is ignored with a
        warning and overwritten.
    solve : {"auto", "cg", "direct"}, default="auto"
        ``"cg"``: the preconditioned conjugate-gradient iterations.
        ``"direct"``: the same system in the ``rank`` directions, formed by one
        product of K_nM with ``rank`` columns (``T^-1``) and solved by Cholesky:
        the exact Nystroem solution (``n_iter`` is 1, the residual is that of
        the solve). ``"auto"``: direct when that product costs no more than
        :data:`DIRECT_CG_ITERATIONS` iterations would (``rank <=
        DIRECT_CG_ITERATIONS * max(t, THIN_COLUMNS)`` for t targets: a product
        with fewer than :data:`THIN_COLUMNS` columns is bound by reading K_nM,
        not by arithmetic), for the eigen preconditioner only (rank-deficient
        K_MM: there the preconditioner stands for K_nM'K_nM poorly and CG
        needs many iterations; KDD Cup 99: 343 directions, 23 classes, 35-67
        iterations) and without a ``checkpoint`` (which saves CG's state).
        With the eigen preconditioner, "auto" CG also hands over to the direct
        solve as soon as the iterations it still needs, forecast from its rate
        (:func:`kernelkit.solvers.cg_forecast.pcg_or_hand_over`), cost more
        than the direct solve (small alpha; ``n_iter`` is then the CG
        iterations run plus 1). The choice is returned as ``solve_choice``.

    Returns
    -------
    FalkonResult

    References
    ----------
    Rudi, A., Carratino, L. and Rosasco, L. (2017). FALKON: An optimal large
    scale kernel method. NIPS 30.
    """
    if preconditioner not in ("auto", "cholesky", "eigen"):
        raise ValueError(f"preconditioner must be 'auto', 'cholesky' or 'eigen', "
                         f"got {preconditioner!r}")
    if solve not in ("auto", "cg", "direct"):
        raise ValueError(f"solve must be 'auto', 'cg' or 'direct', got {solve!r}")
    y = np.asarray(y, dtype=np.float64)
    Y = y[:, None] if y.ndim == 1 else y
    n, M = (n_rows(X) if operator is None else operator.shape[0]), n_rows(C)
    dtype = np.dtype(dtype)
    # float32 factors take 8 M^2, but the eigen form (rank-deficient K_MM) and the
    # direct solve's copy of a factor are float64: 16 M^2 are charged either way
    require(16.0 * M * M, f"Falkon's preconditioner with M={M} centers (two {M} x {M} "
            "matrices, float64 at most)", hint="use fewer centers")
    lam = float(alpha) / n
    weights = None
    if center_weights is not None:
        weights = np.asarray(center_weights, dtype=np.float64)
        if weights.shape != (M,) or not np.all(weights > 0):
            raise ValueError(f"center_weights must be {M} positive numbers")
    if not isinstance(store, (bool, np.bool_, Choice)):  # "auto"/None: the planner's question
        raise InvalidParameterError(
            f"store must be True, False or the planner's Choice, got {store!r}; for "
            "the planner's decision (K_nM kept when it fits the memory budget) "
            "pass store=kernelkit.planning.falkon_store_choice(n, M, itemsize)")
    if operator is None:
        store_choice = store if isinstance(store, Choice) else None  # the caller's plan
        stored = bool(store.value if isinstance(store, Choice) else store)
        if stored and store_choice is None:  # forced: K_nM next to the factors must fit
            require(dtype.itemsize * n * M + 16.0 * M * M, f"storing K_nM ({n} x {M}) "
                    "(store=True)", "pass store=False (K_nM recomputed at every iteration)")
    else:
        if sample_weight is not None:
            raise ValueError("with an operator, give the sample weights to the operator")
        store_choice = getattr(operator, "store_choice", None)
        stored = getattr(operator, "stores", None)
        if stored is None:
            stored = bool(store_choice.value) if store_choice is not None else False
    factors, jitter, rank, choice = _factors(kernel, C, lam, dtype, weights, preconditioner,
                                             rank_rtol)
    op = operator
    if op is None:
        op = GramOperator(kernel, X, C, cache=store, block_dtype=dtype,
                          sample_weight=sample_weight, n_temporaries=3)
    La = factors.La
    solve_choice = _solve_choice(solve, rank, Y.shape[1], factors.L is None,
                                 checkpoint is not None)
    if solve_choice.value == "direct":
        coef, rn, direct_jitter = _direct(op, factors, rank, Y, n, lam)
        return FalkonResult(coef[:, 0] if y.ndim == 1 else coef, 1, True,
                            float(rn[0]) if y.ndim == 1 else rn, float(jitter + direct_jitter),
                            stored, store_choice, rank, choice, solve_choice)

    def apply(U):  # B' H B U with B = T^-1 A^-1 / sqrt(n)
        W = _tri(La, U, "T")
        Z = op.gram_matmat(factors.inv(W)) / n
        Z = factors.inv_t(Z) + lam * W
        return _tri(La, Z, "N")

    _, KtY = op.gram_matmat(np.zeros((M, 0)), Y)
    rhs = _tri(La, factors.inv_t(KtY / n), "N")
    count = [0]

    def progress(_):
        count[0] += 1
        if callback is not None:
            callback(count[0])

    state = on_state = None
    if checkpoint is not None:
        # La's diagonal only: a float64 La's upper triangle is undefined
        fingerprint = problem_fingerprint(C, rhs, np.diagonal(La), lam=float(lam),
                                          dtype=dtype.str, choice=str(choice.value), rank=rank)
        state = load_state(checkpoint, fingerprint, rhs.shape)
        count[0] = 0 if state is None else state.n_iter
        on_state = lambda st: save_state(checkpoint, fingerprint, st)  # noqa: E731
    direct_cost = rank / max(Y.shape[1], THIN_COLUMNS)  # in iterations, as _solve_choice
    if (solve == "auto" and checkpoint is None and factors.L is None
            and fits(8.0 * (2 * M * rank + 2 * rank * rank))):
        # Rank-deficient K_MM at small alpha can make CG slow (the eigen preconditioner's
        # T D T' / sum(D) stands for K_nM'K_nM / n less well than lam hides; KDD Cup 99,
        # distinct centers, alpha = 1e-6: 100 iterations, not converged): hand over to the
        # direct solve once the forecast of the iterations still needed exceeds its cost.
        run = pcg_or_hand_over(_Op(apply, rank), rhs, rtol=tol, maxiter=maxiter,
                               direct_cost=direct_cost, callback=progress)
        res = run.result
        if run.hand_over:
            coef, rn, direct_jitter = _direct(op, factors, rank, Y, n, lam)
            solve_choice = Choice(
                "Falkon solve", "direct",
                f"CG handed over after {res.n_iter} iterations: "
                + (f"~{run.forecast:.0f} more forecast from its rate at this alpha"
                   if np.isfinite(run.forecast) else "its residual did not fall")
                + f", more than the direct solve in {rank} directions costs "
                f"(~{direct_cost:.0f} iterations' worth)")
            return FalkonResult(coef[:, 0] if y.ndim == 1 else coef, res.n_iter + 1, True,
                                float(rn[0]) if y.ndim == 1 else rn,
                                float(jitter + direct_jitter), stored, store_choice, rank,
                                choice, solve_choice)
    else:
        res = pcg(_Op(apply, rank), rhs, rtol=tol, maxiter=maxiter, callback=progress,
                  state=state, on_state=on_state)
    coef = factors.inv(_tri(La, res.x, "T"))
    rhs_norm = np.maximum(np.linalg.norm(rhs, axis=0), np.finfo(float).tiny)
    rn = np.asarray(res.residual_norm) / rhs_norm
    return FalkonResult(coef[:, 0] if y.ndim == 1 else coef, res.n_iter, res.converged,
                        float(rn[0]) if y.ndim == 1 else rn, float(jitter), stored,
                        store_choice, rank, choice, solve_choice)


def _solve_choice(solve, rank, n_targets, eigen, checkpoint):
    """Conjugate gradient or one direct solve in the ``rank`` directions, as a
    :class:`Choice` reporting what the factorisation found.

    It depends on what factoring the preconditioner found in K_MM: ``eigen``
    (K_MM rank-deficient, the eigen form) and its ``rank``, so no plan made
    before the numerics can know it. Direct when forming the rank x rank
    system costs no more than :data:`DIRECT_CG_ITERATIONS` CG iterations,
    each charged at least :data:`THIN_COLUMNS` columns.

    Parameters
    ----------
    solve : {"auto", "cg", "direct"}
        The caller's setting; anything but ``"auto"`` is kept.
    rank : int
        Directions of the preconditioner.
    n_targets : int
    eigen : bool
        The eigen preconditioner (a rank-deficient K_MM).
    checkpoint : bool
        A CG checkpoint was given (CG, whose state it saves).
    """
    limit = DIRECT_CG_ITERATIONS * max(n_targets, THIN_COLUMNS)
    if solve != "auto":
        return Choice("Falkon solve", solve, "set by the user")
    if not eigen:
        return Choice("Falkon solve", "cg", "full-rank K_MM: Falkon's preconditioner "
                      "describes K_nM'K_nM well, CG converges in few iterations")
    if checkpoint:
        return Choice("Falkon solve", "cg", "a checkpoint was given: CG, whose state it saves")
    if rank <= limit:
        return Choice("Falkon solve", "direct",
                      f"{rank} directions <= {limit} = {DIRECT_CG_ITERATIONS} iterations x "
                      f"max({n_targets} targets, {THIN_COLUMNS}): one product of K_nM with "
                      f"{rank} columns and a {rank} x {rank} Cholesky cost less than the "
                      "iterations, and give the exact solution")
    return Choice("Falkon solve", "cg",
                  f"{rank} directions > {limit} = {DIRECT_CG_ITERATIONS} iterations x "
                  f"max({n_targets} targets, {THIN_COLUMNS}): preconditioned CG")


def _direct(op, factors, rank, Y, n, lam):
    """The system of the CG iterations, formed and solved directly.

    With V = T^-1 (M x r), the problem in the r directions is
    (V' K'SK V / n + lam I) b = V' K'S Y / n and coef = V b: the same minimiser
    as the iterations', up to rounding. Returns coef, the relative residual of
    each target and the jitter of the Cholesky (0 unless it needed one).
    """
    V = factors.inv(np.eye(rank))
    KtKV, KtY = op.gram_matmat(V, Y)
    H = V.T @ KtKV
    H = (H + H.T) / (2.0 * n)
    H.flat[:: rank + 1] += lam
    rhs = V.T @ KtY / n
    chol = robust_cholesky(H.copy(), overwrite_a=True)
    b = cho_solve(chol, rhs)
    res = np.linalg.norm(H @ b - rhs, axis=0)
    rn = res / np.maximum(np.linalg.norm(rhs, axis=0), np.finfo(float).tiny)
    return V @ b, rn, chol.jitter


def _factors(kernel, C, lam, dtype, weights, preconditioner, rank_rtol):
    """The preconditioner's factors, the jitter, the rank and the Choice made."""
    M = n_rows(C)
    rtol = EIGEN_RTOL if rank_rtol is None else float(rank_rtol)
    if preconditioner != "eigen":
        L, La, jitter = _preconditioner(kernel, C, lam, dtype, weights)
        if preconditioner == "cholesky":
            return _Factors(La, L=L), jitter, M, Choice("preconditioner", "cholesky",
                                                        "set by the user")
        dep = dependent_pivots(L, jitter)
        if dep <= DEPENDENT_SHARE * M or M > EIGEN_MAX_M:
            return _Factors(La, L=L), jitter, M, Choice(
                "preconditioner", "cholesky",
                f"{dep} of {M} Cholesky pivots of K_MM below 10 x its jitter {jitter:.3g} "
                + (f"(<= {DEPENDENT_SHARE:.0%}): numerically full rank"
                   if dep <= DEPENDENT_SHARE * M else
                   f"(rank-deficient, but M > {EIGEN_MAX_M}: an eigendecomposition "
                   "would cost too much; pass preconditioner='eigen' to force it)"))
        del L, La
        why = (f"{dep} of {M} Cholesky pivots of K_MM below 10 x its jitter {jitter:.3g} "
               f"(> {DEPENDENT_SHARE:.0%}): numerically rank-deficient")
    else:
        why = "set by the user"
    Q, root, La = _eigen_preconditioner(kernel, C, lam, weights, rtol)
    r = len(root)
    return _Factors(La, Q=Q, root=root), 0.0, r, Choice(
        "preconditioner", "eigen", f"{why}; kept {r} of {M} eigen-directions "
                                   f"(eigenvalues > {rtol:.0e} x the largest)")


class _Op:
    """The preconditioned operator as something :func:`kernelkit.linalg.pcg` accepts."""

    def __init__(self, fn, m):
        self.matmat, self.shape = fn, (m, m)
