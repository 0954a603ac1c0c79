"""Losses given by the user: any L2-regularised linear model can be kernelised.

The representer theorem holds for every loss l(z; y) of the score z = f(x):
the minimiser of (alpha/2)||f||_H^2 + sum_i l(f(x_i); y_i) is
f = sum_j u_j k(., x_j). So a loss is all a kernel machine needs besides the
kernel: its value, its derivative in z (for the gradient solvers) and, if
Newton's method is to be used, its second derivative (the curvature).

:func:`make_loss` wraps three vectorised callables into a :class:`UserLoss`,
which the solvers use as the built-in :class:`~kernelkit.solvers.losses.Loss`
(Newton with the curvature, L-BFGS without it). :func:`check_user_loss` probes
it on the data's labels before a fit: vectorised callables, finite values,
a derivative that agrees with the value's central differences, a curvature
>= 0 (a convex loss; Newton's steps need it).

Pure numerics: no printing.

References
----------
Kimeldorf, G. and Wahba, G. (1971). Some results on Tchebycheffian spline
functions. Journal of Mathematical Analysis and Applications 33, 82-95.
Schoelkopf, B., Herbrich, R. and Smola, A. J. (2001). A generalized
representer theorem. COLT 2001, 416-426.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .losses import LOSSES, Loss

__all__ = ["UserLoss", "make_loss", "check_user_loss", "is_user_loss"]

_KINDS = ("regression", "margin")
# Probe offsets from the label (regression) and margins y z (margin losses): away
# from the usual kinks (+-1, +-eps of the built-in losses) so that a piecewise
# loss's central differences are taken on one piece. The offset 0 (z = y, the kink
# of any l(z - y)) is probed for finite values only, not against central differences.
_OFFSETS = np.array([-3.7, -1.3, -0.55, -0.17, 0.0, 0.23, 0.61, 1.45, 2.9])
_MARGINS = np.array([-3.3, -1.7, -0.4, 0.3, 0.77, 1.6, 3.1])
_H = 1e-6  # central-difference step (relative to 1 + |z|)


@dataclass(frozen=True, eq=False)
class UserLoss(Loss):
    """A loss l(z; y) from the user's callables (build it with :func:`make_loss`).

    Attributes
    ----------
    name : str
    classification : bool
        ``kind == "margin"``: labels are -1/+1 (KernelMachineClassifier).
    smooth : bool
        Whether a curvature was given (Newton applies).
    value_fn, gradient_fn, curvature_fn : callable
        ``fn(z, y)`` on float64 arrays of one shape, returning that shape.
    """

    value_fn: Callable = field(default=None, repr=False)
    gradient_fn: Callable = field(default=None, repr=False)
    curvature_fn: Optional[Callable] = field(default=None, repr=False)

    @property
    def kind(self):
        return "margin" if self.classification else "regression"

    def value(self, z, y):
        """l(z; y), elementwise."""
        return _call(self.value_fn, z, y)

    def derivative(self, z, y):
        """dl/dz, elementwise."""
        return _call(self.gradient_fn, z, y)

    def second_derivative(self, z, y):
        """d^2 l / dz^2, elementwise (only when a curvature was given)."""
        if self.curvature_fn is None:
            raise ValueError(f"the loss {self.name!r} has no curvature: Newton's method "
                             "needs one (make_loss(..., curvature=...)); use solver='lbfgs'")
        return _call(self.curvature_fn, z, y)

    def __repr__(self):
        return (f"make_loss(name={self.name!r}, kind={self.kind!r}, "
                f"curvature={'given' if self.smooth else None})")


def _call(fn, z, y):
    z = np.asarray(z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = np.asarray(fn(z, y), dtype=np.float64)
    return np.broadcast_to(out, z.shape) if out.shape != z.shape and out.size == 1 else out


def make_loss(value, gradient, curvature=None, *, name, kind="regression"):
    """A user-defined loss for :class:`~kernelkit.models.KernelMachine` and
    :class:`~kernelkit.models.KernelMachineClassifier`.

    Parameters
    ----------
    value : callable
        ``value(z, y)`` -> l(z; y), elementwise on float64 arrays z (scores)
        and y (labels) of shape (m,), returning shape (m,).
    gradient : callable
        ``gradient(z, y)`` -> dl/dz, same shapes.
    curvature : callable, optional
        ``curvature(z, y)`` -> d^2 l / dz^2 >= 0, same shapes. With it the
        machines use Newton's method (``solver="auto"``); without it L-BFGS.
    name : str
        How ``plan_`` and messages call it; not the name of a built-in loss.
    kind : {"regression", "margin"}, default="regression"
        ``"regression"``: real labels (KernelMachine); ``"margin"``: labels
        coded -1/+1 (KernelMachineClassifier).

    Returns
    -------
    UserLoss
        Checked at fit by :func:`check_user_loss`. A model with a user loss
        cannot be saved to a model file (its loss is code, not data).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.solvers import make_loss
    >>> log_cosh = make_loss(lambda z, y: np.logaddexp(z - y, y - z) - np.log(2),
    ...                      lambda z, y: np.tanh(z - y),
    ...                      lambda z, y: 1 - np.tanh(z - y) ** 2, name="log_cosh")
    >>> float(log_cosh.value(np.array([0.0]), np.array([0.0]))[0])
    0.0
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"make_loss: name must be a non-empty string, got {name!r}")
    if name in LOSSES:
        raise ValueError(f"make_loss: name {name!r} is a built-in loss's; pass loss={name!r} "
                         "to use it, or give your loss another name")
    if kind not in _KINDS:
        raise ValueError(f"make_loss: kind must be one of {_KINDS}, got {kind!r}")
    for what, fn in (("value", value), ("gradient", gradient)):
        if not callable(fn):
            raise TypeError(f"make_loss: {what} must be a callable fn(z, y), got {fn!r}")
    if curvature is not None and not callable(curvature):
        raise TypeError(f"make_loss: curvature must be a callable fn(z, y) or None, got "
                        f"{curvature!r}")
    return UserLoss(name, classification=kind == "margin", smooth=curvature is not None,
                    epsilon=float("nan"), value_fn=value, gradient_fn=gradient,
                    curvature_fn=curvature)


def is_user_loss(loss):
    """Whether ``loss`` is a :class:`UserLoss`."""
    return isinstance(loss, UserLoss)


def _probe(loss, y):
    """Scores and labels on which to probe the loss (at most ~450 points)."""
    y = np.asarray(y, dtype=np.float64).ravel()
    if loss.classification:
        labels = np.repeat([-1.0, 1.0], len(_MARGINS))
        return labels * np.tile(_MARGINS, 2), labels
    labels = np.unique(y)
    if labels.size > 50:
        labels = labels[np.linspace(0, labels.size - 1, 50).astype(int)]
    labels = np.repeat(labels, len(_OFFSETS))
    return labels + np.tile(_OFFSETS, labels.size // len(_OFFSETS)), labels


def check_user_loss(loss, y, owner="KernelMachine"):
    """Probe a :class:`UserLoss` on the labels ``y`` before a fit; raise if it is unusable.

    Checks: each callable takes arrays of shape (m,) and returns shape (m,)
    (vectorised); the values are finite; the gradient agrees with the central
    differences of the value (relative 1e-3); the curvature, if given, is
    finite and >= 0 (up to -1e-10 for round-off).

    Parameters
    ----------
    loss : UserLoss
    y : ndarray of shape (n,) or (n, k)
        The labels (-1/+1 for a margin loss).
    owner : str
        The estimator's name, for the messages.

    Raises
    ------
    ValueError
        Saying which check failed, at which (z, y), and what the loss must do.
    """
    z, lab = _probe(loss, y)
    start = f"{owner}: the loss {loss.name!r}"
    fns = [("value", loss.value_fn), ("gradient", loss.gradient_fn)]
    if loss.curvature_fn is not None:
        fns.append(("curvature", loss.curvature_fn))
    out = {}
    for what, fn in fns:
        try:
            with np.errstate(all="ignore"):  # non-finite values are reported below
                got = np.asarray(fn(z.copy(), lab.copy()), dtype=np.float64)
        except Exception as exc:  # the user's code: report what it raised
            raise ValueError(f"{start}: its {what} raised {type(exc).__name__}: {exc} when "
                             f"called on arrays z and y of shape {z.shape}; it must be "
                             "vectorised (numpy operations, not math.* on scalars)") from exc
        if got.shape != z.shape:
            raise ValueError(f"{start}: its {what}(z, y) returned shape {got.shape} for arrays "
                             f"of shape {z.shape}; it must be vectorised, one value per "
                             "(z_i, y_i)")
        bad = ~np.isfinite(got)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"{start}: its {what} is {got[i]} at z={z[i]:.4g}, y={lab[i]:.4g}; "
                             "it must be finite for every score and label")
        out[what] = got
    h = _H * (1.0 + np.abs(z))
    with np.errstate(all="ignore"):
        numeric = (np.asarray(loss.value_fn(z + h, lab), dtype=np.float64)
                   - np.asarray(loss.value_fn(z - h, lab), dtype=np.float64)) / (2.0 * h)
    off = np.abs(numeric - out["gradient"]) > 1e-3 * (1.0 + np.abs(numeric))
    if not loss.classification:
        off &= z != lab  # a regression loss may have its kink at z = y (pinball, L1)
    if off.any():
        i = int(np.argmax(off))
        raise ValueError(f"{start}: its gradient {out['gradient'][i]:.6g} at z={z[i]:.4g}, "
                         f"y={lab[i]:.4g} differs from the value's central difference "
                         f"{numeric[i]:.6g}; the gradient must be dl/dz")
    if "curvature" in out:
        neg = out["curvature"] < -1e-10 * (1.0 + np.abs(out["curvature"]).max())
        if neg.any():
            i = int(np.argmax(neg))
            raise ValueError(f"{start}: its curvature is {out['curvature'][i]:.4g} < 0 at "
                             f"z={z[i]:.4g}, y={lab[i]:.4g}; Newton's method needs a convex "
                             "loss (curvature >= 0). For a non-convex loss leave curvature "
                             "out (L-BFGS finds a local minimum)")
