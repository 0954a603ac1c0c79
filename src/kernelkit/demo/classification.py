"""Demo part "classification": kernel SVM and logistic regression on banana.

The banana data (2-D, two interleaved classes; bundled, via PMLB) is where a
linear classifier fails and kernels work. Exact SMO (:class:`KernelSVC`)
against scikit-learn's libsvm ``SVC`` at the same C and gamma (same
predictions, same dual objective), kernelised Pegasos (the lecture's
Algorithm 1), kernel logistic regression (L-BFGS in u-space, probabilities),
a linear SVM as the baseline, and the planner's explanation of how it would
learn this problem.
"""

from __future__ import annotations

import numpy as np

from ._common import fmt_time, table, timed

__all__ = ["part_classification", "format_classification"]

#: (train size) for the full and quick runs; the rest of the 5,300 points is the test set.
_BANANA_TRAIN = {False: 3000, True: 1000}
_SEED = 0
# On standardised inputs; a small grid check on the training set put the
# optimum near here, and the point of the part is the comparison, not the tuning.
_GAMMA, _C = 1.0, 1.0


def _acc_row(key, model, kernel, solver, n, fit_time, predict_time, y_true, y_pred, **extra):
    return {"key": key, "model": model, "kernel": kernel, "solver": solver, "n": int(n),
            "fit_time": None if fit_time is None else float(fit_time),
            "predict_time": None if predict_time is None else float(predict_time),
            "accuracy": float(np.mean(y_true == y_pred)), **extra}


def part_classification(settings):
    """Kernel SVM (SMO, Pegasos) and kernel logistic regression on banana."""
    from sklearn.svm import SVC

    from ..calibration import machine_rates
    from ..config import get_config
    from ..datasets import load_banana
    from ..kernels import RBF
    from ..models import KernelLogisticRegression, KernelSVC
    from ..planning import plan_sgd

    X, y = load_banana(return_X_y=True)
    rng = np.random.default_rng(_SEED)
    perm = rng.permutation(len(y))
    n_train = _BANANA_TRAIN[settings.quick]
    train, test = perm[:n_train], perm[n_train:]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    Xtr, Xte = (X[train] - mu) / sd, (X[test] - mu) / sd
    ytr, yte = y[train], y[test]
    kernel = RBF(gamma=_GAMMA)
    rows = []

    def run(key, label, model, solver):
        fitted, t_fit = timed(model.fit, Xtr, ytr)
        pred, t_pred = timed(fitted.predict, Xte)
        rows.append(_acc_row(key, label, repr(getattr(fitted, "kernel_", model.kernel)), solver,
                             n_train, t_fit, t_pred, yte, pred))
        return fitted, pred

    settings.say(f"classification: linear and RBF SVM (SMO) on {n_train} points")
    run("linear_svm", "linear SVM (baseline)", KernelSVC(kernel="linear", C=_C), "SMO")
    svc, pred_svc = run("svm", "kernel SVM", KernelSVC(kernel=kernel, C=_C), "SMO")
    sk, pred_sk = run("sklearn_svc", "sklearn SVC (reference)",
                      SVC(kernel="rbf", gamma=_GAMMA, C=_C), "libsvm")
    rows[-1]["kernel"] = f"rbf, gamma={_GAMMA:g}"
    # libsvm's dual objective from its coefficients: sum|a| - 1/2 (a y)' K (a y).
    coef = sk.dual_coef_[0]
    sv = Xtr[sk.support_]
    sk_dual = float(np.abs(coef).sum() - 0.5 * coef @ kernel(sv) @ coef)
    ours_dual = float(svc.dual_objective_[0])

    settings.say("classification: kernelised Pegasos and kernel logistic regression")
    run("pegasos", "kernel SVM, Pegasos (T = 10 n)",
        KernelSVC(kernel=kernel, C=_C, solver="pegasos", n_iter=10 * n_train,
                  random_state=_SEED), "Pegasos")
    logit, _ = run("logistic", "kernel logistic regression",
                   KernelLogisticRegression(kernel=kernel, C=_C), "L-BFGS")
    proba = logit.predict_proba(Xte)
    log_loss = float(-np.mean(np.log(np.clip(
        proba[np.arange(len(yte)), np.searchsorted(logit.classes_, yte)], 1e-300, None))))

    explanation = plan_sgd(n_train, X.shape[1], kernel, "hinge", memory=get_config()["memory"],
                           rates=machine_rates(), include_exact=True).explain()
    return {
        "name": "classification",
        "title": "Kernel SVM and kernel logistic regression on banana",
        "dataset": {"name": "banana", "credit": "banana benchmark (Raetsch), via PMLB",
                    "n_samples": int(len(y)), "n_features": int(X.shape[1]),
                    "n_train": int(n_train), "n_test": int(len(test)), "split_seed": _SEED},
        "params": {"gamma": _GAMMA, "C": _C},
        "models": rows,
        "checks": {
            "svm_same_predictions_as_sklearn": float(np.mean(pred_svc == pred_sk)),
            "dual_objective": ours_dual, "sklearn_dual_objective": sk_dual,
            "dual_objective_rel_diff": abs(ours_dual - sk_dual) / abs(sk_dual),
            "n_support": int(len(svc.support_)), "sklearn_n_support": int(len(sk.support_)),
            "logistic_test_log_loss": log_loss,
        },
        "plan": {"problem": "hinge loss, RBF kernel", "explanation": explanation},
    }


def format_classification(part, temporary):
    ds, chk, prm = part["dataset"], part["checks"], part["params"]
    lines = [f"Data: {ds['name']}, {ds['n_samples']} x {ds['n_features']}, {ds['credit']}.",
             f"Split: {ds['n_train']} train / {ds['n_test']} test (seed {ds['split_seed']}); "
             f"inputs standardised; C = {prm['C']:g}, gamma = {prm['gamma']:g}.", ""]
    lines += table(part["models"], [
        ("model", "model", str), ("kernel", "kernel", str), ("solver", "solver", str),
        ("n", "n", lambda v: f"{v}"), ("fit time", "fit_time", fmt_time),
        ("predict", "predict_time", fmt_time), ("accuracy", "accuracy", lambda v: f"{v:.4f}"),
    ])
    lines += [
        "",
        f"Kernel SVM vs scikit-learn: {100 * chk['svm_same_predictions_as_sklearn']:.2f}% same "
        f"test predictions; dual objective {chk['dual_objective']:.6g} vs "
        f"{chk['sklearn_dual_objective']:.6g} (relative difference "
        f"{chk['dual_objective_rel_diff']:.1e}); {chk['n_support']} vs "
        f"{chk['sklearn_n_support']} support vectors.",
        f"Kernel logistic regression: test log-loss {chk['logistic_test_log_loss']:.4f}.",
        "",
        f"Planner for this problem ({part['plan']['problem']}):",
    ]
    lines += ["  " + ln for ln in part["plan"]["explanation"].splitlines()]
    return lines
