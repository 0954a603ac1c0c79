"""SMO with an unbounded box: the hard-margin SVM and the hard epsilon-tube.

The hard-margin SVM of the notes' normalised form,

    min_{w, b} 1/2 ||w||^2   s.t.   y_i (w'phi(x_i) + b) >= 1  for all i,

has the dual of the soft margin with C = inf: max_a sum_i a_i - 1/2 ||sum_i
a_i y_i phi(x_i)||^2 over a >= 0, sum_i a_i y_i = 0. SMO solves it as it is
(the upper bounds never bind). The margin is 1/||w||, and ||w||^2 = sum_i a_i
at the optimum.

The dual is bounded exactly when the classes are separable in the feature
space. For any feasible a with s = sum_{y_i=+1} a_i (= sum_{y_i=-1} a_i), the
points p = sum_{+} a_i phi(x_i) / s and q = sum_{-} a_i phi(x_i) / s lie in
the two classes' convex hulls, so D(a) = ||p - q|| = ||w(a)|| / s bounds the
distance D* between the hulls from above; and D* = 2 / ||w*|| is twice the
hard margin. So while SMO runs, D(a) < ``SEPARATION_TOL`` times the data's
scale sqrt(max_i k(x_i, x_i)) proves that no separator has a margin above half
that: :func:`solve_unbounded` then stops and says so (on overlapping classes
the unbounded dual's a grows without end and D(a) -> 0; SMO would otherwise
run to ``max_iter``).

The hard epsilon-tube of support vector regression with C = inf,

    min_{w, b} 1/2 ||w||^2   s.t.   abs(w'phi(x_i) + b - y_i) <= epsilon  for all i,

the kernel version of the minimax (L-infinity, Chebyshev) fit -- the smallest
function whose largest residual is at most epsilon -- is the SVR dual without
upper bounds. For any beta with sum_i beta_i = 0 (SMO's beta = a - a*) and any
f = w'phi + b in the tube, y'beta = w'(sum_i beta_i phi(x_i)) - sum_i beta_i r_i
with abs(r_i) <= epsilon, so

    ||w|| >= (y'beta - epsilon ||beta||_1) / ||sum_i beta_i phi(x_i)||,

a lower bound on the norm of every function in the tube. When no function fits
(e.g. a linear kernel and data further than epsilon from every line, or one x
with two labels more than 2 epsilon apart) SMO's beta grows along a direction
with sum_i beta_i phi(x_i) = 0 and the bound grows without end;
:func:`solve_unbounded` stops once it exceeds ``TUBE_NORM_LIMIT`` times the
norm a function needs to span the targets (their spread over the data's scale
sqrt(max k(x, x))): the tube then holds only functions far rougher than the data.

Pure numerics: no validation, no printing.

References
----------
Vapnik, V. (1995). The Nature of Statistical Learning Theory. Springer (the
optimal separating hyperplane; the epsilon-insensitive tube).
Bennett, K. P. and Bredensteiner, E. J. (2000). Duality and geometry in SVM
classifiers. ICML 2000, 57-64 (the hard margin as the distance between the
classes' convex hulls).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SEPARATION_TOL", "TUBE_NORM_LIMIT", "solve_unbounded", "hull_distance_bound",
           "tube_norm_bound", "not_separable", "tube_infeasible", "NotSeparableError"]

#: D(a) below this times sqrt(max k(x, x)) counts as "not separable" (a margin below
#: half of it is at the level of the kernel values' round-off for SMO's tolerance).
SEPARATION_TOL = 1e-4
#: The tube counts as infeasible once every function in it has ||w|| above this
#: times spread(y) / sqrt(max k(x, x)).
TUBE_NORM_LIMIT = 1e6
#: SMO steps between two separability checks (the warm restart costs one product
#: with the kernel rows of the support vectors).
CHECK_STEPS = 20_000


class NotSeparableError(ValueError):
    """No hard-margin separator (or no function in the hard tube) exists."""


def hull_distance_bound(alpha, y, w_norm_sq):
    """D(a) = ||w(a)|| / s, s = sum of a over the positive class (inf when s = 0)."""
    s = float(alpha[y > 0].sum())
    return np.inf if s <= 0 else float(np.sqrt(max(w_norm_sq, 0.0))) / s


def tube_norm_bound(beta, y, epsilon, w_norm_sq):
    """(y'beta - epsilon ||beta||_1) / ||sum_i beta_i phi(x_i)||: every function in the
    tube has at least this norm (0 when the numerator is <= 0)."""
    gap = float(beta @ y) - epsilon * float(np.abs(beta).sum())
    if gap <= 0:
        return 0.0
    norm = float(np.sqrt(max(w_norm_sq, 0.0)))
    return np.inf if norm == 0 else gap / norm


def not_separable(bound, scale):
    """The error message when D(a) proves the classes inseparable, else None."""
    if bound >= SEPARATION_TOL * max(scale, np.finfo(float).tiny):
        return None
    return ("the classes are not separable in the kernel's feature space: their convex "
            f"hulls come within {bound:.3g} of each other (the data's scale sqrt(max k(x, "
            f"x)) is {scale:.3g}), so no hard margin exists (the dual of C=inf is "
            "unbounded). Use a finite C (a soft margin), or a kernel that separates the "
            "classes")


def tube_infeasible(bound, scale, spread):
    """The error message when every function in the tube is too rough, else None."""
    need = spread / max(scale, np.finfo(float).tiny)
    if not bound > TUBE_NORM_LIMIT * max(need, np.finfo(float).tiny):
        return None
    return ("no function of the kernel's space fits the hard epsilon-tube: every function "
            f"in it has a norm above {bound:.3g}, {bound / max(need, 1e-300):.2g} times what "
            "spanning the targets takes (the dual of C=inf grows without end). Use a finite "
            "C, a larger epsilon, or a richer kernel")


def solve_unbounded(solve, infeasible, *, max_iter):
    """Run an SMO solve with an unbounded box in chunks, stopping on a proof of infeasibility.

    Parameters
    ----------
    solve : callable
        ``solve(max_iter, alpha0)`` -> (result, alpha): an SMO solve with infinite
        bounds from the feasible ``alpha0`` (None: 0), at most ``max_iter`` steps.
    infeasible : callable
        ``infeasible(result, alpha)`` -> the error message when the iterate proves
        the problem infeasible (:func:`not_separable`, :func:`tube_infeasible`),
        else None.
    max_iter : int
        Cap on the steps of all chunks together.

    Returns
    -------
    result
        The last chunk's result (``converged`` False when ``max_iter`` ran out),
        with the total steps in ``n_iter`` left to the caller.
    steps : int
        SMO steps of all chunks.

    Raises
    ------
    NotSeparableError
        With ``infeasible``'s message.
    """
    alpha, done = None, 0
    while True:
        chunk = min(CHECK_STEPS, max_iter - done)
        result, alpha = solve(chunk, alpha)
        done += result.n_iter
        if result.converged:
            return result, done
        message = infeasible(result, alpha)
        if message is not None:
            raise NotSeparableError(message)
        if done >= max_iter:
            return result, done
