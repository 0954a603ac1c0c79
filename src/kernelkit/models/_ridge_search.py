"""The search of KernelRidgeCV and KernelRidgeClassifierCV: plan, path per candidate, refit.

Shared by both estimators; the numerics are in :mod:`kernelkit.tuning`.
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from .._budget import budget as memory_budget, format_bytes, require, row_blocks, rows_per_block
from ..exceptions import InvalidParameterError
from ..features import RandomFourierFeatures
from ..features.centers import distinct_centers, select_centers
from ..gram import KernelRows, gram, recorded_product_choice
from ..linalg import eigh_psd
from ..planning import Plan, falkon_centers
from ..planning.searches import (center_blocks_choice, criterion_choice, factorisation_choice,
                                 kernel_matrices_choice, kmm_rank_choice,
                                 search_centers_choice)
from ..tuning.distance_blocks import distance_profiles
from ..tuning.grid import warn_if_on_edge
from ..tuning.nystroem_path import (WHITENING_RTOL, NystroemPath, accumulate_moments,
                                    whitening)
from ..tuning.paths import (blas_threads_for, centre_targets, cholesky_path,
                            choose_factorisation, eigen_path, squared_distances)
from ._base import kernel_for_data, report_plan
from ._ridge_kfold import exact_kfold, fold_splits
from ..solvers.falkon_rows import distinct_row_centers, merge_rows_choice

__all__ = ["SOLVERS", "EXACT_MAX_N", "TUNING_CENTERS", "search", "tuning_centers"]

SOLVERS = ("auto", "exact", "nystroem", "falkon", "features")
#: ``solver="auto"`` searches exactly up to this many samples. The exact path costs
#: (2/3) n^3 per (kernel, alpha) (a Cholesky factor and its inverse) or an
#: eigendecomposition per kernel; the Nystroem path one pass of n M^2 per kernel.
#: California housing, 4,000 training rows, 5 gammas x 5 alphas (2-core box, busy):
#: exact LOO 266 s, test RMSE 0.5583; Nystroem GCV with M = 1000 3.3 s, 0.5555.
EXACT_MAX_N = 2500
#: Most centers ``n_centers="auto"`` adds beyond sqrt(n) log n (see :func:`tuning_centers`).
TUNING_CENTERS = 1000


def tuning_centers(n):
    """Default Nystroem centers of a path: ``max(sqrt(n) log n, min(n / 4, 1000))``, <= n.

    One pass costs n M^2 per candidate and every alpha O(M^2), so a path affords
    more centers than Falkon's default (:func:`~kernelkit.planning.falkon_centers`)
    at moderate n: California 4,000 rows, M = 525 (the default): test RMSE
    0.5696; M = 1000: 0.5555 (exact: 0.5583).
    """
    return int(min(n, max(falkon_centers(n), min(n // 4, TUNING_CENTERS))))


def candidates(base, param_grid):
    """``(params, kernel)`` for every combination of ``param_grid`` (sorted keys)."""
    grid = param_grid or {}
    if grid and base == "precomputed":
        raise InvalidParameterError("param_grid cannot be used with kernel='precomputed': "
                                    "the kernel's parameters are not known; pass the kernel")
    keys = sorted(grid)
    out = []
    for values in itertools.product(*(list(grid[k]) for k in keys)):
        params = dict(zip(keys, values))
        out.append((params, clone(base).set_params(**params) if params else base))
    return out


def _given_folds(cv):
    """Whether ``cv`` is a splitter or a list of folds (GridSearchCV's semantics)."""
    return not isinstance(cv, (str, int, np.integer))


def _plan(est, X, n, n_cand, alphas):
    """The solver (exact / nystroem / features) and criterion, as a Plan."""
    budget = memory_budget()
    exact_bytes = (24.0 if n_cand > 1 else 16.0) * n * n  # K, its factor, the distances
    dense = isinstance(X, np.ndarray) and X.dtype.kind == "f"
    exact_only = not dense or X.ndim != 2 or est.kernel == "precomputed"
    solver = est.solver
    if solver == "auto":
        if exact_only:
            solver, why = "exact", "precomputed, sparse or string input: the exact path only"
        elif n <= EXACT_MAX_N and exact_bytes <= budget:
            solver, why = "exact", (f"n = {n} <= {EXACT_MAX_N} and the exact path's "
                                    f"{format_bytes(exact_bytes)} fit the budget")
        elif _given_folds(est.cv) and exact_bytes <= budget:
            solver, why = "exact", (f"folds given (cv={type(est.cv).__name__}): the exact "
                                    f"k-fold path, whose {format_bytes(exact_bytes)} fit the "
                                    "budget")
        else:
            solver, why = "nystroem", (f"n = {n} > {EXACT_MAX_N}" if n > EXACT_MAX_N else
                                       f"the exact path's {format_bytes(exact_bytes)} exceed "
                                       f"the budget {format_bytes(budget)}")
    else:
        why = "set by the user"
        if solver != "exact" and exact_only:
            raise InvalidParameterError(
                f"{type(est).__name__}: solver={solver!r} needs dense float input and a "
                "kernel (not 'precomputed'); use solver='exact'")
    solver = "nystroem" if solver == "falkon" else solver
    cv = est.cv
    if isinstance(cv, str) and cv == "auto":
        cv = "loo" if solver == "exact" else "gcv"
    if solver != "exact" and not isinstance(cv, (str, int, np.integer)):
        raise InvalidParameterError(f"{type(est).__name__}: a splitter or a list of folds "
                                    "(cv=...) needs solver='exact'; the Nystroem and "
                                    "random-feature paths take cv=k (shuffled folds)")
    if solver != "exact" and isinstance(cv, str) and cv == "loo":
        raise InvalidParameterError(f"{type(est).__name__}: cv='loo' is exact for "
                                    "solver='exact' only; use cv='gcv' or an int k (k-fold)")
    criterion = (cv if isinstance(cv, str) else f"{cv}-fold"
                 if isinstance(cv, (int, np.integer)) else
                 f"{cv.get_n_splits() if hasattr(cv, 'get_n_splits') else len(cv)}-fold")
    plan = Plan(solver, (), why, {"n": n, "candidates": n_cand, "alphas": len(alphas)})
    user_set = not isinstance(est.cv, str) or est.cv != "auto"
    return plan.with_choices(criterion_choice(criterion, user_set)), solver, cv


def search(est, X, y, base, alphas, labels=None):
    """Choose (kernel, alpha), refit, and set the fitted attributes of ``est``.

    Parameters
    ----------
    est : KernelRidgeCV or KernelRidgeClassifierCV
    X : validated inputs
    y : ndarray of shape (n,) or (n, t)
        Targets ({-1, +1} indicator columns for a classifier).
    base : Kernel or "precomputed"
    alphas : ndarray of float
    labels : ndarray of shape (n,) of int, optional
        Class indices (classifier): LOO accuracy is then the criterion, its
        mean squared error breaking ties (GCV and k-fold: squared error only).
    """
    n = y.shape[0]
    if n < 3:
        raise ValueError(f"{type(est).__name__} needs at least 3 samples to choose "
                         f"hyperparameters, got n_samples = {n}; with fewer, fit KernelRidge "
                         "with a fixed alpha")
    # a grid value such as gamma="scale" is fixed from the training X, as the base kernel was
    cands = [(params, kernel_for_data(kernel, X)) for params, kernel in
             candidates(base, est.param_grid)]
    plan, solver, cv = _plan(est, X, n, len(cands), alphas)
    y0, y_mean = centre_targets(y, est.fit_intercept)
    split_mse = None
    if solver == "exact" and not isinstance(cv, str):
        if labels is not None:
            raise InvalidParameterError(f"{type(est).__name__}: k-fold (cv={cv!r}) is for "
                                        "regression; the classifier's exact path takes "
                                        "cv='loo' or 'gcv'")
        plan, rows, best = exact_kfold(est, plan, cands, X, y0, y_mean, alphas,
                                       fold_splits(est, X, n))
        split_mse = best[3].pop("split_mse")
    elif solver == "exact":
        plan, rows, best = _exact(est, plan, cands, X, y0, y_mean, alphas, cv, labels)
    else:
        plan, rows, best = _approximate(est, plan, solver, cands, X, y0, alphas, cv)
    params, alpha, kernel, state = best
    est.alpha_, est.kernel_ = float(alpha), kernel
    est.best_params_ = dict(params, alpha=float(alpha))
    mse = np.array([r[2] for r in rows])
    est.best_score_ = float(state.pop("score"))
    est.criterion_ = plan.choices[0].value  # "loo", "gcv" or "<k>-fold"
    est.cv_results_ = {"params": [r[0] for r in rows], "alpha": np.array([r[1] for r in rows]),
                       "mean_squared_error": mse}
    if split_mse is not None:  # GridSearchCV's per-fold scores (neg_mean_squared_error)
        for f in range(split_mse.shape[1]):
            est.cv_results_[f"split{f}_test_score"] = -split_mse[:, f]
        est.cv_results_["mean_test_score"] = -mse
        est.cv_results_["std_test_score"] = np.std(split_mse, axis=1)
    if isinstance(cv, str) and cv == "loo":
        est.cv_results_["loo_mse"] = mse
    if labels is not None and isinstance(cv, str) and cv == "loo":
        est.cv_results_["accuracy"] = np.array([r[3] for r in rows])
    edges = [warn_if_on_edge("alpha", alphas, alpha, stacklevel=3)]
    for key, values in sorted((est.param_grid or {}).items()):
        edges.append(warn_if_on_edge(key, values, params[key], stacklevel=3))
    est.plan_ = plan.with_choices(*edges, state.pop("products", None))  # products last
    report_plan(est, est.verbose)
    intercept = y_mean + state.pop("mean")
    for attr in ("dual_coef_", "coef_", "centers_", "X_fit_", "feature_map_", "rank_"):
        if hasattr(est, attr) and attr not in state:
            delattr(est, attr)
    for attr, value in state.items():
        if attr.endswith("coef_"):  # contiguous: a reloaded copy predicts bit for bit alike
            value = np.ascontiguousarray(value[:, 0] if y.ndim == 1 else value)
        setattr(est, attr, value)
    est.intercept_ = float(intercept[0]) if y.ndim == 1 else intercept
    est.n_samples_fit_ = n


def _score_key(mse, accuracy):
    return (mse,) if accuracy is None else (-accuracy, mse)


def _exact(est, plan, cands, X, y0, y_mean, alphas, cv, labels):
    """Exact LOO/GCV of every (candidate, alpha); the best one's dual coefficients."""
    n = y0.shape[0]
    factorisation, why = choose_factorisation(len(alphas), est.factorisation)
    profiles = distance_profiles([k for _, k in cands], X) if len(cands) > 1 else None
    require((24.0 if profiles is not None else 16.0) * n * n,
            f"the exact leave-one-out path on n={n} samples (the n x n kernel and its factor"
            f"{', and the squared distances' if profiles is not None else ''})",
            hint="use solver='nystroem'")
    D2 = squared_distances(X) if profiles is not None else None
    plan = plan.with_choices(factorisation_choice(factorisation, why),
                             kernel_matrices_choice(D2 is not None, len(cands)))
    rows, best = [], None
    for c, (params, kernel) in enumerate(cands):
        if kernel == "precomputed":
            K = np.array(X, dtype=np.float64)
        elif D2 is not None:
            K = np.ascontiguousarray(profiles[c](D2), dtype=np.float64)
        else:
            K = np.asarray(gram(kernel, X), dtype=np.float64)
        if factorisation == "eigen":
            with blas_threads_for(n):
                w, Q = eigh_psd(K, overwrite_a=True)
            points = eigen_path(w, Q, y0, alphas, est.fit_intercept)
            del w, Q
        else:
            points = cholesky_path(K, y0, alphas, est.fit_intercept)
        del K
        for p in points:
            mse = float(np.mean(p.loo_residuals ** 2) if cv == "loo" else np.mean(p.gcv))
            accuracy = None
            if labels is not None and cv == "loo":
                accuracy = _loo_accuracy(y0 - p.loo_residuals + y_mean, labels)
            rows.append((params, p.alpha, mse, accuracy))
            key = _score_key(mse, accuracy)
            if best is None or key < best[0]:
                best = (key, params, p.alpha, kernel, p.coef, mse if accuracy is None
                        else accuracy)
    _, params, alpha, kernel, coef, score = best
    state = {"dual_coef_": coef, "X_fit_": None if kernel == "precomputed" else X,
             "solver_": "dual", "score": score, "mean": np.zeros(y0.shape[1]),
             # the Gram matrices' products (RBF's grid route), for the chosen kernel
             "products": recorded_product_choice(kernel, X) if D2 is None else None}
    return plan, rows, (params, alpha, kernel, state)


def _loo_accuracy(pred, labels):
    """Accuracy of leave-one-out decision values (n, t) against class indices:
    the sign of the one column for two classes, else the largest column."""
    if pred.shape[1] == 1:
        return float(np.mean((pred[:, 0] > 0) == (labels == 1)))
    return float(np.mean(np.argmax(pred, axis=1) == labels))


def _approximate(est, plan, solver, cands, X, y0, alphas, cv):
    """GCV or k-fold along the path of each candidate from one pass over the rows."""
    n, t = y0.shape
    kernels = [k for _, k in cands]
    folds, n_folds = None, 1
    if not isinstance(cv, str):
        n_folds = int(cv)
        if n_folds > n:
            raise InvalidParameterError(f"cv={n_folds} folds need at least as many samples, "
                                        f"got {n}")
        folds = np.empty(n, dtype=np.intp)
        seed = (None if est.random_state is None else
                check_random_state(est.random_state).randint(2 ** 31 - 1))
        splitter = KFold(n_folds, shuffle=True, random_state=seed)
        for f, (_, held) in enumerate(splitter.split(np.empty((n, 1)))):
            folds[held] = f
    if solver == "nystroem":
        rng = check_random_state(est.random_state)
        M = tuning_centers(n) if est.n_centers == "auto" else min(int(est.n_centers), n)
        centers, how = _draw_centers(est, kernels[0], X, y0, M, rng)
        profiles = distance_profiles(kernels, X)
        if profiles is not None:
            D2_MM = squared_distances(centers)
            K_MMs = [f(D2_MM) for f in profiles]
        else:
            K_MMs = [np.asarray(gram(k, centers), dtype=np.float64) for k in kernels]
        whitenings = [whitening(K) for K in K_MMs]
        blocks = _center_blocks(kernels, profiles, X, centers)
        width, what = len(centers), f"{len(centers)} Nystroem centers ({getattr(est, 'center_selection', 'uniform')} rows)"
        plan = plan.with_choices(
            search_centers_choice(len(centers), M, est.n_centers == "auto", how),
            center_blocks_choice(bool(profiles)),
            kmm_rank_choice(min(r for _, r in whitenings), WHITENING_RTOL))
    else:
        maps = [RandomFourierFeatures(k, n_components=est.n_components,
                                      random_state=est.random_state).fit(X) for k in kernels]
        whitenings = [(None, est.n_components)] * len(kernels)
        step = rows_per_block(est.n_components * len(kernels), n_temporaries=2)
        blocks = ((r0, r1, [m.transform(X[r0:r1]) for m in maps])
                  for r0, r1 in row_blocks(n, step))
        width, what = est.n_components, f"{est.n_components} random Fourier features"
    require(8.0 * width * width * (len(kernels) * n_folds + 3),
            f"the path's moments ({what}, {len(kernels)} candidates, {n_folds} folds)")
    moments = accumulate_moments(blocks, y0, folds, n_folds)
    rows, best = [], None
    for c, (params, kernel) in enumerate(cands):
        T = whitenings[c][0]
        total = moments[c][0]
        for m in moments[c][1:]:
            total = total + m
        full = NystroemPath(total, T, est.fit_intercept)
        if folds is None:
            errors = full.gcv(alphas)
        else:
            sse = sum(NystroemPath(total - m, T, est.fit_intercept).heldout_sse(alphas, m)
                      for m in moments[c])
            errors = sse / n
        for j, alpha in enumerate(alphas):
            mse = float(np.mean(errors[j]))
            rows.append((params, float(alpha), mse, None))
            if best is None or mse < best[0]:
                best = (mse, params, float(alpha), kernel, full, c)
    mse, params, alpha, kernel, full, c = best
    state = {"score": mse, "mean": full.mean}
    if solver == "nystroem":
        state.update(dual_coef_=full.coef(alpha), centers_=centers, solver_="falkon",
                     rank_=whitenings[c][1])
    else:
        state.update(coef_=full.coef(alpha), feature_map_=maps[c], solver_="primal")
    return plan, rows, (params, alpha, kernel, state)


def _draw_centers(est, kernel, X, y0, M, rng):
    """The centers as ``KernelRidge(solver="falkon", center_selection=...)`` draws them
    with the same ``random_state``: uniform rows (repeats dropped), or uniformly among
    the distinct rows. Returns the centers and what was done, for ``plan_``."""
    if est.center_selection == "distinct":
        merged = merge_rows_choice(X, y0, None).merged
        if merged is not None:
            centers, _, _ = distinct_row_centers(merged, M, rng)
            return centers, (f"{len(centers)} drawn among the {len(merged.X)} distinct rows "
                             f"(of {merged.n_rows})")
    idx = select_centers(kernel, X, M, "uniform", rng)
    kept, _ = distinct_centers(X, idx)
    return X[kept], f"{len(idx)} uniform rows drawn, {len(kept)} distinct"


def _center_blocks(kernels, profiles, X, centers):
    """Row blocks of K(X, centers) for every candidate, from one distance block if possible."""
    n, M = X.shape[0], centers.shape[0]
    step = rows_per_block(M, n_temporaries=2 + len(kernels))
    if profiles is not None:
        for r0, r1 in row_blocks(n, step):
            D2 = squared_distances(X[r0:r1], centers)
            yield r0, r1, [f(D2) for f in profiles]
        return
    rows = [KernelRows(k, X, centers) for k in kernels]
    for r0, r1 in row_blocks(n, step):
        yield r0, r1, [np.asarray(r.block(r0, r1), dtype=np.float64) for r in rows]
