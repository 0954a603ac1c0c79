"""Kernel ridge classification with alpha and kernel parameters chosen along the path."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import Options
from ._base import KernelParamsMixin, kernel_for_data
from ._base import validate_fit_data
from ._ridge_search import search
from .kernel_ridge_classifier import RidgeClassifierOutputs, ridge_class_targets
from .kernel_ridge_cv import CV_CONSTRAINTS, check_cv_params

__all__ = ["KernelRidgeClassifierCV"]


class KernelRidgeClassifierCV(RidgeClassifierOutputs, KernelParamsMixin, ClassifierMixin,
                              BaseEstimator):
    """Kernel ridge classifier (one-vs-rest {-1, +1} targets) with alpha and kernel
    parameters chosen along the regularisation path.

    The targets are those of :class:`KernelRidgeClassifier` (one column for two
    classes, else one per class, all fitted at once with one alpha); the
    search is :class:`KernelRidgeCV`'s, on all columns together.

    **Criterion.** With exact leave-one-out (``cv="loo"``, the exact path's
    default), ``scoring="accuracy"`` ranks by the LOO accuracy of the
    decision (sign, or the largest column) and breaks its many ties by the
    LOO mean squared error of the {-1, +1} columns; ``scoring="squared_error"``
    by that error alone. Accuracy is what a classifier is judged by, and the
    exact LOO decision values are free; GCV and k-fold from the path's moments
    have no per-sample predictions, so they rank by squared error (the
    criterion is in ``plan_``).

    Parameters
    ----------
    kernel, alphas, param_grid, fit_intercept, cv, solver, factorisation, n_centers,
    center_selection, n_components, random_state, verbose
        As in :class:`KernelRidgeCV`.
    scoring : {"accuracy", "squared_error"}, default="accuracy"
        See above.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_, kernel_, best_params_, cv_results_, criterion_, plan_, solver_, dual_coef_,
    coef_, centers_, feature_map_, intercept_, X_fit_
        As in :class:`KernelRidgeCV`; ``cv_results_`` also has ``accuracy``
        (exact LOO).
    best_score_ : float
        LOO accuracy (``scoring="accuracy"`` with LOO), else the criterion's
        mean squared error.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidgeClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = np.where(X[:, 0] * X[:, 1] > 0, "a", "b")
    >>> clf = KernelRidgeClassifierCV(alphas=[0.01, 0.1, 1], param_grid={"gamma": [0.3, 1, 3]})
    >>> float(clf.fit(X, y).score(X, y)) > 0.9
    True
    """

    _param_constraints = dict(CV_CONSTRAINTS,
                              scoring=[Options(str, ("accuracy", "squared_error"))])

    def __init__(self, kernel="rbf", alphas=(0.1, 1.0, 10.0), *, param_grid=None,
                 fit_intercept=True, cv="auto", solver="auto", factorisation="auto",
                 n_centers="auto", center_selection="uniform", n_components=1000,
                 random_state=None, verbose=0, scoring="accuracy"):
        self.kernel = kernel
        self.alphas = alphas
        self.param_grid = param_grid
        self.fit_intercept = fit_intercept
        self.cv = cv
        self.solver = solver
        self.factorisation = factorisation
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.n_components = n_components
        self.random_state = random_state
        self.verbose = verbose
        self.scoring = scoring

    def _check_params(self):
        return check_cv_params(self)

    def fit(self, X, y):
        """Select (kernel, alpha) along the path and fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : array-like of shape (n_samples,)
            Labels of any type; at least two classes.

        Returns
        -------
        self
        """
        base, alphas = self._check_params()
        X, y = validate_fit_data(self, base, X, y, y_numeric=False)
        base = kernel_for_data(base, X, self)
        y, classes, Y = ridge_class_targets(y)  # checked before any state is set
        labels = np.searchsorted(classes, y)
        search(self, X, Y[:, 0] if Y.shape[1] == 1 else Y, base, alphas,
               labels=labels if self.scoring == "accuracy" else None)
        self.classes_ = classes
        return self
