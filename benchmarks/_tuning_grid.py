"""Grid robustness (issue 20, item 4): each solver's time and iterations along its
penalty grid, where a hyperparameter search spends its time.

Question: over alpha in 1e-6..10 (C in 1e-2..1e4), does each solver's time stay
within 5x of its fastest point, and does it converge (or warn)?

Data (not timed): cpu_act (regression, 21 columns standardised, the target as
published) and banana (2-D binary classification), the first n rows (n = 2,000;
``--quick``: 400); for Falkon on rank-deficient K_MM, rows drawn from 40
distinct points (each repeated, like KDD Cup 99; n = 20,000, M = 1,000 distinct
centers; ``--quick``: 4,000 and 300) and cpu_act with uniform centers.
Estimators: KernelRidge (dual, primal with a degree-2 polynomial kernel,
falkon), KernelMachine(Classifier) with each loss (squared, huber, logistic,
squared_hinge by Newton; huber, hinge by SGD), KernelLogisticRegression
("auto": L-BFGS in K's eigenbasis up to n = 1,000; and Newton),
KernelSVC, KernelSVR (SMO along C) and KitchenSinksRegressor (along C).
Every fit once (a table of where time explodes, not a race): time, iterations
(``n_iter_``, summed over binary problems), whether a ConvergenceWarning was
raised, and the objective where the estimator keeps one. The last column of
the summary is each solver's slowest time over its fastest (target <= 5).

Run through ``python benchmarks/tuning.py [--quick] --part grid``.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelRidge, KernelSVC, KernelSVR, KitchenSinksRegressor)

ALPHAS = (1e-6, 1e-4, 1e-2, 1.0, 10.0)
CS = (1e-2, 1.0, 1e2, 1e4)
RBF_REG, RBF_CLF = "rbf(gamma=0.05)", "rbf(gamma=0.5)"


def _regression(n):
    X, y = load_cpu_act(return_X_y=True)
    X, y = np.asarray(X, float)[:n], np.asarray(y, float)[:n]
    return (X - X.mean(0)) / X.std(0), y


def _classification(n):
    X, y = load_banana(return_X_y=True)
    return np.asarray(X, float)[:n], np.asarray(y)[:n]


def _repeated_rows(n, distinct=40, d=5, seed=0):
    """n rows drawn (unevenly) from ``distinct`` points: a rank-deficient K_MM."""
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(distinct, d))
    share = rng.dirichlet(np.full(distinct, 0.3))
    X = points[rng.choice(distinct, size=n, p=share)]
    return X, np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=n)


def _cases(quick):
    n = 400 if quick else 2000
    Xr, yr = _regression(n)
    Xc, yc = _classification(n)
    n_rep, m_rep = (4000, 300) if quick else (20000, 1000)
    Xd, yd = _repeated_rows(n_rep)
    m_uni = 100 if quick else 500
    alpha = [("alpha", a) for a in ALPHAS]
    c = [("C", v) for v in CS]
    return [
        ("KernelRidge dual", alpha, lambda a: KernelRidge(RBF_REG, alpha=a, solver="dual"),
         Xr, yr),
        ("KernelRidge primal (poly 2)", alpha,
         lambda a: KernelRidge("poly(degree=2, gamma=0.05, coef0=1)", alpha=a,
                               solver="primal"), Xr, yr),
        ("KernelRidge falkon uniform", alpha,
         lambda a: KernelRidge(RBF_REG, alpha=a, solver="falkon", n_centers=m_uni,
                               random_state=0), Xr, yr),
        ("KernelRidge falkon distinct (repeated rows)", alpha,
         lambda a: KernelRidge("rbf(gamma=0.5)", alpha=a, solver="falkon", n_centers=m_rep,
                               center_selection="distinct", random_state=0), Xd, yd),
        *[(f"KernelMachine {loss} newton", alpha,
           lambda a, loss=loss: KernelMachine(RBF_REG, loss=loss, alpha=a, solver="newton"),
           Xr, yr) for loss in ("squared", "huber")],
        ("KernelMachine huber sgd", alpha,
         lambda a: KernelMachine(RBF_REG, loss="huber", alpha=a, solver="sgd",
                                 random_state=0), Xr, yr),
        *[(f"KernelMachineClassifier {loss} newton", alpha,
           lambda a, loss=loss: KernelMachineClassifier(RBF_CLF, loss=loss, alpha=a,
                                                        solver="newton"), Xc, yc)
          for loss in ("logistic", "squared_hinge")],
        ("KernelMachineClassifier hinge sgd", alpha,
         lambda a: KernelMachineClassifier(RBF_CLF, loss="hinge", alpha=a, solver="sgd",
                                           random_state=0), Xc, yc),
        ("KernelLogisticRegression", c, lambda v: KernelLogisticRegression(RBF_CLF, C=v),
         Xc, yc),
        ("KernelLogisticRegression newton", c,
         lambda v: KernelLogisticRegression(RBF_CLF, C=v, solver="newton"), Xc, yc),
        ("KernelSVC (SMO)", c, lambda v: KernelSVC(RBF_CLF, C=v), Xc, yc),
        ("KernelSVR (SMO)", c, lambda v: KernelSVR(RBF_REG, C=v, epsilon=1.0), Xr, yr),
        ("KitchenSinksRegressor", c,
         lambda v: KitchenSinksRegressor(200, gamma=0.05, C=v, random_state=0), Xr, yr),
    ]


def _objective(est):
    for name in ("objective_", "dual_objective_"):
        value = getattr(est, name, None)
        if value is not None:
            value = np.ravel(value)
            return float(value[-1] if name == "objective_" and
                         isinstance(est, KitchenSinksRegressor) else np.sum(value))
    return None


def _fit(make, value, X, y, repeats=3):
    """Best of ``repeats`` fits (a one-off stall of a shared machine otherwise sets the ratio
    of two millisecond timings); the last fit's iterations, warnings and objective."""
    best = float("inf")
    for _ in range(repeats):
        est = make(value)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            est.fit(X, y)
            best = min(best, time.perf_counter() - t0)
    seconds = best
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    n_iter = int(np.sum(getattr(est, "n_iter_", 0)))
    return {"seconds": seconds, "iterations": n_iter, "converged": not warned,
            "objective": _objective(est)}


def run(quick):
    rows, summary = [], []
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'solver':46s} {'param':>10s} {'time s':>8s} {'iter':>8s} {'conv':>5s} "
          f"{'objective':>12s}")
    for name, grid, make, X, y in _cases(quick):
        times = []
        for param, value in grid:
            row = {"solver": name, "n": len(X), param: value, **_fit(make, value, X, y)}
            rows.append(row)
            times.append(row["seconds"])
            obj = "-" if row["objective"] is None else f"{row['objective']:.6g}"
            print(f"{name:46s} {param}={value:<8g} {row['seconds']:8.3f} "
                  f"{row['iterations']:8d} {str(row['converged']):>5s} {obj:>12s}")
        ratio = max(times) / max(min(times), 1e-9)
        summary.append({"solver": name, "fastest_s": min(times), "slowest_s": max(times),
                        "ratio": ratio})
    print(f"\n{'solver':46s} {'fastest s':>10s} {'slowest s':>10s} {'ratio':>7s}  (target <= 5)")
    for s in summary:
        flag = "" if s["ratio"] <= 5 else "  over"
        print(f"{s['solver']:46s} {s['fastest_s']:10.3f} {s['slowest_s']:10.3f} "
              f"{s['ratio']:7.1f}{flag}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return {"rows": rows, "summary": summary, "load_average": os.getloadavg()[0]}
