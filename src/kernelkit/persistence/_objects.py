"""Training objects (sets, trees, graphs, series) in model files: arrays and strict JSON.

A model on objects keeps its training objects (``X_fit_``,
``support_vectors_``, ``components_``, ``centers_``) as a 1-D object array.
Files never hold object arrays: the kind's codec
(:class:`kernelkit.kernels.objects.ObjectCodec`) writes them as a few plain
arrays plus a small JSON ``info``, described in the metadata as::

    {"objects": kind, "count": n, "info": {...},
     "parts": {part: {"dtype": ..., "shape": [...]}, ...}}

Every part's dtype and number of dimensions is the codec's, and its size is
declared (so counted against the file) before anything is read; the codec's
``decode`` then checks that the parts agree (offsets, counts) and rebuilds the
canonical objects, which the kernel's own ``check_input`` validates once more.
"""

from __future__ import annotations

import numpy as np

from ..kernels.objects import object_codec, object_kinds, takes_objects
from ._format import declared_nbytes, dtype_name, fail, SPARSE_ATTRS

__all__ = ["OBJECT_ATTRS", "is_object_rows", "objects_to_arrays", "object_part_specs",
           "build_objects"]

#: The attributes that may hold training objects: the same as for sparse rows.
OBJECT_ATTRS = SPARSE_ATTRS
# Codec info: a small JSON dict (checked for size on load; the metadata is strict JSON).
_MAX_INFO_CHARS = 4096


def is_object_rows(value):
    """Whether an attribute's value is a 1-D object array (training objects)."""
    return isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 1


def objects_to_arrays(attr, value, kernel):
    """A 1-D object array of training objects as its metadata spec and plain arrays.

    Raises
    ------
    ValueError
        If ``attr`` may not hold objects or the model's kernel is not a
        kernel on objects (nothing else stores object arrays).
    """
    if attr not in OBJECT_ATTRS or not takes_objects(kernel) or kernel.input_kind == "string":
        raise ValueError(f"cannot save {attr}: it is an object array; model files hold "
                         "numbers, fixed-width strings and the training objects of a kernel "
                         f"on objects ({', '.join(OBJECT_ATTRS)})")
    codec = object_codec(kernel.input_kind)
    parts, info = codec.encode(value)
    out = {}
    for name, (dtype, ndim) in codec.parts.items():
        arr = np.ascontiguousarray(parts[name], dtype=np.dtype(dtype))
        if arr.ndim != ndim:
            raise ValueError(f"codec of {codec.kind!r} wrote {name} with {arr.ndim} "
                             f"dimensions, expected {ndim}")
        out[name] = arr
    spec = {"objects": codec.kind, "count": int(len(value)), "info": info,
            "parts": {k: {"dtype": dtype_name(v), "shape": list(v.shape)}
                      for k, v in out.items()}}
    return spec, out


def object_part_specs(path, attr, spec):
    """The member specs of an objects attribute, its description checked first."""
    name = attr.rsplit("/", 1)[-1]
    if name not in OBJECT_ATTRS:
        fail(path, f"array {attr}: only {', '.join(OBJECT_ATTRS)} may hold objects")
    kind, count, parts = spec.get("objects"), spec.get("count"), spec.get("parts")
    if set(spec) != {"objects", "count", "info", "parts"} or kind not in object_kinds() or \
            not isinstance(count, int) or isinstance(count, bool) or count < 0 or \
            not isinstance(parts, dict) or not isinstance(spec["info"], dict) or \
            len(repr(spec["info"])) > _MAX_INFO_CHARS:
        fail(path, f"array {attr}: malformed objects description (kinds known: "
                   f"{', '.join(object_kinds())})")
    expected = object_codec(kind).parts
    if set(parts) != set(expected):
        fail(path, f"array {attr}: parts {sorted(parts)}, expected {sorted(expected)} for "
                   f"{kind}s")
    for part, sub in parts.items():
        declared_nbytes(path, f"{attr}.{part}", sub)  # well-formed
        dtype, ndim = expected[part]
        if sub["dtype"] != dtype or len(sub["shape"]) != ndim:
            fail(path, f"array {attr}.{part}: expected a {ndim}-D {dtype} array, got {sub!r}")
    return parts


def build_objects(path, attr, spec, parts, kernel):
    """The 1-D object array of checked parts, for the model's kernel."""
    if not takes_objects(kernel) or kernel.input_kind != spec["objects"]:
        fail(path, f"{attr} holds {spec['objects']}s, but the kernel {kernel!r} takes "
                   f"{getattr(kernel, 'input_kind', 'no objects')}s")
    codec = object_codec(spec["objects"])
    try:
        items = codec.decode(parts, spec["info"], spec["count"])
        if len(items) != spec["count"]:
            raise ValueError(f"{len(items)} objects where the metadata says {spec['count']}")
        return codec.check(items, attr, allow_empty=True) if items else \
            np.empty(0, dtype=object)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        fail(path, f"array {attr}: the stored {spec['objects']}s are inconsistent ({exc})")
