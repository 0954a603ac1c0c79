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
    0 is silent, 1 shows progress bars on long work (needs ``tqdm``).

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
import os
import re

__all__ = ["get_config", "set_config", "config_context", "parse_memory"]

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
        else:
            raise ValueError(f"unknown kernelkit setting {key!r}; known: memory, dtype, verbosity")
        out[key] = value
    return out


def get_config() -> dict:
    """Return the settings in force (a copy): ``memory``, ``dtype``, ``verbosity``."""
    if not _global:
        _global.update(memory=_default_memory(), dtype="float64", verbosity=0)
    cfg = dict(_global)
    local = _local.get()
    if local:
        cfg.update(local)
    return cfg


def set_config(memory=None, dtype=None, verbosity=None) -> None:
    """Change settings globally (for this process). ``None`` leaves a setting as it is."""
    get_config()
    _global.update(_validated(memory=memory, dtype=dtype, verbosity=verbosity))


@contextlib.contextmanager
def config_context(*, memory=None, dtype=None, verbosity=None):
    """Change settings inside a ``with`` block only (thread- and task-local).

    Parameters
    ----------
    memory : int or str, optional
        Memory budget, e.g. ``"2GB"``.
    dtype : {"float64", "float32"}, optional
        Storage precision of large computed matrices for float32 input.
    verbosity : int, optional
        0 silent, 1 progress bars.
    """
    new = dict(_local.get() or {})
    new.update(_validated(memory=memory, dtype=dtype, verbosity=verbosity))
    token = _local.set(new)
    try:
        yield
    finally:
        _local.reset(token)
