"""Matern kernel: values against scikit-learn's GP kernel, random features, model files."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern as SkMatern

import kernelkit
from kernelkit.kernels import Matern, parse_kernel


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_matches_sklearn(nu):
    rng = np.random.RandomState(0)
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(7, 3))
    k = Matern(nu=nu, length_scale=0.7)
    ref = SkMatern(nu=nu, length_scale=0.7)
    np.testing.assert_allclose(k(X, Y), ref(X, Y), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(k(X), ref(X), rtol=1e-10, atol=1e-12)
    assert parse_kernel(f"matern(nu={nu}, length_scale=0.7)") == k


@pytest.mark.parametrize("nu", [0.5, 2.5])
def test_random_features_error_shrinks_like_one_over_sqrt_D(nu):
    rng = np.random.RandomState(1)
    X = rng.normal(size=(60, 2))
    K = Matern(nu=nu, length_scale=1.5)(X)
    errors = []
    for D in (200, 3200):
        errs = []
        for seed in range(3):
            Z = kernelkit.RandomFourierFeatures(kernel=Matern(nu=nu, length_scale=1.5),
                                                n_components=D, random_state=seed).fit_transform(X)
            errs.append(np.abs(Z @ Z.T - K).max())
        errors.append(np.mean(errs))
    # 16 times the features: about 4 times smaller error (1 / sqrt(D)); allow slack
    assert errors[1] < errors[0] / 2.5, errors


def test_matern_refuses_other_nu_and_round_trips_a_model_file(tmp_path):
    with pytest.raises(ValueError, match="nu"):
        Matern(nu=1.0)
    rng = np.random.RandomState(2)
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    model = kernelkit.KernelRidge(kernel="matern(nu=2.5, length_scale=2.0)").fit(X, y)
    kernelkit.save(model, tmp_path / "m.kk")
    back = kernelkit.load(tmp_path / "m.kk")
    assert back.kernel_ == Matern(nu=2.5, length_scale=2.0)
    np.testing.assert_array_equal(back.predict(X), model.predict(X))


def test_chi2_kernels_match_sklearn_and_refuse_negative_input(tmp_path):
    from sklearn.metrics.pairwise import additive_chi2_kernel, chi2_kernel

    from kernelkit.kernels import AdditiveChi2, Chi2

    rng = np.random.RandomState(3)
    X, Y = rng.rand(20, 5), rng.rand(6, 5)
    X[0, :2] = 0.0
    Y[0, :2] = 0.0  # 0 / 0 terms count as 0, as in scikit-learn
    np.testing.assert_allclose(Chi2(gamma=0.7)(X, Y), chi2_kernel(X, Y, gamma=0.7), rtol=1e-12)
    np.testing.assert_allclose(AdditiveChi2()(X, Y), additive_chi2_kernel(X, Y), rtol=1e-12)
    np.testing.assert_allclose(Chi2(gamma=1.0)(X), chi2_kernel(X), rtol=1e-12)  # its default gamma
    assert parse_kernel("chi2(gamma=0.7)") == Chi2(gamma=0.7)
    assert parse_kernel("additive_chi2") == AdditiveChi2() and not AdditiveChi2().is_psd
    with pytest.raises(ValueError, match="non-negative"):
        Chi2()(-X)
    y = X[:, 0]
    model = kernelkit.KernelRidge(kernel="chi2(gamma=0.5)").fit(X, y)
    kernelkit.save(model, tmp_path / "c.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "c.kk").predict(X), model.predict(X))
