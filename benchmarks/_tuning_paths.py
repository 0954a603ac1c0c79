"""Paths: ``KernelSVCCV`` against ``GridSearchCV(SVC)`` and ``GridSearchCV(KernelSVC)``, and
``KernelLogisticRegressionCV`` against ``GridSearchCV(KernelLogisticRegression)``.

Adult (census income, 14 label-encoded columns standardised on the rows used), n = 5,000
and 10,000 rows drawn with seed 0 (``--quick``: 1,000). The same 5 x 5 grid and the same
folds for all three searches: C = 10^-1..10^3, RBF gamma = 4^k / d (k = -2..2), 3 folds
(``StratifiedKFold(3, shuffle=True, random_state=0)``), accuracy, refit on all rows.
Each timed once end to end (search + refit; a search is already 75 fits). Side by side:
seconds, the best mean CV accuracy, the chosen (C, gamma), and the time ratios.

Logistic (adult 2,000; ``--quick``: 500): 5 values of C (10^-1..10^3) x 3 gammas, the
same folds, ``KernelLogisticRegressionCV`` (Newton warm-started along C on one Gram
matrix per gamma) against ``GridSearchCV(KernelLogisticRegression)`` (solver "auto").
"""

from __future__ import annotations

import time
import warnings

import numpy as np

SEED = 0
CS = [0.1, 1.0, 10.0, 100.0, 1000.0]


def _gammas(d, ks=range(-2, 3)):
    return [4.0 ** k / d for k in ks]


def _adult(n):
    from kernelkit.datasets import load_shared_table

    X, y, _ = load_shared_table("adult")
    rows = np.random.default_rng(SEED).choice(len(y), n, replace=False)
    X = X[rows]
    return (X - X.mean(axis=0)) / X.std(axis=0), y[rows]


def _timed(fn):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # edge and convergence warnings: in the table instead
        out = fn()
    return time.perf_counter() - t0, out


def _svm_row(name, X, y):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from kernelkit.kernels import RBF
    from kernelkit.models import KernelSVC, KernelSVCCV

    gammas = _gammas(X.shape[1])
    folds = list(StratifiedKFold(3, shuffle=True, random_state=SEED).split(X, y))
    t_sk, sk = _timed(lambda: GridSearchCV(SVC(kernel="rbf"), {"C": CS, "gamma": gammas},
                                           cv=folds).fit(X, y))
    t_gs, gs = _timed(lambda: GridSearchCV(KernelSVC(RBF(gamma=1.0)),
                                           {"C": CS, "kernel__gamma": gammas},
                                           cv=folds).fit(X, y))
    t_cv, cv = _timed(lambda: KernelSVCCV(RBF(gamma=1.0), Cs=CS, param_grid={"gamma": gammas},
                                          cv=folds).fit(X, y))
    return {"data": name, "n": len(y),
            "sklearn_s": t_sk, "sklearn_score": sk.best_score_,
            "sklearn_best": f"C={sk.best_params_['C']:g} g={sk.best_params_['gamma']:.3g}",
            "gridsearch_kk_s": t_gs, "gridsearch_kk_score": gs.best_score_,
            "kk_cv_s": t_cv, "kk_cv_score": cv.best_score_,
            "kk_cv_best": f"C={cv.C_:g} g={cv.best_params_['gamma']:.3g}",
            "sklearn_over_cv": t_sk / t_cv, "gridsearch_kk_over_cv": t_gs / t_cv}


def _logistic_row(name, X, y):
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from kernelkit.kernels import RBF
    from kernelkit.models import KernelLogisticRegression, KernelLogisticRegressionCV

    gammas = _gammas(X.shape[1], (-1, 0, 1))
    folds = list(StratifiedKFold(3, shuffle=True, random_state=SEED).split(X, y))
    t_gs, gs = _timed(lambda: GridSearchCV(KernelLogisticRegression(RBF(gamma=1.0)),
                                           {"C": CS, "kernel__gamma": gammas},
                                           cv=folds).fit(X, y))
    t_cv, cv = _timed(lambda: KernelLogisticRegressionCV(
        RBF(gamma=1.0), Cs=CS, param_grid={"gamma": gammas}, cv=folds).fit(X, y))
    return {"data": name, "n": len(y), "gridsearch_kk_s": t_gs,
            "gridsearch_kk_score": gs.best_score_, "kk_cv_s": t_cv,
            "kk_cv_score": cv.best_score_,
            "kk_cv_best": f"C={cv.C_:g} g={cv.best_params_['gamma']:.3g}",
            "gridsearch_kk_over_cv": t_gs / t_cv}


def run(quick):
    from _common import print_table

    svm_rows = []
    for n in ((1000,) if quick else (5000, 10000)):
        X, y = _adult(n)
        svm_rows.append(_svm_row(f"adult {n // 1000}k", X, y))
    print("RBF SVM, 5 x 5 grid (C, gamma), 3 folds, accuracy; seconds end to end")
    print_table(svm_rows, [
        ("data", "data", ""), ("sklearn_s", "GridSearchCV(SVC) s", ".2f"),
        ("sklearn_score", "score", ".4f"), ("sklearn_best", "best", ""),
        ("gridsearch_kk_s", "GridSearchCV(KernelSVC) s", ".2f"),
        ("gridsearch_kk_score", "score", ".4f"),
        ("kk_cv_s", "KernelSVCCV s", ".2f"), ("kk_cv_score", "score", ".4f"),
        ("kk_cv_best", "best", ""), ("sklearn_over_cv", "SVC/CV", ".2f"),
        ("gridsearch_kk_over_cv", "GS(KernelSVC)/CV", ".2f")])
    n = 500 if quick else 2000
    X, y = _adult(n)
    logistic_rows = [_logistic_row(f"adult {n}", X, y)]
    print("\nKernel logistic regression, 5 x 3 grid (C, gamma), 3 folds, accuracy")
    print_table(logistic_rows, [
        ("data", "data", ""), ("gridsearch_kk_s", "GridSearchCV(KLR) s", ".2f"),
        ("gridsearch_kk_score", "score", ".4f"), ("kk_cv_s", "KernelLogisticRegressionCV s", ".2f"),
        ("kk_cv_score", "score", ".4f"), ("kk_cv_best", "best", ""),
        ("gridsearch_kk_over_cv", "GS/CV", ".2f")])
    return {"svm": svm_rows, "logistic": logistic_rows}
