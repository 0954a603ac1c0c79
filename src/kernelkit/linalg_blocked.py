"""The in-place blocked Cholesky of large matrices, and L'L of a factor, at the GEMM rate.

LAPACK ``potrf`` of the numpy/scipy wheels' OpenBLAS segfaults when it runs
multi-threaded on matrices of order >= ~16000 (and so does its threaded
``syrk`` at that size). :func:`blocked_cholesky` factors such matrices by the
left-looking blocked algorithm (Golub & Van Loan 2013, section 4.2.9),
calling BLAS and LAPACK directly on views of the one n x n buffer through
scipy's ``cython_blas``/``cython_lapack`` entry points. For each block column
[k, k + b) of the lower triangle:

* ``gemm`` (all threads) subtracts all earlier columns at once,
  A[k:, k:k+b] -= L[k:, :k] L[k:k+b, :k]^T, with C the view of the matrix
  itself (``beta = 1``): this holds almost all of the n^3 / 3 flops, with no
  temporary and no second pass over the matrix;
* ``potrf`` factors the diagonal block on one thread (order b <= 2048: about
  n b^2 / 3 flops in all, a fraction of a percent);
* ``trsm`` (all threads) solves the panel below it, L21 = A21 L11^-T
  (b n^2 / 2 flops in all, 1.5 b / n of the work).

Left-looking rather than right-looking: one ``gemm`` call per block column
(in groups of ``update_width`` columns) instead of one per pair of blocks,
so ~n / b calls of large inner dimension; each threaded BLAS call costs a
wake-up and a join of the threads, which on a loaded machine is what limits
the small calls.

The ``gemm`` of a group of w columns also computes the part above the
diagonal of its w x w diagonal tile (1.5 w / n of the work, e.g. 2% at
n = 40000, w = 512), which ``syrk`` would avoid but runs well below the
``gemm`` rate (and threaded ``syrk`` is one of the calls that crash). That
part overwrites the input's upper triangle inside the diagonal tiles; those
tiles (n w numbers) are saved first and written back at the end, so the
strict upper triangle of the input is left as it was: the robust Cholesky of
:mod:`kernelkit.linalg` rebuilds the matrix from it for its jitter retries.

The entry points are plain C function pointers (Fortran calling convention,
32-bit integers: scipy's own OpenBLAS), called through :mod:`ctypes`, which
releases the GIL; their leading dimensions let them work on any block of the
C- or Fortran-ordered buffer in place, which scipy's array-level wrappers
cannot (they copy non-contiguous views).

References
----------
Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed., section 4.2.9
(block Cholesky). Johns Hopkins University Press.
"""

from __future__ import annotations

import contextlib
import ctypes
from functools import lru_cache

import numpy as np

__all__ = ["blocked_cholesky", "lower_gram_in_place", "BLOCKED_BLOCK_SIZE", "BLOCKED_UPDATE_WIDTH",
           "GRAM_ROWS"]

#: Default order b of the diagonal blocks: the panels' ``trsm`` (1.5 b / n of the
#: flops, at ~60-70% of the ``gemm`` rate) against the number of calls (3 n / b).
#: On the 2-core dev box at load 15-20, n = 8000-12000, float32: 1024 ran at
#: 0.70-0.90 of a 4096^3 sgemm, 512 at 0.69-0.77, and one thread at 0.9-1.2.
BLOCKED_BLOCK_SIZE = 1024
#: Default number of columns per ``gemm`` (the duplicated half of each diagonal
#: tile is 1.5 w / n of the work).
BLOCKED_UPDATE_WIDTH = 512

_CHAR_P = ctypes.c_char_p
_VOID_P = ctypes.c_void_p


def _capsule_pointer(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                                  ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


@lru_cache(maxsize=2)
def _routines(prefix):
    """ctypes callables of scipy's ``{prefix}potrf``, ``trsm`` and ``gemm`` (prefix 's' or 'd')."""
    from scipy.linalg import cython_blas, cython_lapack

    def bind(module, name, n_args):
        pointer = _capsule_pointer(module.__pyx_capi__[prefix + name])
        return ctypes.CFUNCTYPE(None, *([_VOID_P] * n_args))(pointer)

    return (bind(cython_lapack, "potrf", 5), bind(cython_blas, "trsm", 11),
            bind(cython_blas, "gemm", 13))


def _int(value):
    return ctypes.byref(ctypes.c_int(int(value)))


def blocked_cholesky(A, block_size=BLOCKED_BLOCK_SIZE, *, update_width=BLOCKED_UPDATE_WIDTH,
                     diagonal_threads=None):
    """Lower Cholesky factor of the symmetric matrix ``A``, in place, by blocks.

    Reads the lower triangle (and diagonal) of ``A`` and overwrites it with
    ``L``, ``A = L L^T``; the strict upper triangle is left unchanged.

    Parameters
    ----------
    A : ndarray of shape (n, n), float32 or float64, C- or F-contiguous, writeable
        Symmetric positive definite matrix (only its lower triangle is read).
    block_size : int, default=:data:`BLOCKED_BLOCK_SIZE`
        Order b of the diagonal blocks (the last one may be smaller).
    update_width : int, default=:data:`BLOCKED_UPDATE_WIDTH`
        Columns per ``gemm`` call (at most b).
    diagonal_threads : callable, optional
        ``diagonal_threads(b)`` returns the context in which the ``potrf`` of a
        diagonal block of order b runs (e.g. BLAS limited to one thread); by
        default the BLAS threads in force.

    Returns
    -------
    info : int
        0 on success, else the 1-based column at which a diagonal block was
        not positive definite (``A``'s lower triangle is then partly
        overwritten; its strict upper triangle is still the input's).

    Raises
    ------
    ValueError
        If ``A`` is not a square, contiguous, writeable float32/float64 array,
        or ``block_size < 1`` or ``update_width < 1``.
    """
    A = _checked(A, block_size, update_width)
    n = A.shape[0]
    if n == 0:
        return 0
    potrf, trsm, gemm = _routines("s" if A.dtype == np.float32 else "d")
    scalar = ctypes.c_float if A.dtype == np.float32 else ctypes.c_double
    one, minus_one = ctypes.byref(scalar(1.0)), ctypes.byref(scalar(-1.0))
    itemsize, base, ld = A.itemsize, A.ctypes.data, _int(n)
    # Fortran sees a C-ordered A as its transpose: our lower triangle is its upper one.
    upper = A.flags.c_contiguous

    def at(row, col):  # address of Fortran element (row, col) of the buffer
        return _VOID_P(base + itemsize * (row + col * n))

    def gemm_fortran(ta, tb, m, n_cols, k, a, b, c):
        gemm(_CHAR_P(ta), _CHAR_P(tb), _int(m), _int(n_cols), _int(k), minus_one, a, ld,
             b, ld, one, c, ld)

    threads = diagonal_threads or (lambda order: contextlib.nullcontext())
    b = min(int(block_size), n)
    w = min(int(update_width), b)
    saved = _save_diagonal_tiles(A, b, w)
    info = ctypes.c_int(0)
    try:
        for k in range(0, n, b):
            e = min(k + b, n)
            # Left-looking: block column [k, e) of the lower triangle (rows k..n)
            # receives all earlier columns at once, A[j:, j:je] -= L[j:, :k] L[j:je, :k]^T,
            # in groups of w columns (one gemm of inner dimension k each).
            for j in range(k, e, w) if k else ():
                je = min(j + w, e)
                if upper:
                    gemm_fortran(b"T", b"N", je - j, n - j, k, at(0, j), at(0, j), at(j, j))
                else:
                    gemm_fortran(b"N", b"T", n - j, je - j, k, at(j, 0), at(j, 0), at(j, j))
            with threads(e - k):
                potrf(_CHAR_P(b"U" if upper else b"L"), _int(e - k), at(k, k), ld,
                      ctypes.byref(info))
            if info.value != 0:
                if info.value < 0:  # pragma: no cover - an argument error is a bug here
                    raise RuntimeError(f"potrf argument {-info.value} invalid")
                return k + info.value
            if e == n:
                break
            if upper:  # Fortran U (b x m panel to the right): U12 = U11^-T A12
                trsm(_CHAR_P(b"L"), _CHAR_P(b"U"), _CHAR_P(b"T"), _CHAR_P(b"N"), _int(e - k),
                     _int(n - e), one, at(k, k), ld, at(k, e), ld)
            else:  # Fortran L (m x b panel below): L21 = A21 L11^-T
                trsm(_CHAR_P(b"R"), _CHAR_P(b"L"), _CHAR_P(b"T"), _CHAR_P(b"N"), _int(n - e),
                     _int(e - k), one, at(k, k), ld, at(e, k), ld)
        return 0
    finally:
        _restore_upper_of_diagonal_tiles(A, saved)


def _checked(A, block_size, update_width):
    if not isinstance(A, np.ndarray) or A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square ndarray, got {getattr(A, 'shape', type(A))}")
    if A.dtype not in (np.float32, np.float64):
        raise ValueError(f"A must be float32 or float64, got {A.dtype}")
    if not (A.flags.c_contiguous or A.flags.f_contiguous) or not A.flags.writeable:
        raise ValueError("A must be a C- or F-contiguous writeable array (it is factored in "
                         "place); pass np.ascontiguousarray(A)")
    if int(block_size) < 1 or int(update_width) < 1:
        raise ValueError(f"block_size and update_width must be >= 1, got {block_size} "
                         f"and {update_width}")
    return A


def _diagonal_tiles(n, b, w):
    """(start, stop) of the diagonal tiles whose upper part a gemm computes."""
    return [(j, min(j + w, k + b, n)) for k in range(0, n, b) for j in range(k, min(k + b, n), w)]


def _save_diagonal_tiles(A, b, w):
    """Copies of the diagonal tiles of ``A`` (their upper parts are overwritten by the gemms)."""
    return [(j, A[j:je, j:je].copy()) for j, je in _diagonal_tiles(A.shape[0], b, w)]


def _restore_upper_of_diagonal_tiles(A, saved):
    for j, tile in saved:
        m = tile.shape[0]
        np.copyto(A[j:j + m, j:j + m], tile, where=~np.tri(m, dtype=bool))


#: Rows per matrix product of :func:`lower_gram_in_place`: the products' wasted
#: part (zeros above the diagonal tiles, their duplicated upper halves) is about
#: 2.25 x this / M of the M^3 / 3 flops (8.5% at M = 13,500), and 512 rows keep
#: each product at the GEMM rate.
GRAM_ROWS = 512


def lower_gram_in_place(A, rows=None):
    """Overwrite the lower triangle of ``A`` with that of ``L'L``, L = tril(A).

    Block row [s, e) of L'L (columns < e) is ``A[s:, s:e]' A[s:, :e]``: the
    rows of L above s are zero in those columns, and the rows below e are
    full. One matrix product per block of ``rows`` rows (float GEMM at its
    rate, the same M^3 / 3 flops as LAPACK's lauum, which ran at half the
    GEMM rate or less here), into a scratch block copied back; the rows it
    overwrites (s to e) are read by no later block. The strict upper
    triangles of the diagonal tiles are zeroed first; the rest of the strict
    upper triangle is neither read nor written. Falkon's preconditioner forms
    T'T / M of its Cholesky factor T with it.

    Parameters
    ----------
    A : ndarray of shape (n, n), float32 or float64, C-ordered
        Its lower triangle is L; overwritten with that of L'L.
    rows : int, optional
        Rows per product (default :data:`GRAM_ROWS`).

    Returns
    -------
    A
    """
    n = A.shape[0]
    rows = min(GRAM_ROWS if rows is None else int(rows), max(n, 1))
    above = ~np.tri(rows, dtype=bool)
    for s in range(0, n, rows):
        e = min(s + rows, n)
        np.copyto(A[s:e, s:e], 0, where=above[:e - s, :e - s])
    scratch = np.empty(rows * n, dtype=A.dtype)
    for s in range(0, n, rows):
        e = min(s + rows, n)
        block = scratch[:(e - s) * e].reshape(e - s, e)
        np.matmul(A[s:, s:e].T, A[s:, :e], out=block)
        A[s:e, :e] = block
    return A
