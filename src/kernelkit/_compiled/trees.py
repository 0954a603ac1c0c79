"""Compiled loops of the subset-tree kernel (Collins and Duffy 2001); twin in _reference.

Trees reach numba flattened, nodes in preorder (every child after its parent):

- ``prod`` (int64, one per node): the node's production id (label and child
  labels), -1 for a leaf (a leaf roots no fragment);
- ``cptr`` (int64, nodes + 1 per tree collection): node g's children are
  ``cidx[cptr[g]:cptr[g + 1]]``, as indices local to their tree;
- ``off`` (int64, trees + 1): tree i is nodes ``off[i]:off[i + 1]``.

The recursion over pairs of nodes (n1, n2), children before parents::

    C(n1, n2) = 0                                   different productions, or a leaf
    C(n1, n2) = decay * prod_j (1 + C(ch_j(n1), ch_j(n2)))   otherwise

(a preterminal, whose children are all leaves, gets ``decay``), and k(T1, T2) =
sum of C over all pairs: the weighted count of common subset trees, each
fragment weighted by ``decay ** (its number of productions)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["subset_tree_block", "subset_tree_self"]

_jit = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_jit)
def _pair(prod, cptr, cidx, a0, na, prod2, cptr2, cidx2, b0, nb, decay, C):
    """k of tree nodes [a0, a0 + na) and tree nodes [b0, b0 + nb); C: scratch >= na nb."""
    total = 0.0
    for a in range(na - 1, -1, -1):
        ga = a0 + a
        pa = prod[ga]
        for b in range(nb - 1, -1, -1):
            gb = b0 + b
            if pa < 0 or prod2[gb] != pa:
                C[a * nb + b] = 0.0
                continue
            c = decay
            ka, kb = cptr[ga], cptr2[gb]
            for k in range(cptr[ga + 1] - ka):  # same production: same number of children
                c *= 1.0 + C[cidx[ka + k] * nb + cidx2[kb + k]]
            C[a * nb + b] = c
            total += c
    return total


@njit(parallel=True, **_jit)
def subset_tree_self(prod, cptr, cidx, off, decay):
    """k(T_i, T_i) for every tree (parallel over trees)."""
    n = off.shape[0] - 1
    out = np.empty(n)
    for i in prange(n):
        m = off[i + 1] - off[i]
        out[i] = _pair(prod, cptr, cidx, off[i], m, prod, cptr, cidx, off[i], m, decay,
                       np.empty(m * m))
    return out


@njit(parallel=True, **_jit)
def subset_tree_block(xp, xc, xi, xo, yp, yc, yi, yo, decay, diag_offset, out):
    """out[i, j] = k(X_i, Y_j), parallel over rows.

    With ``diag_offset >= 0`` row i is column ``i + diag_offset`` (X is a run
    of Y's trees): pairs inside that run are computed once and mirrored.
    """
    nx, ny = xo.shape[0] - 1, yo.shape[0] - 1
    max_y = 0
    for j in range(ny):
        max_y = max(max_y, yo[j + 1] - yo[j])
    sym_end = diag_offset + nx if diag_offset >= 0 else -1
    for i in prange(nx):
        m = xo[i + 1] - xo[i]
        scratch = np.empty(m * max_y)
        gi = i + diag_offset
        for j in range(ny):
            if diag_offset >= 0 and gi < j < sym_end:
                continue  # the upper copy of a pair inside the block: mirrored below
            out[i, j] = _pair(xp, xc, xi, xo[i], m, yp, yc, yi, yo[j], yo[j + 1] - yo[j],
                              decay, scratch)
    if diag_offset >= 0:
        for i in range(nx):
            for j in range(i + diag_offset + 1, min(ny, sym_end)):
                out[i, j] = out[j - diag_offset, i + diag_offset]
