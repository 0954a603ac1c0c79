"""Kernel ridge whose kernel parameters and alpha are learnt by gradients, not by a grid."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from .._budget import require
from .._validation import Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..kernels import Kernel
from ..kernels.algebra import Scaled
from ..kernels.vector import RBF
from ..planning import Choice, Plan
from ..planning.searches import tuning_centers_choice
from ..tuning.kernel_params import DEFAULT_BOUNDS, kernel_parameters
from ..tuning.marginal_likelihood import log_marginal_likelihood, optimize_marginal_likelihood
from ..tuning.nystroem_objective import nystroem_objective
from ..tuning import minimize_with_restarts
from ._base import kernel_for_data, report_choices, report_plan, resolve_estimator_kernel
from ._base import validate_fit_data
from .kernel_ridge import KernelRidge, _RidgePredictor

__all__ = ["LearnedKernelRidge", "MARGINAL_LIKELIHOOD_MAX_N"]

#: ``objective="auto"`` takes the exact marginal likelihood up to this many rows
#: (one n x n Cholesky per evaluation), a Nystroem objective above.
MARGINAL_LIKELIHOOD_MAX_N = 3000
# Nystroem centers of the tuning objectives with n_centers="auto": each evaluation
# costs O(n M^2 + n M d); the final model takes KernelRidge's own default.
_TUNING_CENTERS = 500

_RIDGE_STATE = ("dual_coef_", "X_fit_", "coef_", "centers_", "intercept_", "solver_",
                "jitter_", "n_samples_fit_", "n_iter_", "rank_", "residual_norm_",
                "feature_map_", "_fit_alpha", "_fit_sample_weight")


def _with_ard(kernel, d):
    """Every isotropic RBF of the expression with one length scale per feature (same width)."""
    if isinstance(kernel, RBF):
        if kernel.is_ard:
            return kernel
        scale = 1.0 / math.sqrt(2.0 * kernel.gamma_value)
        return RBF(length_scale=np.full(d, scale))
    params = kernel.get_params(deep=False)
    if not any(isinstance(v, Kernel) for v in params.values()):
        return kernel
    for name, value in params.items():
        if isinstance(value, Kernel):
            params[name] = _with_ard(value, d)
    return type(kernel)(**params)


class LearnedKernelRidge(_RidgePredictor):
    """Kernel ridge with its kernel parameters and alpha learnt by gradient-based optimisation.

    The kernel's positive parameters (gamma, length scales -- one per feature with
    ``ard=True`` --, scalings, the weights of a sum, ...) and the penalty alpha are
    found by L-BFGS-B with bounds (and random restarts) on one of:

    - ``"marginal_likelihood"``: the Gaussian-process log marginal likelihood of the
      (centred) targets, kernel ridge's alpha being the noise variance
      (:mod:`kernelkit.tuning.marginal_likelihood`; scikit-learn's
      ``GaussianProcessRegressor`` optimises the same); exact, O(n^3) per step;
    - ``"gcv"`` / ``"holdout"``: generalised cross-validation or hold-out error of
      Nystroem kernel ridge with M centers, with exact gradients in
      O(n M^2 + n M d) per step (Meanti et al. 2022;
      :mod:`kernelkit.tuning.nystroem_objective`).

    The model is then fitted by :class:`KernelRidge` with the learnt kernel and alpha
    (its planner chooses the solver), and predicts as it does, including
    ``predict(X, return_std=True)`` (the GP posterior) after an exact fit.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
        Starting kernel; its resolved values are the first point of the search.
    alpha : float, default=1.0
        Starting penalty (noise variance), > 0. When ``learn_amplitude`` adds the
        amplitude (started at the targets' variance v), alpha starts at ``alpha * v``:
        the same ratio to the signal as ``KernelRidge(alpha)`` on unit-variance targets.
    objective : {"auto", "marginal_likelihood", "gcv", "holdout"}, default="auto"
        ``"auto"``: the marginal likelihood up to :data:`MARGINAL_LIKELIHOOD_MAX_N`
        rows, GCV above (recorded in ``plan_``).
    ard : bool, default=False
        Give every RBF of the kernel one length scale per feature (automatic
        relevance determination), started at its isotropic width.
    learn_amplitude : bool, default=True
        Marginal likelihood only: learn the signal variance c of ``c * kernel`` (added
        when the expression is not already a scaling, started at the variance of
        the centred targets). Predictions depend on
        alpha / c only, the likelihood on both. The Nystroem objectives are
        invariant to scaling c and alpha together, so a top-level scale is kept
        fixed there.
    kernel_bounds : (float, float) or dict, default=(1e-5, 1e5)
        Bounds of every kernel parameter, or per parameter path of the kernel as
        given (``{"length_scale": (1e-2, 1e3), "default": (1e-4, 1e4)}``; ``"scale"``
        names the amplitude that ``learn_amplitude`` adds; ``"fixed"`` keeps a value).
    alpha_bounds : (float, float) or "fixed", default=(1e-8, 1e5)
    n_restarts : int, default=0
        Further starts drawn uniformly (log scale) within the bounds.
    n_centers : int or "auto", default="auto"
        Centers of the Nystroem objectives (``"auto"``: min(n, 500), uniformly drawn).
    validation_fraction : float, default=0.2
        Held-out share of the rows for ``objective="holdout"``.
    fit_intercept : bool, default=True
        Centre y (the GP has mean 0 around the target mean), as ``KernelRidge``.
    normalize_y : bool, default=False
        Also divide the centred y by its standard deviation, as scikit-learn's
        ``GaussianProcessRegressor(normalize_y=True)``: the likelihood is then the
        one of the standardised targets (its ``log_marginal_likelihood_value_``), and
        alpha and the amplitude are in those units.
    max_iter : int, default=200
        L-BFGS-B iterations per start (a ConvergenceWarning when the best start
        stops there short of scipy's tolerances).
    random_state : int, RandomState or None, default=None
        Restarts, centers and the hold-out split.
    verbose : int, default=0
        >= 1 prints the plan and every iteration of the search.

    Attributes
    ----------
    kernel_ : Kernel
        The learnt kernel.
    alpha_ : float
        The learnt penalty (noise variance).
    theta_ : ndarray of shape (n_params,)
        Log parameters at the optimum (``theta_names_`` names them), log alpha last.
    theta_names_ : list of str
    objective_ : str
        The objective used.
    objective_value_ : float
        Its value at the optimum (log marginal likelihood, GCV or hold-out MSE).
    log_marginal_likelihood_ : float or None
        The log marginal likelihood at the optimum (exact objective only).
    trajectory_ : list of dict
        Every iteration of every start: ``start``, ``iteration``, ``objective``,
        ``params`` (dict of the parameter values, alpha included).
    plan_ : Plan
        The objective choice, the starts and the optimum.
    intercept_ : float or ndarray of shape (n_targets,)
        The targets' mean (0 without ``fit_intercept`` and ``normalize_y``).
    y_scale_ : ndarray of shape () or (n_targets,)
        The targets' standard deviation with ``normalize_y``, else 1.
    dual_coef_, X_fit_, solver_, centers_ :
        The fitted kernel ridge state (see :class:`KernelRidge`).
    n_features_in_ : int

    References
    ----------
    Rasmussen & Williams (2006), Gaussian Processes for Machine Learning, ch. 5.
    Meanti, Carratino, De Vito & Rosasco (2022), Efficient Hyperparameter Tuning for
    Large Scale Kernel Ridge Regression, AISTATS.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import LearnedKernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(60, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    >>> model = LearnedKernelRidge(kernel="rbf", alpha=1.0).fit(X, y)
    >>> model.alpha_ < 0.1  # the noise variance (0.01) is found
    True
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "objective": [Options(str, ("auto", "marginal_likelihood", "gcv", "holdout"))],
        "ard": ["boolean"],
        "learn_amplitude": ["boolean"],
        "kernel_bounds": ["array-like", dict],
        "alpha_bounds": ["array-like", Options(str, ("fixed",))],
        "n_restarts": [Interval(Integral, 0, None)],
        "n_centers": [Interval(Integral, 1, None), Options(str, ("auto",))],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "fit_intercept": ["boolean"],
        "normalize_y": ["boolean"],
        "max_iter": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
        "verbose": [Interval(Real, 0, None)],
    }

    def __init__(self, kernel="rbf", alpha=1.0, *, objective="auto", ard=False,
                 learn_amplitude=True, kernel_bounds=DEFAULT_BOUNDS,
                 alpha_bounds=(1e-8, 1e5), n_restarts=0, n_centers="auto",
                 validation_fraction=0.2, fit_intercept=True, normalize_y=False,
                 max_iter=200, random_state=None, verbose=0):
        self.kernel = kernel
        self.alpha = alpha
        self.objective = objective
        self.ard = ard
        self.learn_amplitude = learn_amplitude
        self.kernel_bounds = kernel_bounds
        self.alpha_bounds = alpha_bounds
        self.n_restarts = n_restarts
        self.n_centers = n_centers
        self.validation_fraction = validation_fraction
        self.fit_intercept = fit_intercept
        self.normalize_y = normalize_y
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        kernel = resolve_estimator_kernel(self.kernel)
        if not isinstance(kernel, Kernel) or kernel.input_kind != "vector":
            raise InvalidParameterError(
                f"{type(self).__name__}: kernel must be a kernel on vectors whose parameters "
                f"can be learnt, got {self.kernel!r} (a precomputed Gram matrix has none)")
        if isinstance(self.alpha_bounds, str):
            return kernel
        lo, hi = (float(v) for v in self.alpha_bounds)
        if not 0 < lo <= hi < np.inf:
            raise InvalidParameterError(f"{type(self).__name__}: alpha_bounds must be 'fixed' "
                                        f"or (low, high) with 0 < low <= high, got "
                                        f"{self.alpha_bounds!r}")
        return kernel

    def fit(self, X, y):
        """Learn the kernel parameters and alpha, then fit kernel ridge with them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Several targets: marginal likelihood only (their likelihoods add).

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        if hasattr(X, "toarray"):  # nothing densifies a whole sparse input silently
            raise ValueError(
                "LearnedKernelRidge takes dense X (its kernel derivatives work on dense "
                f"rows); got a sparse {X.shape[0]} x {X.shape[1]} matrix. Convert it with "
                "X.toarray() if it fits in memory, or choose the kernel by KernelRidgeCV, "
                "which takes sparse input")
        X = np.asarray(X, dtype=np.float64)
        for name in _RIDGE_STATE + ("centers_tuning_", "_posterior_factor"):
            self.__dict__.pop(name, None)  # no state of an earlier fit survives this one
        kernel = kernel_for_data(kernel, X, self)
        y = np.asarray(y, dtype=np.float64)
        n, d = X.shape
        offset = y.mean(axis=0) if self.fit_intercept or self.normalize_y else 0.0
        scale = 1.0
        if self.normalize_y:  # as scikit-learn's GaussianProcessRegressor(normalize_y=True)
            std = y.std(axis=0)
            scale = np.where(std == 0, 1.0, std) if y.ndim == 2 else (float(std) or 1.0)
        target = (y - offset) / scale
        objective = self._objective(n, y)
        if self.ard:
            kernel = _with_ard(kernel, d)
        bounds = self.kernel_bounds
        alpha_start = float(self.alpha)
        if objective == "marginal_likelihood":
            if self.learn_amplitude and not isinstance(kernel, Scaled):
                # started at the targets' variance: a unit amplitude under targets of
                # variance 25 sends the search to the all-noise optimum
                if isinstance(bounds, dict):  # the user's paths now sit under k__
                    bounds = {key if key in ("default", "scale") else f"k__{key}": value
                              for key, value in bounds.items()}
                amplitude = float(np.mean(np.var(target, axis=0))) or 1.0
                kernel = amplitude * kernel
                if not isinstance(self.alpha_bounds, str):
                    # alpha starts at the same ratio to the amplitude as in KernelRidge on
                    # unit-variance targets: an absolute alpha = 1 under targets of variance
                    # 5,900 (diabetes) starts in the interpolating regime, from which the
                    # search ran to the all-noise optimum (gamma at its bound)
                    low, high = self.alpha_bounds
                    alpha_start = min(max(alpha_start * amplitude, low), high)
        elif isinstance(kernel, Scaled):
            bounds = dict(bounds) if isinstance(bounds, dict) else {"default": bounds}
            bounds["scale"] = "fixed"  # GCV and hold-out depend on alpha / scale only
        params = kernel_parameters(kernel, bounds)
        rng = check_random_state(self.random_state)
        self.plan_ = Plan(choice=objective, reason=self._objective_reason(n, y),
                          problem={"n": n, "d": d, "n_params": params.n_params + 1})
        report_plan(self, self.verbose)
        trajectory = []
        names = params.names + ["alpha"]

        def record(start, it, value, x):
            entry = {"start": start, "iteration": it, "objective": float(value),
                     "params": dict(zip(names, np.exp(x).tolist()))}
            trajectory.append(entry)
            if self._verbosity() >= 1:
                shown = ", ".join(f"{k}={v:.4g}" for k, v in entry["params"].items())
                print(f"  start {start} iteration {it}: {objective} {value:.6g} ({shown})")

        if objective == "marginal_likelihood":
            # K + alpha I (factored in place), its inverse and the gradient's weights
            require(3 * 8.0 * n * n, f"the exact marginal likelihood on n={n} samples (three "
                    f"{n} x {n} float64 matrices)", hint="use objective='gcv' (Nystroem)")
            kernel_, alpha_, value, result = optimize_marginal_likelihood(
                params, X, target, alpha_start, alpha_bounds=self.alpha_bounds,
                n_restarts=self.n_restarts, random_state=rng, max_iter=self.max_iter,
                callback=record)
            self.log_marginal_likelihood_ = value
        else:
            kernel_, alpha_, value, result = self._learn_nystroem(
                params, X, target, objective, rng, record)
            self.log_marginal_likelihood_ = None
        self.kernel_, self.alpha_, self.objective_ = kernel_, alpha_, objective
        self.objective_value_ = float(value)
        self.theta_ = kernel_parameters(kernel_, bounds).theta
        self.theta_ = np.append(self.theta_, math.log(alpha_))
        self.theta_names_ = names
        self.trajectory_ = trajectory
        best = min(result.starts, key=lambda r: r["fun"])
        self.n_evals_ = result.n_evals
        summary = Choice("learnt parameters", f"{objective} {value:.6g}",
                         f"{len(result.starts)} start(s), {len(trajectory)} iterations, "
                         f"{result.n_evals} evaluations; best start ended: {best['message']}; "
                         f"kernel {kernel_!r}, alpha {alpha_:.4g}")
        self.plan_ = self.plan_.with_choices(summary)
        report_choices([summary], self.verbose)
        self._fit_ridge(X, target, kernel_, alpha_, objective)
        for name in ("dual_coef_", "coef_"):  # predictions in the units of y
            if name in vars(self):
                setattr(self, name, getattr(self, name) * scale)
        self.y_scale_ = np.asarray(scale, dtype=np.float64)
        self.intercept_ = offset
        return self

    def _verbosity(self):
        from .. import config

        return max(int(self.verbose or 0), int(config.get_config()["verbosity"]))

    def _objective(self, n, y):
        if self.objective != "auto":
            if self.objective != "marginal_likelihood" and y.ndim == 2 and y.shape[1] > 1:
                raise ValueError(f"objective={self.objective!r} takes one target; use "
                                 "objective='marginal_likelihood' for several")
            return self.objective
        if n <= MARGINAL_LIKELIHOOD_MAX_N or (y.ndim == 2 and y.shape[1] > 1):
            return "marginal_likelihood"
        return "gcv"

    def _objective_reason(self, n, y):
        if self.objective != "auto":
            return f"objective={self.objective!r} set by the user"
        if y.ndim == 2 and y.shape[1] > 1:
            return (f"{y.shape[1]} targets: the exact GP marginal likelihood (the Nystroem "
                    "objectives take one target)")
        if n <= MARGINAL_LIKELIHOOD_MAX_N:
            return (f"n = {n} <= {MARGINAL_LIKELIHOOD_MAX_N}: the exact GP marginal "
                    "likelihood (one n x n Cholesky per step)")
        return (f"n = {n} > {MARGINAL_LIKELIHOOD_MAX_N}: GCV of Nystroem ridge, O(n M^2) "
                "per step")

    def _learn_nystroem(self, params, X, y, objective, rng, record):
        n = X.shape[0]
        if y.ndim == 2:
            y = y[:, 0]
        M = min(n, _TUNING_CENTERS if self.n_centers == "auto" else int(self.n_centers))
        centers = X[rng.choice(n, size=M, replace=False)]
        self.plan_ = self.plan_.with_choices(
            tuning_centers_choice(M, self.n_centers == "auto", n, X.shape[1]))
        report_choices(self.plan_.choices[-1:], self.verbose)
        validation = None
        if objective == "holdout":
            validation = np.zeros(n, dtype=bool)
            n_val = max(1, min(n - 1, int(round(self.validation_fraction * n))))
            validation[rng.choice(n, size=n_val, replace=False)] = True
        learn_alpha = not isinstance(self.alpha_bounds, str)
        bounds = params.bounds
        x0 = params.theta
        if learn_alpha:
            bounds = np.vstack([bounds, np.log(np.asarray(self.alpha_bounds, dtype=float))])
            x0 = np.append(x0, math.log(self.alpha))

        def fun(x):
            theta, a = (x[:-1], math.exp(x[-1])) if learn_alpha else (x, float(self.alpha))
            value, grad = nystroem_objective(params, X, y, centers, a, theta,
                                             objective=objective, validation=validation)
            return value, (grad if learn_alpha else grad[:-1])

        def report(start, it, value, x):
            record(start, it, value, x if learn_alpha else np.append(x, math.log(self.alpha)))

        result = minimize_with_restarts(fun, x0, bounds, n_restarts=self.n_restarts,
                                        random_state=rng, max_iter=self.max_iter,
                                        callback=report)
        theta, alpha = (result.x[:-1], math.exp(result.x[-1])) if learn_alpha \
            else (result.x, float(self.alpha))
        self.centers_tuning_ = centers
        return params.with_theta(theta), alpha, result.fun, result

    def _fit_ridge(self, X, target, kernel, alpha, objective):
        ridge = KernelRidge(kernel=kernel, alpha=alpha, fit_intercept=False,
                            solver="dual" if objective == "marginal_likelihood" else "auto",
                            random_state=self.random_state, verbose=self.verbose)
        ridge.fit(X, target)
        for name in _RIDGE_STATE:
            if name in vars(ridge):
                setattr(self, name, getattr(ridge, name))
        self.plan_ = self.plan_.with_choices(Choice(
            "final model", ridge.solver_, f"KernelRidge(solver={ridge.solver_!r}) with the "
            f"learnt kernel and alpha ({ridge.plan_.reason})"))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False  # dense X only (fit says so for sparse input)
        return tags

    def predict(self, X, return_std=False):
        """Predict targets (and, after an exact fit, the GP posterior standard deviation).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        return_std : bool, default=False
            Also return the posterior standard deviation of f (in the units of y),
            as scikit-learn's ``GaussianProcessRegressor.predict(return_std=True)``.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
        y_std : ndarray, only with ``return_std``
        """
        if not return_std:
            return super().predict(X)
        mean, std = super().predict(X, return_std=True)
        return mean, std * self.y_scale_
