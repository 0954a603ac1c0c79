"""Global settings of kernelkit and a context manager to change them locally.

Settings
--------
memory : int
    Memory budget in bytes that every blocked computation respects (Gram
    blocks, feature blocks, caches). Default: 70% of the RAM available when
    first asked, at least 256 MB, overridable with the ``KERNELKIT_MEMORY``
    environment variable (``"2GB"``, ``"512MB"``, ``"1073741824"``).
dtype : {"float64", "float32"}
    Precision of large computed matrices (Gram matrices, features) when the
    input is float32. Accumulation is always float64. ``"float64"`` (default)
    returns float64 matrices; ``"float32"`` stores them in float32 to halve
    memory and bandwidth.
verbosity : int
    0 is silent, 1 shows progress bars on long work (needs ``tqdm``) and prints
    the automatic choices of a fit (its ``plan_``).
rates : dict
    This machine's rates for the planner (``gemm``, ``cholesky``,
    ``kernel_entries``, ``elementwise``, ``sgd_step``; see
    :data:`REFERENCE_RATES`). Default: the rates measured by ``kernelkit
    calibrate`` on this machine if they were cached, else the reference
    machine's. ``get_config()["rates_source"]`` says which, so that a plan
    (``solver="auto"``) never depends on state the settings do not show. A
    partial dict overrides only the rates it names.

Examples
--------
>>> import kernelkit
>>> with kernelkit.config_context(memory="64MB"):
...     kernelkit.get_config()["memory"]
67108864
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import platform
import re
from pathlib import Path

__all__ = ["get_config", "set_config", "config_context", "parse_memory", "reload_rates",
           "matrix_dtype", "REFERENCE_RATES", "rates_cache_path", "machine_key"]

#: Sustained rates on the reference machine (2-core Zen 4; see BENCHMARKS.md):
#: GEMM-like flops, Cholesky flops, kernel entries per second (elementwise exp
#: included), simple elementwise operations, and element-updates per second of
#: the compiled SGD loops (serial reductions: slower than elementwise), and
#: ``stream``: bytes per second of a matrix read from memory by a matrix-vector
#: product (a stored K_nM in each of Falkon's iterations).
#: ``kernelkit calibrate`` measures them on the machine at hand (its ``cholesky`` is
#: ``dpotrf`` alone since method 2: 80-90e9 on the reference machine, whose default here
#: stays at a conservative 60e9 for machines never calibrated).
REFERENCE_RATES = {"gemm": 90e9, "cholesky": 60e9, "kernel_entries": 4e8, "elementwise": 1e9,
                   "sgd_step": 4e8, "stream": 3e10}

_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2,
          "MIB": 1024**2, "G": 1024**3, "GB": 1024**3, "GIB": 1024**3, "T": 1024**4,
          "TB": 1024**4, "TIB": 1024**4}
_DTYPES = ("float64", "float32")
_MIN_MEMORY = 16 * 1024**2


def parse_memory(value) -> int:
    """Convert a memory size such as ``"2GB"``, ``"512 MiB"`` or ``1e9`` to bytes.

    Units are binary (1 GB = 1024**3 bytes), as in most memory tools.

    Parameters
    ----------
    value : int, float or str
        Number of bytes, or a number followed by a unit (B, KB, MB, GB, TB).

    Returns
    -------
    int
        The size in bytes.

    Raises
    ------
    ValueError
        If the value cannot be read or is not positive.
    """
    if isinstance(value, bool):
        raise ValueError(f"memory must be a size such as '2GB' or a number of bytes, got {value!r}")
    if isinstance(value, (int, float)):
        n = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", value)
        if not m or m.group(2).upper() not in _UNITS:
            raise ValueError(
                f"cannot read memory size {value!r}; write e.g. '2GB', '512MB' or a number of bytes")
        n = float(m.group(1)) * _UNITS[m.group(2).upper()]
    else:
        raise ValueError(f"memory must be a size such as '2GB' or a number of bytes, got {value!r}")
    if not n >= 1 or n != n or n == float("inf"):
        raise ValueError(f"memory must be positive and finite (at least 1 byte), got {value!r}")
    return int(n)


def _available_ram() -> int:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a small laptop
        return 8 * 1024**3


def _default_memory() -> int:
    env = os.environ.get("KERNELKIT_MEMORY")
    if env:
        try:
            return parse_memory(env)
        except ValueError as exc:
            raise ValueError(f"environment variable KERNELKIT_MEMORY: {exc}") from None
    return max(256 * 1024**2, int(_available_ram() * 0.7))


def rates_cache_path() -> Path:
    """Where ``kernelkit calibrate`` caches this machine's rates
    (``$KERNELKIT_CACHE_DIR/rates.json``, default ``~/.cache/kernelkit``)."""
    root = os.environ.get("KERNELKIT_CACHE_DIR") or Path.home() / ".cache" / "kernelkit"
    return Path(root) / "rates.json"


#: How ``kernelkit calibrate`` measures (in its cache file): a cache written by another
#: method is ignored. 2: the Cholesky rate of ``dpotrf`` alone (method 1 timed
#: ``scipy.linalg.cholesky`` with its checks and copies, about half the rate).
RATES_METHOD = 2


def machine_key() -> str:
    """What identifies this machine in the rates cache (a cache of another is ignored)."""
    return f"{platform.machine()}-{os.cpu_count()}-{platform.processor() or 'cpu'}"


def _default_rates():
    """(rates, source): the cached measurement of this machine, else the reference rates."""
    rates = dict(REFERENCE_RATES)
    path = rates_cache_path()
    try:
        stored = json.loads(path.read_text())
        if stored.get("machine") == machine_key() and stored.get("method") == RATES_METHOD:
            measured = _check_rates(stored["rates"])
            if set(measured) == set(REFERENCE_RATES):
                rates.update(measured)
                return rates, f"measured on this machine ({path})"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # nothing cached (or unreadable): the reference machine's rates
    return rates, "reference machine (run `kernelkit calibrate` to measure this one)"


def _check_rates(value) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"rates must be a dict such as {{'gemm': 9e10}}, got {value!r}")
    out = {}
    for key, rate in value.items():
        if key not in REFERENCE_RATES:
            raise ValueError(f"unknown rate {key!r}; known: {', '.join(REFERENCE_RATES)}")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (
                math.isfinite(rate) and rate > 0):
            raise ValueError(f"rate {key!r} must be a positive finite number, got {rate!r}")
        out[key] = float(rate)
    return out


_global: dict = {}
_local: contextvars.ContextVar = contextvars.ContextVar("kernelkit_config", default=None)


def _validated(**settings) -> dict:
    out = {}
    for key, value in settings.items():
        if value is None:
            continue
        if key == "memory":
            value = parse_memory(value)
            if value < _MIN_MEMORY:
                raise ValueError(f"memory budget must be at least 16MB, got {value} bytes")
        elif key == "dtype":
            if value not in _DTYPES:
                raise ValueError(f"dtype must be one of {_DTYPES}, got {value!r}")
        elif key == "verbosity":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"verbosity must be an int >= 0, got {value!r}")
        elif key == "rates":
            value = _check_rates(value)
        else:
            raise ValueError(f"unknown kernelkit setting {key!r}; known: memory, dtype, "
                             "verbosity, rates")
        out[key] = value
    return out


def _merge(base: dict, new: dict, how: str) -> None:
    """Apply validated settings to ``base``; rates merge over the rates in force."""
    for key, value in new.items():
        if key == "rates":
            base["rates"] = dict(base.get("rates") or _ensure_global()["rates"], **value)
            base["rates_source"] = f"set by {how}"
        else:
            base[key] = value


def _ensure_global() -> dict:
    if not _global:
        rates, source = _default_rates()
        _global.update(memory=_default_memory(), dtype="float64", verbosity=0, rates=rates,
                       rates_source=source)
    return _global


def get_config() -> dict:
    """Return the settings in force (a copy): ``memory``, ``dtype``, ``verbosity``,
    ``rates`` and ``rates_source`` (where the rates come from)."""
    cfg = dict(_ensure_global())
    local = _local.get()
    if local:
        cfg.update(local)
    cfg["rates"] = dict(cfg["rates"])
    return cfg


def set_config(memory=None, dtype=None, verbosity=None, rates=None) -> None:
    """Change settings globally (for this process). ``None`` leaves a setting as it is."""
    _merge(_ensure_global(), _validated(memory=memory, dtype=dtype, verbosity=verbosity,
                                        rates=rates), "set_config")


def matrix_dtype(*inputs):
    """The dtype policy, in one place: the dtype of the large matrices computed from
    ``inputs`` (Gram matrices and their blocks, K_nM, features).

    ``numpy.float32`` when the setting ``dtype`` is ``"float32"`` and every input is
    float32, else ``numpy.float64``. Sums are accumulated in float64 either way;
    inputs without a dtype (lists of strings or objects) count as not float32.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.ones((2, 2), dtype=np.float32)
    >>> matrix_dtype(x).__name__
    'float64'
    >>> with config_context(dtype="float32"):
    ...     matrix_dtype(x).__name__, matrix_dtype(x, x.astype(np.float64)).__name__
    ('float32', 'float64')
    """
    import numpy as np  # here: importing kernelkit.config loads no numerics

    if get_config()["dtype"] == "float32" and all(
            getattr(a, "dtype", None) == np.float32 for a in inputs):
        return np.float32
    return np.float64


def reload_rates() -> dict:
    """Read this machine's rates again from the cache (after ``kernelkit calibrate``),
    replacing the global ones; returns them."""
    rates, source = _default_rates()
    _ensure_global().update(rates=rates, rates_source=source)
    return dict(rates)


@contextlib.contextmanager
def config_context(*, memory=None, dtype=None, verbosity=None, rates=None):
    """Change settings inside a ``with`` block only (thread- and task-local).

    Parameters
    ----------
    memory : int or str, optional
        Memory budget, e.g. ``"2GB"``.
    dtype : {"float64", "float32"}, optional
        Storage precision of large computed matrices for float32 input.
    verbosity : int, optional
        0 silent, 1 progress bars and the automatic choices of each fit.
    rates : dict, optional
        Planner rates to use (a partial dict overrides only what it names).
    """
    new = dict(_local.get() or {})
    valid = _validated(memory=memory, dtype=dtype, verbosity=verbosity, rates=rates)
    if "rates" in valid:
        new.setdefault("rates", get_config()["rates"])
    _merge(new, valid, "config_context")
    token = _local.set(new)
    try:
        yield
    finally:
        _local.reset(token)
