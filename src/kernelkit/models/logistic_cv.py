"""Kernel logistic regression with C (and kernel parameters) chosen by cross-validation."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import Interval, Options
from ..exceptions import InvalidParameterError
from ..planning import choose_newton_inner
from ..solvers.newton import lbfgs_multinomial, newton_dual, spectral_basis
from ..solvers.newton_cg import newton_cg_dual
from ._base import (KernelParamsMixin)
from ._cv_path import PATH_CONSTRAINTS, ClassifierOutputs, PathSearchCV, fold_targets
from .kernel_machine import class_sample_weight
from .logistic import KernelLogisticRegression

__all__ = ["KernelLogisticRegressionCV"]


class _Rows:
    """The identity "feature map": a fold model's inputs are already the rows K[test, train]."""

    def transform(self, X):
        return X


class KernelLogisticRegressionCV(ClassifierOutputs, KernelParamsMixin, ClassifierMixin,
                                 PathSearchCV):
    """Kernel logistic regression with C and kernel parameters chosen by cross-validation.

    The search of ``GridSearchCV(KernelLogisticRegression(kernel), {"C": Cs,
    **param_grid})``: the Gram matrix of all rows once per kernel candidate, each
    fold's blocks by indexing, and Newton's method along increasing C (binary
    and one-vs-rest), each solve started from the previous coefficients u
    (a warm start that saves most Newton steps at small penalties, where a cold
    start needs the most). The multinomial model is solved by L-BFGS along C in
    the eigenbasis of each fold's K (one eigendecomposition per fold), warm-started
    from the previous coefficients too.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        The base kernel; ``param_grid`` varies its parameters.
    Cs : int or array-like of float, default=7
        The values of C (the inverse penalty, as scikit-learn's): a list, or k for
        ``np.logspace(-2, 4, k)``.
    param_grid : dict of str to list, optional
        Kernel parameters to try, e.g. ``{"gamma": [0.01, 0.1, 1.0]}``.
    cv : int, cross-validation splitter or iterable, optional
        As ``GridSearchCV`` (default 5 stratified folds).
    scoring : str or callable, optional
        A scikit-learn scorer (``"neg_log_loss"``, ``"roc_auc"``, ...); default accuracy.
    multi_class : {"multinomial", "ovr"}, default="multinomial"
    class_weight : dict or "balanced", optional
    max_iter : int, default=1000
    tol : float, default=1e-8
        As :class:`KernelLogisticRegression`.
    verbose : int, default=0
        >= 1 prints ``plan_``.

    Attributes
    ----------
    C_, best_params_, best_score_, best_index_, cv_results_, kernel_, n_splits_, plan_
        As :class:`KernelSVCCV`.
    best_estimator_ : KernelLogisticRegression
        Refitted on all the data with the chosen parameters.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernelkit.models import KernelLogisticRegressionCV
    >>> X, y = make_classification(150, 4, random_state=0)
    >>> search = KernelLogisticRegressionCV("rbf(gamma=0.2)", Cs=[0.1, 1, 10], cv=3).fit(X, y)
    >>> search.predict_proba(X[:2]).shape
    (2, 2)
    """

    _is_classifier = True
    _param_constraints = {
        "kernel": ["kernel"],
        **PATH_CONSTRAINTS,
        "multi_class": [Options(str, ("multinomial", "ovr"))],
        "class_weight": [Options(str, ("balanced",)), dict, None],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "verbose": [Interval(Real, 0, None)],
    }

    def __init__(self, kernel="rbf", Cs=7, *, param_grid=None, cv=None, scoring=None,
                 multi_class="multinomial", class_weight=None, max_iter=1000, tol=1e-8,
                 verbose=0):
        self.kernel = kernel
        self.Cs = Cs
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    def _check_params(self):
        kernel = super()._check_params()
        if kernel == "precomputed":
            raise InvalidParameterError("KernelLogisticRegressionCV does not take "
                                        "kernel='precomputed'; pass a kernel object or expression")
        return kernel

    def fit(self, X, y, sample_weight=None):
        """Choose C (and the kernel parameters) by cross-validation and refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies each sample's loss in every fit (each fold's own weights), as
            ``GridSearchCV(...).fit(X, y, sample_weight=...)``, which weights the scores too.

        Returns
        -------
        self
        """
        base = self._check_params()
        X, y, sw = self._classifier_data(X, y, base, sample_weight)
        return self._search(X, y, base, sw)

    def _make_estimator(self, kernel, C):
        return KernelLogisticRegression(kernel, C=float(C), multi_class=self.multi_class,
                                        class_weight=self.class_weight, max_iter=self.max_iter,
                                        tol=self.tol)

    def _fold_path(self, K, train, y_train, Cs, sw_train=None):
        """One fold along increasing C: Newton warm-started from the previous u (binary,
        one-vs-rest), L-BFGS per C (multinomial)."""
        classes, Y = fold_targets(y_train)
        sw = class_sample_weight(self.class_weight, classes, Y, sw_train)
        K_train = K[np.ix_(train, train)]
        m = len(train)
        binary = Y.shape[1] == 1 or self.multi_class == "ovr"
        solve = newton_dual if choose_newton_inner(m).value == "direct" else newton_cg_dual
        previous = [None] * Y.shape[1]
        basis = None
        for C in Cs:
            lam = 1.0 / (m * float(C))
            if binary:
                runs = [solve(K_train, Y[:, j], "logistic", lam, tol=self.tol,
                              max_iter=self.max_iter, u0=previous[j], sample_weight=sw)
                        for j in range(Y.shape[1])]
                previous = [r.coef for r in runs]
                coef = runs[0].coef if len(runs) == 1 else np.column_stack(previous)
                kind = "binary" if Y.shape[1] == 1 else "ovr"
            else:  # one eigendecomposition of the fold's K for the whole path
                basis = spectral_basis(K_train) if basis is None else basis
                runs = [lbfgs_multinomial(K_train, (Y > 0).astype(np.float64), lam,
                                          tol=self.tol, max_iter=self.max_iter,
                                          sample_weight=sw, u0=previous[0], basis=basis)]
                coef, kind = runs[0].coef, "multinomial"
                previous = [coef]
            model = self._make_estimator("rbf", C)
            model.classes_ = classes
            model.kernel_ = "precomputed"
            model.n_features_in_ = m
            model.representation_ = "primal"  # decision values: K[test, train] @ coef
            model.feature_map_ = _Rows()
            model.coef_ = coef
            model.multi_class_ = kind
            yield float(C), model, not all(r.converged for r in runs)

    def predict_proba(self, X):
        """``best_estimator_.predict_proba(X)``, shape (n_queries, n_classes)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    def predict_log_proba(self, X):
        """``best_estimator_.predict_log_proba(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_log_proba(X)
