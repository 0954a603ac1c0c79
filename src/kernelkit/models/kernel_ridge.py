"""Kernel ridge regression: exact (dual (K + alpha I) u = y, or primal features) or
Nystroem by Falkon's preconditioned conjugate gradient."""

from __future__ import annotations

import warnings

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import config
from .._fit_state import RestoresOnFailure
from .._progress import progress
from ..exceptions import InvalidParameterError
from .._validation import Interval, Options, validate_params
from ..features import ExplicitFeatures, explicit_feature_dim
from ..gram import GramOperator, gram, kernel_matmat, recorded_product_choice
from ..planning.kernel_ridge import MIXED_MIN_N, plan_kernel_ridge
from ..solvers import dual_ridge, primal_ridge
from ..solvers.falkon import falkon
from ..solvers.falkon_rows import draw_centers, merge_rows_choice
from ..solvers.ridge_mixed import MIXED_RTOL, dual_ridge_mixed
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (check_alpha, check_sample_weight, resolve_estimator_kernel,
                    validate_fit_data, validate_predict_data)
from ._base import input_dim, report_choices, report_plan, tag_precomputed

__all__ = ["KernelRidge"]

_SOLVERS = ("auto", "dual", "primal", "falkon")
_CENTER_SELECTION = ("uniform", "distinct", "kmeans++", "leverage")
# Shared with KernelRidgeClassifier, which takes one alpha for all classes.
RIDGE_CONSTRAINTS = {
    "kernel": ["kernel"],
    "alpha": [Interval(Real, 0, None, note="the ridge penalty"), "array-like"],
    "solver": [Options(str, _SOLVERS)],
    "n_centers": [Interval(Integral, 1, None), Options(str, ("auto",))],
    "center_selection": [Options(str, _CENTER_SELECTION)],
    "precision": [Options(str, ("auto", "float64", "mixed"))],
    "fit_intercept": ["boolean"],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None)],
    "random_state": ["random_state"],
    "verbose": [Interval(Real, 0, None)],
}


def predict_dual(kernel, X, X_fit, dual_coef):
    """K(X, X_fit) @ dual_coef in row blocks (K is never stored whole), by the
    one operator of K(X, Y) products (:class:`~kernelkit.gram.GramOperator`)."""
    coef = dual_coef if dual_coef.ndim == 2 else dual_coef[:, None]
    out = GramOperator(kernel, X, X_fit).matmat(coef)
    return out[:, 0] if dual_coef.ndim == 1 else out


def ridge_decision(est, X):
    """Predictions of a fitted kernel ridge state (dual, primal or falkon) on validated X,
    plus its ``intercept_`` (0 when it has none: models fitted before it existed)."""
    solver = getattr(est, "solver_", "dual")
    if solver == "primal":
        out = est.feature_map_.transform(X) @ est.coef_
    elif solver == "falkon":
        out = kernel_matmat(est.kernel_, X, est.centers_, est.dual_coef_,
                            dtype=compute_dtype(X))
    elif est.kernel_ == "precomputed":
        out = np.asarray(X, dtype=np.float64) @ est.dual_coef_
    else:
        out = predict_dual(est.kernel_, X, est.X_fit_, est.dual_coef_)
    intercept = getattr(est, "intercept_", None)
    if intercept is not None and np.any(intercept != 0):
        out = out + intercept
    return out


def center_targets(y, sample_weight, fit_intercept):
    """``(y - mean, mean)``: the (weighted) mean of each target column, or 0.

    Kernel ridge penalises every function in the RKHS, constants included, so
    an uncentred target (log prices around 12) is shrunk toward 0 away from
    the data (an RBF model falls to 0 there). Fitting the centred target and
    adding its mean back leaves the level unpenalised, as scikit-learn's
    ``Ridge(fit_intercept=True)`` does for y (the kernel is not centred: f
    is still penalised for the rest of a constant part it takes up).
    """
    if not fit_intercept:
        return y, (0.0 if y.ndim == 1 else np.zeros(y.shape[1]))
    mean = np.average(y, axis=0, weights=sample_weight)
    return y - mean, (float(mean) if y.ndim == 1 else np.asarray(mean, dtype=np.float64))


#: float32 kernel blocks for float32 input under ``config_context(dtype="float32")``
#: (the one dtype policy, :func:`kernelkit.config.matrix_dtype`).
compute_dtype = config.matrix_dtype


class _RidgePredictor(RestoresOnFailure, RegressorMixin, BaseEstimator):
    """Prediction and tags shared by the kernel ridge estimators."""

    def predict(self, X, return_std=False):
        """Predict targets.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.
        return_std : bool, default=False
            Also return the Gaussian-process posterior standard deviation of f at X
            with noise variance alpha (scikit-learn's
            ``GaussianProcessRegressor.predict(return_std=True)`` on the same kernel
            and noise; see :mod:`kernelkit.models._gp_view`). Exact dual solver only.

        Returns
        -------
        y_pred : ndarray of shape (n_queries,) or (n_queries, n_targets)
        y_std : ndarray of the same shape
            Only with ``return_std``.
        """
        check_is_fitted(self, ["dual_coef_", "coef_"], all_or_any=any)
        X = validate_predict_data(self, self.kernel_, X)
        if return_std:
            from ._gp_view import posterior_std

            return ridge_decision(self, X), posterior_std(self, X)
        return ridge_decision(self, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tag_precomputed(tags, self.kernel)


class KernelRidge(KernelParamsMixin, _RidgePredictor):
    """Kernel ridge regression, exact or by Nystroem + preconditioned CG (Falkon).

    Minimises sum_i s_i (y_i - f(x_i))^2 + alpha ||f||_H^2 over the RKHS of the
    kernel. By the representer theorem f(x) = sum_i u_i k(x, x_i) with
    (K + alpha I) u = y (the dual). When the kernel has a finite explicit
    feature map psi of dimension D < n (linear, polynomial), the same model
    is f(x) = psi(x)'w with (Z'Z + alpha I) w = Z'y (the primal, "other normal
    equations"), which costs O(n D^2) instead of O(n^3).

    For large n, ``solver="falkon"`` restricts f to M centers C,
    f(x) = sum_j c_j k(x, C_j), and solves (K_nM' S K_nM + alpha K_MM) c =
    K_nM' S y by conjugate gradient with the Falkon preconditioner
    (:func:`kernelkit.solvers.falkon.falkon`): O(n M d + M^3 + n M t) time per
    fit. In Falkon's own convention (1/n) sum (y - f)^2 + lam ||f||^2 this is
    lam = alpha / n. With M = n it is exact kernel ridge. K_nM is stored when
    it fits the memory budget, else recomputed at every iteration; under
    ``config_context(dtype="float32")`` float32 input gives float32 K_nM
    blocks (float32 GEMM for RBF) with float64 sums.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        A kernel object, an expression such as ``"rbf(gamma=0.1) + linear"``,
        or ``"precomputed"`` (then X is the Gram matrix K(X_train, X_train) in
        ``fit`` and K(X_test, X_train) in ``predict``).
    alpha : float or array-like of shape (n_targets,), default=1.0
        Regularisation strength (>= 0), one per target if an array.
    solver : {"auto", "dual", "primal", "falkon"}, default="auto"
        ``"auto"`` asks the planner (:func:`kernelkit.planning.plan_ridge`) and
        keeps its answer in ``plan_``; it picks ``"falkon"`` only when exact
        ridge does not fit the memory budget, or n > 20000 and exact is
        predicted slower.
    n_centers : int or "auto", default="auto"
        Falkon's M (capped at n). ``"auto"``: sqrt(n) log(n) within [100, 20000]
        (:func:`kernelkit.planning.falkon_centers`).
    center_selection : {"uniform", "distinct", "kmeans++", "leverage"}, default="uniform"
        How Falkon's centers are drawn (see :mod:`kernelkit.features.nystroem`).
        ``"distinct"``: uniformly among the distinct training rows, each
        weighted in the preconditioner by the rows it stands for; the same as
        ``"uniform"`` when no row repeats. On data with many repeated rows it
        spends the M centers on M different points, where uniform draws repeat
        the frequent rows (KDD Cup 99, 400k rows, M = 2000: 2000 distinct
        centers against 872, accuracy 0.9981 against 0.9969).
    fit_intercept : bool, default=True
        Fit the centred target (its mean weighted by ``sample_weight``) and add
        the mean back at prediction (``intercept_``), for every solver. False
        is scikit-learn's ``KernelRidge`` (no intercept).
    tol : float, default=1e-4
        Falkon: relative residual of the preconditioned system to stop at
        (each target separately). The preconditioned system is well
        conditioned, so 1e-4 is reached in tens of iterations and its error
        is far below the statistical error of the model.
    max_iter : int, default=100
        Falkon: maximum conjugate-gradient iterations. Stopping here short of
        ``tol`` raises a :class:`~sklearn.exceptions.ConvergenceWarning`
        (``residual_norm_`` keeps the residual reached).
    random_state : int, RandomState instance or None, default=None
        Seed of the center selection.
    verbose : int, default=0
        Falkon: a tqdm progress bar of the iterations if > 0 (or if
        ``kernelkit`` verbosity is > 0) and tqdm is installed.
    precision : {"auto", "float64", "mixed"}, default="auto"
        The dual solver's arithmetic. ``"float64"``: the Gram matrix and its
        Cholesky factor in float64. ``"mixed"``: K stored and factored in
        float32 (half the memory, about twice the speed), the factor used as
        the preconditioner of float64 conjugate gradient with K's blocks
        recomputed in float64 (:mod:`kernelkit.solvers.ridge_mixed`): the
        float64 solution, to a relative residual of 1e-12, a
        ``ConvergenceWarning`` if the system is too ill-conditioned for a
        float32 factor. ``"auto"``: mixed for a vector kernel from
        n = 12,000 on (where the n^3 factorisation dominates) or when only the
        float32 matrix fits the memory budget; recorded in ``plan_``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Dual coefficients u (dual solver); of shape (M,) or (M, n_targets)
        for falkon (coefficients of the centers).
    centers_ : ndarray of shape (M, n_features)
        Falkon's centers: the drawn rows, each distinct row once (repeated
        rows add nothing to the model; the choice is recorded in ``plan_``).
    intercept_ : float or ndarray of shape (n_targets,)
        The target mean added to the predictions (0.0 if ``fit_intercept``
        is False).
    n_iter_ : int
        Conjugate-gradient iterations (Falkon, or the mixed-precision dual
        solve); 1 for the direct solvers.
    residual_norm_ : float or ndarray of shape (n_targets,)
        Falkon: final relative residual of the preconditioned system, per
        target (compare with ``tol``). Mixed-precision dual solve: final
        ||y - (K + alpha I) u|| / ||y``||`` per target.
    rank_ : int
        Falkon: dimension of the space the iterations ran in (the number of
        centers, or the eigen-directions kept when K_MM is rank-deficient).
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (dual solver; for "precomputed", None).
    coef_ : ndarray of shape (D,) or (D, n_targets)
        Primal weights w (primal solver).
    solver_ : {"dual", "primal", "falkon"}
        The solver used.
    kernel_ : Kernel or "precomputed"
        The resolved kernel.
    jitter_ : float
        Jitter the robust Cholesky added to the diagonal (0.0 if none); for
        falkon, the jitter of K_MM (0.0 with the eigen preconditioner).
    plan_ : Plan
        The planner's decision (with ``plan_.explain()``).
    n_features_in_ : int
    n_samples_fit_ : int
        Number of training samples.

    Notes
    -----
    Reproducibility across thread counts: the Cholesky factorisations (of K
    for the dual solver, of K_MM for Falkon) are OpenBLAS ``dpotrf`` calls,
    whose rounding depends on the number of BLAS threads (numba's thread
    count changes nothing). So a fit with 1 and with 2 BLAS threads at the
    same ``random_state`` gives predictions equal to round-off, not bit for
    bit: measured 2e-13 (Falkon, n=3000, M=200), 1e-14 (``"spectrum(k=3)"``,
    dual), 6e-16 (RBF, dual) on predictions of order 1; the tests allow a
    relative 1e-9. Fits with the same thread count are bit-identical.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = np.sin(X[:, 0])
    >>> model = KernelRidge(kernel="rbf(gamma=0.5)", alpha=1e-3).fit(X, y)
    >>> float(np.abs(model.predict(X) - y).max()) < 0.05
    True
    """

    _param_constraints = RIDGE_CONSTRAINTS

    def __init__(self, kernel="rbf", alpha=1.0, *, solver="auto", n_centers="auto",
                 center_selection="uniform", fit_intercept=True, tol=1e-4, max_iter=100,
                 random_state=None, verbose=0, precision="auto"):
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

    def _check_params(self):
        """Check the hyperparameters that do not depend on data; return the kernel."""
        validate_params(self, self._param_constraints, type(self).__name__)
        try:  # the values of an array alpha
            check_alpha(self.alpha, np.size(self.alpha))
        except ValueError as exc:
            raise InvalidParameterError(f"{type(self).__name__}: {exc}") from None
        return resolve_estimator_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit the model: validate, plan (:func:`~kernelkit.planning.plan_kernel_ridge`
        makes every automatic choice, kept in ``plan_``), then execute the plan.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training inputs (the Gram matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        y = np.asarray(y, dtype=np.float64)
        n, d = X.shape[0], input_dim(X)
        sw = check_sample_weight(sample_weight, n)
        y, self.intercept_ = center_targets(y, sw, self.fit_intercept)
        alpha = check_alpha(self.alpha, 1 if y.ndim == 1 else y.shape[1])
        fit_plan = plan_kernel_ridge(
            n, d, kernel, alpha=alpha, solver=self.solver, n_centers=self.n_centers,
            n_features=None if kernel == "precomputed" else explicit_feature_dim(kernel, d),
            n_targets=1 if y.ndim == 1 else y.shape[1], precision=self.precision,
            itemsize=np.dtype(compute_dtype(X)).itemsize, mixed_min_n=MIXED_MIN_N,
            find_repeated_rows=lambda: merge_rows_choice(X, y, sw))
        self.plan_ = fit_plan.plan
        report_plan(self, self.verbose)
        self.kernel_ = kernel
        self.solver_ = fit_plan.solver
        self.n_samples_fit_ = n
        self._fit_alpha = alpha
        self._fit_sample_weight = sw  # the GP view's noise alpha / s_i (predict return_std)
        self.__dict__.pop("_posterior_factor", None)
        self.n_iter_ = 1  # a direct solve; falkon overwrites it
        if fit_plan.solver == "falkon":
            self._fit_falkon(kernel, X, y, alpha, sw, fit_plan)
        elif fit_plan.solver == "dual":
            self._fit_dual(kernel, X, y, alpha, sw, fit_plan.mixed)
            # K(X, X)'s products (RBF's grid route), recorded last
            self._record_products(recorded_product_choice(kernel, X))
        else:
            self.feature_map_ = ExplicitFeatures(kernel).fit(X)
            Z = self.feature_map_.transform(X)
            self.coef_, self.jitter_ = primal_ridge(Z, y, alpha, sample_weight=sw)
        return self

    def _record_products(self, choice):
        """Append the Gram products' route (None: the question did not arise) to ``plan_``."""
        if choice is not None:
            self.plan_ = self.plan_.with_choices(choice)
            report_choices((choice,), self.verbose)

    def _fit_dual(self, kernel, X, y, alpha, sw, mixed):
        """(K + alpha S^-1) u = y: a float64 Cholesky, or mixed precision."""
        if mixed:
            self.X_fit_ = X
            res = dual_ridge_mixed(kernel, X, y, float(alpha.flat[0]), sample_weight=sw)
            self.dual_coef_, self.jitter_ = res.coef, res.jitter
            self.n_iter_, self.residual_norm_ = res.n_iter, res.residual_norm
            if not res.converged:
                warnings.warn(
                    f"Mixed-precision kernel ridge stopped after {res.n_iter} iterations "
                    f"with relative residual {np.max(res.residual_norm):.2e} > "
                    f"{MIXED_RTOL:g} (residual_norm_): the system is too ill-conditioned "
                    "for a float32 factor. Use precision='float64', or a larger alpha.",
                    ConvergenceWarning, stacklevel=3)
            return
        if kernel == "precomputed":
            K = np.array(X, dtype=np.float64, order="C")
            self.X_fit_ = None
        else:
            K = gram(kernel, X)
            self.X_fit_ = X
        if K.dtype != np.float64:
            K = K.astype(np.float64)
        self.dual_coef_, self.jitter_ = dual_ridge(K, y, alpha, sample_weight=sw,
                                                   overwrite_K=True)

    def _fit_falkon(self, kernel, X, y, alpha, sw, fit_plan):
        if alpha.size > 1 and not np.all(alpha == alpha[0]):
            raise ValueError("solver='falkon' takes one alpha for all targets (its "
                             "preconditioner depends on alpha); fit one model per alpha")
        merged = fit_plan.merged
        centers, weights, choice = draw_centers(kernel, X, fit_plan.n_centers,
                                                self.center_selection,
                                                check_random_state(self.random_state), merged,
                                                rows_distinct=fit_plan.rows_distinct)
        self.plan_ = self.plan_.with_choices(choice)
        alpha = float(alpha.flat[0])
        if merged is not None:  # the same problem on the distinct rows (merge_rows_choice)
            scale = len(merged.X) / merged.n_rows
            X, y, sw, alpha = merged.X, merged.y, merged.sample_weight * scale, alpha * scale
        with progress(self.max_iter, "Falkon CG", self.verbose) as bar:
            res = falkon(kernel, X, centers, y, alpha, sample_weight=sw,
                         tol=self.tol, maxiter=self.max_iter, dtype=compute_dtype(X),
                         store=fit_plan.store_knm, center_weights=weights,
                         callback=lambda _: bar.update(1))
            bar.finish(falkon_stop_reason(res, self.tol, self.max_iter))
        self.plan_ = self.plan_.with_choices(res.preconditioner_choice, res.solve_choice)
        report_choices((choice, res.preconditioner_choice, res.solve_choice), self.verbose)
        if compute_dtype(X) == np.float64:  # K_nM's float64 products (RBF's grid route)
            self._record_products(recorded_product_choice(kernel, X, centers))
        self.centers_ = centers
        self.dual_coef_ = res.coef
        self.n_iter_ = int(res.n_iter)
        self.jitter_ = res.jitter
        self.rank_ = int(res.rank)
        self.residual_norm_ = res.residual_norm
        if not res.converged:
            warnings.warn(
                f"Falkon stopped at max_iter={self.max_iter} conjugate-gradient iterations "
                f"with relative residual {np.max(res.residual_norm):.2e} > tol={self.tol:g} "
                "(residual_norm_). Increase max_iter, or alpha (a larger ridge is better "
                "conditioned), or n_centers.", ConvergenceWarning, stacklevel=3)


def falkon_stop_reason(res, tol, max_iter):
    """Why a Falkon solve stopped, for the end of its progress bar."""
    worst = float(np.max(res.residual_norm)) if np.size(res.residual_norm) else 0.0
    if str(getattr(res.solve_choice, "value", "")).startswith("direct"):
        return f"solved directly (the {res.rank} kept directions), residual {worst:.2e}"
    if res.converged:
        return f"converged: relative residual {worst:.2e} <= tol {tol:g}"
    return f"stopped at max_iter={max_iter}: relative residual {worst:.2e} > tol {tol:g}"
