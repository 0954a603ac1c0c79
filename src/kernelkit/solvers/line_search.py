"""Exact line search for the piecewise-quadratic losses of the Newton solvers.

Along a Newton direction p, with f = Ku and d = Kp, the objective

    phi(t) = J(u + t p) = (lam/2)(u + t p)'K(u + t p) + (1/n) sum_i s_i l(f_i + t d_i; y_i)

is, for the squared, Huber and squared hinge losses, a convex piecewise quadratic
in t: its derivative is piecewise linear and nondecreasing, with a kink where a
sample enters or leaves the quadratic part of its loss. Each loss's derivative
is written as l'(z) = c clip(c z - b, lo, hi) with c = +-1:

=============  =====  =========  ======  ======
loss           c      b          lo      hi
=============  =====  =========  ======  ======
squared        1      y          -inf    inf
huber          1      y          -eps    eps
squared_hinge  y      1          -inf    0
=============  =====  =========  ======  ======

so sample i adds s_i e_i clip(r_i + t e_i, lo, hi) to n phi'(t), with
r_i = c f_i - b and e_i = c d_i. Sorting the O(n) kinks and sweeping them gives
the exact minimiser of phi in O(n log n), for no product with K.

Why: Armijo backtracking (halving from t = 1) on these losses accepts steps far
from the minimiser along p when the generalised Hessian of the current active set
is a poor model of the next one (at small alpha, a Huber sample that leaves the
quadratic part changes the curvature by a factor of 1/(n lam)); the Newton
iteration then needs tens of steps. With the exact minimiser along each
direction, Newton's method on a piecewise quadratic is the "modified finite
Newton method" of Keerthi & DeCoste, which terminates in finitely many steps
(and in practice in a handful).

Pure numerics: no validation, no printing.

References
----------
Keerthi, S. S. and DeCoste, D. (2005). A modified finite Newton method for fast
solution of large scale linear SVMs. Journal of Machine Learning Research 6,
341-361 (the exact line search on a piecewise quadratic, Section 3, and finite
convergence, Theorem 1).
Chapelle, O. (2007). Training a support vector machine in the primal. Neural
Computation 19(5), 1155-1178 (Newton in the representer coefficients u, for the
squared hinge and Huber losses).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PIECEWISE_QUADRATIC", "exact_step_length", "pieces"]

#: The losses whose objective is piecewise quadratic along a line.
PIECEWISE_QUADRATIC = ("squared", "huber", "squared_hinge")


def _pieces(loss, f, d, y):
    """r, e, lo, hi of the module docstring's table for the scores f and direction d."""
    if loss.name == "squared_hinge":
        return y * f - 1.0, y * d, -np.inf, 0.0
    if loss.name == "huber":
        return f - y, d, -loss.epsilon, loss.epsilon
    return f - y, d, -np.inf, np.inf


def pieces(loss, f, y):
    """Which piece of its loss each sample is on at the scores f: 0 where the Newton
    step gives it curvature (``loss.second_derivative > 0``, the quadratic part),
    else +1 above it and -1 below it (r of the module docstring's table).

    Two points with the same pieces see the same quadratic objective, so a Newton
    step solved exactly that stays on its pieces ends at the minimiser. Defined by
    the curvature the step used, so a sample on a kink is where the step put it.
    """
    r = _pieces(loss, f, np.zeros_like(f), y)[0]
    side = np.where(r >= 0.0, 1, -1).astype(np.int8)
    return np.where(loss.second_derivative(f, y) > 0.0, np.int8(0), side)


def exact_step_length(loss, lam, u, f, y, sample_weight, step, Kstep, *, penalty=None):
    """The t >= 0 minimising J(u + t step) for a piecewise-quadratic loss.

    Parameters
    ----------
    loss : Loss
        One of :data:`PIECEWISE_QUADRATIC`.
    lam : float
        > 0.
    u, f : ndarray of shape (n,)
        The current coefficients and scores f = K u.
    y : ndarray of shape (n,)
    sample_weight : ndarray of shape (n,) or None
    step, Kstep : ndarray of shape (n,)
        A descent direction p and K p.
    penalty : tuple of float, optional
        (lam u'Kp, lam p'Kp), the penalty's slope and curvature along p, when
        the scores ``f`` and their change ``Kstep`` are not K u and K p (a model
        with an unpenalised intercept b: f = K u + b, Kstep = K p + db).
        Default: computed from ``u``, ``step`` and ``Kstep``.

    Returns
    -------
    t : float
        The exact minimiser of phi(t) = J(u + t p) over t >= 0 (0 when p is not
        a descent direction, which Newton's directions always are).
    """
    n = len(y)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
    r, e, lo, hi = _pieces(loss, f, Kstep, y)
    # phi'(t) = a + b t on each interval between kinks; start with the penalty's part.
    if penalty is None:
        a = lam * float(u @ Kstep)
        b = lam * float(step @ Kstep)
    else:
        a, b = (float(v) for v in penalty)
    moving = (e != 0.0) & (w != 0.0)
    r, e, w = r[moving], e[moving], w[moving]
    # The piece each sample is on just after t = 0 (ties resolved by the direction).
    below = (r < lo) | ((r == lo) & (e < 0))
    above = (r > hi) | ((r == hi) & (e > 0))
    middle = ~(below | above)
    a += float(np.sum(w[middle] * e[middle] * r[middle])) / n
    if below.any():  # only when lo is finite
        a += lo * float(np.sum(w[below] * e[below])) / n
    if above.any():
        a += hi * float(np.sum(w[above] * e[above])) / n
    b += float(np.sum(w[middle] * e[middle] ** 2)) / n
    if a >= 0.0:
        return 0.0
    # Kinks at t > 0: where r + t e reaches lo or hi. Entering the middle piece
    # adds w e (r + t e) and removes the constant w e bound; leaving does the opposite.
    times, d_a, d_b = [], [], []
    for bound in (lo, hi):
        if not np.isfinite(bound):
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (bound - r) / e
        hit = t > 0.0
        # Entering the middle piece when moving away from the bound's outside:
        # towards the middle means e > 0 at lo, e < 0 at hi.
        entering = (e > 0) if bound == lo else (e < 0)
        sign = np.where(entering, 1.0, -1.0)[hit]
        wh, eh, rh = w[hit], e[hit], r[hit]
        times.append(t[hit])
        d_a.append(sign * wh * eh * (rh - bound) / n)
        d_b.append(sign * wh * eh * eh / n)
    if times:
        times = np.concatenate(times)
        order = np.argsort(times, kind="stable")
        times = times[order]
        d_a = np.concatenate(d_a)[order]
        d_b = np.concatenate(d_b)[order]
    else:
        times = d_a = d_b = np.zeros(0)
    # Coefficients on the interval after the k-th kink: a + cumsum(d_a)[k-1], ...
    a_k = a + np.concatenate(([0.0], np.cumsum(d_a)))
    b_k = b + np.concatenate(([0.0], np.cumsum(d_b)))
    ends = np.concatenate((times, [np.inf]))
    with np.errstate(invalid="ignore", over="ignore"):
        at_end = np.where(np.isinf(ends), np.where(b_k > 0, np.inf, a_k), a_k + b_k * ends)
    k = int(np.argmax(at_end >= 0.0)) if np.any(at_end >= 0.0) else len(ends) - 1
    if b_k[k] <= 0.0:  # phi' constant on the last piece (no curvature left): stop at its start
        return float(times[k - 1]) if k else 0.0
    starts = np.concatenate(([0.0], times))
    return float(np.clip(-a_k[k] / b_k[k], starts[k], ends[k]))
