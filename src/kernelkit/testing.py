"""Test utilities: the contract every kernel and every combination of kernels satisfies.

``check_kernel(kernel, X)`` is the GPyTorch-style shared contract test of
STYLE.md (habit 12): each kernel's test module calls it on its own data, and
users who write a kernel can call it on theirs.
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np

from . import config
from ._budget import rows_per_block
from .kernels.base import Kernel
from .kernels.rows import KernelRows

__all__ = ["check_kernel"]

# Smallest eigenvalue allowed for a PSD kernel, relative to the largest one:
# eigvalsh of an n x n Gram matrix is accurate to about n * eps * ||K||.
_PSD_TOL = 1e-8
# Memory budget that forces several row blocks (the smallest budget config allows),
# and a budget large enough that the same matrix is one block.
_SMALL_MEMORY = "16MB"
_LARGE_MEMORY = "64GB"
_MIN_BLOCKS = 3


def _fail(kernel, what):
    raise AssertionError(f"check_kernel({kernel!r}): {what}")


def _assert_close(kernel, actual, expected, rtol, what):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        _fail(kernel, f"{what}: shapes differ, {actual.shape} vs {expected.shape}")
    if not (np.isfinite(actual).all() and np.isfinite(expected).all()):
        _fail(kernel, f"{what}: non-finite values")
    # Relative to the largest value, so kernels of tiny or huge scale are judged alike.
    scale = max(np.abs(actual).max(initial=0.0), np.abs(expected).max(initial=0.0))
    err = np.abs(actual - expected)
    bound = rtol * np.abs(expected) + rtol * scale
    if (err > bound).any():
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        _fail(kernel, f"{what}: largest violation at index {tuple(int(j) for j in i)}: "
                      f"{actual[i]!r} vs {expected[i]!r} (rtol={rtol:g}, scale={scale:.3g})")


def _holds_callable(kernel):
    for value in kernel.get_params(deep=True).values():
        if callable(value) and not isinstance(value, Kernel):
            return True
    return False


def _n_rows(X):
    return len(X)


def _tile(X, reps):
    if isinstance(X, np.ndarray):
        return np.concatenate([X] * reps, axis=0)
    return list(X) * reps


def _is_vector_input(X):
    return isinstance(X, np.ndarray) and X.dtype.kind in "biuf" and X.ndim == 2


def check_kernel(kernel, X, Y=None, *, rtol=1e-10):
    """Check that a kernel satisfies the contract of every kernelkit kernel.

    Checks, in order:

    1. ``K = kernel(X)`` is square and symmetric;
    2. ``kernel.diag(X)`` equals the diagonal of ``K``;
    3. ``kernel(X, Y)`` equals ``kernel(Y, X).T`` (with ``Y`` or, if not
       given, the second half of ``X`` against the first half);
    4. when ``kernel.is_psd``, the smallest eigenvalue of ``K`` is at least
       ``-1e-8`` times the largest;

    A kernel with a data-dependent width (``gamma="scale"``) is resolved on
    ``X`` first (:meth:`~kernelkit.kernels.Kernel.resolve`); checks 1-4 and
    7-10 are of the resolved kernel, 5-6 of the kernel as given.

    5. reconstruction: ``type(k)(**k.get_params(deep=False)) == k``,
       ``sklearn.base.clone(k) == k``, and ``set_params(**get_params())``
       changes nothing;
    6. the structured and text forms round-trip without ``eval``:
       ``kernel_from_dict(k.to_dict()) == k`` (and the dict is JSON) and
       ``parse_kernel(repr(k)) == k``; a kernel holding a Python callable
       (``Warped``, ``Composed``) must instead make ``to_dict`` raise ``TypeError``;
    7. the Gram matrix computed in several row blocks (a 16MB budget, ``X``
       repeated until several blocks are needed) equals the one-block result;
    8. for numeric ``X``, float32 input gives values close to float64 input
       holding the same (float32-rounded) numbers;
    9. for strings (a kernel with ``input_kind == "string"``), the same
       strings as a list, a ``"<U"`` array and an object array give the same
       Gram matrix;
    10. the block API (:meth:`~kernelkit.kernels.Kernel.prepare`,
        :meth:`~kernelkit.kernels.Kernel.block`,
        :meth:`~kernelkit.kernels.Kernel.diag_prepared` and
        :class:`~kernelkit.kernels.KernelRows`): every block, row selection and
        lower-triangle block equals the corresponding submatrix of the Gram
        matrices above, the diagonal equals their diagonal, a block written
        into ``out`` equals an allocated one, and float32 blocks
        (``KernelRows(..., dtype=np.float32)``, a kernel's float32 fast path
        where it has one) are close to the float64 ones (relative tolerance
        ``max(rtol, 1e-5)``).

    Parameters
    ----------
    kernel : Kernel
        The kernel to check. It is not modified.
    X : array-like of shape (n_samples, n_features), or a list of objects
        Sample inputs, at least 2; use a few dozen rows (a list of str for
        string kernels).
    Y : same kind as X, optional
        Second sample for the cross-matrix check.
    rtol : float, default=1e-10
        Relative tolerance (relative to the largest entry) of the equality
        checks. The float32 checks use ``max(rtol, 1e-6)`` (float32 input)
        and ``max(rtol, 1e-5)`` (float32 blocks).

    Raises
    ------
    AssertionError
        With a message naming the kernel and the failed property.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Linear
    >>> from kernelkit.testing import check_kernel
    >>> X = np.random.default_rng(0).standard_normal((20, 3))
    >>> check_kernel(RBF(gamma=0.5) + 0.1 * Linear(), X)
    """
    import scipy.linalg
    from sklearn.base import clone

    from .kernels.registry import kernel_from_dict, parse_kernel

    if not isinstance(kernel, Kernel):
        raise AssertionError(f"check_kernel: expected a kernelkit Kernel, got "
                             f"{type(kernel).__name__}")
    n = _n_rows(X)
    if n < 2:
        raise AssertionError("check_kernel: X needs at least 2 samples")
    if Y is None:
        half = n // 2
        X_a, X_b = X[:half], X[half:]
    else:
        X_a, X_b = X, Y
    # A data-dependent width (gamma="scale", the default of the distance kernels)
    # is fixed on X once, as an estimator's fit does: the values checked are the
    # resolved kernel's, the parameters and text forms (5, 6) the kernel's as given.
    given = kernel
    if not kernel.is_resolved:
        kernel = kernel.resolve(X if kernel.input_kind not in ("vector", "any")
                                else np.asarray(X))

    # 1. symmetry
    K = np.asarray(kernel(X))
    if K.shape != (n, n):
        _fail(kernel, f"kernel(X) has shape {K.shape}, expected {(n, n)}")
    _assert_close(kernel, K, K.T, rtol, "K(X) is not symmetric")

    # 2. diag
    d = np.asarray(kernel.diag(X))
    if d.shape != (n,):
        _fail(kernel, f"diag(X) has shape {d.shape}, expected {(n,)}")
    _assert_close(kernel, d, np.diagonal(K), rtol, "diag(X) differs from the Gram diagonal")

    # 3. K(X, Y) == K(Y, X).T
    Kab = np.asarray(kernel(X_a, X_b))
    Kba = np.asarray(kernel(X_b, X_a))
    if Kab.shape != (_n_rows(X_a), _n_rows(X_b)):
        _fail(kernel, f"kernel(X, Y) has shape {Kab.shape}")
    _assert_close(kernel, Kab, Kba.T, rtol, "K(X, Y) differs from K(Y, X).T")

    # 4. PSD on this sample
    if kernel.is_psd:
        w = scipy.linalg.eigvalsh((K + K.T) / 2)
        threshold = -_PSD_TOL * max(abs(w[-1]), np.finfo(np.float64).tiny)
        if w[0] < threshold:
            _fail(kernel, f"is_psd is True but K(X) has smallest eigenvalue {w[0]:.3g} "
                          f"< -{_PSD_TOL:g} x largest {w[-1]:.3g}")

    # 5. parameters: reconstruction, clone, set_params(**get_params()) no-op
    kernel, resolved = given, kernel
    params = kernel.get_params(deep=False)
    rebuilt = type(kernel)(**params)
    if rebuilt != kernel:
        _fail(kernel, f"type(k)(**k.get_params(deep=False)) gives {rebuilt!r}, not equal to k")
    try:
        cloned = clone(kernel)
    except Exception as exc:  # noqa: BLE001 - report whatever clone raises
        _fail(kernel, f"sklearn.base.clone failed: {type(exc).__name__}: {exc}")
    if cloned != kernel:
        _fail(kernel, f"sklearn.base.clone gives {cloned!r}, not equal to k")
    for deep in (False, True):
        other = copy.deepcopy(kernel)
        other.set_params(**other.get_params(deep=deep))
        if other != kernel:
            _fail(kernel, f"set_params(**get_params(deep={deep})) changed the kernel "
                          f"to {other!r}")

    # 6. structured and text round trips
    if _holds_callable(kernel):
        try:
            kernel.to_dict()
        except TypeError:
            pass
        else:
            _fail(kernel, "to_dict() must raise TypeError for a kernel holding a callable")
    else:
        spec = kernel.to_dict()
        try:
            spec = json.loads(json.dumps(spec))
        except (TypeError, ValueError) as exc:
            _fail(kernel, f"to_dict() is not JSON-serialisable: {exc}")
        back = kernel_from_dict(spec)
        if back != kernel:
            _fail(kernel, f"kernel_from_dict(k.to_dict()) gives {back!r}")
        text = repr(kernel)
        try:
            parsed = parse_kernel(text)
        except Exception as exc:  # noqa: BLE001
            _fail(kernel, f"parse_kernel(repr(k)) failed on {text!r}: "
                          f"{type(exc).__name__}: {exc}")
        if parsed != kernel:
            _fail(kernel, f"parse_kernel(repr(k)) gives {parsed!r} ({type(parsed).__name__} "
                          f"tree), not equal to k")

    # 7. blocked == one block
    kernel = resolved
    reps = 1
    while True:
        big = _tile(X, reps)
        m = _n_rows(big)
        with config.config_context(memory=_SMALL_MEMORY):
            step = rows_per_block(m)
        if math.ceil(m / step) >= _MIN_BLOCKS:
            break
        reps *= 2
    with config.config_context(memory=_SMALL_MEMORY):
        K_blocked = np.asarray(kernel(big))
    with config.config_context(memory=_LARGE_MEMORY):
        if rows_per_block(m) < m:  # pragma: no cover - only for huge X
            _fail(kernel, "X is too large for the one-block reference")
        K_one = np.asarray(kernel(big))
    _assert_close(kernel, K_blocked, K_one, rtol, "the Gram matrix computed in row blocks "
                                                  "differs from the one-block result")

    # 8. float32 input
    if not isinstance(X, (list, tuple)) and _is_vector_input(np.asarray(X)):
        X32 = np.asarray(X).astype(np.float32)
        K32 = np.asarray(kernel(X32))
        K64 = np.asarray(kernel(X32.astype(np.float64)))
        _assert_close(kernel, K32, K64, max(rtol, 1e-6),
                      "float32 input gives values far from float64 input")

    # 9. strings in any container
    if kernel.input_kind == "string":
        as_list = [str(v) for v in X]
        objects = np.empty(len(as_list), dtype=object)
        objects[:] = as_list
        for other, what in ((np.array(as_list, dtype=str), "a '<U' array"),
                            (objects, "an object array")):
            _assert_close(kernel, np.asarray(kernel(other)), np.asarray(kernel(as_list)), rtol,
                          f"the strings as {what} give another Gram matrix than as a list")

    # 10. the block API
    _check_block_api(kernel, X, X_a, X_b, K, Kab, rtol)


def _check_block_api(kernel, X, X_a, X_b, K, Kab, rtol):
    """Blocks, rows and diagonal of the block API against the Gram matrices ``K`` and ``Kab``."""
    Xv = kernel.check_input(X, "X")
    n = _n_rows(Xv)
    h = n // 2
    rows = KernelRows(kernel, Xv)
    if rows.shape != (n, n):
        _fail(kernel, f"KernelRows(k, X).shape is {rows.shape}, expected {(n, n)}")
    for r0, r1 in ((0, h), (h, n)):
        _assert_close(kernel, rows.block(r0, r1), K[r0:r1], rtol,
                      f"KernelRows(k, X).block({r0}, {r1}) differs from rows {r0}:{r1} of K(X)")
    _assert_close(kernel, rows.block(h, n, lower=True), K[h:, :n], rtol,
                  "KernelRows(k, X).block(lower=True) differs from the lower triangle of K(X)")
    _assert_close(kernel, rows.block(0, h, lower=True), K[:h, :h], rtol,
                  "KernelRows(k, X).block(lower=True) differs from the lower triangle of K(X)")
    index, columns = np.arange(n)[::-2], np.arange(n)[::3]
    _assert_close(kernel, rows.rows(index, columns), K[np.ix_(index, columns)], rtol,
                  "KernelRows(k, X).rows(index, columns) differs from the submatrix of K(X)")
    _assert_close(kernel, rows.diag(), np.diagonal(K), rtol,
                  "KernelRows(k, X).diag() differs from the Gram diagonal")
    # The methods of Kernel itself, on prepared inputs.
    Xp, Yp = kernel.prepare(Xv)
    _assert_close(kernel, kernel.block(Xp[h:], Yp, h), K[h:], rtol,
                  "kernel.block(Xp[h:], Xp, diag_offset=h) differs from rows h: of K(X)")
    out = np.full((n, n), np.nan)
    _assert_close(kernel, kernel.block(Xp, Yp, 0, out=out), K, rtol,
                  "kernel.block(..., out=out) differs from K(X)")
    _assert_close(kernel, out, K, rtol, "kernel.block(..., out=out) did not fill out")
    _assert_close(kernel, kernel.diag_prepared(Xp), np.diagonal(K), rtol,
                  "kernel.diag_prepared(Xp) differs from the Gram diagonal")
    # Cross blocks, and float32 blocks of the same inputs.
    Xa, Xb = kernel.check_input(X_a, "X"), kernel.check_input(X_b, "Y")
    na = _n_rows(Xa)
    cross = KernelRows(kernel, Xa, Xb)
    _assert_close(kernel, cross.block(0, na), Kab, rtol,
                  "KernelRows(k, X, Y).block differs from K(X, Y)")
    if _is_vector_input(np.asarray(Xa)) and _is_vector_input(np.asarray(Xb)):
        Xa, Xb = np.asarray(Xa, dtype=np.float32), np.asarray(Xb, dtype=np.float32)
        K64 = np.asarray(kernel(Xa.astype(np.float64), Xb.astype(np.float64)))
    else:
        K64 = Kab
    K32 = KernelRows(kernel, Xa, Xb, dtype=np.float32).block(0, na)
    if K32.dtype != np.float32:
        _fail(kernel, f"KernelRows(..., dtype=np.float32).block has dtype {K32.dtype}")
    _assert_close(kernel, K32, K64, max(rtol, 1e-5),
                  "float32 blocks (KernelRows(..., dtype=np.float32)) are far from float64 ones")
