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
  demand), never with transparent-huge-page advice (see its notes).

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

import mmap
import threading
import weakref
from contextlib import contextmanager

import numpy as np

from .._budget import budget

__all__ = ["borrow", "give_back", "warm_array", "release", "pooled_bytes", "fresh_empty",
           "RowPages", "POOL_SHARE", "MAPPED_MIN_BYTES"]

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
        if isinstance(flat.base, _Pages):
            flat.base.by_row = False  # written once: its rows are mapped or cost a fault
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


# numpy's switch of the madvise(MADV_HUGEPAGE) advice it gives large allocations
# (private: absent in other numpy versions, then nothing is switched)
_set_hugepage = getattr(getattr(getattr(np, "_core", None), "multiarray", None),
                        "_set_madvise_hugepage", None)
_advice_lock = threading.Lock()

#: Buffers of at least this many bytes get an anonymous mapping of their own
#: (populated at once, or page by page as rows are written); smaller ones come
#: from numpy's allocator, where a few faults cost nothing worth a system call.
MAPPED_MIN_BYTES = 1 << 22

# Linux's flag that maps every page of a new mapping at once (absent elsewhere:
# then numpy's allocator serves every buffer)
_MAP_POPULATE = getattr(mmap, "MAP_POPULATE", None)
_MAP_FLAGS = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0)
# madvise(MADV_POPULATE_WRITE): map (and zero) a range's pages in one call (Linux >= 5.14)
_MADV_POPULATE_WRITE = 23
# cleared at the kernel's first refusal
_by_row = {"works": _MAP_POPULATE is not None and hasattr(mmap.mmap, "madvise")}


class _Pages(mmap.mmap):
    """An anonymous private mapping under one array; unmapped when the last array
    on it is collected. ``by_row`` is true while its untouched pages are to be
    mapped row by row by their writer (:class:`RowPages`)."""

    by_row = False


def _mapped(shape, dtype, populate):
    """An array on a mapping of its own, or None if the system refuses one."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if _MAP_POPULATE is None or nbytes < max(MAPPED_MIN_BYTES, 1):
        return None
    try:
        pages = _Pages(-1, nbytes, flags=_MAP_FLAGS | (_MAP_POPULATE if populate else 0))
    except (OSError, ValueError, OverflowError, TypeError):
        return None  # e.g. no room for the mapping: numpy's allocator decides
    pages.by_row = not populate and _by_row["works"]
    return np.ndarray(shape, dtype, buffer=pages)


def fresh_empty(shape, dtype=np.float64, *, populate=False):
    """``np.empty(shape, dtype)`` on new memory whose pages cost no fault each.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : data-type, default=float64
    populate : bool, default=False
        Map every page now (for a writer of the whole array, as the mixed
        ridge's float32 matrix); False leaves them to be mapped as they are
        first written: row by row through :class:`RowPages` (a writer of some
        rows only, as SMO's rows on demand), else by a fault each.

    Returns
    -------
    ndarray of ``shape`` and ``dtype``, C-contiguous, writable, contents
    undefined. Its memory is freed when the array and its views are collected.

    Notes
    -----
    A first write to a page of new memory faults; on this project's machine (a
    virtual machine) the faults of a fresh 800 MB array, page by page, took
    0.9-1.2 s, while mapping all its pages in one call
    (``mmap(MAP_POPULATE)``) took 0.3-0.7 s, and 6.4 GB 5.5-11.7 s against
    2.4-4.5 s. So an array of at least :data:`MAPPED_MIN_BYTES` gets an
    anonymous mapping of its own, populated at once with ``populate=True``;
    otherwise (or when the system has no ``MAP_POPULATE`` or refuses the
    mapping) it is ``np.empty``. Either way no huge-page advice is given:
    numpy advises the kernel to back large arrays with transparent huge
    pages (``madvise(MADV_HUGEPAGE)``), and where THP runs in ``madvise``
    mode with ``defrag=madvise`` a fault on such memory may stall in direct
    compaction (a fresh 800 MB array took 0.9-4.5 s to fill with the advice).
    numpy's switch is process-wide, so it is turned off for its one
    allocation (under a lock) and restored at once. Only the allocation
    differs: the values written are the same.
    """
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
    dtype = np.dtype(dtype)
    array = _mapped(shape, dtype, populate)
    if array is not None:
        return array
    if _set_hugepage is None:
        return np.empty(shape, dtype)
    with _advice_lock:
        previous = _set_hugepage(False)
        try:
            return np.empty(shape, dtype)
        finally:
            _set_hugepage(previous)


def _pages_of(array):
    """(the mapping under ``array``, the address it starts at) or (None, 0)."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    if isinstance(root.base, _Pages):
        return root.base, root.ctypes.data
    return None, 0


class RowPages:
    """Maps the pages of rows of a 2-D array just before they are first written.

    For an array from :func:`fresh_empty` ``(populate=False)`` (or a row-wise
    slice of one), :meth:`map` ``(i)`` maps the pages of row i in one system
    call (``madvise(MADV_POPULATE_WRITE)``): on this project's machine rows on
    demand (4,228 rows of 80 KB of an 800 MB buffer) were written in 0.17 s
    instead of 0.34 s of page faults. On any other memory (numpy's, or a
    pooled buffer already written once, where the call would cost as much
    as it saves) it does nothing; a kernel without the call (before Linux
    5.14) refuses it once, and the pages then fault as they are written.

    Parameters
    ----------
    array : ndarray of shape (m, n)
        Rows C-contiguous (``array.strides[1] == itemsize``).
    """

    def __init__(self, array):
        self._pages, start = _pages_of(array)
        self._offset = array.ctypes.data - start if self._pages is not None else 0
        self._stride = array.strides[0]
        self._width = array.shape[1] * array.itemsize if array.ndim == 2 else 0

    @property
    def active(self):
        """Whether :meth:`map` maps pages (a fresh mapping, a kernel that can)."""
        return self._pages is not None and self._pages.by_row and _by_row["works"]

    def map(self, i):
        """Map the pages of row ``i`` (an int) now, before it is written."""
        if not self.active or not self._width:
            return
        start = self._offset + i * self._stride
        first = start - start % mmap.PAGESIZE
        try:
            self._pages.madvise(_MADV_POPULATE_WRITE, first, start + self._width - first)
        except (OSError, ValueError):
            _by_row["works"] = False  # the kernel cannot: pages fault as written

    def map_rows(self, rows):
        """Map the pages of each row in ``rows`` (ints)."""
        if self.active:
            for i in rows:
                self.map(int(i))


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
