"""Platt's sigmoid fit and Wu-Lin-Weng coupling against brute-force references."""

import numpy as np
import pytest
from scipy.optimize import minimize

from kernelkit.solvers.platt import (pairwise_coupling, sigmoid_fit, sigmoid_objective,
                                     sigmoid_predict)


def _targets(labels):
    n_pos, n_neg = (labels > 0).sum(), (labels <= 0).sum()
    return np.where(labels > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))


@pytest.mark.parametrize("seed, scale", [(0, 1.0), (1, 5.0), (2, 0.2)])
def test_sigmoid_fit_minimises_the_regularised_log_loss(seed, scale):
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(300) < 0.4, 1.0, -1.0)
    dec = scale * (labels + rng.normal(scale=1.2, size=300))
    A, B = sigmoid_fit(dec, labels)
    t = _targets(labels)

    def loss(ab):  # the same cross-entropy, written plainly
        p = 1 / (1 + np.exp(ab[0] * dec + ab[1]))
        return -np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))

    ref = minimize(loss, [0.0, 0.0], method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 10_000}).x
    np.testing.assert_allclose([A, B], ref, rtol=1e-4, atol=1e-5)
    assert A < 0  # larger decision values mean the positive class
    assert abs(sigmoid_objective(A, B, dec, t) - loss([A, B])) < 1e-9 * loss([A, B])


def test_sigmoid_predict_has_no_overflow():
    p = sigmoid_predict(np.array([-1e6, 0.0, 1e6]), -2.0, 0.0)
    np.testing.assert_allclose(p, [0.0, 0.5, 1.0])
    assert np.isfinite(p).all()


def test_sigmoid_fit_on_separable_values_stays_finite():
    labels = np.r_[np.ones(20), -np.ones(20)]
    A, B = sigmoid_fit(np.r_[np.full(20, 3.0), np.full(20, -3.0)], labels)
    assert np.isfinite([A, B]).all() and A < 0


def _coupling_reference(r):
    """Method 2 of Wu, Lin & Weng: [Q e; e' 0] [p; b] = [0; 1]."""
    k = r.shape[0]
    Q = np.zeros((k, k))
    for t in range(k):
        for s in range(k):
            if s != t:
                Q[t, t] += r[s, t] ** 2
                Q[t, s] = -r[s, t] * r[t, s]
    M = np.block([[Q, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
    return np.linalg.solve(M, np.r_[np.zeros(k), 1.0])[:k]


@pytest.mark.parametrize("k", [3, 4, 6])
def test_coupling_solves_its_linear_system(k):
    rng = np.random.default_rng(k)
    r = np.zeros((50, k, k))
    for a in range(k):
        for b in range(a + 1, k):
            r[:, a, b] = rng.uniform(0.02, 0.98, 50)
            r[:, b, a] = 1 - r[:, a, b]
    p = pairwise_coupling(r)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    ref = np.array([_coupling_reference(r[i]) for i in range(50)])
    # libsvm stops at max_t |(Qp)_t - p'Qp| < 0.005 / k; p is that close to the solution
    np.testing.assert_allclose(p, ref, atol=0.01)
    tight = pairwise_coupling(r[:5], max_iter=10_000)
    assert np.abs(tight - ref[:5]).max() < np.abs(p[:5] - ref[:5]).max() + 1e-12


def test_coupling_of_consistent_pairwise_probabilities():
    # r_ij = p_i / (p_i + p_j) exactly: the coupling recovers p
    p_true = np.array([0.5, 0.3, 0.15, 0.05])
    r = p_true[:, None] / (p_true[:, None] + p_true[None, :])
    np.testing.assert_allclose(pairwise_coupling(r[None])[0], p_true, atol=2e-3)
