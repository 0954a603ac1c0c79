"""New memory whose pages cost no fault each: :func:`fresh_empty`, :class:`RowPages`,
:class:`RowsAhead`.

A first write to a page of new memory faults. For the big buffers of a fit (a
stored Gram matrix, Falkon's K_nM, SMO's rows on demand, the mixed ridge's
float32 matrix) those faults cost as much as filling the buffer, so such a
buffer gets an anonymous mapping of its own, with all its pages mapped in one
call (``populate=True``) or row by row just before each row is first written
(:class:`RowPages`) -- for rows written in order, on a second thread ahead of
their writer (:class:`RowsAhead`) --, and never numpy's transparent-huge-page
advice (whose faults may stall in memory compaction). Ground floor: it imports only numpy
and the standard library, so the Gram operator and the solvers both use it.
"""

from __future__ import annotations

import ctypes
import mmap
import threading

import numpy as np

__all__ = ["AHEAD_BYTES", "MAPPED_MIN_BYTES", "RowPages", "RowsAhead", "can_map_ahead",
           "fresh_empty", "mark_written"]


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


def _load_madvise():
    """libc's ``madvise`` through ctypes, or None where there is none.

    ctypes releases the GIL during the call (the mmap module's ``madvise`` holds
    it), so a second thread can map pages while the writer's thread runs Python."""
    try:
        call = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError, TypeError):
        return None
    call.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    call.restype = ctypes.c_int
    return call


_madvise = _load_madvise() if _MAP_POPULATE is not None else None


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


def can_map_ahead():
    """Whether this system can map a new buffer's pages on a second thread
    (:class:`RowsAhead`): anonymous mappings, libc's ``madvise`` through ctypes and
    ``MADV_POPULATE_WRITE`` (Linux >= 5.14), tried once on a page of its own.

    Returns
    -------
    bool
    """
    if _madvise is None or not _by_row["works"]:
        return False
    if "ahead" not in _by_row:
        _by_row["ahead"] = _try_populate_write()
    return _by_row["ahead"]


def _try_populate_write():
    """Whether the kernel maps a page by ``madvise(MADV_POPULATE_WRITE)`` through ctypes."""
    try:
        pages = mmap.mmap(-1, mmap.PAGESIZE, flags=_MAP_FLAGS)
    except (OSError, ValueError, TypeError):
        return False
    view = np.frombuffer(pages, dtype=np.uint8)
    try:
        return _madvise(view.ctypes.data, mmap.PAGESIZE, _MADV_POPULATE_WRITE) == 0
    finally:
        del view
        pages.close()


#: :class:`RowsAhead` keeps the rows up to this many bytes beyond the row being
#: written mapped (64 MiB: 838 rows of adult's 10,000 x 10,000 Gram matrix; 32 to
#: 200 MiB took the same time on this project's machine with its second core idle) ...
AHEAD_BYTES = 64 << 20
#: ... in calls of this many bytes (8 MiB: about 100 rows of adult's, so the thread
#: wakes, and takes the GIL for a moment, once per 100 rows).
CHUNK_BYTES = 8 << 20


class RowsAhead:
    """Maps, on a second thread, the pages of the rows a writer will write next.

    For a row store filled in order (row ``first_row``, then the next, ...) on an
    array from :func:`fresh_empty` ``(populate=False)``, as SMO's rows on demand
    stored in the order first asked. While the writer computes its rows, a thread
    maps the pages of the rows after the one being written, up to
    :data:`AHEAD_BYTES` beyond it, by ``madvise(MADV_POPULATE_WRITE)`` in calls of
    :data:`CHUNK_BYTES` (through ctypes, which releases the GIL), each call as
    soon as a whole chunk is due (it wakes once per chunk, not per row). The
    writer calls :meth:`writing` ``(k)`` before writing row k: True when the
    thread has mapped it already; otherwise it maps the row itself
    (:meth:`RowPages.map`), as without the thread. So on a machine with a core
    to spare the writer never waits for a page of new memory, and only the rows
    written (and at most :data:`AHEAD_BYTES` more) ever get pages.

    The values are never touched: ``MADV_POPULATE_WRITE`` maps (zeroed) pages
    that are missing and leaves mapped ones as they are, so a page the writer
    wrote first keeps what it wrote.

    Use it as a context manager: the thread starts on entry and is stopped and
    joined on exit, also when the block raises. On any other memory (numpy's, a
    pooled buffer written once), without ``madvise`` or where the kernel refuses
    it, no thread is started and :meth:`writing` says False.

    Parameters
    ----------
    array : ndarray of shape (m, n)
        Rows C-contiguous (``array.strides[1] == itemsize``).
    first_row : int, default=0
        The next row to be written (the rows before it are written already).
    ahead_bytes, chunk_bytes : int, optional
        Default :data:`AHEAD_BYTES` and :data:`CHUNK_BYTES`.

    Attributes
    ----------
    mapped : int
        The rows before this one are mapped (by the thread, or were written).
    error : int or None
        The ``errno`` of a refused call (the thread then stopped), else None.
    start_error : RuntimeError or None
        Why the thread could not start (``can't start new thread`` where the
        process's threads are limited: ``pids.max``, ``ulimit -u``); the writer
        then maps its own rows, as without the thread. None otherwise.
    """

    def __init__(self, array, first_row=0, ahead_bytes=None, chunk_bytes=None):
        pages, _ = _pages_of(array)
        rows_ok = (array.ndim == 2 and array.size > 0
                   and array.strides[1] == array.itemsize and array.strides[0] > 0)
        self.enabled = (pages is not None and pages.by_row and can_map_ahead() and rows_ok)
        self._pages = pages  # keeps the mapping alive while the thread maps it
        self._address = array.ctypes.data
        self._stride = array.strides[0] if rows_ok else 1
        self._width = array.shape[1] * array.itemsize if rows_ok else 0
        self._rows = array.shape[0] if array.ndim else 0
        ahead = AHEAD_BYTES if ahead_bytes is None else int(ahead_bytes)
        chunk = CHUNK_BYTES if chunk_bytes is None else int(chunk_bytes)
        self._ahead = max(1, ahead // self._stride)
        self._chunk = min(self._ahead, max(1, chunk // self._stride))
        self.mapped = int(first_row)
        self._target = min(self._rows, self.mapped + self._ahead)
        self._cond = threading.Condition()
        self._stopping = False
        self._waiting = False
        self._thread = None
        self.error = None
        self.start_error = None

    def __enter__(self):
        if self.enabled and self.mapped < self._rows:
            thread = threading.Thread(target=self._run, name="kernelkit-rows-ahead",
                                      daemon=True)
            try:
                thread.start()
            except RuntimeError as exc:  # no thread to spare: a fit must not fail for it
                self.start_error = exc
            else:
                self._thread = thread
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def running(self):
        """Whether the thread runs (between entry and :meth:`stop`)."""
        return self._thread is not None

    def writing(self, k):
        """Say that row ``k`` is written next; True if its pages are mapped already.

        Parameters
        ----------
        k : int

        Returns
        -------
        bool
            False: the caller maps the row itself before writing it.
        """
        if self._thread is None:
            return False
        target = min(self._rows, k + 1 + self._ahead)
        with self._cond:
            if target > self._target:
                self._target = target
                if self._waiting and self._due():
                    self._cond.notify()
        return k < self.mapped

    def _due(self):
        """Whether the thread has work: a whole chunk of rows before the target, or
        the last rows of the array (a call per chunk, not per row)."""
        left = self._target - self.mapped
        return left >= self._chunk or (left > 0 and self._target == self._rows)

    def stop(self):
        """Stop the thread and wait for it (its current call maps at most
        :data:`CHUNK_BYTES`). Safe to call more than once."""
        thread = self._thread
        if thread is None:
            return
        with self._cond:
            self._stopping = True
            self._cond.notify()
        thread.join()
        self._thread = None

    def _run(self):
        page = mmap.PAGESIZE
        while True:
            with self._cond:
                while not self._stopping and not self._due():
                    self._waiting = True
                    self._cond.wait()
                self._waiting = False
                if self._stopping:
                    return
                lo = self.mapped
                hi = min(self._target, lo + self._chunk)
            start = self._address + lo * self._stride
            start -= start % page
            end = self._address + (hi - 1) * self._stride + self._width
            if _madvise(start, end - start, _MADV_POPULATE_WRITE) != 0:
                self.error = ctypes.get_errno()  # the writer maps its rows itself
                return
            self.mapped = hi
