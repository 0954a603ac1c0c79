"""The records of a fit's automatic choices: :class:`Choice`, :class:`Candidate`, :class:`Plan`.

Plain frozen dataclasses on the ground floor. The planner
(:mod:`kernelkit.planning`, which re-exports them) returns them, an estimator
keeps them in ``plan_`` and prints ``Plan.explain()`` at verbosity >= 1, and a
solver, the Gram operator or a search reports through a :class:`Choice` what it
found in the data (a preconditioner's rank, merged rows, a grid's edge) without
importing the planning room: this module imports only the ground floor's unit
formatting (:mod:`kernelkit._units`, which imports nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ._units import format_bytes, format_seconds

__all__ = ["Candidate", "Choice", "Plan"]


@dataclass(frozen=True)
class Candidate:
    """One strategy with its predicted cost.

    Attributes
    ----------
    name : str
    seconds : float
        Predicted time.
    memory : float
        Predicted peak bytes of the strategy's big arrays.
    feasible : bool
        Whether it is applicable and fits the memory budget.
    note : str
        Why it is infeasible, or what dominates its cost.
    """

    name: str
    seconds: float
    memory: float
    feasible: bool
    note: str = ""


@dataclass(frozen=True)
class Choice:
    """One automatic choice made for a fit, and why.

    Attributes
    ----------
    what : str
        What was decided, e.g. ``"store the Gram matrix"``.
    value : object
        The outcome (``True``/``False``, a solver name, ...).
    reason : str
        Why, in words a user reads (sizes against the budget, a forced setting).
    """

    what: str
    value: object
    reason: str

    def __str__(self):
        return f"{self.what}: {self.value} ({self.reason})"


@dataclass(frozen=True)
class Plan:
    """The planner's answer: the chosen strategy, all candidates, the reason, and
    the other automatic choices of the fit (:class:`Choice`)."""

    choice: str
    candidates: tuple = field(default_factory=tuple)
    reason: str = ""
    problem: dict = field(default_factory=dict)
    choices: tuple = field(default_factory=tuple)

    def with_choices(self, *choices):
        """This plan with more automatic choices recorded."""
        return replace(self, choices=self.choices + tuple(c for c in choices if c is not None))

    def explain(self) -> str:
        """The candidates as a table of predicted time and memory, the reason, and
        the other automatic choices."""
        head = ", ".join(f"{k}={v}" for k, v in self.problem.items())
        lines = [f"plan for {head}" if head else "plan"]
        if self.candidates:
            lines.append(f"{'strategy':<28}{'time':>12}{'memory':>12}  note")
        for c in self.candidates:
            mark = "->" if c.name == self.choice else ("  " if c.feasible else " x")
            lines.append(f"{mark}{c.name:<26}{format_seconds(c.seconds):>12}"
                         f"{format_bytes(c.memory):>12}  {c.note}")
        lines.append(f"choice: {self.choice}: {self.reason}")
        lines.extend(f"  {c}" for c in self.choices)
        return "\n".join(lines)

    def __str__(self):
        return self.explain()
