"""Kernel machines (Newton on a smooth loss) with alpha chosen by cross-validation.

``KernelMachineCV`` (squared, Huber) and ``KernelMachineClassifierCV`` (logistic, squared
hinge): the search of ``GridSearchCV(KernelMachine(kernel, loss, solver="newton"),
{"alpha": alphas, **param_grid})`` with one Gram matrix per kernel candidate, folds by
indexing, and Newton walked from the largest alpha down, each solve started from the
previous coefficients u (:class:`~kernelkit.models._cv_path.PathSearchCV`).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import column_or_1d

from .._validation import Interval, Options
from ..exceptions import InvalidParameterError
from ..planning import choose_newton_inner
from ..solvers.newton import newton_dual
from ..solvers.newton_cg import newton_cg_dual
from ._base import KernelParamsMixin, validate_fit_data
from ._cv_path import (ALPHA_PATH_CONSTRAINTS, DEFAULT_ALPHA_RANGE, ClassifierOutputs,
                       PathSearchCV, fold_targets)
from .kernel_machine import KernelMachine, KernelMachineClassifier, class_sample_weight
from .logistic_cv import _Rows

__all__ = ["KernelMachineCV", "KernelMachineClassifierCV"]

_DOC = """
    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        The base kernel; ``param_grid`` varies its parameters.
    loss : {losses}, default={default!r}
        A loss with curvature (Newton's method).
    alphas : int or array-like of float, default=8
        The penalties alpha (as :class:`{estimator}`: (alpha/2)||f||^2 against the
        sum of the losses): a list, or k for ``np.logspace(-6, 1, k)``.
    param_grid : dict of str to list, optional
        Kernel parameters to try, e.g. ``{{"gamma": [0.01, 0.1, 1.0]}}``.
    cv : int, cross-validation splitter or iterable, optional
        As ``GridSearchCV`` (default 5 folds{stratified}).
    scoring : str or callable, optional
        A scikit-learn scorer; default {score}.
    epsilon : float, default=1.35
        Huber's threshold.
    max_iter : int, default=100
    tol : float, default=1e-8
        Newton's iterations and tolerance, as :class:`{estimator}`.
    verbose : int, default=0
        >= 1 prints ``plan_``.
{extra}
    Attributes
    ----------
    alpha_ : float
        The chosen alpha.
    best_params_, best_score_, best_index_, cv_results_, kernel_, n_splits_, plan_
        As :class:`KernelSVCCV`.
    best_estimator_ : {estimator}
        ``{estimator}(kernel, loss, alpha_, solver="newton")`` refitted on all the data.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import {estimator}CV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 3)); y = {target}
    >>> search = {estimator}CV("rbf(gamma=0.3)", alphas=[1e-3, 1e-2, 1e-1, 1.0], cv=3)
    >>> search.fit(X, y).alpha_ in (1e-3, 1e-2, 1e-1, 1.0)
    True
"""


def _newton_path(K, train, Y, loss, alphas, sw, tol, max_iter, epsilon):
    """Newton on one fold's rows of K along decreasing alpha, warm-started from the previous
    u; yields (alpha, coef of shape (m,) or (m, k), converged)."""
    from ..solvers.losses import get_loss

    loss = get_loss(loss, epsilon)
    K_train = K[np.ix_(train, train)]
    m = len(train)
    solve = newton_dual if choose_newton_inner(m).value == "direct" else newton_cg_dual
    previous = [None] * Y.shape[1]
    for alpha in alphas:
        runs = [solve(K_train, Y[:, j], loss, float(alpha) / m, tol=tol, max_iter=max_iter,
                      u0=previous[j], sample_weight=sw) for j in range(Y.shape[1])]
        previous = [r.coef for r in runs]
        coef = previous[0] if len(runs) == 1 else np.column_stack(previous)
        yield float(alpha), coef, all(r.converged for r in runs)


def _fold_model(model, m, coef):
    """A fitted kernel machine whose inputs are the rows K[test, train] of its fold."""
    model.kernel_ = "precomputed"
    model.n_features_in_ = m
    model.representation_ = "primal"
    model.feature_map_ = _Rows()
    model.coef_ = coef
    return model


class _MachineCVMixin:
    _path_name, _path_values, _path_range = "alpha", "alphas", DEFAULT_ALPHA_RANGE

    def _check_params(self):
        kernel = super()._check_params()  # PathSearchCV's: constraints, grid, kernel
        if self.loss == "huber" and not self.epsilon > 0:
            raise InvalidParameterError(f"{type(self).__name__}: the huber loss needs "
                                        f"epsilon > 0, got {self.epsilon!r}")
        if kernel == "precomputed":
            raise InvalidParameterError(f"{type(self).__name__} does not take "
                                        "kernel='precomputed'; pass a kernel object or expression")
        return kernel

    def _make_estimator(self, kernel, alpha):
        return self._estimator_class(kernel, loss=self.loss, alpha=float(alpha),
                                     epsilon=self.epsilon, solver="newton",
                                     max_iter=self.max_iter, tol=self.tol)


_SHARED_CONSTRAINTS = {
    "kernel": ["kernel"],
    **ALPHA_PATH_CONSTRAINTS,
    "epsilon": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "verbose": [Interval(Real, 0, None)],
}


class KernelMachineCV(_MachineCVMixin, KernelParamsMixin, RegressorMixin, PathSearchCV):
    __doc__ = ("Kernel machine regression (squared or Huber loss) with alpha and kernel "
               "parameters chosen by\n    cross-validation, Newton warm-started along alpha.\n"
               + _DOC.format(losses='{"squared", "huber"}', default="squared",
                             estimator="KernelMachine", stratified="", score="R^2",
                             extra="", target="np.sin(X[:, 0]) + 0.1 * rng.normal(size=120)"))

    _estimator_class = KernelMachine
    _param_constraints = {**_SHARED_CONSTRAINTS, "loss": [Options(str, ("squared", "huber"))]}

    def __init__(self, kernel="rbf", loss="squared", alphas=8, *, param_grid=None, cv=None,
                 scoring=None, epsilon=1.35, max_iter=100, tol=1e-8, verbose=0):
        self.kernel = kernel
        self.loss = loss
        self.alphas = alphas
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose

    def fit(self, X, y):
        """Choose alpha (and the kernel parameters) by cross-validation and refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        base = self._check_params()
        X, y = validate_fit_data(self, base, X, y)
        return self._search(X, column_or_1d(y, warn=True).astype(np.float64), base)

    def _fold_path(self, K, train, y_train, alphas, sw_train=None):
        for alpha, coef, converged in _newton_path(K, train, y_train[:, None], self.loss,
                                                   alphas, None, self.tol, self.max_iter,
                                                   self.epsilon):
            model = self._make_estimator("rbf", alpha)
            yield alpha, _fold_model(model, len(train), coef), not converged


class KernelMachineClassifierCV(ClassifierOutputs, _MachineCVMixin, KernelParamsMixin,
                                ClassifierMixin, PathSearchCV):
    __doc__ = ("Kernel machine classifier (logistic or squared hinge loss) with alpha and "
               "kernel parameters\n    chosen by cross-validation, Newton warm-started along "
               "alpha (one-vs-rest for several classes).\n"
               + _DOC.format(losses='{"logistic", "squared_hinge"}', default="logistic",
                             estimator="KernelMachineClassifier", stratified=", stratified",
                             score="accuracy", target="X[:, 0] * X[:, 1] > 0",
                             extra='    class_weight : dict or "balanced", optional\n'))

    _is_classifier = True
    _estimator_class = KernelMachineClassifier
    _param_constraints = {**_SHARED_CONSTRAINTS,
                          "loss": [Options(str, ("logistic", "squared_hinge"))],
                          "class_weight": [Options(str, ("balanced",)), dict, None]}

    def __init__(self, kernel="rbf", loss="logistic", alphas=8, *, param_grid=None, cv=None,
                 scoring=None, epsilon=1.35, max_iter=100, tol=1e-8, verbose=0,
                 class_weight=None):
        self.kernel = kernel
        self.loss = loss
        self.alphas = alphas
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.class_weight = class_weight

    def _make_estimator(self, kernel, alpha):
        model = super()._make_estimator(kernel, alpha)
        model.class_weight = self.class_weight
        return model

    def fit(self, X, y):
        """Choose alpha (and the kernel parameters) by cross-validation and refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        base = self._check_params()
        X, y, _ = self._classifier_data(X, y, base)
        return self._search(X, y, base)

    def _fold_path(self, K, train, y_train, alphas, sw_train=None):
        classes, Y = fold_targets(y_train)
        sw = class_sample_weight(self.class_weight, classes, Y)
        for alpha, coef, converged in _newton_path(K, train, Y, self.loss, alphas, sw,
                                                   self.tol, self.max_iter, self.epsilon):
            model = self._make_estimator("rbf", alpha)
            model.classes_ = classes
            yield alpha, _fold_model(model, len(train), coef), not converged

