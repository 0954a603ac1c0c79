"""What every compiled loop of the package shares: jit options, a vectorising
exp, and the cheap argument checks run once per block.

Compilation is lazy (first call) and cached on disk (``cache=True``);
importing this module compiles nothing. ``error_model="numpy"`` makes
division by zero give inf/nan as numpy does instead of raising, and lets
LLVM vectorise the loops. ``exp`` is the hand-written ``_exp`` below (within
1 ulp of ``np.exp``, 3x faster than numba's ``math.exp`` without SVML).
``fastmath`` is deliberately off: it does not vectorise ``math.exp`` without
SVML, gains nothing measurable here, and ``nnan`` would license dropping the
NaN propagation that the tests pin down.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from numba import njit

_jit = dict(parallel=True, cache=True, nogil=True, error_model="numpy")
# Loops that call _exp: fused multiply-adds allowed ("contract", no other fast-math
# licence): the polynomial runs ~1.5x faster (294 -> 439 M exp/s per core on the
# Zen 4 machine) with the same accuracy (max relative error 2.2e-16 against np.exp).
_jit_fma = dict(_jit, fastmath={"contract"})


# --------------------------------------------------------------------------
# exp that vectorises

# Without SVML (the PyPI llvmlite is not built with it) LLVM turns a
# vectorised math.exp into eight scalar calls to glibc's exp, ~0.2 G/s per
# core; this exp is plain arithmetic, vectorises to AVX-512 and runs ~3x
# faster with the same accuracy (max relative error 2.2e-16 vs np.exp on
# [-708, 0], i.e. <= 1 ulp; subnormal results are rounded once).
# Method (fdlibm's e_exp.c reduction): x = k ln2 + r with |r| <= ln2/2, the
# constant ln2 split in two (Cody-Waite) so k * _LN2_HI is exact; exp(r) by
# its Taylor series to r^13 (truncation < 4e-18 relative); 2^k applied as
# two exact powers of two so results in the subnormal range round only once.
_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42fee00000: 21 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.44269504088896338700e+00


@njit(inline="always", error_model="numpy", cache=True, fastmath={"contract"})
def _exp(x):
    if x < -745.2:  # below half the smallest subnormal: result 0
        x = -745.2
    if x > 710.0:  # above log(max float): result inf
        x = 710.0
    k = np.floor(x * _LOG2E + 0.5)
    if k != k:  # x is NaN: keep the integer conversion defined; p is NaN
        k = 0.0
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
        1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (
            1 / 3628800 + r * (1 / 39916800 + r * (1 / 479001600 + r * (
                1 / 6227020800)))))))))))))
    ki = np.int64(k)
    k1 = ki >> 1
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)  # 2^k1, exact
    s2 = np.int64((ki - k1 + 1023) << 52).view(np.float64)  # 2^(k-k1), exact
    return (p * s1) * s2


# --------------------------------------------------------------------------
# Ctrl-C

def interruptible(func):
    """``func`` with a Ctrl-C during its compiled loop raised as KeyboardInterrupt.

    A signal arriving while numba code runs only sets CPython's pending-signal
    flag (compiled loops never check it). The first Python code run afterwards
    is numba's own: boxing the result calls ``serialize._numba_unpickle``,
    whose frame raises the pending KeyboardInterrupt; the dispatcher then
    returns its result with that exception set, and CPython turns this into
    ``SystemError: CPUDispatcher(...) returned a result with an exception
    set`` whose cause is the KeyboardInterrupt. This wrapper gives the caller
    the KeyboardInterrupt back; every public entry point of
    :mod:`kernelkit._compiled` is wrapped once, in its ``__init__``.
    """
    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except SystemError as exc:
            if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
                raise KeyboardInterrupt from None
            raise

    return call


# --------------------------------------------------------------------------
# argument checks (cheap, once per block)

def _one_thread(entries, threshold):
    """Whether a compiled pass over ``entries`` matrix entries runs on the calling thread
    only: below ``threshold`` entries (a parallel region costs more than it saves there)
    or off the main thread (numba's workqueue layer aborts the process when parallel
    regions are entered from several threads at once)."""
    return entries < threshold or threading.current_thread() is not threading.main_thread()


def _check_2d(name, a, rows=False):
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D numpy array, got {type(a).__name__} "
                         f"with ndim={getattr(a, 'ndim', None)}")
    if a.dtype not in (np.float64, np.float32):
        raise ValueError(f"{name} must be float64 or float32, got {a.dtype}")
    # rows=True also accepts a block of columns of a bigger C array (contiguous
    # rows, a larger row stride): the symmetric Gram engine fills such views.
    row_ok = rows and (a.strides[1] == a.itemsize or a.shape[1] <= 1) and a.strides[0] > 0
    if not (a.flags.c_contiguous or row_ok):
        raise ValueError(f"{name} must be C-contiguous; use np.ascontiguousarray({name})")


def _check_out(out, shape, src=None):
    _check_2d("out", out, rows=True)
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape}, got {out.shape}")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    if src is not None and out is not src and np.may_share_memory(out, src):
        same = (out.__array_interface__["data"][0] == src.__array_interface__["data"][0]
                and out.dtype == src.dtype)
        if not same:
            raise ValueError("out overlaps the input without being the same array; "
                             "pass out=G for in place or a separate array")


def _norms(name, v, size):
    v = np.ascontiguousarray(v, dtype=np.float64)
    if v.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {v.shape}")
    return v


def _offset(diag_offset):
    return -1 if diag_offset is None else int(diag_offset)
