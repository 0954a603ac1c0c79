"""Random Fourier features: Z Z' approximates the exact kernel, for every variant."""

import numpy as np
import pytest
from sklearn.kernel_approximation import RBFSampler
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.features.random_fourier import RandomFourierFeatures
from kernelkit.kernels import RBF, Cauchy, Laplacian, Linear, Polynomial, Sigmoid

SEEDS = range(4)


@pytest.fixture(scope="module")
def X():
    return 0.5 * np.random.default_rng(0).normal(size=(80, 5))


def _error(kernel, X, D, seed, **kw):
    Z = RandomFourierFeatures(kernel, D, random_state=seed, **kw).fit_transform(X)
    return np.abs(Z @ Z.T - kernel(X)).mean()


def _mean_error(kernel, X, D, **kw):
    return np.mean([_error(kernel, X, D, seed, **kw) for seed in SEEDS])


KERNELS = {
    "rbf": RBF(gamma=0.5),
    "laplacian": Laplacian(gamma=0.3),
    "cauchy": Cauchy(gamma=0.5),
    "scaled": 2.5 * RBF(gamma=0.5),
    "sum": RBF(gamma=0.5) + 0.5 * Laplacian(gamma=0.3),
    "product": RBF(gamma=0.5) * Cauchy(gamma=0.5),
}


@pytest.mark.parametrize("variant", ["cos_bias", "paired"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_error_shrinks_like_inverse_sqrt_D(X, name, variant):
    kernel = KERNELS[name]
    scale = float(kernel(X[:1])[0, 0])
    small, large = (_mean_error(kernel, X, D, variant=variant) for D in (500, 8000))
    assert large < 0.02 * scale
    assert small / large > 2.5  # 1/sqrt(D) predicts 4


def test_orthogonal_approximates_and_beats_iid(X):
    kernel = RBF(gamma=0.5)
    small, large = (_mean_error(kernel, X, D, variant="orthogonal") for D in (500, 8000))
    assert large < 0.01
    assert small / large > 2.5
    for D in (100, 500):
        orthogonal = _mean_error(kernel, X, D, variant="orthogonal")
        assert orthogonal < _mean_error(kernel, X, D, variant="paired")
        assert orthogonal < _mean_error(kernel, X, D, variant="cos_bias")


def test_orthogonal_scaled_rbf_and_more_components_than_features(X):
    kernel = 3.0 * RBF(length_scale=1.5)
    rff = RandomFourierFeatures(kernel, 64, variant="orthogonal", random_state=0).fit(X)
    W = rff.random_weights_
    assert W.shape == (5, 32)
    # within a block of d columns the frequencies are orthogonal
    G = W[:, :5].T @ W[:, :5]
    np.testing.assert_allclose(G - np.diag(np.diag(G)), 0, atol=1e-10)
    assert np.mean([_error(kernel, X, 4000, s, variant="orthogonal") for s in SEEDS]) < 0.05


def test_string_kernel_and_attributes(X):
    rff = RandomFourierFeatures("rbf(gamma=0.5)", 50, random_state=0).fit(X)
    assert rff.kernel_ == RBF(gamma=0.5)
    assert rff.random_weights_.shape == (5, 50)
    assert rff.random_offset_.shape == (50,)
    assert rff.n_features_in_ == 5 and rff.n_components_ == 50
    paired = RandomFourierFeatures("rbf", 50, variant="paired", random_state=0).fit(X)
    assert paired.random_weights_.shape == (5, 25) and paired.random_offset_ is None
    assert paired.transform(X).shape == (80, 50)


def test_same_random_state_same_features(X):
    for variant in ("cos_bias", "paired", "orthogonal"):
        a = RandomFourierFeatures(RBF(), 40, variant=variant, random_state=7).fit_transform(X)
        b = RandomFourierFeatures(RBF(), 40, variant=variant,
                                  random_state=np.random.RandomState(7)).fit_transform(X)
        np.testing.assert_array_equal(a, b)
        c = RandomFourierFeatures(RBF(), 40, variant=variant, random_state=8).fit_transform(X)
        assert not np.allclose(a, c)


def test_blocks_match_one_block(X, monkeypatch):
    from kernelkit.features import random_fourier

    for variant in ("cos_bias", "paired"):
        rff = RandomFourierFeatures(RBF(), 40, variant=variant, random_state=0).fit(X)
        whole = rff.transform(X)
        monkeypatch.setattr(random_fourier, "rows_per_block", lambda *a, **k: 7)
        np.testing.assert_array_equal(rff.transform(X), whole)
        monkeypatch.undo()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_threads_match_one_thread(X, monkeypatch, dtype):
    from kernelkit.features import random_fourier

    monkeypatch.setattr(random_fourier.os, "cpu_count", lambda: 2)
    for variant in ("cos_bias", "paired"):
        rff = RandomFourierFeatures(RBF(), 40, variant=variant, dtype=dtype,
                                    random_state=0).fit(X)
        whole = rff.transform(X)
        assert random_fourier._n_workers(len(X)) == 1
        monkeypatch.setattr(random_fourier, "_PARALLEL_MIN_ROWS", 20)
        assert random_fourier._n_workers(len(X)) == 2
        np.testing.assert_array_equal(rff.transform(X), whole)
        monkeypatch.setattr(random_fourier, "_PARALLEL_MIN_ROWS", 16384)


@pytest.mark.parametrize("variant", ["cos_bias", "paired", "orthogonal"])
def test_float32_close_to_float64(X, variant):
    kw = dict(kernel=RBF(gamma=0.5), n_components=200, variant=variant, random_state=0)
    z64 = RandomFourierFeatures(**kw).fit_transform(X)
    rff = RandomFourierFeatures(dtype="float32", **kw).fit(X)
    z32 = rff.transform(X)
    assert z32.dtype == np.float32 and rff.random_weights_.dtype == np.float32
    np.testing.assert_allclose(z32, z64, atol=1e-5)
    np.testing.assert_allclose(z32 @ z32.T, z64 @ z64.T, atol=1e-4)


def test_similar_error_to_sklearn_rbf_sampler(X):
    gamma, D = 0.5, 1000
    K = RBF(gamma=gamma)(X)
    ours = _mean_error(RBF(gamma=gamma), X, D)
    theirs = np.mean([np.abs(Z @ Z.T - K).mean() for Z in (
        RBFSampler(gamma=gamma, n_components=D, random_state=s).fit_transform(X)
        for s in SEEDS)])
    assert abs(ours - theirs) < 0.3 * theirs


@pytest.mark.parametrize("kernel", [Polynomial(degree=2), Sigmoid(), Linear(), "poly(degree=3)"])
def test_no_spectral_density_points_to_nystroem(X, kernel):
    with pytest.raises(ValueError, match="Nystroem"):
        RandomFourierFeatures(kernel).fit(X)


def test_errors(X):
    with pytest.raises(ValueError, match="must be even"):
        RandomFourierFeatures(RBF(), 51, variant="paired").fit(X)
    with pytest.raises(ValueError, match="must be even"):
        RandomFourierFeatures(RBF(), 51, variant="orthogonal").fit(X)
    with pytest.raises(ValueError, match="Gaussian"):
        RandomFourierFeatures(Laplacian(), 50, variant="orthogonal").fit(X)
    with pytest.raises(ValueError, match="2-D"):
        RandomFourierFeatures(RBF(), 10).fit(X[:, 0])
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RandomFourierFeatures(RBF(), 10).fit(bad)
    rff = RandomFourierFeatures(RBF(), 10).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        rff.transform(bad)
    with pytest.raises(ValueError, match="X has 3 features, but RandomFourierFeatures is "
                                         "expecting 5 features as input"):
        rff.transform(X[:, :3])
    for n in (0, -3):
        with pytest.raises(ValueError, match="n_components must be an integer >= 1"):
            RandomFourierFeatures(RBF(), n).fit(X)
    with pytest.raises(TypeError, match="n_components"):
        RandomFourierFeatures(RBF(), 10.5).fit(X)
    with pytest.raises(ValueError, match="variant must be one of"):
        RandomFourierFeatures(RBF(), 10, variant="sorf").fit(X)
    with pytest.raises(ValueError, match="dtype must be one of"):
        RandomFourierFeatures(RBF(), 10, dtype="float16").fit(X)


@parametrize_with_checks([RandomFourierFeatures(kernel=RBF(gamma=0.5), n_components=50,
                                                random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
