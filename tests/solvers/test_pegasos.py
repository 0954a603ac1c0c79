"""Kernelised Pegasos: compiled loop vs twin, the O(1) averaging, accuracy vs SMO."""

import numpy as np
import pytest

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF
from kernelkit.solvers._reference import pegasos_ref
from kernelkit.solvers.pegasos import draw_indices, pegasos_gram, pegasos_kernel
from kernelkit.solvers.smo import smo_gram


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    return X, y.astype(np.float64)


def naive_pegasos(K, y, C, T, seed, s=None):
    """Fig. 3 of Shalev-Shwartz et al. with the average summed step by step, O(n T)."""
    n = len(y)
    s = np.ones(n) if s is None else s
    lam = 1.0 / (n * C)
    idx = draw_indices(n, T, seed)
    beta, total = np.zeros(n), np.zeros(n)
    for t in range(1, T + 1):
        i = idx[t - 1]
        if y[i] / (lam * t) * np.sum(beta * y * K[i]) < 1:
            beta[i] += s[i]
        total += beta / (lam * t)  # alpha^t
    return total / T, beta


def test_compiled_equals_twin(banana):
    X, y = banana
    K = RBF(gamma=1.0)(X[:300])
    a = pegasos_gram(K, y[:300], 2.0, 3000, random_state=3)
    b = pegasos_ref(K, y[:300], 2.0, 3000, random_state=3)
    np.testing.assert_array_equal(a.beta, b.beta)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_averaging_bookkeeping_equals_naive_sum(banana, weighted):
    X, y = banana
    X, y = X[:40], y[:40]
    K = RBF(gamma=1.0)(X)
    s = np.linspace(0.5, 2.0, 40) if weighted else None
    for T in (1, 2, 7, 60):
        r = pegasos_gram(K, y, 1.5, T, sample_weight=s, random_state=T)
        alpha, beta = naive_pegasos(K, y, 1.5, T, T, s)
        np.testing.assert_array_equal(r.beta, beta)
        np.testing.assert_allclose(r.alpha, alpha, rtol=1e-12, atol=1e-14)


def test_on_the_fly_equals_cached(banana):
    X, y = banana
    X, y = X[:100], y[:100]
    kernel = RBF(gamma=1.0)
    a = pegasos_gram(kernel(X), y, 1.0, 300, random_state=0)
    b = pegasos_kernel(kernel, X, y, 1.0, 300, random_state=0)
    np.testing.assert_array_equal(a.beta, b.beta)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=1e-12)


def test_accuracy_close_to_smo(banana):
    X, y = banana
    Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:3000], y[1000:3000]
    kernel = RBF(gamma=1.0)
    K = kernel(Xtr)
    Kte = kernel(Xte, Xtr)
    smo = smo_gram(K, ytr, 1.0)
    acc_smo = np.mean(np.sign(Kte @ (smo.alpha * ytr) + smo.bias) == yte)
    peg = pegasos_gram(K, ytr, 1.0, 50 * len(ytr), random_state=0)
    acc_peg = np.mean(np.sign(Kte @ (peg.alpha * ytr)) == yte)
    assert acc_smo > 0.88
    assert acc_peg > acc_smo - 0.02
