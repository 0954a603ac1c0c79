"""scikit-learn's linear models in model files: the last step of "form psi, run your
favourite linear method" (a kernelkit feature map followed by a linear model).

A file holds the public fitted state only -- ``coef_``, ``intercept_``,
``classes_``, ``n_features_in_`` (and ``feature_names_in_``) -- as arrays and
strict JSON; the one private attribute a prediction needs (RidgeClassifier's
label binarizer) is rebuilt on load from ``classes_``, never unpickled. The
parameters are checked on load by the model's own declared constraints
(scikit-learn's ``_validate_params``, what its ``fit`` runs), and the state by
:func:`check_linear`: shapes agree with each other and with ``n_features_in_``,
every number is finite, the classes are distinct.

Stored: ``Ridge``, ``RidgeClassifier``, ``LinearRegression``,
``LogisticRegression``, ``SGDClassifier``, ``SGDRegressor``, ``LinearSVC`` and
``LinearSVR``. Refused at save with a message: multi-label classifiers (one
``classes_`` array per output) and sparse coefficients (``sparsify()``).
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import (LinearRegression, LogisticRegression, Ridge, RidgeClassifier,
                                  SGDClassifier, SGDRegressor)
from sklearn.preprocessing import LabelBinarizer
from sklearn.svm import LinearSVC, LinearSVR

from ._format import fail

__all__ = ["LINEAR_MODELS", "LINEAR_CLASSIFIERS", "check_linear", "linear_model_view_check"]

_NAMES = ("n_features_in_", "feature_names_in_")
_REGRESSORS = (Ridge, LinearRegression, SGDRegressor, LinearSVR)
LINEAR_CLASSIFIERS = (RidgeClassifier, LogisticRegression, SGDClassifier, LinearSVC)
#: The linear models a model file may hold (a kernelkit feature map's last step).
LINEAR_MODELS = _REGRESSORS + LINEAR_CLASSIFIERS


def _check_params(path, model):
    """The parameters, checked by the model's own declared constraints."""
    name = type(model).__name__
    try:
        model._validate_params()  # scikit-learn's check of its _parameter_constraints
    except (TypeError, ValueError) as exc:
        fail(path, f"invalid parameters of {name}: {exc}")


def _array(path, model, attr):
    arr = getattr(model, attr, None)
    name = type(model).__name__
    if not isinstance(arr, np.ndarray) or arr.dtype.kind != "f":
        fail(path, f"{name}.{attr} is missing or not an array of floats")
    if not np.isfinite(arr).all():
        fail(path, f"{name}.{attr} holds NaN or infinity")
    return arr


def check_linear(path, model):
    """coef_ (d,) or (k, d) with d = n_features_in_; intercept_ a number, (1,) or (k,)
    as the coefficients; classes_ (classifiers): at least two distinct labels, one row
    of coefficients for two classes (or a (d,) vector), else one per class."""
    _check_params(path, model)
    name = type(model).__name__
    d = getattr(model, "n_features_in_", None)
    if not isinstance(d, int) or isinstance(d, bool) or d < 1:
        fail(path, f"{name}.n_features_in_ must be a positive integer, got {d!r}")
    names = getattr(model, "feature_names_in_", None)
    if names is not None and len(names) != d:
        fail(path, f"{name}.feature_names_in_ has {len(names)} names for {d} features")
    coef, icpt = _array(path, model, "coef_"), _array(path, model, "intercept_")
    if coef.ndim not in (1, 2) or coef.shape[-1] != d:
        fail(path, f"{name}.coef_ has shape {coef.shape}; expected ({d},) or (k, {d}) for "
                   f"n_features_in_ = {d}")
    rows = (coef.shape[0],) if coef.ndim == 2 else ((), (1,))
    if icpt.shape not in (rows if coef.ndim == 1 else (rows,)):
        fail(path, f"{name}.intercept_ has shape {icpt.shape}; it does not fit coef_ "
                   f"{coef.shape}")
    if coef.ndim == 1 and isinstance(model, (Ridge, LinearRegression)):
        model.intercept_ = float(icpt.reshape(-1)[0])  # a number, written as shape (1,)
    if isinstance(model, LINEAR_CLASSIFIERS):
        classes = getattr(model, "classes_", None)
        if classes is None:
            fail(path, f"{name}.classes_ is missing")
        classes = np.asarray(classes)
        k = len(classes)
        if classes.ndim != 1 or k < 2 or len(set(classes.tolist())) != k:
            fail(path, f"{name}.classes_ must hold at least two distinct labels, got "
                       f"{classes.tolist()!r}")
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            fail(path, f"{name}.classes_ holds NaN or infinity")
        n_rows = 1 if coef.ndim == 1 else coef.shape[0]
        if n_rows != (1 if k == 2 else k):
            fail(path, f"{name}.coef_ has {n_rows} row(s) for {k} classes (expected "
                       f"{1 if k == 2 else k})")
        model.classes_ = classes
        if isinstance(model, RidgeClassifier):  # its private label coding, from classes_
            model._label_binarizer = LabelBinarizer(pos_label=1, neg_label=-1).fit(classes)
    elif hasattr(model, "classes_"):
        fail(path, f"{name} is a regressor: it has no classes_")


def linear_model_view_check(model):
    """Refuse at save what a file cannot hold; returns ``model``."""
    name = type(model).__name__
    classes = getattr(model, "classes_", None)
    binarizer = getattr(model, "_label_binarizer", None)
    if isinstance(classes, list) or (binarizer is not None and
                                     str(getattr(binarizer, "y_type_", "")).startswith("multilabel")):
        raise ValueError(f"cannot save this {name}: it is multi-label; model files hold "
                         "single-output classifiers")
    coef = getattr(model, "coef_", None)
    if coef is not None and not isinstance(coef, np.ndarray):
        raise ValueError(f"cannot save this {name}: its coef_ is sparse (sparsify()); "
                         "call densify() before saving")
    return model

