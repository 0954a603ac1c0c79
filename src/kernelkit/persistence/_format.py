"""The model-file format: JSON encoding of parameters and attributes, the zip
layout, atomic writing and checked reading of members.

A model file is a zip archive (stored, not compressed) with ``metadata.json``
and one ``.npy`` member per fitted array. Reading takes JSON and raw numeric or
fixed-width unicode arrays only (``allow_pickle=False``) and compares each
array's dtype and shape with the metadata.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..exceptions import ModelFormatError
from ..kernels import Kernel, kernel_from_dict

FORMAT_NAME = "kernelkit-model"
FORMAT_VERSION = 1
METADATA = "metadata.json"
ARRAY_DTYPES = ("float64", "float32", "int64")
_MAX_METADATA_BYTES = 16 * 1024**2
# Training strings (X_fit_, support_vectors_ of string kernels): fixed-width unicode.
_STRING_DTYPE = re.compile(r"<U[1-9][0-9]{0,6}")


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
        return {"value": float(value)}
    raise ValueError(f"cannot save parameter {name}={value!r} of type {type(value).__name__}")


def scalar_to_json(value):
    if isinstance(value, Kernel):
        return {"kernel": value.to_dict()}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":  # numeric classes_
        return {"numbers": value.tolist()}
    if isinstance(value, np.ndarray):  # feature_names_in_, string classes_
        return {"strings": [str(v) for v in value]}
    if isinstance(value, (np.integer, np.floating)):
        return {"value": value.item()}
    return {"value": value}


def atomic_write(path, meta, arrays):
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
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
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ---- reading ------------------------------------------------------------------------
def param_from_json(path, obj):
    if not isinstance(obj, dict) or len(obj) != 1:
        fail(path, f"malformed parameter {obj!r}")
    (tag, value), = obj.items()
    try:
        if tag == "kernel":
            return kernel_from_dict(value)
        if tag == "array":
            return np.asarray(value, dtype=np.float64)
        if tag == "list":
            return [param_from_json(path, v) for v in value]
        if tag == "dict":
            return {k: param_from_json(path, v) for k, v in value.items()}
        if tag == "strings":
            return np.asarray([str(v) for v in value], dtype=object)
        if tag == "numbers":
            arr = np.asarray(value)
            if arr.ndim != 1 or arr.dtype.kind not in "iuf":
                raise ValueError("numbers must be a flat list of numbers")
            return arr
        if tag == "value":
            if value is None or isinstance(value, (bool, int, float, str)):
                return value
    except (ValueError, TypeError) as exc:
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
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(path, f"metadata.json is not valid JSON ({exc})")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        fail(path, "not a kernelkit model file (format name missing or different)")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        fail(path, f"invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        fail(path, f"written in model format {version} by kernelkit "
                    f"{meta.get('kernelkit_version')}, newer than this kernelkit reads "
                    f"(format {FORMAT_VERSION}); upgrade kernelkit")
    for key, kind in (("estimator", str), ("params", dict), ("attributes", dict),
                      ("arrays", dict)):
        if not isinstance(meta.get(key), kind):
            fail(path, f"metadata field {key!r} is missing or of the wrong type")
    return meta


def read_array(path, zf, attr, spec):
    dtype = spec.get("dtype") if isinstance(spec, dict) else None
    if not isinstance(dtype, str) or not (dtype in ARRAY_DTYPES or
                                          _STRING_DTYPE.fullmatch(dtype)) or \
            not isinstance(spec.get("shape"), list):
        fail(path, f"array {attr}: malformed description {spec!r}")
    try:
        with zf.open(f"{attr}.npy") as fh:
            data = io.BytesIO(fh.read())  # zipfile checks the CRC here
        arr = np.lib.format.read_array(data, allow_pickle=False)
    except KeyError:
        fail(path, f"array {attr} is missing from the file")
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        fail(path, f"array {attr} is corrupt ({exc})")
    if dtype_name(arr) != spec["dtype"] or list(arr.shape) != spec["shape"]:
        fail(path, f"array {attr} has dtype {arr.dtype} and shape {arr.shape}, but the "
                    f"metadata says {spec['dtype']} {tuple(spec['shape'])}")
    if arr.dtype.kind != "U" and not np.isfinite(arr).all():
        fail(path, f"array {attr} contains NaN or infinity")
    return arr
