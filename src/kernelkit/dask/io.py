"""Out-of-core inputs: a ``.npy`` file (or a ``numpy.memmap``) read one row range per task.

``dask.array.from_array`` on a ``numpy.memmap`` would put the array itself into
the graph (pickled with its data when sent to the scheduler and the workers:
the whole file through the network); here the graph holds the file's path, its
byte layout and a row range per task, and each task reads its rows into a fresh
array (``numpy.fromfile`` from the right offset: the file's pages are not mapped
into the worker, so its memory holds the chunk only), so a task is a pure
function of (path, row range) that any worker can recompute. zarr stores are
read by ``dask.array.from_zarr`` and parquet by ``dask.dataframe.read_parquet``
(with pyarrow): both already read one piece per task.

Rows per chunk, when not given, come from the workers' memory
(:func:`auto_chunk_rows`): a chunk takes a small share of the room one task has
below the worker's pause threshold, so the workers' memory does not grow with
the number of rows.
"""

from __future__ import annotations

import mmap
import os

import numpy as np

__all__ = ["auto_chunk_rows", "from_memmap", "from_npy", "read_npy_rows"]

#: Largest chunk (bytes) :func:`auto_chunk_rows` picks: big enough that the
#: scheduler's cost per task (about a millisecond) is small against reading and
#: computing the chunk, small enough to leave room in a 1 GB worker.
CHUNK_BYTES = 32 * 2**20
#: Share of one task's room (below the worker's pause threshold) a chunk may take:
#: the task holds its chunk, the chunk a worker reads ahead, float64 copies of the
#: rows it works on and its own blocks.
CHUNK_SHARE = 8
#: Chunks per worker thread at least (so that the threads finish together).
CHUNKS_PER_THREAD = 4


def _layout(path):
    """(shape, dtype, fortran_order, data offset) of a ``.npy`` file, checked."""
    fmt = np.lib.format
    with open(path, "rb") as fh:
        try:
            version = fmt.read_magic(fh)
        except ValueError:
            raise ValueError(f"{path} is not a .npy file (it does not start with numpy's "
                             "magic string); write it with numpy.save, or read the text or "
                             "other format into an array first") from None
        try:
            read = fmt.read_array_header_1_0 if version == (1, 0) else \
                fmt.read_array_header_2_0
            shape, fortran, dtype = read(fh)
        except ValueError as exc:
            raise ValueError(f"{path}: the .npy header cannot be read ({exc})") from None
        offset = fh.tell()
    if dtype.hasobject:
        raise ValueError(f"{path} holds Python objects (dtype {dtype}); kernelkit reads "
                         "numeric .npy files only")
    need = offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    have = os.path.getsize(path)
    if have < need:
        raise ValueError(f"{path} is truncated: its header declares a {dtype} array of shape "
                         f"{shape} ({need} bytes with the header) but the file has {have}")
    return shape, dtype, bool(fortran), offset


def npy_shape(path):
    """(shape, dtype) of a ``.npy`` file from its header, checked against the file's size.

    Reads the header only (never pickled data): a file that is not ``.npy``, holds
    objects, or is shorter than its header declares gets a ValueError that says so.
    """
    shape, dtype, _, _ = _layout(path)
    return shape, dtype


def read_strided_rows(path, offset, dtype, shape, strides, r0, r1):
    """Rows ``r0:r1`` of the array laid out in file ``path`` at byte ``offset`` with
    ``shape`` and byte ``strides`` (non-negative), as a fresh C-ordered array."""
    dtype = np.dtype(dtype)
    rows = r1 - r0
    row_shape = tuple(shape[1:])
    width = int(np.prod(row_shape, dtype=np.int64))
    contiguous = (len(shape) == 1 and strides[0] == dtype.itemsize) or (
        len(shape) == 2 and strides[1] == dtype.itemsize and strides[0] == width * dtype.itemsize)
    start = offset + r0 * strides[0]
    if contiguous or rows == 0:  # one read of the bytes, no mapping kept
        with open(path, "rb") as fh:
            fh.seek(start)
            out = np.fromfile(fh, dtype=dtype, count=rows * width)
        if out.size != rows * width:
            raise ValueError(f"{path} ended before rows {r0}:{r1} (file changed or truncated)")
        return out.reshape((rows,) + row_shape)
    # strided (a column selection, Fortran order): map the span, copy the rows, unmap
    span = (rows - 1) * strides[0] + sum((n - 1) * s for n, s in zip(row_shape, strides[1:]))
    span += dtype.itemsize
    base = start - start % mmap.ALLOCATIONGRANULARITY
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), start - base + span, offset=base,
                                           access=mmap.ACCESS_READ) as mm:
        view = np.ndarray((rows,) + row_shape, dtype=dtype, buffer=mm, offset=start - base,
                          strides=tuple(strides))
        out = np.array(view, order="C")
        del view
    return out


def read_npy_rows(path, r0, r1):
    """Rows ``r0:r1`` of the ``.npy`` file at ``path`` (a fresh in-memory array)."""
    shape, dtype, fortran, offset = _layout(path)
    return read_strided_rows(path, offset, dtype, shape, _strides(shape, dtype, fortran),
                             r0, r1)


def _strides(shape, dtype, fortran):
    itemsize = np.dtype(dtype).itemsize
    if len(shape) == 1:
        return (itemsize,)
    if fortran:
        return (itemsize, shape[0] * itemsize)
    return (shape[1] * itemsize, itemsize)


def auto_chunk_rows(n_rows, row_bytes, client=None):
    """Rows per chunk from the workers' memory.

    A chunk takes at most ``1 / CHUNK_SHARE`` of the room one task has on the
    tightest worker (its memory limit times the pause fraction, less what the
    worker holds, shared by its threads), at most :data:`CHUNK_BYTES`, and there
    are at least :data:`CHUNKS_PER_THREAD` chunks per worker thread. Without a
    distributed client (or workers without a memory limit): kernelkit's memory
    budget in place of the room.

    Parameters
    ----------
    n_rows : int
    row_bytes : int
        Bytes of one row.
    client : distributed.Client, optional
        Default: the default client if there is one.

    Returns
    -------
    int
        At least 1.
    """
    from .._budget import budget
    from ._workers import resolve_client, room_report

    client = resolve_client(client)
    room, threads = budget(), os.cpu_count() or 1
    if client is not None:
        try:
            rooms = [r for r in client.run(room_report).values() if r is not None]
        except Exception:  # noqa: BLE001 - workers that cannot answer: the budget
            rooms = []
        if rooms:
            room = max(1, min(r[-1] for r in rooms))
            threads = sum(r[3] for r in rooms)
    target = min(CHUNK_BYTES, room // CHUNK_SHARE)
    rows = max(1, target // max(1, int(row_bytes)))
    balanced = -(-int(n_rows) // (CHUNKS_PER_THREAD * max(1, threads)))
    return int(max(1, min(rows, balanced)))


def _from_layout(path, offset, dtype, shape, strides, chunk_rows, client=None):
    import dask.array as da
    from dask import delayed

    if chunk_rows is None or (isinstance(chunk_rows, str) and chunk_rows == "auto"):
        row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * np.dtype(dtype).itemsize
        chunk_rows = auto_chunk_rows(shape[0], row_bytes, client)
    chunk_rows = int(chunk_rows)
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1, got {chunk_rows}")
    read = delayed(read_strided_rows, pure=True)
    parts = [da.from_delayed(read(path, offset, np.dtype(dtype).str, tuple(shape),
                                  tuple(strides), r0, min(shape[0], r0 + chunk_rows)),
                             (min(shape[0], r0 + chunk_rows) - r0,) + tuple(shape[1:]),
                             dtype=dtype)
             for r0 in range(0, shape[0], chunk_rows)]
    if not parts:
        return da.zeros((0,) + tuple(shape[1:]), dtype=dtype)
    return da.concatenate(parts, axis=0)


def from_npy(path, chunk_rows="auto", *, client=None):
    """A ``.npy`` file as a dask array chunked by rows, one read task per chunk.

    Parameters
    ----------
    path : str or path-like
        A ``.npy`` file (1-D or 2-D, C or Fortran order), e.g. written by
        ``numpy.save`` or ``numpy.lib.format.open_memmap``.
    chunk_rows : int or "auto", default="auto"
        Rows per chunk (and per task); ``"auto"``: from the workers' memory
        (:func:`auto_chunk_rows`, at most 32 MiB a chunk).
    client : distributed.Client, optional
        Whose workers' memory ``"auto"`` reads (default: the default client;
        none: kernelkit's memory budget).

    Returns
    -------
    dask.array.Array
        Its graph holds the path and row ranges, never the data.
    """
    path = os.fspath(os.path.abspath(path))
    shape, dtype, fortran, offset = _layout(path)
    if len(shape) not in (1, 2):
        raise ValueError(f"{path} holds a {len(shape)}-D array; expected 1-D or 2-D")
    return _from_layout(path, offset, dtype, shape, _strides(shape, dtype, fortran),
                        chunk_rows, client)


def memmap_layout(X):
    """``(path, byte offset, strides)`` of a file-backed ``numpy.memmap`` (or a view of
    one) whose file holds its current values; None when it has no file, is
    copy-on-write (mode "c": changes that are not in the file) or has negative strides."""
    mm = getattr(X, "_mmap", None)
    path = getattr(X, "filename", None)
    if not isinstance(X, np.memmap) or mm is None or not path or X.ndim not in (1, 2):
        return None
    if getattr(X, "mode", "r") == "c" or any(s < 0 for s in X.strides) or X.size == 0:
        return None
    try:
        base_address = np.frombuffer(mm, dtype=np.uint8).ctypes.data
    except (ValueError, TypeError, BufferError):  # a closed map
        return None
    map_start = X.offset - X.offset % mmap.ALLOCATIONGRANULARITY
    offset = map_start + (X.ctypes.data - base_address)
    if X.mode in ("r+", "w+"):
        X.flush()
    return path, int(offset), tuple(int(s) for s in X.strides)


def from_memmap(X, chunk_rows="auto", *, client=None):
    """A file-backed ``numpy.memmap`` (e.g. ``numpy.load(path, mmap_mode="r")``, or a
    slice of one) as a dask array whose tasks read their rows from the file.

    Parameters
    ----------
    X : numpy.memmap of 1 or 2 dimensions
    chunk_rows : int or "auto", default="auto"
        As in :func:`from_npy`.
    client : distributed.Client, optional
        As in :func:`from_npy`.

    Returns
    -------
    dask.array.Array

    Raises
    ------
    ValueError
        If ``X`` is not backed by a file whose bytes are its values (see
        :func:`memmap_layout`); wrap it with ``dask.array.from_array`` instead.
    """
    layout = memmap_layout(X)
    if layout is None:
        raise ValueError("X is not a file-backed numpy.memmap of 1 or 2 dimensions with "
                         "non-negative strides opened in mode 'r', 'r+' or 'w+'; wrap it with "
                         "dask.array.from_array (its values then travel in the graph)")
    path, offset, strides = layout
    return _from_layout(os.fspath(os.path.abspath(path)), offset, X.dtype, X.shape, strides,
                        chunk_rows, client)
