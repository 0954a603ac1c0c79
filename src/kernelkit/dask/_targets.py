"""The targets of the Dask ridge estimators: a list of alphas, class labels, {-1, +1} columns.

Small pure functions of :mod:`kernelkit.dask.ridge`: the alpha list checked,
the classes found by one reduction checked as labels, and the one-vs-rest
indicator columns and labels computed inside the tasks.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidParameterError

__all__ = ["alpha_grid", "check_class_labels", "indicator", "labels"]


def alpha_grid(alpha, name):
    """None for one alpha; else the list as a float64 array of positive numbers."""
    if np.ndim(alpha) == 0:
        return None
    try:
        alphas = np.asarray(alpha, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        alphas = np.array([np.nan])
    if alphas.size == 0 or not np.isfinite(alphas).all() or (alphas <= 0).any():
        raise InvalidParameterError(f"{name}: alpha must be a positive number or a non-empty "
                                    f"list of positive numbers, got {alpha!r}")
    return alphas


def check_class_labels(classes):
    """The sorted distinct labels, refused when they cannot be classes: NaN among them,
    or float values that are not whole numbers (a regression target)."""
    if classes.dtype.kind == "f":
        if np.isnan(classes).any():
            raise ValueError("y contains NaN: a missing label is not a class; drop those rows "
                             "(e.g. keep = ~da.isnan(y); X, y = X[keep], y[keep])")
        if not np.isfinite(classes).all():
            raise ValueError("y contains infinity: labels must be finite")
        if (classes != np.round(classes)).any():
            raise ValueError(
                f"y has {len(classes)} distinct float values, not all whole numbers: it looks "
                "like a regression target, not class labels; use DaskKernelRidge, or cast "
                "the labels to int or str if they are classes")
    elif classes.dtype.kind == "O" and any(c is None or (isinstance(c, float) and c != c)
                                           for c in classes):
        raise ValueError("y contains a missing label (None or NaN); drop those rows first")
    return classes


def indicator(yb, classes):
    """{-1, +1} one-vs-rest columns of labels ``yb`` (one column for two classes)."""
    Y = np.where(yb[:, None] == classes[None, :], 1.0, -1.0)
    return Y[:, 1:] if len(classes) == 2 else Y


def labels(scores, classes):
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]
