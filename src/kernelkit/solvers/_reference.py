"""Plain-numpy twins of the compiled solver loops (STYLE.md habit 8), for the tests.

- :func:`smo_ref`: the SMO of :func:`~kernelkit.solvers.smo.smo_gram`, the same
  algorithm (working-set selection, shrinking, tie-breaking) vectorised per step;
- :func:`pegasos_ref`: :func:`~kernelkit.solvers.pegasos.pegasos_gram` with the
  same draws and the same arithmetic;
- :func:`sgd_w_steps_ref`, :func:`sgd_u_steps_ref`: the textbook SGD updates,
  eager (no lazy scale), against :func:`~kernelkit.solvers.sgd.sgd_w_steps` and
  :func:`~kernelkit.solvers.sgd.sgd_u_steps`.

No production code path imports this module; the tests in ``tests/solvers``
compare each compiled loop with its twin.
"""

from __future__ import annotations

import numpy as np

from .losses import get_loss
from .pegasos import _finish as _pegasos_finish
from .pegasos import _labels_weights_and_lambda, draw_indices
from .smo import TAU, _labels_and_bounds, _violation, default_max_iter
from .smo import _finish as _smo_finish

__all__ = ["smo_ref", "pegasos_ref", "sgd_w_steps_ref", "sgd_u_steps_ref"]


# --------------------------------------------------------------------------
# SMO

def _last_arg(mask, values, best):
    """Index of the last t with mask[t] and values[t] == best (libsvm's ">=" scan)."""
    hits = np.flatnonzero(mask & (values == best))
    return int(hits[-1]) if hits.size else -1


def smo_ref(K, y, C, *, tol=1e-3, max_iter=None, shrinking=True):
    """Plain-numpy twin of :func:`smo_gram`: the same algorithm, vectorised per step."""
    K = np.asarray(K, dtype=np.float64)
    y, Cb = _labels_and_bounds(y, C)
    n = len(y)
    QD = np.diag(K).copy()
    alpha, G = np.zeros(n), -np.ones(n)
    act = np.ones(n, dtype=bool)
    max_iter = default_max_iter(n) if max_iter is None else int(max_iter)
    counter, unshrink, it, converged = min(n, 1000) + 1, False, 0, False

    def sets():
        up, low = alpha >= Cb, alpha <= 0
        iup = act & (((y > 0) & ~up) | ((y < 0) & ~low))
        ilow = act & (((y > 0) & ~low) | ((y < 0) & ~up))
        return iup, ilow

    def reconstruct():
        ina = np.flatnonzero(~act)
        sv = np.flatnonzero(alpha > 0)
        G[ina] = -1.0 + y[ina] * (K[np.ix_(ina, sv)] @ (alpha * y)[sv])
        act[:] = True

    def select():
        iup, ilow = sets()
        myG = -y * G
        if not iup.any():
            return -1, -1
        gmax = myG[iup].max()
        i = _last_arg(iup, myG, gmax)
        gmax2 = (-myG[ilow]).max() if ilow.any() else -np.inf
        gd = gmax - myG
        cand = ilow & (gd > 0)
        if gmax + gmax2 < tol or not cand.any():
            return -1, -1
        quad = QD[i] + QD - 2.0 * K[i]
        quad = np.where(quad <= 0, TAU, quad)
        od = np.where(cand, -(gd * gd) / quad, np.inf)
        return i, _last_arg(cand, od, od.min())

    while it < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            if shrinking:
                iup, ilow = sets()
                myG = -y * G
                g1 = myG[iup].max() if iup.any() else -np.inf
                g2 = (-myG[ilow]).max() if ilow.any() else -np.inf
                if not unshrink and g1 + g2 <= tol * 10:
                    unshrink = True
                    reconstruct()
                up, low = alpha >= Cb, alpha <= 0
                s_up = up & np.where(y > 0, -G > g1, -G > g2)
                s_low = ~up & low & np.where(y > 0, G > g2, G > g1)
                act &= ~(s_up | s_low)
        i, j = select()
        if i < 0:
            if act.all():
                converged = True
                break
            reconstruct()
            i, j = select()
            if i < 0:
                converged = True
                break
            counter = 1
        it += 1
        ai, aj = alpha[i], alpha[j]
        Ci, Cj = Cb[i], Cb[j]
        quad = QD[i] + QD[j] - 2.0 * K[i, j]
        quad = TAU if quad <= 0 else quad
        if y[i] != y[j]:
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            ni, nj = ai + delta, aj + delta
            if diff > 0 and nj < 0:
                nj, ni = 0.0, diff
            elif diff <= 0 and ni < 0:
                ni, nj = 0.0, -diff
            if diff > Ci - Cj and ni > Ci:
                ni, nj = Ci, Ci - diff
            elif diff <= Ci - Cj and nj > Cj:
                nj, ni = Cj, Cj + diff
        else:
            delta = (G[i] - G[j]) / quad
            s = ai + aj
            ni, nj = ai - delta, aj + delta
            if s > Ci and ni > Ci:
                ni, nj = Ci, s - Ci
            elif s <= Ci and nj < 0:
                nj, ni = 0.0, s
            if s > Cj and nj > Cj:
                nj, ni = Cj, s - Cj
            elif s <= Cj and ni < 0:
                ni, nj = 0.0, s
        alpha[i], alpha[j] = ni, nj
        di, dj = (ni - ai) * y[i], (nj - aj) * y[j]
        idx = np.flatnonzero(act)
        G[idx] += y[idx] * (K[i, idx] * di + K[j, idx] * dj)
    if not act.all():
        reconstruct()
    return _smo_finish(alpha, G, y, Cb, it, converged, _violation(alpha, G, y, Cb))


# --------------------------------------------------------------------------
# Pegasos

def pegasos_ref(K, y, C, n_iter, *, sample_weight=None, random_state=None):
    """Plain-numpy twin of :func:`pegasos_gram` (same draws, same arithmetic)."""
    K = np.asarray(K, dtype=np.float64)
    y, s, lam, T = _labels_weights_and_lambda(y, C, sample_weight, n_iter)
    idx = draw_indices(len(y), T, random_state)
    n = len(y)
    beta, acc, h = np.zeros(n), np.zeros(n), np.zeros(n)
    H = 0.0
    for t in range(1, T + 1):
        i = idx[t - 1]
        z = K[i] @ (beta * y)
        if y[i] * z / (lam * t) < 1.0:
            acc[i] += beta[i] * (H - h[i])
            h[i] = H
            beta[i] += s[i]
        H += 1.0 / t
    return _pegasos_finish(beta, acc, h, H, lam, T)


# --------------------------------------------------------------------------
# SGD: the textbook updates, eager (no lazy scale)

def sgd_w_steps_ref(Z, rows, y, etas, lam, loss, w, wbar, k=0, t0=0, avg_start=-1):
    """Eager SGD on w with uniform averaging; returns (w, wbar, n_averaged)."""
    loss = get_loss(loss)
    w, wbar = w.copy(), wbar.copy()
    for s, r in enumerate(rows):
        g = float(loss.derivative(Z[r] @ w, y[s]))
        w = (1.0 - etas[s] * lam) * w - etas[s] * g * Z[r]
        if 0 <= avg_start <= t0 + s:
            k += 1
            wbar = wbar + (w - wbar) / k
    return w, wbar, k


def sgd_u_steps_ref(K, rows, idx, y, etas, lam, loss, u, ubar, k=0, t0=0, avg_start=-1):
    """Eager SGD on u with uniform averaging; returns (u, ubar, n_averaged)."""
    loss = get_loss(loss)
    u, ubar = u.copy(), ubar.copy()
    for s, r in enumerate(rows):
        g = float(loss.derivative(K[r] @ u, y[s]))
        u = (1.0 - etas[s] * lam) * u
        u[idx[s]] -= etas[s] * g
        if 0 <= avg_start <= t0 + s:
            k += 1
            ubar = ubar + (u - ubar) / k
    return u, ubar, k


def rbf_exponent_row_ref(XT, sq, gamma, i, out):
    """Plain-numpy twin of :func:`kernelkit.solvers._rbf_rows.rbf_exponent_row` (same
    arguments, same result): ``out = -gamma * max(|x_i|^2 + |x_k|^2 - 2 x_i.x_k, 0)``."""
    inner = XT[:, i] @ XT
    out[:] = -gamma * np.maximum(sq[i] + sq - 2.0 * inner, 0.0)
