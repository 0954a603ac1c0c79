"""Loaders of the larger real datasets in the shared data folder (``../shared/data``
or ``$KERNELKIT_SHARED_DATA``); nothing here touches the network."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .bundled import Dataset
from .readers import load_idx, read_bytes, read_table


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
    lines = [line.removesuffix("\r") for line in read_bytes(path).decode("utf-8").split("\n")]
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
