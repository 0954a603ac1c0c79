"""Tables with text columns for ``kernelkit fit`` and ``predict``: an ID column set
aside, text columns kept as text (for a string kernel, or one-hot encoding), and
the numeric columns read as ``kernelkit.datasets.read_table`` reads them.

Numeric tables take ``read_table``'s fast path and errors; a table with text
feature cells is read here, by column, with errors naming the line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Table", "read_columns", "looks_like_id", "TEXT_HINT"]

#: How to go on when a feature column holds text.
TEXT_HINT = ("encode categorical columns first: pass --onehot to one-hot encode the text "
             "columns (the encoder is stored in the model file), or give a string kernel "
             "such as --kernel \"spectrum(k=3)\" for one text column")
#: Column names that say "identifier" (compared in lower case).
_ID_NAMES = {"id", "index", "key", "row", "rowid", "row_id", "uuid", "idx"}


@dataclass
class Table:
    """The columns of a file: features (numbers or text, by column), target and IDs."""

    names: list  # feature column names, in file order
    columns: list  # one array per feature column: float64 or str
    y: object = None
    ids: object = None  # str array of the --id column, or None
    text: list = field(default_factory=list)  # names of the text feature columns
    missing: dict = field(default_factory=dict)  # column name -> gaps read as NaN (--impute)

    @property
    def n(self):
        return len(self.columns[0]) if self.columns else 0

    def numeric(self):
        """All features as a float64 (n, d) array (only when no column is text)."""
        return np.column_stack(self.columns).astype(np.float64, copy=False)

    def mixed(self):
        """All features as an object (n, d) array: floats and str, for a
        ColumnTransformer that one-hot encodes the text columns."""
        out = np.empty((self.n, len(self.columns)), dtype=object)
        for j, col in enumerate(self.columns):
            out[:, j] = col
        return out


def looks_like_id(name):
    """True for a column named like an identifier (``id``, ``row_id``, ``customerId``)."""
    low = name.strip().lower()
    return low in _ID_NAMES or low.endswith(("_id", "-id", " id")) or (
        len(name) > 2 and name.endswith(("Id", "ID")) and name[-3].islower())


def _delimiter(path, line):
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith((".tsv", ".tab")):
        return "\t"
    if name.endswith(".csv"):
        return ","
    return "\t" if "\t" in line else ","


def read_columns(path, target=None, id_column=None, allow_missing=False,
                 gap_hint="drop those rows, or fill them with --impute mean|median"):
    """Read ``path`` column by column.

    Parameters
    ----------
    path : str or Path
        CSV/TSV with a header row (``.gz`` ok).
    target : str or None
        The target column (kept apart; numbers become float64, else labels).
    id_column : str or None
        A column passed through untouched (as text), never a feature.
    allow_missing : bool, default=False
        Empty cells (or NA, NaN, null, ?) of numeric feature columns read as NaN and
        counted in ``Table.missing`` (for an imputer); otherwise refused.
    gap_hint : str
        What the refusal of a gap advises.

    Returns
    -------
    Table

    Raises
    ------
    ValueError
        Unknown target or ID column, ragged rows, empty cells, an empty table.
    """
    from ..datasets import read_table
    from ..datasets.readers import GAP_TOKENS, csv_records, read_bytes

    if id_column is not None and id_column == target:
        raise ValueError(f"--id {id_column!r} names the --target column; the identifier must "
                         "be another column (or leave --id out)")
    try:
        X, y, names = read_table(path, target=target)  # numbers only: the fast path
    except ValueError as exc:
        gap = "missing values are not supported" in str(exc) and "(the target)" not in str(exc)
        if "is not a number" not in str(exc) and not gap:
            raise
    else:
        cols = [X[:, j] for j in range(X.shape[1])]
        ids = None
        if id_column is not None:
            if id_column not in names:
                raise ValueError(_no_column(path, id_column, names + [target]))
            j = names.index(id_column)
            ids = np.array([_number_text(v) for v in cols.pop(j)], dtype=str)
            names = names[:j] + names[j + 1:]
        if not cols:
            raise ValueError(f"{path}: no feature columns left besides the target and --id")
        return Table(names, cols, y, ids)
    text = read_bytes(path).decode("utf-8-sig")
    if "\r" in text:  # Windows (CRLF) and old-Mac (CR-only) line endings alike
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    first = next(ln for ln in text.split("\n") if ln.strip())
    delim = _delimiter(path, first)
    try:
        records = csv_records(text, delim)  # quoted fields may span lines
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    linenos = [ln for ln, _ in records]
    rows = [r for _, r in records]
    header = [c.strip() for c in rows[0]]
    for name in (target, id_column):
        if name is not None and name not in header:
            raise ValueError(_no_column(path, name, header))
    for lineno, row in zip(linenos[1:], rows[1:]):
        if len(row) != len(header):
            raise ValueError(f"{path}: line {lineno} has {len(row)} fields but the header has "
                             f"{len(header)} (delimiter {delim!r}); every row needs one value "
                             "per column")
    body = rows[1:]
    y = ids = None
    names, cols, text_cols, missing = [], [], [], {}
    for j, name in enumerate(header):
        cells = [r[j].strip() for r in body]
        if name == target:
            y = _target(cells, path, linenos[1:], name)
        elif name == id_column:
            ids = np.array(cells, dtype=str)
        else:
            marked = [k for k, c in enumerate(cells) if not c or c.lower() in GAP_TOKENS]
            col = _numbers(cells, marked)  # None: the column holds text
            # in a text column "NA" or "None" is a category; only an empty cell is a gap
            gaps = marked if col is not None else [k for k in marked if not cells[k]]
            if gaps and not allow_missing:
                raise ValueError(f"{path}: line {linenos[1 + gaps[0]]}, column {name!r} is "
                                 f"{'empty' if not cells[gaps[0]] else repr(cells[gaps[0]])}; "
                                 f"missing values are not supported: {gap_hint}")
            if col is None:
                if gaps:
                    raise ValueError(
                        f"{path}: line {linenos[1 + gaps[0]]}, column {name!r} has a gap, and "
                        "the column holds text: --impute fills numeric columns only; drop "
                        "those rows or fill the cells")
                col = np.array(cells, dtype=str)
                text_cols.append(name)
            if gaps:
                missing[name] = len(gaps)
            names.append(name)
            cols.append(col)
    if not cols:
        raise ValueError(f"{path}: no feature columns left besides the target and --id")
    return Table(names, cols, y, ids, text_cols, missing)


def _numbers(cells, gaps):
    """The column as float64 with NaN at ``gaps``, or None when another cell is not a
    finite number (a text column)."""
    col = np.full(len(cells), np.nan)
    keep = np.ones(len(cells), dtype=bool)
    keep[gaps] = False
    try:
        values = np.array([c for c, k in zip(cells, keep) if k], dtype=np.float64)
    except ValueError:
        return None
    if not np.isfinite(values).all():
        return None
    col[keep] = values
    return col


def _number_text(value):
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _no_column(path, name, names):
    names = [n for n in names if n is not None]
    return f"{path}: no column {name!r}; the columns are {names}"


def _target(cells, path, linenos, name):
    from ..datasets.readers import check_target_cells

    check_target_cells(cells, linenos, name, path)
    try:
        y = np.array(cells, dtype=np.float64)
    except ValueError:
        return np.array(cells, dtype=str)
    return y if np.isfinite(y).all() else np.array(cells, dtype=str)


def fit_inputs(table, settings, onehot, path):
    """The X that ``kernelkit fit`` learns from, with ``settings`` told how: one text
    column for a string kernel, text columns one-hot encoded (``--onehot``), or numbers.

    Returns
    -------
    X : ndarray
        (n,) str objects for a string kernel, (n, d) objects for --onehot, else
        (n, d) float64.
    notes : list of str
        What was decided, for stderr.
    """
    kernel, notes = settings.kernel, []
    suspects = [n for n in table.names if looks_like_id(n)]
    if suspects:
        notes.append(f"column(s) {suspects} look like identifiers but are used as features; "
                     "set one aside with --id COLUMN")
    if kernel is not None and getattr(kernel, "input_kind", "vector") == "string":
        if len(table.columns) != 1:
            raise ValueError(f"{path}: the string kernel {kernel!r} reads one text column, but "
                             f"there are {len(table.columns)} feature columns {table.names}; "
                             "keep only the text column and the target (an identifier can "
                             "stay, named with --id)")
        col = table.columns[0]
        texts = [_number_text(v) for v in col] if col.dtype.kind == "f" else col.tolist()
        X = np.empty(len(texts), dtype=object)
        X[:] = texts
        settings.strings = True
        notes.append(f"text column {table.names[0]!r} read as strings for {kernel!r}")
        return X, notes
    if table.text:
        if not onehot:
            example = table.columns[table.names.index(table.text[0])][0]
            raise ValueError(f"{path}: column(s) {table.text} hold text (e.g. {example!r}), "
                             f"and the kernel takes numbers; {TEXT_HINT}")
        settings.onehot = tuple(table.names.index(n) for n in table.text)
        settings.numeric_columns = tuple(j for j in range(len(table.names))
                                         if j not in settings.onehot)
        return table.mixed(), notes
    if onehot:
        notes.append("--onehot: every feature column is numeric; nothing to encode")
    return table.numeric(), notes
