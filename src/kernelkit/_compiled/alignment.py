"""Compiled loop of the global alignment kernel of time series (Cuturi 2011), in log space.

For series x (n points) and y (m points) and a local log-kernel
``l(i, j) = log kappa(x_i, y_j)``, the kernel is the sum over every alignment
path from (1, 1) to (n, m) with steps (1, 0), (0, 1), (1, 1) of the product of
kappa along the path, computed by the recursion

    M(i, j) = kappa(i, j) (M(i-1, j-1) + M(i-1, j) + M(i, j-1)),  M(0, 0) = 1,

held as log M (the values span hundreds of orders of magnitude for long
series) and two rows of m + 1 floats per pair. The local kernel is
``kappa = w k / (2 - w k)`` with k the Gaussian kernel exp(-||x_i - y_j||^2 /
(2 sigma^2)) and w the triangular weight (1 - |i - j| / T)_+ (w = 1 when
T = 0): the kernel is then positive definite (Cuturi 2011, Theorem 1:
kappa / (1 + kappa) = w k / 2 is). Twin: the plain-Python recursion and the
enumeration of all paths in ``tests/kernels/test_alignment.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = ["log_gak_block", "log_gak_diag"]

_jit = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_jit)
def _log_pair(x, y, inv_two_sigma2, triangular):
    n, m, d = x.shape[0], y.shape[0], x.shape[1]
    prev = np.full(m + 1, -np.inf)
    cur = np.full(m + 1, -np.inf)
    prev[0] = 0.0
    for i in range(1, n + 1):
        cur[0] = -np.inf
        for j in range(1, m + 1):
            gap = abs(i - j)
            if triangular > 0 and gap >= triangular:
                cur[j] = -np.inf
                continue
            sq = 0.0
            for k in range(d):
                diff = x[i - 1, k] - y[j - 1, k]
                sq += diff * diff
            g = -sq * inv_two_sigma2  # log of w k
            if triangular > 0:
                g += math.log(1.0 - gap / triangular)
            log_kappa = g - math.log(2.0 - math.exp(g))
            a, b, c = prev[j - 1], prev[j], cur[j - 1]
            top = max(a, max(b, c))
            if top == -np.inf:
                cur[j] = -np.inf
            else:
                cur[j] = log_kappa + top + math.log(
                    math.exp(a - top) + math.exp(b - top) + math.exp(c - top))
        prev, cur = cur, prev
    return prev[m]


@njit(parallel=True, **_jit)
def _log_block(xv, xo, yv, yo, inv_two_sigma2, triangular, diag_offset, out):
    nx, ny = len(xo) - 1, len(yo) - 1
    sym_end = diag_offset + nx if diag_offset >= 0 else -1
    for i in prange(nx):
        x = xv[xo[i]:xo[i + 1]]
        gi = i + diag_offset
        for j in range(ny):
            if diag_offset >= 0 and gi < j < sym_end:
                continue  # the upper copy of a pair inside the block: mirrored below
            out[i, j] = _log_pair(x, yv[yo[j]:yo[j + 1]], inv_two_sigma2, triangular)
    if diag_offset >= 0:
        for i in range(nx):
            for j in range(i + diag_offset + 1, min(ny, sym_end)):
                out[i, j] = out[j - diag_offset, i + diag_offset]


@njit(parallel=True, **_jit)
def _log_diag(xv, xo, inv_two_sigma2, triangular, out):
    for i in prange(len(xo) - 1):
        x = xv[xo[i]:xo[i + 1]]
        out[i] = _log_pair(x, x, inv_two_sigma2, triangular)


def log_gak_diag(xv, xo, sigma, triangular, out):
    """log k(x_i, x_i) of every series into ``out`` (float64, (n_x,)); see :func:`log_gak_block`."""
    _log_diag(xv, xo, 1.0 / (2.0 * float(sigma) ** 2), int(triangular), out)
    return out


def log_gak_block(xv, xo, yv, yo, sigma, triangular, out, diag_offset=-1):
    """log k(x_i, y_j) of the global alignment kernel into ``out`` (float64, (n_x, n_y)).

    Parameters
    ----------
    xv, yv : ndarray of shape (total points, d), float64, C-contiguous
        The points of all series of each side, one after another.
    xo, yo : ndarray of shape (n_series + 1,), int64
        Series i is ``xv[xo[i]:xo[i + 1]]``.
    sigma : float
        Width of the Gaussian local kernel, > 0.
    triangular : int
        T >= 0: the triangular weight's width (0: no weight).
    out : ndarray of shape (len(xo) - 1, len(yo) - 1), float64
        -inf where no path is allowed (lengths differing by T or more).
    diag_offset : int, default=-1
        >= 0 when X's series are Y's from ``diag_offset`` on (a block of a symmetric
        Gram matrix): each pair inside the block is computed once and mirrored.
    """
    _log_block(xv, xo, yv, yo, 1.0 / (2.0 * float(sigma) ** 2), int(triangular),
               int(diag_offset), out)
    return out
