"""What the cost model counts with: the machine's rates, the budget, a fit's fixed overhead.

Pure arithmetic shared by the ridge and SGD planners (:mod:`.ridge`,
:mod:`.sgd`): the rates in force (``kernelkit.get_config()["rates"]``, measured
by ``kernelkit calibrate`` or the reference machine's) with a caller's
overrides, and a memory budget read from None, a number or a size.
"""

from __future__ import annotations

from ..config import REFERENCE_RATES, get_config, parse_memory

__all__ = ["RATES", "FIT_OVERHEAD_S", "rates_in_force", "budget_of", "budget_in_force"]

#: The reference machine's rates (see :data:`kernelkit.config.REFERENCE_RATES`);
#: the rates in force are ``kernelkit.get_config()["rates"]``.
RATES = REFERENCE_RATES

#: Seconds of every ridge fit besides its arithmetic (validation, planning, Python):
#: measured as what a primal fit of 8192 x 253 features takes beyond its counted work
#: (0.044 s measured, 0.013 s counted; ``benchmarks/planner.py``).
FIT_OVERHEAD_S = 0.03


def rates_in_force(rates=None):
    """The configured rates (operations or bytes per second), with ``rates`` overriding some."""
    return dict(get_config()["rates"], **(rates or {}))


def budget_of(memory):
    """A budget in bytes from None (unlimited), a number or a size such as ``"8GB"``."""
    if memory is None:
        return float("inf")
    return float(parse_memory(memory) if isinstance(memory, str) else memory)


def budget_in_force(memory=None):
    """The caller's budget (:func:`budget_of`), or, for None, the configured one
    (``kernelkit.get_config()["memory"]``), as a fit uses."""
    return budget_of(get_config()["memory"] if memory is None else memory)
