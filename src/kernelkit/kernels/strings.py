"""Kernels on strings: the gap-weighted subsequence kernel and the spectrum (k-mer) kernel.

Both take a list or 1-D array of ``str`` (validated into a fixed-width ``"<U"``
array by :func:`kernelkit._validation.check_strings`) and combine with the
algebra like any kernel (``Spectrum(k=3) + 0.5 * Subsequence(p=2)``); a sum or
product of a string kernel and a vector kernel is refused when it is built.
They have no spectral density (no random Fourier features): approximate them
with :class:`~kernelkit.features.Nystroem`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._budget import BLOCK_SHARE, require, row_blocks
from .._validation import Interval, check_strings
from .base import Kernel
from .objects import normalize_block

__all__ = ["Subsequence", "Spectrum", "WeightedDegree", "kmer_counts"]


class _StringKernel(Kernel):
    """What the string kernels share: input checks and normalisation."""

    input_kind = "string"

    def check_input(self, X, name="X"):
        return check_strings(X, name)

    def spectral_density(self):
        raise ValueError(
            f"{self!r} is a kernel on strings: random Fourier features need a shift-invariant "
            "kernel on numeric vectors; approximate it with kernelkit.features.Nystroem instead")


class Subsequence(_StringKernel):
    """The gap-weighted subsequence kernel of Lodhi et al. (2002).

    k(s, t) = sum over subsequences u of length p (or of every length 1..p),
    over every occurrence i of u in s and j of u in t, of
    ``decay ** (span(i) + span(j))``, span = last index - first index + 1: common
    subsequences count more the less they are spread out. Computed by dynamic
    programming in ``O(p |s| |t|)`` time and ``O(p |t|)`` memory per pair (compiled,
    parallel over rows): the rows of the program are checked against the
    memory budget (a :class:`~kernelkit.exceptions.MemoryBudgetError` for a
    p and string lengths that would not fit).

    Parameters
    ----------
    p : int, default=2
        Subsequence length (the largest one with ``all_lengths``).
    decay : float, default=0.5
        Gap penalty lambda in (0, 1]: 1 counts every occurrence alike.
    all_lengths : bool, default=False
        Sum the kernels of every length 1, ..., p instead of length p only.
    normalize : bool, default=True
        Return k(s, t) / sqrt(k(s, s) k(t, t)) (so k(s, s) = 1); a string
        shorter than p has the zero feature vector and gets 0.

    Examples
    --------
    The lecture's example, all lengths (here every length up to 3), decay g:
    k("cat", "cart") = 3 g^2 + g^4 + g^5 + 2 g^7 (c, a, t; ca, at; ct and cat):

    >>> from kernelkit.kernels import Subsequence
    >>> g = 0.5
    >>> k = Subsequence(p=3, decay=g, all_lengths=True, normalize=False)
    >>> float(k(["cat"], ["cart"])[0, 0]) == 3*g**2 + g**4 + g**5 + 2*g**7
    True

    References
    ----------
    Lodhi, H., Saunders, C., Shawe-Taylor, J., Cristianini, N. and Watkins, C.
    (2002). Text classification using string kernels. JMLR 2, 419-444.
    """

    _param_constraints = {
        "p": [Interval(Integral, 1, None)],
        "decay": [Interval(Real, 0, 1, closed="right")],
        "all_lengths": ["boolean"],
        "normalize": ["boolean"],
    }

    def __init__(self, p=2, decay=0.5, *, all_lengths=False, normalize=True):
        self.p = p
        self.decay = decay
        self.all_lengths = all_lengths
        self.normalize = normalize
        self._check_params()

    def _args(self):
        return int(self.p), float(self.decay), bool(self.all_lengths)

    def _require_scratch(self, x_offsets, y_offsets):
        """MemoryBudgetError unless the dynamic program's rows fit a block's share."""
        from .._compiled import subsequence_scratch_bytes

        nbytes = subsequence_scratch_bytes(self.p, x_offsets, y_offsets)
        longest = int(max(np.diff(x_offsets).max(initial=0), np.diff(y_offsets).max(initial=0)))
        require(nbytes, f"the subsequence kernel's dynamic program (p={self.p}, strings of "
                f"up to {longest} characters; O(p x length) floats per thread)",
                hint="use a smaller p", share=BLOCK_SHARE)

    def _self_values(self, X):
        from .._compiled import encode, subsequence_self

        codes, offsets = encode(X)
        self._require_scratch(offsets, offsets)
        return subsequence_self(codes, offsets, *self._args())

    def _block_into(self, X, Y, diag_offset, out):
        from .._compiled import encode, subsequence_block

        if len(X) == 0 or len(Y) == 0:
            return
        xc, xo = encode(X)
        yc, yo = encode(Y)
        self._require_scratch(xo, yo)
        if out.dtype == np.float64:
            subsequence_block(xc, xo, yc, yo, *self._args(), int(diag_offset), out)
        else:  # accumulate in float64 whatever the storage
            tmp = np.empty(out.shape)
            subsequence_block(xc, xo, yc, yo, *self._args(), int(diag_offset), tmp)
            out[...] = tmp
        if self.normalize:
            dy = self._self_values(Y)
            dx = (dy[diag_offset:diag_offset + len(X)] if diag_offset >= 0
                  else self._self_values(X))
            normalize_block(out, dx, dy, diag_offset)

    def _diag(self, X):
        if self.normalize:
            return (self._self_values(X) > 0).astype(np.float64)
        return self._self_values(X)


# Above this many dense count entries (rows x distinct k-mers) the products stay sparse.
_DENSE_COUNT_ENTRIES = 4 * 1024**2
# A sparse product's multiply-add costs about this many dense (GEMM) ones (measured
# roughly on this machine: scipy's SpGEMM ~0.1 G/s against GEMM's 50 GFLOP/s, with
# the dense arrays' conversion; a conservative figure).
_SPARSE_FLOP_COST = 30.0


def _sparse_product_into(A, B, out, rows_per_task=256):
    """out = (A @ B.T).toarray() in row chunks on a thread pool.

    scipy's sparse products release the GIL, so the chunks run in parallel;
    each chunk's dense temporary is (rows_per_task, m).
    """
    import os
    from concurrent.futures import ThreadPoolExecutor

    n = A.shape[0]
    Bt = B.T.tocsc()  # columns of B.T = rows of B, for the products A[r0:r1] @ B.T

    def task(block):
        r0, r1 = block
        out[r0:r1] = (A[r0:r1] @ Bt).toarray()

    blocks = list(row_blocks(n, rows_per_task))
    workers = min(os.cpu_count() or 1, len(blocks))
    if workers <= 1:
        for block in blocks:
            task(block)
        return
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(task, blocks))


def _dense_is_cheaper(A, B):
    """Whether A @ B.T is cheaper with dense counts (small, dense vocabularies)."""
    n, V = A.shape
    m = B.shape[0]
    if V * (n + m) > _DENSE_COUNT_ENTRIES:
        return False
    # multiply-adds of the sparse product: per k-mer, its strings in A times those in B
    sparse_flops = float(np.bincount(A.indices, minlength=V) @ np.bincount(B.indices, minlength=V))
    return 1.0 * n * m * V <= _SPARSE_FLOP_COST * sparse_flops


def kmer_counts(X, k, Y=None, *, positional=False):
    """Sparse k-mer count matrices of X (and Y) over one shared vocabulary.

    Parameters
    ----------
    X, Y : sequence of str
    k : int
    positional : bool, default=False
        Count (position, k-mer) pairs instead: the same k-mer at different
        positions is a different feature (the weighted-degree kernel's).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (len(X), V), and the one of Y if given
        Entry (i, v) counts the occurrences of the v-th distinct k-mer in string i.
    """
    import scipy.sparse as sp

    from .._compiled import encode

    parts = [X] if Y is None else [X, Y]
    codes, offsets = encode([s for part in parts for s in part])
    lengths = np.diff(offsets)
    n_windows = np.maximum(lengths - k + 1, 0)
    rows = np.repeat(np.arange(len(lengths)), n_windows)
    # start of each window: its string's offset plus its position in the string
    starts = np.repeat(offsets[:-1], n_windows) + (
        np.arange(rows.size) - np.repeat(np.cumsum(n_windows) - n_windows, n_windows))
    windows = codes[starts[:, None] + np.arange(k)[None, :]] if rows.size else \
        np.zeros((0, k), dtype=np.int32)
    bits = int(codes.max()).bit_length() if codes.size else 1
    if positional:  # the position within its string, as one more "code point"
        position = (starts - np.repeat(offsets[:-1], n_windows)).astype(np.int32)
        windows = np.column_stack([windows, position])
        bits = max(bits, int(lengths.max(initial=1)).bit_length())
    width = windows.shape[1]
    if bits * width <= 63:  # pack the code points into one int64 key
        keys = np.zeros(len(windows), dtype=np.int64)
        for j in range(width):
            keys = (keys << bits) | windows[:, j].astype(np.int64)
    else:  # long k-mers: compare their bytes
        keys = np.ascontiguousarray(windows).view(np.dtype((np.void, 4 * width))).ravel()
    _, ids = np.unique(keys, return_inverse=True)
    V = int(ids.max()) + 1 if ids.size else 0
    counts = sp.csr_matrix((np.ones(rows.size), (rows, ids.ravel())), shape=(len(lengths), V))
    counts.sum_duplicates()
    if Y is None:
        return counts
    return counts[:len(X)], counts[len(X):]


class _CountKernel(_StringKernel):
    """A string kernel that is the inner product of sparse count features.

    Subclasses give ``_features(X, Y=None)`` (the count matrix of X, or the
    pair for X and Y over one shared vocabulary); the Gram block is one
    product of the two, and the diagonal the squared row norms.
    """

    def _block_into(self, X, Y, diag_offset, out):
        A, B = self._features(X, Y)
        if _dense_is_cheaper(A, B):
            # few distinct features, most present (DNA: 4^k): a dense product (GEMM)
            out[...] = A.toarray() @ B.toarray().T
        else:
            _sparse_product_into(A, B, out)
        if self.normalize:
            dx = np.asarray(A.multiply(A).sum(axis=1)).ravel()
            dy = np.asarray(B.multiply(B).sum(axis=1)).ravel()
            normalize_block(out, dx, dy, diag_offset)

    def _diag(self, X):
        A = self._features(X)
        d = np.asarray(A.multiply(A).sum(axis=1)).ravel()
        return (d > 0).astype(np.float64) if self.normalize else d


class Spectrum(_CountKernel):
    """The spectrum (k-mer) kernel: the inner product of k-mer counts.

    k(s, t) = sum over strings u of length k of count_u(s) count_u(t)
    (Leslie, Eskin and Noble 2002). The counts are sparse matrices over the
    k-mers that occur (scipy.sparse), so long texts cost ``O(|s|)`` to count and
    the Gram matrix one sparse (or, for small alphabets, dense) product.

    Parameters
    ----------
    k : int, default=3
        Length of the substrings counted.
    normalize : bool, default=True
        Cosine of the count vectors, k(s, t) / sqrt(k(s, s) k(t, t)); a string
        shorter than k has no k-mers and gets 0.

    Examples
    --------
    >>> from kernelkit.kernels import Spectrum
    >>> Spectrum(k=2, normalize=False)(["abab", "bab"])
    array([[5., 3.],
           [3., 2.]])

    References
    ----------
    Leslie, C., Eskin, E. and Noble, W. S. (2002). The spectrum kernel: a
    string kernel for SVM protein classification. Pacific Symposium on Biocomputing.
    """

    _param_constraints = {
        "k": [Interval(Integral, 1, None)],
        "normalize": ["boolean"],
    }

    def __init__(self, k=3, *, normalize=True):
        self.k = k
        self.normalize = normalize
        self._check_params()

    def _features(self, X, Y=None):
        return kmer_counts(X, int(self.k), Y)


class WeightedDegree(_CountKernel):
    """The weighted-degree kernel: k-mers matched at the same position.

    k(s, t) = sum_{d=1}^{D} beta_d sum_i [s[i:i+d] == t[i:i+d]], with
    beta_d = 2 (D - d + 1) / (D (D + 1)) (Raetsch and Sonnenburg 2004): the
    positional string kernel of splice-site recognition, where a motif
    sits matters as much as what it is. Features are sparse (position, k-mer)
    indicators, one block per degree, so a Gram matrix is one product.
    Strings of different lengths compare on their common positions.

    Parameters
    ----------
    degree : int, default=3
        Largest k-mer length D.
    normalize : bool, default=True
        k(s, t) / sqrt(k(s, s) k(t, t)).

    Examples
    --------
    >>> from kernelkit.kernels import WeightedDegree
    >>> WeightedDegree(degree=1, normalize=False)(["acgt"], ["aggt"])
    array([[3.]])

    References
    ----------
    Raetsch, G. and Sonnenburg, S. (2004). Accurate splice site prediction for
    Caenorhabditis elegans. Kernel Methods in Computational Biology, MIT Press.
    """

    _param_constraints = {
        "degree": [Interval(Integral, 1, None)],
        "normalize": ["boolean"],
    }

    def __init__(self, degree=3, *, normalize=True):
        self.degree = degree
        self.normalize = normalize
        self._check_params()

    def _features(self, X, Y=None):
        import scipy.sparse as sp

        D = int(self.degree)
        blocks_x, blocks_y = [], []
        for d in range(1, D + 1):
            w = np.sqrt(2.0 * (D - d + 1) / (D * (D + 1)))
            counts = kmer_counts(X, d, Y, positional=True)
            A, B = counts if Y is not None else (counts, None)
            blocks_x.append(A * w)
            blocks_y.append(None if B is None else B * w)
        A = sp.hstack(blocks_x, format="csr")
        return A if Y is None else (A, sp.hstack(blocks_y, format="csr"))
