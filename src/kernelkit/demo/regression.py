"""Demo part "regression": exact kernel ridge on the CPU-activity data.

Exact kernel ridge on the CPU-activity data (DELVE comp-activ, via PMLB;
:func:`kernelkit.datasets.load_cpu_act`) against a linear ridge,
scikit-learn's ``Ridge``, a degree-2 polynomial kernel and scikit-learn's
``KernelRidge``; the RBF kernel's gamma and alpha chosen by exact
leave-one-out (:class:`~kernelkit.models.KernelRidgeCV`) on a subsample,
then refitted exactly on the whole training set, saved with
:func:`kernelkit.save` and reloaded with :func:`kernelkit.load`.
"""

from __future__ import annotations

import numpy as np

from ._common import fmt_bytes, fmt_time, result_row, table, timed

__all__ = ["part_regression", "format_regression"]

#: Sizes of the regression part: (train, LOO subsample) for the full and quick runs.
#: The test set is the same 2,192 points in both.
_CPU_SIZES = {False: (6000, 1500), True: (2000, 500)}
_CPU_TEST = 2192
_CPU_SEED = 0
# LOO grid on standardised inputs: with 21 features gamma ~ 1/21 is the usual
# starting point; on this data the optimum lies lower, inside this grid.
_RBF_GAMMAS = (0.001, 0.003, 0.01, 0.03)  # the LOO optimum, 0.003, inside the grid
_RBF_ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1)
# Fixed ridge for the linear and polynomial baselines (standardised scale):
# with n >> D they are insensitive to it.
_BASELINE_ALPHA = 1.0


def part_regression(settings):
    """Exact kernel ridge regression on CPU activity, against baselines and scikit-learn."""
    from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
    from sklearn.linear_model import Ridge

    from ..datasets import load_cpu_act
    from ..models import KernelRidge, KernelRidgeCV
    from ..persistence import load, save

    n_train, n_sub = _CPU_SIZES[settings.quick]
    X, y = load_cpu_act(return_X_y=True)
    # One fixed random split: the last 2,192 points of a seeded permutation are
    # the test set in both the quick and the full run.
    rng = np.random.default_rng(_CPU_SEED)
    perm = rng.permutation(len(y))
    train, test = perm[:n_train], perm[-_CPU_TEST:]
    # Standardise with training statistics only; y too, so that one alpha grid
    # suits the data. Errors are reported on the original scale (% user time).
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    sd[sd == 0] = 1.0
    y_mu, y_sd = y[train].mean(), y[train].std()
    Xtr, Xte = (X[train] - mu) / sd, (X[test] - mu) / sd
    ytr, yte = (y[train] - y_mu) / y_sd, y[test]

    def unscale(pred):
        return pred * y_sd + y_mu

    rows = []
    rows.append(result_row("mean", "training mean (no model)", "-", "-", n_train, None, yte,
                     np.full(len(yte), y_mu)))

    settings.say(f"regression: linear and polynomial ridge on {n_train} points")
    linear, t = timed(KernelRidge(kernel="linear", alpha=_BASELINE_ALPHA).fit, Xtr, ytr)
    pred_linear = linear.predict(Xte)
    rows.append(result_row("linear", "linear ridge", repr(linear.kernel_), linear.solver_, n_train, t,
                     yte, unscale(pred_linear)))
    # X and y are centred, so Ridge without intercept is the same model.
    ridge, t = timed(Ridge(alpha=_BASELINE_ALPHA, fit_intercept=False).fit, Xtr, ytr)
    pred_ridge = ridge.predict(Xte)
    rows.append(result_row("sklearn_ridge", "sklearn Ridge (reference)", "linear", "sklearn", n_train, t,
                     yte, unscale(pred_ridge)))
    poly, t = timed(KernelRidge(kernel="poly(degree=2)", alpha=_BASELINE_ALPHA).fit, Xtr, ytr)
    rows.append(result_row("poly", "polynomial ridge", repr(poly.kernel_), poly.solver_, n_train, t,
                     yte, unscale(poly.predict(Xte))))

    settings.say(f"regression: leave-one-out selection of gamma and alpha on {n_sub} points")
    sub = rng.choice(n_train, size=n_sub, replace=False)
    cv = KernelRidgeCV(kernel="rbf", alphas=_RBF_ALPHAS, param_grid={"gamma": list(_RBF_GAMMAS)})
    cv, t = timed(cv.fit, Xtr[sub], ytr[sub])
    rows.append(result_row("rbf_cv", "RBF ridge, LOO search+fit", repr(cv.kernel_), "dual (eigh)", n_sub,
                     t, yte, unscale(cv.predict(Xte))))

    settings.say(f"regression: exact RBF kernel ridge on {n_train} points")
    rbf, t = timed(KernelRidge(kernel=cv.kernel_, alpha=cv.alpha_, solver="dual").fit, Xtr, ytr)
    pred_rbf = rbf.predict(Xte)
    rows.append(result_row("rbf", "RBF ridge, refitted", repr(rbf.kernel_), rbf.solver_, n_train, t,
                     yte, unscale(pred_rbf)))
    gamma = float(cv.kernel_.gamma)
    sk = SklearnKernelRidge(kernel="rbf", gamma=gamma, alpha=cv.alpha_)
    sk, t = timed(sk.fit, Xtr, ytr)
    pred_sk = sk.predict(Xte)
    rows.append(result_row("sklearn_rbf", "sklearn KernelRidge (reference)", f"rbf, gamma={gamma:g}",
                     "sklearn", n_train, t, yte, unscale(pred_sk)))

    settings.say("regression: save, reload, compare")
    path = settings.out_dir / "cpu_act_rbf.kk"
    save(rbf, path)
    reloaded = load(path)
    identical = bool(np.array_equal(reloaded.predict(Xte), pred_rbf))

    loo_rmse = float(np.sqrt(cv.best_score_)) * float(y_sd)
    return {
        "name": "regression",
        "title": "Exact kernel ridge regression on CPU activity",
        "dataset": {
            "name": "cpu_act", "credit": "comp-activ (DELVE), via PMLB",
            "n_samples": int(len(y)), "n_features": int(X.shape[1]),
            "n_train": int(n_train), "n_test": int(len(test)), "split_seed": _CPU_SEED,
            "preprocessing": "X and y standardised with training statistics; "
                             "RMSE and R^2 on the original scale (% CPU time in user mode)",
            "target_std": float(y_sd),
        },
        "models": rows,
        "selection": {
            "n": int(n_sub), "gammas": list(_RBF_GAMMAS), "alphas": list(_RBF_ALPHAS),
            "gamma": gamma, "alpha": float(cv.alpha_), "loo_rmse": loo_rmse,
        },
        "baseline_alpha": _BASELINE_ALPHA,
        "checks": {
            "linear_vs_sklearn_ridge": float(np.max(np.abs(pred_linear - pred_ridge))),
            "rbf_vs_sklearn_kernel_ridge": float(np.max(np.abs(pred_rbf - pred_sk))),
        },
        "plan": {"model": "polynomial ridge", "explanation": poly.plan_.explain()},
        "persistence": {
            "path": str(path), "file_size": int(path.stat().st_size),
            "identical": identical,
        },
    }


def format_regression(part, temporary):
    ds, sel, chk, per = part["dataset"], part["selection"], part["checks"], part["persistence"]
    lines = [
        f"Data: {ds['name']}, {ds['n_samples']} x {ds['n_features']}, {ds['credit']}.",
        f"Split: {ds['n_train']} train / {ds['n_test']} test (seed {ds['split_seed']}); "
        f"sd of y = {ds['target_std']:.2f}.",
        f"{ds['preprocessing'][0].upper()}{ds['preprocessing'][1:]}.",
        "",
    ]
    lines += table(part["models"], [
        ("model", "model", str), ("kernel", "kernel", str), ("solver", "solver", str),
        ("n", "n", lambda v: f"{v}"), ("fit time", "fit_time", fmt_time),
        ("test RMSE", "test_rmse", lambda v: f"{v:.3f}"), ("R^2", "r2", lambda v: f"{v:.4f}"),
    ])
    lines += [
        "",
        f"Linear and polynomial ridge use alpha = {part['baseline_alpha']:g} (standardised scale).",
        f"RBF gamma and alpha chosen by exact leave-one-out on {sel['n']} training points",
        f"  over gamma in {sel['gammas']} x alpha in {sel['alphas']}:",
        f"  gamma = {sel['gamma']:g}, alpha = {sel['alpha']:g} (LOO RMSE {sel['loo_rmse']:.3f}); "
        f"refitted on all {ds['n_train']} training points.",
        "Agreement with scikit-learn, max |prediction difference| (standardised scale):",
        f"  linear ridge vs Ridge {chk['linear_vs_sklearn_ridge']:.1e}, "
        f"RBF ridge vs KernelRidge {chk['rbf_vs_sklearn_kernel_ridge']:.1e}.",
        "",
        f"Planner for the {part['plan']['model']} (model.plan_.explain()):",
    ]
    lines += ["  " + ln for ln in part["plan"]["explanation"].splitlines()]
    where = "a temporary directory" if temporary else per["path"]
    lines += [
        "",
        f"Saved the refitted RBF model to {where}: {fmt_bytes(per['file_size'])}"
        f" ({per['file_size']} bytes).",
        "reloaded: predictions identical" if per["identical"]
        else "reloaded: PREDICTIONS DIFFER from the original model",
    ]
    return lines
