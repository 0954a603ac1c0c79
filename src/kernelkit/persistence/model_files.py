"""``save``, ``load`` and ``read_metadata``: a fitted estimator to a model file and
back, through the allow-list (``_allowlist``) and the format (``_format``); see
:mod:`kernelkit.persistence`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline

from .._validation import check_params
from ..kernels import Kernel
from ._allowlist import REFUSED, allow_list
from ._checks import check_common_state, is_fitted
from ._preprocessors import (check_column_spec, column_transformer_params,
                             restore_column_transformer, saved_view)
from ._format import (ARRAY_DTYPES, FORMAT_NAME, METADATA, atomic_write,
                      check_json_depth, declared_nbytes, dtype_name, fail, open_model_file,
                      param_from_json, param_to_json, read_array, read_metadata_member,
                      scalar_to_json)
from ._format import SPARSE_PARTS, build_csr, sparse_part_specs, sparse_to_arrays
from ._feature_machines import (FEATURE_MAP_KEY, FEATURE_MAPS, MACHINES, decode_features_param,
                                encode_features_param, needs_feature_map_node)
from ._linear_models import LINEAR_MODELS, linear_model_view_check
from ._objects import build_objects, is_object_rows, object_part_specs, objects_to_arrays

__all__ = ["save", "load", "read_metadata"]


#: Format 1 holds one estimator; format 2 adds pipelines (``"steps"``), column
#: transformers (``"transformers"``, each with its ``"columns"``) and a kernel
#: machine's own fitted feature map (``"feature_map"``). A single estimator
#: without one is still written as format 1, so older kernelkit versions read it.
FORMAT_SINGLE, FORMAT_PIPELINE = 1, 2
#: Pipelines inside pipelines: deeper nesting is refused (no real model needs it).
MAX_PIPELINE_DEPTH = 4
#: Steps of one Pipeline, transformers of one ColumnTransformer: more are refused at
#: save and at load (a crafted file of 10,000 steps would cost seconds of work per
#: load and predict; no real model has this many).
MAX_STEPS = 64
#: Parameters that decide processes, threads or output: a model file never decides
#: them. ``load`` resets each to the class default (None, 0 or False); set them on
#: the loaded model if wanted.
RESOURCE_PARAMS = ("n_jobs", "pre_dispatch", "verbose")


def _composite(node):
    return "steps" in node or "transformers" in node or FEATURE_MAP_KEY in node


def _encode(model, registry, prefix, depth):
    """The metadata node of one estimator (or pipeline) and its arrays by member key."""
    name = type(model).__name__
    if isinstance(model, Pipeline):
        if type(model) is not Pipeline:
            raise ValueError(f"cannot save a {name}: only sklearn.pipeline.Pipeline itself")
        if depth >= MAX_PIPELINE_DEPTH:
            raise ValueError(f"cannot save pipelines nested more than {MAX_PIPELINE_DEPTH} deep")
        if len(model.steps) > MAX_STEPS:
            raise ValueError(f"cannot save a Pipeline of {len(model.steps)} steps: model "
                             f"files hold at most {MAX_STEPS} steps per Pipeline")
        steps, arrays = [], {}
        for i, (step_name, step) in enumerate(model.steps):
            if step is None or (isinstance(step, str) and step == "passthrough"):
                node = {"estimator": "passthrough"}
            else:
                node, step_arrays = _encode(step, registry, f"{prefix}steps/{i}/", depth + 1)
                arrays.update(step_arrays)
            steps.append({"name": str(step_name), **node})
        return {"estimator": "Pipeline", "params": {"verbose": {"value": bool(model.verbose)}},
                "attributes": {}, "arrays": {}, "steps": steps}, arrays
    if type(model) is ColumnTransformer:
        return _encode_columns(model, registry, prefix, depth)
    if name in REFUSED and name not in registry:
        raise ValueError(f"cannot save a {name}: {REFUSED[name]}")
    if name not in registry or type(model) is not registry[name][0]:
        raise ValueError(f"cannot save a {name}: kernelkit model files hold "
                         f"{', '.join(registry)}, and Pipelines and ColumnTransformers of them")
    _, array_names, scalar_names, _ = registry[name]
    if not is_fitted(model):
        raise ValueError(f"this {name} is not fitted; call fit before save")
    if getattr(model, "feature_map_", None) is not None and not needs_feature_map_node(model) \
            and type(model.feature_map_).__name__ == "RandomFourierFeatures":
        # what save writes, load must read: the random weights are not in the format
        raise ValueError(f"cannot save this {name}: it predicts through random Fourier "
                         "features, which model files do not hold yet; save a model fitted "
                         "with solver='exact' or 'nystroem' (or refit KernelRidge on the "
                         "chosen kernel and alpha: best_params_)")
    if type(model) in LINEAR_MODELS:
        linear_model_view_check(model)  # multi-label or sparse coefficients: refused
    model = saved_view(model)  # the file's form of encoders and imputers
    node = {"estimator": name,
            "params": {k: (encode_features_param(k, v) if k == "features" else
                           param_to_json(k, v))
                       for k, v in model.get_params(deep=False).items()},
            "attributes": {}, "arrays": {}}
    arrays = {}
    if needs_feature_map_node(model):  # w learnt on a feature map: the map goes along
        node[FEATURE_MAP_KEY], arrays = _encode(model.feature_map_, registry,
                                                f"{prefix}{FEATURE_MAP_KEY}/", depth + 1)
    kernel_ = getattr(model, "kernel_", None)
    node["attributes"]["kernel_"] = (scalar_to_json(kernel_) if isinstance(kernel_, Kernel)
                                     else {"value": kernel_})
    for attr in scalar_names:
        if hasattr(model, attr):
            node["attributes"][attr] = scalar_to_json(getattr(model, attr))
    for attr in array_names:
        value = getattr(model, attr, None)
        if value is None:
            continue
        if hasattr(value, "tocsr") and hasattr(value, "nnz"):  # sparse training rows
            spec, parts = sparse_to_arrays(attr, value)
            for part, arr in parts.items():
                arrays[f"{prefix}{attr}.{part}"] = arr
            node["arrays"][attr] = spec
            continue
        if is_object_rows(value):  # training objects (sets, trees, ...): through their codec
            spec, parts = objects_to_arrays(attr, value, kernel_)
            for part, arr in parts.items():
                arrays[f"{prefix}{attr}.{part}"] = arr
            node["arrays"][attr] = spec
            continue
        # C or Fortran order as fitted (npy's fortran_order): a product with the loaded
        # matrix then rounds exactly as with the original
        value = np.asarray(value)
        if not (value.ndim > 1 and value.flags.f_contiguous):
            value = np.ascontiguousarray(value)
        if value.dtype.kind == "O":
            raise ValueError(f"cannot save {name}.{attr}: it is an object array; model files "
                             "hold numbers and fixed-width strings only")
        if value.dtype.kind == "U":
            value = value.astype(value.dtype.newbyteorder("<"))
        elif value.dtype.name not in ARRAY_DTYPES:
            value = value.astype(np.float64)
        arrays[prefix + attr] = value
        node["arrays"][attr] = {"dtype": dtype_name(value), "shape": list(value.shape)}
    return node, arrays


def _encode_columns(model, registry, prefix, depth):
    """A fitted ColumnTransformer: its parameters, and one child node per transformer
    (with its column selection), encoded like pipeline steps."""
    if depth >= MAX_PIPELINE_DEPTH:
        raise ValueError(f"cannot save pipelines nested more than {MAX_PIPELINE_DEPTH} deep")
    if not hasattr(model, "transformers_"):
        raise ValueError("this ColumnTransformer is not fitted; call fit before save")
    if len(model.transformers) > MAX_STEPS:
        raise ValueError(f"cannot save a ColumnTransformer of {len(model.transformers)} "
                         f"transformers: model files hold at most {MAX_STEPS}")
    params = {k: param_to_json(k, v) for k, v in column_transformer_params(model).items()}
    fitted = {name: est for name, est, _ in model.transformers_}
    children, arrays = [], {}
    for i, (name, spec, cols) in enumerate(model.transformers):
        try:
            cols = check_column_spec(cols)
        except ValueError as exc:
            raise ValueError(f"cannot save this ColumnTransformer: {name!r}: {exc}") from None
        # "passthrough" is fitted as a FunctionTransformer: stored as the word, as given
        est = spec if isinstance(spec, str) and spec in ("drop", "passthrough") else fitted[name]
        if isinstance(est, str):
            node = {"estimator": est}
        else:
            node, child_arrays = _encode(est, registry, f"{prefix}transformers/{i}/", depth + 1)
            arrays.update(child_arrays)
        children.append({"name": str(name), "columns": cols, **node})
    attributes = {"n_features_in_": scalar_to_json(model.n_features_in_)}
    if hasattr(model, "feature_names_in_"):
        attributes["feature_names_in_"] = scalar_to_json(model.feature_names_in_)
    return {"estimator": "ColumnTransformer", "params": params, "attributes": attributes,
            "arrays": {}, "transformers": children}, arrays


def save(model, path, *, metadata=None):
    """Write a fitted kernelkit estimator, transformer or pipeline to ``path`` atomically.

    Parameters
    ----------
    model : estimator
        A fitted estimator of an allow-listed class (every kernelkit estimator
        and transformer, and scikit-learn's StandardScaler, MinMaxScaler and
        RobustScaler), or an ``sklearn.pipeline.Pipeline`` of them.
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

    Examples
    --------
    >>> import numpy as np, tempfile, os, kernelkit
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernelkit.models import KernelRidge
    >>> X = np.arange(20.0).reshape(10, 2); y = X[:, 0] * 100
    >>> model = make_pipeline(StandardScaler(), KernelRidge("rbf", alpha=0.1)).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "m.kk")
    >>> kernelkit.save(model, path)
    >>> bool(np.array_equal(kernelkit.load(path).predict(X), model.predict(X)))
    True
    """
    from .._version import __version__

    node, arrays = _encode(model, allow_list(), "", 0)
    meta = {"format": FORMAT_NAME, "kernelkit_version": __version__,
            "format_version": FORMAT_PIPELINE if _composite(node) else FORMAT_SINGLE,
            **node}
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise ValueError(f"metadata must be a dict, got {type(metadata).__name__}")
        try:
            check_json_depth(metadata, "metadata")
            meta["user"] = json.loads(json.dumps(metadata, allow_nan=False))
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"metadata must be plain JSON (str, finite numbers, lists, dicts "
                             f"nested at most 63 deep): {exc}") from None
    atomic_write(Path(path), meta, arrays)


def read_metadata(path):
    """The validated ``metadata.json`` of a model file, without building the model.

    Returns
    -------
    dict
        ``format``, ``format_version``, ``kernelkit_version``, ``estimator``,
        ``params``, ``attributes``, ``arrays``, ``steps`` for a pipeline and, if
        given at save time, ``user``.

    Raises
    ------
    FileNotFoundError, ModelFormatError
    """
    path = Path(path)
    with open_model_file(path) as (zf, _):
        return read_metadata_member(path, zf)


def _walk(path, node, registry, prefix, depth, out):
    """Check a node's shape and collect ``(member key, spec)`` of its arrays into ``out``."""
    for key, kind in (("estimator", str), ("params", dict), ("attributes", dict),
                      ("arrays", dict)):
        if not isinstance(node.get(key, {} if key != "estimator" else None), kind):
            fail(path, f"{prefix or 'model'}: field {key!r} is missing or of the wrong type")
    name = node["estimator"]
    if name == "Pipeline":
        steps = node.get("steps")
        if depth >= MAX_PIPELINE_DEPTH:
            fail(path, f"pipelines nested more than {MAX_PIPELINE_DEPTH} deep")
        if not isinstance(steps, list) or not steps or len(steps) > MAX_STEPS:
            fail(path, f"{prefix or 'model'}: a Pipeline needs a non-empty list of steps "
                       f"(at most {MAX_STEPS}), got "
                       f"{len(steps) if isinstance(steps, list) else type(steps).__name__}")
        names = [s.get("name") if isinstance(s, dict) else None for s in steps]
        if not all(isinstance(n, str) and n and "__" not in n for n in names) or \
                len(set(names)) != len(names):
            fail(path, f"{prefix or 'model'}: step names must be distinct non-empty strings "
                       f"without '__', got {names!r}")
        for i, step in enumerate(steps):
            if step.get("estimator") == "passthrough":
                if set(step) != {"name", "estimator"}:
                    fail(path, f"{prefix}steps/{i}: a passthrough step holds nothing else")
                continue
            _walk(path, step, registry, f"{prefix}steps/{i}/", depth + 1, out)
        if node["arrays"] or node["attributes"]:
            fail(path, f"{prefix or 'model'}: a Pipeline holds no arrays or attributes itself")
        return
    if name == "ColumnTransformer":
        _walk_columns(path, node, registry, prefix, depth, out)
        return
    if "steps" in node or "transformers" in node:
        fail(path, f"{prefix or 'model'}: only a Pipeline has steps, only a "
                   "ColumnTransformer has transformers")
    if name not in registry:
        fail(path, f"unknown estimator {name!r}; this kernelkit reads {', '.join(registry)} "
                   "and Pipelines of them")
    if FEATURE_MAP_KEY in node:
        child = node[FEATURE_MAP_KEY]
        if name not in MACHINES or not isinstance(child, dict) or child.get("estimator") not in FEATURE_MAPS or \
                depth + 1 >= MAX_PIPELINE_DEPTH:
            fail(path, f"{prefix or 'model'}: only a kernel machine holds a feature_map, and "
                       f"it is one of {', '.join(FEATURE_MAPS)}")
        _walk(path, child, registry, f"{prefix}{FEATURE_MAP_KEY}/", depth + 1, out)
    unknown_arrays = set(node["arrays"]) - set(registry[name][1])
    if unknown_arrays:
        fail(path, f"unexpected arrays {sorted(unknown_arrays)} for {name}")
    for attr, spec in node["arrays"].items():
        if isinstance(spec, dict) and "sparse" in spec:
            for part, sub in sparse_part_specs(path, prefix + attr, spec).items():
                out[f"{prefix}{attr}.{part}"] = sub
        elif isinstance(spec, dict) and "objects" in spec:
            for part, sub in object_part_specs(path, prefix + attr, spec).items():
                out[f"{prefix}{attr}.{part}"] = sub
        else:
            out[prefix + attr] = spec


def _walk_columns(path, node, registry, prefix, depth, out):
    where = prefix or "model"
    children = node.get("transformers")
    if depth >= MAX_PIPELINE_DEPTH:
        fail(path, f"pipelines nested more than {MAX_PIPELINE_DEPTH} deep")
    if "steps" in node or node["arrays"]:
        fail(path, f"{where}: a ColumnTransformer holds transformers, no steps or arrays")
    if not isinstance(children, list) or not children or len(children) > MAX_STEPS:
        fail(path, f"{where}: a ColumnTransformer needs a non-empty list of transformers "
                   f"(at most {MAX_STEPS})")
    names = [c.get("name") if isinstance(c, dict) else None for c in children]
    if not all(isinstance(n, str) and n and "__" not in n and n != "remainder"
               for n in names) or len(set(names)) != len(names):
        fail(path, f"{where}: transformer names must be distinct non-empty strings without "
                   f"'__' (and not 'remainder'), got {names!r}")
    for i, child in enumerate(children):
        try:
            if check_column_spec(child.get("columns")) != child.get("columns"):
                raise ValueError(f"columns {child.get('columns')!r}")
        except ValueError as exc:
            fail(path, f"{where}: transformer {child['name']!r}: {exc}")
        if child.get("estimator") in ("drop", "passthrough"):
            if set(child) != {"name", "estimator", "columns"}:
                fail(path, f"{prefix}transformers/{i}: a {child['estimator']} transformer "
                           "holds nothing else")
            continue
        child = {k: v for k, v in child.items() if k not in ("name", "columns")}
        _walk(path, child, registry, f"{prefix}transformers/{i}/", depth + 1, out)


def _build_columns(path, node, registry, arrays, prefix):
    children = []
    for i, child in enumerate(node["transformers"]):
        est = child["estimator"]
        if est not in ("drop", "passthrough"):
            est = _build(path, child, registry, arrays, f"{prefix}transformers/{i}/")
            if not hasattr(est, "transform") or hasattr(est, "predict"):
                fail(path, f"ColumnTransformer part {child['name']!r} ({type(est).__name__}) "
                           "is not a transformer")
        children.append((child["name"], est, child["columns"]))
    params = {k: param_from_json(path, v) for k, v in node["params"].items()}
    attrs = {k: param_from_json(path, v) for k, v in node["attributes"].items()}
    model = restore_column_transformer(path, params, children, attrs)
    return _reset_resources(model)


def _build(path, node, registry, arrays, prefix):
    """The estimator of a checked node, with its fitted state restored and checked."""
    name = node["estimator"]
    if name == "ColumnTransformer":
        return _build_columns(path, node, registry, arrays, prefix)
    if name == "Pipeline":
        steps = []
        for i, step in enumerate(node["steps"]):
            est = ("passthrough" if step["estimator"] == "passthrough"
                   else _build(path, step, registry, arrays, f"{prefix}steps/{i}/"))
            steps.append((step["name"], est))
        verbose = param_from_json(path, node["params"].get("verbose", {"value": False}))
        for step_name, est in steps[:-1]:
            if est != "passthrough" and not hasattr(est, "transform"):
                fail(path, f"pipeline step {step_name!r} ({type(est).__name__}) is not a "
                           "transformer; only the last step may be an estimator")
        if not isinstance(verbose, bool):
            fail(path, f"{prefix or 'model'}: Pipeline.verbose must be true or false")
        _check_widths(path, steps)
        return Pipeline(steps)  # verbose: never decided by a file (RESOURCE_PARAMS)
    cls, _, scalar_names, check_state = registry[name]
    params = {k: (decode_features_param(path, v) if k == "features" else
                  param_from_json(path, v)) for k, v in node["params"].items()}
    valid = set(cls().get_params(deep=False))
    if set(params) - valid:
        fail(path, f"unknown parameters {sorted(set(params) - valid)} for {name}")
    try:
        model = cls(**params)
        if hasattr(model, "_check_params"):
            check_params(model)
    except (TypeError, ValueError) as exc:
        fail(path, f"invalid parameters of {name}: {exc}")
    attrs = node["attributes"]
    unknown = set(attrs) - set(scalar_names) - {"kernel_"}
    if unknown:
        fail(path, f"unknown attributes {sorted(unknown)} for {name}")
    for attr, obj in attrs.items():
        setattr(model, attr, param_from_json(path, obj))
    for attr, spec in node["arrays"].items():
        if isinstance(spec, dict) and "sparse" in spec:
            parts = {p: arrays[f"{prefix}{attr}.{p}"] for p in SPARSE_PARTS}
            setattr(model, attr, build_csr(path, prefix + attr, spec, parts))
            kernel = getattr(model, "kernel_", None)
            if not (isinstance(kernel, Kernel) and kernel.accepts_sparse):
                fail(path, f"{prefix}{attr} is sparse, but the kernel {kernel!r} does not "
                           "take sparse input")
        elif isinstance(spec, dict) and "objects" in spec:
            parts = {p: arrays[f"{prefix}{attr}.{p}"] for p in spec["parts"]}
            setattr(model, attr, build_objects(path, prefix + attr, spec, parts,
                                               getattr(model, "kernel_", None)))
        else:
            setattr(model, attr, arrays[prefix + attr])
    if FEATURE_MAP_KEY in node:  # checked by its own entry, then against the model
        model.feature_map_ = _build(path, node[FEATURE_MAP_KEY], registry, arrays,
                                    f"{prefix}{FEATURE_MAP_KEY}/")
    check_common_state(path, model)
    check_state(path, model)
    return _reset_resources(model)


def _output_width(est):
    """Columns a loaded step outputs, where the file says it exactly (else None)."""
    if type(est) is ColumnTransformer:
        return max((s.stop for s in est.output_indices_.values()), default=0)
    if type(est).__name__ in ("StandardScaler", "MinMaxScaler", "RobustScaler",
                              "SimpleImputer"):
        return getattr(est, "n_features_in_", None)
    width = getattr(est, "n_components_", None)
    return width if isinstance(width, int) else None


def _check_widths(path, steps):
    """Each step takes as many columns as the step before it outputs: the counts of
    a file agree with each other, so none can ask for more than the model holds."""
    width, before = None, None
    for step_name, est in steps:
        if est == "passthrough":
            continue
        n_in = getattr(est, "n_features_in_", None)
        if width is not None and isinstance(n_in, int) and n_in != width:
            fail(path, f"pipeline step {step_name!r} takes {n_in} columns but step "
                       f"{before!r} outputs {width}")
        width, before = _output_width(est), step_name


def _reset_resources(model):
    """``model`` with its RESOURCE_PARAMS at their class defaults (after the file's
    values were checked, so a malformed value is still an error)."""
    defaults = type(model)().get_params(deep=False) if not hasattr(model, "transformers") \
        else {"n_jobs": None, "verbose": False}
    own = model.get_params(deep=False)
    model.set_params(**{k: defaults[k] for k in RESOURCE_PARAMS if k in own and k in defaults})
    return model


def load(path):
    """Read a model written by :func:`save`. Never unpickles or evaluates code.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    estimator
        A fitted estimator, transformer or pipeline, ready to ``predict`` or
        ``transform``.

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
    registry = allow_list()
    with open_model_file(path) as (zf, file_size):
        names = set(zf.namelist())
        meta = read_metadata_member(path, zf)
        specs = {}
        _walk(path, meta, registry, "", 0, specs)
        if _composite(meta) != (meta["format_version"] == FORMAT_PIPELINE):
            fail(path, f"format_version {meta['format_version']} does not match its contents "
                       "(pipelines are format 2, single estimators format 1)")
        expected = {METADATA} | {f"{key}.npy" for key in specs}
        if names != expected:
            fail(path, f"unexpected contents {sorted(names ^ expected)}")
        declared = sum(declared_nbytes(path, key, spec) for key, spec in specs.items())
        if declared > file_size:
            fail(path, f"the metadata declares {declared} bytes of arrays in a file of "
                       f"{file_size} bytes")
        arrays = {key: read_array(path, zf, key, spec) for key, spec in specs.items()}
    return _build(path, meta, registry, arrays, "")
