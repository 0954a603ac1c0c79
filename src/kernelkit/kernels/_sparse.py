"""scipy.sparse rows in the block API: inner products, norms and magnitudes.

The vector kernels whose blocks come from inner products (linear,
polynomial, RBF, sigmoid) compute a block of a sparse input as the sparse
product ``X_b @ Y.T`` (sparse-sparse, or sparse-dense when one side is a
dense array), converted to a dense block of the block's size: nothing larger
than a block is ever dense. Products accumulate in float64 (scipy's sparse
products, or BLAS for a dense side); squared norms come from the stored
values. The L1 kernels (Laplacian, Cauchy) use the sparse-aware compiled
loops of :mod:`kernelkit._compiled.sparse`.

Memory: a sparse-sparse product's CSR result (values and column indices of
at most the block's entries: up to 1.5 times a dense block, less when the
product is sparse) lives beside the dense block until it is copied in. That
fits the scratch ``gram`` budgets for each block; a ``GramOperator`` block
(budgeted as block + one scratch) can exceed its share by half a block when
every product entry is nonzero.

Canonical sparse rows are CSR (``scipy.sparse.csr_matrix`` or
``csr_array``, as given) with float64 (or float32) values, sorted unique
column indices and finite values: :func:`kernelkit._validation.check_vectors`
with ``accept_sparse=True`` makes them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import n_rows  # noqa: F401  (re-exported for the kernels)

__all__ = ["is_sparse", "n_rows", "as_float64_csr", "sparse_sq_norms", "inner_into",
           "sparse_max_abs", "as_csr_rows", "compact_columns"]


def is_sparse(X):
    """Whether ``X`` is a scipy.sparse matrix or array."""
    return sp.issparse(X)


def as_float64_csr(X):
    """CSR with float64 values (no copy when it already is one)."""
    X = X.tocsr() if X.format != "csr" else X
    return X if X.dtype == np.float64 else X.astype(np.float64)


def as_csr_rows(X):
    """CSR float64 rows of a sparse or dense block (a dense block is small: one block)."""
    if sp.issparse(X):
        return as_float64_csr(X)
    return sp.csr_matrix(np.asarray(X, dtype=np.float64))


def sparse_sq_norms(X):
    """Squared row norms of CSR rows from their stored values, in float64."""
    data = np.asarray(X.data, dtype=np.float64)
    counts = np.diff(X.indptr)
    rows = np.repeat(np.arange(X.shape[0]), counts)
    with np.errstate(over="ignore"):  # inf norms send RBF to its scaled path
        return np.bincount(rows, weights=data * data, minlength=X.shape[0])


def sparse_max_abs(X):
    """The largest |value| of a sparse matrix (0 when it stores none)."""
    if X.nnz == 0:
        return 0.0
    return float(np.abs(X.data).max())


def compact_columns(A, B):
    """CSR ``A`` and ``B`` with their columns renumbered to the sorted union of the
    columns either one stores: every inner product ``a'b`` is unchanged, and nothing
    is sized by the number of columns (a product with ``B.T`` converts it to rows,
    which costs an index array per column: 8 TiB at 2**40 columns otherwise)."""
    used = np.union1d(A.indices, B.indices)
    out = []
    for M in (A, B):
        idx = np.searchsorted(used, M.indices).astype(M.indices.dtype, copy=False)
        out.append(sp.csr_matrix((M.data, idx, M.indptr), shape=(M.shape[0], len(used))))
    return out


def _wide(A, B):
    """Whether A and B have many more columns than stored values (compact them first)."""
    return A.shape[1] > 4 * (A.nnz + B.nnz) + 4096


def inner_into(X, Y, out):
    """``X @ Y.T`` into a dense float64 block (``out`` itself when it is float64).

    One or both of X and Y are sparse. Sparse-sparse: scipy's CSR product,
    its result (at most the block's size) written into the dense block.
    One side dense: a sparse-dense product (a dense result), no densified
    sparse input. Float64 accumulation whatever the storage dtype of ``out``.
    """
    G = out if out.dtype == np.float64 else np.empty(out.shape)
    if sp.issparse(X) and sp.issparse(Y):
        A, B = as_float64_csr(X), as_float64_csr(Y)
        if _wide(A, B):
            A, B = compact_columns(A, B)
        P = A @ B.T
        if G.flags.c_contiguous:  # scipy adds into a zeroed contiguous buffer
            G[...] = 0.0
            P.toarray(out=G)
        else:  # a column range of a wider array (the lower triangle's blocks)
            G[...] = P.toarray()
    elif sp.issparse(X):
        # (sparse X) @ (dense Y).T: scipy multiplies CSR by a dense matrix row by row.
        G[...] = as_float64_csr(X) @ np.asarray(Y, dtype=np.float64).T
    else:
        G[...] = (as_float64_csr(Y) @ np.asarray(X, dtype=np.float64).T).T
    return G
