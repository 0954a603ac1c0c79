"""Cross-validated regularisation paths shared by the ``*CV`` learners.

:class:`PathSearchCV` is the search of :class:`~kernelkit.models.KernelSVCCV`,
:class:`~kernelkit.models.KernelSVRCV`,
:class:`~kernelkit.models.KernelLogisticRegressionCV`,
:class:`~kernelkit.models.KernelMachineCV` and
:class:`~kernelkit.models.KernelMachineClassifierCV`: for each kernel candidate
(every combination of ``param_grid``) the Gram matrix of all training rows is
computed once, each fold's train/test blocks are taken from it by indexing, and
the path's parameter is walked from the most to the least regularised problem
(C upwards, alpha downwards) with each solve warm-started from the previous one
(the subclass's ``_fold_path``). Candidates, folds, scores, ranks and the refit
follow scikit-learn's ``GridSearchCV`` over ``{"C": Cs, **param_grid}`` (or
``{"alpha": alphas, ...}``) with the same ``cv`` and ``scoring``, so the two
choose the same parameters (up to the solvers' tolerance).

When the Gram matrix of all rows does not fit the memory budget, each
(candidate, fold) is a cold fit of the estimator itself (rows on demand).
"""

from __future__ import annotations

import itertools
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral

import numpy as np
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._validation import HasMethods, Interval, validate_params
from ..exceptions import InvalidParameterError
from ..gram import gram
from ..planning import Plan, decide_store
from ..planning.searches import (fold_threads_choice, fold_workers, path_blocks_choice,
                                 path_order_choice, warm_starts_choice)
from ..tuning.distance_blocks import DistanceGram, distance_profiles
from ..tuning.paths import squared_distances
from ..tuning.grid import warn_if_on_edge
from ._base import (check_sample_weight, kernel_for_data, report_plan, resolve_estimator_kernel,
                    tag_precomputed, validate_fit_data)

__all__ = ["PathSearchCV", "ClassifierOutputs", "fold_targets", "PATH_CONSTRAINTS",
           "DEFAULT_C_RANGE", "DEFAULT_ALPHA_RANGE", "ALPHA_PATH_CONSTRAINTS"]

#: ``Cs=k`` means k values of C in ``np.logspace(*DEFAULT_C_RANGE, k)``.
DEFAULT_C_RANGE = (-2.0, 4.0)
#: ``alphas=k`` means k values of alpha in ``np.logspace(*DEFAULT_ALPHA_RANGE, k)``.
DEFAULT_ALPHA_RANGE = (-6.0, 1.0)

PATH_CONSTRAINTS = {
    "Cs": [Interval(Integral, 1, None), "array-like"],
    "param_grid": [dict, None],
    "cv": [Interval(Integral, 2, None), HasMethods(["split", "get_n_splits"]), "array-like",
           None],
    "scoring": [str, "callable", None],
}
ALPHA_PATH_CONSTRAINTS = {"alphas" if k == "Cs" else k: v for k, v in PATH_CONSTRAINTS.items()}


class PathSearchCV(BaseEstimator):
    """The search along C for every kernel candidate, and the refit (a mixin).

    Subclasses define ``_make_estimator(kernel, C)`` (the estimator that is
    refitted, and fitted per fold when the Gram matrix does not fit),
    ``_fold_path(K, train, y_train, values, sw_train)`` (``sw_train`` the fold's sample
    weights or None) yielding ``(value, fitted, stopped)``
    along the path's values in the order given (``fitted`` predicts from the rows
    K[test, train]) and ``_is_classifier``. The path's parameter is C (``Cs``,
    walked upwards) or alpha (``alphas``, walked downwards: the same direction,
    from the most to the least regularised problem).
    """

    _is_classifier = False
    #: True when ``_fold_path`` keeps no block of K beyond the fold (then each fold's
    #: training and held-out blocks are written into two reused buffers).
    _reuses_blocks = False
    _path_name, _path_values, _path_range = "C", "Cs", DEFAULT_C_RANGE

    # ---- checks -------------------------------------------------------------------------
    def _check_params(self):
        """The declared constraints and the grid; returns the base kernel."""
        validate_params(self, self._param_constraints, type(self).__name__)
        self._check_grid()
        return resolve_estimator_kernel(self.kernel)

    def _classifier_data(self, X, y, base, sample_weight=None):
        """Validated (X, labels as 1-D, sample weights or None) of a classifier's fit."""
        X, y = validate_fit_data(self, base, X, y, y_numeric=False)
        sw = check_sample_weight(sample_weight, X.shape[0])
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if len(np.unique(y)) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; "
                             f"the data has only one class: {np.unique(y)[0]!r}")
        return X, y, sw

    def _check_grid(self):
        """The path's distinct values in walking order (C upwards, alpha downwards), the
        user's list of values, and the kernel parameter grid."""
        owner = type(self).__name__
        name, attr = self._path_name, self._path_values
        given = getattr(self, attr)
        if isinstance(given, Integral) and not isinstance(given, bool):
            Cs = np.logspace(*self._path_range, int(given))
        else:
            try:
                Cs = np.atleast_1d(np.asarray(given, dtype=np.float64)).ravel()
            except (TypeError, ValueError):
                Cs = np.array([np.nan])
            if Cs.size == 0 or not np.isfinite(Cs).all() or (Cs <= 0).any():
                raise InvalidParameterError(
                    f"{owner}: {attr} must be a positive integer (that many values in "
                    f"logspace{self._path_range}) or a non-empty list of positive finite "
                    f"numbers, got {given!r}")
        grid = dict(self.param_grid or {})
        for key, values in grid.items():
            if key == name:
                raise InvalidParameterError(f"{owner}: param_grid holds kernel parameters; "
                                            f"give the values of {name} as {attr}=[...]")
            if isinstance(values, str) or not hasattr(values, "__iter__") or not len(values):
                raise InvalidParameterError(
                    f"{owner}: param_grid[{key!r}] must be a non-empty list of values, "
                    f"got {values!r}")
        path = np.unique(Cs)
        return (path if name == "C" else path[::-1]), [float(c) for c in Cs], grid

    def _kernel_candidates(self, base, grid, X):
        """(params, kernel) per combination of the grid, in sorted-key order."""
        if grid and base == "precomputed":
            raise InvalidParameterError(f"{type(self).__name__}: param_grid cannot be used "
                                        "with kernel='precomputed'")
        keys = sorted(grid)
        out = []
        for values in itertools.product(*(list(grid[k]) for k in keys)):
            params = dict(zip(keys, values))
            kernel = clone(base).set_params(**params) if params else base
            out.append((params, kernel, kernel_for_data(kernel, X)))
        return out

    # ---- the search ---------------------------------------------------------------------
    def _search(self, X, y, base, sample_weight=None):
        """Score every (kernel, C) on the folds, choose, refit; sets the fitted state.

        ``sample_weight`` (validated, or None) enters every fit as in ``GridSearchCV``'s
        ``fit(X, y, sample_weight=...)``: the fold's weights for the fold's fits, all of
        them for the refit, the test rows' weights for the scores (as scikit-learn 1.9)."""
        path_Cs, user_Cs, grid = self._check_grid()
        kernels = self._kernel_candidates(base, grid, X)
        splitter = check_cv(self.cv, y, classifier=self._is_classifier)
        folds = list(splitter.split(X, y))
        name = self._path_name
        candidates = list(ParameterGrid({name: user_Cs,
                                         **{k: list(v) for k, v in grid.items()}}))
        where = {}
        for c, params in enumerate(candidates):
            kparams = {k: v for k, v in params.items() if k != name}
            kindex = next(i for i, (p, _, _) in enumerate(kernels) if p == kparams)
            where.setdefault((kindex, float(params[name])), []).append(c)
        scores = np.full((len(candidates), len(folds)), np.nan)
        n = X.shape[0]
        store = decide_store(f"the {n} x {n} Gram matrix of all training rows (each fold's "
                             "blocks are taken from it)", 16.0 * n * n,
                             getattr(self, "cache", "auto"))
        scorer = check_scoring(self._make_estimator("precomputed", 1.0), scoring=self.scoring)
        distances = (distance_profiles([k for _, _, k in kernels], X) if store.value
                     else None)
        D2 = squared_distances(X) if distances is not None else None
        workers = fold_workers(n, len(kernels) * len(folds)) if (
            D2 is not None and self._reuses_blocks) else 1
        local = threading.local()

        def run_fold(kindex, f):
            """Scores along the path of one (kernel candidate, fold); not-converged count."""
            train, test = folds[f]
            kernel = kernels[kindex][2]
            if D2 is not None:
                if self._reuses_blocks and not hasattr(local, "buffers"):
                    local.buffers = {}
                K = DistanceGram(D2, kernel, distances[kindex],
                                 local.buffers if self._reuses_blocks else None,
                                 serial=workers > 1)
            else:
                K = stored[kindex]
            if K is not None:
                X_test = (K.held_out(test, train) if isinstance(K, DistanceGram)
                          else K[np.ix_(test, train)])
                runs = self._fold_path(K, train, y[train], path_Cs,
                                       None if sample_weight is None else sample_weight[train])
            else:
                runs = self._cold_path(X, y, train, kernel, path_Cs,  # resolved on all rows
                                       sample_weight)
                X_test = X[test]
            out, not_converged = [], 0
            for C, fitted, stop in runs:
                not_converged += bool(stop)
                out.append((C, float(scorer(fitted, X_test, y[test]) if sample_weight is None
                                     else scorer(fitted, X_test, y[test],
                                                 sample_weight=sample_weight[test]))))
            return kindex, f, out, not_converged

        stored = {}
        tasks = [(kindex, f) for kindex in range(len(kernels)) for f in range(len(folds))]
        if workers > 1:
            queue = LongestPathsFirst(len(kernels), len(folds))

            def serve():
                done = []
                try:
                    while (task := queue.take()) is not None:
                        start = time.thread_time()
                        done.append(run_fold(*task))
                        queue.finished(*task, time.thread_time() - start)
                except BaseException:
                    queue.cancel()  # the other threads stop after their current path
                    raise
                return done

            with ThreadPoolExecutor(workers) as pool:  # SMO's compiled loop drops the GIL
                served = [pool.submit(serve) for _ in range(workers)]
                results = [r for future in served for r in future.result()]
        else:
            results = []
            for kindex, f in tasks:
                if f == 0 and D2 is None:  # one Gram matrix per candidate, as before
                    kernel = kernels[kindex][2]
                    stored = {kindex: None if not store.value else
                              np.asarray(X, dtype=np.float64) if kernel == "precomputed"
                              else gram(kernel, X)}
                results.append(run_fold(kindex, f))
        stopped = 0
        for kindex, f, out, not_converged in results:
            stopped += not_converged
            for C, score in out:
                for c in where.get((kindex, float(C)), ()):
                    scores[c, f] = score
        best = self._record(candidates, scores, folds)
        params = candidates[best]
        kparams = {k: v for k, v in params.items() if k != name}
        kindex = next(i for i, (p, _, _) in enumerate(kernels) if p == kparams)
        from_distances, reused = D2 is not None, self._reuses_blocks
        D2 = stored = local = None  # the refit's memory
        blocks = path_blocks_choice(from_distances, store.value, n, reused)
        parallel = fold_threads_choice(workers, len(tasks))
        order = path_order_choice(workers)
        choices = [store, warm_starts_choice(name, store.value)]
        choices.append(warn_if_on_edge(name, user_Cs, params[name], stacklevel=3))
        for key in sorted(grid):
            choices.append(warn_if_on_edge(key, grid[key], params[key], stacklevel=3))
        choices.extend([blocks, parallel, order])
        best = self._make_estimator(kernels[kindex][1], params[name])
        self.best_estimator_ = (best.fit(X, y) if sample_weight is None
                                else best.fit(X, y, sample_weight=sample_weight))
        setattr(self, f"{name}_", float(params[name]))
        self.kernel_ = self.best_estimator_.kernel_
        for attr in ("n_features_in_", "feature_names_in_"):  # absent for strings, objects
            if attr in vars(self):
                delattr(self, attr)
        if hasattr(self.best_estimator_, "n_features_in_"):
            self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "n_iter_"):
            self.n_iter_ = self.best_estimator_.n_iter_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        self.plan_ = Plan("path", reason=(
            ("kernel blocks from one squared-distance matrix" if from_distances else
             "one Gram matrix per kernel candidate") + ", folds by indexing, warm-started "
            f"solves along {name}" if store.value else
            "the Gram matrix of all rows does not fit the budget: cold fits per fold"),
            problem={"n": n, "folds": len(folds), "kernel candidates": len(kernels),
                     self._path_values: len(path_Cs)}, choices=tuple(choices))
        report_plan(self, self.verbose)
        if stopped:
            warnings.warn(f"{stopped} of the {len(kernels) * len(folds) * len(path_Cs)} fits "
                          f"of the search stopped at max_iter={self.max_iter} short of tol="
                          f"{self.tol}; their scores are kept. Raise max_iter or tol.",
                          ConvergenceWarning, stacklevel=3)
        return self

    def _cold_path(self, X, y, train, kernel, Cs, sample_weight=None):
        """Without a stored Gram matrix: the estimator itself, fitted per C (rows on demand)."""
        for C in Cs:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                fitted = self._make_estimator(kernel, float(C))
                if sample_weight is None:
                    fitted.fit(X[train], y[train])
                else:
                    fitted.fit(X[train], y[train], sample_weight=sample_weight[train])
            stopped = any(issubclass(w.category, ConvergenceWarning) for w in caught)
            yield float(C), fitted, stopped

    def _record(self, candidates, scores, folds):
        """cv_results_, best_index_, best_params_, best_score_ as scikit-learn's GridSearchCV;
        returns the best candidate's index (rank 1, the first of ties)."""
        means = np.mean(scores, axis=1)
        stds = np.std(scores, axis=1)
        results = {"params": candidates}
        for key in candidates[0]:
            results[f"param_{key}"] = np.ma.MaskedArray([c[key] for c in candidates],
                                                        mask=False, dtype=object)
        for f in range(len(folds)):
            results[f"split{f}_test_score"] = scores[:, f]
        results["mean_test_score"] = means
        results["std_test_score"] = stds
        if np.isnan(means).all():
            ranks = np.ones(len(means), dtype=np.int32)
        else:
            filled = np.where(np.isnan(means), np.nanmin(means) - 1, means)
            ranks = np.asarray(rankdata(-filled, method="min"), dtype=np.int32)
        results["rank_test_score"] = ranks
        self.cv_results_ = results
        self.n_splits_ = len(folds)
        self.best_index_ = int(np.argmin(ranks))
        self.best_params_ = dict(candidates[self.best_index_])
        self.best_score_ = float(means[self.best_index_])
        return self.best_index_

    def __sklearn_tags__(self):  # pairwise for "precomputed", sparse as the kernel takes it
        return tag_precomputed(super().__sklearn_tags__(), self.kernel)

    # ---- the refitted model -------------------------------------------------------------
    def predict(self, X):
        """Predictions of ``best_estimator_`` (refitted on all the data), shape (n_queries,)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def score(self, X, y, sample_weight=None):
        """``best_estimator_.score``: accuracy for classifiers, R^2 for regressors."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score(X, y, sample_weight=sample_weight)


class LongestPathsFirst:
    """The (candidate, fold) paths of a search, handed to threads longest first.

    A candidate's paths cost about the same on every fold (the same kernel and C
    values on 4/5 of the same rows), and candidates differ severalfold (the
    number of support vectors and SMO steps grow with gamma and C). So every
    candidate's first fold goes first; the remaining folds follow, those of the
    candidate whose first fold took the most thread time first (a candidate still
    running its first fold counts as the longest measured), so the last paths
    handed out are the short ones and no thread is left alone with a long path at
    the end (longest-processing-time-first list scheduling, Graham 1969).

    Parameters
    ----------
    n_candidates, n_folds : int

    References
    ----------
    Graham, R. L. (1969). Bounds on multiprocessing timing anomalies. SIAM Journal
    on Applied Mathematics 17(2), 416-429.
    """

    def __init__(self, n_candidates, n_folds):
        self.first = [(k, 0) for k in range(n_candidates)]
        self.rest = {k: [(k, f) for f in range(1, n_folds)] for k in range(n_candidates)}
        self.seconds = {}
        self.lock = threading.Lock()

    def take(self):
        """The next (candidate, fold) to solve, or None when all are handed out."""
        with self.lock:
            if self.first:
                return self.first.pop(0)
            pending = [k for k, left in self.rest.items() if left]
            if not pending:
                return None
            default = max(self.seconds.values(), default=0.0)
            k = max(pending, key=lambda c: (self.seconds.get(c, default),
                                            c not in self.seconds, -c))
            return self.rest[k].pop(0)

    def cancel(self):
        """Hand out nothing more (a path failed)."""
        with self.lock:
            self.first.clear()
            self.rest.clear()

    def finished(self, kindex, fold, seconds):
        """Record the thread time of a path (a first fold's sets its candidate's rank)."""
        if fold == 0:
            with self.lock:
                self.seconds[kindex] = float(seconds)


class ClassifierOutputs:
    """``classes_`` and ``decision_function`` of a classifier search: those of its
    ``best_estimator_``."""

    @property
    def classes_(self):
        """The class labels, ndarray of shape (n_classes,)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.classes_

    def decision_function(self, X):
        """``best_estimator_.decision_function(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)


def fold_targets(y_train):
    """(classes, Y) of a fold: Y the {-1, +1} coding, one column for two classes, else one
    per class; a fold of one class is refused."""
    classes, yi = np.unique(y_train, return_inverse=True)
    if len(classes) < 2:
        raise ValueError("a training fold has samples of one class only: use fewer folds "
                         "or a stratified splitter")
    if len(classes) == 2:
        return classes, np.where(yi == 1, 1.0, -1.0)[:, None]
    return classes, np.where(yi[:, None] == np.arange(len(classes))[None, :], 1.0, -1.0)
