"""MeanEmbedding, the kernel of sets (distributions), against brute-force double loops."""

import numpy as np
import pytest

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import (Laplacian, Linear, MeanEmbedding, Polynomial, RBF, Spectrum,
                               parse_kernel)
from kernelkit.testing import check_kernel


def _sets(n, d=2, max_size=4, seed=0, shift=0.0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(1, max_size + 1)), d)) + shift * (i % 2)
            for i in range(n)]


def _brute(k0, A, B):
    """1/(|A||B|) sum_a sum_b k0(a, b), one pair of points at a time."""
    return sum(k0(a, b) for a in A for b in B) / (len(A) * len(B))


def _rbf(gamma):
    return lambda a, b: np.exp(-gamma * np.sum((a - b) ** 2))


@pytest.mark.parametrize("kernel, k0", [
    (MeanEmbedding(RBF(gamma=0.7)), _rbf(0.7)),
    (MeanEmbedding(Linear()), lambda a, b: a @ b),
    (MeanEmbedding(Polynomial(degree=2, gamma=0.5, coef0=1.0)),
     lambda a, b: (0.5 * a @ b + 1.0) ** 2),
    (MeanEmbedding(Laplacian(gamma=0.3)), lambda a, b: np.exp(-0.3 * np.abs(a - b).sum())),
])
def test_equals_the_double_loop(kernel, k0):
    X, Y = _sets(7, seed=1), _sets(5, seed=2, max_size=6)
    ref = np.array([[_brute(k0, A, B) for B in Y] for A in X])
    np.testing.assert_allclose(kernel(X, Y), ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel.diag(X), [_brute(k0, A, A) for A in X], rtol=1e-12)


def test_normalized_is_the_cosine_of_the_embeddings():
    X = _sets(6, seed=3)
    k0 = _rbf(0.4)
    raw = np.array([[_brute(k0, A, B) for B in X] for A in X])
    d = np.sqrt(np.diag(raw))
    K = MeanEmbedding(RBF(gamma=0.4), normalize=True)(X)
    np.testing.assert_allclose(K, raw / np.outer(d, d), rtol=1e-12)
    assert np.all(np.diag(K) == 1.0)


def test_linear_base_is_the_linear_kernel_of_the_means():
    X = _sets(20, d=3, seed=4, max_size=9)
    means = np.array([A.mean(axis=0) for A in X])
    np.testing.assert_allclose(MeanEmbedding(Linear())(X), means @ means.T, rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("kernel", [
    MeanEmbedding(RBF(gamma=0.5)),
    MeanEmbedding(),  # gamma="scale" fixed from the points
    MeanEmbedding(Linear(), normalize=True),
    MeanEmbedding(RBF(gamma=0.2)) + 0.5 * MeanEmbedding(Linear()),
])
def test_kernel_contract(kernel):
    check_kernel(kernel, _sets(24, seed=5, max_size=3))


def test_mmd_from_the_kernel():
    """k(A,A) - 2k(A,B) + k(B,B) is the squared MMD of the two samples: 0 for the same
    sample in another order, > 0 for another sample."""
    rng = np.random.default_rng(6)
    A = rng.normal(size=(30, 2))
    k = MeanEmbedding(RBF(gamma=0.5))
    K = k([A, A[::-1], A + 1.0])
    assert abs(K[0, 0] - 2 * K[0, 1] + K[1, 1]) < 1e-13
    assert K[0, 0] - 2 * K[0, 2] + K[2, 2] > 0.1


def test_random_fourier_features_of_the_base_give_the_mean_embedding():
    """Averaging phi0 over a set's points gives approximate mean-embedding features:
    their inner products converge to the kernel (error ~ 1/sqrt(D))."""
    from kernelkit.features import RandomFourierFeatures

    X = _sets(15, seed=7, max_size=5)
    rff = RandomFourierFeatures(kernel=RBF(gamma=0.5), n_components=20000,
                                random_state=0).fit(np.concatenate(X))
    Z = np.array([rff.transform(A).mean(axis=0) for A in X])
    err = np.abs(Z @ Z.T - MeanEmbedding(RBF(gamma=0.5))(X)).max()
    assert err < 0.05


def test_registry_names_and_repr():
    k = parse_kernel("mean_embedding(rbf(gamma=0.5), normalize=True)")
    assert k == MeanEmbedding(RBF(gamma=0.5), normalize=True)
    assert parse_kernel(repr(k)) == k
    assert parse_kernel("set_kernel(linear())") == MeanEmbedding(Linear())
    k.set_params(base_kernel__gamma=2.0)
    assert k.base_kernel == RBF(gamma=2.0)


def test_bad_parameters():
    with pytest.raises(InvalidParameterError, match="kernel on vectors"):
        MeanEmbedding(Spectrum(k=2))
    with pytest.raises(InvalidParameterError):
        MeanEmbedding("rbf")
    with pytest.raises(InvalidParameterError):
        MeanEmbedding(Linear(), normalize="yes")


def test_blocks_cut_within_the_budget(monkeypatch):
    """Sets of many points: the base-kernel blocks are cut into pieces, same values."""
    from kernelkit import config
    from kernelkit.kernels import sets

    X = _sets(6, seed=8, max_size=400)
    k = MeanEmbedding(RBF(gamma=0.3))
    full = k(X)
    monkeypatch.setattr(sets, "_MAX_COLUMN_POINTS", 50)  # several pieces of columns
    monkeypatch.setattr(sets, "_DIAG_GROUP_POINTS", 50)
    with config.config_context(memory="16MB"):
        small = k(X)
    np.testing.assert_allclose(small, full, rtol=1e-12)
    np.testing.assert_allclose(k.diag(X), np.diagonal(full), rtol=1e-12)
    assert sets._groups([3, 60, 2, 2, 50], 50) == [(0, 1), (1, 2), (2, 4), (4, 5)]


@pytest.mark.parametrize("make", ["svc", "ridge"])
def test_classifies_two_distributions(make):
    """Bags from N(0, I) and from a ring of the same mean and similar spread: the means
    look alike, the distributions do not; the RBF mean embedding tells them apart."""
    from kernelkit import KernelRidgeClassifier, KernelSVC

    rng = np.random.default_rng(9)

    def bag(label):
        m = int(rng.integers(10, 20))
        if label == 0:
            return rng.normal(size=(m, 2))
        t = rng.uniform(0, 2 * np.pi, m)
        return np.c_[np.cos(t), np.sin(t)] * 1.4 + 0.05 * rng.normal(size=(m, 2))

    y = np.arange(80) % 2
    X = [bag(c) for c in y]
    est = (KernelSVC(kernel=MeanEmbedding(RBF(gamma=1.0)), C=10.0) if make == "svc"
           else KernelRidgeClassifier(kernel=MeanEmbedding(RBF(gamma=1.0)), alpha=1e-3))
    est.fit(X[:60], y[:60])
    assert (est.predict(X[60:]) == y[60:]).mean() >= 0.9
    # the linear kernel of the means cannot do it
    lin = KernelSVC(kernel=MeanEmbedding(Linear()), C=10.0).fit(X[:60], y[:60])
    assert (lin.predict(X[60:]) == y[60:]).mean() < 0.8
