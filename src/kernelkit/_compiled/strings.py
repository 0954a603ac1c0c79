"""Compiled loops of the string kernels (each has a plain twin for the tests).

Strings reach numba as one int32 array of code points plus offsets
(:func:`encode`): string i is ``codes[offsets[i]:offsets[i + 1]]``.

The gap-weighted subsequence kernel (Lodhi et al. 2002) sums, over every
pair of index tuples i in s and j in t of length l that spell the same
subsequence, ``decay ** (span_s(i) + span_t(j))`` with span = last - first + 1.
Its dynamic program (Lodhi et al., section 4.1), in prefix lengths a of s and
b of t, with K'_0 = 1:

    K''_l(a, b) = decay K''_l(a, b-1) + [s_a = t_b] decay^2 K'_{l-1}(a-1, b-1)
    K'_l(a, b)  = decay K'_l(a-1, b) + K''_l(a, b)
    K_l(s, t)   = sum_{a, b: s_a = t_b} decay^2 K'_{l-1}(a-1, b-1)

costs O(p |s| |t|) for all lengths l <= p at once, with two (|s|+1) x (|t|+1)
layers. Twins, in :mod:`kernelkit._compiled._reference`:
``subsequence_pair_ref`` (the same recursion in plain Python/numpy, the
"pure-Python dynamic program" of the benchmark) and ``subsequence_brute`` /
``subsequence_polynomial`` (enumerate every index subsequence; exponentially
slow, short strings only).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["encode", "subsequence_block", "subsequence_self", "subsequence_pair"]

_jit = dict(cache=True, nogil=True, error_model="numpy")


def encode(strings):
    """Code points of a sequence of str as (codes int32, offsets int64 of length n + 1)."""
    strings = [str(s) for s in strings]
    lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.frombuffer("".join(strings).encode("utf-32-le"), dtype="<u4")
    return codes.astype(np.int32), offsets


@njit(**_jit)
def _pair(s, t, p, decay, all_lengths, prev, cur):
    """Kernel of code arrays s and t; ``prev``/``cur`` are scratch of >= (|s|+1)(|t|+1)."""
    n, m = s.shape[0], t.shape[0]
    if n == 0 or m == 0:
        return 0.0
    w = m + 1
    d2 = decay * decay
    for idx in range((n + 1) * w):
        prev[idx] = 1.0  # K'_0 = 1
    total = 0.0
    for length in range(1, p + 1):
        # K_length = decay^2 sum over matches of K'_{length-1}(a-1, b-1) (in prev); the
        # same terms feed K''_length, so one sweep computes K_length and K'_length.
        last = length == p or length >= min(n, m)  # no longer common subsequence exists
        k_l = 0.0
        if last:
            for a in range(1, n + 1):
                sa = s[a - 1]
                row = (a - 1) * w
                for b in range(1, m + 1):
                    if sa == t[b - 1]:
                        k_l += prev[row + b - 1]
        else:
            for b in range(w):
                cur[b] = 0.0
            for a in range(1, n + 1):
                sa = s[a - 1]
                kpp = 0.0
                base = a * w
                up = (a - 1) * w
                cur[base] = 0.0
                for b in range(1, m + 1):
                    kpp *= decay
                    if sa == t[b - 1]:
                        v = prev[up + b - 1]
                        k_l += v
                        kpp += d2 * v
                    cur[base + b] = decay * cur[up + b] + kpp
            prev, cur = cur, prev
        if all_lengths or length == p:
            total += d2 * k_l
        if last:
            break
    return total


@njit(**_jit)
def subsequence_pair(s, t, p, decay, all_lengths):
    """The (unnormalised) subsequence kernel of two int32 code arrays."""
    size = (s.shape[0] + 1) * (t.shape[0] + 1)
    return _pair(s, t, p, decay, all_lengths, np.empty(size), np.empty(size))


@njit(parallel=True, **_jit)
def subsequence_self(codes, offsets, p, decay, all_lengths):
    """k(s_i, s_i) for every encoded string (parallel over strings)."""
    n = offsets.shape[0] - 1
    out = np.empty(n)
    for i in prange(n):
        s = codes[offsets[i]:offsets[i + 1]]
        size = (s.shape[0] + 1) * (s.shape[0] + 1)
        out[i] = _pair(s, s, p, decay, all_lengths, np.empty(size), np.empty(size))
    return out


@njit(parallel=True, **_jit)
def subsequence_block(xc, xo, yc, yo, p, decay, all_lengths, diag_offset, out):
    """out[i, j] = k(x_i, y_j), parallel over rows.

    With ``diag_offset >= 0`` row i is column ``i + diag_offset`` (X is a run of
    Y's rows): the pairs that appear twice in the block are computed once and
    mirrored.
    """
    nx, ny = xo.shape[0] - 1, yo.shape[0] - 1
    max_y = 0
    for j in range(ny):
        max_y = max(max_y, yo[j + 1] - yo[j])
    sym_end = diag_offset + nx if diag_offset >= 0 else -1
    for i in prange(nx):
        s = xc[xo[i]:xo[i + 1]]
        size = (s.shape[0] + 1) * (max_y + 1)
        prev, cur = np.empty(size), np.empty(size)
        gi = i + diag_offset
        for j in range(ny):
            if diag_offset >= 0 and gi < j < sym_end:
                continue  # the upper copy of a pair inside the block: mirrored below
            out[i, j] = _pair(s, yc[yo[j]:yo[j + 1]], p, decay, all_lengths, prev, cur)
    if diag_offset >= 0:
        for i in range(nx):
            for j in range(i + diag_offset + 1, min(ny, sym_end)):
                out[i, j] = out[j - diag_offset, i + diag_offset]
