"""Figures of the lectures' pictures: approximation error against D, universal features.

matplotlib is optional (``pip install matplotlib``, or the ``plot`` extra) and imported only
inside the plotting functions. Figures are built with
``matplotlib.figure.Figure`` (no pyplot state, no GUI backend): save them with
``fig.savefig(...)`` or show them in a notebook. The numbers behind the
universal-features picture come from :func:`universal_features_fit`, a plain
numpy function.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.utils import check_random_state

from ._validation import check_scalar
from .linalg import one_blas_thread

__all__ = ["UniversalFeaturesFit", "universal_features_fit", "plot_universal_features",
           "plot_approximation_curve", "TARGET_FUNCTIONS"]

#: The 1-D target functions of the universal-features picture, on [-1, 1].
TARGET_FUNCTIONS = {
    "sine": lambda x: np.sin(3.0 * np.pi * x),
    "abs": np.abs,
    "step": lambda x: (x > 0).astype(np.float64),
}
_BASES = ("cosine", "relu", "step")


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError("kernelkit's plots need matplotlib, which is not installed: "
                          "pip install matplotlib (or the plot extra from the kernelkit repository: pip install \".[plot]\")") from err
    return Figure


def _random_basis(basis, q, scale, rng):
    """A feature function x -> (len(x), q) of q random units (nested: the first k
    columns of q units are the k units of a smaller draw with the same seed)."""
    if basis == "cosine":  # cos(w x + b), w ~ Normal(0, scale^2), b ~ U[0, 2 pi]
        w, b = rng.normal(0.0, scale, q), rng.uniform(0.0, 2.0 * np.pi, q)
        return lambda x: np.cos(np.outer(x, w) + b)
    # ReLU / step units s (x - c), kinks c uniform on [-1, 1], signs s = +-1
    c, s = rng.uniform(-1.0, 1.0, q), rng.choice([-1.0, 1.0], q)
    if basis == "relu":
        return lambda x: np.maximum(s * (x[:, None] - c), 0.0)
    return lambda x: (s * (x[:, None] - c) > 0).astype(np.float64)


def _fit_nested(P_train, Y_train, P, qs, fits):
    """Fill fits[:, i] with the grid values of the fit on the first qs[i] features."""
    for i, q in enumerate(qs):
        # QR with column pivoting (gelsy) fits every target at once; the rank
        # cut-off 1e-10 drops nearly dependent units.
        coef = scipy.linalg.lstsq(P_train[:, :q], Y_train, cond=1e-10,
                                  lapack_driver="gelsy")[0]
        fits[:, i, :] = (P[:, :q] @ coef).T


@dataclass(frozen=True)
class UniversalFeaturesFit:
    """Result of :func:`universal_features_fit`.

    Attributes
    ----------
    basis : str
    q_values : ndarray of shape (n_q,)
    x : ndarray of shape (n_grid,)
        Evaluation grid on [-1, 1].
    targets : dict of str -> ndarray of shape (n_grid,)
    fits : dict of str -> ndarray of shape (n_q, n_grid)
        The least-squares fit with the first q features, per q.
    errors : dict of str -> ndarray of shape (n_q,)
        Root-mean-square error of each fit on the grid.
    """

    basis: str
    q_values: np.ndarray
    x: np.ndarray
    targets: dict
    fits: dict
    errors: dict

    def table(self):
        """Rows ``{"target", "q", "rmse"}`` for printing."""
        return [{"target": t, "q": int(q), "rmse": float(e)}
                for t, errs in self.errors.items() for q, e in zip(self.q_values, errs)]


def universal_features_fit(q_values=(5, 20, 100, 500), *, targets=("sine", "abs", "step"),
                           basis="cosine", n_train=1000, n_grid=801, scale=10.0,
                           random_state=0):
    """Least-squares regression of 1-D target functions on q random features.

    The lectures' "universal features": a linear combination of q random
    units (random cosines cos(w x + b), ReLUs max(0, s (x - c)) or steps
    1[s (x - c) > 0]) can approximate any continuous function on [-1, 1]
    as q grows. Each target is fitted by least squares (QR with column
    pivoting, rank cut-off 1e-10) on ``n_train`` uniformly drawn noise-free points and
    evaluated on an even grid. The feature sets are nested -- the q features
    are the first q of one draw of ``max(q_values)`` -- so the curves differ
    only by the added units.

    Parameters
    ----------
    q_values : sequence of int, default=(5, 20, 100, 500)
    targets : sequence of str or dict of str -> callable, default=("sine", "abs", "step")
        Names from :data:`TARGET_FUNCTIONS` ("sine" = sin(3 pi x), "abs" =
        ``|x|``, "step" = 1[x > 0]) or a dict of vectorised functions.
    basis : {"cosine", "relu", "step"}, default="cosine"
    n_train : int, default=1000
    n_grid : int, default=801
    scale : float, default=10.0
        Standard deviation of the cosine frequencies w.
    random_state : int, RandomState instance or None, default=0

    Returns
    -------
    UniversalFeaturesFit
    """
    if basis not in _BASES:
        raise ValueError(f"basis must be one of {list(_BASES)}, got {basis!r}")
    qs = np.asarray(list(q_values))
    if qs.ndim != 1 or qs.size == 0 or qs.dtype.kind not in "iu" or (qs < 1).any():
        raise ValueError(f"q_values must be a non-empty sequence of integers >= 1, "
                         f"got {q_values!r}")
    check_scalar(n_train, "n_train", low=1, integer=True)
    check_scalar(n_grid, "n_grid", low=2, integer=True)
    check_scalar(scale, "scale", low=0, low_inclusive=False)
    if not isinstance(targets, dict):
        unknown = [t for t in targets if t not in TARGET_FUNCTIONS]
        if unknown:
            raise ValueError(f"unknown target functions {unknown}; known: "
                             f"{list(TARGET_FUNCTIONS)} (or pass a dict name -> function)")
        targets = {t: TARGET_FUNCTIONS[t] for t in targets}
    rng = check_random_state(random_state)
    x_train = rng.uniform(-1.0, 1.0, n_train)
    x = np.linspace(-1.0, 1.0, n_grid)
    features = _random_basis(basis, int(qs.max()), float(scale), rng)
    P_train, P = features(x_train), features(x)
    names = list(targets)
    Y_train = np.column_stack([np.asarray(targets[t](x_train), float) for t in names])
    Y = np.column_stack([np.asarray(targets[t](x), float) for t in names])
    fits = np.empty((len(names), len(qs), n_grid))
    # Small LAPACK problems: one BLAS thread (threads only add spinning on a busy machine).
    with one_blas_thread():
        _fit_nested(P_train, Y_train, P, qs, fits)
    out_t = {t: Y[:, j] for j, t in enumerate(names)}
    out_f = {t: fits[j] for j, t in enumerate(names)}
    out_e = {t: np.sqrt(np.mean((fits[j] - Y[:, j]) ** 2, axis=1)) for j, t in enumerate(names)}
    return UniversalFeaturesFit(basis=basis, q_values=qs, x=x, targets=out_t, fits=out_f,
                                errors=out_e)


def plot_universal_features(result=None, **kwargs):
    """The universal-features picture: each target with its fits for growing q.

    Parameters
    ----------
    result : UniversalFeaturesFit, optional
        Default: ``universal_features_fit(**kwargs)``.
    **kwargs
        Passed to :func:`universal_features_fit` when ``result`` is None.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per target function.
    """
    Figure = _figure_class()
    if result is None:
        result = universal_features_fit(**kwargs)
    elif kwargs:
        raise TypeError("give a result or the arguments of universal_features_fit, not both")
    names = list(result.targets)
    fig = Figure(figsize=(4.2 * len(names), 3.6), layout="constrained")
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names):
        ax.plot(result.x, result.targets[name], color="black", lw=2.5, label="target")
        for q, fit, err in zip(result.q_values, result.fits[name], result.errors[name]):
            ax.plot(result.x, fit, lw=1.2, label=f"q = {q} (rmse {err:.2g})")
        ax.set_title(f"{name}: {result.basis} features")
        ax.set_xlabel("x")
        ax.legend(fontsize="small")
    return fig


def plot_approximation_curve(curve, ax=None):
    """Approximation error against the number of features, with the bounds (log axes).

    Parameters
    ----------
    curve : ApproximationCurve
        From :func:`kernelkit.diagnostics.approximation_curve`.
    ax : matplotlib Axes, optional
        Draw into it; default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        fig = _figure_class()(figsize=(5.5, 4.2), layout="constrained")
        ax = fig.add_subplot()
    D = curve.n_features
    for err, label in ((curve.max_error, "max |error| over pairs"),
                       (curve.mean_error, "mean |error| over pairs")):
        line, = ax.plot(D, np.median(err, axis=1), "o-", label=label)
        ax.fill_between(D, err.min(axis=1), err.max(axis=1), color=line.get_color(), alpha=0.2)
    if np.isfinite(curve.hoeffding_epsilon).any():
        ax.plot(D, curve.hoeffding_epsilon, "--",
                label=f"Hoeffding, one pair (delta = {curve.delta:g})")
    if np.isfinite(curve.uniform_epsilon).any():
        ax.plot(D, curve.uniform_epsilon, ":",
                label=f"Rahimi-Recht, all pairs (delta = {curve.delta:g})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of features D")
    ax.set_ylabel("|psi(x)'psi(z) - k(x, z)|")
    ax.set_title(f"{curve.kernel}, {curve.method}", fontsize="medium")
    if curve.note:
        import textwrap

        ax.text(0.98, 0.98, textwrap.fill(curve.note, 42), transform=ax.transAxes,
                fontsize="x-small", ha="right", va="top")
    ax.legend(fontsize="x-small", loc="lower left")
    return ax.figure
