"""Storage decisions: keep a matrix in memory or recompute it, and SMO's row cache.

Each answer is a :class:`~kernelkit.planning.choices.Choice` that says the
sizes against the memory budget (``kernelkit.get_config()["memory"]``, or the
caller's), so the estimator's ``plan_`` shows why.
"""

from __future__ import annotations

from .._budget import ROW_CACHE_SHARE, STORE_SHARE, budget, require
from .._units import format_bytes
from .choices import Choice

__all__ = ["decide_store", "falkon_store_choice", "operator_store_choice", "row_cache_bytes",
           "row_cache_choice", "warm_buffer_choice"]


def decide_store(what, nbytes, setting="auto", share=STORE_SHARE, memory=None):
    """Whether to keep a matrix in memory (a Gram matrix, K_nM, a kernel-row cache).

    Parameters
    ----------
    what : str
        What would be stored, e.g. ``"Gram matrix (n x n)"``.
    nbytes : float
        Its size.
    setting : {"auto", True, False}, default="auto"
        The user's setting: ``True``/``False`` force the answer; a forced store
        still fits the whole budget, or :class:`~kernelkit.MemoryBudgetError` is
        raised before anything is allocated.
    share : float, default=STORE_SHARE
        Fraction of the budget it may take under ``"auto"``.
    memory : int, optional
        Budget in bytes; default: the configured one.

    Returns
    -------
    Choice
        ``value`` is the decision (bool).
    """
    memory = budget() if memory is None else memory
    if setting is True:  # the budget is the user's too: a forced store must fit it
        require(nbytes, f"storing {what} (cache=True)", "leave cache='auto' (computed on "
                "demand within the budget)", memory=memory)
    if setting is True or setting is False:
        return Choice(f"store {what}", setting, f"forced by the user ({format_bytes(nbytes)})")
    keep = float(nbytes) <= share * float(memory)
    rel = "<=" if keep else ">"
    part = "" if share == 1.0 else f"{share:g} of "
    return Choice(f"store {what}", keep, f"{format_bytes(nbytes)} {rel} {part}the memory "
                  f"budget {format_bytes(memory)}")


def falkon_store_choice(n, M, itemsize=8, setting="auto", memory=None):
    """Whether Falkon keeps K_nM (``itemsize`` bytes per entry) in memory: when it
    fits the whole budget next to the preconditioner's two M x M factors, charged as
    float64 (float32 blocks keep float32 factors, but a rank-deficient K_MM's eigen
    form is float64)."""
    return decide_store(f"K_nM ({n} x {M})", itemsize * n * M + 16.0 * M * M, setting,
                        share=1.0, memory=memory)


def operator_store_choice(n_rows, n_columns, itemsize=8, setting="auto", memory=None):
    """Whether a :class:`~kernelkit.gram.GramOperator` keeps its K (``n_rows`` x
    ``n_columns`` entries of ``itemsize`` bytes): under ``"auto"`` when it takes at
    most :data:`~kernelkit._budget.STORE_SHARE` (half) of the memory budget.

    The operator takes the answer as its ``cache`` (it does not ask the planner):

    >>> import numpy as np
    >>> from kernelkit import GramOperator, config_context
    >>> from kernelkit.planning import operator_store_choice
    >>> X = np.zeros((1000, 2))
    >>> with config_context(memory="16MB"):
    ...     op = GramOperator("rbf(gamma=1)", X, cache=operator_store_choice(1000, 1000))
    >>> op.stores, op.store_choice.reason
    (True, '7.63 MB <= 0.5 of the memory budget 16 MB')
    """
    return decide_store(f"the kernel matrix ({n_rows} x {n_columns})",
                        float(itemsize) * n_rows * n_columns, setting, share=STORE_SHARE,
                        memory=memory)


def row_cache_bytes(memory=None):
    """Bytes of SMO's kernel-row cache (when the Gram matrix is not stored):
    :data:`kernelkit._budget.ROW_CACHE_SHARE` of the budget."""
    memory = budget() if memory is None else memory
    return int(memory * ROW_CACHE_SHARE)


def row_cache_choice(n, memory=None):
    """The kernel-row cache of an SMO problem on n samples, as a :class:`Choice`."""
    nbytes = row_cache_bytes(memory)
    rows = int(min(n, nbytes // (8 * max(n, 1))))
    return Choice("kernel-row cache", f"{rows} of {n} rows",
                  f"{format_bytes(nbytes)} = {ROW_CACHE_SHARE:g} of the memory budget")


def warm_buffer_choice(what, nbytes, warm):
    """Whether ``what`` was written into a warm pooled buffer
    (:mod:`kernelkit.solvers.buffers`) or new memory, as a :class:`Choice`."""
    if warm:
        return Choice(f"buffer of {what}", "warm (reused)",
                      f"{format_bytes(nbytes)} kept from an earlier fit: no fresh-page faults")
    return Choice(f"buffer of {what}", "new", f"{format_bytes(nbytes)} of new memory without "
                  "huge-page advice (no compaction stalls on its faults; kept for the next fit "
                  "within a quarter of the memory budget)")
