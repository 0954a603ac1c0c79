"""How ``kernelkit fit`` chooses gamma, alpha and C when they are not given.

- **ridge** (regression, and ``KernelRidgeClassifier`` on the +-1 coding of the labels):
  gamma and alpha by exact leave-one-out (:class:`~kernelkit.models.KernelRidgeCV`: one
  eigendecomposition per gamma gives every alpha), on the training rows, or on a random
  :data:`LOO_MAX_N` of them (fewer when the memory budget asks) beyond that size; with
  ``--solver falkon``, by GCV of the Nystroem model on all the training rows (one pass
  over K_nM per gamma gives every alpha);
- **svm** / **logistic** (``KernelSVC``, ``KernelLogisticRegression``): gamma and C by
  accuracy in stratified :data:`N_FOLDS`-fold cross-validation up to :data:`KFOLD_MAX_N`
  rows, else on one stratified hold-out quarter of a random :data:`SEARCH_MAX_N` of
  the training rows (``KernelSVCCV`` / ``KernelLogisticRegressionCV``: the scores of
  scikit-learn's ``GridSearchCV`` over the same grid and folds, at a fraction of its
  cost).

The gamma grid is :data:`GAMMA_FACTORS` times the kernel's ``gamma="scale"`` (or
``"auto"``) value on the standardised training columns, scikit-learn's rule
``1 / (n_features X.var())``; gamma is searched only when the kernel's own ``gamma``
is left to that rule (the default RBF, ``--kernel laplacian``), never when written
as a number. A choice at either end of its grid is warned
(:func:`kernelkit.tuning.grid.warn_if_on_edge`).

References
----------
.. [1] G. Wahba, "Spline Models for Observational Data", SIAM, 1990 (leave-one-out
   residuals of a linear smoother from one factorisation).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Search", "GAMMA_FACTORS", "ALPHA_GRID", "C_GRID", "LOO_MAX_N", "KFOLD_MAX_N",
           "SEARCH_MAX_N", "N_FOLDS", "searches_gamma", "gamma_grid", "loo_rows",
           "search_ridge", "search_classifier", "announce_edges"]

#: gamma = scale * these (1/16 .. 4, a factor 2 apart).
GAMMA_FACTORS = tuple(2.0 ** k for k in range(-4, 3))
#: Candidate ridge penalties (every alpha costs O(n^2) once a gamma's
#: eigendecomposition is made, so the grid is wide).
ALPHA_GRID = tuple(10.0 ** k for k in range(-6, 2))
#: Candidate C of the SVM and of logistic regression.
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
#: Exact leave-one-out (one n x n eigendecomposition per gamma) on at most this many rows:
#: KernelRidgeCV's own limit of the exact path (``models._ridge_search.EXACT_MAX_N``), where
#: seven eigendecompositions of the gamma grid stay a few seconds each on 2 cores.
LOO_MAX_N = 2500
#: k-fold cross-validation of the SVM / logistic grid up to this many rows ...
KFOLD_MAX_N = 2000
#: ... beyond it one hold-out quarter of at most this many rows.
SEARCH_MAX_N = 4000
N_FOLDS = 3


@dataclass
class Search:
    """What a search chose and how.

    Attributes
    ----------
    values : dict
        The chosen ``gamma`` (when searched or fixed) and ``alpha`` or ``C``.
    grids : dict
        For each searched name, the values tried.
    how : str
        The method, for the notes (e.g. "exact leave-one-out").
    score : float or None
        The criterion at the choice (LOO RMSE, or cross-validated accuracy).
    """

    values: dict = field(default_factory=dict)
    grids: dict = field(default_factory=dict)
    how: str = ""
    score: float | None = None
    #: the gamma that "scale" resolves to on the searched rows (the grid's centre)
    scale: float | None = None
    #: what ``score`` measures, for the notes
    criterion: str = "score"


def searches_gamma(kernel):
    """True when ``kernel``'s own ``gamma`` is left to a data rule ("scale"/"auto") and
    sets its width (not an RBF whose ``length_scale`` is given instead)."""
    from ..kernels import Kernel
    from ..kernels.data_dependent import unresolved_params

    return isinstance(kernel, Kernel) and "gamma" in unresolved_params(kernel)


def gamma_grid(kernel, X):
    """``(grid, scale)``: :data:`GAMMA_FACTORS` times the gamma ``kernel`` resolves to on X."""
    scale = float(kernel.resolve(X).gamma)
    return tuple(scale * f for f in GAMMA_FACTORS), scale


def loo_rows(rows, seed):
    """The rows leave-one-out runs on: all of ``rows`` up to :data:`LOO_MAX_N` (fewer when
    two n x n float64 matrices would pass half the memory budget), else a random subset."""
    from ..config import get_config

    memory = get_config()["memory"]
    limit = min(LOO_MAX_N, int(math.sqrt(0.5 * memory / 16.0)))
    if len(rows) <= limit:
        return rows
    return np.random.default_rng(seed).choice(rows, limit, replace=False)


def _tried(grid):
    return f"{len(grid)} values ({min(grid):.3g} .. {max(grid):.3g})"


def search_ridge(X, Y, kernel, gammas, alphas, nystroem=None):
    """gamma and alpha of kernel ridge by exact leave-one-out, or by GCV of the Nystroem
    (Falkon) model.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or (n_samples,) of str
        Preprocessed inputs (standardised columns).
    Y : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Targets (the +-1 coding of the labels for a classifier); the intercept is
        the mean of the rows fitted (exact in leave-one-out: the mean of the others).
    kernel : Kernel
    gammas : tuple of float or None
        The gamma grid; None keeps ``kernel``'s gamma.
    alphas : tuple of float
    nystroem : dict, optional
        ``{"n_centers": M or "auto", "random_state": seed}``: generalised
        cross-validation along the alpha path of ``KernelRidge(solver="falkon")``'s
        model on those centers (one pass over K_nM per gamma), instead of exact
        leave-one-out.

    Returns
    -------
    Search
        ``score``: the root of the leave-one-out (or GCV) mean squared error.
    """
    from ..models import KernelRidgeCV

    grid = None if gammas is None else {"gamma": list(gammas)}
    cv = KernelRidgeCV(kernel=kernel, alphas=list(alphas), param_grid=grid)
    how = "exact leave-one-out"
    if nystroem is not None:
        cv.set_params(fit_intercept=True, solver="falkon", cv="gcv", **nystroem)
        how = "GCV of the Nystroem model"
    else:
        cv.set_params(fit_intercept=True, solver="exact", cv="loo")
    with warnings.catch_warnings():
        _quiet_inner_edges()
        cv.fit(X, Y)
    if nystroem is not None:
        how += f" ({len(cv.centers_)} centers)"
    found = Search(how=how, score=math.sqrt(cv.best_score_))
    if gammas is not None:
        found.values["gamma"] = float(cv.kernel_.gamma)
        found.grids["gamma"] = tuple(gammas)
    found.values["alpha"] = float(cv.alpha_)
    if len(alphas) > 1:
        found.grids["alpha"] = tuple(alphas)
    return found


def search_classifier(model, kernel, X, y, gammas, Cs, seed):
    """gamma and C of a classifier by cross-validated accuracy.

    :class:`~kernelkit.models.KernelSVCCV` or
    :class:`~kernelkit.models.KernelLogisticRegressionCV` (one Gram matrix per gamma
    for every fold, the solver warm-started along C): the scores of scikit-learn's
    ``GridSearchCV`` over ``{"C": Cs, "kernel__gamma": gammas}`` with the same folds,
    and its choice (the first best in grid order) up to the solvers' tolerance.

    Parameters
    ----------
    model : {"svm", "logistic"}
    kernel : Kernel
    X : ndarray of shape (n_samples, n_features)
        Preprocessed inputs.
    y : ndarray of shape (n_samples,)
    gammas : tuple of float or None
        The gamma grid; None keeps ``kernel``'s gamma.
    Cs : tuple of float
        The C grid (one value: C is fixed).
    seed : int
        Seeds the folds (and the hold-out rows beyond :data:`KFOLD_MAX_N`).

    Returns
    -------
    Search
        ``score``: the mean validation accuracy at the choice.
    """
    from sklearn.model_selection import GridSearchCV

    from ..models import (KernelLogisticRegression, KernelLogisticRegressionCV, KernelSVC,
                          KernelSVCCV)

    cv, how = folds(y, seed)
    grid = None if gammas is None else {"gamma": list(gammas)}
    if np.ndim(X) == 1:  # strings: scikit-learn's search over the plain estimator
        cls = KernelSVC if model == "svm" else KernelLogisticRegression
        search = GridSearchCV(cls(kernel=kernel), {"C": list(Cs)}, scoring="accuracy", cv=cv,
                              refit=False, error_score="raise")
    else:
        cls = KernelSVCCV if model == "svm" else KernelLogisticRegressionCV
        search = cls(kernel=kernel, Cs=list(Cs), param_grid=grid, cv=cv, scoring="accuracy")
    with warnings.catch_warnings():
        _quiet_inner_edges()
        search.fit(X, y)
    best = search.best_params_
    found = Search(how=how, score=float(search.best_score_))
    if gammas is not None:
        found.values["gamma"] = float(best["gamma"])
        found.grids["gamma"] = tuple(gammas)
    found.values["C"] = float(best["C"])
    if len(Cs) > 1:
        found.grids["C"] = tuple(Cs)
    return found


def folds(y, seed):
    """The splits of :func:`search_classifier` and their description: stratified
    :data:`N_FOLDS`-fold up to :data:`KFOLD_MAX_N` rows, else one stratified
    hold-out quarter."""
    from sklearn.model_selection import StratifiedKFold, train_test_split

    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < 2:
        raise ValueError(f"a class has {counts.min()} row(s): choosing C and gamma by "
                         "cross-validation needs at least 2 rows of every class; give "
                         "--C and --gamma, or drop the rare classes")
    if len(y) <= KFOLD_MAX_N:
        k = int(min(N_FOLDS, counts.min()))
        return (StratifiedKFold(k, shuffle=True, random_state=seed),
                f"{k}-fold stratified cross-validation")
    index = np.arange(len(y))
    fit, val = train_test_split(index, test_size=0.25, stratify=y, random_state=seed)
    return [(fit, val)], "a stratified hold-out quarter"


def announce_edges(found):
    """Warn :class:`~kernelkit.tuning.grid.GridEdgeWarning` for every searched value at
    its grid's edge; returns ``{name: "smallest" | "largest"}`` for those values."""
    from ..tuning.grid import on_edge, warn_if_on_edge

    edges = {}
    for name, grid in found.grids.items():
        side = on_edge(grid, found.values[name])
        if side is not None:
            edges[name] = side
            warn_if_on_edge(name, grid, found.values[name])
    return edges


def _quiet_inner_edges():
    # the search announces its own edges (announce_edges); an estimator that also
    # warns about its internal grid would say it twice
    try:
        from ..tuning.grid import GridEdgeWarning
    except ImportError:  # pragma: no cover - the tuning room is part of the package
        return
    warnings.simplefilter("ignore", GridEdgeWarning)
