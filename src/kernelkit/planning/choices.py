"""The records of a fit's automatic choices, as the planning room names them.

:class:`Choice`, :class:`Candidate` and :class:`Plan` live on the ground floor
(:mod:`kernelkit._choices`), so that solvers and the Gram operator report what
they find in the data without importing the planning room; they are the same
classes here (``from kernelkit.planning import Choice`` keeps working).
"""

from __future__ import annotations

from .._choices import Candidate, Choice, Plan

__all__ = ["Candidate", "Choice", "Plan"]
