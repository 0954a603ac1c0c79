"""Distributed prediction for every fitted kernelkit model (or any scikit-learn one).

``predict(model, X)``, ``decision_function(model, X)``, ``transform(model, X)``
and ``predict_proba(model, X)`` map the model's in-memory method over X's row
chunks: the model enters the graph as one key, the result is a lazy dask
array with X's row chunks, and X is never computed on the client (only a
one-row probe of zeros learns the output's shape and dtype).
:class:`ParallelPostFit` wraps an estimator so that ``fit`` is in memory and
the prediction methods are distributed.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from ._runtime import as_rows, check_columns, column_names, in_task, is_dask

__all__ = ["predict", "decision_function", "transform", "predict_proba", "ParallelPostFit",
           "map_rows"]


class _Method:
    """Picklable ``X_block -> model.<method>(X_block)`` (one task's work)."""

    def __init__(self, model, method, names_checked=False):
        self.model, self.method = model, method
        self.names_checked = names_checked

    def __call__(self, Xb):
        if not self.names_checked:
            return getattr(self.model, self.method)(Xb)
        import warnings

        with warnings.catch_warnings():  # the columns were matched by name on the client
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            return getattr(self.model, self.method)(Xb)


def _apply_block(fn, Xb):
    return np.asarray(fn(Xb))


def map_rows(fn, X):
    """``fn`` over X's row chunks as one lazy dask array (``fn`` one key in the graph).

    Parameters
    ----------
    fn : callable
        Picklable; maps an (b, d) block to (b,) or (b, k).
    X : dask array of shape (n, d), chunked by rows

    Returns
    -------
    dask.array.Array of shape (n,) or (n, k), with X's row chunks
    """
    import dask.array as da
    from dask import delayed

    probe = np.asarray(fn(np.zeros((1,) + tuple(X.shape[1:]), dtype=X.dtype)))
    key = delayed(fn, pure=True)
    task = in_task(_apply_block)
    if probe.ndim == 1:
        return da.blockwise(task, "i", key, None, X, "ij", dtype=probe.dtype,
                            concatenate=True, meta=np.empty((0,), dtype=probe.dtype))
    out_cols = probe.shape[1]
    return da.blockwise(task, "ik", key, None, X, "ij", dtype=probe.dtype,
                        new_axes={"k": out_cols}, concatenate=True,
                        meta=np.empty((0, 0), dtype=probe.dtype))


def _run(model, X, method):
    check_is_fitted(model)
    if not hasattr(model, method):
        raise AttributeError(f"{type(model).__name__} has no method {method!r}")
    if not is_dask(X):
        return getattr(model, method)(X)
    check_columns(model, X)
    named = column_names(X) is not None and getattr(model, "feature_names_in_", None) is not None
    return map_rows(_Method(model, method, named), as_rows(X, "X"))


def predict(model, X):
    """``model.predict`` over X's row chunks (lazy for dask X, numpy for numpy X).

    Parameters
    ----------
    model : fitted estimator
    X : dask array or DataFrame, or array-like, of shape (n_queries, n_features)

    Returns
    -------
    dask array (X's row chunks) or ndarray
    """
    return _run(model, X, "predict")


def decision_function(model, X):
    """``model.decision_function`` over X's row chunks (see :func:`predict`)."""
    return _run(model, X, "decision_function")


def transform(model, X):
    """``model.transform`` over X's row chunks (see :func:`predict`)."""
    return _run(model, X, "transform")


def predict_proba(model, X):
    """``model.predict_proba`` over X's row chunks (see :func:`predict`)."""
    return _run(model, X, "predict_proba")


class ParallelPostFit(MetaEstimatorMixin, BaseEstimator):
    """Fit in memory, predict on a Dask cluster.

    ``fit`` fits a clone of ``estimator`` on in-memory data (a dask input is
    computed: use it for samples that fit); ``predict``, ``decision_function``,
    ``predict_proba``, ``transform`` and ``score`` map the fitted estimator
    over the row chunks of dask input (numpy input stays in memory).

    Parameters
    ----------
    estimator : estimator
        Any kernelkit (or scikit-learn) estimator.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y=None, **fit_params):
        """Fit a clone of ``estimator`` in memory.

        Returns
        -------
        self
        """
        X = X.compute() if is_dask(X) else X
        y = y.compute() if is_dask(y) else y
        self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        return self

    def predict(self, X):
        """Distributed ``predict`` (see :func:`predict`)."""
        return predict(self.estimator_, X)

    def decision_function(self, X):
        """Distributed ``decision_function``."""
        return decision_function(self.estimator_, X)

    def predict_proba(self, X):
        """Distributed ``predict_proba``."""
        return predict_proba(self.estimator_, X)

    def transform(self, X):
        """Distributed ``transform``."""
        return transform(self.estimator_, X)

    def score(self, X, y):
        """The estimator's score (computed on the client: X and y are gathered)."""
        X = X.compute() if is_dask(X) else X
        y = y.compute() if is_dask(y) else y
        return self.estimator_.score(X, y)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "estimator_")
