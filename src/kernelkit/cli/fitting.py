"""What ``kernelkit fit`` builds: a model a statistician would accept by default.

Defaults, each printed by the command: columns standardised (a ``StandardScaler``
stored in the model file, so ``predict`` applies it); for regression the target
centred (``fit_intercept``); the task inferred from the target (labels that are
text, or few distinct integers, mean classification; integer labels stay integers);
the model chosen with ``--model``: kernel ridge (``KernelRidge``, or
``KernelRidgeClassifier``), ``KernelSVC`` or ``KernelLogisticRegression``; an RBF
kernel whose gamma, with alpha (ridge) or C (SVM, logistic regression), is searched
on the training rows (:mod:`kernelkit.cli.search`: exact leave-one-out for ridge,
cross-validation or a hold-out for the others) unless given; and a hold-out figure,
from rows the search never saw, next to the training one. The saved model is then
fitted on all rows with the values chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .search import (ALPHA_GRID, C_GRID, LOO_MAX_N, SEARCH_MAX_N, Search, announce_edges,
                     gamma_grid, loo_rows, search_classifier, search_ridge, searches_gamma)

__all__ = ["FitSettings", "infer_task", "build_and_fit", "class_labels", "ALPHA_GRID",
           "C_GRID", "LOO_MAX_N", "MODELS"]

#: At most this many distinct integer values make an integer target a class label.
MAX_CLASSES = 20
#: The learners of --model (the last two classify only).
MODELS = ("ridge", "svm", "logistic")
#: The option that widens each searched grid, for the notes.
WIDEN = {"gamma": "--cv-gammas", "alpha": "--cv-alphas", "C": "--cv-C"}


@dataclass
class FitSettings:
    task: str = "auto"
    kernel: object = None
    model: str = "ridge"
    alpha: float | None = None
    cv_alphas: tuple | None = None
    gamma: float | None = None
    cv_gammas: tuple | None = None
    C: float | None = None
    cv_Cs: tuple | None = None
    #: an SVM fitted with probability=True (Platt), for predict --proba
    proba: bool = False
    solver: str = "auto"
    centers: int | None = None
    scale: bool = True
    holdout: float = 0.2
    seed: int = 0
    #: indices of the text columns to one-hot encode (--onehot); None: all numeric
    onehot: tuple | None = None
    numeric_columns: tuple = ()
    #: one text column through a string kernel (no scaling)
    strings: bool = False
    #: "mean" or "median": gaps of numeric columns filled (SimpleImputer); None: refused
    impute: str | None = None


def infer_task(y, task="auto"):
    """``"classify"`` or ``"regress"``, and why."""
    if task != "auto":
        return task, "set with --task"
    if y.dtype.kind in "USO":
        return "classify", "the target holds text labels"
    values = np.unique(y)
    if np.all(values == np.round(values)) and len(values) <= MAX_CLASSES:
        return "classify", f"the target holds {len(values)} distinct integers"
    return "regress", "the target is numeric with many values"


def class_labels(y):
    """Labels as the classifier should learn them: numbers that are all whole as int64
    (so that predictions read 1, not 1.0), anything else unchanged."""
    y = np.asarray(y)
    if y.dtype.kind == "f" and np.isfinite(y).all() and np.all(y == np.round(y)) \
            and np.abs(y).max(initial=0) < 2.0 ** 53:
        return y.astype(np.int64)
    return y


def _estimator(settings, task, kernel, values):
    from ..models import KernelLogisticRegression, KernelRidge, KernelRidgeClassifier, KernelSVC

    if settings.model == "svm":
        return KernelSVC(kernel=kernel, C=values["C"], probability=settings.proba,
                         random_state=settings.seed)
    if settings.model == "logistic":
        return KernelLogisticRegression(kernel=kernel, C=values["C"],
                                        random_state=settings.seed)
    kw = dict(kernel=kernel, alpha=values["alpha"], solver=settings.solver,
              random_state=settings.seed)
    if settings.centers is not None:
        kw["n_centers"] = settings.centers
    cls = KernelRidgeClassifier if task == "classify" else KernelRidge
    if "fit_intercept" in cls().get_params():
        kw["fit_intercept"] = True
    return cls(**kw)


def _pre_steps(settings):
    """The steps before the model (unfitted): ``[(name, step), ...]``."""
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import StandardScaler

    if settings.strings:
        return []
    if settings.onehot is not None:
        return [("columns", onehot_columns(settings))]
    steps = []
    if settings.impute is not None:
        steps.append(("impute", SimpleImputer(strategy=settings.impute)))
    if settings.scale:
        steps.append(("scale", StandardScaler()))
    return steps


def _preprocessor(settings):
    """The steps before the model as one transformer (unfitted), or None."""
    from sklearn.pipeline import Pipeline

    steps = _pre_steps(settings)
    if not steps:
        return None
    return steps[0][1] if len(steps) == 1 else Pipeline(steps)


def _pipeline(settings, estimator):
    from sklearn.pipeline import Pipeline

    return Pipeline(_pre_steps(settings) + [("model", estimator)])


def onehot_columns(settings):
    """The ColumnTransformer of ``--onehot``: text columns one-hot encoded (categories
    unseen at fit give all-zero columns), the numeric ones standardised (or passed
    through with --no-scale)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline

    text, numeric = list(settings.onehot), list(settings.numeric_columns)
    parts = [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), text)]
    if numeric:
        scale = StandardScaler() if settings.scale else "passthrough"
        if settings.impute is not None:
            impute = SimpleImputer(strategy=settings.impute)
            scale = impute if scale == "passthrough" else Pipeline(
                [("impute", impute), ("scale", scale)])
        parts.append(("scale", scale, numeric))
    return ColumnTransformer(parts, remainder="drop")


def score(task, y, pred):
    """Accuracy for classification, RMSE for regression."""
    if task == "classify":
        return float(np.mean(np.asarray(pred) == np.asarray(y)))
    return float(np.sqrt(np.mean((np.asarray(y, dtype=np.float64) - pred) ** 2)))


def _split(n, holdout, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_val = int(round(holdout * n))
    return order[n_val:], order[:n_val]



def build_and_fit(X, y, settings):
    """Fit the default model of the command on (X, y).

    Returns
    -------
    model : Pipeline
        Refitted on all rows with the chosen settings.
    report : dict
        ``task``, ``kernel``, ``values`` (gamma, alpha or C as fitted), ``edges``
        (searched values at an end of their grid), ``alpha``, ``alpha_choice``,
        ``train_score``, ``validation_score`` (and how it was measured), ``notes``.
    """
    from sklearn.base import clone

    from ..kernels import RBF

    task, why_task = infer_task(y, settings.task)
    if task == "classify":
        n_classes = len(np.unique(y))
        if n_classes > max(MAX_CLASSES, len(y) // 10):
            raise ValueError(f"the target has {n_classes} distinct values for {len(y)} rows: "
                             "too many classes for classification; if it is a number written "
                             "as text, fix the file, or pass --task regress")
        if n_classes < 2:
            raise ValueError(f"the target holds one class only ({y[0]!r}): nothing to "
                             "classify")
        y = class_labels(y)
    elif settings.model != "ridge":
        raise ValueError(f"--model {settings.model} classifies, but the task is regression "
                         f"({why_task}); drop --model for kernel ridge regression, or pass "
                         "--task classify")
    elif settings.proba:
        raise ValueError("--proba gives class probabilities, but the task is regression "
                         f"({why_task}); drop --proba, or pass --task classify")
    notes = [f"task: {task} ({why_task})"]
    n, d = len(X), (1 if settings.strings else X.shape[1])
    if settings.onehot is not None:
        d = onehot_columns(settings).fit(X).transform(X[:1]).shape[1]
        notes.append(f"{len(settings.onehot)} text column(s) one-hot encoded (OneHotEncoder, "
                     f"handle_unknown='ignore', stored in the model file): {d} columns in all")
    if settings.impute is not None and not settings.strings:
        notes.append(f"gaps in numeric columns filled with the column {settings.impute} of "
                     "the rows fitted (SimpleImputer, stored in the model file)")
    if settings.scale and not settings.strings:
        notes.append(("numeric " if settings.onehot is not None else "") +
                     "columns standardised (StandardScaler, stored in the model file)")
    kernel = RBF() if settings.kernel is None else settings.kernel
    if settings.gamma is not None:
        kernel = clone(kernel).set_params(gamma=settings.gamma)
    if settings.kernel is None:
        notes.append("kernel: RBF (set --kernel to choose another)")
    train_idx, val_idx = _split(n, settings.holdout, settings.seed)
    found = _search(X, y, task, kernel, settings, train_idx, len(val_idx) > 0)
    edges = announce_edges(found) if found.grids else {}
    values = dict(found.values)
    if "gamma" in values:
        kernel = clone(kernel).set_params(gamma=values["gamma"])
    notes += _choice_notes(found, settings, edges)
    report = {"task": task, "kernel": repr(kernel), "n": n, "d": d, "model": settings.model,
              "values": values, "edges": edges, "alpha": values.get("alpha"),
              "alpha_choice": found.how, "validation_score": None}
    if len(val_idx):
        held = _pipeline(settings, _estimator(settings, task, kernel, values))
        held.fit(X[train_idx], y[train_idx])
        report["validation_score"] = score(task, y[val_idx], held.predict(X[val_idx]))
        report["validation"] = (f"hold-out {len(val_idx)} of {n} rows (seed {settings.seed})"
                                + (", not seen by the search" if found.grids else ""))
    model = _pipeline(settings, _estimator(settings, task, kernel, values)).fit(X, y)
    final = model[-1]
    plan = getattr(final, "plan_", None)
    if settings.model == "ridge" and plan is not None and settings.solver == "auto" \
            and hasattr(plan, "choice"):
        notes.append(f"solver: {plan.choice} (planner: {plan.reason})")
    report["train_score"] = score(task, y, model.predict(X))
    report["notes"] = notes
    return model, report


def _search(X, y, task, kernel, settings, train_idx, has_holdout):
    """The values to fit with: searched on the training rows (all rows with --holdout 0)
    where not given."""
    tune_gamma = (not settings.strings) and searches_gamma(kernel)
    if settings.model == "ridge":
        name, fixed, grid = "alpha", settings.alpha, settings.cv_alphas or ALPHA_GRID
    else:
        name, fixed, grid = "C", settings.C, settings.cv_Cs or C_GRID
    grid = (fixed,) if fixed is not None else tuple(grid)
    if not tune_gamma and len(grid) == 1:
        how = f"set with --{name}" if fixed is not None else f"the one value of {WIDEN[name]}"
        return Search(values={name: grid[0]}, how=how)
    where = "training rows" if has_holdout else "rows"
    nystroem = None
    if settings.model == "ridge":
        if fixed == 0:
            raise ValueError("--alpha 0 leaves the search nothing to choose gamma with; "
                             "give --gamma as well, or an alpha > 0")
        if settings.solver == "falkon":  # the model fitted: GCV on every training row
            rows = train_idx
            nystroem = {"n_centers": settings.centers or "auto",
                        "random_state": settings.seed}
        else:
            rows = loo_rows(train_idx, settings.seed)
    else:
        rows = train_idx if len(train_idx) <= SEARCH_MAX_N else np.random.default_rng(
            settings.seed).choice(train_idx, SEARCH_MAX_N, replace=False)
    pre = _preprocessor(settings)
    Xt = X[rows] if pre is None else pre.fit_transform(X[rows])
    gammas = scale = None
    if tune_gamma:
        gammas, scale = gamma_grid(kernel, Xt)
        gammas = settings.cv_gammas or gammas
    if settings.model == "ridge":
        found = search_ridge(Xt, ridge_targets(y[rows], task), kernel, gammas, grid,
                             nystroem)
    else:
        found = search_classifier(settings.model, kernel, Xt, y[rows], gammas, grid,
                                  settings.seed)
    sub = f"all {len(rows)} {where}" if len(rows) == len(train_idx) else \
        f"a random {len(rows)} of the {len(train_idx)} {where}"
    seed = "" if settings.model == "ridge" and not nystroem else f", seed {settings.seed}"
    found.how, found.scale = f"{found.how} on {sub}{seed}", scale
    found.criterion = ("accuracy" if settings.model != "ridge" else
                       ("GCV" if nystroem else "LOO") + " RMSE" +
                       (" of the +-1 coding" if task == "classify" else ""))
    return found


def ridge_targets(y, task):
    """What leave-one-out predicts: the target, or the +-1 coding of the labels (one
    column per class beyond two), as ``KernelRidgeClassifier`` fits them."""
    if task == "classify":
        from sklearn.preprocessing import LabelBinarizer

        return LabelBinarizer(neg_label=-1, pos_label=1).fit_transform(y).astype(np.float64)
    return np.asarray(y, dtype=np.float64)


def _choice_notes(found, settings, edges):
    """One line per value: what it is, and how it was chosen."""
    notes = []
    criterion = "" if found.score is None else f", {found.criterion} {found.score:.6g}"
    searched = " x ".join(f"{len(g)} {n}s" for n, g in found.grids.items())
    for name, value in found.values.items():
        if name in found.grids:
            how = f"{found.how}, over {searched}{criterion}"
            if name == "gamma" and found.scale is not None:
                how += f"; gamma='scale' gives {found.scale:.4g} here"
            side = edges.get(name)
            if side is not None:
                how += (f"; the {side} value of its grid, the best may lie beyond: "
                        f"widen it with {WIDEN[name]}")
        else:
            how = found.how
        notes.append(f"{name}: {value:.4g} ({how})")
    if settings.gamma is not None:
        notes.insert(0, f"gamma: {settings.gamma:.4g} (set with --gamma)")
    return notes
