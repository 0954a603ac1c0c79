"""A pool of warm memory for Gram matrices, reused from one fit to the next.

A new n x n float64 matrix costs a page fault per page the first time it is
written (on this project's 2-core machine 0.5-1.4 s for the 800 MB Gram matrix
of n = 10,000: as much as computing its RBF values, and at small d more than
the SMO that follows). A buffer given back to this pool after a fit keeps its
pages, so the next fit of the same size or smaller (a repeat, the next C or
gamma of a grid search, the next fold) writes into memory already mapped.

The pool is small and explicit:

- :func:`borrow` ``(shape)`` takes the smallest pooled buffer that is large
  enough (or allocates a new one) and returns ``(array, warm)``; while
  borrowed it belongs to the caller alone (the pool is thread-safe);
- :func:`give_back` ``(array)`` returns it; the pool keeps buffers only up to
  ``max_bytes`` in total (default :data:`POOL_SHARE` of the memory budget in
  force), dropping the least recently returned first, so what the process
  keeps after a fit never exceeds that share of the budget;
- :func:`warm_array` is the two as a context manager;
- :func:`release` frees every pooled buffer now (e.g. before a large
  allocation elsewhere), :func:`pooled_bytes` says how much is kept;
- :func:`fresh_empty` allocates the new memory of this pool, of SMO's row
  cache and of the mixed-precision ridge's float32 matrix: an anonymous
  mapping of its own, all its pages mapped in one call (``populate=True``)
  or row by row as they are first written (:class:`RowPages`, for rows on
  demand; on a second thread ahead of rows written in order: :class:`RowsAhead`,
  where :func:`can_map_ahead`), never with transparent-huge-page advice (see its
  notes).

Callers record whether a buffer was warm in their ``plan_`` (see
:class:`~kernelkit.models.KernelSVC`), so the reuse is never silent.

Examples
--------
>>> from kernelkit.solvers import buffers
>>> with buffers.warm_array((100, 100)) as (a, warm):
...     a.shape
(100, 100)
>>> with buffers.warm_array((50, 40)) as (b, warm):
...     warm                       # the pages of the first one, reused
True
>>> buffers.release(); buffers.pooled_bytes()
0
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager

import numpy as np

from .._budget import budget
from .._pages import (MAPPED_MIN_BYTES, RowPages, RowsAhead, can_map_ahead, fresh_empty,
                      mark_written)

__all__ = [
    "MAPPED_MIN_BYTES",
    "POOL_SHARE",
    "RowPages",
    "RowsAhead",
    "borrow",
    "can_map_ahead",
    "fresh_empty",
    "give_back",
    "pooled_bytes",
    "release",
    "warm_array",
]

#: Share of the memory budget the pool may keep between fits.
POOL_SHARE = 1 / 4

_lock = threading.Lock()
_pool = []  # flat float64 buffers, least recently given back first
# id(flat buffer) -> weak reference, while borrowed: a buffer its borrower drops
# without giving it back is freed as any array, not kept here
_lent = {}


def borrow(shape, *, populate=False):
    """A C-contiguous float64 array of ``shape`` on a pooled buffer if one is large enough.

    Parameters
    ----------
    shape : tuple of int
    populate : bool, default=False
        For new memory: map all its pages at once (a writer of the whole
        array) rather than as written (row by row through :class:`RowPages`,
        or by faults); see :func:`fresh_empty`.

    Returns
    -------
    array : ndarray of shape ``shape``, float64
        Contents undefined (the previous user's numbers): write before reading.
    warm : bool
        Whether it reuses a pooled buffer (pages already mapped) rather than
        new memory.
    """
    size = int(np.prod(shape))
    with _lock:
        fitting = [b for b in _pool if b.size >= size]
        flat = min(fitting, key=lambda b: b.size) if fitting else None
        if flat is not None:  # by identity (list.remove would compare arrays)
            del _pool[next(i for i, b in enumerate(_pool) if b is flat)]
    warm = flat is not None
    if flat is None:
        flat = fresh_empty(size, populate=populate)
    with _lock:
        for key in [k for k, ref in _lent.items() if ref() is None]:
            del _lent[key]
        _lent[id(flat)] = weakref.ref(flat)
    return flat[:size].reshape(shape), warm


def give_back(array, max_bytes=None):
    """Return an array obtained from :func:`borrow` to the pool.

    Parameters
    ----------
    array : ndarray
        What :func:`borrow` returned (or any view of the same buffer); not to
        be used afterwards.
    max_bytes : int, optional
        Total the pool may keep; default :data:`POOL_SHARE` of the memory
        budget in force. Older buffers are dropped first to stay within it (a
        buffer larger than it alone is not kept).
    """
    base = array
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    limit = int(POOL_SHARE * budget()) if max_bytes is None else int(max_bytes)
    with _lock:
        ref = _lent.pop(id(base), None)
        flat = None if ref is None else ref()
        if flat is not base:
            return  # not from the pool (or given back twice): nothing to keep
        mark_written(flat)  # its rows are mapped now, or cost a fault once
        _pool.append(flat)
        while _pool and sum(b.nbytes for b in _pool) > limit:
            _pool.pop(0)


@contextmanager
def warm_array(shape, max_bytes=None):
    """``with warm_array(shape) as (array, warm):`` :func:`borrow` then :func:`give_back`.

    The array must not be used after the block (copy out what is kept).
    """
    array, warm = borrow(shape)
    try:
        yield array, warm
    finally:
        give_back(array, max_bytes)


def release():
    """Free every pooled buffer (those borrowed stay with their users)."""
    with _lock:
        _pool.clear()


def pooled_bytes():
    """Bytes kept by the pool now (not counting borrowed buffers).

    Returns
    -------
    int
    """
    with _lock:
        return int(sum(b.nbytes for b in _pool))
