"""Kernel machines fitted one column of targets at a time.

:func:`fit_columns` asks the planner (:func:`kernelkit.planning.plan_machine_dual`
or :func:`kernelkit.planning.plan_machine_sgd`: Newton, L-BFGS or SGD; store K or
not; which SGD strategy), calls the solvers of :mod:`kernelkit.solvers` once per column and
returns a :class:`ColumnFit`; the estimator stores it with
:meth:`ColumnFitted._store_fit`. Used by :class:`~kernelkit.models.KernelMachine`,
:class:`~kernelkit.models.KernelMachineClassifier` and
:class:`~kernelkit.models.KernelLogisticRegression`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._budget import budget
from .._progress import progress
from ..exceptions import DivergenceError
from ..features import ExplicitFeatures, explicit_feature_dim
from ..gram import GramOperator, gram
from ..planning import Plan
from ..planning.machines import (machine_solver_choice as plan_machine_solver,
                                 newton_factored_choice, plan_machine_dual)
from ..planning.sgd import plan_machine_sgd
from ..solvers.losses import get_loss
from ..solvers.newton import lbfgs_dual, newton_dual
from ..solvers.newton_cg import newton_cg_dual
from ..solvers.newton_intercept import newton_intercept_dual
from ..solvers.user_loss import is_user_loss
from ..solvers.sgd import default_eta0, sgd
from ._base import (as_float64_rows, input_dim, predict_labels, takes_strings,
                    validate_predict_data)
from ._base import tag_sparse
from .kernel_ridge import predict_dual
from ._random_features import random_fourier_map

__all__ = ["ColumnFit", "ColumnFitted", "fit_columns", "gram_or_operator", "decision_columns",
           "warn_not_converged", "SGD_TOL"]

@dataclass
class ColumnFit:
    """What :func:`fit_columns` learnt; the estimator stores it as fitted state.

    Attributes
    ----------
    solver : {"newton", "lbfgs", "sgd"}
    representation : {"dual", "primal"}
    coef : ndarray of shape (n or D,) or (n or D, k)
        u (dual, with ``X_fit``) or w (primal, with ``feature_map``).
    n_iter : int
    objective : ndarray of shape (k,)
    plan : Plan
        The automatic choices of the fit (the SGD planner's answer for SGD).
    X_fit, feature_map : object
        Training inputs (dual) or the fitted feature map (primal).
    strategy : str or None
        The SGD strategy (SGD only).
    gradient_norm : ndarray of shape (k,) or None
        Newton / L-BFGS: the final gradient norm per column (in the feature
        space; see :class:`~kernelkit.solvers.newton.NewtonResult`).
    last_epoch_change : ndarray of shape (k,) or None
        SGD: the objective's relative change over the last epoch per column.
    intercept : ndarray of shape (k,) or None
        The unpenalised intercept per column (``fit_intercept=True`` only).
    """

    solver: str
    representation: str
    coef: np.ndarray
    n_iter: int
    objective: np.ndarray
    plan: Plan
    X_fit: Any = None
    feature_map: Any = None
    strategy: Any = None
    gradient_norm: Any = None
    last_epoch_change: Any = None
    intercept: Any = None


#: SGD has no stopping test; it warns (ConvergenceWarning) when the objective still
#: changed by more than this fraction over its last epoch.
SGD_TOL = 1e-2


def gram_or_operator(kernel, X, store):
    """K stored (``store``, as planned: :func:`kernelkit.planning.machines.gram_store_choice`),
    else an operator that recomputes its rows per product (L-BFGS then works in
    u-space, slower).

    Returns
    -------
    ndarray or GramOperator
    """
    return gram(kernel, X) if store else GramOperator(kernel, X)


def _stack(coefs):
    return coefs[0] if len(coefs) == 1 else np.column_stack(coefs)


def fit_columns(kernel, X, Y, loss, alpha, *, epsilon=1.35, solver, strategy, features,
                n_epochs, eta0, average, max_iter, tol, random_state, sample_weight=None,
                verbose=0, solver_choice=None, fit_intercept=False):
    """Fit one binary/real problem per column of Y (n, k) with the shared solvers.

    Parameters are those of :class:`~kernelkit.models.KernelMachine`; ``X`` is
    validated, ``Y`` of shape (n, k), ``alpha`` a float. ``sample_weight``
    (shape (n,)) multiplies each sample's loss; ``verbose`` shows progress
    (:func:`kernelkit._progress.progress`); ``solver_choice`` is a
    :class:`~kernelkit.planning.Choice` the caller already made (else
    :func:`~kernelkit.planning.choose_machine_solver` decides). Newton and L-BFGS
    stopping at ``max_iter`` short of ``tol``, and SGD whose objective still
    moved by more than :data:`SGD_TOL` over its last epoch, warn with a
    :class:`~sklearn.exceptions.ConvergenceWarning`. ``fit_intercept`` adds an
    unpenalised intercept per column (Newton with direct steps, or L-BFGS; SGD
    has none, see :func:`machine_solver_choice`). ``loss`` may be a
    :class:`~kernelkit.solvers.user_loss.UserLoss` (Newton with its curvature,
    else L-BFGS).

    Returns
    -------
    ColumnFit
        Coefficients of shape (n or D, k), or (n or D,) when Y has one column.
    """
    loss = get_loss(loss, epsilon)
    n, d = X.shape[0], input_dim(X)
    lam = alpha / n
    if solver_choice is None:
        solver_choice = machine_solver_choice(n, loss, solver, fit_intercept)  # planned
    solver = solver_choice.value
    k = Y.shape[1]
    if not takes_strings(kernel):
        X = as_float64_rows(X)  # sparse rows stay sparse
    if solver in ("newton", "lbfgs"):
        problem = {"n": n, "d": d, "loss": loss.name}
        if is_user_loss(loss):
            problem["loss"] = (f"{loss.name} (user-defined, "
                               f"{'with' if loss.smooth else 'without'} curvature)")
        if fit_intercept:
            problem["intercept"] = "fitted, unpenalised"
        fit_plan = plan_machine_dual(n, problem, solver_choice, fit_intercept)
        plan = fit_plan.plan
        if fit_plan.step is not None:  # Newton
            K = gram(kernel, X)
            newton = {"intercept": newton_intercept_dual, "direct": newton_dual,
                      "cg": newton_cg_dual}[fit_plan.step]
            results = [_with_progress(newton, K, Y[:, j], loss, lam, tol, max_iter,
                                      sample_weight, verbose, _desc("Newton", j, k))
                       for j in range(k)]
            if fit_plan.step != "intercept":  # newton_cg_dual's report of its fallback
                plan = plan.with_choices(newton_factored_choice(
                    sum(getattr(r, "direct_steps", 0) for r in results)))
        else:
            K = gram_or_operator(kernel, X, fit_plan.store)
            solve = lbfgs_dual if not fit_intercept else \
                (lambda *a, **kw: lbfgs_dual(*a, fit_intercept=True, **kw))
            results = [_with_progress(solve, K, Y[:, j], loss, lam, tol, max_iter,
                                      sample_weight, verbose, _desc("L-BFGS", j, k))
                       for j in range(k)]
        gradient_norm = np.array([r.grad_norm for r in results], dtype=np.float64)
        warn_not_converged(solver, [r.converged for r in results], gradient_norm, max_iter, tol)
        return ColumnFit(solver, "dual", _stack([r.coef for r in results]),
                         max(r.n_iter for r in results),
                         np.array([r.objective for r in results]), plan, X_fit=X,
                         gradient_norm=gradient_norm,
                         intercept=np.array([r.intercept for r in results]) if fit_intercept
                         else None)

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
    plan, strategy, n_random = plan_machine_sgd(
        n, d, kernel, loss.name, n_features=D, iterations=T, strategy=strategy,
        solver_choice=solver_choice, has_map=fmap is not None, memory=budget())
    if n_random is not None:  # no finite map: random features (or a refusal)
        fmap = random_fourier_map(kernel, strategy, random_state, n_random)
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
    results = []
    for j in range(k):
        with progress(int(n_epochs) * n, _desc(f"SGD ({strategy})", j, k), verbose,
                      unit="steps") as bar:
            results.append(sgd(strategy, Y[:, j], loss, lam, X=X, kernel=kernel,
                               features=fmap, n_epochs=n_epochs, eta0=float(eta0),
                               average=average, random_state=seed,
                               sample_weight=sample_weight, callback=bar.update, **shared))
    _raise_if_diverged(results, loss, lam, eta0, kernel, X)
    coef = _stack([r.coef for r in results])
    objective = np.array([r.objective for r in results])
    change = np.array([np.nan if r.last_epoch_change is None else r.last_epoch_change
                       for r in results])
    if np.any(change > SGD_TOL):
        warnings.warn(
            f"SGD stopped after n_epochs={n_epochs} while its objective still changed by "
            f"{np.nanmax(change):.2%} over the last epoch (more than {SGD_TOL:.0%}; "
            "last_epoch_change_ keeps it per target): increase n_epochs, or use "
            "solver='newton' for a smooth loss.", ConvergenceWarning, stacklevel=3)
    if results[0].representation == "w":
        return ColumnFit("sgd", "primal", coef, results[0].n_iter, objective, plan,
                         feature_map=fmap, strategy=strategy, last_epoch_change=change)
    return ColumnFit("sgd", "dual", coef, results[0].n_iter, objective, plan, X_fit=X,
                     strategy=strategy, last_epoch_change=change)


def machine_solver_choice(n, loss, solver="auto", fit_intercept=False):
    """The kernel machine's solver as a :class:`~kernelkit.planning.Choice`, planned by
    :func:`kernelkit.planning.machines.machine_solver_choice` from the loss's name and
    kind (the losses without curvature are refused with an intercept by the
    estimators' parameter checks before this)."""
    return plan_machine_solver(n, loss.name, solver, fit_intercept, user_loss=is_user_loss(loss),
                               smooth=bool(getattr(loss, "smooth", True)))


def _desc(what, j, k):
    return what if k == 1 else f"{what}, column {j + 1}/{k}"


def _with_progress(solve, K, y, loss, lam, tol, max_iter, sample_weight, verbose, desc):
    """One Newton / L-BFGS solve with a progress bar of its steps (gradient norm beside)."""
    with progress(max_iter, desc, verbose, unit="steps") as bar:
        return solve(K, y, loss, lam, tol=tol, max_iter=max_iter, sample_weight=sample_weight,
                     callback=(lambda it, grad: bar.update(1, grad=grad)))


def warn_not_converged(solver, converged, gradient_norm, max_iter, tol):
    """A ConvergenceWarning when a Newton / L-BFGS solve stopped at ``max_iter``."""
    if all(converged):
        return
    name = {"newton": "Newton", "lbfgs": "L-BFGS"}.get(solver, solver)
    warnings.warn(
        f"{name} stopped at max_iter={max_iter} short of tol={tol:g} (gradient norm "
        f"{np.nanmax(gradient_norm):.3g}, kept in gradient_norm_): increase max_iter, or "
        "alpha (a larger penalty is better conditioned).", ConvergenceWarning, stacklevel=4)


def _raise_if_diverged(results, loss, lam, eta0, kernel, X):
    """A diverged SGD run must not become a model that predicts 1e290: say why, and what to do."""
    bad = next((j for j, r in enumerate(results) if r.diverged), None)
    if bad is None:
        return
    stable = default_eta0(loss, float(np.max(kernel.diag(X))), lam)
    column = f" (target column {bad})" if len(results) > 1 else ""
    raise DivergenceError(
        f"SGD diverged{column}: {results[bad].diverged} with eta0={float(eta0):.4g}. "
        f"Use a smaller eta0, e.g. eta0='auto' (here {stable:.4g}, stable for this kernel "
        "and loss), or standardise the inputs.")


def decision_columns(est, X):
    """Scores (n_queries,) or (n_queries, k) of a model fitted by :func:`fit_columns`
    (plus ``intercept_`` where the model has one)."""
    if est.representation_ == "primal":
        scores = est.feature_map_.transform(X) @ est.coef_
    else:
        scores = predict_dual(est.kernel_, X, est.X_fit_, est.dual_coef_)
    intercept = getattr(est, "intercept_", None)
    return scores if intercept is None else scores + intercept


class ColumnFitted:
    """Stores a :class:`ColumnFit` as the estimator's fitted state."""

    def __sklearn_tags__(self):  # input_tags.sparse from the kernel
        return tag_sparse(super().__sklearn_tags__(), self.kernel)

    def _store_fit(self, kernel, fit):
        self.kernel_ = kernel
        self.solver_ = fit.solver
        self.plan_ = fit.plan
        self.representation_ = fit.representation
        if fit.representation == "primal":
            self.feature_map_ = fit.feature_map
            self.coef_ = fit.coef
        else:
            self.X_fit_ = fit.X_fit
            self.dual_coef_ = fit.coef
        if fit.strategy is not None:
            self.strategy_ = fit.strategy
        self.n_iter_ = fit.n_iter
        self.objective_ = fit.objective
        one = np.ndim(fit.coef) == 1
        if fit.intercept is not None:  # a float for one column, as scikit-learn's
            self.intercept_ = float(fit.intercept[0]) if one else np.asarray(fit.intercept)
        elif getattr(self, "fit_intercept", None) is False:
            self.intercept_ = 0.0 if one else np.zeros(np.shape(fit.coef)[1])
        else:
            self.__dict__.pop("intercept_", None)
        for name in ("gradient_norm", "last_epoch_change"):  # the solver's own measure
            if getattr(fit, name) is not None:
                setattr(self, name + "_", getattr(fit, name))
            elif hasattr(self, name + "_"):  # from an earlier fit by another solver
                delattr(self, name + "_")


class _ScoreClassifier(ColumnFitted, ClassifierMixin, BaseEstimator):
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
