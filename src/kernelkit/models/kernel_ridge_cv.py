"""Kernel ridge with alpha (and kernel parameters) chosen along the regularisation path.

Exact leave-one-out (or GCV) while the n x n problem is affordable; beyond it,
GCV or k-fold along the whole alpha path of the Nystroem (Falkon) or
random-feature model from one pass over the rows (:mod:`kernelkit.tuning`).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import HasMethods, Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ._base import KernelParamsMixin, resolve_estimator_kernel
from ._base import validate_fit_data, kernel_for_data
from ._ridge_search import SOLVERS, search
from .kernel_ridge import _RidgePredictor

__all__ = ["KernelRidgeCV"]

CV_CONSTRAINTS = {
    "kernel": ["kernel"],
    "alphas": [Interval(Real, 0, None, closed="neither"), "array-like"],
    "param_grid": [dict, None],
    "fit_intercept": ["boolean"],
    "cv": [Options(str, ("auto", "loo", "gcv")), Interval(Integral, 2, None),
           HasMethods(["split", "get_n_splits"]), "array-like"],
    "solver": [Options(str, SOLVERS)],
    "factorisation": [Options(str, ("auto", "eigen", "cholesky"))],
    "n_centers": [Interval(Integral, 1, None), Options(str, ("auto",))],
    "center_selection": [Options(str, ("uniform", "distinct"))],
    "n_components": [Interval(Integral, 1, None)],
    "random_state": ["random_state"],
    "verbose": [Interval(Real, 0, None)],
}


def check_cv_params(est):
    """Check a ridge search's hyperparameters; return the base kernel and the alphas."""
    validate_params(est, est._param_constraints, type(est).__name__)
    return resolve_estimator_kernel(est.kernel), check_alphas(est)


class KernelRidgeCV(KernelParamsMixin, _RidgePredictor):
    """Kernel ridge regression with alpha and kernel parameters chosen along the path.

    Every alpha of a kernel candidate costs about the price of one:

    - **exact** (``solver="exact"``, small n): the exact leave-one-out
      residuals (Allen's PRESS identity) or GCV of kernel ridge from one
      eigendecomposition of K for all alphas, or from one Cholesky factor and
      its inverse per alpha when there are few alphas (:mod:`kernelkit.tuning.paths`);
    - **Nystroem** (``solver="nystroem"`` or ``"falkon"``, large n): the model
      of ``KernelRidge(solver="falkon")`` on M centers; one pass over the rows
      accumulates K_nM'K_nM, K_nM'y, K_nM'1 and y'y (per fold), then every
      alpha is O(M^2) from the eigendecomposition of the K_MM-whitened M x M
      problem: GCV, or k-fold held-out error (:mod:`kernelkit.tuning.nystroem_path`);
    - **random features** (``solver="features"``): the same with the random
      Fourier feature matrix Z of D columns.

    A grid of kernel parameters of a kernel of the Euclidean distance (RBF,
    Matern, their sums and products: ``Kernel.sq_euclidean_profile``) reuses
    one matrix of squared distances (n x n exact, n x M Nystroem). The best
    (kernel, alpha) is refitted: exactly for the exact path, and directly from
    the same eigendecomposition for Nystroem (Falkon's solution without the
    conjugate-gradient error) and random features.

    **The intercept** (``fit_intercept=True``) is that of
    :class:`KernelRidge`: the training targets' mean, added to a kernel ridge
    fit of the centred targets. The leave-one-out residual of sample i is the
    one of the model refitted without i, whose mean is that of the other
    n - 1 targets: LOO is exact for the model that is refitted, at no extra
    cost (one more right-hand side, ``G^-1 1``). GCV and held-out errors use
    the same model (the intercept's degree of freedom counted in the trace).

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        Base kernel.
    alphas : array-like of float, default=(0.1, 1.0, 10.0)
        Regularisation strengths to try (> 0), in scikit-learn's convention
        sum (y - f)^2 + alpha ||f||^2.
    param_grid : dict of str to list, optional
        Kernel parameters to try, e.g. ``{"gamma": [0.1, 1.0]}`` or, for a
        composite kernel, ``{"k1__gamma": [...]}``: every combination is tried.
    fit_intercept : bool, default=True
        Fit the target mean, unpenalised (see above). False: no intercept
        (scikit-learn's ``KernelRidge``).
    cv : {"auto", "loo", "gcv"}, int, cross-validation splitter or iterable, default="auto"
        The criterion. ``"loo"``: exact leave-one-out (exact solver only).
        ``"gcv"``: generalised cross-validation. An int k >= 2: k-fold
        held-out error (shuffled folds drawn from ``random_state``). A
        scikit-learn splitter or a list of (train, test) index pairs: the
        held-out error on those folds, exactly (``solver="exact"``; "auto"
        picks it while its matrices fit the memory budget), as
        ``GridSearchCV(KernelRidge(kernel), {"alpha": alphas, **param_grid}, cv=folds,
        scoring="neg_mean_squared_error")`` with ``fit_intercept=False``
        (:mod:`kernelkit.models._ridge_kfold`: one squared-distance matrix, and per
        fold and kernel one float32 factor per group of alphas preconditioning
        conjugate gradient for all of them). ``"auto"``: LOO for exact, GCV beyond.
    solver : {"auto", "exact", "nystroem", "falkon", "features"}, default="auto"
        ``"auto"``: exact while n <= :data:`~kernelkit.models._ridge_search.EXACT_MAX_N`
        and its n x n matrices (two, three with a gamma grid) fit the memory
        budget (or the kernel is precomputed, takes strings or the input is
        sparse), else Nystroem.
        ``"falkon"`` is the same as ``"nystroem"``. Recorded in ``plan_``.
    factorisation : {"auto", "eigen", "cholesky"}, default="auto"
        Exact path: one eigendecomposition per kernel, or a Cholesky factor
        per alpha. ``"auto"`` picks by the number of alphas (measured
        :data:`~kernelkit.tuning.paths.EIGH_CHOLESKY_RATIO`); in ``plan_``.
    n_centers : int or "auto", default="auto"
        Nystroem centers M (uniform rows, as ``KernelRidge(solver="falkon",
        center_selection="uniform")`` draws them with the same ``random_state``);
        "auto": ``max(sqrt(n) log n, min(n / 4, 1000))``, at most n
        (:func:`~kernelkit.models._ridge_search.tuning_centers`).
    center_selection : {"uniform", "distinct"}, default="uniform"
        Nystroem centers: uniform rows (repeated rows drawn twice are kept
        once), or uniformly among the distinct rows (data with many repeated
        rows, e.g. KDD Cup 99), as :class:`KernelRidge`'s option of that name
        draws them with the same ``random_state``.
    n_components : int, default=1000
        Random features D (``solver="features"``).
    random_state : int, RandomState instance or None, default=None
        Seed of the centers, the random features and the folds.
    verbose : int, default=0
        Print ``plan_`` when >= 1.

    Attributes
    ----------
    alpha_ : float
        Selected alpha.
    kernel_ : Kernel or "precomputed"
        Selected kernel.
    best_params_ : dict
        The selected kernel parameters (of ``param_grid``) and ``"alpha"``.
    best_score_ : float
        The selected model's criterion: LOO, GCV or k-fold mean squared error
        (averaged over targets; lower is better).
    cv_results_ : dict
        ``params`` (list of dicts), ``alpha`` and ``mean_squared_error``
        (arrays), one entry per (kernel candidate, alpha); ``loo_mse`` too
        when the criterion is LOO; for exact k-fold also GridSearchCV's
        ``split<k>_test_score``, ``mean_test_score`` and ``std_test_score``
        (negated mean squared errors, as ``scoring="neg_mean_squared_error"``).
    criterion_ : str
        ``"loo"``, ``"gcv"`` or ``"<k>-fold"``.
    solver_ : {"dual", "falkon", "primal"}
        The refitted model's form (exact dual, Nystroem centers, features).
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Dual coefficients (of the centers for Nystroem).
    coef_ : ndarray of shape (D,) or (D, n_targets)
        Feature weights (random features).
    centers_ : ndarray of shape (M, n_features)
        Nystroem centers.
    feature_map_ : RandomFourierFeatures
        The random features (random features).
    intercept_ : float or ndarray of shape (n_targets,)
    X_fit_ : ndarray of shape (n_samples, n_features) or None
    plan_ : Plan
        The solver, criterion, factorisation, distance reuse and grid-edge checks.
    n_features_in_ : int

    Warns
    -----
    GridEdgeWarning
        When the best alpha or a kernel parameter is the smallest or largest
        of its grid (:func:`kernelkit.tuning.warn_if_on_edge`).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2)); y = np.sin(X[:, 0]) + 100.0
    >>> cv = KernelRidgeCV(alphas=[1e-3, 1e-2, 1e-1], param_grid={"gamma": [0.1, 0.5, 2]})
    >>> cv = cv.fit(X, y)
    >>> float(np.abs(cv.predict(X) - y).max()) < 0.05
    True
    """

    _param_constraints = CV_CONSTRAINTS

    def __init__(self, kernel="rbf", alphas=(0.1, 1.0, 10.0), *, param_grid=None,
                 fit_intercept=True, cv="auto", solver="auto", factorisation="auto",
                 n_centers="auto", center_selection="uniform", n_components=1000,
                 random_state=None, verbose=0):
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

    def _check_params(self):
        return check_cv_params(self)

    def fit(self, X, y):
        """Select (kernel, alpha) along the path and fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        base, alphas = self._check_params()
        X, y = validate_fit_data(self, base, X, y)
        base = kernel_for_data(base, X, self)  # gamma="scale" fixed from the training X
        y = np.asarray(y, dtype=np.float64)
        search(self, X, y, base, alphas)
        return self


def check_alphas(est):
    """The alphas as a non-empty float64 array of positive numbers, or a clear error."""
    try:
        alphas = np.atleast_1d(np.asarray(est.alphas, dtype=np.float64)).ravel()
    except (TypeError, ValueError):
        alphas = np.array([np.nan])
    if alphas.size == 0 or not np.isfinite(alphas).all() or (alphas <= 0).any():
        raise InvalidParameterError(f"{type(est).__name__}: alphas must be a non-empty "
                                    f"list of positive numbers, got {est.alphas!r}")
    return alphas
