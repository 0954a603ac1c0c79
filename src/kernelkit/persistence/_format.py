"""The model-file format: JSON encoding of parameters and attributes, the zip
layout, atomic writing and checked reading of members.

A model file is a zip archive (stored, not compressed) with ``metadata.json``
and one ``.npy`` member per fitted array. Reading takes JSON and raw numeric or
fixed-width unicode arrays only (``allow_pickle=False``) and compares each
array's dtype and shape with the metadata.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import stat
import struct
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..exceptions import ModelFormatError
from ..kernels import Kernel, kernel_from_dict

FORMAT_NAME = "kernelkit-model"
FORMAT_VERSION = 2  # the newest format this kernelkit reads and writes
METADATA = "metadata.json"
ARRAY_DTYPES = ("float64", "float32", "int64")
_MAX_METADATA_BYTES = 16 * 1024**2
# Training strings (X_fit_, support_vectors_ of string kernels): fixed-width unicode.
_STRING_DTYPE = re.compile(r"<U[1-9][0-9]{0,6}")
#: Deepest nesting of lists and dicts in metadata.json (nested kernel sums and
#: user metadata are far shallower); deeper files are refused before any
#: recursive code walks them.
MAX_JSON_DEPTH = 64
# An .npy member is its header (at most 64 KiB + the 10-byte preamble in format
# 1.0; padded to 64 bytes) followed by exactly the array's bytes.
_MAX_NPY_HEADER = 65536 + 16
# Everything that zipfile, struct or the codecs raise on a malformed archive
# (unsupported compression -> NotImplementedError, encryption -> RuntimeError).
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError,
                   RuntimeError, EOFError, OSError, ValueError, struct.error, OverflowError,
                   UnicodeDecodeError, IndexError, KeyError)


def dtype_name(arr):
    return arr.dtype.str if arr.dtype.kind == "U" else arr.dtype.name


def fail(path, msg):
    """Raise :class:`~kernelkit.ModelFormatError` naming the file."""
    raise ModelFormatError(f"{path}: {msg}")


# ---- writing ------------------------------------------------------------------------
def param_to_json(name, value):
    if isinstance(value, Kernel):
        try:
            return {"kernel": value.to_dict()}
        except TypeError as exc:
            raise ValueError(f"cannot save this model: {exc}") from None
    if isinstance(value, np.ndarray):
        return {"array": value.astype(np.float64).tolist()}
    if callable(value) and name.split("__")[-1] == "kernel":
        from ..kernels.callable import CALLABLE_NOT_STORED

        raise ValueError(f"cannot save this model: {CALLABLE_NOT_STORED}")
    if callable(value):
        raise ValueError(f"cannot save this model: parameter {name} is a Python callable "
                         f"({value!r}); model files hold data, never code. Use a built-in "
                         "choice, or keep the model in the running process")
    if isinstance(value, (list, tuple)):
        return {"list": [param_to_json(name, v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): param_to_json(name, v) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, str)):
        return {"value": value}
    if isinstance(value, (int, np.integer)):
        return {"value": int(value)}
    if isinstance(value, (float, np.floating)):
        if math.isinf(value):  # strict JSON has no Infinity: C=inf (the hard margin)
            return {"float": "inf" if value > 0 else "-inf"}
        if math.isnan(value):
            raise ValueError(f"cannot save parameter {name}=nan: model files hold no NaN")
        return {"value": float(value)}
    if getattr(value, "value_fn", None) is not None and name.split("__")[-1] == "loss":
        raise ValueError(f"cannot save this model: its loss {value!r} is user-defined (Python "
                         "callables); model files hold data, never code. Keep the model in "
                         "the running process, or refit it where the loss is defined")
    raise ValueError(f"cannot save parameter {name}={value!r} of type {type(value).__name__}")


def scalar_to_json(value):
    if isinstance(value, Kernel):
        return {"kernel": value.to_dict()}
    if isinstance(value, np.ndarray) and value.dtype.kind == "b":  # boolean classes_
        return {"booleans": value.tolist()}
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        raise ValueError("cannot save this model: it holds one array per output (a "
                         "multi-output classifier's classes_); model files hold "
                         "single-output models. Fit one model per output to save them")
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":  # numeric classes_
        return {"numbers": value.tolist()}
    if isinstance(value, np.ndarray):  # feature_names_in_, string classes_
        return {"strings": [str(v) for v in value]}
    if isinstance(value, (np.integer, np.floating)):
        return {"value": value.item()}
    return {"value": value}


def atomic_write(path, meta, arrays):
    """Write the archive to a temporary file beside ``path``, fsync, then rename.

    Errors name the user's path, never the temporary file.
    """
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise IsADirectoryError(21, f"{path} is a directory; give a file name such as "
                                    f"{path / 'model.kk'}", str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise type(exc)(exc.errno, f"cannot write the model file {path}: "
                                   f"{exc.strerror or exc}", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as zf:
                zf.writestr(METADATA, json.dumps(meta, indent=1, allow_nan=False))
                for attr, value in arrays.items():
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, value, allow_pickle=False)
                    zf.writestr(f"{attr}.npy", buf.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise type(exc)(exc.errno, f"cannot write the model file {path}: "
                                       f"{exc.strerror or exc}", str(path)) from None
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def check_json_depth(obj, where, limit=MAX_JSON_DEPTH):
    """Raise ValueError if lists/dicts in ``obj`` nest deeper than ``limit`` (iterative)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth > limit:
            raise ValueError(f"{where} nests deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children)


# ---- reading ------------------------------------------------------------------------
@contextlib.contextmanager
def open_model_file(path):
    """Open ``path`` as a model archive: a regular file, a zip of distinct, stored,
    unencrypted members. Yields ``(zipfile, file_size)``; every archive error is
    a ModelFormatError naming the file.

    The file is opened without blocking (a named pipe would otherwise wait for a
    writer forever) and checked with ``fstat`` on the open descriptor, so a
    device such as ``/dev/zero`` or a pipe is refused before anything is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileNotFoundError(2, f"no model file at {path}", str(path)) from None
    except IsADirectoryError:
        fail(path, "is a directory, not a model file")
    except OSError as exc:
        fail(path, f"cannot be opened ({exc.strerror or exc})")
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            fail(path, "is a directory, not a model file")
        if not stat.S_ISREG(st.st_mode):
            fail(path, "is not a regular file (a device, pipe or socket); model files are "
                       "regular files written by kernelkit.save")
        fh = os.fdopen(fd, "rb")
        fd = None
    finally:
        if fd is not None:
            os.close(fd)
    with fh:
        try:
            with zipfile.ZipFile(fh) as zf:
                infos = zf.infolist()
                names = [i.filename for i in infos]
                if len(set(names)) != len(names):
                    dup = sorted({n for n in names if names.count(n) > 1})
                    fail(path, f"member names appear more than once {dup}: a file written "
                               "by kernelkit has each member once")
                for info in infos:
                    if info.flag_bits & 0x1:
                        fail(path, f"member {info.filename} is encrypted")
                    if info.compress_type != zipfile.ZIP_STORED:
                        fail(path, f"member {info.filename} is compressed (method "
                                   f"{info.compress_type}); kernelkit writes stored members only")
                    if info.file_size > st.st_size or info.compress_size > st.st_size:
                        fail(path, f"member {info.filename} claims {info.file_size} bytes in a "
                                   f"file of {st.st_size}")
                yield zf, st.st_size
        except ModelFormatError:
            raise
        except _ARCHIVE_ERRORS as exc:
            fail(path, f"not a kernelkit model file, or truncated or corrupt ({exc})")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} overflows to infinity")
    return value


def _no_constants(name):
    raise ValueError(f"{name} is not allowed (strict JSON has no NaN or Infinity)")


def strict_json(raw, where):
    """Parse UTF-8 JSON bytes strictly: no NaN/Infinity, finite numbers, bounded depth."""
    try:
        obj = json.loads(raw.decode("utf-8"), parse_constant=_no_constants,
                         parse_float=_finite_float)
        check_json_depth(obj, where)
    except RecursionError:
        raise ValueError(f"{where} nests too deeply") from None
    return obj


def param_from_json(path, obj):
    if not isinstance(obj, dict) or len(obj) != 1:
        fail(path, f"malformed parameter {obj!r}")
    (tag, value), = obj.items()
    try:
        if tag == "kernel":
            return kernel_from_dict(value)
        if tag == "array":
            if not isinstance(value, list):
                raise ValueError("array must be a list of numbers")
            arr = np.asarray(value, dtype=np.float64)
            if not np.isfinite(arr).all():
                raise ValueError("array holds non-finite numbers")
            return arr
        if tag == "float":
            if value not in ("inf", "-inf"):
                raise ValueError('a "float" parameter is "inf" or "-inf"')
            return float(value)
        if tag == "list" and isinstance(value, list):
            return [param_from_json(path, v) for v in value]
        if tag == "dict" and isinstance(value, dict):
            return {k: param_from_json(path, v) for k, v in value.items()}
        if tag == "strings" and isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise ValueError("strings must be a list of str")
            return np.asarray(value, dtype=object)
        if tag == "booleans" and isinstance(value, list):
            if not all(isinstance(v, bool) for v in value):
                raise ValueError("booleans must be a flat list of true/false")
            return np.asarray(value, dtype=bool)
        if tag == "numbers" and isinstance(value, list):
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
                raise ValueError("numbers must be a flat list of numbers")
            arr = np.asarray(value)
            if arr.ndim != 1 or arr.dtype.kind not in "iuf" or not np.isfinite(arr).all():
                raise ValueError("numbers must be a flat list of finite numbers")
            return arr
        if tag == "value":
            if value is None or isinstance(value, (bool, int, str)):
                return value
            if isinstance(value, float) and math.isfinite(value):
                return value
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError) as exc:
        fail(path, f"invalid parameter: {exc}")
    fail(path, f"malformed parameter {obj!r}")


def read_metadata_member(path, zf):
    try:
        raw = zf.read(METADATA) if zf.getinfo(METADATA).file_size <= _MAX_METADATA_BYTES \
            else None
    except KeyError:
        fail(path, "no metadata.json: not a kernelkit model file")
    if raw is None:
        fail(path, "metadata.json is implausibly large")
    try:
        meta = strict_json(raw, "metadata.json")
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        fail(path, f"metadata.json is not valid strict JSON ({exc})")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        fail(path, "not a kernelkit model file (format name missing or different)")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        fail(path, f"invalid format_version {version!r} (model formats start at 1)")
    if version > FORMAT_VERSION:
        fail(path, f"written in model format {version} by kernelkit "
                    f"{meta.get('kernelkit_version')}, newer than this kernelkit reads "
                    f"(format {FORMAT_VERSION}); upgrade kernelkit")
    for key, kind in (("estimator", str), ("params", dict), ("attributes", dict),
                      ("arrays", dict)):
        if not isinstance(meta.get(key), kind):
            fail(path, f"metadata field {key!r} is missing or of the wrong type")
    return meta


def declared_nbytes(path, attr, spec):
    """Bytes of the array that the metadata describes, checked before anything is read."""
    dtype = spec.get("dtype") if isinstance(spec, dict) else None
    shape = spec.get("shape") if isinstance(spec, dict) else None
    if not isinstance(dtype, str) or not (dtype in ARRAY_DTYPES or
                                          _STRING_DTYPE.fullmatch(dtype)) or \
            not isinstance(shape, list) or len(shape) > 8 or not all(
                isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in shape):
        fail(path, f"array {attr}: malformed description {spec!r}")
    return math.prod(shape) * np.dtype(dtype).itemsize


def read_array(path, zf, attr, spec):
    """One ``.npy`` member, its size and header compared with the metadata before
    its data is read (so a member cannot make the reader allocate more than the
    metadata declares, and the metadata cannot declare more than the file holds)."""
    nbytes = declared_nbytes(path, attr, spec)
    dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
    member = f"{attr}.npy"
    try:
        info = zf.getinfo(member)
    except KeyError:
        fail(path, f"array {attr} is missing from the file")
    if not nbytes < info.file_size <= nbytes + _MAX_NPY_HEADER:
        fail(path, f"array {attr}: member of {info.file_size} bytes cannot hold the "
                   f"{spec['dtype']} array of shape {shape} that the metadata declares")
    try:
        with zf.open(member) as fh:
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(fh, max_header_size=_MAX_NPY_HEADER)
            elif version == (2, 0):
                header = np.lib.format.read_array_header_2_0(fh, max_header_size=_MAX_NPY_HEADER)
            else:
                raise ValueError(f"npy format version {version} is not one kernelkit writes")
            got_shape, fortran, got_dtype = header
            if got_dtype.hasobject:
                raise ValueError("object arrays are never read")
            if tuple(got_shape) != shape or got_dtype != dtype:
                fail(path, f"array {attr} has dtype {got_dtype} and shape {tuple(got_shape)}, "
                           f"but the metadata says {spec['dtype']} {shape}")
            data = fh.read(nbytes + 1)  # zipfile checks the CRC at the end of the member
            if len(data) != nbytes:
                raise ValueError(f"{len(data)} data bytes where the header declares {nbytes}")
        arr = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        arr = np.array(arr, order="K")  # writeable, owns its memory, keeps the memory order
        # (a product with a Fortran-ordered matrix rounds differently than with its C copy)
    except ModelFormatError:
        raise
    except _ARCHIVE_ERRORS as exc:
        fail(path, f"array {attr} is corrupt ({exc})")
    if arr.dtype.kind != "U" and not np.isfinite(arr).all():
        fail(path, f"array {attr} contains NaN or infinity")
    return arr


# ---- sparse rows (support vectors, X_fit_, centers of sparse training data) ----------
#: Attributes that may hold scipy.sparse CSR rows: the training inputs a model keeps.
SPARSE_ATTRS = ("X_fit_", "support_vectors_", "centers_", "components_")
SPARSE_PARTS = ("data", "indices", "indptr")
# Column counts above this cannot index an int64 CSR (and no real data has them).
_MAX_SPARSE_COLUMNS = 2 ** 62


def sparse_to_arrays(attr, value):
    """A scipy.sparse attribute as its metadata spec and three arrays (CSR).

    Stored as ``data`` (float64), ``indices`` and ``indptr`` (int64) plus the
    shape; canonical (sorted unique indices) so the reader can insist on it.
    """
    import scipy.sparse as sp

    if attr not in SPARSE_ATTRS:
        raise ValueError(f"cannot save {attr}: a sparse matrix is only stored for the "
                         f"training rows ({', '.join(SPARSE_ATTRS)})")
    A = value.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    parts = {"data": np.ascontiguousarray(A.data, dtype=np.float64),
             "indices": np.ascontiguousarray(A.indices, dtype=np.int64),
             "indptr": np.ascontiguousarray(A.indptr, dtype=np.int64)}
    spec = {"sparse": "csr", "array": isinstance(value, sp.sparray),
            "shape": [int(A.shape[0]), int(A.shape[1])],
            "parts": {k: {"dtype": dtype_name(v), "shape": list(v.shape)}
                      for k, v in parts.items()}}
    return spec, parts


def sparse_part_specs(path, attr, spec):
    """The three member specs of a sparse attribute, its description checked first.

    Every size is declared (and so counted against the file size) before any
    member is read: ``data`` and ``indices`` (nnz,), ``indptr`` (n + 1,).
    """
    name = attr.rsplit("/", 1)[-1]
    if name not in SPARSE_ATTRS:
        fail(path, f"array {attr}: only {', '.join(SPARSE_ATTRS)} may be sparse")
    shape, parts = spec.get("shape"), spec.get("parts")
    if set(spec) != {"sparse", "array", "shape", "parts"} or spec["sparse"] != "csr" or \
            not isinstance(spec["array"], bool) or not isinstance(shape, list) or \
            len(shape) != 2 or not all(isinstance(k, int) and not isinstance(k, bool)
                                       and 0 <= k < _MAX_SPARSE_COLUMNS for k in shape) or \
            not isinstance(parts, dict) or set(parts) != set(SPARSE_PARTS):
        fail(path, f"array {attr}: malformed sparse description {spec!r}")
    expected_dtypes = {"data": "float64", "indices": "int64", "indptr": "int64"}
    for part, sub in parts.items():
        declared_nbytes(path, f"{attr}.{part}", sub)  # well-formed
        if sub["dtype"] != expected_dtypes[part] or len(sub["shape"]) != 1:
            fail(path, f"array {attr}.{part}: expected a 1-D {expected_dtypes[part]} array, "
                       f"got {sub!r}")
    if parts["data"]["shape"] != parts["indices"]["shape"]:
        fail(path, f"array {attr}: data and indices differ in length")
    if parts["indptr"]["shape"] != [shape[0] + 1]:
        fail(path, f"array {attr}: indptr has shape {parts['indptr']['shape']}, expected "
                   f"[{shape[0] + 1}] for {shape[0]} rows")
    return parts


def build_csr(path, attr, spec, parts):
    """The CSR matrix of checked parts: indptr from 0 to nnz and monotone, column
    indices in range and strictly increasing within each row (canonical)."""
    import scipy.sparse as sp

    data, indices, indptr = parts["data"], parts["indices"], parts["indptr"]
    n, d = spec["shape"]
    nnz = data.shape[0]
    if indptr[0] != 0 or indptr[-1] != nnz or (np.diff(indptr) < 0).any():
        fail(path, f"array {attr}: indptr must rise monotonically from 0 to {nnz}")
    if nnz and (indices.min() < 0 or indices.max() >= d):
        fail(path, f"array {attr}: column indices outside [0, {d})")
    if nnz > 1:
        steps = np.diff(indices)
        row_start = np.zeros(nnz, dtype=bool)
        row_start[indptr[1:-1][indptr[1:-1] < nnz]] = True
        if (steps[~row_start[1:]] <= 0).any():
            fail(path, f"array {attr}: column indices must increase strictly within each row")
    cls = sp.csr_array if spec["array"] else sp.csr_matrix
    A = cls((data, indices.astype(np.int64), indptr.astype(np.int64)), shape=(n, d))
    A.has_sorted_indices = True
    return A
