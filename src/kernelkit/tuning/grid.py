"""Checks of a hyperparameter grid: is the chosen value at its edge?

A value chosen at the smallest or largest point of its grid says that the
optimum may lie outside the grid: the search should be widened. Every CV
estimator and the command line call :func:`warn_if_on_edge` for each searched
hyperparameter and record the returned :class:`~kernelkit.planning.Choice`
in their ``plan_``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._choices import Choice

__all__ = ["GridEdgeWarning", "on_edge", "warn_if_on_edge"]


class GridEdgeWarning(UserWarning):
    """A hyperparameter was chosen at the smallest or largest value of its grid.

    The best value may lie beyond the grid: extend the grid on that side
    (e.g. ``alphas=np.logspace(-8, 2, 11)``) and fit again.
    """


def _as_sorted_numbers(grid):
    """The distinct numeric values of a grid, sorted; None if it is not numeric."""
    try:
        values = np.asarray(list(grid), dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None
    if values.size == 0 or not np.isfinite(values).all():
        return None
    return np.unique(values)


def on_edge(grid, chosen):
    """Where a chosen value sits in its numeric grid.

    Parameters
    ----------
    grid : iterable of float
        The values tried.
    chosen : float
        The value chosen.

    Returns
    -------
    {"smallest", "largest", None}
        ``"smallest"``/``"largest"`` if ``chosen`` equals (to 1e-12 relative)
        the grid's smallest/largest of at least two distinct values; None
        otherwise, also for a grid of one value or of non-numeric values
        (nothing to say then).
    """
    values = _as_sorted_numbers(grid)
    if values is None or values.size < 2:
        return None
    try:
        c = float(chosen)
    except (TypeError, ValueError):
        return None
    if np.isclose(c, values[0], rtol=1e-12, atol=0.0):
        return "smallest"
    if np.isclose(c, values[-1], rtol=1e-12, atol=0.0):
        return "largest"
    return None


def warn_if_on_edge(name, grid, chosen, *, stacklevel=2):
    """Warn :class:`GridEdgeWarning` if ``chosen`` is the smallest or largest of ``grid``.

    Parameters
    ----------
    name : str
        The hyperparameter's name as the user wrote it (``"alpha"``, ``"gamma"``,
        ``"C"``).
    grid : iterable of float
        The values tried (any order; non-numeric grids are never on an edge).
    chosen : float
        The value chosen.
    stacklevel : int, default=2
        Passed to :func:`warnings.warn` (2: the caller's caller sees it).

    Returns
    -------
    Choice
        ``Choice(f"{name} within its grid", True/False, reason)``, for the
        caller's ``plan_``: ``value`` is False when the choice is on an edge.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     choice = warn_if_on_edge("alpha", [1e-3, 1e-2, 1e-1], 1e-3)
    >>> choice.value, caught[0].category.__name__
    (False, 'GridEdgeWarning')
    """
    values = _as_sorted_numbers(grid)
    edge = on_edge(grid, chosen)
    what = f"{name} within its grid"
    if edge is None:
        if values is None or values.size < 2:
            return Choice(what, True, "a single value or a non-numeric grid: no edge")
        return Choice(what, True, f"{chosen:.4g} lies inside [{values[0]:.4g}, {values[-1]:.4g}]")
    side = "below" if edge == "smallest" else "above"
    reason = (f"{name}={chosen:.4g} is the {edge} of the {values.size} values tried "
              f"([{values[0]:.4g}, {values[-1]:.4g}]); the best {name} may lie {side} the grid")
    warnings.warn(f"{reason}: extend the grid {side} and fit again.", GridEdgeWarning,
                  stacklevel=stacklevel + 1)
    return Choice(what, False, reason)
