"""Compiled kernels of coordinate differences on CSR rows: Laplacian (L1) and Cauchy.

Sparse-aware: no row is densified beyond one scratch vector of length
n_features per thread. For a row x (scattered into the scratch vector w) and
a row y with nonzeros at S(y):

- ``||x - y||_1 = ||x||_1 + sum_{k in S(y)} (|x_k - y_k| - |x_k|)``,
  i.e. O(nnz(y)) per pair; the sum is clamped at 0 (round-off);
- ``prod_k f(x_k - y_k)`` with ``f(t) = 1 / (1 + g2 t^2)`` runs over
  S(y) and then over the nonzeros of x not in S(y) (marked in a second
  scratch vector), O(nnz(x) + nnz(y)) per pair.

Arithmetic in float64. The dense loops (:mod:`.differences`) sum the same
terms in another order: values agree to round-off. The plain-numpy twins are
the dense loops' twins applied to ``toarray()`` (tests).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._common import _exp, _jit, _jit_fma, interruptible

__all__ = ["l1_exp_csr", "cauchy_csr"]

# Rows of X handled by one task (one scratch vector of n_features each).
_CHUNK = 16


@njit(**_jit_fma)
def _l1_exp_csr(xp, xi, xd, yp, yi, yd, d, gamma, diag_offset, out):
    n = xp.shape[0] - 1
    m = yp.shape[0] - 1
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        w = np.zeros(d)
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            s = 0.0
            for p in range(xp[i], xp[i + 1]):
                w[xi[p]] = xd[p]
                s += abs(xd[p])
            for j in range(m):
                acc = s
                for p in range(yp[j], yp[j + 1]):
                    x = w[yi[p]]
                    acc += abs(x - yd[p]) - abs(x)
                if acc < 0.0 or (diag_offset >= 0 and j == i + diag_offset):
                    acc = 0.0
                out[i, j] = _exp(-gamma * acc)
            for p in range(xp[i], xp[i + 1]):
                w[xi[p]] = 0.0
    return out


@njit(**_jit)
def _cauchy_csr(xp, xi, xd, yp, yi, yd, d, g2, diag_offset, out):
    n = xp.shape[0] - 1
    m = yp.shape[0] - 1
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        w = np.zeros(d)
        seen = np.full(d, -1, dtype=np.int64)
        for i in range(c * _CHUNK, min(n, (c + 1) * _CHUNK)):
            for p in range(xp[i], xp[i + 1]):
                w[xi[p]] = xd[p]
            for j in range(m):
                if diag_offset >= 0 and j == i + diag_offset:
                    out[i, j] = 1.0
                    continue
                acc = 1.0
                stamp = np.int64(i) * m + j
                for p in range(yp[j], yp[j + 1]):
                    t = w[yi[p]] - yd[p]
                    acc *= 1.0 / (1.0 + g2 * (t * t))
                    seen[yi[p]] = stamp
                for p in range(xp[i], xp[i + 1]):
                    if seen[xi[p]] != stamp:
                        t = xd[p]
                        acc *= 1.0 / (1.0 + g2 * (t * t))
                out[i, j] = acc
            for p in range(xp[i], xp[i + 1]):
                w[xi[p]] = 0.0
    return out


def _parts(A):
    return (np.ascontiguousarray(A.indptr, dtype=np.int64),
            np.ascontiguousarray(A.indices, dtype=np.int64),
            np.ascontiguousarray(A.data, dtype=np.float64))


def _check(X, Y, out):
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must have the same number of features, "
                         f"got {X.shape[1]} and {Y.shape[1]}")
    if out.shape != (X.shape[0], Y.shape[0]) or out.ndim != 2 or not out.flags.c_contiguous:
        raise ValueError(f"out must be C-contiguous of shape {(X.shape[0], Y.shape[0])}, "
                         f"got {out.shape}")


@interruptible
def l1_exp_csr(X, Y, gamma, diag_offset, out):
    """Laplacian kernel ``exp(-gamma ||X[i] - Y[j]||_1)`` of CSR rows into ``out``.

    ``X`` (n, d) and ``Y`` (m, d): scipy.sparse CSR with sorted, unique
    indices (kernelkit's canonical form); ``out`` (n, m) float64 or float32.
    ``diag_offset >= 0``: entries ``(i, i + diag_offset)`` are exactly 1.
    """
    _check(X, Y, out)
    return _l1_exp_csr(*_parts(X), *_parts(Y), int(X.shape[1]), float(gamma),
                       int(diag_offset), out)


@interruptible
def cauchy_csr(X, Y, gamma, diag_offset, out):
    """Cauchy kernel ``prod_k 1 / (1 + gamma^2 (X[i, k] - Y[j, k])^2)`` of CSR rows.

    Same arguments as :func:`l1_exp_csr`.
    """
    _check(X, Y, out)
    return _cauchy_csr(*_parts(X), *_parts(Y), int(X.shape[1]), float(gamma) ** 2,
                       int(diag_offset), out)
