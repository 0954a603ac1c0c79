"""Compiled memory layout passes: mirroring a triangle of a symmetric matrix."""

from __future__ import annotations

from numba import njit, prange

from ._common import _check_2d, _jit

__all__ = ["mirror_lower", "mirror_band_upper"]

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


@njit(cache=True, nogil=True)
def _mirror_band_upper(K, r0, r1):
    n = K.shape[0]
    t = _MIRROR_TILE
    for j0 in range(r1, n, t):
        j1 = min(n, j0 + t)
        for i0 in range(r0, r1, t):
            i1 = min(r1, i0 + t)
            for j in range(j0, j1):
                for i in range(i0, i1):
                    K[j, i] = K[i, j]
    return K


def mirror_band_upper(K, r0, r1):
    """``K[r1:, r0:r1] = K[r0:r1, r1:].T`` in place, in 64 x 64 tiles (a plain
    transposed copy of a tall block is cache-hostile: ~10x slower). Builds a
    symmetric pair matrix from its upper-right cross block."""
    _check_2d("K", K)
    if K.shape[0] != K.shape[1] or not 0 <= r0 <= r1 <= K.shape[0]:
        raise ValueError(f"K must be square with 0 <= r0 <= r1 <= n, got {K.shape}, {r0}, {r1}")
    return _mirror_band_upper(K, int(r0), int(r1))
