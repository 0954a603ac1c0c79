"""Grid searches that reuse work (issue 24, item 1): kernelkit's *CV vs GridSearchCV.

Question: over a 5 x 5 grid with the same folds, how much faster is kernelkit's
search than scikit-learn's ``GridSearchCV``, with the same best parameters and
the same best mean score?

Part 1, SVC on adult (census income, 14 label-encoded columns, standardised):
    the first 10,000 rows of a fixed permutation (seed 0). Grid gamma =
    (1/14) x {0.1, 0.3, 1, 3, 10} (around ``gamma="scale"``) x C = {0.01, 0.1, 1,
    10, 100}; 5-fold ``KFold(shuffle=True, random_state=0)``; accuracy.
    ``KernelSVCCV("rbf", Cs=C, param_grid={"gamma": ...}, cv=folds)`` (one
    squared-distance matrix; each (gamma, fold) block by one exp pass into a
    reused buffer; SMO warm-started along C) vs ``GridSearchCV(SVC(), {"C": ...,
    "gamma": ...}, cv=folds)`` (libsvm per fit, 200 MB kernel cache).
Part 2, KernelRidge on California housing (``537_houses``, 8 columns and the
    target standardised): the first 16,000 rows of a fixed permutation (seed 0),
    so 12,800 training rows per fold. Grid gamma = {0.1, 0.2, 0.5, 1, 2} x alpha =
    {1e-3, 1e-2, 0.1, 1, 10}; the same 5-fold split; mean squared error.
    ``KernelRidgeCV("rbf", alphas, param_grid={"gamma": ...}, cv=folds,
    fit_intercept=False)`` (exact k-fold: one squared-distance matrix, per (gamma,
    fold) the alphas in the groups the planner predicts cheapest: one float32
    Cholesky factor per group preconditioning float64 CG, a rank-1000 Nystroem
    preconditioner for the alphas a probe of the gamma's first fold says it serves,
    or a float64 factor per alpha) vs ``GridSearchCV(KernelRidge(
    kernel="rbf"), ..., scoring="neg_mean_squared_error", refit=False)`` (one
    float64 Cholesky per fit). The peer does not refit: scikit-learn's threaded
    Cholesky crashes from about 16,000 rows on this machine; kernelkit's time
    includes its refit on all 16,000 rows (a disadvantage to kernelkit).
    kernelkit's fold planner counts with this machine's rates, measured first by
    ``kernelkit.calibration.calibrate`` (what ``kernelkit calibrate`` caches once
    per machine; a few seconds, not in the timed search) and printed; the plan
    line gives its predicted and taken time per (gamma, fold).

Both searches run in this process one after the other (peer first), each once
in the full mode (the peer takes minutes); the table gives time, ratio, the
best parameters and best mean score of both, the largest difference of the
per-candidate mean scores, the load average and this machine's float64 GEMM and
Cholesky rates measured in the same run. ``--peer-n-jobs 2`` also times
GridSearchCV with two processes (kernelkit uses both cores in its exp and BLAS
parts; its SMO is one thread).

Run: ``python benchmarks/grid_search.py`` (about 30 minutes on 2 cores, most of
it the peers) or ``--quick`` (2,000 rows, seconds); ``--part svc|ridge``;
``--ridge-rows N`` (default 16000) runs the ridge part on N rows, ``--svc-rows N``
(default 10000) the SVC part.
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import peak_rss_gb, print_table, timed, write_json
from _rates import cholesky_rate, gemm_rate

from kernelkit import config_context
from kernelkit.datasets import load_shared_table
from kernelkit.models import KernelRidgeCV, KernelSVCCV
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.svm import SVC

SVC_GAMMA_FACTORS = (0.1, 0.3, 1.0, 3.0, 10.0)
SVC_CS = (0.01, 0.1, 1.0, 10.0, 100.0)
RIDGE_GAMMAS = (0.1, 0.2, 0.5, 1.0, 2.0)
RIDGE_ALPHAS = (1e-3, 1e-2, 0.1, 1.0, 10.0)
FOLDS = KFold(5, shuffle=True, random_state=0)


def _rows(name, n, standardise_target=False):
    X, y, _ = load_shared_table(name)
    perm = np.random.default_rng(0).permutation(len(X))[:n]
    X, y = np.asarray(X, dtype=np.float64)[perm], np.asarray(y)[perm]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    if standardise_target:
        y = (y - y.mean()) / y.std()
    return X, y


def _compare(label, ours, peer, key, X, y, peer_jobs):
    """Time the peer, then kernelkit; compare best parameters and scores."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # grid-edge and convergence notes: not timed text
        t_peer, sk = timed(lambda: peer(1).fit(X, y))
        t_ours, kk = timed(lambda: ours().fit(X, y))
        t_peer2 = timed(lambda: peer(peer_jobs).fit(X, y))[0] if peer_jobs > 1 else None
    mine, theirs = key(kk), {tuple(sorted(p.items())): s for p, s in
                             zip(sk.cv_results_["params"], sk.cv_results_["mean_test_score"])}
    diffs = np.array([abs(mine[k] - s) for k, s in theirs.items()])
    sk_best = {k: float(v) for k, v in sk.best_params_.items()}
    kk_best = {k: float(v) for k, v in kk.best_params_.items()}
    sk_score = float(sk.best_score_)
    kk_score = float(-kk.best_score_ if isinstance(kk, KernelRidgeCV) else kk.best_score_)
    row = {"case": label, "n": X.shape[0], "candidates": len(theirs), "folds": 5,
           "sklearn_s": t_peer, "kernelkit_s": t_ours, "ratio": t_peer / t_ours,
           "sklearn_n_jobs2_s": t_peer2,
           "ratio_vs_n_jobs2": None if t_peer2 is None else t_peer2 / t_ours,
           "best_sklearn": sk_best, "best_kernelkit": kk_best,
           "same_best": sk_best == kk_best,
           "best_score_sklearn": sk_score, "best_score_kernelkit": kk_score,
           "best_score_rel_diff": abs(kk_score - sk_score) / abs(sk_score),
           "max_candidate_score_diff": float(diffs.max()),
           "candidates_differing": int((diffs > 1e-12 * max(1.0, abs(sk_score))).sum()),
           "plan": str(kk.plan_), "peak_rss_gb": peak_rss_gb(),
           "loadavg_after": os.getloadavg()}
    print(f"\n{label}: kernelkit best {kk_best} score {kk_score:.10g}; "
          f"sklearn best {sk_best} score {sk_score:.10g}")
    print(kk.plan_)
    return row


def svc_part(quick, peer_jobs, rows=10_000):
    n = 2000 if quick else rows
    X, y = _rows("adult", n)
    gammas = [f / X.shape[1] for f in SVC_GAMMA_FACTORS]
    grid = {"C": list(SVC_CS), "gamma": gammas}

    def key(kk):
        return {tuple(sorted(p.items())): s for p, s in
                zip(kk.cv_results_["params"], kk.cv_results_["mean_test_score"])}

    return _compare(f"SVC adult {n}, 5 gamma x 5 C",
                    lambda: KernelSVCCV("rbf", Cs=list(SVC_CS), param_grid={"gamma": gammas},
                                        cv=FOLDS),
                    lambda jobs: GridSearchCV(SVC(), grid, cv=FOLDS, n_jobs=jobs),
                    key, X, y, peer_jobs)


class _WithRates:
    """Fits ``est`` under ``config_context(rates=rates)`` and returns it."""

    def __init__(self, est, rates):
        self.est, self.rates = est, rates

    def fit(self, X, y):
        with config_context(rates=self.rates):
            return self.est.fit(X, y)


def ridge_part(quick, peer_jobs, rows=16_000):
    n = 2000 if quick else rows
    X, y = _rows("537_houses", n, standardise_target=True)
    grid = {"alpha": list(RIDGE_ALPHAS), "gamma": list(RIDGE_GAMMAS)}

    def key(kk):
        return {(("alpha", a), ("gamma", p["gamma"])): s for p, a, s in
                zip(kk.cv_results_["params"], kk.cv_results_["alpha"],
                    kk.cv_results_["mean_test_score"])}

    from kernelkit.calibration import calibrate

    rates = calibrate()  # the planner's rates, as after `kernelkit calibrate` (cached once)
    print("fold planner's rates, measured now: "
          + ", ".join(f"{k} {v:.3g}" for k, v in rates.items()))
    return _compare(f"KernelRidge California {n}, 5 gamma x 5 alpha",
                    lambda: _WithRates(KernelRidgeCV("rbf", alphas=list(RIDGE_ALPHAS),
                                                     param_grid={"gamma": list(RIDGE_GAMMAS)},
                                                     cv=FOLDS, fit_intercept=False,
                                                     solver="exact"), rates),
                    lambda jobs: GridSearchCV(KernelRidge(kernel="rbf"), grid, cv=FOLDS,
                                              scoring="neg_mean_squared_error", refit=False,
                                              n_jobs=jobs),
                    key, X, y, peer_jobs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 rows per data set")
    parser.add_argument("--part", choices=("all", "svc", "ridge"), default="all")
    parser.add_argument("--ridge-rows", type=int, default=16_000,
                        help="rows of California in the ridge part (default 16000: 12,800 "
                             "training rows per fold)")
    parser.add_argument("--svc-rows", type=int, default=10_000,
                        help="rows of adult in the SVC part (default 10000: 8,000 training "
                             "rows per fold)")
    parser.add_argument("--peer-n-jobs", type=int, default=1,
                        help="also time GridSearchCV with this many processes (e.g. 2)")
    args = parser.parse_args()
    rates = {"gemm_f64_gflops": gemm_rate(np.float64) / 1e9,
             "potrf_f64_gflops": cholesky_rate(np.float64) / 1e9,
             "potrf_f32_gflops": cholesky_rate(np.float32) / 1e9,
             "loadavg_before": os.getloadavg()}
    print("machine rates: " + ", ".join(f"{k} {v:.1f}" for k, v in rates.items()
                                         if k != "loadavg_before")
          + f"; load {rates['loadavg_before']}")
    rows = []
    if args.part in ("all", "svc"):
        rows.append(svc_part(args.quick, args.peer_n_jobs, args.svc_rows))
    if args.part in ("all", "ridge"):
        rows.append(ridge_part(args.quick, args.peer_n_jobs, args.ridge_rows))
    print()
    print_table(rows, [("case", "case", ""), ("sklearn_s", "GridSearchCV s", ".1f"),
                       ("kernelkit_s", "kernelkit s", ".1f"), ("ratio", "ratio", ".2f"),
                       ("sklearn_n_jobs2_s", "GSCV n_jobs=2 s", ".1f"),
                       ("best_score_rel_diff", "best score rel diff", ".1e"),
                       ("max_candidate_score_diff", "max cand diff", ".1e")])
    for r in rows:
        print(f"{r['case']}: same best params: {r['same_best']} "
              f"({r['best_kernelkit']} vs {r['best_sklearn']})")
    name = "grid_search" if args.part == "all" else f"grid_search_{args.part}"
    write_json(name, {"rates": rates, "rows": rows,
                      "grids": {"svc": {"gamma_times_1_over_d": SVC_GAMMA_FACTORS,
                                        "C": SVC_CS},
                                "ridge": {"gamma": RIDGE_GAMMAS, "alpha": RIDGE_ALPHAS}},
                      "folds": "KFold(5, shuffle=True, random_state=0)",
                      "target": ">= 5x GridSearchCV, same best params and score"},
               quick=args.quick)


if __name__ == "__main__":
    main()
