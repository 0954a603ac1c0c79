"""Kernel ridge classification: one-vs-rest regression on {-1, +1} targets."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import Interval, Options, validate_params
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (check_sample_weight, predict_labels, resolve_estimator_kernel,
                    tag_precomputed, validate_fit_data, validate_predict_data)
from .kernel_ridge import RIDGE_CONSTRAINTS, KernelRidge, ridge_decision

__all__ = ["KernelRidgeClassifier"]

# The fitted state copied from the inner KernelRidge (whichever solver ran).
_RIDGE_STATE = ("kernel_", "solver_", "plan_", "jitter_", "n_samples_fit_", "dual_coef_",
                "X_fit_", "coef_", "feature_map_", "centers_", "n_iter_", "intercept_",
                "residual_norm_", "rank_")


def ridge_class_targets(y):
    """(y as 1-D labels, classes, Y) of a kernel ridge classifier: Y the {-1, +1} indicator
    columns (one for two classes); one label per sample and two classes at least."""
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per sample (1-D), got shape {y.shape}")
    check_classification_targets(y)
    binarizer = LabelBinarizer(neg_label=-1, pos_label=1)
    Y = binarizer.fit_transform(y).astype(np.float64)
    if len(binarizer.classes_) < 2:
        raise ValueError(f"y has only one class ({binarizer.classes_[0]!r}); a classifier "
                         "needs samples of at least two classes")
    return y, binarizer.classes_, Y


class RidgeClassifierOutputs:
    """Decision values and labels of a kernel ridge classifier (one +-1 regression per
    class); shared by :class:`KernelRidgeClassifier` and ``KernelRidgeClassifierCV``."""

    def decision_function(self, X):
        """Regression values of each class (of the second class for two classes).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,) for two classes, else (n_queries, n_classes)
        """
        check_is_fitted(self, "classes_")
        return ridge_decision(self, validate_predict_data(self, self.kernel_, X))

    def predict(self, X):
        """Class with the largest decision value.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        scores = self.decision_function(X)  # checks that the model is fitted
        return predict_labels(self.classes_, scores)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        return tag_precomputed(tags, self.kernel)


class KernelRidgeClassifier(RidgeClassifierOutputs, KernelParamsMixin, ClassifierMixin,
                            BaseEstimator):
    """Classifier by kernel ridge regression on one-vs-rest {-1, +1} targets.

    As scikit-learn's ``RidgeClassifier`` with a kernel:
    labels of any type become the columns of a {-1, +1} indicator matrix
    (one column for two classes), all columns are fitted at once by
    :class:`KernelRidge` (exact, or Falkon for large n: one solve for every
    class), and the class with the largest decision value wins.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
    alpha : float, default=1.0
        Ridge penalty: sum_i s_i (y_i - f(x_i))^2 + alpha ||f||^2 per class.
    solver : {"auto", "dual", "primal", "falkon"}, default="auto"
    fit_intercept : bool, default=True
        Fit each class's centred {-1, +1} column and add its mean back
        (``intercept_``), as ``RidgeClassifier``; False: no intercept.
    precision
        The dual solver's arithmetic, as in :class:`KernelRidge`.
    n_centers, center_selection, tol, max_iter, random_state, verbose
        Falkon's options, as in :class:`KernelRidge` (a
        :class:`~sklearn.exceptions.ConvergenceWarning` when Falkon stops at
        ``max_iter`` short of ``tol``).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as scikit-learn's ``RidgeClassifier``: each
        sample's weight is multiplied by its class's (``{label: weight}``,
        classes not named weigh 1; "balanced": ``n_samples / (n_classes *
        count(class))``). None: every class weighs 1.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        (M instead of n_samples for falkon; one column for two classes.)
    intercept_ : float or ndarray of shape (n_classes,)
        The mean of each {-1, +1} column (0.0 without ``fit_intercept``).
    X_fit_, centers_, coef_, solver_, kernel_, plan_, jitter_, n_iter_, n_samples_fit_
        As in :class:`KernelRidge`.
    residual_norm_, rank_
        Falkon's final relative residual and rank, as in :class:`KernelRidge`.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidgeClassifier
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2]]); y = np.array(["a", "a", "b", "b"])
    >>> KernelRidgeClassifier("rbf(gamma=1.0)", alpha=0.1).fit(X, y).predict([[0.1], [1.1]])
    array(['a', 'b'], dtype='<U1')
    """

    _param_constraints = {
        **RIDGE_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, note="one ridge penalty for all classes")],
        "class_weight": [Options(str, ("balanced",)), dict, None],
    }

    def __init__(self, kernel="rbf", alpha=1.0, *, solver="auto", n_centers="auto",
                 center_selection="uniform", fit_intercept=True, tol=1e-4, max_iter=100,
                 random_state=None, verbose=0, class_weight=None, precision="auto"):
        self.kernel = kernel
        self.alpha = alpha
        self.solver = solver
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.precision = precision
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.class_weight = class_weight

    def _ridge(self):
        params = self.get_params(deep=False)
        del params["class_weight"]  # enters as sample weights
        return KernelRidge(**params)

    def _check_params(self):
        """Check the hyperparameters; return the resolved kernel."""
        validate_params(self, self._param_constraints, type(self).__name__)
        return resolve_estimator_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit one ridge regression per class (all at once).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            for ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
            Labels of any type; at least two classes.
        sample_weight : array-like of shape (n_samples,), optional
            Multiplied by the weights of ``class_weight``.

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y, y_numeric=False)
        kernel = kernel_for_data(kernel, X)  # gamma="scale" fixed from the training X
        y, classes, Y = ridge_class_targets(y)
        self.classes_ = classes
        if self.class_weight is not None:  # scikit-learn's rule: it multiplies sample_weight
            class_weights = compute_sample_weight(self.class_weight, y)
            sw = check_sample_weight(sample_weight, len(y))
            sample_weight = class_weights if sw is None else sw * class_weights
        ridge = self._ridge()
        ridge.fit(X, Y[:, 0] if Y.shape[1] == 1 else Y, sample_weight=sample_weight)
        for attr in _RIDGE_STATE:
            if hasattr(ridge, attr):
                setattr(self, attr, getattr(ridge, attr))
        return self
