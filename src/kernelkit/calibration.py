"""This machine's rates for the planner, measured once by a short micro-benchmark.

The planner (:mod:`kernelkit.planning`) predicts seconds as counted work divided
by rates. The defaults (:data:`kernelkit.planning.RATES`) were measured on the
reference machine. :func:`calibrate` (``kernelkit calibrate`` on the command
line) measures GEMM, Cholesky, kernel-entry and elementwise rates here in a few
seconds (longer the first time, while numba compiles the loops it times) and caches them in ``$KERNELKIT_CACHE_DIR`` (default
``~/.cache/kernelkit``) as ``rates.json``. The rates in force are a setting,
``kernelkit.get_config()["rates"]`` (read from that cache at first use, with
``get_config()["rates_source"]`` saying so); :func:`machine_rates` returns them.

Calibration is explicit, not a side effect of the first ``fit``: a measurement
taken while the machine is busy would be cached and mislead every later plan,
and a hidden second inside ``fit`` would make timings and tests irregular.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from . import config
from .config import rates_cache_path as cache_path

__all__ = ["machine_rates", "calibrate", "save_rates", "cache_path"]


def _best_of(fn, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return max(best, 1e-9)


def _best_potrf(S, repeats):
    """Shortest of ``repeats`` in-place ``dpotrf`` calls, each on a fresh copy of S."""
    from scipy.linalg import lapack

    best = np.inf
    F = np.empty(S.shape, order="F")
    for _ in range(repeats):
        np.copyto(F, S)
        t0 = time.perf_counter()
        _, info = lapack.dpotrf(F, lower=1, overwrite_a=1, clean=0)
        best = min(best, time.perf_counter() - t0)
        if info != 0:
            raise np.linalg.LinAlgError(f"calibration: dpotrf failed (info={info})")
    return best


def calibrate():
    """Measure the rates now (a few seconds; the first run also compiles the loops it
    times) and return them.

    Returns
    -------
    dict
        ``gemm`` and ``cholesky`` in flop/s (``cholesky``: LAPACK ``dpotrf`` alone,
        in place, as the solvers call it), ``kernel_entries`` (RBF entries
        per second, exp included), ``elementwise`` (simple operations per
        second), ``sgd_step`` (element-updates per second of the compiled SGD
        loop) and ``stream`` (bytes per second of a matrix-vector product on a
        matrix out of cache) -- the keys of :data:`kernelkit.config.REFERENCE_RATES`.
    """
    from .kernels import RBF

    rng = np.random.default_rng(0)
    n = 2048  # large enough for the blocked, multi-threaded rates of big problems
    A = rng.normal(size=(n, n))
    gemm = 2.0 * n ** 3 / _best_of(lambda: A @ A)
    # Cholesky at 4096: at 2048 dpotrf runs at about half its large-n rate (a plan for
    # n = 8000 came out 2x too slow), and the orders that matter to a plan are larger.
    # dpotrf alone, in place on a Fortran copy made outside the timing, as the solvers
    # call it: scipy.linalg.cholesky's finiteness check, copy and zeroed triangle took
    # 45 % of its time at this order (47.9 vs 86.7 GFLOP/s on the 2-core machine,
    # whose dpotrf runs at 90 GFLOP/s at order 12,800).
    m = 2 * n
    S = rng.normal(size=(m, m))
    S = S @ S.T + m * np.eye(m)
    chol = m ** 3 / 3.0 / _best_potrf(S, repeats=2)
    X = rng.normal(size=(3000, 16))
    k = RBF(gamma=0.1)
    k(X[:10])  # compile / warm the numba loop outside the timing
    kern = 3000.0 * 3000.0 / _best_of(lambda: k(X))
    v = rng.normal(size=2_000_000)
    elem = v.size / _best_of(lambda: np.multiply(v, 1.0001, out=v))
    # The compiled SGD loop on a cached Gram matrix: 2 n element-updates per step.
    from .solvers.sgd import sgd

    m, T = 3000, 20_000  # K of 72 MB: out of cache, as in real problems
    Km = k(X[:m])
    ym = np.sign(rng.normal(size=m))
    sgd("gram_cached", ym, "squared", 1e-3, K=Km, n_iter=10, compute_objective=False)
    step = 2.0 * m * T / _best_of(lambda: sgd("gram_cached", ym, "squared", 1e-3, K=Km,
                                              n_iter=T, compute_objective=False))
    # Memory streaming as Falkon's iterations do it: a 128 MB matrix (out of every
    # cache) times a vector and its transpose times another.
    B = np.ones((4096, 4096))
    u, w = np.ones(4096), np.ones(4096)
    stream = 2.0 * B.nbytes / _best_of(lambda: (B @ u, B.T @ w))
    return {"gemm": gemm, "cholesky": chol, "kernel_entries": kern, "elementwise": elem,
            "sgd_step": step, "stream": stream}


def machine_rates():
    """The planner's rates in force: ``kernelkit.get_config()["rates"]``.

    Those measured by :func:`calibrate` and cached for this machine, else the
    reference machine's, unless set with ``config_context(rates=...)``.

    Returns
    -------
    dict
        Rates for :func:`kernelkit.planning.plan_sgd` and ``plan_ridge``.
    """
    return config.get_config()["rates"]


def save_rates(rates):
    """Cache measured rates for this machine (atomically) and put them in force;
    returns the path."""
    path = cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"machine": config.machine_key(), "method": config.RATES_METHOD,
                               "rates": rates}))
    os.replace(tmp, path)
    config.reload_rates()
    return path
