"""Demo part "scale": when the exact n x n system is too big, approximate.

California housing (20,640 block groups, bundled; :func:`kernelkit.datasets.
load_california_housing`). The exact kernel ridge system on the training set
needs its n x n Gram matrix; under a small memory budget (as on a laptop
running other work, or on much larger data) it does not fit, so the planner
(:func:`kernelkit.planning.plan_ridge`) picks Nystroem kernel ridge solved by
preconditioned conjugate gradient (Falkon) and says why, as a table of
predicted costs. The part then compares, on the same split, the exact solve
(outside the small budget), Falkon, random Fourier features + ridge and
Nystroem features + ridge, and shows the planner's table for a million points.
"""

from __future__ import annotations

import numpy as np

from ._common import fmt_time, result_row, table, timed

__all__ = ["part_scale", "format_scale"]

#: Training points for the full and quick runs; the test set is the last 4,128
#: points of a seeded permutation in both.
_TRAIN = {False: 10000, True: 3000}
_TEST = 4128
_SEED = 0
# On standardised inputs and targets; gamma = 0.5 and alpha = 0.1 are the values of
# benchmarks/krr.py (a reasonable point, not tuned for this part).
_GAMMA, _ALPHA = 0.5, 0.1
#: Size of every approximation: Nystroem centers and random features.
_M = {False: 2000, True: 500}
#: The memory budget of the part: small enough that the exact Gram matrix of the
#: full run (10,000^2 x 8 bytes = 0.8 GB; quick: 3,000^2 x 8 = 72 MB) does not fit.
_BUDGET = {False: "512MB", True: "48MB"}
_BIG_N = 1_000_000


def part_scale(settings):
    """Exact kernel ridge vs Falkon, random Fourier and Nystroem features on California housing."""
    from ..calibration import machine_rates
    from ..config import config_context, get_config
    from ..datasets import load_california_housing
    from ..features import Nystroem, RandomFourierFeatures
    from ..kernels import RBF
    from ..models import KernelRidge
    from ..planning import plan_ridge

    n_train, M, budget_text = _TRAIN[settings.quick], _M[settings.quick], _BUDGET[settings.quick]
    X, y = load_california_housing(return_X_y=True)
    rng = np.random.default_rng(_SEED)
    perm = rng.permutation(len(y))
    train, test = perm[:n_train], perm[-_TEST:]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    y_mu, y_sd = y[train].mean(), y[train].std()
    Xtr, Xte = (X[train] - mu) / sd, (X[test] - mu) / sd
    ytr, yte = (y[train] - y_mu) / y_sd, y[test]
    kernel = RBF(gamma=_GAMMA)
    rows = []

    def add(key, label, model, solver, n, t_fit, pred):
        row = result_row(key, label, repr(kernel), solver, n, t_fit, yte, pred * y_sd + y_mu)
        rows.append(row)
        return row

    settings.say(f"scale: planning and fitting kernel ridge on {n_train} points "
                 f"with a {budget_text} memory budget")
    with config_context(memory=budget_text):
        budget = get_config()["memory"]
        auto = KernelRidge(kernel=kernel, alpha=_ALPHA, n_centers=M, random_state=_SEED)
        auto, t = timed(auto.fit, Xtr, ytr)
        pred_auto = auto.predict(Xte)
    add("auto", f"KernelRidge(solver='auto'), {budget_text} budget", auto,
        f"{auto.solver_} (M={M})", n_train, t, pred_auto)

    settings.say(f"scale: exact kernel ridge on {n_train} points (default budget)")
    exact, t = timed(KernelRidge(kernel=kernel, alpha=_ALPHA, solver="dual").fit, Xtr, ytr)
    pred_exact = exact.predict(Xte)
    add("exact", "exact kernel ridge (reference)", exact, "dual (Cholesky)", n_train, t,
        pred_exact)

    settings.say(f"scale: random Fourier and Nystroem features (D = M = {M})")
    for key, label, fmap in (
            ("rff", "random Fourier features + ridge",
             RandomFourierFeatures(kernel, n_components=M, random_state=_SEED)),
            ("nystroem", "Nystroem features + ridge",
             Nystroem(kernel, n_components=M, random_state=_SEED))):
        def fit_features(fmap=fmap):
            Z = fmap.fit_transform(Xtr)
            return KernelRidge(kernel="linear", alpha=_ALPHA, solver="primal").fit(Z, ytr)

        model, t = timed(fit_features)
        add(key, label, model, f"primal, D={M}", n_train, t, model.predict(fmap.transform(Xte)))

    rates = machine_rates()
    here = plan_ridge(n_train, X.shape[1], memory=budget, rates=rates, n_centers=M)
    big = plan_ridge(_BIG_N, X.shape[1], memory=get_config()["memory"], rates=rates,
                     n_centers=10 * M)
    exact_rmse = rows[1]["test_rmse"]
    return {
        "name": "scale",
        "title": "Kernel ridge at scale on California housing: the planner picks Falkon",
        "dataset": {"name": "california_housing",
                    "credit": "California housing (Pace & Barry 1997), via StatLib/PMLB",
                    "n_samples": int(len(y)), "n_features": int(X.shape[1]),
                    "n_train": int(n_train), "n_test": int(len(test)), "split_seed": _SEED,
                    "preprocessing": "X and y standardised with training statistics; RMSE in "
                                     "dollars"},
        "params": {"gamma": _GAMMA, "alpha": _ALPHA, "n_centers": M, "budget": budget_text,
                   "exact_gram_bytes": 8.0 * n_train * n_train},
        "models": rows,
        "checks": {
            "auto_solver": auto.solver_,
            "falkon_rmse_vs_exact": rows[0]["test_rmse"] / exact_rmse - 1.0,
            "falkon_iterations": int(getattr(auto, "n_iter_", 0) or 0),
        },
        "plan": {"here": here.explain(), "big_n": _BIG_N, "big": big.explain()},
    }


def format_scale(part, temporary):
    ds, prm, chk = part["dataset"], part["params"], part["checks"]
    gb = prm["exact_gram_bytes"] / 1024**3
    lines = [f"Data: {ds['name']}, {ds['n_samples']} x {ds['n_features']}, {ds['credit']}.",
             f"Split: {ds['n_train']} train / {ds['n_test']} test (seed {ds['split_seed']}); "
             f"{ds['preprocessing']}.",
             f"RBF gamma = {prm['gamma']:g}, alpha = {prm['alpha']:g}; approximations use "
             f"M = D = {prm['n_centers']}.", ""]
    lines += table(part["models"], [
        ("model", "model", str), ("solver", "solver", str), ("n", "n", lambda v: f"{v}"),
        ("fit time", "fit_time", fmt_time), ("test RMSE", "test_rmse", lambda v: f"{v:,.0f}"),
        ("R^2", "r2", lambda v: f"{v:.4f}")])
    lines += [
        "",
        f"The exact Gram matrix needs {gb:.1f} GB; under a {prm['budget']} budget the planner "
        f"chose {chk['auto_solver']!r}",
        f"  ({chk['falkon_iterations']} CG iterations); its test RMSE is "
        f"{100 * chk['falkon_rmse_vs_exact']:+.1f}% from the exact solve's.",
        "",
        f"Planner, this problem under the {prm['budget']} budget:",
    ]
    lines += ["  " + ln for ln in part["plan"]["here"].splitlines()]
    lines += ["", f"Planner, the same problem with n = {part['plan']['big_n']:,} "
                  "(default budget):"]
    lines += ["  " + ln for ln in part["plan"]["big"].splitlines()]
    return lines
