"""Generalisation bounds with their constants: a kernel class of bounded RKHS norm,
and the weighted sums of random kitchen sinks (pure arithmetic).

Notation: n training samples, a loss l(y, f(x)) that is L-Lipschitz in f(x),
R(f) its expected value, R_n(f) its mean on the sample, delta the failure
probability.

The kernel class F_B = {f in H : ||f||_H <= B}
----------------------------------------------
With probability at least 1 - delta over the sample, for every f in F_B::

    R(f) <= R_n(f) + 2 L B sqrt(tr K) / n + 3 M sqrt(log(2 / delta) / (2 n))

where K is the sample's Gram matrix and M the length of an interval holding
every loss value. The three steps, with their sources:

1. the uniform deviation of a class G of [a, a + M]-valued functions is at most
   2 Rad_S(G) + 3 M sqrt(log(2/delta) / (2n)) (McDiarmid's inequality applied
   twice, to the deviation and to the empirical Rademacher complexity Rad_S;
   Mohri, Rostamizadeh & Talwalkar 2018, Theorem 3.3, scaled from [0, 1] to
   length M);
2. Talagrand's contraction lemma: Rad_S(l o F) <= L Rad_S(F) (ibid., Lemma 5.7);
3. Rad_S(F_B) <= B sqrt(tr K) / n (ibid., Theorem 6.12; Bartlett & Mendelson
   2002, Lemma 22), :func:`~kernelkit.diagnostics.rademacher_bound`.

For a Lipschitz loss and |f(x)| <= B kappa (kappa^2 = sup_x k(x, x), by the
reproducing property), the loss values lie in an interval of length
M = 2 L B kappa: the default. kappa is exact for shift-invariant kernels
(k(x, x) = k(0)); otherwise the sample's largest k(x_i, x_i) stands in for the
supremum (pass ``loss_range`` for a rigorous M).

The bound holds for a class fixed before the data; B = ||f_hat|| read off a
fitted model is chosen after, so the rigorous use is for a B fixed in advance
(or a union bound over a grid of B, which adds log terms to delta).

Weighted sums of random kitchen sinks (Rahimi & Recht 2008, Theorem 1)
-----------------------------------------------------------------------
Basis functions |phi(x; w)| <= 1, q parameters w_1..w_q drawn from p, and the
constrained empirical risk minimiser f_hat over
F_w = {sum_k alpha_k phi(x; w_k) : |alpha_k| <= C / q}, compared with the class
F_p = {int alpha(w) phi(x; w) dw : |alpha(w)| <= C p(w)}. The paper's theorem
states, with probability at least 1 - 2 delta over the sample and the w's::

    R(f_hat) - min_{f in F_p} R(f) <= O((1/sqrt(n) + 1/sqrt(q)) L C sqrt(log(1/delta)))

and its proof joins an approximation lemma and an estimation lemma. The
constants used here:

- approximation (Rahimi & Recht 2008, Lemma 1, from their "Uniform
  approximation of functions with random bases", Allerton 2008): with
  probability 1 - delta over the w's, some f_q in F_w has
  ||f_q - f*||_{L2(P)} <= (C / sqrt(q)) (1 + sqrt(2 log(1/delta))), so that
  R(f_q) - R(f*) <= L C (1 + sqrt(2 log(1/delta))) / sqrt(q);
- estimation, given the w's: every f in F_w has |f| <= C, so the losses lie in
  an interval of length 2 L C, and Rad_S(F_w) <= C / sqrt(n) (the l1 ball
  sum |alpha_k| <= C of functions bounded by 1); by steps 1-2 above in their
  two-sided, expected-Rademacher form (McDiarmid once, Theorem 3.3 of Mohri
  et al., with delta/2 per side), with probability 1 - delta
  sup_{F_w} |R - R_n| <= 2 L C / sqrt(n) + 2 L C sqrt(log(2/delta) / (2n)),
  and R(f_hat) - R(f_q) <= 2 sup_{F_w} |R - R_n|.

Together, with probability at least 1 - 2 delta::

    R(f_hat) - R(f*) <= (4 L C / sqrt(n)) (1 + sqrt(log(2/delta) / 2))
                        + (L C / sqrt(q)) (1 + sqrt(2 log(1/delta)))

The paper's own estimation lemma bounds the Rademacher complexity with
absolute values (Bartlett & Mendelson 2002), which adds a |c(0)| term and
larger constants; the form above is the same argument with the contraction
lemma of Mohri et al. (no |c(0)|: a constant shift leaves a Rademacher average
unchanged). Both are O((1/sqrt(n) + 1/sqrt(q)) L C sqrt(log(1/delta))).

References
----------
Rahimi, A. and Recht, B. (2008). Weighted sums of random kitchen sinks:
replacing minimization with randomization in learning. NIPS 21, 1313-1320.
Rahimi, A. and Recht, B. (2008). Uniform approximation of functions with
random bases. 46th Allerton Conference, 555-561.
Mohri, M., Rostamizadeh, A. and Talwalkar, A. (2018). Foundations of Machine
Learning, 2nd ed., MIT Press: Theorem 3.3, Lemma 5.7, Theorem 6.12.
Bartlett, P. L. and Mendelson, S. (2002). Rademacher and Gaussian complexities:
risk bounds and structural results. JMLR 3, 463-482.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

import numpy as np

from .bounds import _positive, _probability

__all__ = ["kitchen_sinks_bound", "KitchenSinksBound", "generalization_bound",
           "GeneralizationBound"]


def _out(arr):
    return float(arr) if np.ndim(arr) == 0 else arr


@dataclass(frozen=True)
class KitchenSinksBound:
    """The two terms of :func:`kitchen_sinks_bound` (floats, or arrays broadcast
    over n and q)."""

    estimation: object
    approximation: object
    total: object


def kitchen_sinks_bound(n, q, C, lipschitz, delta, *, terms=False):
    """Rahimi & Recht's (2008) oracle inequality with explicit constants.

    With probability at least 1 - 2 delta over the n samples and the q random
    parameters, the constrained ERM f_hat over
    ``{sum_k alpha_k phi(x; w_k) : |alpha_k| <= C / q}`` (basis ``|phi| <= 1``,
    loss L-Lipschitz in f) satisfies::

        R(f_hat) - min_{F_p} R <= (4 L C / sqrt(n)) (1 + sqrt(log(2/delta) / 2))
                                  + (L C / sqrt(q)) (1 + sqrt(2 log(1/delta)))

    The first term (estimation) also bounds R(f) - R_n(f) for every f of the
    random class at once (it is twice that deviation); the second
    (approximation) is the price of q random sinks instead of the whole class
    F_p. See the module docstring for the derivation and the sources of each
    constant.

    Parameters
    ----------
    n : int or array-like
        Training samples, > 0.
    q : int or array-like
        Random basis functions (kitchen sinks), > 0.
    C : float
        The bound of the weights: ``|alpha_k| <= C / q`` (``KitchenSinksClassifier(C=...)``).
    lipschitz : float
        L, the loss's Lipschitz constant in f (1 for the hinge and logistic losses).
    delta : float in (0, 1)
    terms : bool, default=False
        Return a :class:`KitchenSinksBound` with both terms instead of the total.

    Returns
    -------
    float or ndarray or KitchenSinksBound

    References
    ----------
    .. [1] A. Rahimi and B. Recht, "Weighted sums of random kitchen sinks:
       replacing minimization with randomization in learning", NIPS 2008, Theorem 1.

    Examples
    --------
    >>> round(kitchen_sinks_bound(10_000, 1_000, C=1.0, lipschitz=1.0, delta=0.05), 4)
    0.2034
    """
    n, q = _positive(n, "n"), _positive(q, "q")
    C, L = float(_positive(C, "C")), float(_positive(lipschitz, "lipschitz"))
    delta = _probability(delta, scalar=True)
    estimation = 4.0 * L * C / np.sqrt(n) * (1.0 + math.sqrt(math.log(2.0 / delta) / 2.0))
    approximation = L * C / np.sqrt(q) * (1.0 + math.sqrt(2.0 * math.log(1.0 / delta)))
    estimation, approximation = np.broadcast_arrays(estimation, approximation)
    total = estimation + approximation
    if terms:
        return KitchenSinksBound(_out(estimation), _out(approximation), _out(total))
    return _out(total)


@dataclass(frozen=True)
class GeneralizationBound:
    """The terms of :func:`generalization_bound`.

    Attributes
    ----------
    complexity : float
        2 L B sqrt(tr K) / n (twice the contracted Rademacher bound).
    confidence : float
        3 M sqrt(log(2 / delta) / (2 n)).
    total : float
        Their sum: R(f) - R_n(f) <= total for every ||f|| <= B, w.p. >= 1 - delta.
    B, trace, n, loss_range : float
        The inputs as used (``loss_range`` = M).
    """

    complexity: float
    confidence: float
    total: float
    B: float
    trace: float
    n: int
    loss_range: float


def _diagonal(K):
    """(diag of the sample's Gram matrix, whether kappa is exact) from K or a model."""
    if hasattr(K, "kernel_") or hasattr(K, "fit"):
        model = K
        X = getattr(model, "X_fit_", None)
        kernel = getattr(model, "kernel_", None)
        if X is None or kernel is None or isinstance(kernel, str):
            raise ValueError(f"this {type(model).__name__} keeps no training inputs X_fit_ "
                             "with its kernel (an SVM keeps its support vectors only, a "
                             "precomputed kernel none): pass the Gram matrix K of the "
                             "training sample instead")
        diag = np.asarray(kernel.diag(X), dtype=np.float64)
        try:
            kernel.spectral_density()
            exact = True  # shift-invariant: k(x, x) = k(0) everywhere
        except (ValueError, NotImplementedError, TypeError, AttributeError):
            exact = False
        return diag, exact
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"K must be a square Gram matrix, got shape {K.shape}")
    return np.diag(K).copy(), False


def generalization_bound(K, B=None, delta=0.05, lipschitz=1.0, *, loss_range=None):
    """Bound on R(f) - R_n(f), uniformly over the kernel class ||f||_H <= B.

    With probability at least 1 - delta over the n training samples, every f
    with ||f||_H <= B satisfies::

        R(f) <= R_n(f) + 2 L B sqrt(tr K) / n + 3 M sqrt(log(2 / delta) / (2 n))

    (Rademacher complexity, Talagrand's contraction and McDiarmid's inequality:
    Mohri et al. 2018, Theorem 3.3, Lemma 5.7, Theorem 6.12; see the module
    docstring).

    Parameters
    ----------
    K : array-like of shape (n, n), or a fitted model
        The training sample's Gram matrix, or a dual model keeping its training
        rows (``X_fit_``: KernelRidge, KernelMachine, ...), whose kernel's
        diagonal gives tr K.
    B : float, optional
        The RKHS-norm bound of the class. Default (models only): the model's
        own :func:`~kernelkit.diagnostics.rkhs_norm` (largest over its columns)
        -- chosen after seeing the data, see the module docstring.
    delta : float in (0, 1), default=0.05
    lipschitz : float, default=1.0
        L of the loss in f (hinge, logistic, absolute: 1).
    loss_range : float, optional
        M, the length of an interval holding every loss value. Default
        2 L B kappa with kappa^2 the largest k(x_i, x_i) of the sample (exact
        for shift-invariant kernels, where k(x, x) = k(0)).

    Returns
    -------
    GeneralizationBound
        ``total`` is the bound; ``complexity`` and ``confidence`` its terms.

    Examples
    --------
    >>> import numpy as np
    >>> b = generalization_bound(np.eye(100), B=1.0, delta=0.05)
    >>> round(b.complexity, 3), round(b.confidence, 3)
    (0.2, 0.815)
    """
    diag, _ = _diagonal(K)
    if B is None:
        if not hasattr(K, "fit"):
            raise ValueError("B is needed with a Gram matrix (the norm bound of the class); "
                             "only a fitted model can supply its own rkhs_norm")
        from .rkhs import rkhs_norm

        B = float(np.max(rkhs_norm(K)))
    if isinstance(B, bool) or not isinstance(B, (int, float, np.number)) or \
            not (np.isfinite(B) and B >= 0):
        raise ValueError(f"B must be a finite number >= 0, got {B!r}")
    B = float(B)
    L = float(_positive(lipschitz, "lipschitz"))
    delta = _probability(delta, scalar=True)
    n = diag.shape[0]
    trace = float(np.sum(diag))
    if not np.isfinite(trace) or trace < 0:
        raise ValueError(f"the trace of K is {trace!r}; K is not a Gram matrix")
    kappa = math.sqrt(max(float(np.max(diag)), 0.0))
    M = 2.0 * L * B * kappa if loss_range is None else float(_positive(loss_range,
                                                                       "loss_range"))
    complexity = 2.0 * L * B * math.sqrt(trace) / n
    confidence = 3.0 * M * math.sqrt(math.log(2.0 / delta) / (2.0 * n))
    return GeneralizationBound(complexity, confidence, complexity + confidence, B, trace, n, M)
