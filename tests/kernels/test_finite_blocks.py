"""Every kernel block is finite or raises NonFiniteKernelError; RBF is overflow-safe.

References are independent: scikit-learn's ``rbf_kernel`` on unscaled data
(exact scaling by a power of two changes nothing mathematically), closed
forms (the identity for far-apart rows), and numpy's own overflow.
"""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import config_context, gram
from kernelkit.exceptions import NonFiniteKernelError
from kernelkit.kernels import (RBF, Cauchy, Constant, KernelRows, KroneckerDelta, Laplacian,
                               Linear, Polynomial, Sigmoid, parse_kernel)
from kernelkit.kernels.base import certainly_finite

TOP = np.finfo(np.float64).max


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(25, 4))


def test_rbf_of_power_of_two_scaled_inputs_matches_sklearn(X):
    # ||x s - y s||^2 overflows the expansion's norms (s^2 ~ 1e301); gamma / s^2 undoes it.
    s = 2.0 ** 500
    K = RBF(gamma=0.3 * 2.0 ** -1000)(X * s)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=0.3), rtol=0, atol=1e-13)
    Kxy = RBF(gamma=0.3 * 2.0 ** -1000)(X * s, X[:7] * s)
    np.testing.assert_allclose(Kxy, rbf_kernel(X, X[:7], gamma=0.3), rtol=0, atol=1e-13)


@pytest.mark.parametrize("make", [lambda X: X * 1e200,
                                  lambda X: TOP * np.random.default_rng(1).uniform(size=X.shape),
                                  lambda X: TOP * np.random.default_rng(2).uniform(-1, 1, X.shape)])
@pytest.mark.parametrize("kernel", [RBF(gamma=1.0), Laplacian(gamma=1.0), Cauchy(gamma=1.0)])
def test_distance_kernels_of_huge_rows_are_the_identity(X, make, kernel):
    # Rows 1e200 apart at gamma 1: k = exp(-huge) = 0 off the diagonal, 1 on it --
    # also when Y is a separate copy (no exact-diagonal knowledge).
    Xh = make(X)
    np.testing.assert_array_equal(kernel(Xh), np.eye(len(X)))
    np.testing.assert_array_equal(kernel(Xh, Xh.copy()), np.eye(len(X)))


def test_rbf_ordinary_inputs_take_the_plain_path(X, monkeypatch):
    from kernelkit.kernels import rbf

    def fail(*args):
        raise AssertionError("scaled path taken for ordinary inputs")

    monkeypatch.setattr(rbf, "_rbf_scaled_into", fail)
    K = RBF(gamma=0.5)(X * 1e100)  # norms ~1e200: still the expansion
    assert np.isfinite(K).all()


def test_rbf_float32_fast_path_falls_back_for_huge_rows(X):
    with config_context(dtype="float32"):
        K = KernelRows(RBF(gamma=1.0), X * 1e30, dtype=np.float32).block(0, len(X))
    assert K.dtype == np.float32
    np.testing.assert_array_equal(K, np.eye(len(X), dtype=np.float32))


@pytest.mark.parametrize("kernel", [Linear(), Polynomial(degree=3), "rbf + linear"])
def test_overflowing_kernel_values_raise_with_cause_and_fix(X, kernel):
    kernel = parse_kernel(kernel) if isinstance(kernel, str) else kernel
    with pytest.raises(NonFiniteKernelError) as info:
        gram(kernel, X * 1e200)
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "overflows float64" in msg and "StandardScaler" in msg and "e+200" in msg


def test_linear_kernel_of_float64_max_raises(X):
    Xm = TOP * np.random.default_rng(3).uniform(size=X.shape)
    for call in (lambda: Linear()(Xm), lambda: Linear().diag(Xm),
                 lambda: KernelRows(Linear(), Xm).rows([0, 1])):
        with pytest.raises(NonFiniteKernelError, match="1.8e\\+308"):
            call()


def test_polynomial_overflow_at_ordinary_scale_names_the_parameters(X):
    with pytest.raises(NonFiniteKernelError, match="parameters"):
        Polynomial(degree=400, gamma=10.0)(X)


def test_value_bounds():
    A = np.array([[1.0, -3.0], [2.0, 0.5]])
    for k in (RBF(), Laplacian(), Cauchy(), KroneckerDelta()):
        assert k.value_bound(A, A) == 1.0
    assert Constant(2.5).value_bound(A, A) == 2.5
    assert Linear().value_bound(A, A) == 2 * 3.0 * 3.0  # d max|x| max|y| >= |x'y|
    assert Polynomial(degree=2, gamma=1.0, coef0=1.0).value_bound(A, A) == (18.0 + 1.0) ** 2
    assert Sigmoid(gamma=1.0).value_bound(A, A) == 1.0
    assert Linear().value_bound(A * 1e200, A * 1e200) == np.inf
    assert parse_kernel("rbf + linear").value_bound(A, A) == np.inf  # unknown: checked
    assert certainly_finite(1.0) and not certainly_finite(np.inf)
    assert certainly_finite(1e100) and not certainly_finite(1e100, np.float32)


def test_float32_blocks_use_the_float32_limit():
    # Values near 1e40 are finite in float64 but not in float32 storage.
    X = np.full((3, 2), 1e20)
    rows = KernelRows(Linear(), X)
    assert np.isfinite(rows.block(0, 3)).all()
    with pytest.raises(NonFiniteKernelError, match="float32"):
        rows.block(0, 3, out=np.empty((3, 3), dtype=np.float32))


def test_a_block_proven_finite_is_not_scanned(X, monkeypatch):
    from kernelkit.kernels import base

    def fail(*args):
        raise AssertionError("scanned a block proven finite")

    monkeypatch.setattr(base, "check_kernel_values", fail)
    KernelRows(RBF(gamma=1.0), X).block(0, len(X))
    KernelRows(Linear(), X).rows([1, 2])
