"""This machine's arithmetic rates, measured in the run that quotes a work bound.

A work bound divides the flops (or bytes) of each step of an algorithm by the
rate this machine reaches on that kind of step *now*: the machine is shared
and its speed varies from day to day, so rates measured in the same run as
the timing make ``time / bound`` comparable across runs where seconds are not.

* :func:`gemm_rate`: square matrix products (GFLOP/s counted as 2 n^3).
* :func:`cholesky_rate`: LAPACK ``potrf`` (n^3 / 3 flops), at an order the
  wheel's threaded potrf runs safely (``kernelkit.linalg.THREADED_POTRF_MAX_N``).
* :func:`stream_rate`: bytes per second read by a product of a large stored
  matrix with a few columns (the shape of Falkon's stored-K_nM iterations and
  of triangular solves with a few right-hand sides: bound by reading memory).
* :func:`exp_rate`: numba ``exp_scaled`` elements per second (the RBF exps).

Each is the best of ``repeats`` timings (the least disturbed by other processes).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.linalg import lapack

from kernelkit import _compiled


def _best(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def gemm_rate(dtype, size=2048, repeats=3):
    """FLOP/s of ``A @ B`` for (size x size) matrices of ``dtype``."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((size, size)).astype(dtype)
    B = rng.standard_normal((size, size)).astype(dtype)
    A @ B  # warm-up (thread start)
    return 2.0 * size ** 3 / _best(lambda: A @ B, repeats)


def cholesky_rate(dtype, size=4000, repeats=3):
    """FLOP/s of LAPACK potrf (size^3 / 3 flops) of an SPD matrix of ``dtype``."""
    rng = np.random.default_rng(0)
    G = rng.standard_normal((size, size // 2)).astype(dtype)
    S = np.asfortranarray(G @ G.T)
    S.flat[:: size + 1] += size
    potrf = lapack.get_lapack_funcs("potrf", (S,))
    times = []
    for _ in range(repeats):
        A = S.copy(order="F")
        t0 = time.perf_counter()
        _, info = potrf(A, lower=1, clean=0, overwrite_a=1)
        times.append(time.perf_counter() - t0)
        if info != 0:  # pragma: no cover - S is positive definite
            raise RuntimeError(f"potrf failed with info={info}")
    return size ** 3 / 3.0 / min(times)


def stream_rate(dtype=np.float32, rows=16000, cols=8000, columns=10, repeats=3):
    """Bytes/s read by ``K @ V`` for a stored (rows x cols) K and a (cols x columns) V."""
    rng = np.random.default_rng(0)
    K = rng.standard_normal((rows, cols), dtype=np.float32).astype(dtype, copy=False)
    V = rng.standard_normal((cols, columns)).astype(dtype)
    K @ V
    return K.nbytes / _best(lambda: K @ V, repeats)


def exp_rate(size=4 * 10 ** 7, repeats=3):
    """Elements/s of numba ``_compiled.exp_scaled`` in place on float64 (both cores)."""
    A = np.full((size // 10 ** 4, 10 ** 4), -0.5)
    _compiled.exp_scaled(A[:2], -1.0, A[:2])  # compile / load the cache

    def run():
        A.fill(-0.5)
        _compiled.exp_scaled(A, 1.0, A)

    return size / _best(run, repeats)


def machine_rates(quick=False):
    """All the rates above in one dict (GFLOP/s, GB/s, Gexp/s), printed on one line."""
    size = 1024 if quick else 2048
    chol = 1500 if quick else 4000
    rates = {"gemm64_gflops": gemm_rate(np.float64, size) / 1e9,
             "gemm32_gflops": gemm_rate(np.float32, size) / 1e9,
             "chol64_gflops": cholesky_rate(np.float64, chol) / 1e9,
             "chol32_gflops": cholesky_rate(np.float32, chol) / 1e9,
             "stream32_gbs": stream_rate(np.float32, *((4000, 2000) if quick else
                                                       (16000, 8000))) / 1e9,
             "exp_gexps": exp_rate(4 * 10 ** 6 if quick else 4 * 10 ** 7) / 1e9}
    print("machine rates (this run): GEMM float64 {gemm64_gflops:.3g} / float32 "
          "{gemm32_gflops:.3g} GFLOP/s; Cholesky float64 {chol64_gflops:.3g} / float32 "
          "{chol32_gflops:.3g} GFLOP/s; stored-matrix product read {stream32_gbs:.3g} GB/s; "
          "exp {exp_gexps:.3g} G/s".format(**rates), flush=True)
    return rates
