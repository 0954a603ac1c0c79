"""Dense linear algebra for kernel machines: Cholesky, CG and leave-one-out.

The exact solvers of kernelkit factor Gram matrices ``K + alpha * I`` of order
up to tens of thousands. Two facts shape this module:

* The OpenBLAS in the numpy/scipy wheels segfaults inside multi-threaded
  LAPACK ``dpotrf`` at n >= ~16000 (``scipy.linalg.cho_factor``,
  ``numpy.linalg.cholesky``; ``spotrf`` from ~28000). Above order 12000
  (float32: 16000) :func:`robust_cholesky` therefore runs the blocked Cholesky of :mod:`kernelkit.linalg_blocked`,
  whose LAPACK calls only ever see diagonal blocks of order 1024 (on one
  thread); the flops are in multi-threaded GEMM, which is safe, at its rate.
* The matrix alone can fill half the RAM (n = 40000 is 12.8 GB in float64),
  so nothing here allocates a second n x n array: the factorisation works in
  place and its jitter retries restore the input from its untouched upper
  triangle instead of from a copy.

Why this module is long: it is the room of dense linear algebra that every
solver, feature map and tuning path imports, and its largest part is one
algorithm, the robust Cholesky -- the choice between one LAPACK call and the
blocked factorisation that keeps LAPACK away from the crashing large ``dpotrf``,
the jitter ladder and the restore from the untouched upper triangle that
avoids any n x n copy -- whose pieces only make sense together. The rest is
short and of the same kind: solves with the factor, PCG with its resumable
state (for checkpoints) and the eigen-solvers for leave-one-out; moved to
rooms of their own they would add floors to the map, not clarity.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg import lapack
from threadpoolctl import ThreadpoolController

from kernelkit.exceptions import NumericalWarning
from kernelkit.linalg_blocked import BLOCKED_BLOCK_SIZE, blocked_cholesky

__all__ = ["CholeskyResult", "robust_cholesky", "cho_solve", "solve_psd", "PCGState",
           "PCGResult", "pcg", "eigh_psd", "loo_residuals", "one_blas_thread",
           "THREADED_POTRF_MAX_N", "THREADED_SPOTRF_MAX_N"]

# Largest order for which LAPACK dpotrf may run with all BLAS threads. Measured
# on the 2-core dev box (OpenBLAS 0.3.30/0.3.31): threaded dpotrf is ~2x faster
# than single-threaded (n=4096: 88 vs 46 GFLOP/s), ran cleanly at 10000, 12000
# and 14000 (94, 96, 88 GFLOP/s), and segfaults from n ~ 16000: 12000 keeps a
# margin. Larger diagonal blocks run on one thread. Threaded dsyrk crashes too
# (numpy `G @ G.T` with G of shape (20000, 200) segfaults; 19000 does not): the
# blocked path (linalg_blocked) calls no syrk.
THREADED_POTRF_MAX_N = 12000
# The same for spotrf (float32), measured the same way on the same box (OpenBLAS
# 0.3.31, 2 threads, each order in its own process): clean at 13000, 16000, 18000,
# 20000 and 24000, a segfault at 28000 (dpotrf in the same session: clean at 14500,
# a segfault at 16000). 16000 keeps a margin; the k-fold ridge's float32 factors of
# 12,800 rows and its refit's of 16,000 run as one LAPACK call (3.95 s vs 4.2-4.6 s
# blocked at 12,800).
THREADED_SPOTRF_MAX_N = 16000
# Diagonal blocks up to this order are factored on one thread in the blocked
# path: a threaded potrf of a small block costs more in waking and joining the
# threads (much more on a loaded machine) than its flops, n b^2 / 3 in all.
_ONE_THREAD_DIAGONAL_MAX = 2048
# The jitter ladder stops here (relative to the mean |diagonal|): a jitter this
# large no longer absorbs rounding error, it changes the model (use alpha).
_MAX_RELATIVE_JITTER = 1e-2
_pools = None  # (shared, per-thread) BLAS pools, found on first use (importing starts nothing)
# one_blas_thread's bookkeeping. A pool shared by the process (OpenBLAS on pthreads, MKL,
# BLIS) is limited by the first block entered in any thread and restored by the last one
# left; a pool whose limit is per thread (OpenBLAS on OpenMP: omp_set_num_threads) by the
# first and last block of each thread.
_blas_lock = threading.Lock()
_blas_shared = {"open": 0, "saved": ()}  # blocks open in the process; (pool, its threads)
_blas_local = threading.local()          # .open, .saved: the same for per-thread pools


def _blas_pools():
    """(shared, per-thread) BLAS thread pools, as threadpoolctl's library controllers."""
    global _pools
    if _pools is None:
        _pools = _split_pools(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _pools


def _split_pools(pools):
    """(shared, per-thread): only OpenBLAS on OpenMP sets its count per thread
    (omp_set_num_threads); BLIS reports "openmp" too, but its
    bli_thread_set_num_threads is process-wide, as are MKL and OpenBLAS on pthreads."""
    per_thread = [p for p in pools if getattr(p, "internal_api", None) == "openblas"
                  and getattr(p, "threading_layer", None) == "openmp"]
    return [p for p in pools if p not in per_thread], per_thread


def _set_blas_threads(pools_and_counts):
    for pool, count in pools_and_counts:
        pool.set_num_threads(count)
        # threadpoolctl lets one thread at a time set a shared OpenBLAS pool: let go of
        # it, so the thread that leaves the last block (maybe another) can restore it
        clear = getattr(type(pool), "clear_controlling_thread", None)
        if clear is not None:
            clear()


def _limit(pools):
    """Each pool at one thread; returns the (pool, threads) pairs it had."""
    saved = tuple((p, p.get_num_threads()) for p in pools)
    saved = tuple((p, n) for p, n in saved if n is not None)
    _set_blas_threads((p, 1) for p, _ in saved)
    return saved


@contextlib.contextmanager
def one_blas_thread():
    """A context in which BLAS runs on one thread (threadpoolctl; no pool of our own).

    For BLAS calls that crash multi-threaded in the wheels' OpenBLAS, and for
    many small products where threads cost more than they bring.

    Blocks nest and may be entered from several threads at once (Falkon's CG in
    an in-process Dask worker, a search's fold threads): a BLAS thread pool
    shared by the process (OpenBLAS on pthreads, as in the numpy and scipy
    wheels) stays at one thread from the first block entered in any thread until
    the last one is left, which restores the count the first one found. One
    count of open blocks for the process, under a lock: each block restoring
    what it saw on entry left the pool at one thread after two overlapping
    blocks, and at several threads inside the other thread's block. A pool whose
    limit is per thread (OpenBLAS on OpenMP) is counted per thread. A count other
    code sets inside a block is overwritten when the last block ends.

    kernelkit's own one-thread limits (the Dask task wrapper, the normal
    equations, random Fourier features' worker threads, the tiled Gram engine,
    plotting) all go through this block, so one count governs them.
    Limits set by foreign code (a user's ``threadpool_limits``) are not
    coordinated with it: overlapping one of them from another thread can leave
    BLAS at the other's count inside a block, or at one thread after both.
    """
    shared, per_thread = _blas_pools()
    with _blas_lock:
        if _blas_shared["open"] == 0:
            _blas_shared["saved"] = _limit(shared)
        _blas_shared["open"] += 1
    if getattr(_blas_local, "open", 0) == 0:
        _blas_local.saved = _limit(per_thread)
    _blas_local.open = getattr(_blas_local, "open", 0) + 1
    try:
        yield
    finally:
        _blas_local.open -= 1
        if _blas_local.open == 0:
            _set_blas_threads(_blas_local.saved)
            _blas_local.saved = ()
        with _blas_lock:
            _blas_shared["open"] -= 1
            if _blas_shared["open"] == 0:
                _set_blas_threads(_blas_shared["saved"])
                _blas_shared["saved"] = ()


def _threaded_potrf_max(dtype):
    """Largest order potrf may run multi-threaded for ``dtype``."""
    return THREADED_SPOTRF_MAX_N if np.dtype(dtype) == np.float32 else THREADED_POTRF_MAX_N


def _potrf_threads(order, dtype=np.float64):
    return (contextlib.nullcontext() if order <= _threaded_potrf_max(dtype)
            else one_blas_thread())


def _diagonal_block_threads(order):
    return one_blas_thread() if order <= _ONE_THREAD_DIAGONAL_MAX else _potrf_threads(order)


@dataclass(frozen=True)
class CholeskyResult:
    """Result of :func:`robust_cholesky`.

    Attributes
    ----------
    L : ndarray of shape (n, n), of the requested dtype (float64 by default)
        Lower Cholesky factor of ``A + jitter * I``. Only the lower triangle
        (with the diagonal) is meaningful; the strict upper triangle still
        holds the input's upper triangle. Use ``np.tril(L)`` for a clean copy.
    jitter : float
        Value added to the diagonal, 0.0 if none was needed.
    n_tries : int
        Number of factorisation attempts (1 if the first one succeeded).
    """

    L: np.ndarray
    jitter: float
    n_tries: int


def _check_finite(A, rows):
    # One pass in row blocks: np.isfinite(A) would allocate n*n bytes.
    for i in range(0, A.shape[0], rows):
        if not np.isfinite(A[i:i + rows]).all():
            raise ValueError("A contains NaN or infinity; a Gram matrix must be finite. "
                             "Check the input data and the kernel parameters.")


def _restore_lower(A, diag, tile):
    """Copy the strict upper triangle of ``A`` onto its lower one, set the diagonal."""
    n = A.shape[0]
    for i in range(0, n, tile):
        ie = min(i + tile, n)
        for j in range(0, i, tile):  # square tiles keep the transposed copy in cache
            A[i:ie, j:j + tile] = A[j:j + tile, i:ie].T
        D = A[i:ie, i:ie]
        np.copyto(D, D.T.copy(), where=np.tri(ie - i, k=-1, dtype=bool))
    np.fill_diagonal(A, diag)


def _potrf(A):
    """LAPACK potrf of A's precision (dpotrf or spotrf)."""
    return lapack.get_lapack_funcs("potrf", (A,))


def _potrf_inplace(A):
    """Unblocked potrf on the lower triangle of contiguous ``A``; return LAPACK info."""
    n = A.shape[0]
    # A C-ordered array is the F-ordered transpose, whose upper triangle is our lower.
    F, lower = (A, 1) if A.flags.f_contiguous else (A.T, 0)
    with _potrf_threads(n, A.dtype):
        c, info = _potrf(A)(F, lower=lower, clean=0, overwrite_a=1)
    if not np.shares_memory(c, F):  # pragma: no cover - f2py copied after all
        F[...] = c
    return info


def robust_cholesky(A, *, overwrite_a=False, block_size=None, max_tries=6, jitter_start=None,
                    dtype=np.float64, check_finite=True):
    """Cholesky factor of a symmetric positive (semi-)definite matrix, never crashing.

    Factors ``A + jitter * I = L L^T`` by one LAPACK ``potrf`` call up to order
    12000 (float32: 16000), and beyond by the blocked left-looking algorithm of
    :func:`kernelkit.linalg_blocked.blocked_cholesky` (``potrf`` on diagonal
    blocks, ``trsm`` for the panels, multi-threaded ``gemm`` on views of the
    matrix for the updates, at the GEMM rate). Its LAPACK calls stay below the
    order at which the multi-threaded OpenBLAS ``potrf`` crashes, and it
    allocates no n x n temporary.

    If ``A`` is not numerically positive definite, jitter is added to the
    diagonal: ``jitter_start`` (default ``1e-10 * mean(diag(A))``) times
    1, 10, 100, ... for up to ``max_tries`` retries, never above
    ``1e-2 * mean(|diag(A)|)`` (an explicit larger ``jitter_start`` is tried
    alone). A :class:`~kernelkit.exceptions.NumericalWarning` reports the
    jitter that was finally used.

    Parameters
    ----------
    A : array-like of shape (n, n)
        Symmetric matrix. The first attempt reads only its lower triangle;
        after a failed attempt the lower triangle is rebuilt from the strict
        upper triangle and the diagonal saved at the start, so these must
        hold the same symmetric matrix.
    overwrite_a : bool, default=False
        Factor in place in ``A`` (no copy) if it is a C- or F-contiguous ndarray
        of ``dtype``; otherwise a copy is made. On success the lower
        triangle of ``A`` holds L and the strict upper triangle is unchanged.
        On failure ``A`` is restored (symmetrised from its upper triangle).
    block_size : int, optional
        Order of the diagonal blocks. Matrices with ``n <= block_size`` are
        factored by one ``potrf`` call (multi-threaded up to n = 12000,
        float32 16000, single-threaded above). Default: one multi-threaded call
        up to those orders (the fastest), blocks of 1024 beyond. The blocked path's
        only temporaries are copies of its diagonal tiles (512 x n numbers).
    max_tries : int, default=6
        Maximum number of retries with jitter after the first failure.
    jitter_start : float, optional
        First jitter to try. Default ``1e-10 * mean(diag(A))``, or ``1e-10``
        if that mean is not positive.
    dtype : {np.float64, np.float32}, default=np.float64
        Precision of the factorisation (``dpotrf`` or ``spotrf``, half the time).
    check_finite : bool, default=True
        Refuse NaN and infinity in ``A`` before factoring (one pass over it, 0.2 s
        at order 12,800). False: for a caller whose matrix was checked when it was
        computed and who checks what it solves with the factor. A NaN then gives a
        NaN factor (OpenBLAS's ``potrf`` factors through it) or, if the first
        attempt fails, a ValueError before any jitter is tried.

    Returns
    -------
    CholeskyResult
        ``L`` of shape (n, n) (may be ``A`` itself), ``jitter``, ``n_tries``.

    Raises
    ------
    ValueError
        If ``A`` is not square or contains NaN or infinity.
    numpy.linalg.LinAlgError
        If ``A + jitter * I`` is not positive definite for any jitter tried.
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be float64 or float32, got {dtype}")
    if block_size is None:
        threaded_max = _threaded_potrf_max(dtype)
        block_size = (threaded_max if np.shape(A)[0] <= threaded_max else BLOCKED_BLOCK_SIZE)
    if block_size < 1 or max_tries < 0:
        raise ValueError(f"block_size must be >= 1 and max_tries >= 0, "
                         f"got {block_size} and {max_tries}")
    A_in = A
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix, got shape {A.shape}")
    if not (overwrite_a and A is A_in and A.dtype == dtype and A.flags.writeable
            and (A.flags.c_contiguous or A.flags.f_contiguous)):
        A = np.array(A, dtype=dtype, order="F" if A.flags.f_contiguous else "C")
    n = A.shape[0]
    if check_finite:
        _check_finite(A, max(1, min(block_size, 2**22 // max(n, 1))))
    if n == 0:
        return CholeskyResult(A, 0.0, 1)
    diag = A.diagonal().copy()  # n floats: all a retry needs besides the upper triangle
    scale = float(np.mean(np.abs(diag))) or 1.0
    if jitter_start is None:
        mean_diag = float(np.mean(diag))
        jitter_start = 1e-10 * mean_diag if mean_diag > 0 else 1e-10
    elif not jitter_start > 0:
        raise ValueError(f"jitter_start must be > 0, got {jitter_start}")
    cap = max(_MAX_RELATIVE_JITTER * scale, jitter_start)
    ladder = [0.0] + [j for j in jitter_start * 10.0 ** np.arange(max_tries) if j <= cap * (1 + 1e-12)]

    for attempt, jitter in enumerate(ladder, start=1):
        if attempt > 1:
            _restore_lower(A, diag + jitter, tile=min(block_size, 512))
        info = (_potrf_inplace(A) if n <= block_size
                else blocked_cholesky(A, block_size, diagonal_threads=_diagonal_block_threads))
        if info == 0:
            if jitter > 0:
                warnings.warn(
                    f"Matrix was not numerically positive definite (failed at column "
                    f"{fail_col} of {n}); added jitter {jitter:.3g} to the diagonal "
                    f"({jitter / scale:.1e} x mean |diagonal|, attempt {attempt}) so the "
                    "Cholesky factorisation succeeds. Increase alpha to avoid this.",
                    NumericalWarning, stacklevel=2)
            return CholeskyResult(A, float(jitter), attempt)
        fail_col = info
        if attempt == 1 and not check_finite:  # a NaN fails potrf: say so, no jitter
            _restore_lower(A, diag, tile=min(block_size, 512))
            _check_finite(A, max(1, min(block_size, 2**22 // max(n, 1))))
    _restore_lower(A, diag, tile=min(block_size, 512))
    raise np.linalg.LinAlgError(
        f"Matrix of order {n} is not positive definite, even with jitter {ladder[-1]:.3g} "
        f"added to the diagonal ({len(ladder)} attempts; the last failed at column "
        f"{fail_col}). The kernel may not be positive semi-definite (e.g. 'sigmoid' is "
        "not) or the regularisation alpha is too small for the conditioning of the Gram "
        "matrix. Increase alpha, use a PSD kernel (rbf, laplacian, polynomial with "
        "coef0 >= 0, ...), or pass a larger jitter_start.")


def cho_solve(chol, B):
    """Solve ``L L^T X = B`` given a Cholesky factor.

    Parameters
    ----------
    chol : CholeskyResult or ndarray of shape (n, n)
        Result of :func:`robust_cholesky` or a lower factor ``L`` (only its
        lower triangle is read).
    B : array-like of shape (n,) or (n, k)
        Right-hand side(s).

    Returns
    -------
    X : ndarray of shape (n,) or (n, k)
        Solution of ``(A + jitter * I) X = B``.
    """
    L = chol.L if isinstance(chol, CholeskyResult) else np.asarray(chol)
    B = np.asarray(B, dtype=np.float64)
    if B.shape[:1] != L.shape[:1] or B.ndim not in (1, 2):
        raise ValueError(f"B must have shape ({L.shape[0]},) or ({L.shape[0]}, k), got {B.shape}")
    Y = scipy.linalg.solve_triangular(L, B, lower=True, check_finite=False)
    return scipy.linalg.solve_triangular(L, Y, lower=True, trans="T", overwrite_b=True,
                                         check_finite=False)


def solve_psd(A, B, *, overwrite_a=False, **cholesky_kwargs):
    """Solve ``A X = B`` for symmetric positive definite ``A`` via :func:`robust_cholesky`.

    Parameters
    ----------
    A : array-like of shape (n, n)
        Symmetric positive (semi-)definite matrix.
    B : array-like of shape (n,) or (n, k)
        Right-hand side(s).
    overwrite_a : bool, default=False
        Factor in place in ``A`` (see :func:`robust_cholesky`).
    **cholesky_kwargs
        ``block_size``, ``max_tries``, ``jitter_start`` of :func:`robust_cholesky`.

    Returns
    -------
    X : ndarray of shape (n,) or (n, k)
        Solution of ``(A + jitter * I) X = B``.
    chol : CholeskyResult
        The factorisation, reusable with :func:`cho_solve`.
    """
    chol = robust_cholesky(A, overwrite_a=overwrite_a, **cholesky_kwargs)
    return cho_solve(chol, B), chol


@dataclass(frozen=True)
class PCGResult:
    """Result of :func:`pcg`.

    Attributes
    ----------
    x : ndarray of shape (n,) or (n, k)
        Approximate solution.
    n_iter : int
        Iterations run (the most any column needed).
    converged : bool
        Whether every column met its tolerance.
    residual_norm : float or ndarray of shape (k,)
        Final *recursive* residual norm ``||r_k||`` (the one the stopping test
        uses; it can drift from the true ``||b - A x||`` near machine precision).
    """

    x: np.ndarray
    n_iter: int
    converged: bool
    residual_norm: float | np.ndarray


def _as_matmat(A, name):
    """Turn a matrix, LinearOperator, object with matvec, or callable into V -> A V (2-D)."""
    if A is None:
        return lambda V: V
    if hasattr(A, "matmat"):
        return A.matmat
    if hasattr(A, "matvec"):
        return lambda V: np.column_stack([A.matvec(v) for v in V.T])
    if hasattr(A, "shape") and hasattr(A, "__matmul__"):  # ndarray, sparse
        return lambda V: A @ V
    if callable(A):  # v -> A v; may not accept 2-D input, so apply column by column
        return lambda V: np.column_stack([np.asarray(A(v)).ravel() for v in V.T])
    raise TypeError(f"{name} must be an array, a LinearOperator, an object with matvec, "
                    f"or a callable v -> {name} v; got {type(A).__name__}")


@dataclass
class PCGState:
    """Everything the conjugate-gradient recurrence carries from one iteration to
    the next (all columns): continuing from it gives the iterates an
    uninterrupted run would have given, bit for bit.

    Attributes
    ----------
    X, R, P : ndarray of shape (n, k)
        Iterate, residual and search direction.
    rz : ndarray of shape (k,)
        r'z of the last iteration.
    active : ndarray of shape (k,), bool
        Columns still iterating.
    n_iter : int
    """

    X: np.ndarray
    R: np.ndarray
    P: np.ndarray
    rz: np.ndarray
    active: np.ndarray
    n_iter: int


def pcg(A, b, *, M=None, x0=None, rtol=1e-6, atol=0.0, maxiter=None, callback=None,
        state=None, on_state=None, shift=None):
    """Preconditioned conjugate gradient for symmetric positive definite ``A``.

    Same contract as :func:`scipy.sparse.linalg.cg`, plus several right-hand
    sides: for ``b`` of shape (n, k) the k recurrences run together through
    ``A.matmat`` and each column stops once it meets its own tolerance.

    Parameters
    ----------
    A : ndarray, LinearOperator, object with ``matvec``/``matmat``, or callable
        The SPD operator of shape (n, n); a callable maps v of shape (n,) to A v.
    b : array-like of shape (n,) or (n, k)
        Right-hand side(s).
    M : same kinds as ``A``, optional
        Preconditioner applying an approximation of ``A^-1`` (SPD). An object with
        a method ``matmat_columns(R, cols)`` is called through it instead, with
        the indices of the active columns ``R`` holds: a preconditioner that
        differs by column (e.g. one factor per group of shifts).
    x0 : array-like of shape like ``b``, optional
        Starting guess, default zeros.
    rtol, atol : float, default=1e-6, 0.0
        Column j stops when ``||r_j|| <= max(rtol * ||b_j||, atol)``.
    maxiter : int, optional
        Maximum number of iterations, default ``10 * n``.
    callback : callable, optional
        Called as ``callback(xk)`` after each iteration with the current
        iterate of shape like ``b``.
    state : PCGState, optional
        Continue from this state (e.g. a checkpoint of an interrupted run)
        instead of ``x0``; ``maxiter`` counts its iterations too.
    on_state : callable, optional
        Called as ``on_state(PCGState)`` after each iteration (to checkpoint;
        the arrays are the live ones: copy or write them out before returning).
    shift : array-like of shape (k,), optional
        Column j solves ``(A + shift[j] I) x_j = b_j`` (one operator product
        serves shifted systems, e.g. kernel ridge for several alphas); each
        ``A + shift[j] I`` must be SPD.

    Returns
    -------
    PCGResult
        ``x``, ``n_iter``, ``converged``, ``residual_norm`` (recursive).
    """
    b = np.asarray(b, dtype=np.float64)
    vector = b.ndim == 1
    B = b.reshape(-1, 1) if vector else b
    if B.ndim != 2:
        raise ValueError(f"b must have shape (n,) or (n, k), got {b.shape}")
    n, k = B.shape
    by_column = callable(getattr(M, "matmat_columns", None))
    Amm, Mmm = _as_matmat(A, "A"), (None if by_column else _as_matmat(M, "M"))
    maxiter = 10 * n if maxiter is None else int(maxiter)
    X = np.zeros_like(B) if x0 is None else np.array(x0, dtype=np.float64).reshape(n, k)
    shape_out = (lambda Z: Z.ravel()) if vector else (lambda Z: Z)
    bnorm = np.linalg.norm(B, axis=0)
    tol = np.maximum(rtol * bnorm, atol)
    X[:, bnorm == 0] = 0.0  # b = 0 -> x = 0 whatever x0, as scipy's cg
    shift = None if shift is None else np.broadcast_to(np.asarray(shift, np.float64), (k,))

    def product(V, cols):  # (A + shift I) V for the columns ``cols``
        AV = np.asarray(Amm(V)).reshape(n, -1)
        return AV if shift is None else AV + shift[cols] * V

    if state is None:
        R = B - product(X, slice(None)) if np.any(X) else B.copy()
        rnorm = np.linalg.norm(R, axis=0)
        active = rnorm > tol
        active[bnorm == 0] = False
        P = np.zeros_like(B)
        rz = np.ones(k)
        n_iter = 0
    else:
        if state.X.shape != (n, k) or state.R.shape != (n, k) or state.P.shape != (n, k) \
                or np.shape(state.rz) != (k,) or np.shape(state.active) != (k,):
            raise ValueError(f"the CG state to continue from has other shapes than b {B.shape}")
        X, R, P = (np.array(a, dtype=np.float64) for a in (state.X, state.R, state.P))
        rz = np.array(state.rz, dtype=np.float64)
        active = np.array(state.active, dtype=bool)
        n_iter = int(state.n_iter)
        rnorm = np.linalg.norm(R, axis=0)
    breakdown = np.zeros(k, dtype=bool)
    while active.any() and n_iter < maxiter:
        idx = np.flatnonzero(active)
        Z = np.asarray(M.matmat_columns(R[:, idx], idx) if by_column
                       else Mmm(R[:, idx])).reshape(n, -1)
        rz_new = np.einsum("ij,ij->j", R[:, idx], Z)
        beta = np.where(n_iter == 0, 0.0, rz_new / rz[idx])
        P[:, idx] = Z + beta * P[:, idx]
        rz[idx] = rz_new
        AP = product(P[:, idx], idx)
        pAp = np.einsum("ij,ij->j", P[:, idx], AP)
        ok = (pAp > 0) & (rz_new > 0)  # else A or M is not positive definite
        if not ok.all():
            breakdown[idx[~ok]] = True
            active[idx[~ok]] = False
            idx, AP, pAp = idx[ok], AP[:, ok], pAp[ok]
        step = rz[idx] / pAp
        X[:, idx] += step * P[:, idx]
        R[:, idx] -= step * AP
        rnorm[idx] = np.linalg.norm(R[:, idx], axis=0)
        active[idx[rnorm[idx] <= tol[idx]]] = False
        n_iter += 1
        if on_state is not None:
            on_state(PCGState(X, R, P, rz, active, n_iter))
        if callback is not None:
            callback(shape_out(X))
    if breakdown.any():
        warnings.warn(f"pcg stopped on {breakdown.sum()} column(s) because p'Ap or r'Mr was "
                      "not positive: A or the preconditioner M is not positive definite.",
                      NumericalWarning, stacklevel=2)
    converged = bool(np.all((rnorm <= tol) | (bnorm == 0)))
    rn = rnorm.copy()
    rn[bnorm == 0] = 0.0
    return PCGResult(shape_out(X), n_iter, converged, float(rn[0]) if vector else rn)


def eigh_psd(K, *, overwrite_a=False):
    """Eigendecomposition of a symmetric PSD matrix with eigenvalues clipped at 0.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric positive semi-definite matrix (e.g. a Gram matrix).
    overwrite_a : bool, default=False
        Allow LAPACK to destroy ``K`` (saves one n x n copy).

    Returns
    -------
    w : ndarray of shape (n,)
        Eigenvalues in ascending order, clipped at 0.
    Q : ndarray of shape (n, n)
        Orthonormal eigenvectors (columns), ``K = Q diag(w) Q^T``.

    Warns
    -----
    NumericalWarning
        If the clipped negative eigenvalues are significant: below
        ``-1e-8 * max(w)``, more than rounding error of a PSD matrix.
    """
    # driver="evd" (divide and conquer, dsyevd) is several times faster than the default.
    # Above the order where the wheel's threaded dpotrf/dsyrk are known to crash, the
    # threaded dsyevd is untested: run it on one thread rather than risk the process.
    with _potrf_threads(np.shape(K)[0]):
        w, Q = scipy.linalg.eigh(K, driver="evd", overwrite_a=overwrite_a, check_finite=True)
    top = max(float(w[-1]), 0.0) if w.size else 0.0
    if w.size and w[0] < -1e-8 * top:
        warnings.warn(f"Matrix has significantly negative eigenvalues (smallest {w[0]:.3g}, "
                      f"largest {top:.3g}); they were clipped to 0. The kernel may not be "
                      "positive semi-definite.", NumericalWarning, stacklevel=2)
    return np.maximum(w, 0.0), Q


def loo_residuals(w, Q, y, alpha, sample_weight=None):
    """Leave-one-out residuals of kernel ridge from one eigendecomposition.

    For the dual problem ``(K + alpha I) c = y`` with ``K = Q diag(w) Q^T``,
    the exact LOO residual is ``y_i - f_{-i}(x_i) = c_i / (G^-1)_ii`` with
    ``G = K + alpha I`` (Allen's PRESS identity; scikit-learn's ``_RidgeGCV``).

    Parameters
    ----------
    w : ndarray of shape (n,)
        Eigenvalues of the Gram matrix (see :func:`eigh_psd`).
    Q : ndarray of shape (n, n)
        Its eigenvectors.
    y : array-like of shape (n,) or (n, t)
        Targets.
    alpha : float
        Regularisation, > 0.
    sample_weight : array-like of shape (n,), optional
        Positive weights. As in scikit-learn's ``RidgeCV``, the problem is
        rescaled by ``sqrt(sample_weight)``: ``w, Q`` must then decompose the
        *weighted* Gram ``diag(s) K diag(s)``, ``s = sqrt(sample_weight)``.
        The residuals returned are on the original scale of ``y``.

    Returns
    -------
    residuals : ndarray of shape like ``y``
        ``y_i - f_{-i}(x_i)`` where ``f_{-i}`` is fitted without sample i.
    """
    if not np.ndim(alpha) == 0 or not alpha > 0:
        raise ValueError(f"alpha must be a scalar > 0, got {alpha}")
    y = np.asarray(y, dtype=np.float64)
    n = Q.shape[0]
    if y.shape[0] != n or y.ndim not in (1, 2):
        raise ValueError(f"y must have shape ({n},) or ({n}, t), got {y.shape}")
    s = None
    if sample_weight is not None:
        sw = np.asarray(sample_weight, dtype=np.float64)
        if sw.shape != (n,) or not np.all(sw > 0):
            raise ValueError(f"sample_weight must be positive of shape ({n},)")
        s = np.sqrt(sw)
        y = y * (s if y.ndim == 1 else s[:, None])
    inv = 1.0 / (w + alpha)
    Qty = Q.T @ y
    c = Q @ (Qty * (inv if y.ndim == 1 else inv[:, None]))
    # diag(G^-1)_i = sum_j Q_ij^2 / (w_j + alpha), in row blocks (Q**2 would be n x n).
    g = np.empty(n)
    step = max(1, 2**22 // max(n, 1))
    for i in range(0, n, step):
        g[i:i + step] = (Q[i:i + step] ** 2) @ inv
    res = c / (g if y.ndim == 1 else g[:, None])
    if s is not None:
        res /= s if y.ndim == 1 else s[:, None]
    return res
