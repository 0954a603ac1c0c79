"""Compiled memory layout passes: mirroring a triangle of a symmetric matrix."""

from __future__ import annotations

from numba import njit, prange

from ._common import _check_2d, _jit

__all__ = ["mirror_lower"]

_MIRROR_TILE = 64  # 64 x 64 doubles = 32 KiB: a tile and its transpose stay in L1/L2


@njit(**_jit)
def _mirror_lower(A):
    n = A.shape[0]
    t = _MIRROR_TILE
    nt = (n + t - 1) // t
    for bi in prange(nt):  # tile row bi of the upper triangle
        i0 = bi * t
        i1 = min(n, i0 + t)
        for bj in range(bi, nt):
            j0 = bj * t
            j1 = min(n, j0 + t)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    A[i, j] = A[j, i]
    return A


def mirror_lower(A):
    """Copy the strict lower triangle of square ``A`` onto its upper one, in place.

    The symmetric Gram engine computes only ``K[i, j]`` for ``j <= i`` (half
    the matrix products and exps) and then mirrors; tiles keep the transposed
    reads in cache, and both cores share the work.
    """
    _check_2d("A", A)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    return _mirror_lower(A)
