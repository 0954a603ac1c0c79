"""The processors this process may use, and how busy they are (Linux; elsewhere the
CPU count and no pressure).

:func:`usable_cores` is the CPU affinity capped by the whole CPUs of a cgroup v2 CPU
quota (``cpu.max`` of the process's group and its parents): in a container with a
quota of 1 CPU on a 16-core host, 1, where the affinity says 16. Every "how many
threads?" of the package asks it (the tiled Gram engine, the searches' fold threads,
SMO's pages mapped ahead). :func:`cpu_pressure_percent` is the share of the last
10 s in which a runnable task waited for a processor: the group's own
``cpu.pressure`` where Linux keeps one, else the system's ``/proc/pressure/cpu``.
"""

from __future__ import annotations

import os

__all__ = ["usable_cores", "cpu_pressure_percent"]

#: Linux's cgroup v2 tree and the line of /proc/self/cgroup naming this process's group
#: (module names, so that tests point them at files of their own).
_CGROUP_ROOT = "/sys/fs/cgroup"
_SELF_CGROUP = "/proc/self/cgroup"
_SYSTEM_PRESSURE = "/proc/pressure/cpu"


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _cgroup_dirs():
    """This process's cgroup (v2) directory, then its parents up to the root; just the
    root where /proc/self/cgroup has no v2 line (a container sees its own group as /)."""
    text = _read(_SELF_CGROUP) or ""
    own = next((line[3:].strip() for line in text.splitlines() if line.startswith("0::")), "/")
    parts = [p for p in own.split("/") if p and p != ".."]
    return [os.path.join(_CGROUP_ROOT, *parts[:k]) for k in range(len(parts), -1, -1)]


def _quota_cores():
    """Whole CPUs of the tightest cgroup CPU quota ("quota period" in cpu.max) over this
    process's group and its parents, at least 1; None without a quota."""
    cpus = None
    for d in _cgroup_dirs():
        fields = (_read(os.path.join(d, "cpu.max")) or "").split()
        if len(fields) == 2 and fields[0] != "max":
            try:
                whole = max(1, int(fields[0]) // int(fields[1]))
            except (ValueError, ZeroDivisionError):
                continue
            cpus = whole if cpus is None else min(cpus, whole)
    return cpus


def _pressure_of(text):
    for line in (text or "").splitlines():
        if line.startswith("some"):
            try:
                return float(line.split("avg10=")[1].split()[0])
            except (IndexError, ValueError):
                return None
    return None


def cpu_pressure_percent():
    """CPU pressure over the last 10 s in percent: this process's cgroup's own
    (cpu.pressure, what a quota makes it wait) where Linux keeps one, else the
    system's (/proc/pressure/cpu); None where unknown."""
    own = _pressure_of(_read(os.path.join(_cgroup_dirs()[0], "cpu.pressure")))
    return own if own is not None else _pressure_of(_read(_SYSTEM_PRESSURE))


def usable_cores():
    """Cores this process may use: its CPU affinity (the CPU count where there is
    none), at most the whole CPUs of its cgroup's CPU quota, at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    quota = _quota_cores()
    return max(1, cores if quota is None else min(cores, quota))
