"""The claims of docs/guide/notation-and-errata.md, checked against closed forms and
scikit-learn: gamma = 1/(2 sigma^2), the factor 2 of random Fourier features, and the
Laplacian/Cauchy kernels' swapped spectral densities."""

import numpy as np
import pytest
from scipy import stats
from sklearn.gaussian_process.kernels import RBF as GaussianProcessRBF
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import laplacian_kernel

from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF, Cauchy, Laplacian


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).normal(size=(8, 3))


@pytest.mark.parametrize("sigma", [0.3, 1.0, 4.0])
def test_gamma_is_one_over_two_sigma_squared(X, sigma):
    notes = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * sigma ** 2))
    np.testing.assert_allclose(RBF(gamma=1 / (2 * sigma ** 2))(X), notes, atol=1e-14)
    np.testing.assert_allclose(GaussianProcessRBF(length_scale=sigma)(X), notes, atol=1e-14)
    np.testing.assert_allclose(RBF(length_scale=sigma)(X), notes, atol=1e-14)
    # a larger gamma is a narrower kernel: smaller off-diagonal values
    off = ~np.eye(len(X), dtype=bool)
    assert (RBF(gamma=2 / sigma ** 2)(X)[off] < notes[off]).all()


def test_random_fourier_features_are_sqrt_2_over_D_and_unbiased(X):
    """Averaged over 200 independent draws, Z Z' is k with sqrt(2/D) and k/2 with
    sqrt(1/D); the phase identity E_b cos(a + b) cos(c + b) = cos(a - c)/2 is why."""
    K = RBF(gamma=0.5)(X)
    D, runs = 64, 200
    good, lost = np.zeros_like(K), np.zeros_like(K)
    for seed in range(runs):
        rff = RandomFourierFeatures(RBF(gamma=0.5), n_components=D, random_state=seed).fit(X)
        phases = X @ rff.random_weights_ + rff.random_offset_
        Z = rff.transform(X)
        np.testing.assert_allclose(Z, np.sqrt(2 / D) * np.cos(phases), atol=1e-14)
        good += Z @ Z.T / runs
        half = np.sqrt(1 / D) * np.cos(phases)
        lost += half @ half.T / runs
    # per entry: mean of runs * D terms in [-2, 2] (std <= 1/sqrt(2 * 12800) ~ 0.006)
    assert np.abs(good - K).max() < 0.03
    assert np.abs(lost - K / 2).max() < 0.02
    assert np.abs(lost - K).max() > 0.3  # the diagonal alone is 1/2 instead of 1
    b = np.random.default_rng(1).uniform(0, 2 * np.pi, 400_000)
    a, c = 0.9, -0.4
    assert abs(np.mean(np.cos(a + b) * np.cos(c + b)) - np.cos(a - c) / 2) < 5e-3


def test_scikit_learn_rbf_sampler_has_the_same_scaling(X):
    """scikit-learn's RBFSampler is the same map: sqrt(2/D) cos(X W + b)."""
    s = RBFSampler(gamma=0.5, n_components=50, random_state=0).fit(X)
    np.testing.assert_allclose(s.transform(X), np.sqrt(2 / 50) * np.cos(
        X @ s.random_weights_ + s.random_offset_), atol=1e-12)


def test_laplacian_kernel_is_scikit_learns_and_draws_cauchy_frequencies(X):
    np.testing.assert_allclose(Laplacian(gamma=0.7)(X), laplacian_kernel(X, gamma=0.7),
                               atol=1e-14)
    gamma = 1.5
    w = Laplacian(gamma=gamma).spectral_density().sample(2, 40_000, 0).ravel()
    assert stats.kstest(w, stats.cauchy(scale=gamma).cdf).pvalue > 1e-3
    assert stats.kstest(w, stats.laplace(scale=gamma).cdf).pvalue < 1e-10
    for delta in (0.2, 0.8, 2.0):  # Bochner per coordinate: E cos(w delta) = exp(-gamma |delta|)
        assert abs(np.cos(w * delta).mean() - np.exp(-gamma * delta)) < 0.015


def test_cauchy_kernel_draws_laplace_frequencies(X):
    gamma = 1.5
    d = X[:, None] - X[None]
    np.testing.assert_allclose(Cauchy(gamma=gamma)(X), np.prod(1 / (1 + gamma ** 2 * d ** 2),
                                                               axis=-1), atol=1e-14)
    w = Cauchy(gamma=gamma).spectral_density().sample(2, 40_000, 0).ravel()
    assert stats.kstest(w, stats.laplace(scale=gamma).cdf).pvalue > 1e-3
    assert stats.kstest(w, stats.cauchy(scale=gamma).cdf).pvalue < 1e-10
    for delta in (0.2, 0.8, 2.0):
        assert abs(np.cos(w * delta).mean() - 1 / (1 + gamma ** 2 * delta ** 2)) < 0.015
