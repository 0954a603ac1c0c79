"""Exact kernel ridge regression: kernelkit.models.KernelRidge vs sklearn.kernel_ridge.KernelRidge.

Question: how fast is an exact RBF kernel ridge fit (Gram matrix + Cholesky)
and its prediction, at the same accuracy as scikit-learn, and how far does it
scale on this machine (target: n = 40,000 in under 5 minutes)?

Part 1, peer comparison: California housing (``537_houses``, 20,640 x 8).
    A fixed random split (seed 0): 2,000 test points, training sets are the
    first n = 5k, 10k, 15k points of the remaining 18,640. X standardized and
    y standardized with the mean/std of those 18,640 (RMSE also in dollars).
    Both: RBF gamma = 0.5, alpha = 0.1, no intercept (same model; sklearn's
    alpha is the same ridge term added to K's diagonal; kernelkit's default
    ``fit_intercept=True`` is turned off, as sklearn's KernelRidge has none).
    From n = 12,000 kernelkit's default precision is mixed (float32 Cholesky
    preconditioning float64 CG), so the 15k row compares it with sklearn's
    float64 solve. Fit and predict times are
    medians of 3 alternating repeats for n <= 10k, 1 run beyond.
    Quality: test RMSE of both and max|p_kk - p_sk| / max|p_sk| (target <= 1e-8).

Part 2, kernelkit alone: California housing has only 20,640 rows, so the
    large runs use ``564_fried`` (Friedman #1, 40,768 x 10): a fixed random
    split (seed 1) into 768 test points and a 40,000-point pool; n = 20k and
    40k are the first n of the pool. X and y standardized with the pool's
    statistics; RBF gamma = 0.1, alpha = 0.1, no intercept. scikit-learn is
    never run here: its multi-threaded OpenBLAS Cholesky segfaults at n >=
    ~16,000 and would kill the process. One run each, fit + predict, with
    the peak resident memory of that run (sampled): n = 20k and 40k in the
    default (mixed) precision, 40k again in float64 (a 12.8 GB Gram matrix,
    run inside ``config_context(memory="20GB")``) and the two predictions
    compared (target: 1e-8 relative), and n = 60k in mixed precision (a
    14.4 GB float32 matrix) on Friedman #1 generated with d = 10 (564_fried
    has 40,768 rows). ``KRR_BIG=40000:mixed,60000:auto`` runs only those.

Part 3, where a mixed-precision fit spends its time (issue 24: the fit within
    1.3x the float32 Cholesky bound, the Cholesky at >= 80% of the float32 GEMM
    rate): before each run of part 2 this machine's rates are measured
    (``_rates.machine_rates``: float32/float64 GEMM, LAPACK potrf at order
    4000, the read rate of a stored-matrix product, numba exps), and each
    mixed fit reports its phases (the solver's ``seconds``) next to their
    bounds from those rates:

    - Gram: K's lower triangle, n^2 / 2 kernel values in float64 stored in
      float32: max(n^2 / 2 / exp rate, n^2 d / float64 GEMM rate);
    - Cholesky: n^3 / 3 at the float32 GEMM rate (the "float32 Cholesky
      bound"; the rate column is the fraction of that GEMM rate reached),
      and at LAPACK's potrf rate of order 4000 for reference;
    - refinement, per CG iteration: the lower triangle recomputed (as the
      Gram phase) plus two triangular solves reading 2 n^2 bytes each at
      the stored-matrix read rate;
    - total against the float32 Cholesky bound (target <= 1.3).

    ``KRR_BIG=40000:mixed python benchmarks/krr.py`` runs the 40k row alone
    (peak memory ~7 GB: the 6.4 GB float32 matrix and one block of rows).

Run: ``python benchmarks/krr.py`` (about 30 minutes) or ``--quick`` (n = 2000
for part 1, one n = 3000 mixed fit with its phases for parts 2-3).
"""

from __future__ import annotations

import contextlib
import gc
import os

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import parse_args, peak_rss_gb, print_table, timed, write_json
from _rates import machine_rates

import kernelkit
import kernelkit.models.kernel_ridge as kernel_ridge_module
from kernelkit.datasets import load_shared_table
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge as KKRidge
from sklearn.kernel_ridge import KernelRidge as SKRidge

CAL = {"gamma": 0.5, "alpha": 0.1, "n_test": 2000, "seed": 0}
FRIED = {"gamma": 0.1, "alpha": 0.1, "n_test": 768, "seed": 1}
SKLEARN_MAX_N = 15_000  # never above: sklearn's KernelRidge segfaults from ~16k here


def split(name, n_test, seed):
    X, y, _ = load_shared_table(name)
    perm = np.random.default_rng(seed).permutation(len(X))
    test, pool = perm[:n_test], perm[n_test:]
    mu, sd = X[pool].mean(axis=0), X[pool].std(axis=0)
    ym, ys = y[pool].mean(), y[pool].std()
    Xs, yz = (X - mu) / sd, (y - ym) / ys
    return Xs[pool], yz[pool], Xs[test], yz[test], ys


def rmse(p, y):
    return float(np.sqrt(np.mean((p - y) ** 2)))


def peer_comparison(sizes, rows):
    Xp, yp, Xte, yte, y_scale = split("537_houses", CAL["n_test"], CAL["seed"])
    g, a = CAL["gamma"], CAL["alpha"]
    print(f"California housing: pool {len(Xp)}, test {len(Xte)}, gamma={g}, alpha={a}, "
          f"y std = {y_scale:.0f} $")
    # Warm-up (numba cache load, BLAS threads), untimed.
    SKRidge(kernel="rbf", gamma=g, alpha=a).fit(Xp[:200], yp[:200]).predict(Xte[:10])
    KKRidge(kernel=RBF(gamma=g), alpha=a, fit_intercept=False).fit(Xp[:200], yp[:200]).predict(Xte[:10])
    for n in sizes:
        assert n <= SKLEARN_MAX_N
        X, y = Xp[:n], yp[:n]
        repeats = 3 if n <= 10_000 else 1
        t = {"sk_fit": [], "sk_pred": [], "kk_fit": [], "kk_pred": []}
        for _ in range(repeats):  # alternating: sklearn, kernelkit, sklearn, ...
            s, m = timed(lambda: SKRidge(kernel="rbf", gamma=g, alpha=a).fit(X, y))
            t["sk_fit"].append(s)
            s, p_sk = timed(lambda: m.predict(Xte))
            t["sk_pred"].append(s)
            del m
            s, m = timed(lambda: KKRidge(kernel=RBF(gamma=g), alpha=a, fit_intercept=False).fit(X, y))
            t["kk_fit"].append(s)
            s, p_kk = timed(lambda: m.predict(Xte))
            t["kk_pred"].append(s)
            jitter, plan = m.jitter_, m.solver_ + " (" + str({c.what: c.value for c in m.plan_.choices}.get("precision")) + ")"
            del m
        med = {k: float(np.median(v)) for k, v in t.items()}
        row = {
            "data": "537_houses (California)", "n": n, "d": X.shape[1], "n_test": len(Xte),
            "gamma": g, "alpha": a, "repeats": repeats, "times": t,
            "sk_fit_s": med["sk_fit"], "kk_fit_s": med["kk_fit"],
            "sk_pred_s": med["sk_pred"], "kk_pred_s": med["kk_pred"],
            "fit_ratio": med["sk_fit"] / med["kk_fit"],
            "pred_ratio": med["sk_pred"] / med["kk_pred"],
            "sk_rmse": rmse(p_sk, yte), "kk_rmse": rmse(p_kk, yte),
            "sk_rmse_dollars": rmse(p_sk, yte) * y_scale,
            "kk_rmse_dollars": rmse(p_kk, yte) * y_scale,
            "max_rel_diff": float(np.max(np.abs(p_kk - p_sk)) / np.max(np.abs(p_sk))),
            "kk_jitter": jitter, "kk_solver": plan, "peak_rss_gb": peak_rss_gb(),
        }
        rows.append(row)
        print(f"n={n}: fit sk {row['sk_fit_s']:.2f}s kk {row['kk_fit_s']:.2f}s "
              f"(ratio {row['fit_ratio']:.2f}); predict sk {row['sk_pred_s']:.3f}s "
              f"kk {row['kk_pred_s']:.3f}s; RMSE sk {row['sk_rmse']:.4f} kk {row['kk_rmse']:.4f}; "
              f"max rel diff {row['max_rel_diff']:.1e}", flush=True)
        gc.collect()


class _PeakRSS:
    """Peak resident memory of this process during a ``with`` block (sampled every
    0.2 s from /proc/self/status), in GB: the process-wide ``ru_maxrss`` cannot
    be reset between runs."""

    def __enter__(self):
        import threading

        self.peak, self._stop = 0.0, threading.Event()

        def sample():
            while not self._stop.wait(0.2):
                self.peak = max(self.peak, _rss_gb())
        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_gb())


def _rss_gb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024 / 1e9
    return float("nan")


def friedman(n, n_test, seed=2, d=10):
    """Friedman #1 (noise sd 1), standardised with the training rows' statistics:
    for n beyond 564_fried's 40,000-row pool."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n + n_test, d))
    y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
         + 5 * X[:, 4] + rng.normal(size=n + n_test))
    mu, sd, ym, ys = X[:n].mean(0), X[:n].std(0), y[:n].mean(), y[:n].std()
    Xs, yz = (X - mu) / sd, (y - ym) / ys
    return Xs[:n], yz[:n], Xs[n:], yz[n:], ys


@contextlib.contextmanager
def _mixed_results():
    """The mixed-precision solver's results of the fits inside (for their phase
    seconds): the estimator's reference to the solver, wrapped for the block."""
    solve, results = kernel_ridge_module.dual_ridge_mixed, []

    def recording(*args, **kwargs):
        results.append(solve(*args, **kwargs))
        return results[-1]

    kernel_ridge_module.dual_ridge_mixed = recording
    try:
        yield results
    finally:
        kernel_ridge_module.dual_ridge_mixed = solve


def phase_bounds(n, d, n_iter, rates):
    """Seconds each phase of a mixed-precision fit needs at this run's rates (see Part 3)."""
    g64, g32 = rates["gemm64_gflops"] * 1e9, rates["gemm32_gflops"] * 1e9
    lower_triangle = max(n * n / 2 / (rates["exp_gexps"] * 1e9), n * n * d / g64)
    solves = 2 * 2.0 * n * n / (rates["stream32_gbs"] * 1e9)
    return {"gram": lower_triangle, "cholesky": n ** 3 / 3 / g32,
            "cholesky_potrf": n ** 3 / 3 / (rates["chol32_gflops"] * 1e9),
            "refinement": n_iter * (lower_triangle + solves)}


def _phases(row, seconds, rates):
    bounds = phase_bounds(row["n"], row["d"], row["n_iter"], rates)
    row["rates"] = rates
    row["phase_s"] = {k: float(v) for k, v in seconds.items()}
    row["phase_bound_s"] = bounds
    row["cholesky_fraction_of_gemm32"] = bounds["cholesky"] / seconds["cholesky"]
    row["fit_over_cholesky_bound"] = row["kk_fit_s"] / bounds["cholesky"]
    print(f"  phases of the mixed fit (bound at this run's rates): gram "
          f"{seconds['gram']:.1f}s ({bounds['gram']:.1f}s), Cholesky {seconds['cholesky']:.1f}s "
          f"({bounds['cholesky']:.1f}s at the float32 GEMM rate: "
          f"{row['cholesky_fraction_of_gemm32']:.0%} of it; {bounds['cholesky_potrf']:.1f}s at "
          f"potrf's), refinement {seconds['refinement']:.1f}s ({row['n_iter']} iterations, "
          f"{bounds['refinement']:.1f}s); fit {row['kk_fit_s']:.1f}s = "
          f"{row['fit_over_cholesky_bound']:.2f}x the float32 Cholesky bound (target <= 1.3)",
          flush=True)


def kernelkit_alone(cases, rows, quick=False):
    """One fit + predict per (n, precision), with its own peak memory; at n = 40k the
    mixed-precision predictions are compared with the float64 solve's; mixed fits
    with their phases against this run's rates."""
    Xp, yp, Xte, yte, y_scale = split("564_fried", FRIED["n_test"], FRIED["seed"])
    g, a = FRIED["gamma"], FRIED["alpha"]
    print(f"\n564_fried: pool {len(Xp)}, test {len(Xte)}, gamma={g}, alpha={a} (kernelkit only)")
    preds = {}
    for n, precision in cases:
        if n <= len(Xp):
            data, (X, y, Xt, yt, ys) = "564_fried", (Xp[:n], yp[:n], Xte, yte, y_scale)
        else:
            data, (X, y, Xt, yt, ys) = "friedman1 (generated)", friedman(n, FRIED["n_test"])
        row = {"data": data, "n": n, "d": X.shape[1], "n_test": len(Xt), "gamma": g,
               "alpha": a, "repeats": 1, "precision_setting": precision}
        model = KKRidge(kernel=RBF(gamma=g), alpha=a, solver="dual", precision=precision,
                        fit_intercept=False)
        budget = "20GB" if precision == "float64" and 8.0 * n * n > 10e9 else None
        row["memory_budget"] = budget or "default"
        rates = machine_rates(quick)  # measured next to each run: the load varies
        row["loadavg_1min_before"] = os.getloadavg()[0]
        with kernelkit.config_context(memory=budget), _PeakRSS() as peak, \
                _mixed_results() as mixed:
            s, m = timed(lambda model=model: model.fit(X, y))
            row["kk_fit_s"] = s
            s, p = timed(lambda m=m: m.predict(Xt))
        row["kk_pred_s"] = s
        row["peak_rss_gb"] = peak.peak
        row["loadavg_1min_after"] = os.getloadavg()[0]
        choice = {c.what: c for c in m.plan_.choices}.get("precision")
        row["precision"] = None if choice is None else choice.value
        row["n_iter"], row["kk_jitter"] = int(m.n_iter_), float(m.jitter_)
        row["residual_norm"] = float(np.max(getattr(m, "residual_norm_", 0.0)))
        row["kk_rmse"] = rmse(p, yt)
        row["kk_rmse_target_units"] = rmse(p, yt) * ys
        preds[(n, row["precision"])] = p
        other = preds.get((n, "float64" if row["precision"] == "mixed" else "mixed"))
        if other is not None:
            row["max_rel_diff_mixed_vs_float64"] = float(np.max(np.abs(p - other))
                                                         / np.max(np.abs(other)))
        del m, model
        gc.collect()
        print(f"n={n} ({row['precision']}): fit {row['kk_fit_s']:.1f}s, predict "
              f"{row['kk_pred_s']:.3f}s, {row['n_iter']} iterations, residual "
              f"{row['residual_norm']:.1e}, RMSE {row['kk_rmse']:.4f} "
              f"(std units), peak RSS {row['peak_rss_gb']:.1f} GB"
              + (f", vs the other precision {row['max_rel_diff_mixed_vs_float64']:.1e}"
                 if "max_rel_diff_mixed_vs_float64" in row else ""), flush=True)
        if mixed:
            _phases(row, mixed[-1].seconds, rates)
        rows.append(row)  # written to the JSON at once


def _save(rows, quick):
    # KRR_BIG runs (kernelkit alone at chosen sizes) keep their own file, beside the table
    name = "krr_big" if os.environ.get("KRR_BIG") else "krr"
    write_json(name, {
        "question": "exact RBF kernel ridge fit/predict: kernelkit vs sklearn KernelRidge",
        "california": CAL, "fried": FRIED, "targets": {"max_rel_diff": 1e-8, "fit_40k_s": 300},
        "rows": rows,
    }, quick=quick)


class _Rows(list):
    """A list of result rows that rewrites the JSON after every row, so a long
    run that is interrupted still leaves the finished rows on disk."""

    def __init__(self, quick):
        super().__init__()
        self.quick = quick

    def append(self, row):
        super().append(row)
        _save(self, self.quick)


def main():
    args = parse_args(__doc__.splitlines()[0])
    rows = _Rows(args.quick)
    if not os.environ.get("KRR_BIG"):
        peer_comparison([2000] if args.quick else [5000, 10_000, 15_000], rows)
    big = [(3000, "mixed")] if args.quick else [(20_000, "auto"), (40_000, "auto"),
                                                (40_000, "float64"), (60_000, "auto")]
    if os.environ.get("KRR_BIG"):  # e.g. KRR_BIG=40000:auto,60000:auto (skips part 1)
        big = [(int(n), p) for n, p in (c.split(":") for c in os.environ["KRR_BIG"].split(","))]
    kernelkit_alone(big, rows, args.quick)
    print("\nExact RBF kernel ridge; ratio = sklearn / kernelkit (>1: kernelkit faster)")
    print_table([r for r in rows if "sk_fit_s" in r], [
        ("n", "n", "d"), ("sk_fit_s", "sk fit s", ".2f"), ("kk_fit_s", "kk fit s", ".2f"),
        ("fit_ratio", "fit ratio", ".2f"), ("sk_pred_s", "sk pred s", ".3f"),
        ("kk_pred_s", "kk pred s", ".3f"), ("pred_ratio", "pred ratio", ".2f"),
        ("sk_rmse", "sk RMSE", ".4f"), ("kk_rmse", "kk RMSE", ".4f"),
        ("max_rel_diff", "max rel diff", ".1e"), ("peak_rss_gb", "peak RSS GB", ".1f")])
    if big:
        print()
        print_table([r for r in rows if "sk_fit_s" not in r], [
            ("n", "n", "d"), ("precision", "precision", ""), ("kk_fit_s", "kk fit s", ".1f"),
            ("n_iter", "CG it", "d"), ("kk_pred_s", "kk pred s", ".3f"),
            ("kk_rmse", "kk RMSE", ".4f"), ("peak_rss_gb", "peak RSS GB", ".1f"),
            ("memory_budget", "budget", "")])
    mixed = [r for r in rows if "phase_s" in r]
    if mixed:
        print("\nMixed-precision fits: phases against their bounds at this run's rates "
              "(Cholesky bound: n^3/3 at the float32 GEMM rate)")
        for r in mixed:
            r.update({f"{k}_s": v for k, v in r["phase_s"].items()},
                     **{f"{k}_bound_s": v for k, v in r["phase_bound_s"].items()})
        print_table(mixed, [
            ("n", "n", "d"), ("gram_s", "gram s", ".1f"), ("gram_bound_s", "bound", ".1f"),
            ("cholesky_s", "Cholesky s", ".1f"), ("cholesky_bound_s", "bound", ".1f"),
            ("cholesky_fraction_of_gemm32", "of GEMM32", ".2f"),
            ("refinement_s", "refine s", ".1f"), ("refinement_bound_s", "bound", ".1f"),
            ("n_iter", "CG it", "d"), ("kk_fit_s", "fit s", ".1f"),
            ("fit_over_cholesky_bound", "fit / chol bound", ".2f")])
    _save(rows, args.quick)


if __name__ == "__main__":
    main()
