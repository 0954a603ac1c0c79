"""Leading eigenpairs of a kernel matrix: exact (LAPACK, ARPACK) or of its Nystroem
approximation without forming the n x n matrix.

Kernel PCA and the empirical Mercer eigenfunctions (``models/kernel_pca.py``)
stand on these. The Nystroem path: with M centers C and the Nystroem features
``psi(x) = K(x, C) N`` (``N = U diag(1/sqrt(s))`` from ``K_CC = U diag(s) U'``),
the approximation is ``K~ = Psi Psi'``; centred in feature space,
``K~_c = Psi_c Psi_c'`` with ``Psi_c = Psi - 1 m'``. Its non-zero eigenvalues are
those of the small ``G = Psi_c' Psi_c = W diag(lambda) W'``, summed over row
blocks as ``Psi' Psi - n m m'``, and its unit eigenvectors are
``Psi_c W / sqrt(lambda)`` (Williams & Seeger 2001).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from .._budget import row_blocks, rows_per_block
from ..features.nystroem import nystroem_normalization, nystroem_transform
from ..gram import gram

__all__ = ["check_psd_eigenvalues", "sign_rule", "center_gram", "gram_eigenpairs",
           "nystroem_eigenpairs", "nystroem_project"]

# scikit-learn's rules for computed eigenvalues (``_check_psd_eigenvalues``):
# negative ones beyond round-off mean the matrix is not PSD; tiny ones are 0.
_NEGATIVE_RTOL, _NEGATIVE_ATOL, _ZERO_RTOL = 1e-5, 1e-10, 1e-12


def check_psd_eigenvalues(lam):
    """Computed eigenvalues of a PSD matrix, round-off set to 0.

    Raises a ValueError when they show the matrix is not PSD: all negative, or
    one below ``-1e-10`` and ``-1e-5`` times the largest. Those below ``1e-12``
    times the largest (negative ones included) become 0.

    Parameters
    ----------
    lam : array-like of shape (k,)

    Returns
    -------
    ndarray of shape (k,), float64, >= 0
    """
    lam = np.array(lam, dtype=np.float64)
    top = float(lam.max()) if lam.size else 0.0
    if top < 0:
        raise ValueError(f"all computed eigenvalues of the kernel matrix are negative "
                         f"(largest {top:.3g}): it is not positive semi-definite. Check the "
                         "kernel (or the precomputed matrix)")
    low = float(lam.min()) if lam.size else 0.0
    if low < -_NEGATIVE_ATOL and low < -_NEGATIVE_RTOL * top:
        raise ValueError(f"the kernel matrix has an eigenvalue {low:.3g} (largest {top:.3g}): "
                         "significantly negative, so it is not positive semi-definite. Use a "
                         "PSD kernel (kernelkit.testing.check_kernel tests one), or "
                         "(K + K.T) / 2 plus a small multiple of I")
    lam[lam < _ZERO_RTOL * top] = 0.0
    return lam


def sign_rule(V):
    """+1/-1 per column of V making its entry of largest magnitude positive.

    scikit-learn's ``svd_flip`` rule, so that eigenvectors are deterministic.

    Returns
    -------
    ndarray of shape (V.shape[1],)
    """
    if V.size == 0:
        return np.ones(V.shape[1])
    big = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    return np.where(big < 0, -1.0, 1.0)


def center_gram(K):
    """Centre a Gram matrix in feature space in place: ``(I - 11'/n) K (I - 11'/n)``.

    Returns
    -------
    rows : ndarray of shape (n,)
        Column means of the original K (scikit-learn's ``KernelCenterer.K_fit_rows_``).
    total : float
        Mean of all its entries (``K_fit_all_``).
    """
    rows = K.mean(axis=0)
    total = float(rows.mean())
    K -= rows[None, :]
    K -= rows[:, None]
    K += total
    return rows, total


def gram_eigenpairs(K, k, *, solver="dense", rng=None):
    """The k largest eigenpairs of a symmetric PSD matrix, K overwritten.

    Parameters
    ----------
    K : ndarray of shape (n, n), float64
    k : int
        1 <= k <= n (k < n for ARPACK).
    solver : {"dense", "arpack"}, default="dense"
        LAPACK (``dsyevr`` for a subset, ``dsyevd`` for all) or ARPACK's
        Lanczos iterations (``scipy.sparse.linalg.eigsh``).
    rng : numpy RandomState, optional
        ARPACK's start vector, uniform on [-1, 1] (as scikit-learn).

    Returns
    -------
    lam : ndarray of shape (k,)
        Decreasing, checked by :func:`check_psd_eigenvalues`.
    V : ndarray of shape (n, k)
        Unit eigenvectors, signed by :func:`sign_rule`.
    """
    n = K.shape[0]
    if solver == "arpack":
        v0 = (np.random.RandomState() if rng is None else rng).uniform(-1, 1, n)
        lam, V = scipy.sparse.linalg.eigsh(K, k, which="LA", v0=v0)
    else:
        subset = None if k == n else (n - k, n - 1)
        lam, V = scipy.linalg.eigh(K, subset_by_index=subset, overwrite_a=True,
                                   driver="evr" if subset else "evd")
    lam = check_psd_eigenvalues(lam)
    V = V * sign_rule(V)
    order = np.argsort(lam, kind="stable")[::-1]
    return lam[order], np.ascontiguousarray(V[:, order])


def nystroem_eigenpairs(kernel, X, C, k, *, center=True):
    """The k largest eigenpairs of the Nystroem approximation of K(X, X), never formed.

    One pass over the rows of X (``K(X_b, C)`` blocks within the memory
    budget) gives the moments of the Nystroem features; the rest is M x M.

    Parameters
    ----------
    kernel : Kernel
        Resolved.
    X : validated inputs of ``kernel``, n rows
    C : the centers, M rows of the same kind
    k : int
        Eigenpairs wanted (at most the rank of K_CC are available).
    center : bool, default=True
        Centre the approximation in feature space.

    Returns
    -------
    lam : ndarray of shape (k',), k' = min(k, rank)
        Decreasing eigenvalues of the (centred) approximation, checked.
    projection : ndarray of shape (M, k')
        ``N W``: ``nystroem_project(kernel, X, C, projection, offset)`` is
        ``Psi_c W``, the eigenvectors times ``sqrt(lam)``.
    offset : ndarray of shape (k',)
        ``m W`` (zeros without centring).
    """
    N = nystroem_normalization(gram(kernel, C))  # psi(x) = K(x, C) N
    n, M, m = _rows(X), _rows(C), N.shape[1]
    S, s = np.zeros((m, m)), np.zeros(m)
    for r0, r1 in row_blocks(n, rows_per_block(M + m)):
        Zb = nystroem_transform(kernel, X[r0:r1], C, N)
        S += Zb.T @ Zb
        s += Zb.sum(axis=0)
    mean = s / n if center else np.zeros(m)
    G = S - n * np.outer(mean, mean)  # Psi_c' Psi_c
    kk = min(k, m)
    lam, W = scipy.linalg.eigh(G, subset_by_index=(m - kk, m - 1))
    lam, W = check_psd_eigenvalues(lam[::-1]), W[:, ::-1]
    return lam, N @ W, mean @ W


def nystroem_project(kernel, X, C, projection, offset):
    """``K(X, C) @ projection - offset`` in row blocks (the Nystroem path's transform)."""
    return nystroem_transform(kernel, X, C, projection) - offset


def _rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)
