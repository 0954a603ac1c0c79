"""Class probabilities from SVM decision values, as libsvm: Platt's sigmoid and pairwise coupling.

- :func:`sigmoid_fit`: P(y = +1 | f) = 1 / (1 + exp(A f + B)) fitted to decision
  values by Platt's regularised targets and the Newton method with backtracking
  of Lin, Lin & Weng (2007) (libsvm's ``sigmoid_train``).
- :func:`sigmoid_predict`: that probability, computed without overflow.
- :func:`pairwise_coupling`: class probabilities p from pairwise ones r_ij by
  method 2 of Wu, Lin & Weng (2004): min_p 1/2 p'Qp subject to sum p = 1, with
  Q_tt = sum_{s != t} r_st^2 and Q_st = -r_st r_ts, solved by libsvm's fixed-point
  iteration (``multiclass_probability``), here for every query at once.

Pure numerics; no input validation.

References
----------
Platt, J. C. (2000). Probabilistic outputs for support vector machines and
comparisons to regularized likelihood methods. In Advances in Large Margin
Classifiers, MIT Press.
Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's probabilistic
outputs for support vector machines. Machine Learning 68, 267-276.
Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
multi-class classification by pairwise coupling. Journal of Machine Learning
Research 5, 975-1005.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sigmoid_fit", "sigmoid_predict", "sigmoid_objective", "pairwise_coupling",
           "MIN_PROBABILITY"]

#: libsvm clips the pairwise probabilities to [MIN_PROBABILITY, 1 - MIN_PROBABILITY].
MIN_PROBABILITY = 1e-7


def _targets(labels):
    """Platt's targets: (N+ + 1)/(N+ + 2) for positives, 1/(N- + 2) for negatives."""
    pos = np.asarray(labels) > 0
    prior1 = float(pos.sum())
    prior0 = float(pos.size - prior1)
    return np.where(pos, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0)), prior0, prior1


def sigmoid_objective(A, B, dec, t):
    """The cross-entropy sum_i -t_i log p_i - (1 - t_i) log(1 - p_i), p_i =
    1 / (1 + exp(A dec_i + B)), written as libsvm does to avoid overflow."""
    fApB = dec * A + B
    pos = fApB >= 0
    return float(np.sum(np.where(pos, t * fApB + np.log1p(np.exp(-np.abs(fApB))),
                                 (t - 1.0) * fApB + np.log1p(np.exp(-np.abs(fApB))))))


def sigmoid_fit(dec, labels, *, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """Fit Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A f + B)) (libsvm's ``sigmoid_train``).

    Parameters
    ----------
    dec : ndarray of shape (n,)
        Decision values (positive for the +1 class), from cross-validation.
    labels : ndarray of shape (n,)
        > 0 for the +1 class.
    max_iter, min_step, sigma, eps
        libsvm's constants: Newton steps, smallest line-search step, the ridge
        added to the Hessian, and the gradient tolerance.

    Returns
    -------
    A, B : float
    """
    dec = np.asarray(dec, dtype=np.float64)
    t, prior0, prior1 = _targets(labels)
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = sigmoid_objective(A, B, dec, t)
    for _ in range(max_iter):
        fApB = dec * A + B
        e = np.exp(-np.abs(fApB))
        # p = P(y = +1), q = 1 - p, both without overflow
        p = np.where(fApB >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = np.where(fApB >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        d2 = p * q
        h11 = sigma + float(dec @ (dec * d2))
        h22 = sigma + float(d2.sum())
        h21 = float(dec @ d2)
        d1 = t - p
        g1 = float(dec @ d1)
        g2 = float(d1.sum())
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = sigmoid_objective(newA, newB, dec, t)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < min_step:  # line search failed: libsvm keeps the last point
            break
    return float(A), float(B)


def sigmoid_predict(dec, A, B):
    """1 / (1 + exp(A dec + B)), elementwise, without overflow."""
    fApB = np.asarray(dec, dtype=np.float64) * A + B
    e = np.exp(-np.abs(fApB))
    return np.where(fApB >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(r, *, max_iter=None):
    """Class probabilities from pairwise probabilities (Wu, Lin & Weng 2004, method 2).

    Parameters
    ----------
    r : ndarray of shape (n_queries, k, k)
        r[:, i, j] = P(class i | class i or j, x); r[:, j, i] = 1 - r[:, i, j]
        (the diagonal is ignored).
    max_iter : int, optional
        libsvm's max(100, k).

    Returns
    -------
    ndarray of shape (n_queries, k)
        p >= 0 with sum 1 minimising 1/2 p'Qp, Q_tt = sum_{s != t} r_st^2,
        Q_st = -r_st r_ts; libsvm stops when max_t |(Qp)_t - p'Qp| < 0.005 / k.
    """
    r = np.asarray(r, dtype=np.float64)
    m, k, _ = r.shape
    off = ~np.eye(k, dtype=bool)
    rt = np.swapaxes(r, 1, 2)  # rt[:, s, t] = r[:, t, s]
    # Q_tt = sum_{s != t} r_st^2: r_st = r[:, s, t]
    Q = np.where(off, -rt * r, 0.0)  # Q[:, t, s] = -r_st r_ts = -r[:, s, t] r[:, t, s]
    Q[:, np.arange(k), np.arange(k)] = np.sum(np.where(off, r, 0.0) ** 2, axis=1)
    p = np.full((m, k), 1.0 / k)
    eps = 0.005 / k
    max_iter = max(100, k) if max_iter is None else max_iter
    todo = np.arange(m)
    for _ in range(max_iter):
        if not todo.size:
            break
        Qs, ps = Q[todo], p[todo]
        Qp = np.einsum("mts,ms->mt", Qs, ps)
        pQp = np.einsum("mt,mt->m", ps, Qp)
        done = np.abs(Qp - pQp[:, None]).max(axis=1) < eps
        todo, Qs, ps, Qp, pQp = todo[~done], Qs[~done], ps[~done], Qp[~done], pQp[~done]
        # libsvm's sweep over t, each update renormalising p (sum stays 1)
        for t in range(k):
            diff = (-Qp[:, t] + pQp) / Qs[:, t, t]
            ps[:, t] += diff
            pQp = (pQp + diff * (diff * Qs[:, t, t] + 2 * Qp[:, t])) / (1 + diff) / (1 + diff)
            Qp = (Qp + diff[:, None] * Qs[:, t, :]) / (1 + diff)[:, None]
            ps /= (1 + diff)[:, None]
        p[todo] = ps
    return p
