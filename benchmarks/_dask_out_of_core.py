"""dask_scaling.py --part out-of-core: a hundred million rows from ``.npy`` on 2 x 1 GB workers.

The data (a table of 21 float32 columns, X's 20 then y: 8.4 GB at 1e8 rows) is
written chunk by chunk to one ``.npy`` file from a known model (Friedman #1 on
the first five columns, fifteen noise columns, noise sd 1), read lazily by
``kernelkit.dask.from_npy`` (the graph holds the path and row ranges; rows per
chunk from the workers' memory; X and y of a chunk come from one read, so y
never moves between workers) and fitted by ``DaskKernelRidge`` with D = 256
random features in one pass over X (plus one over y for its mean). Printed: a
LightGBM-style table (rows, seconds, rows/s, bytes moved between workers,
worker peak memory, efficiency against the workers' own GEMM rate), the same
arithmetic projected to 1e9 rows on 16 workers, and the check that the fit on a
1e6-row prefix of the same file equals an in-memory accumulation to 1e-10.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time

import numpy as np

D_OOC = 20
N_FEATURES = 256
GAMMA_OOC = 0.1
ALPHA_OOC = 1.0
WRITE_ROWS = 1_000_000
PREFIX_ROWS = 1_000_000


def write_npy(data_dir, n, d, dtype, chunk_fn, block=WRITE_ROWS):
    """``data.npy`` of shape (n, d + 1) in ``dtype`` (X's d columns, then y), written
    block by block: the header by ``open_memmap``, the rows appended with ``tofile``
    (the writer holds one block)."""
    from numpy.lib.format import open_memmap

    path = os.path.join(data_dir, "data.npy")
    mm = open_memmap(path, mode="w+", dtype=dtype, shape=(n, d + 1))
    offset = mm.offset
    del mm
    with open(path, "r+b") as fh:
        fh.seek(offset)
        for i, r0 in enumerate(range(0, n, block)):
            Xc, yc = chunk_fn(1000 + i, min(block, n - r0), d)
            np.column_stack([Xc, yc]).astype(dtype).tofile(fh)
    return path


def flops_per_row(features, d, D, t=1):
    """Floating-point operations the pass needs per row: the features (X W, or the
    cross products of Nystroem's distances and K N), Z'Z's upper triangle and Z'y."""
    ops = 2 * d * D + D * (D + 1) + 2 * D * t
    if features == "nystroem":
        ops += 2 * D * D  # K(x, C) N
    return ops


def _gemm_rate(dask_worker=None, size=1536, repeats=3):
    """float64 GEMM GFLOP/s of one thread (best of ``repeats``)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(size, size)), rng.normal(size=(size, size))
    best = np.inf
    with threadpool_limits(1, user_api="blas"):
        for _ in range(repeats):
            t0 = time.perf_counter()
            A @ B
            best = min(best, time.perf_counter() - t0)
    return 2 * size**3 / best / 1e9


def _peak_rss(dask_worker=None):
    """The process's resident high-water mark (VmHWM: since its exec, unlike ru_maxrss,
    which a forked worker inherits from its parent)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def _worker_state(dask_worker=None):
    import psutil

    data = getattr(dask_worker, "data", None)
    spilled = len(getattr(data, "slow", ()) or ())
    status = getattr(getattr(dask_worker, "status", None), "name", "")
    return psutil.Process().memory_info().rss, status == "paused", spilled


class Sampler(threading.Thread):
    """Samples every worker's memory, pause state and spilled keys every ``every`` s."""

    def __init__(self, client, every=1.0):
        super().__init__(daemon=True)
        self.client, self.every = client, every
        self.samples, self.stop = [], threading.Event()

    def run(self):
        t0 = time.perf_counter()
        while not self.stop.is_set():
            try:
                states = self.client.run(_worker_state)
            except Exception:  # noqa: BLE001 - a worker restarting: skip the sample
                states = {}
            self.samples.append((time.perf_counter() - t0, states))
            self.stop.wait(self.every)

    def summary(self):
        rss = [[s[0] for s in states.values()] for _, states in self.samples if states]
        half = len(rss) // 2
        first = max((max(r) for r in rss[:half]), default=None)
        second = max((max(r) for r in rss[half:]), default=None)
        paused = any(s[1] for _, st in self.samples for s in st.values())
        spilled = max((s[2] for _, st in self.samples for s in st.values()), default=0)
        return {"rss_peak_first_half": first, "rss_peak_second_half": second,
                "paused": paused, "spilled_keys": spilled, "samples": len(self.samples)}


def in_memory_reference(features, kernel, Xn, yn):
    """The same model fitted in memory by kernelkit (no Dask): the feature map drawn
    again from the same seed, the normal equations accumulated on one machine."""
    from kernelkit.features import Nystroem, RandomFourierFeatures
    from kernelkit.features.centers import uniform_centers
    from kernelkit.solvers.normal_equations import (
        feature_normal_equations,
        solve_normal_equations,
    )

    rng = np.random.RandomState(0)
    if features == "nystroem":
        rows = np.asarray(Xn[uniform_centers(len(Xn), N_FEATURES, rng)], dtype=np.float64)
        fmap = Nystroem(kernel, n_components=N_FEATURES, centers=rows).fit(rows)
    else:
        fmap = RandomFourierFeatures(kernel, n_components=N_FEATURES,
                                     random_state=rng).fit(np.zeros((1, Xn.shape[1])))
    y64 = np.asarray(yn, dtype=np.float64)
    mean = float(y64.mean())
    ne = feature_normal_equations(fmap.transform, Xn, y64 - mean)
    return solve_normal_equations(ne, ALPHA_OOC)[0][:, 0], mean, fmap


def run_out_of_core(args, chunk_fn, measured, transferred, load, rmse):
    """The out-of-core part; returns (results dict, table rows)."""
    import dask
    from distributed import Client, LocalCluster

    from kernelkit.dask import DaskKernelRidge, from_npy

    n = int(args.rows)
    dtype = np.dtype(args.dtype)
    kernel = f"rbf(gamma={GAMMA_OOC})"
    made = args.data_dir is None
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="kernelkit_ooc_", dir="/tmp")
    os.makedirs(data_dir, exist_ok=True)
    try:
        t0 = time.perf_counter()
        path = write_npy(data_dir, n, D_OOC, dtype, chunk_fn)
        write_s = time.perf_counter() - t0
        print(f"wrote {n:,} x {D_OOC + 1} {dtype} rows ({os.path.getsize(path) / 1e9:.2f} GB) "
              f"to {data_dir} in {write_s:.1f} s", flush=True)
        X_test, y_test = chunk_fn(99, 100_000, D_OOC)
        # worker-saturation 1.0: a worker reads its next chunk when it is free, so it
        # holds one chunk per thread (1.1, the default, reads one ahead: a chunk more in
        # memory, and a ready task that another worker steals with its chunk)
        with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}), \
                LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                             memory_limit="1GB", dashboard_address=None) as lc, \
                Client(lc) as client:
            gemm = list(client.run(_gemm_rate).values())
            rss0 = list(client.run(_worker_state).values())
            table_ = from_npy(path, client=client)  # rows per chunk from the workers' memory
            Xd, yd = table_[:, :D_OOC], table_[:, D_OOC]
            est = DaskKernelRidge(kernel, alpha=ALPHA_OOC, solver="features",
                                  features=args.features, n_centers=N_FEATURES,
                                  random_state=0, verbose=1)
            est.client = client
            sampler = Sampler(client)
            sampler.start()
            wall, _, busy, share, moved = measured(client, lambda: est.fit(Xd, yd), 2)
            sampler.stop.set()
            sampler.join()
            peak = list(client.run(_peak_rss).values())
            gemm += list(client.run(_gemm_rate).values())
            rate = float(np.median(gemm))
            flops = n * flops_per_row(args.features, D_OOC, N_FEATURES)
            rec = {"rows": n, "d": D_OOC, "D": N_FEATURES, "features": args.features,
                   "dtype_on_disk": dtype.name, "store_bytes": os.path.getsize(path),
                   "chunk_rows": int(Xd.chunks[0][0]),
                   "chunks": len(Xd.chunks[0]), "write_s": write_s, "fit_s": wall,
                   "task_s": busy, "overhead_share": share, "rows_per_s": n / wall,
                   "bytes_moved": moved, "worker_memory_limit": 10**9,
                   "worker_rss_before": [int(r[0]) for r in rss0],
                   "worker_peak_rss": [int(p) for p in peak], **sampler.summary(),
                   "gemm_gflops_one_core": rate, "flops": flops,
                   "gflops": flops / wall / 1e9,
                   "efficiency": flops / wall / (2 * rate * 1e9), "load": load(),
                   "test_rmse": rmse(est.predict(X_test), y_test), "noise_floor_rmse": 1.0}
            # (check) the fit on the file's first rows equals an in-memory accumulation
            m = min(PREFIX_ROWS, n)
            mm = np.load(path, mmap_mode="r")  # memmap views: the tasks read the file
            Xm, ym = mm[:m, :D_OOC], mm[:m, D_OOC]
            pre = DaskKernelRidge(kernel, alpha=ALPHA_OOC, solver="features",
                                  features=args.features, n_centers=N_FEATURES,
                                  random_state=0)
            pre.client = client
            pre.fit(Xm, ym)
        W, mean, fmap = in_memory_reference(args.features, kernel, np.asarray(Xm),
                                            np.asarray(ym))
        rec["prefix_rows"] = m
        rec["prefix_coef_max_rel_diff"] = float(np.abs(pre.coef_ - W).max() / np.abs(W).max())
        rec["prefix_intercept_diff"] = abs(float(pre.intercept_) - mean)
        rec["prefix_same_feature_map"] = bool(np.array_equal(
            getattr(pre.feature_map_, "random_weights_", pre.feature_map_.components_),
            getattr(fmap, "random_weights_", fmap.components_)))
        rec["projection"] = project(rec)
    finally:
        if made and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        elif args.keep:
            print(f"data kept in {data_dir}")
    return rec


def project(rec, rows=10**9, workers=16):
    """The same arithmetic at ``rows`` on ``workers`` one-thread workers.

    Assumptions: each worker keeps the rows/s per worker measured here (same
    cores, same chunk size, 1 GB each: the memory per worker does not depend on
    the rows); the storage serves every worker its rows at that rate
    (``read_mb_s`` in all); the scheduler's overhead share stays as measured;
    the tree sum adds log2(chunks) levels of D x D partial sums (bytes moved
    scale with the number of chunks)."""
    per_worker = rec["rows_per_s"] / 2
    seconds = rows / (per_worker * workers)
    chunks = -(-rows // rec["chunk_rows"])
    row_bytes = rec["store_bytes"] / rec["rows"]
    moved = None if rec["bytes_moved"] is None else rec["bytes_moved"] * chunks / rec["chunks"]
    return {"rows": rows, "workers": workers, "seconds": seconds,
            "rows_per_s": rows / seconds, "chunks": chunks, "bytes_moved": moved,
            "read_mb_s": per_worker * workers * row_bytes / 1e6,
            "tree_levels": int(np.ceil(np.log2(max(chunks, 2)))),
            "efficiency": rec["efficiency"]}


def table(rec):
    """LightGBM-style rows: (setting, rows, seconds, rows/s, bytes moved, peak MB, efficiency)."""
    p = rec["projection"]
    peak = max(rec["worker_peak_rss"]) / 2**20
    return [
        {"case": f"2 workers x 1 GB, {rec['features']} D={rec['D']} (measured)",
         "rows": rec["rows"], "seconds": rec["fit_s"], "rows_per_s": rec["rows_per_s"],
         "bytes_moved": rec["bytes_moved"], "peak_mb": peak, "efficiency": rec["efficiency"]},
        {"case": "16 workers x 1 GB (projected)", "rows": p["rows"], "seconds": p["seconds"],
         "rows_per_s": p["rows_per_s"], "bytes_moved": p["bytes_moved"], "peak_mb": peak,
         "efficiency": p["efficiency"]},
    ]


COLUMNS = [("case", "case", ""), ("rows", "rows", ",d"), ("seconds", "seconds", ".1f"),
           ("rows_per_s", "rows/s", ",.0f"), ("bytes_moved", "bytes moved", ",.0f"),
           ("peak_mb", "worker peak MB", ".0f"), ("efficiency", "efficiency", ".2f")]
