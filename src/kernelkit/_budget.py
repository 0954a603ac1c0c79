"""The memory budget in one place: "does it fit?" and "how many rows per block?".

Every blocked loop in kernelkit asks :func:`rows_per_block` (or iterates
:func:`row_blocks`) and every "can we store this matrix?" asks :func:`fits`,
so the shares of the budget and the block caps are written once, here, and a
change of policy is one edit. Sizes are printed in binary units by
:func:`format_bytes` (a 16 MB budget prints as ``16 MB``, not ``0.0 GB``).

The budget itself is ``kernelkit.get_config()["memory"]`` (see
:mod:`kernelkit.config`).

Examples
--------
>>> from kernelkit import config_context
>>> from kernelkit._budget import fits, format_bytes, rows_per_block
>>> with config_context(memory="64MB"):
...     fits(8 * 2000 * 2000), fits(8 * 2000 * 2000, share=0.25), rows_per_block(1000)
(True, False, 524)
>>> format_bytes(16 * 1024**2), format_bytes(1.5 * 1024**3), format_bytes(100)
('16 MB', '1.5 GB', '100 B')
"""

from __future__ import annotations

from . import config
from ._units import format_bytes
from .exceptions import MemoryBudgetError

__all__ = ["budget", "fits", "require", "rows_per_block", "row_blocks", "format_bytes",
           "MAX_BLOCK_BYTES", "DISTANCE_BLOCK_BYTES", "BLOCK_SHARE", "STORE_SHARE",
           "ROW_CACHE_SHARE"]

#: A Gram block larger than this brings no speed (GEMM and the elementwise pass
#: are already at full rate) and only costs memory.
MAX_BLOCK_BYTES = 256 * 1024**2
#: Bytes of one (rows, n_fit) temporary of the feature-space distance passes:
#: large enough for full-speed matrix products (Fashion-MNIST 2k x 10k: 4 MB
#: blocks were 2x slower), small enough to keep fresh-page faults in check.
DISTANCE_BLOCK_BYTES = 64 * 1024**2
#: Share of the budget one blocked loop may use for its block temporaries.
BLOCK_SHARE = 1 / 8
#: Share of the budget an optional cache (a Gram matrix kept to save
#: recomputation) may take: the rest stays for the solver's own arrays.
STORE_SHARE = 1 / 2
#: Share of the budget of SMO's kernel-row cache when the Gram matrix is not
#: stored (libsvm's cache_size plays this part).
ROW_CACHE_SHARE = 1 / 4


def budget() -> int:
    """The memory budget in bytes now in force (``get_config()["memory"]``)."""
    return int(config.get_config()["memory"])


def fits(nbytes, share=1.0, memory=None) -> bool:
    """Whether ``nbytes`` fit in ``share`` of the memory budget.

    Parameters
    ----------
    nbytes : float
        Size of what would be allocated.
    share : float, default=1.0
        Fraction of the budget it may take (e.g. :data:`STORE_SHARE` for a cache).
    memory : int, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    bool
    """
    memory = budget() if memory is None else memory
    return float(nbytes) <= share * float(memory)


def require(nbytes, what, hint="", share=1.0, memory=None):
    """Raise :class:`MemoryBudgetError` unless ``nbytes`` fit in ``share`` of the budget.

    Parameters
    ----------
    nbytes : float
        Size of what would be allocated.
    what : str
        What needs it, e.g. ``"the 20000 x 20000 Gram matrix"``.
    hint : str, optional
        What to do instead (appended after the standard advice).
    share, memory : see :func:`fits`.
    """
    memory = budget() if memory is None else memory
    if fits(nbytes, share, memory):
        return
    part = "" if share == 1.0 else f"{share:g} of "
    msg = (f"{what} needs {format_bytes(nbytes)} but {part}the memory budget is "
           f"{format_bytes(share * memory)}; raise it with "
           "kernelkit.config_context(memory=...) or KERNELKIT_MEMORY")
    raise MemoryBudgetError(msg + (f", or {hint}" if hint else ""))


def rows_per_block(n_cols, bytes_per_entry=8, n_temporaries=2, memory=None,
                   cap=MAX_BLOCK_BYTES):
    """Rows of an (rows, n_cols) block whose temporaries fit the block budget.

    Parameters
    ----------
    n_cols : int
        Columns of the block.
    bytes_per_entry : int, default=8
        Size of one entry.
    n_temporaries : int, default=2
        How many block-sized arrays live at once.
    memory : int, optional
        Bytes for all temporaries together; default: :data:`BLOCK_SHARE` of
        the budget, at most ``cap``.
    cap : int, default=MAX_BLOCK_BYTES
        Upper bound of the default ``memory``.

    Returns
    -------
    int
        At least 1.
    """
    if memory is None:
        memory = min(int(budget() * BLOCK_SHARE), cap)
    per_row = max(1, n_cols * bytes_per_entry * n_temporaries)
    return max(1, int(memory // per_row))


def row_blocks(n_rows, step):
    """Yield ``(r0, r1)`` ranges of at most ``step`` rows covering ``range(n_rows)``.

    Examples
    --------
    >>> list(row_blocks(5, 2))
    [(0, 2), (2, 4), (4, 5)]
    """
    step = max(1, int(step))
    for r0 in range(0, n_rows, step):
        yield r0, min(n_rows, r0 + step)
