"""Any L2-regularised linear model, kernelised by the representer theorem.

``KernelMachine`` (regression losses: squared, huber) and
``KernelMachineClassifier`` (margin losses: logistic, hinge, squared_hinge;
labels of any type, one-vs-rest beyond two classes) minimise

    (alpha/2) ||f||_H^2 + sum_i l(f(x_i); y_i),

i.e. (lam/2)||w||^2 + (1/n) sum_i l(w'psi(x_i); y_i) with lam = alpha / n.
This scaling makes ``KernelMachine(loss="squared", alpha=a)`` the same model
as ``KernelRidge(alpha=a)`` (both solve (K + a I) u = y), and ``alpha = 1/C``
for scikit-learn's ``C`` convention. There is no separate intercept: add a
constant to the kernel (``"rbf + 1"``) for one (it is then penalised).

Solvers (all in :mod:`kernelkit.solvers`): ``"newton"`` (IRLS on the cached
Gram matrix, smooth and piecewise-quadratic losses), ``"lbfgs"`` (products
with K only), ``"sgd"`` in one of the lectures' four strategies, chosen by
:func:`kernelkit.planning.plan` when ``strategy="auto"``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .. import config
from .._validation import HasMethods, Interval, Options, check_vectors, validate_params
from ..exceptions import InvalidParameterError, MemoryBudgetError
from ..features import ExplicitFeatures, explicit_feature_dim
from ..gram import GramOperator, gram
from ..calibration import machine_rates
from ..planning import STRATEGIES, plan
from ..solvers.losses import get_loss
from ..solvers.newton import lbfgs_dual, newton_dual
from ..solvers.sgd import default_eta0, sgd
from ._base import resolve_estimator_kernel, validate_fit_data, validate_predict_data
from ._base import input_dim, takes_strings
from .kernel_ridge import predict_dual

__all__ = ["KernelMachine", "KernelMachineClassifier"]

_SOLVERS = ("auto", "sgd", "newton", "lbfgs")
_REGRESSION = ("squared", "huber")
_CLASSIFICATION = ("logistic", "hinge", "squared_hinge")
# Above this n, solver="auto" prefers SGD to Newton's O(n^3) per iteration.
_NEWTON_MAX_N = 5000


# Declared constraints shared by the kernel machines and KernelLogisticRegression.
ITERATION_CONSTRAINTS = {
    "strategy": [Options(str, ("auto",) + tuple(STRATEGIES))],
    "n_epochs": [Interval(Integral, 1, None)],
    "max_iter": [Interval(Integral, 1, None)],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "random_state": ["random_state"],
}
_MACHINE_CONSTRAINTS = {
    "kernel": ["kernel"],
    "alpha": [Interval(Real, 0, None, closed="neither", note="the penalty")],
    "epsilon": [Interval(Real, 0, None, closed="neither", note="the Huber threshold")],
    "solver": [Options(str, _SOLVERS)],
    "features": [HasMethods(["fit", "transform"]), None],
    "eta0": [Interval(Real, 0, None, closed="neither"), Options(str, ("auto",))],
    "average": ["boolean", Interval(Integral, 0, None)],
    **ITERATION_CONSTRAINTS,
}


def check_kernel_machine_params(est):
    """Data-independent checks shared by the kernel machines; returns the kernel."""
    owner = type(est).__name__
    validate_params(est, est._param_constraints, owner)
    if est.solver in ("newton", "lbfgs") and est.loss == "hinge":
        raise InvalidParameterError(
            f"{owner}: solver={est.solver!r} needs a loss with curvature; the hinge loss "
            "has none: use solver='sgd' (or loss='squared_hinge')")
    kernel = resolve_estimator_kernel(est.kernel)
    if kernel == "precomputed":
        raise InvalidParameterError(f"{owner} does not take kernel='precomputed'; pass a "
                                    "kernel object or expression")
    return kernel


def fit_columns(est, kernel, X, Y, loss, alpha, *, solver, strategy, features, n_epochs,
                eta0, average, max_iter, tol, random_state):
    """Fit one binary/real problem per column of Y (n, k) with the shared solvers.

    Sets on ``est``: ``kernel_``, ``solver_``, ``representation_`` ("dual" or
    "primal"), ``dual_coef_`` + ``X_fit_`` or ``coef_`` + ``feature_map_``,
    ``n_iter_``, ``objective_``, and ``plan_`` for SGD. Coefficients have
    shape (n or D, k), or (n or D,) when Y has one column.
    """
    loss = get_loss(loss, getattr(est, "epsilon", 1.35))
    n, d = len(X), input_dim(X)
    lam = alpha / n
    budget = config.get_config()["memory"]
    if solver == "auto":
        small = n <= _NEWTON_MAX_N and 8.0 * n * n <= budget / 2
        solver = "sgd" if loss.name == "hinge" or not small else "newton"
    est.kernel_ = kernel
    est.solver_ = solver
    est.plan_ = None
    if not takes_strings(kernel):
        X = np.asarray(X, dtype=np.float64)
    if solver in ("newton", "lbfgs"):
        if solver == "newton":
            if 8.0 * n * n > budget:
                raise MemoryBudgetError(
                    f"solver='newton' needs the {n} x {n} Gram matrix ({8.0 * n * n / 1e9:.1f}"
                    f" GB) but the memory budget is {budget / 1e9:.1f} GB; use solver='lbfgs' "
                    "(products with K, never stored) or solver='sgd'")
            K = gram(kernel, X)
            results = [newton_dual(K, Y[:, j], loss, lam, tol=tol, max_iter=max_iter)
                       for j in range(Y.shape[1])]
        else:
            K = gram_or_operator(kernel, X)
            results = [lbfgs_dual(K, Y[:, j], loss, lam, tol=tol, max_iter=max_iter)
                       for j in range(Y.shape[1])]
        est.representation_ = "dual"
        est.X_fit_ = X
        est.dual_coef_ = _stack([r.coef for r in results])
        est.n_iter_ = max(r.n_iter for r in results)
        est.objective_ = np.array([r.objective for r in results])
        return

    fmap = None
    if features is not None:
        fmap = clone(features).fit(X)
    elif explicit_feature_dim(kernel, d) is not None:
        fmap = ExplicitFeatures(kernel)
    D = None
    if features is not None:  # any transformer: ask it for its output dimension
        D = getattr(fmap, "n_components_", None) or fmap.transform(X[:1]).shape[1]
    elif fmap is not None:
        D = explicit_feature_dim(kernel, d)
    T = int(n_epochs) * n
    est.plan_ = plan(n, d, kernel, loss.name, n_features=D, iterations=T, memory=budget,
                     rates=machine_rates())
    if strategy == "auto":
        strategy = est.plan_.choice
        if strategy == "none":
            raise MemoryBudgetError("no SGD strategy fits the memory budget:\n"
                                    + est.plan_.explain())
    if strategy.startswith("features") and fmap is None:
        raise ValueError(
            f"strategy={strategy!r} learns w on explicit features, but {kernel!r} has no "
            "finite feature map (random Fourier features come later); pass features=... "
            "(e.g. kernelkit.features.Nystroem(kernel), "
            "which also serves string kernels, or any transformer with transform(X)) or use "
            "strategy='kernel_on_the_fly' or "
            "'gram_cached'")
    if fmap is not None and features is None:
        fmap = fmap.fit(X)
    # One step size for every strategy (so all four learn the same model).
    if eta0 == "auto":
        eta0 = default_eta0(loss, float(np.max(kernel.diag(X))), lam)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    shared = {}
    if strategy == "features_cached":
        shared["Z"] = fmap.transform(X)
    elif strategy == "gram_cached":
        shared["K"] = gram(kernel, X)
    results = [sgd(strategy, Y[:, j], loss, lam, X=X, kernel=kernel, features=fmap,
                   n_epochs=n_epochs, eta0=float(eta0), average=average, random_state=seed,
                   **shared) for j in range(Y.shape[1])]
    coef = _stack([r.coef for r in results])
    if results[0].representation == "w":
        est.representation_ = "primal"
        est.feature_map_ = fmap
        est.coef_ = coef
    else:
        est.representation_ = "dual"
        est.X_fit_ = X
        est.dual_coef_ = coef
    est.strategy_ = strategy
    est.n_iter_ = results[0].n_iter
    est.objective_ = np.array([r.objective for r in results])


def gram_or_operator(kernel, X):
    """K stored when it takes at most half the memory budget, else an operator that
    recomputes its rows per product (L-BFGS then works in u-space, slower)."""
    n = len(X)
    if 8.0 * n * n <= config.get_config()["memory"] / 2:
        return gram(kernel, X)
    return GramOperator(kernel, X)


def _stack(coefs):
    return coefs[0] if len(coefs) == 1 else np.column_stack(coefs)


def decision_columns(est, X):
    """Scores (n_queries,) or (n_queries, k) of a model fitted by :func:`fit_columns`."""
    if est.representation_ == "primal":
        return est.feature_map_.transform(X) @ est.coef_
    return predict_dual(est.kernel_, X, est.X_fit_, est.dual_coef_)


class _KernelMachineMixin:
    """Parameters shared by the two kernel machines (documented on each class)."""

    def __init__(self, kernel="rbf", loss="squared", alpha=1.0, *, epsilon=1.35,
                 solver="auto", strategy="auto", features=None, n_epochs=5, eta0="auto",
                 average=False, max_iter=100, tol=1e-8, random_state=None):
        self.kernel = kernel
        self.loss = loss
        self.alpha = alpha
        self.epsilon = epsilon
        self.solver = solver
        self.strategy = strategy
        self.features = features
        self.n_epochs = n_epochs
        self.eta0 = eta0
        self.average = average
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _fit_columns(self, kernel, X, Y):
        fit_columns(self, kernel, X, Y, self.loss, float(self.alpha), solver=self.solver,
                    strategy=self.strategy, features=self.features, n_epochs=self.n_epochs,
                    eta0=self.eta0, average=self.average, max_iter=self.max_iter,
                    tol=self.tol, random_state=self.random_state)


_PARAMS_DOC = """
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"poly(degree=2) + 1"``.
    loss : str
        See the class summary.
    alpha : float, default=1.0
        Penalty (alpha/2)||f||^2 against the *sum* of the losses; lam = alpha / n.
    epsilon : float, default=1.35
        Huber threshold.
    solver : {"auto", "sgd", "newton", "lbfgs"}, default="auto"
        ``"auto"``: SGD for the hinge loss or n > 5000, else Newton.
    strategy : {"auto", "features_on_the_fly", "features_cached", "kernel_on_the_fly",
        "gram_cached"}, default="auto"
        SGD strategy; ``"auto"`` asks :func:`kernelkit.planning.plan` (kept in ``plan_``).
    features : transformer, optional
        Feature map psi for the feature strategies (any object with
        ``fit``/``transform``); default: :class:`~kernelkit.features.ExplicitFeatures`
        when the kernel has a finite map.
    n_epochs : int, default=5
        SGD passes over the data (one permutation each).
    eta0 : float or "auto", default="auto"
        First SGD step, eta_t = eta0 / (1 + eta0 lam t); ``"auto"`` =
        1 / (sup l'' max_i k(x_i, x_i) + lam).
    average : bool or int, default=False
        Average the SGD iterates (from step ``average`` if an int).
    max_iter : int, default=100
        Newton / L-BFGS iterations.
    tol : float, default=1e-8
        Newton decrement / L-BFGS gradient tolerance.
    random_state : int, RandomState or None
        Seeds the SGD sample order.
"""


class KernelMachine(_KernelMachineMixin, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kernelised L2-regularised regression with the squared or Huber loss.

    Minimises (alpha/2)||f||_H^2 + sum_i l(f(x_i); y_i); with ``loss="squared"``
    this is kernel ridge regression (same alpha as :class:`KernelRidge`).

    Parameters
    ----------{_PARAMS_DOC}
    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        u (dual representation), with ``X_fit_``.
    coef_ : ndarray of shape (D,) or (D, n_targets)
        w (primal representation, SGD on features), with ``feature_map_``.
    representation_ : {{"dual", "primal"}}
    solver_ : {{"sgd", "newton", "lbfgs"}}
    strategy_ : str
        SGD strategy used (SGD only).
    plan_ : Plan or None
        The planner's answer (SGD only).
    n_iter_ : int
    objective_ : ndarray of shape (n_targets,)
        Final (lam/2)||w||^2 + mean loss per target.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelMachine
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = np.sin(X[:, 0])
    >>> m = KernelMachine("rbf(gamma=0.5)", loss="huber", alpha=0.1).fit(X, y)
    >>> float(np.abs(m.predict(X) - y).mean()) < 0.1
    True
    """

    _param_constraints = {
        **_MACHINE_CONSTRAINTS,
        "loss": [Options(str, _REGRESSION, note="the margin losses 'logistic', 'hinge' and "
                                                "'squared_hinge' are KernelMachineClassifier's")],
    }

    def _check_params(self):
        return check_kernel_machine_params(self)

    def fit(self, X, y):
        """Fit on X of shape (n_samples, n_features), y of shape (n_samples,) or
        (n_samples, n_targets); returns self."""
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        y = np.asarray(y, dtype=np.float64)
        self._fit_columns(kernel, X, y[:, None] if y.ndim == 1 else y)
        if y.ndim == 2 and y.shape[1] == 1:  # keep the (n, 1) shape of y
            for name in ("dual_coef_", "coef_"):
                if hasattr(self, name):
                    setattr(self, name, getattr(self, name)[:, None])
        return self

    def predict(self, X):
        """Predicted targets, shape (n_queries,) or (n_queries, n_targets)."""
        check_is_fitted(self, "representation_")
        X = validate_predict_data(self, self.kernel_, X)
        return decision_columns(self, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class _ScoreClassifier(ClassifierMixin, BaseEstimator):
    """decision_function and predict shared by the kernel-machine classifiers."""

    def decision_function(self, X):
        """Scores f(x): shape (n_queries,) for two classes (> 0 means classes_[1]),
        else (n_queries, n_classes)."""
        check_is_fitted(self, "representation_")
        X = validate_predict_data(self, self.kernel_, X)
        return decision_columns(self, X)

    def predict(self, X):
        """Predicted labels, shape (n_queries,)."""
        scores = self.decision_function(X)  # checks fitted before classes_ is read
        return predict_labels(self.classes_, scores)


class KernelMachineClassifier(_KernelMachineMixin, _ScoreClassifier):
    __doc__ = f"""Kernelised L2-regularised classifier with a margin loss.

    Labels of any type are mapped to -1/+1 (``classes_[1]`` is +1); with more
    than two classes, one binary problem per class (one-vs-rest, the same
    sample order for each).

    Parameters
    ----------{_PARAMS_DOC}
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
    coef_ : ndarray of shape (D,) for two classes, else (D, n_classes)
    representation_, solver_, strategy_, plan_, n_iter_, objective_
        As in :class:`KernelMachine`.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelMachineClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2)); y = np.where(X[:, 0] > 0, "a", "b")
    >>> clf = KernelMachineClassifier("rbf", loss="hinge", alpha=0.1, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.9
    True
    """

    def __init__(self, kernel="rbf", loss="hinge", alpha=1.0, *, epsilon=1.35,
                 solver="auto", strategy="auto", features=None, n_epochs=5, eta0="auto",
                 average=False, max_iter=100, tol=1e-8, random_state=None):
        super().__init__(kernel, loss, alpha, epsilon=epsilon, solver=solver,
                         strategy=strategy, features=features, n_epochs=n_epochs, eta0=eta0,
                         average=average, max_iter=max_iter, tol=tol,
                         random_state=random_state)

    _param_constraints = {
        **_MACHINE_CONSTRAINTS,
        "loss": [Options(str, _CLASSIFICATION, note="'squared' and 'huber' are losses of "
                                                    "KernelMachine")],
    }

    def _check_params(self):
        return check_kernel_machine_params(self)

    def fit(self, X, y):
        """Fit on X of shape (n_samples, n_features), labels y of shape (n_samples,)."""
        kernel = self._check_params()
        X, Y = validate_classifier_data(self, X, y, kernel)
        self._fit_columns(kernel, X, Y)
        return self



def validate_classifier_data(est, X, y, kernel=None):
    """Validate (X, labels); set ``classes_``; return X and the -1/+1 targets (n, k).

    ``kernel`` is the estimator's resolved kernel (strings take the string path);
    None for estimators without one (random kitchen sinks), which take vectors.
    """
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
    if kernel is not None and takes_strings(kernel):
        X, y = validate_fit_data(est, kernel, X, y, y_numeric=False)
        y = column_or_1d(y, warn=True)
    else:
        check_vectors(X, "X")
        X, y = validate_data(est, X, y, dtype=[np.float64, np.float32])
    check_classification_targets(y)
    est.classes_, yi = np.unique(y, return_inverse=True)
    if len(est.classes_) < 2:
        raise ValueError(f"{type(est).__name__} needs samples of at least 2 classes in the "
                         f"data, but the data contain only one class: {est.classes_[0]!r}")
    if len(est.classes_) == 2:
        return X, np.where(yi == 1, 1.0, -1.0)[:, None]
    return X, np.where(yi[:, None] == np.arange(len(est.classes_))[None, :], 1.0, -1.0)


def predict_labels(classes, scores):
    """Labels from binary scores (n,) or one score per class (n, n_classes)."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]
