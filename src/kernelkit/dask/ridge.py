"""Kernel ridge regression and classification on a Dask cluster.

Two solvers, both with their randomness drawn once on the client:

- ``"features"``: random Fourier or Nystroem features; one pass over the
  chunks gives the tree-summed normal equations Z'SZ and Z'Sy (D x D), solved
  on the client; :meth:`DaskKernelRidge.refit` solves for other alphas
  without another pass.
- ``"falkon"``: M centers drawn on the client (as
  ``KernelRidge(solver="falkon", center_selection="uniform")`` draws them),
  the preconditioner factored on the client, and every conjugate-gradient
  iteration one map over the chunks + a tree sum
  (:class:`~kernelkit.dask.operators.DaskGramOperator` passed to
  :func:`kernelkit.solvers.falkon.falkon`); the K_nM chunks stay on the
  workers when they fit, else are recomputed at each iteration.

Why this module is long: two estimators over one base that runs both distributed
solvers (one pass of normal equations; Falkon with a distributed K_nM) and refits
over an alpha grid without another pass; the classifier adds only its label coding.
"""

from __future__ import annotations

import os
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import config
from .._fit_state import RestoresOnFailure
from .._validation import Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..features.centers import uniform_centers
from ..kernels import resolve_kernel
from ..models import KernelRidge, KernelRidgeClassifier
from ..planning.dask import plan_dask_ridge
from ..solvers.falkon import falkon
from ..solvers.normal_equations import solve_normal_equations
from ..tuning.grid import warn_if_on_edge
from ..tuning.nystroem_path import Moments, NystroemPath
from ._base import ClientMixin, fit_feature_map, kernel_for_rows, normal_equations_pass
from ._runtime import (align_rows, as_rows, check_columns, checked_rows, compute, fit_rows,
                       check_worker_room, is_dask, reports_passes, set_column_names)
from .operators import DaskGramOperator, cluster_room
from ._targets import alpha_grid, check_class_labels, indicator, labels
from .predict import map_rows

__all__ = ["DaskKernelRidge", "DaskKernelRidgeClassifier"]

_CONSTRAINTS = {
    "kernel": ["kernel"],
    "alpha": [Interval(Real, 0, None, note="the ridge penalty"), "array-like"],
    "solver": [Options(str, ("auto", "features", "falkon"))],
    "features": [Options(str, ("nystroem", "rff"))],
    "n_centers": [Interval(Integral, 1, None), Options(str, ("auto",))],
    "n_components": [Interval(Integral, 1, None), Options(str, ("auto", "deprecated"))],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None)],
    "persist": [Options(str, ("auto",)), "boolean"],
    "chunk_rows": [Interval(Integral, 1, None), None],
    "timeout": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": ["random_state"],
    "fit_intercept": ["boolean"],
    "checkpoint": [str, os.PathLike, None],
    "verbose": [Interval(Integral, 0, None)],
}


class _DaskRidgeBase(RestoresOnFailure, ClientMixin, BaseEstimator):
    def __init__(self, kernel="rbf", alpha=1.0, *, solver="auto", features="nystroem",
                 n_centers="auto", tol=1e-7, max_iter=100, persist="auto",
                 chunk_rows=None, timeout=None, random_state=None, fit_intercept=True,
                 checkpoint=None, verbose=0, n_components="deprecated"):
        self.verbose = verbose
        self.kernel = kernel
        self.alpha = alpha
        self.solver = solver
        self.features = features
        self.n_centers = n_centers
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.persist = persist
        self.chunk_rows = chunk_rows
        self.timeout = timeout
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.checkpoint = checkpoint

    def _fit_targets(self, X, Y, sample_weight):
        """Fit on dask X (n, d) and dask targets Y (n, t)."""
        validate_params(self, _CONSTRAINTS, type(self).__name__)
        kernel = resolve_kernel(self.kernel)
        if kernel == "precomputed" or kernel.input_kind not in ("vector", "any"):
            raise ValueError(f"{type(self).__name__} needs a kernel on numeric vectors, got "
                             f"{kernel!r}; for strings, sets, trees or graphs fit the in-memory "
                             "estimator (kernelkit.KernelRidge) and predict with "
                             "kernelkit.dask.ParallelPostFit")
        client = self._get_client()
        chunking = check_worker_room(client, X, f"{type(self).__name__}.fit")
        n, d = int(X.shape[0]), int(X.shape[1])
        sw = align_rows(sample_weight, X, "sample_weight")
        if sw is not None:
            sw = checked_rows(sw.astype(np.float64), "sample_weight", "weights")
        dtype = (np.float32 if X.dtype == np.float32 and config.get_config()["dtype"] ==
                 "float32" else np.float64)
        alphas = alpha_grid(self.alpha, type(self).__name__)
        fit_plan = plan_dask_ridge(
            n, d, solver=self.solver, n_centers=self._centers_setting(), persist=self.persist,
            alpha_list=alphas is not None, weighted=sample_weight is not None,
            itemsize=np.dtype(dtype).itemsize,
            name=type(self).__name__, **cluster_room(client, self.persist if (  # when it decides
                self.solver != "features" and alphas is None) else None))
        self.plan_ = fit_plan.plan
        self.solver_choice_ = fit_plan.solver_choice
        choice, M = fit_plan.solver, fit_plan.n_centers
        if alphas is None:
            self.alpha_ = float(self.alpha)
        Y, self.intercept_ = self._center_targets(Y, sw, client)
        rng = check_random_state(self.random_state)
        kernel = kernel_for_rows(kernel, X, client, self.timeout)  # gamma="scale": one pass
        self.kernel_ = kernel
        self.n_features_in_ = d
        self.n_samples_fit_ = n
        self.solver_ = choice
        if choice == "falkon":
            self._fit_falkon(kernel, X, Y, sw, M, rng, dtype, client, fit_plan.store_choice)
        else:
            self._fit_features(kernel, X, Y, sw, M, rng, client, alphas)
        self.plan_ = self.plan_.with_choices(chunking)  # the rows per chunk, last
        return self

    def _centers_setting(self):
        """``n_centers``, or the deprecated ``n_components`` with a FutureWarning."""
        if isinstance(self.n_components, str) and self.n_components == "deprecated":
            return self.n_centers
        if not (isinstance(self.n_centers, str) and self.n_centers == "auto"):
            raise InvalidParameterError(
                f"{type(self).__name__}: give n_centers only (n_components is its deprecated "
                f"name), got n_centers={self.n_centers!r}, n_components={self.n_components!r}")
        warnings.warn(f"{type(self).__name__}: n_components is deprecated and will be "
                      "removed in a future version; use n_centers (KernelRidge's name for "
                      "the same number of centers)", FutureWarning, stacklevel=6)
        return self.n_components

    def _center_targets(self, Y, sw, client):
        """``(Y - mean, mean)`` with the (weighted) column means from one reduction
        over Y alone, as :func:`kernelkit.models.kernel_ridge.center_targets` does
        in memory; ``(Y, 0)`` without ``fit_intercept``."""
        if not self.fit_intercept:
            return Y, (0.0 if Y.ndim == 1 else np.zeros(Y.shape[1]))
        import dask.array as da

        if sw is None:
            sums = da.concatenate([da.atleast_1d(Y.sum(axis=0)),
                                   da.ones(1, chunks=1) * Y.shape[0]])
        else:
            sums = da.concatenate([da.atleast_1d((Y * (sw if Y.ndim == 1 else sw[:, None]))
                                                 .sum(axis=0)), da.atleast_1d(sw.sum())])
        sums = np.asarray(compute(sums, client, self.timeout, what="the target means"),
                          dtype=np.float64)
        mean = sums[:-1] / sums[-1]
        mean = mean[0] if Y.ndim == 1 else mean
        return Y - mean, (float(mean) if Y.ndim == 1 else mean)

    def _fit_falkon(self, kernel, X, Y, sw, M, rng, dtype, client, store_choice):
        idx = uniform_centers(int(X.shape[0]), M, rng)  # as KernelRidge's "uniform"
        centers = np.asarray(compute(X[idx], client, self.timeout, what="the centers' rows"))
        op = DaskGramOperator(kernel, X, centers, sample_weight=sw, targets=Y,
                              block_dtype=dtype, persist=store_choice, client=client,
                              timeout=self.timeout)
        try:
            res = falkon(kernel, None, centers, op.targets_placeholder(), float(self.alpha),
                         tol=self.tol, maxiter=self.max_iter, dtype=dtype, operator=op,
                         checkpoint=self.checkpoint)
        finally:
            op.release()
        self.centers_ = centers
        self.dual_coef_ = res.coef
        self.n_iter_ = int(res.n_iter)
        self.converged_ = bool(res.converged)
        self.jitter_ = float(res.jitter)
        self.store_choice_ = op.store_choice
        self.n_passes_ = op.n_passes
        self.plan_ = self.plan_.with_choices(res.preconditioner_choice, res.solve_choice)

    def _fit_features(self, kernel, X, Y, sw, D, rng, client, alphas=None):
        if self.features == "nystroem":
            idx = uniform_centers(int(X.shape[0]), D, rng)
            rows = np.asarray(compute(X[idx], client, self.timeout, what="the centers' rows"))
            fmap = fit_feature_map(kernel, rows, "nystroem", D, rng)
        else:
            fmap = fit_feature_map(kernel, np.zeros((1, X.shape[1])), "rff", D, rng)
        self.feature_map_ = fmap
        self.normal_equations_ = normal_equations_pass(fmap, X, Y, sw, client, self.timeout)
        self.n_passes_ = 1
        self.n_iter_ = 1
        if alphas is None:
            self.refit(self.alpha)
            return
        # GCV of every alpha from Z'Z, Z'y, Z'1 and y'y (one more reduction, over y only)
        yy = np.atleast_1d(np.asarray(compute((Y ** 2).sum(axis=0), client, self.timeout,
                                              what="the targets' sum of squares"),
                                      dtype=np.float64))
        ne = self.normal_equations_
        path = NystroemPath(Moments(ne.ZtZ, ne.ZtY, ne.z_sum, yy, ne.y_sum, ne.n), None,
                            self.fit_intercept)
        self.gcv_ = path.gcv(alphas).mean(axis=1)
        self.alpha_ = float(alphas[int(np.argmin(self.gcv_))])
        self.alpha_choice_ = warn_if_on_edge("alpha", alphas, self.alpha_, stacklevel=4)
        self.plan_ = self.plan_.with_choices(self.alpha_choice_)
        W, _, jitter = solve_normal_equations(ne, self.alpha_)
        self.coef_ = W[:, 0] if self._one_target else W
        self.jitter_ = float(jitter)

    def refit(self, alpha):
        """Solve again for another ``alpha`` from the stored normal equations (no pass
        over the data; ``solver="features"`` only).

        Parameters
        ----------
        alpha : float

        Returns
        -------
        self
        """
        check_is_fitted(self, "normal_equations_")
        W, _, jitter = solve_normal_equations(self.normal_equations_, float(alpha))
        self.alpha = alpha
        self.alpha_ = float(alpha)
        self.coef_ = W[:, 0] if self._one_target else W
        self.jitter_ = float(jitter)
        return self

    def _ridge_state(self, est):
        """Copy the fitted state into an in-memory KernelRidge(Classifier) ``est``."""
        est.kernel_ = self.kernel_
        est.n_features_in_ = self.n_features_in_
        est.n_samples_fit_ = self.n_samples_fit_
        est.n_iter_ = self.n_iter_
        est.jitter_ = self.jitter_
        est.solver_ = "falkon"
        est.intercept_ = self.intercept_
        if self.solver_ == "falkon":
            est.centers_, est.dual_coef_ = self.centers_, self.dual_coef_
            return est
        fmap = self.feature_map_
        if self.features != "nystroem":
            raise ValueError("a random-Fourier-features model has no in-memory KernelRidge "
                             "twin; use kernelkit.dask.predict or feature_map_ and coef_")
        # Nystroem features z = K(x, C) N: w on z is c = N w on the centers.
        est.centers_ = fmap.components_
        est.dual_coef_ = fmap.normalization_ @ self.coef_
        return est

    def _decision_numpy(self, X):
        """Decision values of in-memory X (float64)."""
        X = np.asarray(X)
        if self.solver_ == "features":
            out = self.feature_map_.transform(X) @ self.coef_
        else:
            from ..gram import kernel_matmat

            out = kernel_matmat(self.kernel_, X, self.centers_, self.dual_coef_)
        return out + self.intercept_

    def _decision(self, X):
        check_is_fitted(self, "solver_")
        check_columns(self, X)
        if not is_dask(X):
            return self._decision_numpy(X)
        X = checked_rows(as_rows(X, "X"), "X")
        return map_rows(_DecisionOf(self._frozen()), X)

    def _frozen(self):
        """A client-free copy of the fitted state (small: what predict's tasks read)."""
        import copy

        state = self.__getstate__()
        state.pop("normal_equations_", None)
        clone = copy.copy(self)
        clone.__dict__ = state
        return clone

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class _DecisionOf:
    """Picklable ``X_block -> decision values`` of a fitted model."""

    def __init__(self, model):
        self.model = model

    def __call__(self, Xb):
        return self.model._decision_numpy(Xb)


class DaskKernelRidge(RegressorMixin, _DaskRidgeBase):
    """Kernel ridge regression on a Dask cluster (or out of core on one machine).

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
    alpha : float or list of float, default=1.0
        As in :class:`kernelkit.KernelRidge`: sum_i s_i (y_i - f(x_i))^2 + alpha ||f||^2.
        A list: the alpha of least generalised cross-validation (GCV) error,
        every one from the same pass's Z'Z, Z'y and Z'1 plus y'y (one reduction
        over y) at O(D^2) each (:class:`kernelkit.tuning.NystroemPath`); the
        features solver (``solver="auto"`` picks it), without ``sample_weight``.
        A choice at the list's edge warns :class:`~kernelkit.tuning.GridEdgeWarning`.
    solver : {"auto", "features", "falkon"}, default="auto"
        ``"auto"``: Falkon when the K_nM chunks fit on the workers (see
        ``persist``), else features (one pass). Kept in ``plan_`` (and
        ``solver_choice_``).
    features : {"nystroem", "rff"}, default="nystroem"
        The feature map of ``solver="features"``.
    n_centers : int or "auto", default="auto"
        Centers M (Falkon, Nystroem) or random features D, as
        :class:`kernelkit.KernelRidge`'s ``n_centers``; ``"auto"`` is
        Falkon's sqrt(n) log(n) within [100, 20000].
    tol, max_iter : float, int
        Falkon's conjugate-gradient tolerance and iteration cap.
    persist : {"auto", True, False}, default="auto"
        Falkon: keep the K_nM chunks on the workers (see
        :class:`~kernelkit.dask.operators.DaskGramOperator`).
    chunk_rows : int, optional
        Rows per chunk when numpy input is wrapped.
    timeout : float, optional
        Seconds one distributed pass may take before the fit fails with
        :class:`~kernelkit.dask.DaskFitError` (default one hour).
    random_state : int, RandomState instance or None
    checkpoint : str or path, optional
        Falkon: a file on the client where the conjugate-gradient state is
        written after every iteration; a fit started again with the same file
        on the same problem continues from the last iteration done (a client
        crash or a ``DaskFitError`` mid-fit costs the iterations since, not the
        fit). A file left by another problem is ignored with a warning.
    verbose : int, default=0
        >= 1: one line on stderr per distributed pass (what it computed, its time,
        the live workers); kernelkit's ``verbosity`` setting does the same.
    fit_intercept : bool, default=True
        Fit the centred target (its weighted mean from one reduction over y)
        and add the mean back at prediction (``intercept_``), as
        :class:`kernelkit.KernelRidge` does; False fits no intercept.
    n_components : int or "auto", optional
        Deprecated name of ``n_centers`` (a ``FutureWarning``); use ``n_centers``.

    Attributes
    ----------
    solver_ : {"features", "falkon"}
    coef_ : ndarray of shape (D,) or (D, n_targets)
        Weights on ``feature_map_`` (features).
    feature_map_ : Nystroem or RandomFourierFeatures
    normal_equations_ : NormalEquations
        Z'SZ, Z'Sy of the one pass (features; what :meth:`refit` solves).
    centers_, dual_coef_ : ndarray
        Falkon's centers and their coefficients.
    n_iter_, n_passes_ : int
        CG iterations; distributed passes over the data.
    jitter_ : float
    intercept_ : float or ndarray of shape (n_targets,)
        The target mean added to the predictions (0.0 without ``fit_intercept``).
    alpha_ : float
        The alpha used (the GCV choice when ``alpha`` is a list).
    gcv_ : ndarray of shape (n_alphas,)
        GCV mean squared error of each alpha of the list (averaged over targets).
    alpha_choice_ : kernelkit.planning.Choice
        Whether ``alpha_`` lies inside its list (:func:`kernelkit.tuning.warn_if_on_edge`).
    plan_ : kernelkit.planning.Plan
        The plan (:func:`kernelkit.planning.plan_dask_ridge`): the solver, the
        centers, whether K_nM stays on the workers, and what the fit found
        (Falkon's preconditioner, the alpha's place in its list);
        ``plan_.explain()`` prints it.
    solver_choice_, store_choice_ : kernelkit.planning.Choice
        The solver's and K_nM's choices of ``plan_`` (kept for compatibility).

    Notes
    -----
    ``client`` is a property (``est.client = client``), not a parameter:
    clones and pickles do not carry it. Fitted attributes are numpy;
    :meth:`to_local` gives the in-memory :class:`kernelkit.KernelRidge`.
    """

    @reports_passes
    def fit(self, X, y, sample_weight=None):
        """Fit on X, y chunked by rows (numpy input is wrapped).

        Parameters
        ----------
        X : dask array or DataFrame, or array-like, of shape (n_samples, n_features)
        y : dask array or Series, or array-like, of shape (n_samples,) or (n_samples, t)
        sample_weight : same, of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, names = fit_rows(X, "X", self.chunk_rows, self._get_client())
        Y = align_rows(y, X, "y")
        if Y.dtype.kind not in "biuf":
            raise ValueError(f"{type(self).__name__} is a regressor: y must be numbers, got "
                             f"dtype {Y.dtype}; for class labels use DaskKernelRidgeClassifier")
        Y = checked_rows(Y.astype(np.float64), "y")
        set_column_names(self, names)
        self._one_target = Y.ndim == 1
        return self._fit_targets(X, Y, sample_weight)

    def predict(self, X):
        """Predictions: a lazy dask array with X's row chunks for dask input, numpy
        for numpy input.

        Parameters
        ----------
        X : dask array or array-like of shape (n_queries, n_features)

        Returns
        -------
        dask array or ndarray of shape (n_queries,) or (n_queries, n_targets)
        """
        return self._decision(X)

    def to_local(self):
        """The fitted model as an in-memory :class:`kernelkit.KernelRidge`
        (``solver_ == "falkon"``: centers and their coefficients)."""
        check_is_fitted(self, "solver_")
        est = KernelRidge(self.kernel, getattr(self, "alpha_", self.alpha), solver="falkon",
                          n_centers=len(getattr(self, "centers_", ())) or "auto",
                          tol=self.tol, max_iter=self.max_iter,
                          random_state=self.random_state,
                          fit_intercept=self.fit_intercept)
        return self._ridge_state(est)


class DaskKernelRidgeClassifier(ClassifierMixin, _DaskRidgeBase):
    """Kernel ridge classification (one-vs-rest {-1, +1} targets) on a Dask cluster.

    As :class:`kernelkit.KernelRidgeClassifier`; parameters and attributes as
    :class:`DaskKernelRidge`, plus ``classes_``. The classes are found by one
    reduction on the cluster; the indicator targets are built in the tasks.
    """

    @reports_passes
    def fit(self, X, y, sample_weight=None):
        """Fit one ridge regression per class (all at once).

        Parameters
        ----------
        X : dask array or DataFrame, or array-like, of shape (n_samples, n_features)
        y : dask array or Series, or array-like, of shape (n_samples,)
        sample_weight : optional, of shape (n_samples,)

        Returns
        -------
        self
        """
        import dask.array as da

        validate_params(self, _CONSTRAINTS, type(self).__name__)  # before the labels' pass
        X, names = fit_rows(X, "X", self.chunk_rows, self._get_client())
        y = align_rows(y, X, "y")
        if y.ndim != 1:
            raise ValueError(f"y must be one label per sample (1-D), got shape {y.shape}")
        client = self._get_client()
        uniq = da.unique(y)
        classes = check_class_labels(
            np.asarray(compute(uniq, client, self.timeout, what="the classes")))
        set_column_names(self, names)
        if len(classes) < 2:
            raise ValueError(f"y has only one class ({classes[0]!r}); a classifier needs "
                             "samples of at least two classes")
        self.classes_ = classes
        cols = 1 if len(classes) == 2 else len(classes)
        Y = y.map_blocks(indicator, classes, dtype=np.float64,
                         chunks=(y.chunks[0], (cols,)), new_axis=1)
        self._one_target = cols == 1
        if self._one_target:
            Y = Y[:, 0]
        return self._fit_targets(X, Y, sample_weight)

    def decision_function(self, X):
        """Decision values (lazy for dask input), as KernelRidgeClassifier's."""
        check_is_fitted(self, "classes_")
        return self._decision(X)

    def predict(self, X):
        """Labels (a lazy dask array for dask input)."""
        scores = self.decision_function(X)
        if not is_dask(scores):
            return labels(scores, self.classes_)
        return scores.map_blocks(labels, self.classes_, dtype=self.classes_.dtype,
                                 drop_axis=[1] if scores.ndim == 2 else [])

    def to_local(self):
        """The fitted model as an in-memory :class:`kernelkit.KernelRidgeClassifier`."""
        check_is_fitted(self, "classes_")
        est = KernelRidgeClassifier(self.kernel, getattr(self, "alpha_", self.alpha),
                                    solver="falkon",
                                    tol=self.tol, max_iter=self.max_iter,
                                    random_state=self.random_state,
                                    fit_intercept=self.fit_intercept)
        est.classes_ = self.classes_
        return self._ridge_state(est)
