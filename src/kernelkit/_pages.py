"""New memory whose pages cost no fault each: :func:`fresh_empty`, :class:`RowPages`.

A first write to a page of new memory faults. For the big buffers of a fit (a
stored Gram matrix, Falkon's K_nM, SMO's rows on demand, the mixed ridge's
float32 matrix) those faults cost as much as filling the buffer, so such a
buffer gets an anonymous mapping of its own, with all its pages mapped in one
call (``populate=True``) or row by row just before each row is first written
(:class:`RowPages`), and never numpy's transparent-huge-page advice (whose
faults may stall in memory compaction). Ground floor: it imports only numpy
and the standard library, so the Gram operator and the solvers both use it.
"""

from __future__ import annotations

import mmap
import threading

import numpy as np

__all__ = ["MAPPED_MIN_BYTES", "RowPages", "fresh_empty", "mark_written"]


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


def mark_written(array):
    """Say that every page under ``array`` (from :func:`fresh_empty`) has been written:
    :class:`RowPages` then maps nothing more there (a reused buffer's pages are mapped
    already, and a call per row would cost as much as it saves)."""
    pages, _ = _pages_of(array)
    if pages is not None:
        pages.by_row = False


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
