"""Exception and warning classes of kernelkit.

Every error kernelkit raises on bad input is a subclass of a built-in
exception (``ValueError``, ``TypeError``, ``MemoryError``) so that generic
handlers keep working, and its message says what is wrong and how to fix it.
"""

__all__ = ["NumericalWarning", "ModelFormatError", "KernelSpecError", "MemoryBudgetError"]


class NumericalWarning(UserWarning):
    """A numerical safeguard was used: jitter added, eigenvalues clipped, ...

    The computation went on and its result is usable, but a reader of the
    output should know, e.g. that ``jitter_`` was added to a Gram matrix.
    """


class ModelFormatError(ValueError):
    """A model file is malformed, truncated, of a newer format, or unknown."""


class KernelSpecError(ValueError):
    """A kernel expression string (e.g. ``"rbf(gamma=0.5) + poly(3)"``) is invalid."""


class MemoryBudgetError(MemoryError):
    """A computation cannot be done within the configured memory budget."""
