"""RBF's grid route: exact float32 matrix products for rows on a grid of integers / s.

Many wide inputs are quantised: 8-bit images are ``a / 255`` with integer
``a`` in [0, 255], counts are integers. When every coordinate of X and Y is
``fl(a / s)`` for integers ``a`` and one scale ``s``, the squared distances
are ``||a - b||^2 / s^2`` with an integer numerator, and that numerator can
be computed *exactly* from a float32 matrix product (twice the float64 rate):
integers up to 2**24 are exact in float32, so if ``||a|| ||b|| <= 2**24`` every
product ``a_k b_k`` and every partial sum of ``a'b`` -- bounded by
``sum |a_k b_k| <= ||a|| ||b||`` whatever order or blocking the BLAS uses -- is
an integer float32 holds, and no operation rounds. The rows are first
shifted by an integer vector (the rounded mean of Y's integers), which
leaves distances unchanged and makes the norms small. The few pairs beyond
the proof are recomputed in float64 (integer products, exact); when they are
more than :data:`MAX_WIDE_SHARE` of the matrix the route is not taken.

The values are then ``exp(-(gamma / s^2) * d)`` with ``d`` an exact integer:
closer to the exact kernel than the float64 expansion, whose round-off is
about ``d eps ||x|| ||y||``. :func:`grid_error_bound` is the proven bound
against the exact kernel of the float64 inputs.

References
----------
Higham, N. J. (2002). Accuracy and Stability of Numerical Algorithms, 2nd ed.
SIAM, sections 2.1 (exactly representable integers) and 3.1.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

__all__ = ["GridRoute", "grid_route", "grid_decision", "grid_centred", "grid_scale",
           "grid_marks",
           "grid_error_bound", "GRID_MIN_FEATURES", "MAX_WIDE_SHARE"]

#: From this many features on the matrix product dominates a Gram tile, so
#: float32 products pay (below, the route is not taken: nothing to gain).
GRID_MIN_FEATURES = 32
#: The route is not taken when more than this share of pairs falls outside the
#: exactness proof (each such pair is recomputed alone, ~30x a product's cost).
MAX_WIDE_SHARE = 0.01
_EXACT = 2.0 ** 24            # integers exact in float32
_EXACT_NORM_SQ = 2.0 ** 52    # squared norms (and their sums) exact in float64
_MAX_SCALE = 2.0 ** 16
_U = 2.0 ** -53
_SAMPLE_ROWS = 32


def _sample(rows):
    """:data:`_SAMPLE_ROWS` rows spread evenly over ``rows`` (a strided view, no copy)."""
    return rows[::max(1, rows.shape[0] // _SAMPLE_ROWS)][:_SAMPLE_ROWS]


def grid_scale(X, Y):
    """The scale s with every coordinate of sampled rows of X and Y equal to ``fl(a / s)``.

    The sample is :data:`_SAMPLE_ROWS` rows of each, spread over the rows
    (so saturated or constant leading rows do not hide the grid). On the
    grid every nonzero ``|x|`` and every gap between distinct values is a
    multiple of ``1 / s``; the candidate is ``rint(1 / smallest of them)``
    (``255`` for 8-bit images, ``1`` for counts; ``1`` when that is at least
    1/2). Only the sampled rows are checked (a cheap rejection of ordinary
    float data): the whole rows are checked by
    :func:`kernelkit._compiled.grid.grid_shifted` later.

    Returns
    -------
    float or None
    """
    from .._compiled.grid import grid_integers

    values = np.unique(np.concatenate([np.ravel(_sample(X)), np.ravel(_sample(Y))]))
    steps = np.concatenate([np.abs(values), np.diff(values)])
    positive = steps[steps > 0]
    with np.errstate(over="ignore", divide="ignore"):
        smallest = positive.min() if positive.size else 1.0
        scale = 1.0 if smallest >= 0.5 else float(np.rint(1.0 / smallest))
    if not 1.0 <= scale <= _MAX_SCALE:
        return None
    for rows in (_sample(X), _sample(Y)):
        if grid_integers(rows, scale) is None:
            return None
    return scale


# Rows prepared by grid_centred, by id: (weak reference, scale, max ||a|| of the
# unshifted integers). The shifted rows no longer show their scale (a saturated
# row shifted may have no coordinate at +-1 / s) nor the size of the rows given.
_MARKS = {}


def _mark(rows, scale, norm):
    key = id(rows)
    _MARKS[key] = (weakref.ref(rows, lambda _, key=key: _MARKS.pop(key, None)), scale, norm)


def grid_marks(rows):
    """``(scale, max ||a||)`` recorded by :func:`grid_centred` for ``rows`` or the
    array they are a view of (a slice of prepared rows), else None."""
    while isinstance(rows, np.ndarray):
        entry = _MARKS.get(id(rows))
        if entry is not None and entry[0]() is rows:
            return entry[1], entry[2]
        rows = rows.base
    return None


def grid_centred(X, Y, scale):
    """Rows on the grid shifted by an integer vector: ``(a - t) / s``, t = rint(s mean(Y)).

    Distances are unchanged (exactly, on the grid) and the integers of the
    prepared rows stay small, so the float32 products of :func:`grid_route`
    are exact for more pairs. ``Y is X`` is kept. The scale and the largest
    norm of the *unshifted* integers (which the rounding of the float64
    inputs grows with, :func:`grid_error_bound`) are recorded with the
    returned rows for :func:`grid_route` (:func:`grid_marks`), found in the
    same pass.

    Returns
    -------
    (ndarray, ndarray) of float64, or None when a row is off the grid
    """
    from .._compiled.grid import grid_shifted

    # Any integer vector keeps the rows on the grid; the rounded mean keeps them small.
    shift = np.rint(Y.mean(axis=0) * scale)
    shifted_x = grid_shifted(X, scale, shift)
    shifted_y = shifted_x if (shifted_x is None or Y is X) else grid_shifted(Y, scale, shift)
    if shifted_x is None or shifted_y is None:
        return None
    (A, top_x), (B, top_y) = shifted_x, shifted_y
    # float64 sums of squared integers: relative error <= d u, so inflate to bound.
    slack = 1.0 + 2.0 * (X.shape[1] + 1) * _U
    _mark(A, scale, math.sqrt(top_x) * slack)
    if B is not A:
        _mark(B, scale, math.sqrt(top_y) * slack)
    return A, B


def grid_error_bound(gamma, scale, norm_x, norm_y):
    """A proven bound of |K_grid - K| per entry, K the exact RBF of the float64 rows.

    Parameters
    ----------
    gamma : float
    scale : float
        The grid's s.
    norm_x, norm_y : float
        The largest integer row norms ``max ||a||``, ``max ||b||`` of the rows
        as given (``x = fl(a / s)``), *not* of shifted rows: the rounding of
        ``a / s`` to float64 grows with ``|a|``.

    Returns
    -------
    float

    Notes
    -----
    The integer distance ``D = ||a - b||^2`` is exact; ``x = (gamma / s^2) D``
    is rounded twice (relative error <= 2u, u = 2**-53) and ``exp`` is
    within 2.2e-16 relative: with ``K x = x e^-x <= 1/e`` that is at most
    ``(2/e + 2) u < 3u`` (taken as 4u). The float64 rows differ from the grid
    points by at most u per coordinate (relative), so the difference vectors
    by ``E <= u (||a|| + ||b||) / s`` and the squared distance ``t^2`` by at
    most ``2 t E + E^2``; ``gamma (2 t E) e^(-gamma t^2) <= E sqrt(2 gamma / e)``
    (its maximum over t), times ``e^(gamma (2 t_max E + E^2))`` for the
    distance the exponential is taken at.
    """
    E = _U * (norm_x + norm_y) / scale
    t_max = (norm_x + norm_y) / scale
    if gamma * (2.0 * t_max * E + E * E) > 1.0:  # so wide a spread: only |K| <= 1 is left
        return 1.0
    spread = math.exp(gamma * (2.0 * t_max * E + E * E))
    return min(1.0, 4.0 * _U + (E * math.sqrt(2.0 * gamma / math.e) + gamma * E * E) * spread)


@dataclass
class GridRoute:
    """Whether RBF's tiles take the grid route, why, and what it needs.

    Attributes
    ----------
    used : bool
    reason : str
    scale : float or None
    A, B : float32 integers of the rows (None when not used)
    aa, bb : their squared norms
    wide_share : float
        The share of pairs recomputed in float64 (outside the exactness proof).
    bound : float
        :func:`grid_error_bound` on these rows (nan when not used).
    """

    used: bool
    reason: str
    scale: float = None
    A: np.ndarray = None
    B: np.ndarray = None
    aa: np.ndarray = None
    bb: np.ndarray = None
    wide_share: float = 0.0
    bound: float = math.nan


_OFF_GRID = GridRoute(False, "rows not on a grid of integers / s (s <= 2^16, integers "
                             "<= 2^24): float64 products")


def _wide_share(aa, bb):
    """The share of pairs with ||a||^2 ||b||^2 > 2**48 (sorted norms, no n x m work)."""
    bb_sorted = np.sort(bb)
    with np.errstate(divide="ignore"):
        threshold = np.where(aa > 0, _EXACT * _EXACT / np.maximum(aa, 1e-300), np.inf)
    wide = len(bb) - np.searchsorted(bb_sorted, threshold, side="right")
    return float(wide.sum()) / max(1, len(aa) * len(bb))


def grid_route(X, Y, gamma):
    """Decide from the prepared rows whether RBF's float64 tiles use exact float32 products.

    Parameters
    ----------
    X, Y : ndarray of shape (n, d), (m, d), float64 (``Y is X`` when symmetric)
        Rows prepared by :func:`grid_centred` (or slices of them) carry their
        scale and the norms of the rows given (:func:`grid_marks`); other rows
        are taken as given, their scale found by :func:`grid_scale`.
    gamma : float

    Returns
    -------
    GridRoute
    """
    from .._compiled.grid import grid_integers

    d = X.shape[1]
    if d < GRID_MIN_FEATURES:
        return GridRoute(False, f"{d} features < {GRID_MIN_FEATURES}: the product is cheap, "
                                "float64 products")
    marks_x, marks_y = grid_marks(X), grid_marks(Y)
    if marks_x is not None and marks_y is not None and marks_x[0] == marks_y[0]:
        scale, given_norms = marks_x[0], (marks_x[1], marks_y[1])
    else:
        scale, given_norms = grid_scale(X, Y), None
    ax = None if scale is None else grid_integers(X, scale)
    ay = ax if (ax is None or Y is X) else grid_integers(Y, scale)
    if ax is None or ay is None:
        return _OFF_GRID
    (A, aa), (B, bb) = ax, ay
    return _route_from_norms(gamma, scale, A, B if Y is not X else A, aa,
                             aa if Y is X else bb, given_norms)


def grid_decision(X, Y, gamma):
    """:func:`grid_route`'s decision on rows *as given* (before ``RBF.prepare``), in one
    read-only pass over X (and Y): what the estimators record in ``plan_``.

    The same steps as ``RBF.prepare`` then :func:`grid_route` -- the scale from
    sampled rows, the shift ``rint(s mean(Y))`` (a pass over Y's columns), the
    squared norms of the shifted integers -- without writing the shifted rows.

    Parameters
    ----------
    X, Y : ndarray of shape (n, d), (m, d), float64 (``Y is X`` when symmetric)
    gamma : float

    Returns
    -------
    GridRoute
        Without the float32 integers (``A``, ``B`` are None).
    """
    from .._compiled.grid import grid_shifted_norms

    d = X.shape[1]
    if d < GRID_MIN_FEATURES:
        return GridRoute(False, f"{d} features < {GRID_MIN_FEATURES}: the product is cheap, "
                                "float64 products")
    scale = grid_scale(X, Y)
    nx = ny = None
    if scale is not None:
        shift = np.rint(Y.mean(axis=0) * scale)
        nx = grid_shifted_norms(X, scale, shift)
        ny = nx if (nx is None or Y is X) else grid_shifted_norms(Y, scale, shift)
    if nx is None or ny is None:
        return _OFF_GRID
    slack = 1.0 + 2.0 * (d + 1) * _U  # as grid_centred
    return _route_from_norms(gamma, scale, None, None, nx[0], ny[0],
                             (math.sqrt(nx[1]) * slack, math.sqrt(ny[1]) * slack))


def _route_from_norms(gamma, scale, A, B, aa, bb, given_norms):
    if not aa.max(initial=0.0) + bb.max(initial=0.0) <= _EXACT_NORM_SQ:
        return GridRoute(False, "integer norms beyond float64's exact integers: float64 products")
    share = _wide_share(aa, bb)
    if share > MAX_WIDE_SHARE:
        return GridRoute(False, f"rows on a grid of integers / {scale:g}, but {share:.1%} of "
                                "pairs have ||a|| ||b|| > 2^24 (float32 sums could round): "
                                "float64 products", scale=scale, wide_share=share)
    if given_norms is None:  # the rows are the inputs: their own integers
        given_norms = (math.sqrt(aa.max(initial=0.0)), math.sqrt(bb.max(initial=0.0)))
    bound = grid_error_bound(gamma, scale, *given_norms)
    fixed = f"; {share:.2%} of pairs beyond it recomputed in float64" if share else ""
    return GridRoute(True, f"rows are integers / {scale:g}: float32 products of integers with "
                           f"||a|| ||b|| <= 2^24 are exact (twice the float64 rate){fixed}; "
                           f"error <= {bound:.1e} per entry", scale=scale, A=A,
                     B=B, aa=aa, bb=bb, wide_share=share, bound=bound)
