"""Primal ridge on features that are never stored: Z'Z and Z'Y accumulated block by block.

For n samples and D features, ridge in w-space needs only the D x D matrix
Z'Z and the D x t matrix Z'Y (the lectures' "other normal equations"). Both
are sums over rows, so Z = psi(X) can be produced and consumed one block of
rows at a time: memory O(block * D + D^2) instead of O(n D). Each block's
contribution is a pure function (:func:`normal_block`) so a loop, a thread
pool or a Dask ``map_blocks`` + sum can all compute it.

Precision: a block's products are computed in the block's dtype (float32
features use SGEMM/SSYRK, twice the speed of float64), and the blocks are
summed in float64. A float32 block of b rows rounds each entry of Z_b'Z_b
with a relative error of order b * 6e-8 in the worst case (sqrt(b) * 6e-8
typically); with the default b <= 4096 that is far below the Monte-Carlo error
of random features (1/sqrt(D)).
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from ..linalg import cho_solve, one_blas_thread, robust_cholesky

__all__ = ["NormalEquations", "normal_block", "feature_normal_equations",
           "solve_normal_equations"]

_BLOCK_ROWS = 4096
_SINGLE_THREAD_MAX_D = 2048


@dataclass
class NormalEquations:
    """Sufficient statistics of least squares on features Z (float64).

    Attributes
    ----------
    ZtZ : ndarray of shape (D, D)
    ZtY : ndarray of shape (D, n_targets)
    z_sum : ndarray of shape (D,)
        Column sums of Z (for an intercept).
    y_sum : ndarray of shape (n_targets,)
    n : int
        Number of rows.
    """

    ZtZ: np.ndarray
    ZtY: np.ndarray
    z_sum: np.ndarray
    y_sum: np.ndarray
    n: int

    def __iadd__(self, other):
        self.ZtZ += other.ZtZ
        self.ZtY += other.ZtY
        self.z_sum += other.z_sum
        self.y_sum += other.y_sum
        self.n += other.n
        return self


def _syrk_upper(Z):
    """Upper triangle of Z'Z (the lower part is left zero) in Z's precision.

    SYRK computes only one triangle: half the flops of Z.T @ Z.
    """
    fn = blas.ssyrk if Z.dtype == np.float32 else blas.dsyrk
    if Z.flags.c_contiguous:
        # A C-ordered Z is a Fortran-ordered Z': syrk(A=Z', trans=0) = Z'Z, no copy.
        return fn(1.0, Z.T, trans=0, lower=0)
    return fn(1.0, np.asfortranarray(Z), trans=1, lower=0)


def normal_block(Z, Y):
    """The contribution of one block of rows: Z_b'Z_b (upper triangle), Z_b'Y_b, sums.

    Parameters
    ----------
    Z : ndarray of shape (b, D), float32 or float64
    Y : ndarray of shape (b, n_targets)

    Returns
    -------
    NormalEquations
        In float64; ``ZtZ`` holds only the upper triangle (symmetrised by
        :func:`feature_normal_equations`).
    """
    if Z.dtype not in (np.float32, np.float64):
        Z = Z.astype(np.float64)
    Yc = Y.astype(Z.dtype, copy=False)
    return NormalEquations(ZtZ=_syrk_upper(Z).astype(np.float64, copy=False),
                           ZtY=(Z.T @ Yc).astype(np.float64, copy=False),
                           z_sum=Z.sum(axis=0, dtype=np.float64),
                           y_sum=Y.sum(axis=0, dtype=np.float64), n=len(Z))


def _symmetrise_upper(A):
    iu = np.triu_indices(len(A), 1)
    A.T[iu] = A[iu]
    return A


def feature_normal_equations(feature_map, X, Y, *, block_rows=_BLOCK_ROWS, n_jobs=None):
    """Accumulate Z'Z, Z'Y and the sums for Z = feature_map(X), block by block.

    Parameters
    ----------
    feature_map : callable
        ``feature_map(X_block) -> Z_block`` of shape (b, D), e.g. a fitted
        transformer's ``transform``. It must be safe to call from several
        threads at once (numpy and BLAS calls are).
    X : array-like of shape (n, ...)
        Anything ``feature_map`` accepts, sliced by rows.
    Y : ndarray of shape (n,) or (n, n_targets)
    block_rows : int, default=4096
    n_jobs : int or None, default=None
        Worker threads (None: the number of CPUs). With more than one, each
        worker maps and reduces its own blocks with one BLAS thread, so the
        single-threaded parts of the feature map (numpy's cos) run on every
        core.

    Returns
    -------
    NormalEquations
        ``ZtZ`` symmetric, all in float64.
    """
    Y = np.asarray(Y)
    Y = Y[:, None] if Y.ndim == 1 else Y
    n = len(Y)
    if n == 0:
        raise ValueError("no rows to accumulate")
    starts = range(0, n, int(block_rows))

    def one(start):
        stop = min(n, start + block_rows)
        return normal_block(feature_map(X[start:stop]), Y[start:stop])

    workers = min(os.cpu_count() or 1, len(starts)) if n_jobs is None else int(n_jobs)
    if workers <= 1:
        parts = map(one, starts)
        total = next(parts)
        for p in parts:
            total += p
    else:
        with one_blas_thread(), ThreadPoolExecutor(workers) as pool:
            # Each worker sums its own share so at most `workers` partial sums are alive.
            shares = [starts[i::workers] for i in range(workers)]

            def share(chunk):
                acc = None
                with one_blas_thread():  # a per-thread limit (OpenMP) must reach the worker
                    for s in chunk:
                        part = one(s)
                        acc = part if acc is None else acc.__iadd__(part)
                return acc

            partials = [p for p in pool.map(share, shares) if p is not None]
        total = partials[0]
        for p in partials[1:]:
            total += p
    _symmetrise_upper(total.ZtZ)
    return total


def solve_normal_equations(ne, alpha, *, fit_intercept=False):
    """Ridge coefficients from accumulated normal equations.

    Solves ``(Zc'Zc + alpha I) w = Zc'Yc`` with, if ``fit_intercept``, Z and
    Y centered by their column means (an unpenalised intercept, as
    scikit-learn's Ridge), using the robust Cholesky.

    Parameters
    ----------
    ne : NormalEquations
    alpha : float
        Regularisation, >= 0.
    fit_intercept : bool, default=False

    Returns
    -------
    coef : ndarray of shape (D, n_targets)
    intercept : ndarray of shape (n_targets,)
    jitter : float
    """
    A = ne.ZtZ.copy()
    B = ne.ZtY.copy()
    if fit_intercept:
        zm, ym = ne.z_sum / ne.n, ne.y_sum / ne.n
        A -= ne.n * np.outer(zm, zm)
        B -= ne.n * np.outer(zm, ym)
    A.flat[:: len(A) + 1] += float(alpha)
    # A D x D factorisation with D in the thousands is milliseconds on one core;
    # OpenBLAS threads gain little there and cost up to 100x on a busy machine
    # (measured: D = 500 Cholesky 1.3 s with 2 threads vs 0.02 s with 1, load 9).
    one = len(A) <= _SINGLE_THREAD_MAX_D
    with one_blas_thread() if one else contextlib.nullcontext():
        chol = robust_cholesky(A, overwrite_a=True)
        W = cho_solve(chol, B)
    intercept = (ym - zm @ W) if fit_intercept else np.zeros(B.shape[1])
    return W, intercept, chol.jitter
