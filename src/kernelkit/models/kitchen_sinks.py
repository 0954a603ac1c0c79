"""Weighted sums of random kitchen sinks fitted by the lectures' constrained ERM."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._available_if import available_if
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted, validate_data

from .._fit_state import RestoresOnFailure
from .._validation import Interval, Options, check_vectors, validate_params
from ..features.kitchen_sinks import RandomKitchenSinks
from ..solvers.box_erm import box_erm
from ._base import (check_class_weights, check_sample_weight, predict_labels,
                    validate_classifier_data)

__all__ = ["KitchenSinksRegressor", "KitchenSinksClassifier"]

_CLASSIFIER_LOSSES = ("logistic", "hinge")
# The hinge is minimised through its Moreau envelope with this mu: within mu/2
# of the hinge objective. Smaller mu needs ~1/sqrt(mu) times more iterations
# (measured on banana, q = 100: mu = 0.01 did not converge in 5000 iterations)
# for no gain in test accuracy.
_HINGE_SMOOTHING = 0.1

_PARAMS_DOC = """
    n_components : int, default=100
        Number q of random basis functions.
    basis : {"cosine", "sigmoid", "bump"} or callable, default="cosine"
        The basis psi(x; w); see :class:`~kernelkit.features.RandomKitchenSinks`.
    sampler : {"normal", "uniform", "data"}, callable or None, default=None
        The distribution rho of w (None: "data" for "bump", else "normal").
    gamma : float or "scale", default="scale"
        Scale of "normal"/"uniform" directions (variance 2 gamma per coordinate).
    bandwidth : float or None, default=None
        Radius of "bump" (None: a tenth of the data per bump).
    C : float, default=100.0
        Bound on the weights, ``max_i |beta_i| <= C / q``, so ``|f(x) - b| <= C``.
    fit_intercept : bool, default=True
        Add an unconstrained intercept b to f (not part of the lectures' ERM,
        where f is the weighted sum alone; set False for that).
    max_iter : int, default=1000
        Accelerated projected-gradient iterations.
    tol : float, default=1e-3
        Relative tolerance on the gradient mapping (the KKT residual).
    random_state : int, RandomState instance or None, default=None
        Seed of the random basis functions."""

_ATTRS_DOC = """
    feature_map_ : RandomKitchenSinks
        The fitted random basis (w_1..w_q drawn at fit).
    coef_ : ndarray of shape (q,) or (q, k)
        beta, with ``max |beta_i| <= C / q``.
    intercept_ : float or ndarray of shape (k,)
        b (0 without ``fit_intercept``).
    random_weights_, random_offset_ : ndarray
        ``feature_map_``'s parameters (the same arrays; kept for model files).
    gamma_, bandwidth_ : float or None
        As on ``feature_map_``.
    n_iter_ : int
    converged_ : bool
    objective_ : ndarray of shape (``n_iter_``,)
        The minimised objective after each iteration (hinge: smoothed).
    n_features_in_ : int"""


# The feature map's own constraints, then the ERM's.
_KITCHEN_SINKS_CONSTRAINTS = {
    **{name: c for name, c in RandomKitchenSinks._param_constraints.items()
       if name not in ("normalize", "dtype")},
    "C": [Interval(Real, 0, None, closed="neither",
                   note="the bound on |f|; the weights satisfy |beta_i| <= C / n_components")],
    "fit_intercept": ["boolean"],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None)],
}


class _KitchenSinksBase(RestoresOnFailure, BaseEstimator):
    """Parameters and fitting shared by the two estimators (documented on each)."""

    _param_constraints = _KITCHEN_SINKS_CONSTRAINTS

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)

    def _feature_map(self):
        return RandomKitchenSinks(self.n_components, basis=self.basis, sampler=self.sampler,
                                  gamma=self.gamma, bandwidth=self.bandwidth,
                                  random_state=self.random_state)

    def _fit_features(self, X, Y, sample_weight=None):
        """Draw the basis, map X, solve the box-constrained ERM for the columns of Y."""
        fmap = self._feature_map().fit(X)
        Z = fmap.transform(X)
        q = fmap.n_components_
        res = box_erm(Z, Y, self.C / q, self.loss, fit_intercept=self.fit_intercept,
                      max_iter=self.max_iter, tol=self.tol, smoothing=_HINGE_SMOOTHING,
                      sample_weight=sample_weight)
        if not res.converged:
            warnings.warn(f"{type(self).__name__} did not converge in max_iter={self.max_iter} "
                          f"iterations (tol={self.tol}); increase max_iter or tol",
                          ConvergenceWarning, stacklevel=3)
        self.feature_map_ = fmap
        self.random_weights_, self.random_offset_ = fmap.random_weights_, fmap.random_offset_
        self.gamma_, self.bandwidth_ = fmap.gamma_, fmap.bandwidth_
        self.coef_, self.intercept_ = res.coef, res.intercept
        self.n_iter_, self.converged_ = res.n_iter, res.converged
        self.objective_ = res.objective
        return self

    def _scores(self, X):
        check_is_fitted(self, "coef_")
        check_vectors(X, "X")
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return self.feature_map_.transform(X) @ self.coef_ + self.intercept_


class KitchenSinksRegressor(RegressorMixin, _KitchenSinksBase):
    __doc__ = f"""Regression by a weighted sum of random kitchen sinks (Rahimi & Recht 2008).

    f(x) = sum_i beta_i psi(x; w_i) + b with w_1..w_q drawn once from rho,
    and beta (and b) minimising (1/n) sum_j (f(x_j) - y_j)^2 / 2 subject to
    ``max_i |beta_i| <= C / q``, by accelerated projected gradient
    (:func:`kernelkit.solvers.box_erm.box_erm`). C is in the units of y:
    standardise y (or raise C) when its spread is large. Several target
    columns are fitted together, independently.

    Parameters
    ----------{_PARAMS_DOC}

    Attributes
    ----------{_ATTRS_DOC}

    References
    ----------
    .. [1] A. Rahimi and B. Recht, "Weighted sums of random kitchen sinks:
       replacing minimization with randomization in learning", NIPS 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KitchenSinksRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = np.sin(X[:, 0])
    >>> reg = KitchenSinksRegressor(200, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.9
    True
    """

    loss = "squared"

    def __init__(self, n_components=100, *, basis="cosine", sampler=None, gamma="scale",
                 bandwidth=None, C=100.0, fit_intercept=True, max_iter=1000, tol=1e-3,
                 random_state=None):
        self.n_components = n_components
        self.basis = basis
        self.sampler = sampler
        self.gamma = gamma
        self.bandwidth = bandwidth
        self.C = C
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit on X of shape (n_samples, n_features), y of shape (n_samples,) or (n_samples, k).

        ``sample_weight`` (n_samples,), optional, weighs each sample's loss: the
        objective is (1 / sum w) sum_j w_j l_j, so integer weights equal repeated rows.
        """
        self._check_params()
        if y is None:
            raise ValueError("KitchenSinksRegressor requires y to be passed, but the target y "
                             "is None")
        check_vectors(X, "X")
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], multi_output=True,
                             y_numeric=True)
        sw = check_sample_weight(sample_weight, len(X))
        return self._fit_features(X, np.asarray(y, dtype=np.float64), sw)

    def predict(self, X):
        """f(X), shape (n_queries,) or (n_queries, k)."""
        return self._scores(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class KitchenSinksClassifier(ClassifierMixin, _KitchenSinksBase):
    __doc__ = f"""Classification by a weighted sum of random kitchen sinks (Rahimi & Recht 2008).

    Labels of any type are mapped to -1/+1 (``classes_[1]`` is +1); with more
    than two classes, one problem per class (one-vs-rest), all solved
    together on the same random features. Each minimises
    (1/n) sum_j l(y_j f(x_j)) subject to ``max_i |beta_i| <= C / q`` with the
    logistic or the hinge loss (the hinge replaced by its Moreau envelope with
    mu = 0.1, within 0.05 of it everywhere; see :mod:`kernelkit.solvers.box_erm`).

    Parameters
    ----------{_PARAMS_DOC}
    loss : {{"logistic", "hinge"}}, default="logistic"
        ``predict_proba`` needs "logistic".
    class_weight : dict, "balanced" or None, default=None
        Multiplies each sample's weight by its class's, as scikit-learn
        (``{{label: weight}}``, unnamed classes weigh 1; "balanced":
        ``n_samples / (n_classes * count(class))``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,){_ATTRS_DOC}

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KitchenSinksClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = np.where(X[:, 0] * X[:, 1] > 0, "a", "b")
    >>> clf = KitchenSinksClassifier(300, C=50.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _param_constraints = {
        **_KITCHEN_SINKS_CONSTRAINTS,
        "loss": [Options(str, _CLASSIFIER_LOSSES)],
        "class_weight": [Options(str, ("balanced",)), dict, None],
    }

    def __init__(self, n_components=100, *, basis="cosine", sampler=None, gamma="scale",
                 bandwidth=None, C=100.0, loss="logistic", fit_intercept=True, max_iter=1000,
                 tol=1e-3, random_state=None, class_weight=None):
        self.n_components = n_components
        self.basis = basis
        self.sampler = sampler
        self.gamma = gamma
        self.bandwidth = bandwidth
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.class_weight = class_weight

    def fit(self, X, y, sample_weight=None):
        """Fit on X of shape (n_samples, n_features), labels y of shape (n_samples,).

        ``sample_weight`` (n_samples,), optional, weighs each sample's loss (times
        its class's ``class_weight``); integer weights equal repeated rows.
        """
        self._check_params()
        X, Y = validate_classifier_data(self, X, y)
        sw = check_sample_weight(sample_weight, len(X))
        if self.class_weight is not None:
            codes = (Y[:, 0] > 0).astype(int) if Y.shape[1] == 1 else np.argmax(Y, axis=1)
            class_weights = check_class_weights(compute_class_weight(
                self.class_weight, classes=self.classes_, y=self.classes_[codes]),
                self.classes_)[codes]
            sw = class_weights if sw is None else sw * class_weights
        return self._fit_features(X, Y[:, 0] if Y.shape[1] == 1 else Y, sw)

    def decision_function(self, X):
        """Scores f(x): shape (n_queries,) for two classes (> 0 means classes_[1]),
        else (n_queries, n_classes)."""
        return self._scores(X)

    def predict(self, X):
        """Predicted labels, shape (n_queries,)."""
        scores = self.decision_function(X)  # checks fitted before classes_ is read
        return predict_labels(self.classes_, scores)

    @available_if(lambda est: est.loss == "logistic")
    def predict_log_proba(self, X):
        """Log-probabilities, shape (n_queries, n_classes) (logistic loss only).

        Two classes: log expit(-f), log expit(f). One-vs-rest: the per-class
        probabilities expit(f_c), normalised to sum to one.
        """
        F = self.decision_function(X)
        if F.ndim == 1:
            return np.column_stack([log_expit(-F), log_expit(F)])
        L = log_expit(F)
        return L - np.logaddexp.reduce(L, axis=1, keepdims=True)

    @available_if(lambda est: est.loss == "logistic")
    def predict_proba(self, X):
        """Class probabilities, shape (n_queries, n_classes); rows sum to 1 (logistic only)."""
        return np.exp(self.predict_log_proba(X))
