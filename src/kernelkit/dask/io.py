"""Out-of-core inputs: a ``.npy`` file read one row range per task.

``dask.array.from_array`` on a ``numpy.memmap`` would put the memmap object
itself into the graph (pickled with its data when sent to a worker); here
each task opens the file, reads its rows and closes it, so a task is a pure
function of (path, row range) that any worker can recompute. zarr stores are
read by ``dask.array.from_zarr`` and parquet by ``dask.dataframe.read_parquet``
(with pyarrow): both already read one piece per task.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["from_npy", "read_npy_rows"]


def read_npy_rows(path, r0, r1):
    """Rows ``r0:r1`` of the ``.npy`` file at ``path`` (a fresh in-memory array)."""
    mm = np.load(path, mmap_mode="r")
    try:
        return np.array(mm[r0:r1])
    finally:
        del mm


def npy_shape(path):
    """(shape, dtype) of a ``.npy`` file from its header, checked against the file's size.

    Reads the header only (never pickled data): a file that is not ``.npy``, holds
    objects, or is shorter than its header declares gets a ValueError that says so.
    """
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
            shape, _, dtype = read(fh)
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
    return shape, dtype


def from_npy(path, chunk_rows):
    """A ``.npy`` file as a dask array chunked by rows, one read task per chunk.

    Parameters
    ----------
    path : str or path-like
        A ``.npy`` file (1-D or 2-D, C order), e.g. written by ``numpy.save``
        or ``numpy.lib.format.open_memmap``.
    chunk_rows : int
        Rows per chunk (and per task).

    Returns
    -------
    dask.array.Array
    """
    import dask.array as da
    from dask import delayed

    path = os.fspath(os.path.abspath(path))
    shape, dtype = npy_shape(path)
    if len(shape) not in (1, 2):
        raise ValueError(f"{path} holds a {len(shape)}-D array; expected 1-D or 2-D")
    chunk_rows = int(chunk_rows)
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1, got {chunk_rows}")
    read = delayed(read_npy_rows, pure=True)
    parts = [da.from_delayed(read(path, r0, min(shape[0], r0 + chunk_rows)),
                             (min(shape[0], r0 + chunk_rows) - r0,) + shape[1:], dtype=dtype)
             for r0 in range(0, shape[0], chunk_rows)]
    return da.concatenate(parts, axis=0)
