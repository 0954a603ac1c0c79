"""Untuned: kernelkit's default estimators behind a ``StandardScaler`` against
scikit-learn's defaults, nothing tuned on either side.

Classification (accuracy): ``make_pipeline(StandardScaler(), KernelSVC())`` against
the same pipeline with ``SVC()`` (both RBF, gamma="scale", C=1), and kernelkit's
``KernelRidgeClassifier()`` beside them, on breast cancer, digits, wine
(scikit-learn's bundled copies) and magic 10k (the shared data folder; a random 10,000
of its 19,020 rows). Regression (test RMSE): ``KernelSVR()`` and ``KernelRidge()``
(RBF, gamma="scale", alpha=1, intercept) against ``SVR()`` (scikit-learn's
KernelRidge defaults to a linear kernel and has no intercept, so SVR is the
reference) on diabetes and California housing 5k (target in units of $100,000, so
that SVR's default epsilon=0.1 means the same for everyone).

One 70/30 split per set (seed 0, stratified for classes). Times are fit + predict
of the whole pipeline, alternating peer and kernelkit, median of the repeats
(``--quick``: small sets, one repeat). ``gamma`` is the value each side resolved.
"""

from __future__ import annotations

import numpy as np

SEED = 0


def _classification_sets(quick):
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    from kernelkit.datasets import load_shared_table

    sets = [("breast cancer", *load_breast_cancer(return_X_y=True)),
            ("wine", *load_wine(return_X_y=True))]
    if not quick:
        sets.insert(1, ("digits", *load_digits(return_X_y=True)))
    X, y, _ = load_shared_table("magic")
    rows = np.random.default_rng(SEED).choice(len(y), 1500 if quick else 10000, replace=False)
    sets.append(("magic 1.5k" if quick else "magic 10k", X[rows], y[rows]))
    return sets


def _regression_sets(quick):
    from sklearn.datasets import load_diabetes

    from kernelkit.datasets import load_california_housing

    sets = [("diabetes", *load_diabetes(return_X_y=True))]
    X, y = load_california_housing(return_X_y=True)
    rows = np.random.default_rng(SEED).choice(len(y), 1000 if quick else 5000, replace=False)
    sets.append(("california 1k" if quick else "california 5k", X[rows], y[rows] / 1e5))
    return sets


def _split(X, y, classes):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.3, random_state=SEED,
                            stratify=y if classes else None)


def _gamma(model):
    est = model[-1]
    if hasattr(est, "kernel_"):
        return float(est.kernel_.gamma_value)
    return float(est._gamma)


def _run_set(name, X, y, models, classes, repeats):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from _common import alternate

    Xa, Xb, ya, yb = _split(X, y, classes)

    def job(make):
        def fit_predict():
            model = make_pipeline(StandardScaler(), make()).fit(Xa, ya)
            return model, model.predict(Xb)
        return fit_predict

    runs = alternate({label: job(make) for label, make in models.items()}, repeats)
    rows = []
    for label, rec in runs.items():
        model, pred = rec["result"]
        if classes:
            quality = float(np.mean(pred == yb))
        else:
            quality = float(np.sqrt(np.mean((pred - yb) ** 2)))
        rows.append({"set": name, "n_train": len(ya), "d": X.shape[1], "model": label,
                     "quality": quality, "seconds": rec["median"], "gamma": _gamma(model)})
    ref = rows[0]["quality"]
    for row in rows:  # > 0: better than scikit-learn's default
        row["vs_sklearn"] = (row["quality"] - ref) if classes else (ref - row["quality"]) / ref
    return rows


def run(quick):
    """Print and return the tables (accuracy, and RMSE, next to time)."""
    import warnings

    from sklearn.svm import SVC, SVR

    from _common import print_table
    from kernelkit import KernelRidge, KernelRidgeClassifier, KernelSVC, KernelSVR

    repeats = 1 if quick else 3
    classify, regress = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning would show in the table's figures
        for name, X, y in _classification_sets(quick):
            classify += _run_set(name, X, y, {"SVC()": SVC, "KernelSVC()": KernelSVC,
                                              "KernelRidgeClassifier()": KernelRidgeClassifier},
                                 True, repeats)
        for name, X, y in _regression_sets(quick):
            regress += _run_set(name, X, y, {"SVR()": SVR, "KernelSVR()": KernelSVR,
                                             "KernelRidge()": KernelRidge}, False, repeats)
    print("classification: test accuracy, behind StandardScaler, nothing tuned")
    print_table(classify, [("set", "set", ""), ("n_train", "n train", "d"), ("d", "d", "d"),
                           ("model", "model", ""), ("quality", "accuracy", ".4f"),
                           ("vs_sklearn", "vs SVC()", "+.4f"), ("seconds", "fit+predict s", ".3f"),
                           ("gamma", "gamma", ".4g")])
    print("\nregression: test RMSE, behind StandardScaler, nothing tuned "
          "(vs SVR(): relative RMSE gain)")
    print_table(regress, [("set", "set", ""), ("n_train", "n train", "d"), ("d", "d", "d"),
                          ("model", "model", ""), ("quality", "RMSE", ".4g"),
                          ("vs_sklearn", "vs SVR()", "+.2%"), ("seconds", "fit+predict s", ".3f"),
                          ("gamma", "gamma", ".4g")])
    return {"classification": classify, "regression": regress}
