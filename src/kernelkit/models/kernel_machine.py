"""Any L2-regularised linear model, kernelised by the representer theorem.

``KernelMachine`` (regression losses: squared, huber, epsilon_insensitive) and
``KernelMachineClassifier`` (margin losses: logistic, hinge, squared_hinge;
labels of any type, one-vs-rest beyond two classes) minimise

    (alpha/2) ||f||_H^2 + sum_i l(f(x_i); y_i),

i.e. (lam/2)||w||^2 + (1/n) sum_i l(w'psi(x_i); y_i) with lam = alpha / n.
This scaling makes ``KernelMachine(loss="squared", alpha=a)`` the same model
as ``KernelRidge(alpha=a, fit_intercept=False)`` (both solve (K + a I) u = y),
and ``alpha = 1/C``
for scikit-learn's ``C`` convention. ``fit_intercept=True`` adds an
unpenalised intercept b, f(x) + b (Newton or L-BFGS; the default, False, keeps
the equality with ``KernelRidge(fit_intercept=False)`` and scikit-learn's
``KernelRidge``, and lets every solver, SGD included, run);
a constant in the kernel (``"rbf + 1"``) gives a penalised one. Any other loss
can be passed as an object with its value, gradient and curvature
(:func:`kernelkit.solvers.make_loss`): the representer theorem holds for every
loss. ``fit(X, y, sample_weight)`` multiplies each sample's loss. With
``loss="epsilon_insensitive"`` and ``alpha = 1/C`` the objective is
``C`` times that of :class:`~kernelkit.models.KernelSVR` (scikit-learn's
``SVR``) without its intercept: the same minimiser.

Solvers (all in :mod:`kernelkit.solvers`): ``"newton"`` (IRLS on the cached
Gram matrix, smooth and piecewise-quadratic losses), ``"lbfgs"`` (products
with K only), ``"sgd"`` in one of the lectures' four strategies, chosen by
:func:`kernelkit.planning.plan_sgd` when ``strategy="auto"``. The fitting
itself is :func:`kernelkit.models._columns.fit_columns`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils.class_weight import compute_class_weight
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import HasMethods, Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..planning import STRATEGIES
from ._base import KernelParamsMixin, kernel_for_data
from ._base import report_plan, resolve_estimator_kernel, validate_fit_data, validate_predict_data
from ._base import check_class_weights, check_sample_weight, validate_classifier_data
from ._columns import ColumnFitted, _ScoreClassifier, decision_columns, fit_columns
from ..solvers.user_loss import UserLoss, check_user_loss, is_user_loss

__all__ = ["KernelMachine", "KernelMachineClassifier"]

_SOLVERS = ("auto", "sgd", "newton", "lbfgs")
_REGRESSION = ("squared", "huber", "epsilon_insensitive")
_NO_CURVATURE = ("hinge", "epsilon_insensitive")
_CLASSIFICATION = ("logistic", "hinge", "squared_hinge")


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
    "epsilon": [Interval(Real, 0, None, closed="left",
                         note="the Huber threshold or the epsilon-insensitive tube")],
    "solver": [Options(str, _SOLVERS)],
    "features": [HasMethods(["fit", "transform"]), None],
    "eta0": [Interval(Real, 0, None, closed="neither"), Options(str, ("auto",))],
    "average": ["boolean", Interval(Integral, 0, None)],
    "verbose": [Interval(Real, 0, None)],
    "fit_intercept": ["boolean"],
    **ITERATION_CONSTRAINTS,
}


def class_sample_weight(class_weight, classes, Y, sample_weight=None):
    """Per-sample weights class_weight[y_i] * sample_weight_i, or None if neither is given.

    ``Y`` is the (n, k) -1/+1 coding of :func:`validate_classifier_data` (k = 1
    for two classes); ``class_weight`` is a dict label -> weight or
    ``"balanced"`` (n / (n_classes * count), counts weighted by
    ``sample_weight``), scikit-learn's semantics. With
    one-vs-rest, every binary problem gets the same per-sample weights (those
    of each sample's own class), as scikit-learn's LogisticRegression.
    """
    n = Y.shape[0]
    if class_weight is None:
        return None if sample_weight is None else check_sample_weight(sample_weight, n)
    labels = (Y[:, 0] > 0).astype(np.int64) if Y.shape[1] == 1 else np.argmax(Y, axis=1)
    given = None if sample_weight is None else check_sample_weight(sample_weight, n)
    # compute_class_weight checks the dict's labels against classes_ (sklearn's message);
    # "balanced" counts the classes with the sample weights, as scikit-learn does
    weights = check_class_weights(compute_class_weight(class_weight, classes=classes,
                                                       y=classes[labels], sample_weight=given),
                                  classes)
    sw = weights[labels]
    return sw if given is None else sw * given


def check_kernel_machine_params(est):
    """Data-independent checks shared by the kernel machines; returns the kernel."""
    owner = type(est).__name__
    validate_params(est, est._param_constraints, owner)
    if is_user_loss(est.loss):
        _check_user_loss_params(est, owner)
    elif est.fit_intercept and (est.solver == "sgd" or est.loss in _NO_CURVATURE):
        why = (f"the {est.loss} loss has no curvature for them"
               if est.loss in _NO_CURVATURE else "SGD has none")
        raise InvalidParameterError(
            f"{owner}: fit_intercept=True is fitted by solver='newton' or 'lbfgs' ({why}); "
            "use fit_intercept=False with solver='sgd' (a constant in the kernel, e.g. "
            "'rbf + 1', is a penalised intercept)"
            + ("" if est.loss not in _NO_CURVATURE else
               f", or loss={'squared_hinge' if est.loss == 'hinge' else 'huber'!r}"))
    if est.solver in ("newton", "lbfgs") and est.loss in _NO_CURVATURE:
        other = "squared_hinge" if est.loss == "hinge" else "huber"
        raise InvalidParameterError(
            f"{owner}: solver={est.solver!r} needs a loss with curvature; the {est.loss} loss "
            f"has none: use solver='sgd' (or loss={other!r})")
    if isinstance(est.loss, str) and est.loss == "huber" and not est.epsilon > 0:
        raise InvalidParameterError(f"{owner}: the huber loss needs epsilon > 0, got "
                                    f"{est.epsilon!r}")
    kernel = resolve_estimator_kernel(est.kernel)
    if kernel == "precomputed":
        raise InvalidParameterError(f"{owner} does not take kernel='precomputed'; pass a "
                                    "kernel object or expression")
    return kernel


def _check_user_loss_params(est, owner):
    """A user loss: of the estimator's kind, and a solver that can use it."""
    loss = est.loss
    want = "margin" if isinstance(est, _ScoreClassifier) else "regression"
    if loss.kind != want:
        other = "KernelMachineClassifier" if want == "regression" else "KernelMachine"
        raise InvalidParameterError(
            f"{owner}: the loss {loss.name!r} is a {loss.kind} loss; {owner} takes "
            f"make_loss(..., kind={want!r}) (a {loss.kind} loss is {other}'s)")
    if est.solver == "sgd":
        raise InvalidParameterError(
            f"{owner}: solver='sgd' runs compiled steps of the built-in losses; the user loss "
            f"{loss.name!r} is fitted by solver='newton' (with a curvature) or 'lbfgs'")
    if est.solver == "newton" and not loss.smooth:
        raise InvalidParameterError(
            f"{owner}: solver='newton' needs the loss's curvature; {loss.name!r} has none: "
            "pass make_loss(..., curvature=...) or use solver='lbfgs'")


class _KernelMachineMixin(ColumnFitted):
    """Parameters shared by the two kernel machines (documented on each class)."""

    def __init__(self, kernel="rbf", loss="squared", alpha=1.0, *, epsilon=1.35,
                 solver="auto", strategy="auto", features=None, n_epochs=5, eta0="auto",
                 average=False, max_iter=100, tol=1e-8, random_state=None, verbose=0,
                 fit_intercept=False):
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
        self.verbose = verbose
        self.fit_intercept = fit_intercept

    def _fit_columns(self, kernel, X, Y, sample_weight=None):
        if is_user_loss(self.loss):
            check_user_loss(self.loss, Y, type(self).__name__)
        return fit_columns(kernel, X, Y, self.loss, float(self.alpha), epsilon=self.epsilon,
                           solver=self.solver, strategy=self.strategy, features=self.features,
                           n_epochs=self.n_epochs, eta0=self.eta0, average=self.average,
                           max_iter=self.max_iter, tol=self.tol,
                           random_state=self.random_state, sample_weight=sample_weight,
                           verbose=self.verbose, fit_intercept=bool(self.fit_intercept))


_PARAMS_DOC = """
    kernel : Kernel or str, default="rbf"
        A kernel object or expression such as ``"poly(degree=2) + 1"``.
    loss : str or UserLoss
        See the class summary; or any loss from
        :func:`kernelkit.solvers.make_loss` (its value, gradient and, for Newton,
        curvature in the score; probed at fit: vectorised, finite, gradient
        matching the value, curvature >= 0). Fitted by Newton when it has a
        curvature, else L-BFGS (``plan_`` says which); a model with a user loss
        cannot be saved to a model file (the loss is code).
    alpha : float, default=1.0
        Penalty (alpha/2)||f||^2 against the *sum* of the losses; lam = alpha / n.
    epsilon : float, default=1.35
        Huber threshold (> 0), or the half-width of the epsilon-insensitive tube
        (>= 0; scikit-learn's SVR uses 0.1: pass it).
    solver : {"auto", "sgd", "newton", "lbfgs"}, default="auto"
        ``"auto"``: SGD for the hinge and epsilon-insensitive losses (no
        curvature) or n > 5000, else Newton (a Cholesky per step up to n = 500,
        preconditioned CG with products with the stored K above: the choice is
        in ``plan_``).
    strategy : {"auto", "features_on_the_fly", "features_cached", "kernel_on_the_fly",
        "gram_cached"}, default="auto"
        SGD strategy; ``"auto"`` asks :func:`kernelkit.planning.plan_sgd` (kept in ``plan_``).
    features : transformer, optional
        Feature map psi for the feature strategies (any object with
        ``fit``/``transform``); default: :class:`~kernelkit.features.ExplicitFeatures`
        when the kernel has a finite map, else, for a shift-invariant kernel (RBF,
        Laplacian, Cauchy, Matern), D = 1000 random Fourier features (recorded in
        ``plan_``); other kernels need ``features=`` for those strategies. Saved
        with the model (kernelkit's feature maps only).
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
        Newton decrement / L-BFGS gradient tolerance. Stopping at ``max_iter``
        short of it warns (:class:`~sklearn.exceptions.ConvergenceWarning`), as
        does SGD whose objective still changed by more than 1% over its last epoch.
    random_state : int, RandomState or None
        Seeds the SGD sample order.
    verbose : int, default=0
        Progress of the Newton / L-BFGS steps (with the gradient norm) or of
        the SGD steps, and the plan; ``config_context(verbosity=1)`` does the same.
    fit_intercept : bool, default=False
        Fit an unpenalised intercept b: minimise (alpha/2)||f||_H^2 + sum_i s_i
        l(f(x_i) + b; y_i). Newton (direct steps, one Cholesky factorisation
        each) or L-BFGS; not SGD, nor the hinge and epsilon-insensitive losses.
        b is the joint minimiser (for the squared loss: sum_i u_i = 0, the
        kernel ridge fit of the centred kernel), not :class:`KernelRidge`'s
        ``fit_intercept``, which centres y (b = its mean). False (the default)
        keeps ``KernelMachine(loss="squared")`` equal to
        ``KernelRidge(fit_intercept=False)`` and scikit-learn's ``KernelRidge``.
"""


class KernelMachine(KernelParamsMixin, _KernelMachineMixin, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kernelised L2-regularised regression: squared, Huber or epsilon-insensitive loss.

    Minimises (alpha/2)||f||_H^2 + sum_i l(f(x_i); y_i); with ``loss="squared"``
    this is kernel ridge regression (same alpha as :class:`KernelRidge`); with
    ``loss="epsilon_insensitive"`` and ``alpha = 1/C`` it is support vector
    regression without intercept (SGD only: the loss has no curvature).

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
    plan_ : Plan
        The automatic choices of the fit (solver, storing K) and, for SGD, the
        planner's table of strategies; printed by ``fit`` at verbosity >= 1.
    n_iter_ : int
    intercept_ : float or ndarray of shape (n_targets,)
        b (0.0 when ``fit_intercept=False``).
    objective_ : ndarray of shape (n_targets,)
        Final (lam/2)||w||^2 + mean (weighted) loss per target.
    gradient_norm_ : ndarray of shape (n_targets,)
        Newton / L-BFGS: the final gradient norm in the feature space (as
        Falkon's ``residual_norm_``: what ``tol`` is judged against).
    last_epoch_change_ : ndarray of shape (n_targets,)
        SGD: the objective's relative change over the last epoch.

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
                                                "'squared_hinge' are KernelMachineClassifier's; "
                                                "other losses: kernelkit.solvers.make_loss"),
                 UserLoss],
    }

    def _check_params(self):
        return check_kernel_machine_params(self)

    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array-like of shape (n_samples,), optional
            s_i >= 0 multiplying sample i's loss (integer weights fit as
            repeated rows).

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        y = np.asarray(y, dtype=np.float64)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
        fit = self._fit_columns(kernel, X, y[:, None] if y.ndim == 1 else y, sw)
        if y.ndim == 2 and y.shape[1] == 1:  # keep the (n, 1) shape of y
            fit.coef = fit.coef[:, None]
        self._store_fit(kernel, fit)
        report_plan(self, self.verbose)
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


class KernelMachineClassifier(KernelParamsMixin, _KernelMachineMixin, _ScoreClassifier):
    __doc__ = f"""Kernelised L2-regularised classifier with a margin loss.

    Labels of any type are mapped to -1/+1 (``classes_[1]`` is +1); with more
    than two classes, one binary problem per class (one-vs-rest, the same
    sample order for each).

    Parameters
    ----------{_PARAMS_DOC}
    class_weight : dict or "balanced", optional
        Weight of each class's losses (scikit-learn's semantics: ``"balanced"``
        is n / (n_classes * count)); with one-vs-rest, each sample keeps its own
        class's weight in every binary problem.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
    coef_ : ndarray of shape (D,) for two classes, else (D, n_classes)
    representation_, solver_, strategy_, plan_, n_iter_, objective_
        As in :class:`KernelMachine`.
    gradient_norm_, last_epoch_change_
        As in :class:`KernelMachine`, per binary problem.
    intercept_ : float for two classes, else ndarray of shape (n_classes,)
        b per binary problem (0.0 when ``fit_intercept=False``).

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
                 average=False, max_iter=100, tol=1e-8, random_state=None, verbose=0,
                 class_weight=None, fit_intercept=False):
        super().__init__(kernel, loss, alpha, epsilon=epsilon, solver=solver,
                         strategy=strategy, features=features, n_epochs=n_epochs, eta0=eta0,
                         average=average, max_iter=max_iter, tol=tol,
                         random_state=random_state, verbose=verbose,
                         fit_intercept=fit_intercept)
        self.class_weight = class_weight

    _param_constraints = {
        **_MACHINE_CONSTRAINTS,
        "loss": [Options(str, _CLASSIFICATION, note="'squared' and 'huber' are losses of "
                                                    "KernelMachine; other losses: "
                                                    "kernelkit.solvers.make_loss"),
                 UserLoss],
        "class_weight": [Options(str, ("balanced",)), dict, None],
    }

    def _check_params(self):
        return check_kernel_machine_params(self)

    def fit(self, X, y, sample_weight=None):
        """Fit on X of shape (n_samples, n_features), labels y of shape (n_samples,);
        ``sample_weight`` (shape (n_samples,), optional) multiplies each sample's
        loss, with ``class_weight``. Returns self."""
        kernel = self._check_params()
        X, Y = validate_classifier_data(self, X, y, kernel)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        sw = class_sample_weight(self.class_weight, self.classes_, Y, sample_weight)
        self._store_fit(kernel, self._fit_columns(kernel, X, Y, sw))
        report_plan(self, self.verbose)
        return self
