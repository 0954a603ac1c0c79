"""Datasets: bundled examples and readers for delimited tables, IDX and libsvm files.

Bundled data (``load_cpu_act``, ``load_banana``, ``load_california_housing``,
``load_dna_splice``) ships
inside the package and is read with :mod:`importlib.resources`, so it works
from an installed wheel; sources and licences are in ``kernelkit/data/README.md``.
Nothing here touches the network.

``read_table`` is what ``kernelkit fit`` and ``kernelkit predict`` use to read
user files, so its errors name the file, the line and the column.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import zlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = [
    "Dataset",
    "load_cpu_act",
    "load_banana",
    "load_california_housing",
    "load_dna_splice",
    "read_table",
    "load_idx",
    "load_fashion_mnist",
    "load_libsvm",
    "shared_data_dir",
    "load_shared_table",
    "load_sms_spam",
]

_NUMERIC_HINT = "kernelkit fit expects numeric feature columns; encode categorical columns first"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset: features, target and what they mean.

    Attributes
    ----------
    data : ndarray of shape (n_samples, n_features) or (n_samples,)
        Features, float64; for string data (DNA sequences) a 1-D object
        array of ``str``.
    target : ndarray of shape (n_samples,)
        float64 for regression; the original class labels (int or str) for
        classification.
    feature_names : tuple of str
        Names of the columns of ``data``.
    target_name : str
        Name of the target column.
    description : str
        What the data is, where it comes from and what to cite.
    """

    data: np.ndarray
    target: np.ndarray
    feature_names: tuple
    target_name: str
    description: str


# ---------------------------------------------------------------- bundled data

_DESCRIPTIONS = {
    "cpu_act": (
        "CPU activity (DELVE 'comp-activ', all 21 attributes): activity measures of a "
        "multi-user Sun SPARCstation sampled every 5 seconds; target is the percentage "
        "of time the CPUs run in user mode. 8,192 samples, regression. Source: DELVE "
        "(University of Toronto), redistributed by OpenML (id 197) and PMLB. Used as "
        "the 'CPU' benchmark by Rahimi & Recht, 'Random Features for Large-Scale "
        "Kernel Machines', NIPS 2007."
    ),
    "banana": (
        "Banana: 5,300 points in 2-D, two overlapping banana-shaped classes labelled "
        "-1 and 1. From G. Raetsch's benchmark collection (Raetsch, Onoda & Mueller, "
        "'Soft Margins for AdaBoost', Machine Learning 2001), via KEEL/OpenML/PMLB."
    ),
    "california_housing": (
        "California housing (1990 U.S. census): one row per block group, 20,640 rows; "
        "features median income, housing median age, total rooms, total bedrooms, "
        "population, households, latitude, longitude; target the median house value "
        "in dollars. R. K. Pace and R. Barry, 'Sparse Spatial Autoregressions', "
        "Statistics & Probability Letters 33 (1997); via StatLib, OpenML (537) and PMLB."
    ),
    "dna_splice": (
        "DNA splice junctions: 3,186 primate sequences of 60 nucleotides (A/C/G/T); "
        "labels EI (exon/intron boundary), IE (intron/exon boundary), N (neither). "
        "StatLog DNA version of the UCI 'Molecular Biology (Splice-junction Gene "
        "Sequences)' data (CC BY 4.0), decoded back to letters."
    ),
}


def _bundled_text(filename):
    """Decompressed text of a file in ``kernelkit/data`` (works from a wheel)."""
    with resources.files("kernelkit").joinpath("data", filename).open("rb") as fh:
        return gzip.decompress(fh.read()).decode("utf-8")


def _bundled_numeric(filename, name, return_X_y, classification):
    X, y, names = _parse_table(_bundled_text(filename), f"<bundled {filename}>", "target", "\t")
    if classification:
        y = y.astype(np.int64)  # labels are stored as -1.0 / 1.0; give back the integers
    if return_X_y:
        return X, y
    return Dataset(X, y, tuple(names), "target", _DESCRIPTIONS[name])


def load_cpu_act(*, return_X_y=False):
    """Load the CPU-activity regression data (DELVE comp-activ), bundled.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of (ndarray of shape (8192, 21), ndarray of shape (8192,))
        Features and target, both float64.

    Examples
    --------
    >>> from kernelkit.datasets import load_cpu_act
    >>> X, y = load_cpu_act(return_X_y=True)
    >>> X.shape, y.dtype
    ((8192, 21), dtype('float64'))
    """
    return _bundled_numeric("197_cpu_act.tsv.gz", "cpu_act", return_X_y, classification=False)


def load_banana(*, return_X_y=False):
    """Load the 2-D banana binary classification data, bundled.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of (ndarray of shape (5300, 2), ndarray of shape (5300,))
        Features float64; labels int64 in {-1, 1}.

    Examples
    --------
    >>> from kernelkit.datasets import load_banana
    >>> ds = load_banana()
    >>> ds.data.shape, sorted(set(ds.target.tolist()))
    ((5300, 2), [-1, 1])
    """
    return _bundled_numeric("banana.tsv.gz", "banana", return_X_y, classification=True)


def load_california_housing(*, return_X_y=False):
    """Load the California housing regression data (Pace & Barry 1997), bundled.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of (ndarray of shape (20640, 8), ndarray of shape (20640,))
        Features and target (median house value in dollars), both float64.

    Examples
    --------
    >>> from kernelkit.datasets import load_california_housing
    >>> X, y = load_california_housing(return_X_y=True)
    >>> X.shape, float(y.max())
    ((20640, 8), 500001.0)
    """
    return _bundled_numeric("537_houses.tsv.gz", "california_housing", return_X_y,
                            classification=False)


def load_dna_splice(*, return_X_y=False):
    """Load the DNA splice-junction sequences (StatLog / UCI), bundled.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of (ndarray of shape (3186,), ndarray of shape (3186,))
        ``data`` is an object array of 60-letter ``str`` sequences over
        A/C/G/T (for string kernels); ``target`` holds the labels
        ``"EI"``, ``"IE"`` and ``"N"``.

    Examples
    --------
    >>> from kernelkit.datasets import load_dna_splice
    >>> ds = load_dna_splice()
    >>> ds.data.shape, len(ds.data[0]), sorted(set(ds.target.tolist()))
    ((3186,), 60, ['EI', 'IE', 'N'])
    """
    rows = list(csv.reader(io.StringIO(_bundled_text("dna_splice.tsv.gz")), delimiter="\t"))
    header, rows = rows[0], [r for r in rows[1:] if r]
    if header != ["sequence", "label"]:  # guards against a bad re-bundling
        raise ValueError(f"bundled dna_splice.tsv.gz has columns {header}, expected ['sequence', 'label']")
    X = np.empty(len(rows), dtype=object)
    X[:] = [r[0] for r in rows]
    y = np.array([r[1] for r in rows])
    if return_X_y:
        return X, y
    return Dataset(X, y, ("sequence",), "label", _DESCRIPTIONS["dna_splice"])


# ---------------------------------------------------------------- delimited tables

def _read_bytes(path):
    """All bytes of ``path``, gunzipped if it starts with the gzip magic."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: '{path}'" + (" (it is a directory)" if path.is_dir() else ""))
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
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}); save the table as UTF-8 CSV/TSV") from None
    if delimiter is None:
        name = Path(path).name.lower().removesuffix(".gz")
        delimiter = "\t" if name.endswith((".tsv", ".tab")) else "," if name.endswith(".csv") else None
    return _parse_table(text, str(path), target, delimiter)


def _parse_table(text, source, target, delimiter):
    lines = text.split("\n")
    if "\r" in text:
        lines = [ln.rstrip("\r") for ln in lines]
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
            "Pass the right name as target=..., or target=None if the file has no target"
        )
    feat = [j for j in range(n_cols) if j != t]
    if not feat:
        raise ValueError(f"{source}: the only column is the target {target!r}; there are no feature columns")

    linenos = [i + 1 for i in range(header_idx + 1, len(lines)) if lines[i].strip()]
    body = [lines[i - 1] for i in linenos]
    if not body:
        raise ValueError(f"{source}: the header (line {header_idx + 1}) is followed by no data rows")

    sep = delimiter if delimiter != " " else None
    if '"' in text or sep is None:
        # Quoted fields (or whitespace separation): let the csv module split rows.
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


def _parse_rows_slowly(body, linenos, names, t, feat, source, delimiter):
    """Pure-Python parse that reports the first bad cell by line and column name."""
    reader = csv.reader(body, delimiter=delimiter, skipinitialspace=True) if delimiter != " " else (ln.split() for ln in body)
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


def _finish_target(y, linenos, name, source):
    """Numeric targets become float64; otherwise they stay as string labels."""
    if y is None:
        return None
    if y.dtype.kind != "f":
        y = np.char.strip(y)
        empty = np.flatnonzero(y == "")
        if empty.size:
            _raise_missing(source, linenos[empty[0]], name, "(the target) is empty")
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
    raw = _read_bytes(path)
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


def load_fashion_mnist(root=None, *, subset="train", return_X_y=False, dtype=np.float64):
    """Load Fashion-MNIST from the IDX files as published (no download).

    Parameters
    ----------
    root : str or path-like or None, default=None
        Directory holding ``train-images-idx3-ubyte.gz`` etc. ``None``:
        ``<shared_data_dir()>/fashion-mnist``.
    subset : {"train", "test"}, default="train"
        60,000 training or 10,000 test images.
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.
    dtype : numpy dtype, default=np.float64
        dtype of ``data``; ``np.float32`` halves memory (60,000 x 784 float64
        is 376 MB).

    Returns
    -------
    Dataset or tuple of (ndarray of shape (n, 784), ndarray of shape (n,))
        Pixels scaled to [0, 1] (divided by 255), one flattened 28 x 28
        image per row; labels int64 in 0..9.
    """
    prefix = {"train": "train", "test": "t10k"}.get(subset)
    if prefix is None:
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}")
    if root is None:
        shared = shared_data_dir()
        if shared is None:
            raise FileNotFoundError(_no_shared_message("Fashion-MNIST"))
        root = shared / "fashion-mnist"
    root = Path(root)
    images = load_idx(_find_idx(root, f"{prefix}-images-idx3-ubyte"))
    labels = load_idx(_find_idx(root, f"{prefix}-labels-idx1-ubyte"))
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{root}: {images.shape[0]} images but {labels.shape[0]} labels for subset {subset!r}")
    X = images.reshape(images.shape[0], -1).astype(dtype)
    X /= 255
    y = labels.astype(np.int64)
    if return_X_y:
        return X, y
    names = tuple(f"pixel_{i}" for i in range(X.shape[1]))
    desc = (
        f"Fashion-MNIST {subset} set: 28x28 grey-scale images of 10 clothing classes, pixels scaled "
        "to [0, 1]. Xiao, Rasul & Vollgraf 2017, arXiv:1708.07747 (MIT licence)."
    )
    return Dataset(X, y, names, "label", desc)


def _find_idx(root, stem):
    for name in (stem + ".gz", stem):
        if (root / name).is_file():
            return root / name
    raise FileNotFoundError(f"no {stem}.gz (or {stem}) in '{root}'")


# ---------------------------------------------------------------- shared benchmark data

def shared_data_dir():
    """The shared benchmark-data directory, or None if there is none.

    Looks at the environment variable ``KERNELKIT_SHARED_DATA``, then at
    ``../shared/data`` relative to the current directory. Tests must not
    depend on it; benchmarks use it.

    Returns
    -------
    pathlib.Path or None
    """
    env = os.environ.get("KERNELKIT_SHARED_DATA")
    if env:
        return Path(env) if Path(env).is_dir() else None
    candidate = Path.cwd().parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


def _no_shared_message(what):
    env = os.environ.get("KERNELKIT_SHARED_DATA")
    where = (
        f"KERNELKIT_SHARED_DATA={env!r} is not a directory" if env
        else f"KERNELKIT_SHARED_DATA is not set and {Path.cwd().parent / 'shared' / 'data'} does not exist"
    )
    return f"cannot load {what}: no shared data directory ({where}); set KERNELKIT_SHARED_DATA to the directory holding the files"


def load_shared_table(name, *, target="target"):
    """Read ``<shared_data_dir()>/<name>.tsv.gz`` with :func:`read_table`.

    Parameters
    ----------
    name : str
        Table name, e.g. ``"537_houses"`` or ``"kddcup"`` (a ``.tsv.gz``
        suffix is accepted too).
    target : str or None, default="target"
        Passed to :func:`read_table`.

    Returns
    -------
    X, y, feature_names
        As :func:`read_table`.
    """
    shared = shared_data_dir()
    if shared is None:
        raise FileNotFoundError(_no_shared_message(f"shared table {name!r}"))
    path = shared / (name if name.endswith(".tsv.gz") else f"{name}.tsv.gz")
    if not path.is_file():
        available = sorted(p.name.removesuffix(".tsv.gz") for p in shared.glob("*.tsv.gz"))
        raise FileNotFoundError(f"no table {name!r} in {shared}; available: {available}")
    return read_table(path, target=target, delimiter="\t")


# ---------------------------------------------------------------- libsvm / svmlight

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

def load_sms_spam(*, return_X_y=False):
    """Load the SMS Spam Collection from the shared data directory (not bundled).

    Reads ``<shared_data_dir()>/sms_spam.tsv.gz``: a header ``Label<TAB>SMS``
    and one message per line (the label, a tab, the raw text).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of (ndarray of shape (5574,), ndarray of shape (5574,))
        ``data``: a ``"<U"`` array of messages (for string kernels);
        ``target``: ``"ham"`` or ``"spam"``.

    Raises
    ------
    FileNotFoundError
        When there is no shared data directory or no file in it.
    """
    shared = shared_data_dir()
    if shared is None:
        raise FileNotFoundError(_no_shared_message("the SMS spam collection"))
    path = shared / "sms_spam.tsv.gz"
    if not path.is_file():
        raise FileNotFoundError(f"no sms_spam.tsv.gz in {shared}")
    # split on newlines only: str.splitlines would also split at \x0c or \u2028 inside a message
    lines = [line.removesuffix("\r") for line in _read_bytes(path).decode("utf-8").split("\n")]
    if not lines or lines[0].split("\t") != ["Label", "SMS"]:
        raise ValueError(f"{path}: expected the header 'Label<TAB>SMS', got {lines[:1]!r}")
    labels, texts = [], []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        label, sep, text = line.partition("\t")
        if not sep or label not in ("ham", "spam"):
            raise ValueError(f"{path}, line {lineno}: expected 'ham' or 'spam', a tab and the "
                             f"message, got {line[:40]!r}")
        labels.append(label)
        texts.append(text)
    X, y = np.array(texts, dtype=str), np.array(labels)
    if return_X_y:
        return X, y
    description = ("SMS Spam Collection (Almeida, Gomez Hidalgo and Yamakami 2011; UCI, CC BY "
                   "4.0): 5,574 English SMS messages labelled ham or spam (13% spam).")
    return Dataset(X, y, ("SMS",), "Label", description)
