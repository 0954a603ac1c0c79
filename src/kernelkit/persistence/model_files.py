"""``save``, ``load`` and ``read_metadata``: a fitted estimator to a model file and
back, through the allow-list (``_allowlist``) and the format (``_format``); see
:mod:`kernelkit.persistence`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .._validation import check_params
from ..kernels import Kernel
from ._allowlist import check_common_state, is_fitted, registry as allow_list
from ._format import (ARRAY_DTYPES, FORMAT_NAME, FORMAT_VERSION, METADATA, atomic_write,
                      check_json_depth, declared_nbytes, dtype_name, fail, open_model_file,
                      param_from_json, param_to_json, read_array, read_metadata_member,
                      scalar_to_json)

__all__ = ["save", "load", "read_metadata"]


def save(model, path, *, metadata=None):
    """Write a fitted kernelkit estimator to ``path`` atomically.

    Parameters
    ----------
    model : estimator
        A fitted estimator of an allow-listed class (KernelRidge, KernelRidgeCV).
    path : str or Path
        Destination file (conventionally ``*.kk``); replaced atomically.
    metadata : dict, optional
        Extra JSON-serialisable information kept with the model (e.g. the name
        of the target column); read back by :func:`read_metadata` as ``"user"``.

    Raises
    ------
    ValueError
        If the model is of an unknown class, not fitted, or holds Python
        callables (``Warped``/``Composed`` kernels) that cannot be stored safely.
    """
    name = type(model).__name__
    registry = allow_list()
    if name not in registry or not isinstance(model, registry[name][0]):
        raise ValueError(f"cannot save a {name}: kernelkit model files hold "
                         f"{', '.join(registry)}")
    _, array_names, scalar_names, _ = registry[name]
    if not is_fitted(model):
        raise ValueError(f"this {name} is not fitted; call fit before save")
    from .. import __version__

    meta = {
        "format": FORMAT_NAME, "format_version": FORMAT_VERSION, "kernelkit_version": __version__,
        "estimator": name,
        "params": {k: param_to_json(k, v) for k, v in model.get_params(deep=False).items()},
        "attributes": {}, "arrays": {},
    }
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise ValueError(f"metadata must be a dict, got {type(metadata).__name__}")
        try:
            check_json_depth(metadata, "metadata")
            meta["user"] = json.loads(json.dumps(metadata, allow_nan=False))
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"metadata must be plain JSON (str, finite numbers, lists, dicts "
                             f"nested at most 63 deep): {exc}") from None
    kernel_ = getattr(model, "kernel_", None)
    meta["attributes"]["kernel_"] = (scalar_to_json(kernel_) if isinstance(kernel_, Kernel)
                                     else {"value": kernel_})
    for attr in scalar_names:
        if hasattr(model, attr):
            meta["attributes"][attr] = scalar_to_json(getattr(model, attr))
    arrays = {}
    for attr in array_names:
        value = getattr(model, attr, None)
        if value is None:
            continue
        value = np.ascontiguousarray(value)
        if value.dtype.kind == "O":
            raise ValueError(f"cannot save {name}.{attr}: it is an object array; model files "
                             "hold numbers and fixed-width strings only")
        if value.dtype.kind == "U":
            value = value.astype(value.dtype.newbyteorder("<"))
        elif value.dtype.name not in ARRAY_DTYPES:
            value = value.astype(np.float64)
        arrays[attr] = value
        meta["arrays"][attr] = {"dtype": dtype_name(value), "shape": list(value.shape)}
    atomic_write(Path(path), meta, arrays)


def read_metadata(path):
    """The validated ``metadata.json`` of a model file, without building the model.

    Returns
    -------
    dict
        ``format``, ``format_version``, ``kernelkit_version``, ``estimator``,
        ``params``, ``attributes``, ``arrays`` and, if given at save time, ``user``.

    Raises
    ------
    FileNotFoundError, ModelFormatError
    """
    path = Path(path)
    with open_model_file(path) as (zf, _):
        return read_metadata_member(path, zf)


def load(path):
    """Read a model written by :func:`save`. Never unpickles or evaluates code.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    estimator
        A fitted estimator, ready to ``predict``.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ModelFormatError
        If the file is not a kernelkit model, is truncated or corrupt anywhere,
        has arrays of the wrong dtype/shape or non-finite values, names an
        unknown estimator or kernel, or was written in a newer format.
    """
    path = Path(path)
    with open_model_file(path) as (zf, file_size):
        names = set(zf.namelist())
        meta = read_metadata_member(path, zf)
        est_name = meta["estimator"]
        registry = allow_list()
        if est_name not in registry:
            fail(path, f"unknown estimator {est_name!r}; this kernelkit reads "
                       f"{', '.join(registry)}")
        cls, array_names, scalar_names, check_state = registry[est_name]
        expected = {METADATA} | {f"{a}.npy" for a in meta["arrays"]}
        unknown_arrays = set(meta["arrays"]) - set(array_names)
        if unknown_arrays or names != expected:
            fail(path, f"unexpected contents {sorted(names ^ expected) or sorted(unknown_arrays)}")
        declared = sum(declared_nbytes(path, a, s) for a, s in meta["arrays"].items())
        if declared > file_size:
            fail(path, f"the metadata declares {declared} bytes of arrays in a file of "
                       f"{file_size} bytes")
        arrays = {a: read_array(path, zf, a, s) for a, s in meta["arrays"].items()}
    params = {k: param_from_json(path, v) for k, v in meta["params"].items()}
    valid = set(cls().get_params(deep=False))
    if set(params) - valid:
        fail(path, f"unknown parameters {sorted(set(params) - valid)} for {est_name}")
    try:
        model = cls(**params)
        check_params(model)
    except (TypeError, ValueError) as exc:
        fail(path, f"invalid parameters: {exc}")
    attrs = meta["attributes"]
    unknown = set(attrs) - set(scalar_names) - {"kernel_"}
    if unknown:
        fail(path, f"unknown attributes {sorted(unknown)}")
    for attr, obj in attrs.items():
        setattr(model, attr, param_from_json(path, obj))
    for attr, arr in arrays.items():
        setattr(model, attr, arr)
    check_common_state(path, model)
    check_state(path, model)
    return model
