"""The exact k-fold search of KernelRidgeCV (``solver="exact"``, ``cv`` an int or a splitter).

The held-out mean squared error of ``GridSearchCV(KernelRidge(kernel), {"alpha": ...,
**param_grid}, cv=folds, scoring="neg_mean_squared_error")`` for every (kernel, alpha),
reusing work: one squared-distance matrix of all rows for a grid of kernels of the
Euclidean distance, each fold's training and held-out blocks taken from it (into
reused buffers for RBF), and per (kernel, fold) the alphas solved in the groups the
planner finds cheapest (:func:`kernelkit.planning.fold_search.plan_fold_solves`: one
float32 factor preconditioning conjugate gradient per group -- a group of one alpha is
mixed-precision refinement --, a low-rank (Nystroem) preconditioner for large alphas,
or a float64 factor per alpha; each kernel planned from a low-rank probe of its first
fold, whose smallest kept eigenvalue says how well a low rank serves which alphas;
:func:`kernelkit.tuning.fold_path.fold_solves`, its factor buffers kept across folds and
kernels) where scikit-learn factors once per alpha in float64. The plan records the
predicted and the taken time of the solves per fold.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.model_selection import KFold, ParameterGrid
from sklearn.utils import check_random_state

from .._budget import fits, require
from .._compiled import exp_scaled
from ..exceptions import InvalidParameterError
from ..gram import gram
from ..planning.searches import kfold_matrices_choice
from ..planning.fold_search import (FOLD_RTOL, fold_solves_choice, low_rank_worth_probing,
                                    plan_fold_solves)
from ..tuning.distance_blocks import DistanceGram, distance_profiles
from ..tuning.fold_path import fold_solves, low_rank_preconditioner
from ..tuning.low_rank import low_rank_bytes, low_rank_rank
from ..tuning.paths import squared_distances

__all__ = ["fold_splits", "exact_kfold", "LOW_RANK_OVERRUN"]

#: A kernel's low-rank plan is dropped for its other folds when its first fold took more
#: than this many times the predicted CG iterations (plus 10): the probe's tail then
#: misjudged how well the low rank serves, and a factor bounds the cost again.
LOW_RANK_OVERRUN = 1.5


def fold_splits(est, X, n):
    """The (train, test) index pairs of ``est.cv``: an int k gives shuffled k-fold from
    ``random_state`` (as the Nystroem path), a splitter or an iterable its own folds."""
    cv = est.cv
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if cv > n:
            raise InvalidParameterError(f"cv={cv} folds need at least as many samples, "
                                        f"got {n}")
        seed = (None if est.random_state is None else
                check_random_state(est.random_state).randint(2 ** 31 - 1))
        cv = KFold(int(cv), shuffle=True, random_state=seed)
    splits = (list(cv.split(np.empty((n, 1)))) if hasattr(cv, "split") else list(cv))
    out = []
    for train, test in splits:
        train, test = np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp)
        if train.size < 1 or test.size < 1:
            raise InvalidParameterError(f"{type(est).__name__}: every fold needs training "
                                        "and held-out rows; the splitter gave an empty one")
        out.append((train, test))
    if len(out) < 2 and not hasattr(est.cv, "split"):
        raise InvalidParameterError(f"{type(est).__name__}: cv gave {len(out)} fold(s)")
    return out


def _label(params):
    """A candidate's parameters in a few characters, e.g. ``"gamma=0.5"``."""
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items()) or "the kernel"


def _best_in_sklearn_order(cands, alphas, mse):
    """(candidate, alpha) indices of the smallest mean error, ties to the first in the
    order of ``ParameterGrid({"alpha": alphas, **param_grid})`` (GridSearchCV's rank 1)."""
    grid = {"alpha": list(alphas)}
    for key in cands[0][0]:
        values = []
        for p, _ in cands:
            if not any(v is p[key] or v == p[key] for v in values):
                values.append(p[key])
        grid[key] = values
    best = None
    for params in ParameterGrid(grid):
        j = int(np.flatnonzero(np.asarray(alphas) == params.pop("alpha"))[0])
        c = next(i for i, (p, _) in enumerate(cands) if p == params)
        if best is None or mse[c, j] < mse[best]:
            best = (c, j)
    return best


def exact_kfold(est, plan, cands, X, y0, y_mean, alphas, splits):
    """Held-out MSE of every (candidate, alpha) on ``splits``; the best one refitted.

    Returns
    -------
    (plan, rows, best)
        As ``_ridge_search._exact``: rows ``(params, alpha, mse, None)`` in candidate-
        then-alpha order and ``best = (params, alpha, kernel, state)``.
    """
    n, t = y0.shape
    y = y0 + y_mean
    kernels = [k for _, k in cands]
    profiles = distance_profiles(kernels, X)
    m_max = max(len(tr) for tr, _ in splits)
    # the folds: the n x n distances, a fold's training and held-out blocks (8 m n) and
    # its float32 factor with a float64 copy (12 m^2); the refit: K in place of the
    # distances and its solve's factor and copy (12 n^2)
    base = 8.0 * n * n + 8.0 * m_max * n + 12.0 * m_max * m_max
    refit_base = 20.0 * n * n
    require(max(base, refit_base),
            f"the exact {len(splits)}-fold search on n={n} samples (the n x n distances or "
            "Gram matrix, a fold's training and held-out blocks, its float32 factor and a "
            "float64 copy)",
            hint="use solver='nystroem'")
    D2 = squared_distances(X) if profiles is not None else None
    buffers = {}
    mse = np.zeros((len(cands), len(alphas)))
    split_mse = np.zeros((len(cands), len(alphas), len(splits)))
    stats = {"factors": 0, "n_iter": 0, "fallbacks": 0, "fallback_alphas": (),
             "residual": 0.0, "direct": 0, "seconds": 0.0}
    work = {}  # the float32 and float64 factors' buffers, kept across folds and kernels
    plans = {}  # per (fold size, low-rank rank and tail): the planner's groups of alphas

    def planned(m, low_rank=None):
        if (m, low_rank) not in plans:
            plans[(m, low_rank)] = plan_fold_solves(m, alphas, n_targets=t,
                                                    low_rank=low_rank)
        return plans[(m, low_rank)]

    def merged(plan, m):
        """The CG groups in one run when all their preconditioners fit at once (4 m^2
        bytes per float32 factor beyond the first, the low-rank one's peak)."""
        n_float32, rank = plan.float32_groups, plan.low_rank
        return (n_float32 + (rank > 0) > 1
                and fits(base + 4.0 * m * m * max(n_float32 - 1, 0)
                         + (low_rank_bytes(m, rank) if rank else 0.0)))

    notes = []
    worth = low_rank_worth_probing(m_max, low_rank_rank(m_max), alphas, t)
    probe = worth and fits(base + low_rank_bytes(m_max, low_rank_rank(m_max)))
    if worth and not probe:
        notes.append("no low-rank probe: its factor does not fit the memory budget")
    kernel_plans = []

    for c, (_, kernel) in enumerate(cands):
        if D2 is not None:
            K = DistanceGram(D2, kernel, profiles[c], buffers)
        else:
            K = (np.asarray(X, dtype=np.float64) if kernel == "precomputed"
                 else np.asarray(gram(kernel, X), dtype=np.float64))
        low_rank = None  # this kernel's (rank, tail), from its probe
        for f, (train, test) in enumerate(splits):
            K_test = (K.held_out(test, train) if isinstance(K, DistanceGram)  # own buffer
                      else K[np.ix_(test, train)])
            mean = y[train].mean(axis=0) if est.fit_intercept else np.zeros(t)
            K_train = K[np.ix_(train, train)]
            start = time.perf_counter()
            low = None
            if probe and f == 0:  # this kernel's probe: its first fold's low-rank factor
                low = low_rank_preconditioner(K_train, low_rank_rank(len(train)))
                low_rank = (low.rank, low.tail) if low.rank else None
            fold_plan = planned(len(train), low_rank)
            merge = merged(fold_plan, len(train))
            if f == 0:
                kernel_plans.append((_label(cands[c][0]), fold_plan,
                                     None if low_rank is None else low_rank[1],
                                     merge if fold_plan.merged is not None else None))
            coef, info = fold_solves(K_train, y[train] - mean, alphas, fold_plan.groups,
                                     rtol=FOLD_RTOL, work=work, merge=merge, low_rank=low)
            del low
            stats["seconds"] += time.perf_counter() - start
            for key in ("factors", "n_iter", "fallbacks", "fallback_alphas", "direct"):
                stats[key] += info[key]
            stats["residual"] = max(stats["residual"], info["residual"])
            expected = fold_plan.merged[1] if merge else sum(fold_plan.iterations)
            if (info["low_rank"] and f == 0 and len(splits) > 1
                    and info["n_iter"] > LOW_RANK_OVERRUN * expected + 10):
                # the low rank served worse than its probe promised: the other folds
                # without it (float32 and float64 factors only)
                low_rank = None
                notes.append(f"{_label(cands[c][0])}: the low-rank plan took "
                             f"{info['n_iter']} CG iterations on the first fold vs "
                             f"{expected} predicted; the other folds planned without it")
            # every alpha's held-out predictions in one product (one read of K_test)
            pred = (K_test @ coef.transpose(1, 0, 2).reshape(len(train), -1)).reshape(
                len(test), len(alphas), t)
            for j in range(len(alphas)):
                residual = y[test] - mean - pred[:, j]
                split_mse[c, j, f] = float(np.mean(residual ** 2))
        mse[c] = split_mse[c].mean(axis=1)
        del K
    # the last fold's blocks are views of the buffers (or copies): let them go
    K_train = K_test = pred = None
    c_best, j_best = _best_in_sklearn_order(cands, alphas, mse)
    params, kernel = cands[c_best]
    alpha = float(alphas[j_best])
    # the folds' blocks and factors go before the refit's matrix; the training blocks'
    # buffer (8 m^2 bytes) takes the refit's float32 factor (4 n^2) when it is big
    # enough, sparing the fresh pages of a new one (1 GB at 16,000 rows: about a second)
    refit_groups = plan_fold_solves(n, [alpha], t).groups
    spare = buffers.get("train")
    refit_work = ({"factor32": spare.view(np.float32)}
                  if spare is not None and spare.ndim == 1 and spare.size * 2 >= n * n
                  and refit_groups[0][1] is not None else {})
    buffers.clear()
    work.clear()
    del spare
    if D2 is None:
        full = (np.asarray(X, dtype=np.float64) if kernel == "precomputed"
                else np.asarray(gram(kernel, X), dtype=np.float64))
    else:
        scale = DistanceGram(D2, kernel, profiles[c_best]).scale  # -gamma of an RBF kernel
        full = (exp_scaled(D2, scale, D2) if scale is not None  # in place of the distances
                else np.ascontiguousarray(profiles[c_best](D2), dtype=np.float64))
    D2 = None
    low = None
    if (fits(refit_base + low_rank_bytes(n, low_rank_rank(n)))
            and low_rank_worth_probing(n, low_rank_rank(n), [alpha], t)):
        # the refit's own probe: a low rank may serve the chosen alpha without a factor
        low = low_rank_preconditioner(full, low_rank_rank(n))
        if low.rank:
            refit_plan = plan_fold_solves(n, [alpha], t, low_rank=(low.rank, low.tail))
            refit_groups = refit_plan.groups
            if not refit_plan.float32_groups:
                refit_work.pop("factor32", None)  # the folds' spare buffer is not needed
    coef, info = fold_solves(full, y0, [alpha], refit_groups, rtol=FOLD_RTOL,
                             work=refit_work, low_rank=low)  # the planner's tolerance
    del low
    refit_work.clear()
    plan = plan.with_choices(
        kfold_matrices_choice(profiles is not None),
        fold_solves_choice(planned(m_max), alphas, m_max, len(cands) * len(splits),
                           stats["n_iter"], stats["fallbacks"], stats["residual"],
                           stats["seconds"], fallback_alphas=stats["fallback_alphas"],
                           refit_fallback=info["fallbacks"] > 0,
                           refit_residual=info["residual"],
                           merged=kernel_plans[0][3],
                           kernel_plans=kernel_plans if probe or len(cands) > 1 else None,
                           refit_low_rank=info["low_rank"], notes=notes))
    rows = [(cands[c][0], float(a), float(mse[c, j]), None)
            for c in range(len(cands)) for j, a in enumerate(alphas)]
    state = {"dual_coef_": coef[0], "X_fit_": None if kernel == "precomputed" else X,
             "solver_": "dual", "score": float(mse[c_best, j_best]),
             "mean": np.zeros(t),
             "split_mse": split_mse.reshape(len(cands) * len(alphas), len(splits))}
    return plan, rows, (params, alpha, kernel, state)
