"""What ``kernelkit fit`` builds: a model a statistician would accept by default.

Defaults, each printed by the command: columns standardised (a ``StandardScaler``
stored in the model file, so ``predict`` applies it); for regression the target
centred (``fit_intercept``); the task inferred from the target (labels that are
text, or few distinct integers, mean classification); an RBF kernel with
``gamma = 1 / n_features`` on the standardised columns (scikit-learn's
``gamma="scale"``); ``alpha`` chosen by exact leave-one-out where the exact solve is
cheap, else on a hold-out split; and validation figures next to the training ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FitSettings", "infer_task", "build_and_fit", "ALPHA_GRID", "LOO_MAX_N"]

#: Candidate penalties when --alpha is not given.
ALPHA_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
#: Exact leave-one-out (one n x n eigendecomposition) up to this many rows.
LOO_MAX_N = 4000
#: At most this many distinct integer values make an integer target a class label.
MAX_CLASSES = 20


@dataclass
class FitSettings:
    task: str = "auto"
    kernel: object = None
    alpha: float | None = None
    cv_alphas: tuple | None = None
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


def _estimator(settings, task, kernel, alpha, fit_intercept=True):
    from ..models import KernelRidge, KernelRidgeClassifier

    kw = dict(kernel=kernel, alpha=alpha, solver=settings.solver, random_state=settings.seed)
    if settings.centers is not None:
        kw["n_centers"] = settings.centers
    cls = KernelRidgeClassifier if task == "classify" else KernelRidge
    if "fit_intercept" in cls().get_params():
        kw["fit_intercept"] = fit_intercept
    return cls(**kw)


def _pipeline(settings, estimator):
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if settings.strings:
        return Pipeline([("model", estimator)])
    if settings.onehot is not None:
        return Pipeline([("columns", onehot_columns(settings)), ("model", estimator)])
    steps = ([("scale", StandardScaler())] if settings.scale else []) + [("model", estimator)]
    return Pipeline(steps)


def onehot_columns(settings):
    """The ColumnTransformer of ``--onehot``: text columns one-hot encoded (categories
    unseen at fit give all-zero columns), the numeric ones standardised (or passed
    through with --no-scale)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    text, numeric = list(settings.onehot), list(settings.numeric_columns)
    parts = [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), text)]
    if numeric:
        parts.append(("scale", StandardScaler() if settings.scale else "passthrough", numeric))
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
        ``task``, ``kernel``, ``alpha``, ``alpha_choice``, ``train_score``,
        ``validation_score`` (and how it was measured), ``notes``.
    """
    from ..kernels import RBF

    task, why_task = infer_task(y, settings.task)
    if task == "classify":
        n_classes = len(np.unique(y))
        if n_classes > max(MAX_CLASSES, len(y) // 10):
            raise ValueError(f"the target has {n_classes} distinct values for {len(y)} rows: "
                             "too many classes for classification; if it is a number written "
                             "as text, fix the file, or pass --task regress")
    notes = [f"task: {task} ({why_task})"]
    n, d = len(X), (1 if settings.strings else X.shape[1])
    if settings.onehot is not None:
        d = onehot_columns(settings).fit(X).transform(X[:1]).shape[1]
        notes.append(f"{len(settings.onehot)} text column(s) one-hot encoded (OneHotEncoder, "
                     f"handle_unknown='ignore', stored in the model file): {d} columns in all")
    if settings.scale and not settings.strings:
        notes.append(("numeric " if settings.onehot is not None else "") +
                     "columns standardised (StandardScaler, stored in the model file)")
    kernel = settings.kernel
    if kernel is None:
        kernel = RBF(gamma=1.0 / d)
        notes.append(f"kernel: RBF(gamma=1/{d}) (scikit-learn's gamma='scale' on standardised "
                     "columns; set --kernel to choose)")
    report = {"task": task, "kernel": repr(kernel), "n": n, "d": d}
    train_idx, val_idx = _split(n, settings.holdout, settings.seed)
    exact = settings.solver in ("auto", "dual") and n <= LOO_MAX_N
    held_out = f"hold-out {len(val_idx)} of {n} rows (seed {settings.seed})"
    report["validation_score"] = None
    if settings.alpha is not None:
        alpha, how = settings.alpha, "set with --alpha"
    elif task == "regress" and exact:
        alpha, how = _alpha_by_loo(X, y, kernel, settings)
    elif task == "regress" and settings.solver in ("auto", "dual"):
        # beyond LOO_MAX_N: leave-one-out on a random LOO_MAX_N of the training rows (one
        # 4000 x 4000 eigendecomposition instead of one fit per alpha at full size; the
        # hold-out rows stay out of the choice, so their figure is honest)
        rows = np.random.default_rng(settings.seed).choice(train_idx, LOO_MAX_N, replace=False) \
            if len(train_idx) > LOO_MAX_N else train_idx
        alpha, how = _alpha_by_loo(X[rows], y[rows], kernel, settings)
        how += f", on {len(rows)} random training rows (the hold-out rows not among them)"
    elif len(val_idx):
        alpha, how, best = _alpha_by_holdout(X, y, kernel, settings, task, train_idx, val_idx)
        report["validation_score"] = best
        report["validation"] = held_out + ", also used to choose alpha (optimistic)"
    else:
        alpha, how = 1e-3, "default 1e-3 (no hold-out rows to choose with: --holdout 0)"
    notes.append(f"alpha: {alpha:g} ({how})")
    report.update(alpha=alpha, alpha_choice=how)
    if len(val_idx) and report["validation_score"] is None:
        held = _pipeline(settings, _estimator(settings, task, kernel, alpha))
        held.fit(X[train_idx], y[train_idx])
        report["validation_score"] = score(task, y[val_idx], held.predict(X[val_idx]))
        report["validation"] = held_out
    model = _pipeline(settings, _estimator(settings, task, kernel, alpha)).fit(X, y)
    final = model[-1]
    plan = getattr(final, "plan_", None)
    if plan is not None and settings.solver == "auto":
        notes.append(f"solver: {plan.choice} (planner: {plan.reason})")
    report["train_score"] = score(task, y, model.predict(X))
    report["notes"] = notes
    return model, report


def _alpha_by_loo(X, y, kernel, settings):
    from ..models import KernelRidgeCV

    alphas = settings.cv_alphas or ALPHA_GRID
    cv = _pipeline(settings, KernelRidgeCV(kernel=kernel, alphas=alphas)).fit(X, y - y.mean())
    best = float(cv[-1].alpha_)
    return best, (f"exact leave-one-out over {len(alphas)} values, LOO RMSE "
                  f"{np.sqrt(cv[-1].best_score_):.6g}")


def _alpha_by_holdout(X, y, kernel, settings, task, train_idx, val_idx):
    alphas = settings.cv_alphas or ALPHA_GRID
    scores = []
    for alpha in alphas:
        est = _pipeline(settings, _estimator(settings, task, kernel, alpha))
        est.fit(X[train_idx], y[train_idx])
        scores.append(score(task, y[val_idx], est.predict(X[val_idx])))
    best = int(np.argmax(scores) if task == "classify" else np.argmin(scores))
    return float(alphas[best]), f"hold-out over {len(alphas)} values", scores[best]
