"""scikit-learn's OneHotEncoder, SimpleImputer and ColumnTransformer in model files.

Their fitted state partly lives in private attributes that change between
scikit-learn versions, so a file never holds those: it holds what the public API
defines (categories, statistics, column selections), as arrays and strict JSON,
and :func:`restore_onehot`, :func:`restore_imputer` and
:func:`restore_column_transformer` rebuild the private state from it on load.
What the files can hold, and what is refused at save time with a clear message:

- ``OneHotEncoder`` with ``categories="auto"``, ``sparse_output=False`` (sparse
  output waits for sparse input in kernelkit), no infrequent categories
  (``min_frequency``/``max_categories`` None), ``drop`` None, ``"first"`` or
  ``"if_binary"``; categories of text (stored as fixed-width unicode) or numbers;
- ``SimpleImputer`` with ``missing_values=np.nan`` and no ``add_indicator``;
- ``ColumnTransformer`` whose columns are ints or column names (no callables,
  slices or masks), ``remainder`` "drop" or "passthrough", dense output, and
  whose transformers are allow-listed steps, Pipelines of them, "drop" or
  "passthrough" (see ``model_files``).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

from ._format import fail

__all__ = ["check_onehot_state", "check_imputer_state", "saved_view", "check_column_spec",
           "restore_column_transformer", "column_transformer_params"]

_NAMES = ("n_features_in_", "feature_names_in_")
#: Input columns a stored ColumnTransformer may declare: a count is checked against
#: this bound before anything is sized from it (a crafted 10**18 is refused, not
#: allocated); dense rows of more columns are not what these pipelines take.
MAX_COLUMNS = 2 ** 20
_DTYPES = {"float64": np.float64, "float32": np.float32}

def _refuse(name, what):
    raise ValueError(f"cannot save this {name}: {what}")


class _View:
    """What ``save`` reads from a fitted step: the model's attributes, with some
    replaced by their file form (and ``get_params`` giving the file's parameters)."""

    def __init__(self, model, params, **attrs):
        self._model, self._params, self._attrs = model, params, attrs

    def get_params(self, deep=False):
        return dict(self._params)

    def __getattr__(self, name):
        attrs = self.__dict__.get("_attrs", {})
        if name in attrs:
            return attrs[name]
        return getattr(self.__dict__["_model"], name)


def saved_view(model):
    """``model`` itself, or a view of it in the form its file entry stores."""
    if type(model) is OneHotEncoder:
        return _onehot_view(model)
    if type(model) is SimpleImputer:
        return _imputer_view(model)
    return model


# ---- OneHotEncoder ----------------------------------------------------------------
def _onehot_view(model):
    p = model.get_params(deep=False)
    if p["sparse_output"]:
        _refuse("OneHotEncoder", "sparse_output=True; model files store encoders with dense "
                                 "output (the kernel estimators take sparse input, but the "
                                 "file format does not hold this one yet): use "
                                 "OneHotEncoder(sparse_output=False)")
    if p["min_frequency"] is not None or p["max_categories"] is not None:
        _refuse("OneHotEncoder", "infrequent categories (min_frequency/max_categories) are "
                                 "not stored; leave both None")
    if not (isinstance(p["categories"], str) and p["categories"] == "auto"):
        _refuse("OneHotEncoder", "only categories='auto' is stored (the fitted categories_ "
                                 "are saved either way)")
    if p["drop"] not in (None, "first", "if_binary"):
        _refuse("OneHotEncoder", "drop must be None, 'first' or 'if_binary'")
    if not (isinstance(p["feature_name_combiner"], str)
            and p["feature_name_combiner"] == "concat"):
        _refuse("OneHotEncoder", "feature_name_combiner must be 'concat' (a file holds no code)")
    dtype = np.dtype(p["dtype"]).name
    if dtype not in _DTYPES:
        _refuse("OneHotEncoder", f"dtype must be float64 or float32, got {dtype}")
    p["dtype"] = dtype
    text, floats, ints, layout = [], [], [], []
    for j, cats in enumerate(model.categories_):
        if cats.dtype.kind == "O":
            if not all(isinstance(c, str) for c in cats):
                _refuse("OneHotEncoder", f"the categories of column {j} mix text and other "
                                         "objects; give text columns as str")
            text.extend(cats.tolist())
            layout.append(["text", len(cats)])
        elif cats.dtype.kind == "U":  # fitted on a numpy array of str
            text.extend(cats.tolist())
            layout.append(["unicode", len(cats)])
        elif cats.dtype.kind in "iu":
            ints.extend(cats.tolist())
            layout.append(["int64", len(cats)])
        elif cats.dtype.kind == "f":
            if not np.isfinite(cats).all():
                _refuse("OneHotEncoder", f"column {j} has NaN among its categories; impute "
                                         "missing values first (SimpleImputer)")
            floats.extend(cats.tolist())
            layout.append(["float64", len(cats)])
        else:
            _refuse("OneHotEncoder", f"categories of dtype {cats.dtype} in column {j}")
    drop = model.drop_idx_
    kinds = {"text": 0, "float64": 1, "int64": 2, "unicode": 3}
    attrs = {"category_kinds_": np.array([kinds[k] for k, _ in layout], dtype=np.int64),
             "category_counts_": np.array([c for _, c in layout], dtype=np.int64),
             "drop_columns_": None if drop is None else
             np.array([-1 if d is None else int(d) for d in drop], dtype=np.int64),
             "categories_text_": np.array(text, dtype=str) if text else None,
             "categories_float_": np.array(floats, dtype=np.float64) if floats else None,
             "categories_int_": np.array(ints, dtype=np.int64) if ints else None}
    return _View(model, p, **attrs)


_KIND_NAMES = ("text", "float64", "int64", "unicode")  # unicode: text kept as numpy str


def _check_onehot(path, model):
    """Rebuild categories_ (and the encoder's private state) from the stored arrays."""
    n = model.n_features_in_
    kinds = getattr(model, "category_kinds_", None)
    counts = getattr(model, "category_counts_", None)
    if kinds is None or counts is None or kinds.shape != (n,) or counts.shape != (n,) or \
            kinds.dtype.kind != "i" or counts.dtype.kind != "i" or \
            (n and (kinds.min() < 0 or kinds.max() > 3 or counts.min() < 1)):
        fail(path, f"OneHotEncoder: category_kinds_ and category_counts_ must be ({n},) "
                   "integers (kinds 0-3, counts >= 1)")
    layout = [(_KIND_NAMES[k], int(c)) for k, c in zip(kinds.tolist(), counts.tolist())]
    layout = [("text" if k == "unicode" else k, c, k == "unicode") for k, c in layout]
    pools = {"text": getattr(model, "categories_text_", None),
             "float64": getattr(model, "categories_float_", None),
             "int64": getattr(model, "categories_int_", None)}
    dtype_kinds = {"text": "U", "float64": "f", "int64": "i"}
    used = {k: sum(c for kind, c, _ in layout if kind == k) for k in pools}
    for kind, arr in pools.items():
        size = 0 if arr is None else arr.shape[0]
        if (arr is not None and (arr.ndim != 1 or arr.dtype.kind != dtype_kinds[kind])) or \
                size != used[kind]:
            fail(path, f"OneHotEncoder: the {kind} categories do not match category_counts_ "
                       f"({size} stored, {used[kind]} declared)")
    start = dict.fromkeys(pools, 0)
    categories = []
    for j, (kind, count, unicode) in enumerate(layout):
        cats = pools[kind][start[kind]:start[kind] + count]
        start[kind] += count
        if count > 1 and not (cats[1:] > cats[:-1]).all():
            fail(path, f"OneHotEncoder: the categories of column {j} must be sorted and "
                       "distinct, as fit makes them")
        categories.append(cats.astype(object) if kind == "text" and not unicode else cats)
    drop = getattr(model, "drop_columns_", None)
    if (model.drop is None) != (drop is None) or (drop is not None and (
            drop.shape != (n,) or drop.dtype.kind != "i" or not all(
                -1 <= d < len(c) for d, c in zip(drop.tolist(), categories)))):
        fail(path, "OneHotEncoder.drop_columns_ does not match drop and the categories")
    for attr in ("category_kinds_", "category_counts_", "drop_columns_", "categories_text_",
                 "categories_float_", "categories_int_"):
        model.__dict__.pop(attr, None)
    model.dtype = _DTYPES[model.dtype]
    model.categories_ = categories
    model._infrequent_enabled = False
    model.drop_idx_ = None if drop is None else np.array(
        [None if d < 0 else d for d in drop.tolist()], dtype=object)
    model._drop_idx_after_grouping = model.drop_idx_
    model._n_features_outs = model._compute_n_features_outs()


_ONEHOT_OPTIONS = {"categories": ("auto",), "sparse_output": (False,),
                   "dtype": tuple(_DTYPES), "drop": (None, "first", "if_binary"),
                   "handle_unknown": ("error", "ignore", "infrequent_if_exist", "warn"),
                   "feature_name_combiner": ("concat",), "min_frequency": (None,),
                   "max_categories": (None,)}


def check_onehot_state(path, model):
    for key, allowed in _ONEHOT_OPTIONS.items():
        value = getattr(model, key)
        if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
            fail(path, f"OneHotEncoder.{key} must be one of {list(allowed)}, got "
                       f"{getattr(model, key)!r}")
    _check_onehot(path, model)


# ---- SimpleImputer ------------------------------------------------------------------
def _imputer_view(model):
    p = model.get_params(deep=False)
    mv = p.pop("missing_values")
    if not (isinstance(mv, float) and np.isnan(mv)):
        _refuse("SimpleImputer", f"missing_values={mv!r}; model files store imputers of NaN "
                                 "(the default) only")
    if p["add_indicator"]:
        _refuse("SimpleImputer", "add_indicator=True is not stored")
    if p["strategy"] not in ("mean", "median", "most_frequent", "constant"):
        _refuse("SimpleImputer", "the strategy must be a name (a file holds no code)")
    stats = np.asarray(model.statistics_)
    stats_dtype = "object" if stats.dtype.kind == "O" else "float64"
    if stats.dtype.kind == "O":  # text, or the fill_value of strategy="constant"
        if all(isinstance(v, str) for v in stats):
            stats = np.array(stats.tolist(), dtype=str)
        elif all(isinstance(v, Real) and not isinstance(v, bool) for v in stats):
            stats = np.array(stats.tolist(), dtype=np.float64)
        else:
            _refuse("SimpleImputer", "statistics_ mix text and numbers")
    if stats.dtype.kind == "f" and not np.isfinite(stats).all():
        _refuse("SimpleImputer", "a column had no observed value at fit (its statistic is "
                                 "NaN); drop that column first")
    fit_dtype = model._fit_dtype.name if model._fit_dtype.kind != "O" else "object"
    return _View(model, p, statistics_=stats, fit_dtype_=fit_dtype,
                 statistics_dtype_=stats_dtype)


_IMPUTER_OPTIONS = {"strategy": ("mean", "median", "most_frequent", "constant")}


def check_imputer_state(path, model):
    if model.strategy not in _IMPUTER_OPTIONS["strategy"]:
        fail(path, f"SimpleImputer.strategy must be one of {list(_IMPUTER_OPTIONS['strategy'])}")
    for key in ("add_indicator", "keep_empty_features", "copy"):
        if not isinstance(getattr(model, key), bool):
            fail(path, f"SimpleImputer.{key} must be true or false")
    if model.add_indicator:
        fail(path, "SimpleImputer.add_indicator is not stored in model files")
    fill = model.fill_value
    if fill is not None and (isinstance(fill, bool) or not isinstance(fill, (str, Real))):
        fail(path, "SimpleImputer.fill_value must be None, a number or a string")
    fit_dtype = model.__dict__.pop("fit_dtype_", None)
    if fit_dtype not in ("float64", "float32", "int64", "object"):
        fail(path, f"SimpleImputer.fit_dtype_ is {fit_dtype!r}")
    stats_dtype = model.__dict__.pop("statistics_dtype_", "float64")
    stats = getattr(model, "statistics_", None)
    n = model.n_features_in_
    if stats_dtype not in ("float64", "object") or stats is None or stats.shape != (n,) or \
            stats.dtype.kind not in ("fU" if stats_dtype == "object" else "f"):
        fail(path, f"SimpleImputer.statistics_ must be ({n},) numbers, or strings of dtype "
                   "object")
    if stats_dtype == "object":
        model.statistics_ = stats.astype(object)
    model._fit_dtype = model._fill_dtype = np.dtype(fit_dtype)
    model.indicator_ = None


# ---- ColumnTransformer --------------------------------------------------------------
_CT_PARAMS = ("remainder", "sparse_threshold", "n_jobs", "transformer_weights", "verbose",
              "verbose_feature_names_out")


def column_transformer_params(model):
    """The JSON-able parameters of a ColumnTransformer (its transformers are children)."""
    p = model.get_params(deep=False)
    if not (isinstance(p["remainder"], str) and p["remainder"] in ("drop", "passthrough")):
        _refuse("ColumnTransformer", "remainder must be 'drop' or 'passthrough'")
    if getattr(model, "sparse_output_", False):
        _refuse("ColumnTransformer", "its output is sparse; model files store column "
                                     "transformers with dense output (the kernel estimators "
                                     "take sparse input, but the file format does not hold "
                                     "this one yet): set sparse_threshold=0")
    for name, _, cols in model.transformers:
        if callable(cols):
            _refuse("ColumnTransformer", f"the columns of {name!r} are a callable; give ints "
                                         "or column names (a file holds no code)")
    return {k: p[k] for k in _CT_PARAMS}


def check_column_spec(cols):
    """``cols`` as stored: an int, a str, or a non-empty list of ints or of strs.
    Returns the JSON form, or raises ValueError."""
    if isinstance(cols, np.ndarray):
        cols = cols.tolist()
    if isinstance(cols, (Integral, str)) and not isinstance(cols, bool):
        return int(cols) if isinstance(cols, Integral) else cols
    if isinstance(cols, (list, tuple)) and cols and (
            all(isinstance(c, Integral) and not isinstance(c, bool) for c in cols)
            or all(isinstance(c, str) for c in cols)):
        return [c if isinstance(c, str) else int(c) for c in cols]
    raise ValueError(f"columns must be ints or column names (one, or a non-empty list of "
                     f"one kind), got {cols!r}")


def _indices(path, cols, n, names):
    items = cols if isinstance(cols, list) else [cols]
    out = []
    for c in items:
        if isinstance(c, str):
            if names is None or c not in names:
                fail(path, f"ColumnTransformer: column {c!r} is not among feature_names_in_")
            out.append(names.index(c))
        elif not -n <= c < n:  # negative: from the end, as scikit-learn selects
            fail(path, f"ColumnTransformer: column {c} is out of range for {n} features")
        else:
            out.append(c % n)
    return out


def restore_column_transformer(path, params, children, attrs):
    """A fitted ColumnTransformer from its stored parameters, its fitted children
    ``[(name, transformer or 'drop'/'passthrough', columns)]`` and its attributes."""
    unknown = set(params) - set(_CT_PARAMS)
    if unknown:
        fail(path, f"unknown parameters {sorted(unknown)} for ColumnTransformer")
    if params.get("remainder", "drop") not in ("drop", "passthrough"):
        fail(path, "ColumnTransformer.remainder must be 'drop' or 'passthrough'")
    weights = params.get("transformer_weights")
    if weights is not None and not (isinstance(weights, dict) and all(
            isinstance(v, Real) and not isinstance(v, bool) for v in weights.values())):
        fail(path, "ColumnTransformer.transformer_weights must map names to numbers")
    unknown = set(attrs) - set(_NAMES)
    if unknown:
        fail(path, f"unknown attributes {sorted(unknown)} for ColumnTransformer")
    n = attrs.get("n_features_in_")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_COLUMNS:
        fail(path, f"ColumnTransformer.n_features_in_ is {n!r}; a model file's column "
                   f"transformer takes 1 to {MAX_COLUMNS} columns")
    names = attrs.get("feature_names_in_")
    if names is not None:
        names = [str(v) for v in names]
        if len(names) != n:
            fail(path, "ColumnTransformer.feature_names_in_ does not match n_features_in_")
    for key in ("verbose", "verbose_feature_names_out"):
        if not isinstance(params.get(key, False), bool):
            fail(path, f"ColumnTransformer.{key} must be true or false")
    threshold, jobs = params.get("sparse_threshold", 0.3), params.get("n_jobs")
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or \
            not 0 <= threshold <= 1 or (jobs is not None and (
                isinstance(jobs, bool) or not isinstance(jobs, int))):
        fail(path, "ColumnTransformer.sparse_threshold must be in [0, 1] and n_jobs an int")
    model = ColumnTransformer([(name, est, cols) for name, est, cols in children], **params)
    model.n_features_in_ = n
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    used, to_input = set(), {}
    for name, est, cols in children:
        idx = _indices(path, cols, n, names)
        widths = getattr(est, "n_features_in_", None)
        if est not in ("drop", "passthrough") and widths is not None and widths != len(idx):
            fail(path, f"ColumnTransformer: {name!r} was fitted on {widths} columns but "
                       f"selects {len(idx)}")
        to_input[name] = idx
        used.update(idx)
    remaining = np.setdiff1d(np.arange(n), np.fromiter(used, dtype=np.int64)).tolist()
    to_input["remainder"] = remaining
    model._columns = [cols for _, _, cols in children]
    model._transformer_to_input_indices = to_input
    key_kinds = {type(c if not isinstance(c, list) else c[0]) for _, _, c in children}
    remainder_cols = ([names[i] for i in remaining] if key_kinds == {str} and names
                      else remaining)
    model._remainder = ("remainder", model.remainder, remainder_cols)
    model.sparse_output_ = False
    fitted = []
    for name, est, cols in children:
        if est == "passthrough":
            est = _passthrough(len(to_input[name]))
        fitted.append((name, est, cols))
    if remaining and model.remainder == "passthrough":
        fitted.append(("remainder", _passthrough(len(remaining)), remainder_cols))
    elif remaining or model.remainder == "drop":
        fitted.append(("remainder", model.remainder, remainder_cols))
    model.transformers_ = fitted
    start, model.output_indices_ = 0, {}
    for name, est, _ in fitted:
        width = 0 if isinstance(est, str) else _width(est, len(to_input[name]))
        model.output_indices_[name] = slice(start, start + width) if width else slice(0, 0)
        start += width
    for name in [c[0] for c in children] + ["remainder"]:
        model.output_indices_.setdefault(name, slice(0, 0))
    return model


def _passthrough(k):
    # What ColumnTransformer.fit puts in transformers_ for "passthrough".
    return FunctionTransformer(accept_sparse=True, check_inverse=False,
                               feature_names_out="one-to-one").fit(np.zeros((1, k)))


def _width(est, k):
    for names in (None, [f"x{i}" for i in range(k)]):  # its own input names first
        try:
            return len(est.get_feature_names_out(names))
        except (AttributeError, ValueError, TypeError):
            continue
    return k

