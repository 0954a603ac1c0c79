"""Plain-numpy twins of the compiled loops (STYLE.md habit 8), for the tests.

Each ``f_ref`` has the signature of the compiled ``f`` and computes the same
values with obviously-correct numpy (or pure Python for the string kernel);
``tests/test_compiled.py`` and ``tests/kernels/test_strings.py`` compare
them, and check the twins themselves against brute force and scikit-learn.
No production code path imports this module.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import scipy.linalg

from ._common import _offset
from .selection import smallest_k_stable

__all__ = [
    "rbf_from_inner_ref", "sqdist_from_inner_ref", "exp_scaled_ref", "l1_exp_ref",
    "cauchy_ref", "poly_from_inner_ref", "powf_from_inner_ref", "tanh_from_inner_ref",
    "scale_add_rows_cols_ref", "mirror_lower_ref", "mirror_band_upper_ref", "member_sums_ref", "smallest_k_ref",
    "subsequence_pair_ref", "subsequence_block_ref", "subsequence_brute",
    "subsequence_polynomial", "row_hashes_ref", "rows_equal_ref", "bounded_candidates_ref",
    "rbf_tile_ref", "mirror_tile_ref", "subset_tree_pair_ref",
]

#: Twin of :func:`~kernelkit._compiled.selection.smallest_k`: a stable sort of each row.
smallest_k_ref = smallest_k_stable


def bounded_candidates_ref(G, qq, ff, nq, nf, c, c2, k, self_offset, floor, cap):
    """Plain-numpy twin of :func:`~kernelkit._compiled.selection.bounded_candidates`."""
    n, m = G.shape
    D = np.asarray(qq, np.float64)[:, None] + np.asarray(ff, np.float64)[None, :] \
        - 2.0 * G.astype(np.float64)
    E = c * np.asarray(nq, np.float64)[:, None] * np.asarray(nf, np.float64)[None, :] \
        + c2 * (np.asarray(qq, np.float64)[:, None] + np.asarray(ff, np.float64)[None, :])
    upper, lower = D + E, D - E
    if self_offset >= 0:
        rows = np.arange(n)
        inside = rows + self_offset < m
        upper[rows[inside], rows[inside] + self_offset] = np.inf
        lower[rows[inside], rows[inside] + self_offset] = np.inf
    tau = np.maximum(np.sort(upper, axis=1)[:, k - 1], floor)
    cand = np.zeros((n, max(int(cap), 1)), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        js = np.flatnonzero(lower[i] <= tau[i])
        counts[i] = len(js)
        cand[i, :min(len(js), cap)] = js[:cap]
    return cand, counts


# --------------------------------------------------------------------------
# elementwise passes

def sqdist_from_inner_ref(G, xx, yy, diag_offset, out):
    """Plain-numpy twin of :func:`sqdist_from_inner`."""
    n, m = G.shape
    d = np.asarray(xx, np.float64)[:, None] + np.asarray(yy, np.float64)[None, :] \
        - 2.0 * G.astype(np.float64)
    d = np.maximum(d, 0.0)
    diag_offset = _offset(diag_offset)
    if diag_offset >= 0:
        i = np.arange(max(0, min(n, m - diag_offset)))
        d[i, i + diag_offset] = 0.0
    out[...] = d
    return out


def rbf_from_inner_ref(G, xx, yy, gamma, diag_offset, out):
    """Plain-numpy twin of :func:`rbf_from_inner`."""
    d = sqdist_from_inner_ref(G, xx, yy, diag_offset, np.empty(G.shape, np.float64))
    out[...] = np.exp(-float(gamma) * d)
    return out


def exp_scaled_ref(A, scale, out):
    """Plain-numpy twin of :func:`exp_scaled`."""
    out[...] = np.exp(float(scale) * A.astype(np.float64))
    return out


def gather_exp_ref(D2, rows, cols, scale, out):
    """Plain-numpy twin of :func:`gather_exp`."""
    out[...] = np.exp(float(scale) * D2[np.ix_(rows, cols)])
    return out


def matmat_t_ref(K, Vt, Ot, *, serial=None):
    """Plain-numpy twin of :func:`matmat_t`."""
    Ot[...] = (K.astype(np.float64) @ Vt.T).T
    return Ot


def symmetric_matmat_t_ref(K, Vt, Ot, *, serial=None):
    """Plain-numpy twin of :func:`symmetric_matmat_t` (K's lower triangle mirrored)."""
    low = np.tril(K.astype(np.float64))
    Ot[...] = ((low + np.tril(low, -1).T) @ Vt.T).T
    return Ot


def cho_solve_t_ref(U, Rt, *, serial=None):
    """Plain-numpy twin of :func:`cho_solve_t` (scipy's triangular solves in float64)."""
    U64 = np.triu(U.astype(np.float64))
    Z = scipy.linalg.solve_triangular(U64, Rt.T, trans="T", lower=False)
    Rt[...] = scipy.linalg.solve_triangular(U64, Z, lower=False).T
    return Rt


def tri_solve_t_ref(U, Rt, *, lower, serial=None):
    """Plain-numpy twin of :func:`tri_solve_t` (scipy's triangular solve in float64)."""
    U64 = np.triu(U.astype(np.float64))
    Rt[...] = scipy.linalg.solve_triangular(U64, Rt.T, trans="T" if lower else "N",
                                            lower=False).T
    return Rt


def scale_add_rows_cols_ref(A, f_rows, f_cols, out):
    """Plain-numpy twin of :func:`scale_add_rows_cols`."""
    f_rows = np.asarray(f_rows, np.float64)[:, None]
    f_cols = np.asarray(f_cols, np.float64)[None, :]
    out[...] = f_rows * A.astype(np.float64) * f_cols
    return out


def poly_from_inner_ref(G, gamma, coef0, degree, out):
    """Plain-numpy twin of :func:`poly_from_inner` (numpy's ``pow``)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out[...] = (float(gamma) * G.astype(np.float64) + float(coef0)) \
            ** np.float64(int(degree))
    return out


def powf_from_inner_ref(G, gamma, coef0, power, out):
    """Plain-numpy twin of :func:`powf_from_inner` (NaN for negative bases
    with a non-integer power, exactly as ``np.power``)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out[...] = np.power(float(gamma) * G.astype(np.float64) + float(coef0),
                            float(power))
    return out


def tanh_from_inner_ref(G, gamma, coef0, out):
    """Plain-numpy twin of :func:`tanh_from_inner`."""
    out[...] = np.tanh(float(gamma) * G.astype(np.float64) + float(coef0))
    return out


# --------------------------------------------------------------------------
# coordinate differences

def l1_exp_ref(X, Y, gamma, out):
    """Plain-numpy twin of :func:`l1_exp`."""
    X = X.astype(np.float64)
    Y = Y.astype(np.float64)
    d1 = np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=2)
    out[...] = np.exp(-float(gamma) * d1)
    return out


def cauchy_ref(X, Y, gamma, out):
    """Plain-numpy twin of :func:`cauchy`."""
    X = X.astype(np.float64)
    Y = Y.astype(np.float64)
    t = X[:, None, :] - Y[None, :, :]
    out[...] = np.prod(1.0 / (1.0 + float(gamma) ** 2 * t * t), axis=2)
    return out


# --------------------------------------------------------------------------
# layout and selection

def mirror_band_upper_ref(K, r0, r1):
    """Plain-numpy twin of :func:`mirror_band_upper`."""
    K[r1:, r0:r1] = K[r0:r1, r1:].T
    return K


def mirror_lower_ref(A):
    """Plain-numpy twin of :func:`mirror_lower`."""
    iu = np.triu_indices(A.shape[0], 1)
    A[iu] = A.T[iu]
    return A


def member_sums_ref(K, member, a, out):
    """Plain-numpy twin of :func:`member_sums`."""
    A = np.zeros((K.shape[1], out.shape[1]))
    A[np.arange(K.shape[1]), member] = a
    out[...] = K @ A
    return out


# --------------------------------------------------------------------------
# the string kernel (tests and the benchmark's pure-Python reference)

def subsequence_pair_ref(s, t, p, decay, all_lengths=False):
    """The same dynamic program in plain Python over lists (no numba).

    Returns the kernel of the str ``s`` and ``t``.
    """
    n, m = len(s), len(t)
    d2 = decay * decay
    prev = [[1.0] * (m + 1) for _ in range(n + 1)]
    total = 0.0
    for length in range(1, p + 1):
        k_l = d2 * sum(prev[a - 1][b - 1] for a in range(1, n + 1)
                       for b in range(1, m + 1) if s[a - 1] == t[b - 1])
        if all_lengths or length == p:
            total += k_l
        cur = [[0.0] * (m + 1) for _ in range(n + 1)]
        for a in range(1, n + 1):
            kpp = 0.0
            for b in range(1, m + 1):
                kpp = decay * kpp + (d2 * prev[a - 1][b - 1] if s[a - 1] == t[b - 1] else 0.0)
                cur[a][b] = decay * cur[a - 1][b] + kpp
        prev = cur
    return total


def subsequence_block_ref(X, Y, p, decay, all_lengths=False):
    """Matrix of :func:`subsequence_pair_ref` over lists of str."""
    return np.array([[subsequence_pair_ref(s, t, p, decay, all_lengths) for t in Y] for s in X],
                    dtype=np.float64).reshape(len(X), len(Y))


def _spans(s, length):
    """Counter of (subsequence, span) over all index tuples of ``length`` in s."""
    out = Counter()
    for idx in itertools.combinations(range(len(s)), length):
        out["".join(s[i] for i in idx), idx[-1] - idx[0] + 1] += 1
    return out


def subsequence_polynomial(s, t, p, all_lengths=False):
    """The kernel as a polynomial in the decay g, by brute-force enumeration.

    Returns
    -------
    Counter
        exponent -> integer coefficient: k(s, t) = sum_e c_e g^e.
    """
    poly = Counter()
    lengths = range(1, p + 1) if all_lengths else [p]
    for length in lengths:
        cs, ct = _spans(s, length), _spans(t, length)
        for (u, span_s), c1 in cs.items():
            for (v, span_t), c2 in ct.items():
                if u == v:
                    poly[span_s + span_t] += c1 * c2
    return poly


def subsequence_brute(s, t, p, decay, all_lengths=False):
    """The kernel value by enumerating every pair of index subsequences."""
    return float(sum(c * decay ** e for e, c in subsequence_polynomial(s, t, p, all_lengths)
                     .items()))


def row_hashes_ref(W):
    """FNV-1a of each row's uint64 words with a shift-xor fold, column by column."""
    h = np.full(W.shape[0], np.uint64(0xCBF29CE484222325), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(W.shape[1]):
            h ^= W[:, j]
            h *= np.uint64(0x100000001B3)
            h ^= h >> np.uint64(29)
    return h


def rows_equal_ref(W, rows, leaders):
    """Row equality by gathering both rows."""
    return np.all(W[np.asarray(rows)] == W[np.asarray(leaders)], axis=1)


def rbf_tile_ref(G, xx, yy, gamma, diag_offset, out):
    """Plain-numpy twin of :func:`rbf_tile` (the same values as :func:`rbf_from_inner`)."""
    return rbf_from_inner_ref(G, xx, yy, gamma, diag_offset, out)


def mirror_tile_ref(K, r0, r1, c0, c1):
    """Plain-numpy twin of :func:`mirror_tile`."""
    i, j = np.meshgrid(np.arange(r0, r1), np.arange(c0, c1), indexing="ij")
    below = j < i
    K[j[below], i[below]] = K[i[below], j[below]]
    return K


def subset_tree_pair_ref(t1, t2, decay):
    """Pure-Python twin of :mod:`~kernelkit._compiled.trees` on two ``Tree`` objects:
    Collins and Duffy's recursion, memoised, compared label by label."""
    memo = {}

    def production(t, g):
        return (t.labels[g], tuple(t.labels[c] for c in t.children[g]))

    def C(a, b):
        if (a, b) not in memo:
            if not t1.children[a] or production(t1, a) != production(t2, b):
                memo[a, b] = 0.0
            else:
                value = decay
                for ca, cb in zip(t1.children[a], t2.children[b]):
                    value *= 1.0 + C(ca, cb)
                memo[a, b] = value
        return memo[a, b]

    return sum(C(a, b) for a in range(len(t1.labels)) for b in range(len(t2.labels)))
