"""Readers of user files: delimited tables (what ``kernelkit fit`` and ``predict``
read, with errors naming the file, the line and the column), IDX and libsvm files."""

from __future__ import annotations

import csv
import gzip
import io
import zlib
from pathlib import Path

import numpy as np

_NUMERIC_HINT = "kernelkit fit expects numeric feature columns; encode categorical columns first"


def read_bytes(path):
    """All bytes of ``path``, gunzipped if it starts with the gzip magic."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(2, f"no such file: '{path}'", str(path))
    if path.is_dir():
        raise IsADirectoryError(21, f"{path} is a directory, not a data file", str(path))
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file (a pipe, device or socket); "
                         "save the data to a file first")
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise ValueError(f"{path}: corrupt or truncated gzip file ({exc}); re-download or re-compress it") from None
    return raw


def read_table(path, *, target="target", delimiter=None):
    """Read a delimited text table with a header row into numeric arrays.

    Parameters
    ----------
    path : str or path-like
        A CSV or TSV file, optionally gzip-compressed (detected from its
        content, so ``.gz`` is not required). The first non-blank line holds
        the column names; blank lines are skipped.
    target : str or None, default="target"
        Name of the target column. ``None`` means the file has no target
        (as for ``kernelkit predict``); then every column is a feature.
    delimiter : str or None, default=None
        Field separator. ``None``: tab for ``.tsv``/``.tab``, comma for
        ``.csv`` (also under ``.gz``), otherwise tab if the header line
        contains one, else comma.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        The feature columns, in file order.
    y : ndarray of shape (n_samples,) or None
        float64 if every target cell is a number, otherwise the labels as
        ``str``; ``None`` when ``target`` is None.
    feature_names : list of str
        Names of the columns of ``X``.

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        Empty file, no header row, unknown target column, rows with the
        wrong number of fields, non-numeric or missing (empty/NaN/inf)
        feature cells, missing target cells. The message gives the file,
        line and column.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> _ = open(path, "w").write("a,b,target\\n1,2,0.5\\n3,4,1.5\\n")
    >>> X, y, names = read_table(path)
    >>> X.shape, y.tolist(), names
    ((2, 2), [0.5, 1.5], ['a', 'b'])
    """
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}); save the table as UTF-8 CSV/TSV") from None
    if delimiter is None:
        name = Path(path).name.lower().removesuffix(".gz")
        delimiter = "\t" if name.endswith((".tsv", ".tab")) else "," if name.endswith(".csv") else None
    return parse_table(text, str(path), target, delimiter)


def csv_records(text, delimiter, first_line=1):
    """``[(line, fields)]``: every record of ``text`` that is not blank, with the line
    (counted from ``first_line``) where it starts. Records are split by the csv module
    over the whole text, so a quoted field may hold line breaks (kept in its value);
    the text is never cut into lines first.

    Raises
    ------
    ValueError
        A quote opened and never closed (naming the line where its record starts).
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                        skipinitialspace=True, strict=True)
    out, start = [], first_line
    try:
        for row in reader:
            if any(c.strip() for c in row):
                out.append((start, row))
            start = first_line + reader.line_num
    except csv.Error as exc:
        what = ("a quoted field is opened and never closed; every opening quote needs its "
                "closing quote" if "end of data" in str(exc) else
                f"{exc}: check the delimiter and that every quote is closed")
        raise ValueError(f"line {start}: {what}") from None
    return out


def parse_table(text, source, target, delimiter):
    if "\r" in text:  # Windows (CRLF) and old-Mac (CR-only) line endings alike
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    header_idx = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if header_idx is None:
        raise ValueError(f"{source}: the file is empty; expected a header row of column names, then data rows")
    if delimiter is None:
        delimiter = "\t" if "\t" in lines[header_idx] else ","
    names = [c.strip() for c in next(csv.reader([lines[header_idx]], delimiter=delimiter))]
    _check_header(names, source, header_idx + 1)

    n_cols = len(names)
    if target is None:
        t = None
    elif target in names:
        t = names.index(target)
    else:
        raise ValueError(
            f"{source}: no target column {target!r}; the columns are {names}. "
            "Pass the right name (--target on the command line, target=... in Python), or "
            "no target (target=None) if the file has none"
        )
    feat = [j for j in range(n_cols) if j != t]
    if not feat:
        raise ValueError(f"{source}: the only column is the target {target!r}; there are no feature columns")

    linenos = [i + 1 for i in range(header_idx + 1, len(lines)) if lines[i].strip()]
    body = [lines[i - 1] for i in linenos]
    if not body:
        raise ValueError(f"{source}: the header (line {header_idx + 1}) is followed by no data rows")

    sep = delimiter if delimiter != " " else None
    if '"' in text and sep is not None:
        # Quoted fields, which may hold the delimiter or line breaks: the csv module
        # splits the records from the whole text (a record may span lines).
        try:
            records = csv_records("\n".join(lines[header_idx + 1:]), delimiter, header_idx + 2)
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None
        if not records:
            raise ValueError(f"{source}: the header (line {header_idx + 1}) is followed by no "
                             "data rows")
        linenos = [ln for ln, _ in records]
        return _parse_rows_slowly([r for _, r in records], linenos, names, t, feat, source,
                                  delimiter, split=True)
    if sep is None:  # whitespace separation
        return _parse_rows_slowly(body, linenos, names, t, feat, source, delimiter)
    for lineno, ln in zip(linenos, body):  # str.count is C-fast; catches ragged rows loadtxt would accept
        if ln.count(delimiter) != n_cols - 1:
            _raise_ragged(source, lineno, ln.count(delimiter) + 1, n_cols, delimiter)
    try:
        X, y = _loadtxt(body, delimiter, t, feat)
    except ValueError:
        # loadtxt's message counts rows from 0 and columns by index; find the cell ourselves.
        return _parse_rows_slowly(body, linenos, names, t, feat, source, delimiter)
    _check_finite(X, linenos, [names[j] for j in feat], source)
    return X, _finish_target(y, linenos, names[t] if t is not None else None, source), [names[j] for j in feat]


def _loadtxt(body, delimiter, t, feat):
    """numpy's C parser: one pass over all columns when the target looks numeric."""
    opts = dict(delimiter=delimiter, dtype=np.float64, comments=None, ndmin=2)
    if t is None:
        return np.loadtxt(body, **opts), None
    if _is_number(body[0].split(delimiter)[t]):
        try:
            both = np.loadtxt(body, **opts)
            return np.ascontiguousarray(both[:, feat]), both[:, t].copy()
        except ValueError:
            pass  # e.g. labels "1", "2", ..., "other": read the target as text below
    X = np.loadtxt(body, usecols=feat, **opts)
    return X, np.loadtxt(body, delimiter=delimiter, usecols=t, dtype=str, comments=None, ndmin=1)


def _is_number(s):
    try:
        float(s)
    except ValueError:
        return False
    return True


def _check_header(names, source, lineno):
    if all(_is_number(c) for c in names):
        raise ValueError(
            f"{source}: line {lineno} holds numbers ({','.join(names[:5])}...), not column names; "
            "the file needs a header row of column names as its first line"
        )
    seen = set()
    for c in names:
        if c in seen:
            raise ValueError(f"{source}: line {lineno}: column name {c!r} appears more than once; rename one")
        seen.add(c)


def _raise_ragged(source, lineno, got, expected, delimiter):
    raise ValueError(
        f"{source}: line {lineno} has {got} fields but the header has {expected} "
        f"(delimiter {delimiter!r}); every row needs one value per column"
    )


def _parse_rows_slowly(body, linenos, names, t, feat, source, delimiter, split=False):
    """Pure-Python parse that reports the first bad cell by line and column name.
    ``split``: ``body`` holds records already split into fields."""
    reader = (body if split else _field_limited(
        csv.reader(body, delimiter=delimiter, skipinitialspace=True), source, linenos)
              if delimiter != " " else (ln.split() for ln in body))
    X = np.empty((len(body), len(feat)), dtype=np.float64)
    y = []
    for r, (lineno, row) in enumerate(zip(linenos, reader)):
        if len(row) != len(names):
            _raise_ragged(source, lineno, len(row), len(names), delimiter)
        for k, j in enumerate(feat):
            cell = row[j].strip()
            try:
                X[r, k] = float(cell)
            except ValueError:
                if not cell:
                    _raise_missing(source, lineno, names[j], "is empty")
                shown = cell if len(cell) <= 40 else cell[:37] + "..."
                raise ValueError(
                    f"{source}: line {lineno}, column {names[j]!r}: {shown!r} is not a number; {_NUMERIC_HINT}"
                ) from None
        if t is not None:
            y.append(row[t].strip())
    _check_finite(X, linenos, [names[j] for j in feat], source)
    y = None if t is None else np.array(y, dtype=str)
    return X, _finish_target(y, linenos, names[t] if t is not None else None, source), [names[j] for j in feat]


def _field_limited(reader, source, linenos):
    """The rows of a csv reader, its field-size error as a ValueError naming the line."""
    k = 0
    try:
        for k, row in enumerate(reader):
            yield row
    except csv.Error as exc:
        line = linenos[min(k + 1, len(linenos) - 1)] if linenos else "?"
        raise ValueError(f"{source}: line {line}: {exc}; a cell this long is not a table "
                         "value: check the delimiter and the quotes") from None


def _raise_missing(source, lineno, column, what):
    raise ValueError(
        f"{source}: line {lineno}, column {column!r} {what}; missing values are not supported, "
        "drop or impute those rows first"
    )


def _check_finite(X, linenos, feat_names, source):
    bad = ~np.isfinite(X)
    if bad.any():
        r, k = np.argwhere(bad)[0]
        _raise_missing(source, linenos[r], feat_names[k], f"is {X[r, k]!r} (not finite)")


#: Texts that mean "no value" in a table: never a class label or a number.
MISSING_TOKENS = frozenset({"nan", "na", "n/a", "null", "none", "?", "inf", "-inf", "+inf",
                            "infinity", "-infinity"})
#: Of those, the ones that mark a gap in a numeric column (the infinities are values
#: refused as such); in a text column they are categories like any other text.
GAP_TOKENS = frozenset({"nan", "na", "n/a", "null", "none", "?"})


def check_target_cells(cells, linenos, name, source):
    """Refuse a target cell that is empty or says "no value" (NaN, NA, null, ?, inf):
    a missing target is neither a class nor a number."""
    for k, c in enumerate(cells):
        c = str(c).strip()
        if not c:
            _raise_missing(source, linenos[k], name, "(the target) is empty")
        if c.lower() in MISSING_TOKENS:
            _raise_missing(source, linenos[k], name, f"(the target) is {c!r}, a missing value "
                           "(not a class label or a number)")


def _finish_target(y, linenos, name, source):
    """Numeric targets become float64; otherwise they stay as string labels."""
    if y is None:
        return None
    if y.dtype.kind != "f":
        y = np.char.strip(y)
        check_target_cells(y.tolist(), linenos, name, source)
        try:
            y = y.astype(np.float64)
        except ValueError:
            return y  # class labels such as "spam"/"ham"
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        _raise_missing(source, linenos[bad[0]], name, f"(the target) is {y[bad[0]]!r} (not finite)")
    return y


# ---------------------------------------------------------------- IDX (MNIST format)

# IDX type codes -> big-endian numpy dtypes (http://yann.lecun.com/exdb/mnist/, "THE IDX FILE FORMAT").
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def load_idx(path):
    """Read an IDX file, the format MNIST and Fashion-MNIST are published in.

    Parameters
    ----------
    path : str or path-like
        Raw or gzip-compressed IDX file (e.g. ``train-images-idx3-ubyte.gz``).

    Returns
    -------
    ndarray of shape given by the header
        ``(n, rows, cols)`` for images, ``(n,)`` for labels, in native byte
        order with the dtype of the header's type code (uint8 for MNIST).

    Raises
    ------
    ValueError
        Bad magic number, unknown type code, or a payload whose size does not
        match the header (truncated download or trailing bytes).
    """
    raw = read_bytes(path)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(
            f"{path}: not an IDX file: the first two bytes are {raw[:2].hex() or 'missing'}, expected 0000 "
            "(IDX starts with magic 0x00 0x00 <type> <ndim>)"
        )
    code, ndim = raw[2], raw[3]
    if code not in _IDX_DTYPES:
        known = ", ".join(f"0x{c:02X}" for c in _IDX_DTYPES)
        raise ValueError(f"{path}: unknown IDX type code 0x{code:02X}; known codes are {known}")
    header_size = 4 + 4 * ndim
    if len(raw) < header_size:
        raise ValueError(f"{path}: truncated IDX header: {len(raw)} bytes, {ndim} dimensions need {header_size}")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_DTYPES[code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    got = len(raw) - header_size
    if got != expected:
        what = "truncated (re-download it)" if got < expected else "has trailing bytes"
        raise ValueError(
            f"{path}: IDX payload is {got} bytes but the header's shape {shape} of {dtype.name} "
            f"needs {expected}; the file is {what}"
        )
    data = np.frombuffer(raw, dtype=dtype, offset=header_size).reshape(shape)
    return data.astype(dtype.newbyteorder("="))  # a native-order, writable copy


def load_libsvm(path, n_features=None):
    """Read a libsvm/svmlight file with scikit-learn.

    Parameters
    ----------
    path : str or path-like
        The file (``.gz`` and ``.bz2`` are decompressed by scikit-learn).
    n_features : int or None, default=None
        Number of columns; needed when a test file lacks the highest
        feature index of its training file.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64
    """
    from sklearn.datasets import load_svmlight_file  # lazy: only this reader needs it

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: '{path}'")
    try:
        X, y = load_svmlight_file(str(path), n_features=n_features)
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid libsvm/svmlight file: {exc}") from None
    return X.tocsr(), y


# ---------------------------------------------------------------- shared text data
