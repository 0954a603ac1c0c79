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

costs O(p |s| |t|) for all lengths l <= p at once. Row a of K'_l needs only
row a - 1 of K'_l and K'_{l-1}, so the program runs row by row with one row per
length, O(p |t|) floats (:func:`subsequence_scratch_size`; a pair of 5,000-character
strings at p = 2 takes 120 KB, not the 400 MB of two full layers). Twins, in
:mod:`kernelkit._compiled._reference`:
``subsequence_pair_ref`` (the same recursion in plain Python/numpy, the
"pure-Python dynamic program" of the benchmark) and ``subsequence_brute`` /
``subsequence_polynomial`` (enumerate every index subsequence; exponentially
slow, short strings only).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["encode", "subsequence_block", "subsequence_self", "subsequence_pair",
           "subsequence_scratch_size", "subsequence_scratch_bytes"]

_jit = dict(cache=True, nogil=True, error_model="numpy")


def encode(strings):
    """Code points of a sequence of str as (codes int32, offsets int64 of length n + 1)."""
    strings = [str(s) for s in strings]
    lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.frombuffer("".join(strings).encode("utf-32-le"), dtype="<u4")
    return codes.astype(np.int32), offsets


def subsequence_scratch_size(p, n, m):
    """Floats of :func:`_pair`'s scratch for strings of lengths up to n and m.

    One row of K'_l for each length l < L = min(p, n, m) (the recursion of row a
    needs only row a - 1) and the L running sums K_l: O(p |t|), not |s| |t|.
    """
    depth = min(p, n, m)
    return depth * (m + 1) + depth + 1


_subsequence_scratch_size = njit(**_jit)(subsequence_scratch_size)  # the same, in the loops


def subsequence_scratch_bytes(p, x_offsets, y_offsets):
    """Bytes of scratch :func:`subsequence_block` holds at once (one per thread).

    ``subsequence_self`` needs the same with ``y_offsets = x_offsets``.
    """
    import numba

    n_rows = len(x_offsets) - 1
    max_x = int(np.diff(x_offsets).max(initial=0))
    max_y = int(np.diff(y_offsets).max(initial=0))
    threads = max(1, min(numba.get_num_threads(), n_rows))
    return 8.0 * threads * subsequence_scratch_size(int(p), max_x, max_y)


@njit(**_jit)
def _pair(s, t, p, decay, all_lengths, scratch):
    """Kernel of code arrays s and t in ``scratch`` (``subsequence_scratch_size`` floats).

    Row by row in a (the prefix length of s): ``kp[l]`` holds row a - 1 of K'_l
    and becomes row a. The lengths go downwards so that K'_{l-1} still holds
    row a - 1 when K'_l reads it. Every K'_l(a, b) and K_l is the same sum,
    in the same order, as in the layer-by-layer program with two
    (|s|+1) x (|t|+1) layers that this replaced: the results are bit-identical.
    """
    n, m = s.shape[0], t.shape[0]
    if n == 0 or m == 0:
        return 0.0
    w = m + 1
    d2 = decay * decay
    depth = min(p, n, m)  # no common subsequence is longer than min(n, m)
    kp = scratch[:depth * w]
    k = scratch[depth * w:depth * w + depth + 1]
    for b in range(w):
        kp[b] = 1.0  # K'_0 = 1
    for idx in range(w, depth * w):
        kp[idx] = 0.0  # K'_l(0, b) = 0 for l >= 1, and K'_l(a, 0) = 0 (never written)
    for length in range(depth + 1):
        k[length] = 0.0
    for a in range(1, n + 1):
        sa = s[a - 1]
        for length in range(depth, 0, -1):
            # K_length = decay^2 sum over matches of K'_{length-1}(a-1, b-1); the same
            # terms feed K''_length, so one sweep computes K_length and K'_length.
            src = (length - 1) * w
            k_l = k[length]
            if length == depth:  # the longest length needed: no K'_depth
                for b in range(1, m + 1):
                    if sa == t[b - 1]:
                        k_l += kp[src + b - 1]
            else:
                dst = length * w
                kpp = 0.0
                for b in range(1, m + 1):
                    kpp *= decay
                    if sa == t[b - 1]:
                        v = kp[src + b - 1]
                        k_l += v
                        kpp += d2 * v
                    kp[dst + b] = decay * kp[dst + b] + kpp
            k[length] = k_l
    total = 0.0
    for length in range(1, depth + 1):
        if all_lengths or length == p:
            total += d2 * k[length]
    return total


@njit(**_jit)
def subsequence_pair(s, t, p, decay, all_lengths):
    """The (unnormalised) subsequence kernel of two int32 code arrays."""
    return _pair(s, t, p, decay, all_lengths,
                 np.empty(_subsequence_scratch_size(p, s.shape[0], t.shape[0])))


@njit(parallel=True, **_jit)
def subsequence_self(codes, offsets, p, decay, all_lengths):
    """k(s_i, s_i) for every encoded string (parallel over strings)."""
    n = offsets.shape[0] - 1
    out = np.empty(n)
    for i in prange(n):
        s = codes[offsets[i]:offsets[i + 1]]
        out[i] = _pair(s, s, p, decay, all_lengths,
                       np.empty(_subsequence_scratch_size(p, s.shape[0], s.shape[0])))
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
        scratch = np.empty(_subsequence_scratch_size(p, s.shape[0], max_y))
        gi = i + diag_offset
        for j in range(ny):
            if diag_offset >= 0 and gi < j < sym_end:
                continue  # the upper copy of a pair inside the block: mirrored below
            out[i, j] = _pair(s, yc[yo[j]:yo[j + 1]], p, decay, all_lengths, scratch)
    if diag_offset >= 0:
        for i in range(nx):
            for j in range(i + diag_offset + 1, min(ny, sym_end)):
                out[i, j] = out[j - diag_offset, i + diag_offset]
