"""Small real datasets that ship inside the package (read with
:mod:`importlib.resources`, so they work from an installed wheel; sources and
licences in ``kernelkit/data/README.md``)."""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .readers import parse_table


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
    X, y, names = parse_table(_bundled_text(filename), f"<bundled {filename}>", "target", "\t")
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
