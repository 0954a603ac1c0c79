"""kernelkit.dask on a LocalCluster (2 workers x 1 thread) against the in-memory fit.

Questions: (1) a >= 2,000,000-row regression (Friedman #1, d = 10, generated in
chunks on the workers): time, test RMSE, coefficient agreement, bytes moved
between workers and the share of the wall time not spent computing tasks
(overhead share = 1 - task seconds / (wall seconds x threads)); (2) Falkon
with K_nM persisted on the workers, per-iteration time, against the in-memory
``KernelRidge(solver="falkon")``; (3) a worker killed mid-fit: same
coefficients?; (5) KDD Cup 99 (400,000 training rows, 23 classes, the
preprocessing of ``benchmarks/kddcup.py``): ``DaskKernelRidgeClassifier`` on
random Fourier features (gamma 0.01, D = 500, alpha 1) read by the workers
from ``.npy`` files in 50,000-row ranges (``kernelkit.dask.from_npy``), against the in-memory fit of the same features (the same
fitted map, normal equations accumulated on one machine): time, test
accuracy, bytes moved, overhead share; (4) an out-of-core fit from a ``.npy`` store at least 4x a
worker's memory limit (features, and Falkon with K_nM recomputed).

(6) ``--part out-of-core``: 1e8 rows x 20 (``--rows``) written chunk by chunk to
a ``.npy`` file, fitted with D = 256 random features on 2 workers of 1 GB each:
rows, seconds, rows/s, bytes moved, worker peak memory, efficiency against the
workers' own GEMM rate, the projection to 1e9 rows on 16 workers, and the
coefficients of the 1e6-row prefix against an in-memory accumulation
(``benchmarks/_dask_out_of_core.py``).

Other helpers share the machine: the load average is recorded with every
figure. Run ``python benchmarks/dask_scaling.py`` (``--quick``: small sizes;
``--part out-of-core --rows 100000000``: the hundred million rows, about 10 min
idle, 8.4 GB in ``--data-dir``, default a temporary directory under /tmp removed
after unless ``--keep``).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, print_table, write_json  # noqa: E402

GAMMA = 0.5
D_FRIEDMAN = 10


def friedman_chunk(seed, i, rows, d):
    """Rows of Friedman #1 (noise sd 1), a pure function of (seed, chunk index)."""
    rng = np.random.default_rng([seed, i])
    X = rng.uniform(size=(rows, d))
    y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3]
         + 5 * X[:, 4] + rng.normal(size=rows))
    return X, y


def friedman_dask(n, chunk, seed=0, d=D_FRIEDMAN):
    import dask.array as da
    from dask import delayed

    gen = delayed(friedman_chunk, pure=True)
    xs, ys = [], []
    for i, r0 in enumerate(range(0, n, chunk)):
        rows = min(chunk, n - r0)
        part = gen(seed, i, rows, d)
        xs.append(da.from_delayed(part[0], (rows, d), dtype=np.float64))
        ys.append(da.from_delayed(part[1], (rows,), dtype=np.float64))
    return da.concatenate(xs), da.concatenate(ys)


def friedman_numpy(n, chunk, seed=0, d=D_FRIEDMAN):
    parts = [friedman_chunk(seed, i, min(chunk, n - r0), d)
             for i, r0 in enumerate(range(0, n, chunk))]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def load():
    return round(os.getloadavg()[0], 2)


def rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def transferred(client):
    """Bytes sent to other workers so far, summed over the workers (worker-to-worker
    transfers only; results gathered by the client are not counted)."""
    def count(dask_worker):
        return int(getattr(dask_worker, "transfer_outgoing_bytes_total", 0) or 0)
    try:
        return sum(client.run(count).values())
    except Exception:  # noqa: BLE001 - an older distributed without the counter
        return None


def measured(client, fn, threads):
    """(wall s, result, task-busy s, overhead share, bytes moved) of ``fn()`` on ``client``."""
    from distributed import get_task_stream

    before = transferred(client)
    with get_task_stream(client) as ts:
        t0 = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
    busy = sum(s["stop"] - s["start"] for t in ts.data for s in t["startstops"]
               if s["action"] == "compute")
    after = transferred(client)
    moved = None if before is None or after is None else after - before
    return wall, out, busy, max(0.0, 1.0 - busy / (wall * threads)), moved


def kddcup_case(client, quick):
    """(5): DaskKernelRidgeClassifier on KDD Cup 99 against the same features in memory."""
    from kddcup import ALPHA, GAMMA as KDD_GAMMA, preprocess
    from kernelkit.dask import DaskKernelRidgeClassifier
    from kernelkit.solvers.normal_equations import (feature_normal_equations,
                                                    solve_normal_equations)

    from kernelkit.dask import from_npy

    n_train = 50_000 if quick else 400_000
    Xtr, ytr, Xte, yte = preprocess(n_train, 20_000 if quick else None)
    # the workers read their row ranges from .npy files, as from a shared disk
    tmp = tempfile.mkdtemp(dir="/tmp")
    np.save(f"{tmp}/X.npy", Xtr)
    np.save(f"{tmp}/y.npy", ytr)
    Xd, yd = from_npy(f"{tmp}/X.npy", 50_000), from_npy(f"{tmp}/y.npy", 50_000)
    clf = DaskKernelRidgeClassifier(f"rbf(gamma={KDD_GAMMA})", alpha=ALPHA, solver="features",
                                    features="rff", n_centers=500, random_state=0)
    clf.client = client
    wall, _, busy, share, moved = measured(client, lambda: clf.fit(Xd, yd), 2)
    rec = {"n": n_train, "n_test": len(Xte), "D": 500, "gamma": KDD_GAMMA, "alpha": ALPHA,
           "dask_s": wall, "task_s": busy, "overhead_share": share, "bytes_moved": moved,
           "load": load(), "dask_accuracy": float(np.mean(clf.predict(Xte) == yte))}
    classes = clf.classes_
    t0 = time.perf_counter()
    Y = np.where(ytr[:, None] == classes[None, :], 1.0, -1.0)
    b = Y.mean(axis=0)  # the intercept: centred targets, as fit_intercept=True does
    ne = feature_normal_equations(clf.feature_map_.transform, Xtr, Y - b)
    W = solve_normal_equations(ne, ALPHA)[0]
    rec["numpy_s"], rec["numpy_load"] = time.perf_counter() - t0, load()  # fit, as dask_s
    pred = classes[np.argmax(clf.feature_map_.transform(Xte) @ W + b, axis=1)]
    rec["numpy_accuracy"] = float(np.mean(pred == yte))
    rec["same_predictions"] = float(np.mean(pred == clf.predict(Xte)))
    rec["coef_max_rel_diff"] = float(np.abs(clf.coef_ - W).max() / np.abs(W).max())
    shutil.rmtree(tmp, ignore_errors=True)
    return rec


def parse(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, for a smoke test; results go to *_quick.json")
    parser.add_argument("--part", choices=("all", "out-of-core"), default="all",
                        help="all: questions (1)-(5); out-of-core: (6) alone")
    parser.add_argument("--rows", type=int, default=None,
                        help="out-of-core rows (default 1e8; 1e6 with --quick)")
    parser.add_argument("--data-dir", default=None,
                        help="where the out-of-core .npy files go (default: a temporary "
                             "directory under /tmp, removed after the run)")
    parser.add_argument("--keep", action="store_true", help="keep the .npy file")
    parser.add_argument("--features", choices=("nystroem", "rff"), default="nystroem",
                        help="the random features of the out-of-core fit")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                        help="the out-of-core data on disk (computed in float64)")
    return parser.parse_args(argv)


def out_of_core_main(args):
    from _dask_out_of_core import COLUMNS, run_out_of_core, table

    # a terminated run still removes its data directory (the finally of run_out_of_core)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    if args.rows is None:
        args.rows = 1_000_000 if args.quick else 100_000_000
    rec = run_out_of_core(args, lambda i, rows, d: friedman_chunk(7, i, rows, d), measured,
                          transferred, load, rmse)
    print({k: v for k, v in rec.items()})
    write_json("dask_out_of_core", {"out_of_core": rec}, quick=args.quick)
    print_table(table(rec), COLUMNS)
    p = rec["projection"]
    print(f"projection: {p['rows']:,} rows on {p['workers']} one-thread workers of 1 GB at "
          f"the rows/s per worker measured here ({rec['rows_per_s'] / 2:,.0f}); storage must "
          f"serve {p['read_mb_s']:,.0f} MB/s in all; {p['chunks']:,} chunks, tree sum of "
          f"{p['tree_levels']} levels")
    print(f"prefix check ({rec['prefix_rows']:,} rows): max |coef dask - in memory| / max "
          f"|coef| = {rec['prefix_coef_max_rel_diff']:.2e} (<= 1e-10: "
          f"{rec['prefix_coef_max_rel_diff'] <= 1e-10}), intercept diff "
          f"{rec['prefix_intercept_diff']:.1e}; worker RSS peak first/second half "
          f"{rec['rss_peak_first_half'] / 2**20:.0f}/{rec['rss_peak_second_half'] / 2**20:.0f}"
          f" MB, paused {rec['paused']}, spilled keys {rec['spilled_keys']}; load {rec['load']}")


def main(argv=None):
    args = parse(argv)
    if args.part == "out-of-core":
        return out_of_core_main(args)
    from distributed import Client, LocalCluster

    from kernelkit import KernelRidge
    from kernelkit.dask import DaskKernelRidge, from_npy
    from kernelkit.solvers.normal_equations import (feature_normal_equations,
                                                    solve_normal_equations)

    q = args.quick
    n = 200_000 if q else 2_000_000
    chunk = 50_000 if q else 125_000
    D = 128 if q else 256
    n_falkon, M = (50_000, 200) if q else (300_000, 500)
    results, rows = {"machine": machine()}, []
    kernel = f"rbf(gamma={GAMMA})"
    X_test, y_test = friedman_numpy(100_000, 50_000, seed=99)
    f_test = y_test  # noisy; the noise floor is RMSE 1

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as lc, Client(lc) as client:
        # warm the workers (imports, numba compilation) before any clock starts
        warm = DaskKernelRidge(kernel, solver="falkon", n_centers=20, max_iter=2)
        warm.client = client
        warm.fit(*friedman_dask(20_000, 10_000, seed=5))
        # (1) features, one pass: cluster vs in memory
        Xd, yd = friedman_dask(n, chunk)
        est = DaskKernelRidge(kernel, alpha=1.0, solver="features", n_centers=D,
                              random_state=0)
        est.client = client
        wall, _, busy, share, moved = measured(client, lambda: est.fit(Xd, yd), 2)
        rec = {"n": n, "d": D_FRIEDMAN, "D": D, "dask_s": wall, "task_s": busy,
               "overhead_share": share, "bytes_moved": moved, "load": load(),
               "dask_rmse": rmse(est.predict(X_test), f_test)}
        X, y = friedman_numpy(n, chunk)
        t0 = time.perf_counter()
        # the same model in memory: the target centred (the intercept, as
        # fit_intercept=True does), ridge on the same features
        ym = float(np.mean(y))
        ne = feature_normal_equations(est.feature_map_.transform, X, y - ym)
        W = solve_normal_equations(ne, 1.0)[0][:, 0]
        rec["numpy_s"], rec["numpy_load"] = time.perf_counter() - t0, load()
        rec["numpy_rmse"] = rmse(est.feature_map_.transform(X_test) @ W + ym, f_test)
        rec["intercept_diff"] = abs(float(est.intercept_) - ym)
        rec["coef_max_rel_diff"] = float(np.abs(est.coef_ - W).max() / np.abs(W).max())
        del X, y
        results["features"] = rec
        rows.append(["features (Nystroem)", n, rec["numpy_s"], rec["dask_s"],
                     rec["numpy_rmse"], rec["dask_rmse"], rec["overhead_share"], rec["load"]])

        # (2) Falkon, K_nM persisted on the workers
        Xf, yf = friedman_dask(n_falkon, chunk // 2, seed=1)
        fk = DaskKernelRidge(kernel, alpha=1.0, solver="falkon", n_centers=M, tol=1e-6,
                             max_iter=30, random_state=0)
        fk.client = client
        wall, _, busy, share, moved = measured(client, lambda: fk.fit(Xf, yf), 2)
        rec = {"n": n_falkon, "M": M, "dask_s": wall, "iterations": fk.n_iter_,
               "passes": fk.n_passes_, "dask_s_per_pass": wall / fk.n_passes_,
               "overhead_share": share, "bytes_moved": moved, "load": load(),
               "persisted": bool(fk.store_choice_.value),
               "dask_rmse": rmse(fk.predict(X_test), f_test)}
        Xn, yn = friedman_numpy(n_falkon, chunk // 2, seed=1)
        t0 = time.perf_counter()
        ref = KernelRidge(kernel, alpha=1.0, solver="falkon", n_centers=M, tol=1e-6,
                          max_iter=30, random_state=0).fit(Xn, yn)
        rec["numpy_s"], rec["numpy_load"] = time.perf_counter() - t0, load()
        rec["numpy_rmse"] = rmse(ref.predict(X_test), f_test)
        rec["coef_max_rel_diff"] = float(np.abs(fk.dual_coef_ - ref.dual_coef_).max()
                                         / np.abs(ref.dual_coef_).max())
        del Xn, yn
        results["falkon"] = rec
        rows.append(["falkon (persisted)", n_falkon, rec["numpy_s"], rec["dask_s"],
                     rec["numpy_rmse"], rec["dask_rmse"], rec["overhead_share"], rec["load"]])

        # (5) KDD Cup 99, random Fourier features, 23 one-vs-rest columns
        results["kddcup"] = kddcup_case(client, q)
        rec = results["kddcup"]
        rows.append(["KDD Cup 99 RFF D=500 (accuracy)", rec["n"], rec["numpy_s"],
                     rec["dask_s"], rec["numpy_accuracy"], rec["dask_accuracy"],
                     rec["overhead_share"], rec["load"]])

        # (3) a worker killed mid-fit (features, as in (1))
        pid = list(client.run(os.getpid).values())[0]
        delay = 0.3 * results["features"]["dask_s"]
        killer = threading.Timer(delay, lambda: os.kill(pid, signal.SIGKILL))
        again = DaskKernelRidge(kernel, alpha=1.0, solver="features", n_centers=D,
                                random_state=0)
        again.client = client
        killer.start()
        t0 = time.perf_counter()
        again.fit(Xd, yd)
        wall = time.perf_counter() - t0
        killer.join()
        results["killed"] = {"killed_after_s": delay, "dask_s": wall, "load": load(),
                             "coef_max_abs_diff_vs_undisturbed":
                                 float(np.abs(again.coef_ - est.coef_).max())}
        rows.append(["features, worker killed", n, None, wall, None,
                     rmse(again.predict(X_test), f_test), None, load()])

    # (4) out of core: a .npy store >= 4x a worker's memory limit
    limit = 512 * 2**20
    n_ooc = 2_000_000 if q else 13_500_000  # 2.16 GB of float64 at d = 20: 4.0x the limit
    d_ooc = 20
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        from numpy.lib.format import open_memmap

        Xm = open_memmap(f"{tmp}/X.npy", mode="w+", dtype=np.float64, shape=(n_ooc, d_ooc))
        ym = open_memmap(f"{tmp}/y.npy", mode="w+", dtype=np.float64, shape=(n_ooc,))
        for i, r0 in enumerate(range(0, n_ooc, 250_000)):
            Xc, yc = friedman_chunk(7, i, min(250_000, n_ooc - r0), d_ooc)
            Xm[r0:r0 + len(Xc)], ym[r0:r0 + len(yc)] = Xc, yc
        Xm.flush(), ym.flush()
        del Xm, ym
        store = os.path.getsize(f"{tmp}/X.npy")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          memory_limit=limit, dashboard_address=None) as lc, \
                Client(lc) as client:
            Xo, yo = from_npy(f"{tmp}/X.npy", 50_000), from_npy(f"{tmp}/y.npy", 50_000)
            oc = DaskKernelRidge(kernel, alpha=1.0, solver="features", n_centers=64,
                                 random_state=0)
            oc.client = client
            wall, _, busy, share, moved = measured(client, lambda: oc.fit(Xo, yo), 2)
            X7, y7 = friedman_numpy(100_000, 50_000, seed=98, d=d_ooc)
            rec = {"n": n_ooc, "d": d_ooc, "store_bytes": store, "worker_limit_bytes": limit,
                   "ratio": store / limit, "features_s": wall, "overhead_share": share,
                   "load": load(), "features_rmse": rmse(oc.predict(X7), y7)}
            fo = DaskKernelRidge(kernel, alpha=1.0, solver="falkon", n_centers=100,
                                 persist=False, max_iter=2, random_state=0)
            fo.client = client
            wall, *_ = measured(client, lambda: fo.fit(Xo, yo), 2)
            rec.update({"falkon_recomputed_s": wall, "falkon_passes": fo.n_passes_,
                        "falkon_s_per_pass": wall / fo.n_passes_, "falkon_load": load(),
                        "falkon_rmse_after_iters": rmse(fo.predict(X7), y7),
                        "falkon_iterations": fo.n_iter_})
            results["out_of_core"] = rec
            rows.append([f"out of core ({store / limit:.1f}x limit)", n_ooc, None,
                         rec["features_s"], None, rec["features_rmse"],
                         rec["overhead_share"], rec["load"]])
    print({k: v for k, v in results.items() if k != "machine"})
    write_json("dask_scaling", results, quick=q)
    keys = ["case", "n", "numpy_s", "dask_s", "numpy_rmse", "dask_rmse", "overhead", "load"]
    print_table([dict(zip(keys, r)) for r in rows],
                [(k, k.replace("_", " "), "" if k == "n" else ".3g") for k in keys])


if __name__ == "__main__":
    main()
