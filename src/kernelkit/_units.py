"""Sizes and durations as people read them: ``16 MB``, ``1.5 GB``, ``340 ms``.

Ground floor: imports nothing, so the memory budget (:mod:`kernelkit._budget`)
and the records of automatic choices (:mod:`kernelkit.planning.choices`) print
the same units without either importing the other.

Examples
--------
>>> format_bytes(16 * 1024**2), format_bytes(1.5 * 1024**3), format_bytes(100)
('16 MB', '1.5 GB', '100 B')
>>> format_seconds(0.34), format_seconds(7200.0), format_seconds(float("inf"))
('340 ms', '2.0 h', '-')
"""

from __future__ import annotations

__all__ = ["format_bytes", "format_seconds"]


def format_bytes(nbytes) -> str:
    """A size in binary units with at most three significant digits.

    ``inf`` prints as ``"-"`` (unbounded or not applicable).
    """
    b = float(nbytes)
    if b != b or b == float("inf"):
        return "-"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(b) < 1024 or unit == "TB":
            return f"{b:.0f} {unit}" if unit == "B" or abs(b) >= 100 else f"{b:.3g} {unit}"
        b /= 1024
    return f"{b:.3g} TB"  # pragma: no cover


def format_seconds(s) -> str:
    """A duration in us, ms, s or h; ``inf`` (not applicable) prints as ``"-"``."""
    if s == float("inf"):
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.0f} ms"
    if s < 3600:
        return f"{s:.1f} s"
    return f"{s / 3600:.1f} h"
