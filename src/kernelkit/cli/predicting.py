"""What ``kernelkit predict`` reads: the model's feature columns (by name when the
model knows them), the target if present, and an identifier column passed through
to the output so that predictions can be joined back to their rows.

The target is the column named with ``--target``, else the fit's target column
when the file has it, else the one column that is not a feature -- unless that
column is an identifier (named with ``--id``, at fit time, or named like one:
``id``, ``row_id``, ``customerId``), which is never scored against.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .usage import column_list
from .tables import TEXT_HINT, looks_like_id, read_columns

__all__ = ["predict_inputs", "select_columns", "header", "check_probabilities", "label_text",
           "label_json", "imputes", "as_frame", "selects_by_name"]


def _feature_names(model):
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(n) for n in names]


def _uses_onehot(model):
    from sklearn.compose import ColumnTransformer

    first = model.steps[0][1] if hasattr(model, "steps") else model
    return isinstance(first, ColumnTransformer)


def imputes(model):
    """Whether ``model`` fills missing values itself (a SimpleImputer among its steps,
    or inside a ColumnTransformer's)."""
    from sklearn.impute import SimpleImputer

    stack = [model]
    while stack:
        step = stack.pop()
        if isinstance(step, SimpleImputer):
            return True
        stack += [s for _, s in getattr(step, "steps", [])]
        stack += [t for _, t, _ in getattr(step, "transformers", [])]
        stack += [t for _, t, _ in getattr(step, "transformers_", [])]
    return False


def selects_by_name(model):
    """Whether a ColumnTransformer of ``model`` names its columns (str), which
    scikit-learn only accepts from a DataFrame."""
    stack = [model]
    while stack:
        step = stack.pop()
        for _, t, cols in getattr(step, "transformers", []):
            if isinstance(cols, str) or (isinstance(cols, (list, tuple)) and cols
                                         and all(isinstance(c, str) for c in cols)):
                return True
            stack.append(t)
        stack += [s for _, s in getattr(step, "steps", [])]
    return False


def as_frame(model, X, path):
    """X as a pandas DataFrame with the model's column names, for a model whose
    ColumnTransformer selects columns by name; else X unchanged."""
    names = getattr(model, "feature_names_in_", None)
    if names is None or not selects_by_name(model):
        return X
    try:
        import pandas as pd
    except ImportError:
        raise ValueError(f"{path}: the model's ColumnTransformer selects its columns by name, "
                         "which scikit-learn reads from a pandas DataFrame: pip install "
                         "pandas") from None
    return pd.DataFrame(X, columns=[str(n) for n in names])


def predict_inputs(model, meta, args, header, notes):
    """``(X, y_col, names, target, id_name, ids)`` for ``select_columns`` and the output.

    ``meta``: the model file's user metadata (``target``, ``id``, ``text_column``);
    ``header``: the data file's column names; ``notes``: a list the command prints.
    """
    target = args.target
    if target is None and meta.get("target") in header:
        target = meta["target"]  # the column the model was fitted against
    id_name = args.id
    if id_name is None and meta.get("id") in header:
        id_name = meta["id"]
        notes.append(f"column {id_name!r} (the model's --id) passed through to the output")
    fitted = _feature_names(model)
    text_column = meta.get("text_column")
    known = fitted if fitted is not None else ([text_column] if text_column else None)
    if id_name is None and target is None and known is not None:
        extra = [h for h in header if h not in known]
        if len(extra) == 1 and looks_like_id(extra[0]):
            id_name = extra[0]
            notes.append(f"column {id_name!r} looks like an identifier: passed through to the "
                         "output, not taken as the target (name the target with --target)")
    if id_name is not None and id_name == target:
        raise ValueError(f"--id {id_name!r} is also the target column")
    if id_name is not None and known is not None and id_name in known:
        raise ValueError(f"--id {id_name!r} is one of the model's feature columns")
    use_target = target if target is not None and target in header else None
    table = read_columns(args.data, target=use_target, id_column=id_name,
                         allow_missing=imputes(model),
                         gap_hint="this model does not fill gaps: drop those rows, or fit it "
                                  "with kernelkit fit --impute mean|median")
    if table.missing:
        notes.append("gaps filled by the model's imputer: " + ", ".join(
            f"{name} {count}" for name, count in table.missing.items()))
    if text_column:  # a string-kernel model reads one text column
        if text_column not in table.names:
            raise ValueError(f"{args.data}: the model reads the text column {text_column!r}, "
                             f"which the file lacks (its columns are {header})")
        col = table.columns[table.names.index(text_column)]
        X = np.empty(len(col), dtype=object)
        X[:] = [str(v) for v in col.tolist()]
        return X, table.y, None, target, id_name, table.ids
    if table.text:
        used = table.text if fitted is None else [n for n in table.text if n in fitted]
        if used and not _uses_onehot(model):
            example = table.columns[table.names.index(used[0])][0]
            raise ValueError(f"{args.data}: column(s) {used} hold text (e.g. {example!r}) but "
                             "the model takes numbers; fit it with --onehot, or "
                             f"{TEXT_HINT.split(': ', 1)[0]}")
        X = table.mixed()
    else:
        X = table.numeric()
    names = table.names + ([use_target] if use_target is not None else [])
    return X, table.y, names, target, id_name, table.ids


def select_columns(model, X, names, target, path, y_col=None, notes=None):
    """Features in the model's order, and the target column or None. ``y_col``: the
    target read apart from X (its name is the last of ``names``); ``notes``: a list
    that gets the note when a model without column names takes them by position."""
    if y_col is not None:
        X = np.column_stack([X, np.zeros(len(X))])  # a placeholder column for the target
    fitted = getattr(model, "feature_names_in_", None)
    n_in = int(model.n_features_in_)
    if target is not None and target not in names:
        raise ValueError(f"{path}: no target column {target!r}; the columns are {column_list(names)}")
    if fitted is None:  # a model fitted in Python on an array: columns by position
        keep = [j for j, name in enumerate(names) if name != target]
        if len(keep) != n_in:
            hint = (" (if one of them is the target, name it with --target)"
                    if target is None and len(keep) == n_in + 1 else "")
            raise ValueError(f"{path}: the model expects {n_in} feature columns but the file "
                             f"has {len(keep)}{hint}")
        if notes is not None:
            notes.append("the model was fitted without column names (on an array in Python): "
                         "the file's columns are taken by position, in the file's order "
                         f"({column_list([names[j] for j in keep])}); check that it is the fit's "
                         "order")
        y = None if target is None else (y_col if y_col is not None
                                          else X[:, names.index(target)])
        return X[:, keep], y, target
    fitted = [str(n) for n in fitted]
    missing = [n for n in fitted if n not in names]
    if missing:
        raise ValueError(f"{path}: the model expects {n_in} feature columns {column_list(fitted)}, "
                         f"but {column_list(missing)} {'is' if len(missing) == 1 else 'are'} missing "
                         f"from the file (its columns are {column_list(names)})")
    extra = [n for n in names if n not in fitted]
    if target is None and len(extra) == 1:
        target = extra[0]  # the fit's target column, or at least the one non-feature column
        col = (y_col if y_col is not None and target == names[-1]
               else X[:, names.index(target)])
        _check_guessed_target(model, col, target, path)
    elif target is not None and target in fitted:
        raise ValueError(f"--target {target!r} is one of the model's feature columns")
    elif [n for n in extra if n != target]:
        others = [n for n in extra if n != target]
        raise ValueError(f"{path}: has {len(names)} columns but the model expects {n_in} "
                         f"features; columns {others} are not features of the model. "
                         "Remove them, or name the target column with --target")
    X_sel = X[:, [names.index(n) for n in fitted]]
    y = None if target is None else (y_col if y_col is not None and target == names[-1]
                                     else X[:, names.index(target)])
    return X_sel, y, target


def _check_guessed_target(model, col, name, path):
    """Refuse to score against a column nobody named as the target when its values
    cannot be the model's targets: text for a regressor, unknown labels for a classifier."""
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    classes = getattr(final, "classes_", None)
    values = list(col[:1000])
    if classes is None:
        try:
            np.asarray(values, dtype=np.float64)
            return
        except (TypeError, ValueError):
            bad = next(v for v in values if not _is_number(v))
    else:
        known = {label_text(c) for c in classes}
        bad = next((v for v in values if label_text(v) not in known), None)
        if bad is None:
            return
    shown = str(bad) if len(str(bad)) <= 40 else str(bad)[:37] + "..."
    raise ValueError(
        f"{path}: column {name!r} is not a feature of the model, and it is not its target "
        f"(it holds {shown!r}, which is not {'a number' if classes is None else 'one of the '}"
        f"{'' if classes is None else 'classes'}); pass it through to the output with "
        f"--id {name}, remove it, or name the target with --target")


def _is_number(v):
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def header(path):
    """The column names of a table (its first non-blank line)."""
    import csv

    from ..datasets.readers import read_bytes

    text = read_bytes(path).decode("utf-8-sig", errors="replace")
    for line in text.splitlines():
        if line.strip():
            name = Path(path).name.lower().removesuffix(".gz")
            delim = "\t" if name.endswith((".tsv", ".tab")) or (
                not name.endswith(".csv") and "\t" in line) else ","
            return [c.strip() for c in next(csv.reader([line], delimiter=delim))]
    return []


def check_probabilities(final, path):
    """A clear refusal of --proba for a model without class probabilities."""
    name = type(final).__name__
    if not hasattr(final, "classes_"):
        raise ValueError(f"--proba: {path} holds a regression model ({name}); class "
                         "probabilities come from a classifier: kernelkit fit --model "
                         "logistic, or --model svm --proba")
    if getattr(final, "probability", True) is False:
        raise ValueError(f"--proba: the {name} of {path} was fitted without probabilities; "
                         "fit it again with kernelkit fit --model svm --proba")
    if not hasattr(final, "predict_proba"):
        raise ValueError(f"--proba: {path} holds a {name}, which gives no class "
                         "probabilities; fit with kernelkit fit --model logistic, or "
                         "--model svm --proba")


def label_text(value):
    """A label as the file writes it: whole numbers without '.0', text as it is."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def label_json(value):
    """A label for JSON: an integer stays an integer, anything else its text."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    return str(value)
