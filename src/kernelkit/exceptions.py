"""Exception and warning classes of kernelkit.

Every error kernelkit raises on bad input is a subclass of a built-in
exception (``ValueError``, ``TypeError``, ``MemoryError``) so that generic
handlers keep working, and its message says what is wrong and how to fix it.
"""

__all__ = ["NumericalWarning", "ModelFormatError", "KernelSpecError", "MemoryBudgetError",
           "InvalidParameterError", "NonFiniteKernelError", "DivergenceError"]


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


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter breaks its declared constraint (wrong type, out of range, ...).

    Both a ``ValueError`` and a ``TypeError``, so that handlers written for
    either keep working whichever kind of mistake was made. Raised by
    :func:`kernelkit._validation.validate_params` with one wording everywhere,
    e.g. ``"KernelSVC: max_iter must be an integer >= 1 or None, got 1.5 (float)"``.
    """


class NonFiniteKernelError(ValueError):
    """Kernel values or features came out as inf or NaN from finite inputs.

    The inputs' scale overflows float64 inside the kernel (squared norms or
    inner products of rows with entries near 1e154 and beyond, a polynomial
    of a large inner product, ...). The message names the kernel or feature
    map, the inputs' largest magnitude and the fix: standardise the columns
    (e.g. ``sklearn.preprocessing.StandardScaler``).
    """


class DivergenceError(ValueError):
    """An iterative solver diverged: its coefficients or objective became
    non-finite or exploded. The message says which, and what to change (for
    SGD, a smaller ``eta0``)."""
