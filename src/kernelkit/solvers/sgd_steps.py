"""The compiled steps of :func:`kernelkit.solvers.sgd.sgd`, and the lazy state they share.

One SGD step is w <- (1 - eta_t lam) w - eta_t l'(f(x_t); y_t) psi(x_t), in
w-space over rows of a feature matrix (:func:`sgd_w_steps`) or in u-space over
rows of kernel values (:func:`sgd_u_steps`). Both keep w = scale * v and the
Polyak-Ruppert average wbar = gamma * a + B * v in a small state vector
(:func:`new_state`, :func:`final_coef`), so a step costs O(1) beyond its row's
product. The loops are numba functions (compiled lazily, on first call); their
plain-numpy twins ``*_ref`` are in :mod:`._reference`. The strategies, chunking
and stopping live in :mod:`.sgd`, which re-exports these names.

Pure numerics: no validation, no printing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._compiled import interruptible
from .losses import get_loss

__all__ = ["LOSS_CODES", "sgd_w_steps", "sgd_u_steps", "new_state", "final_coef"]

#: Loss names -> the small integer the compiled loops switch on.
LOSS_CODES = {"squared": 0, "logistic": 1, "hinge": 2, "squared_hinge": 3, "huber": 4,
              "epsilon_insensitive": 5}


# Renormalise the lazy scale factors below these. The scale of w: at 1e-4 the
# averaged iterate loses at most ~4 digits to cancellation between its parts.
_RENORM = 1e-4
_TINY = 1e-100


@njit(cache=True, nogil=True, error_model="numpy")
def _dloss(code, z, y, eps):
    if code == 0:
        return z - y
    if code == 1:
        m = y * z  # -y expit(-m), without overflow for large |m|
        if m > 0.0:
            e = np.exp(-m)
            return -y * e / (1.0 + e)
        return -y / (1.0 + np.exp(m))
    if code == 2:
        return -y if y * z < 1.0 else 0.0
    if code == 3:
        r = 1.0 - y * z
        return -y * r if r > 0.0 else 0.0
    r = z - y
    if code == 5:  # epsilon-insensitive: sign(r) outside the tube
        return 1.0 if r > eps else (-1.0 if r < -eps else 0.0)
    return min(max(r, -eps), eps)


# The state vector shared by the compiled loops and their twins:
# [scale, a_scale (gamma), B, n_averaged]; w = scale v, wbar = gamma a + B v.
_SCALE, _AVG_A_SCALE, _AVG_B, _N_AVERAGED = range(4)


def new_state():
    """A fresh state vector: w = v, no average yet."""
    return np.array([1.0, 1.0, 0.0, 0.0])


@njit(cache=True, nogil=True, error_model="numpy")
def _avg_update(state, a, v, t, avg_start):
    # After the step: wbar <- (1 - mu) wbar + mu w with mu = 1/k.
    if t < avg_start:
        return
    state[_N_AVERAGED] += 1.0
    k = state[_N_AVERAGED]
    if k == 1.0:
        state[_AVG_B] = state[_SCALE]  # a == 0 so far: wbar = scale v = w
        return
    mu = 1.0 / k
    state[_AVG_A_SCALE] *= 1.0 - mu
    state[_AVG_B] = (1.0 - mu) * state[_AVG_B] + mu * state[_SCALE]
    if state[_AVG_A_SCALE] < _TINY:
        a *= state[_AVG_A_SCALE]
        state[_AVG_A_SCALE] = 1.0


@njit(cache=True, nogil=True, error_model="numpy")
def _shrink(state, v, a, eta, lam):
    s = state[_SCALE] * (1.0 - eta * lam)
    if abs(s) < _RENORM:
        # Renormalise (O(dim), rare: the "optimal" schedule's scale decays only
        # like 1/(1 + eta0 lam t)). First fold B v into the average's vector part,
        # so that gamma a + B v never cancels catastrophically (v ~ w / scale grows
        # as the scale decays); a step with eta lam = 1 (Pegasos' first) zeroes w.
        c = state[_AVG_B] / state[_AVG_A_SCALE]
        for j in range(v.shape[0]):
            a[j] += c * v[j]
            v[j] *= s
        state[_AVG_B] = 0.0
        s = 1.0
    state[_SCALE] = s


@njit(cache=True, nogil=True, error_model="numpy")
def _sgd_w_steps(Z, rows, y, etas, lam, code, eps, v, a, state, t0, avg_start, sw):
    D = Z.shape[1]
    for s in range(rows.shape[0]):
        r = rows[s]
        f = 0.0
        for j in range(D):
            f += Z[r, j] * v[j]
        f *= state[_SCALE]
        g = _dloss(code, f, y[s], eps)
        if sw.shape[0]:
            g *= sw[s]
        eta = etas[s]
        _shrink(state, v, a, eta, lam)
        if g != 0.0:
            c = -eta * g / state[_SCALE]
            ca = c * state[_AVG_B] / state[_AVG_A_SCALE]
            for j in range(D):
                v[j] += c * Z[r, j]
                a[j] -= ca * Z[r, j]
        _avg_update(state, a, v, t0 + s, avg_start)


@njit(cache=True, nogil=True, error_model="numpy")
def _sgd_u_steps(K, rows, idx, y, etas, lam, code, eps, v, a, state, t0, avg_start, sw):
    n = K.shape[1]
    for s in range(rows.shape[0]):
        r = rows[s]
        f = 0.0
        for j in range(n):
            f += K[r, j] * v[j]
        f *= state[_SCALE]
        g = _dloss(code, f, y[s], eps)
        if sw.shape[0]:
            g *= sw[s]
        eta = etas[s]
        _shrink(state, v, a, eta, lam)
        if g != 0.0:
            c = -eta * g / state[_SCALE]
            i = idx[s]
            v[i] += c
            a[i] -= c * state[_AVG_B] / state[_AVG_A_SCALE]
        _avg_update(state, a, v, t0 + s, avg_start)


def _contiguous_step_inputs(Z, rows, y, etas):
    return (np.ascontiguousarray(Z, dtype=np.float64), np.ascontiguousarray(rows, np.int64),
            np.ascontiguousarray(y, np.float64), np.ascontiguousarray(etas, np.float64))



# Ctrl-C during the compiled loops arrives as KeyboardInterrupt (see _compiled.interruptible).
_run_w_steps = interruptible(_sgd_w_steps)
_run_u_steps = interruptible(_sgd_u_steps)

def _step_weights(sample_weight):
    # An empty array means "no weights" in the compiled loops (one signature).
    return _NO_WEIGHTS if sample_weight is None else np.ascontiguousarray(sample_weight,
                                                                          np.float64)


_NO_WEIGHTS = np.zeros(0)


def sgd_w_steps(Z, rows, y, etas, lam, loss, v, a, state, t0=0, avg_start=-1,
                sample_weight=None):
    """Run SGD steps on w = state[0] v: step s uses feature row Z[rows[s]], label y[s].

    ``v``, ``a`` (float64, shape (D,)) and ``state`` (:func:`new_state`) are
    updated in place; ``avg_start < 0`` means no averaging; ``sample_weight``
    (shape (len(rows),), per step) multiplies each step's loss gradient.
    """
    loss = get_loss(loss)
    Z, rows, y, etas = _contiguous_step_inputs(Z, rows, y, etas)
    _run_w_steps(Z, rows, y, etas, float(lam), LOSS_CODES[loss.name], float(loss.epsilon),
                 v, a, state, int(t0), _avg(avg_start), _step_weights(sample_weight))


def sgd_u_steps(K, rows, idx, y, etas, lam, loss, v, a, state, t0=0, avg_start=-1,
                sample_weight=None):
    """Run SGD steps on u = state[0] v: step s uses kernel row K[rows[s]] and
    updates coordinate idx[s] (the sample's index) with label y[s] (and, if
    given, per-step weight ``sample_weight[s]`` on its loss gradient)."""
    loss = get_loss(loss)
    K, rows, y, etas = _contiguous_step_inputs(K, rows, y, etas)
    _run_u_steps(K, rows, np.ascontiguousarray(idx, np.int64), y, etas, float(lam),
                 LOSS_CODES[loss.name], float(loss.epsilon), v, a, state, int(t0),
                 _avg(avg_start), _step_weights(sample_weight))


def _avg(avg_start):
    return np.iinfo(np.int64).max if avg_start is None or avg_start < 0 else int(avg_start)


def final_coef(v, a, state, averaged):
    """The coefficients the state stands for: wbar = gamma a + B v if ``averaged``, else scale v."""
    return state[_AVG_A_SCALE] * a + state[_AVG_B] * v if averaged else state[_SCALE] * v
