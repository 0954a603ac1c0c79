"""Kernel parameters in log space, their derivatives, and RBF with per-feature length scales."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import (RBF, Cauchy, Constant, Laplacian, Matern, Polynomial,
                               kernel_from_dict, parse_kernel)
from kernelkit.models import KernelRidge
from kernelkit.testing import check_kernel
from kernelkit.tuning import contract_derivatives, kernel_parameters

RNG = np.random.default_rng(0)
X = RNG.normal(size=(11, 3))
Y = RNG.normal(size=(6, 3))

KERNELS = [
    RBF(gamma=0.3), RBF(length_scale=2.0), RBF().resolve(X), RBF(length_scale=[0.5, 1.0, 2.0]),
    Laplacian(gamma=0.4),
    Matern(nu=0.5, length_scale=1.3), Matern(nu=1.5, length_scale=0.8),
    Matern(nu=2.5, length_scale=1.7),
    Polynomial(degree=3, gamma=0.5, coef0=1.5), Constant(2.5),
    2.0 * RBF(gamma=0.3) + Laplacian(gamma=0.2),
    RBF(gamma=0.3) * Polynomial(degree=2, gamma=0.1) * Constant(2.0),
    0.5 * (RBF(gamma=0.2) + Matern(length_scale=2.0)),
    # no analytic gradient: central finite differences
    Cauchy(gamma=0.7) * RBF(length_scale=[1.0, 2.0, 3.0]),
    (RBF(gamma=0.2) + Constant(1.0)) ** 2,
]


def _finite_difference(params, X, Y, h=1e-6):
    cols = []
    for step in np.eye(params.n_params) * h:
        up = params.with_theta(params.theta + step)(X, Y)
        down = params.with_theta(params.theta - step)(X, Y)
        cols.append((up - down) / (2 * h))
    return np.stack(cols, axis=2)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_derivatives_match_finite_differences(kernel):
    params = kernel_parameters(kernel)
    K, dK = params.derivatives(X, Y)
    np.testing.assert_allclose(K, kernel(X, Y), rtol=1e-12, atol=1e-14)
    assert dK.shape == (len(X), len(Y), params.n_params)
    np.testing.assert_allclose(dK, _finite_difference(params, X, Y), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kernel", KERNELS[:13], ids=repr)
def test_analytic_gradients_are_declared_exact(kernel):
    assert kernel_parameters(kernel).exact_gradient


def test_finite_difference_nodes_are_declared():
    assert not kernel_parameters(Cauchy(gamma=0.7)).exact_gradient
    assert not kernel_parameters(RBF(gamma=1.0) ** 2).exact_gradient


@pytest.mark.parametrize("kernel", [KERNELS[3], KERNELS[11], KERNELS[13]], ids=repr)
def test_contraction_over_row_blocks(kernel):
    params = kernel_parameters(kernel)
    W = RNG.normal(size=(len(X), len(Y)))
    _, dK = params.derivatives(X, Y)
    got = contract_derivatives(params, X, Y, W, block_entries=40)  # several row blocks
    np.testing.assert_allclose(got, np.einsum("ijp,ij->p", dK, W), rtol=1e-9, atol=1e-12)


def test_theta_and_bounds_as_scikit_learn():
    ours = kernel_parameters(2.0 * RBF(length_scale=[1.0, 3.0]))
    theirs = ConstantKernel(2.0) * SkRBF([1.0, 3.0])
    np.testing.assert_allclose(ours.theta, theirs.theta)
    np.testing.assert_allclose(ours.bounds, theirs.bounds)
    assert ours.names == ["scale", "k__length_scale[0]", "k__length_scale[1]"]


def test_with_theta_and_fixed_parameters():
    kernel = 2.0 * RBF(gamma=0.5) + Laplacian(gamma=0.1)
    params = kernel_parameters(kernel, {"k1__scale": "fixed", "k2__gamma": (1e-3, 10.0)})
    assert params.names == ["k1__k__gamma", "k2__gamma"]
    np.testing.assert_allclose(params.bounds[1], np.log([1e-3, 10.0]))
    new = params.with_theta(np.log([0.25, 0.3]))
    assert new == 2.0 * RBF(gamma=0.25) + Laplacian(gamma=0.3)
    assert kernel == 2.0 * RBF(gamma=0.5) + Laplacian(gamma=0.1)  # unchanged
    back = kernel_parameters(params.with_theta(params.theta)).theta
    np.testing.assert_allclose(back, kernel_parameters(kernel).theta, rtol=1e-15)


def test_bad_bounds_and_unresolved_kernels_are_refused():
    with pytest.raises(InvalidParameterError, match="0 < low <= high"):
        kernel_parameters(RBF(gamma=1.0), (10.0, 1.0))
    with pytest.raises(InvalidParameterError, match="unknown parameters"):
        kernel_parameters(RBF(gamma=1.0), {"length": "fixed"})
    with pytest.raises(InvalidParameterError, match="resolve"):
        kernel_parameters(RBF(gamma="scale"))
    with pytest.raises(ValueError, match="shape"):
        kernel_parameters(RBF(gamma=1.0)).with_theta([1.0, 2.0])


# ---- RBF with per-feature length scales (ARD) ----------------------------------------

def _ard_loop(X, Y, scales):
    out = np.empty((len(X), len(Y)))
    for i in range(len(X)):
        for j in range(len(Y)):
            out[i, j] = np.exp(-0.5 * np.sum(((X[i] - Y[j]) / scales) ** 2))
    return out


def test_ard_rbf_against_a_loop_and_scikit_learn():
    scales = np.array([0.5, 1.0, 2.0])
    k = RBF(length_scale=scales)
    np.testing.assert_allclose(k(X, Y), _ard_loop(X, Y, scales), rtol=1e-12)
    np.testing.assert_allclose(k(X), SkRBF(scales)(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.diag(k(X)), 1.0)
    # inside sums, products and scalings, and on sparse rows
    np.testing.assert_allclose((3.0 * k * Laplacian(gamma=0.1))(X, Y),
                               3.0 * _ard_loop(X, Y, scales) * Laplacian(gamma=0.1)(X, Y))
    np.testing.assert_allclose(k(sp.csr_matrix(X), Y), _ard_loop(X, Y, scales), rtol=1e-12)
    check_kernel(k, X)


def test_ard_rbf_reads_back_and_refuses_bad_scales():
    k = RBF(length_scale=[0.5, 1.0, 2.0])
    assert isinstance(k.length_scale, np.ndarray) and k.is_ard
    assert parse_kernel(repr(k)) == k
    assert kernel_from_dict(k.to_dict()) == k
    with pytest.raises(ValueError, match="3 per-feature length scales"):
        k(np.zeros((2, 4)))
    for bad in ([1.0, -1.0], [], [[1.0]], [1.0, np.inf]):
        with pytest.raises(InvalidParameterError, match="length_scale"):
            RBF(length_scale=bad)
    with pytest.raises(ValueError, match="per-feature"):
        k.spectral_density()
    with pytest.raises(ValueError, match="no single gamma"):
        k.gamma_value


def test_kernel_ridge_with_ard_equals_scaled_inputs():
    scales = np.array([0.5, 1.0, 2.0])
    y = RNG.normal(size=len(X))
    ard = KernelRidge(kernel=RBF(length_scale=scales), alpha=0.1).fit(X, y)
    iso = KernelRidge(kernel=RBF(gamma=0.5), alpha=0.1).fit(X / scales, y)
    np.testing.assert_allclose(ard.predict(Y), iso.predict(Y / scales), rtol=1e-10)


def test_ard_in_falkon_nystroem_and_random_features():
    from kernelkit.features import Nystroem, RandomFourierFeatures

    rng = np.random.default_rng(3)
    Xn, scales = rng.normal(size=(200, 3)), np.array([0.5, 1.0, 2.0])
    y = np.sin(Xn[:, 0])
    ard = KernelRidge(kernel=RBF(length_scale=scales), alpha=0.1, solver="falkon",
                      n_centers=60, random_state=0, tol=1e-10).fit(Xn, y)
    iso = KernelRidge(kernel=RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=60,
                      random_state=0, tol=1e-10).fit(Xn / scales, y)
    np.testing.assert_allclose(ard.predict(Y), iso.predict(Y / scales), rtol=1e-8, atol=1e-10)
    Z = Nystroem(kernel=RBF(length_scale=scales), n_components=200).fit(Xn).transform(Xn)
    np.testing.assert_allclose(Z @ Z.T, _ard_loop(Xn, Xn, scales), atol=1e-10)
    with pytest.raises(ValueError, match="per-feature length scales are not built in"):
        RandomFourierFeatures(kernel=RBF(length_scale=scales), n_components=10).fit(Xn)
