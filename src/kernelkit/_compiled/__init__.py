"""Compiled (numba) loops, by family.

- :mod:`.elementwise`: passes over a block of inner products (squared
  distances, RBF, exp, polynomial, sigmoid, row/column scaling);
- :mod:`.differences`: kernels of coordinate differences (Laplacian, Cauchy);
- :mod:`.layout`: mirroring a triangle of a symmetric matrix;
- :mod:`.products`: a big matrix times a few columns, reading it once (a
  symmetric one, its lower triangle only);
- :mod:`.triangular`: a Cholesky solve, or one of its two triangular solves,
  for a few columns, reading the factor once per direction;
- :mod:`.tiles`: single-thread passes over one tile (the tiled Gram engine's
  RBF values and mirror images, run by two threads at once);
- :mod:`.selection`: member sums (kernel k-means), the k smallest entries
  of each row and the candidates for them from bounded approximate distances
  (nearest neighbours);
- :mod:`.strings`: the subsequence kernel's dynamic program;
- :mod:`.trees`: the subset-tree kernel's recursion over pairs of nodes;
- :mod:`.rows`: hashing whole rows and comparing rows (merging repeated rows).

Every compiled function ``f`` has a plain-numpy twin ``f_ref`` with the same
signature in :mod:`._reference`, used by the tests only (STYLE.md habit 8).
Shared jit options, the vectorising ``exp`` and the argument checks live in
:mod:`._common`.

Conventions shared by the Gram passes
-------------------------------------
- ``G`` / ``A`` / ``X`` / ``Y`` are 2-D C-contiguous float64 or float32 arrays.
- ``out`` is a 2-D C-contiguous float64 or float32 array of the block's
  shape. It may be the very same array as ``G`` / ``A`` (in place); any
  other memory overlap is refused.
- Per-element arithmetic is float64 whatever the storage dtype; float32
  storage only rounds the final value.
- Scalars are converted to ``float`` / ``int`` before the call so each
  (input dtype, output dtype) pair compiles exactly once.
- ``diag_offset >= 0`` says the block is rows
  ``[diag_offset, diag_offset + n)`` of a symmetric Gram matrix: entries
  ``(i, i + diag_offset)`` inside the block get squared distance exactly 0.
  ``diag_offset < 0`` (or ``None``) means no diagonal.

Compilation is lazy (first call) and cached on disk; importing this package
compiles nothing.

Every entry point below is wrapped by :func:`._common.interruptible`: a
Ctrl-C during a compiled loop reaches the caller as KeyboardInterrupt, not as
numba's ``SystemError ... returned a result with an exception set``.
"""

from ._common import interruptible
from .differences import cauchy, l1_exp
from .elementwise import (exp_scaled, gather_exp, poly_from_inner, powf_from_inner, rbf_from_inner,
                          scale_add_rows_cols, sqdist_from_inner, tanh_from_inner)
from .layout import mirror_band_upper, mirror_lower
from .products import matmat_t, symmetric_matmat_t
from .rows import row_hashes, rows_equal
from .selection import bounded_candidates, member_sums, smallest_k, smallest_k_stable
from .tiles import mirror_tile, rbf_tile
from .triangular import cho_solve_t, tri_solve_t
from .strings import (encode, subsequence_block, subsequence_pair, subsequence_scratch_bytes,
                      subsequence_self)
from .trees import subset_tree_block, subset_tree_self

#: Former name of :func:`smallest_k_stable` (kept for existing imports).

__all__ = [
    "rbf_from_inner", "sqdist_from_inner", "exp_scaled", "gather_exp", "l1_exp", "cauchy",
    "poly_from_inner", "powf_from_inner", "tanh_from_inner", "scale_add_rows_cols",
    "mirror_lower", "mirror_band_upper", "member_sums", "smallest_k", "smallest_k_stable",
    "bounded_candidates", "rbf_tile", "mirror_tile",
    "encode", "subsequence_block", "subsequence_self", "subsequence_pair",
    "subsequence_scratch_bytes", "interruptible", "row_hashes", "rows_equal",
    "subset_tree_block", "subset_tree_self", "matmat_t", "symmetric_matmat_t", "cho_solve_t",
    "tri_solve_t",
]

# One place for every entry point (see interruptible); the others are plain Python.
# Compiled loops elsewhere (solvers) wrap their entry points with the same function.
_PLAIN = ("encode", "subsequence_scratch_bytes", "interruptible")
for _name in __all__:
    if _name not in _PLAIN:
        globals()[_name] = interruptible(globals()[_name])
del _name
