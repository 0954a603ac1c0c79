"""The in-place blocked Cholesky (kernelkit.linalg_blocked) against LAPACK's unblocked
one (scipy / numpy), and through robust_cholesky: jitter ladder and clear errors."""

import contextlib
import warnings

import numpy as np
import pytest
import scipy.linalg

from kernelkit.exceptions import NumericalWarning
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.linalg import robust_cholesky
from kernelkit.linalg_blocked import blocked_cholesky


def _rbf_system(n, alpha=0.1, seed=0):
    """K + alpha I of an RBF Gram matrix (the matrix exact kernel ridge factors)."""
    X = np.random.default_rng(seed).normal(size=(n, 4))
    return gram(RBF(gamma=0.2), X) + alpha * np.eye(n)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-11), (np.float32, 2e-4)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("n, block_size, update_width", [
    (300, 64, 64),     # several blocks, one gemm per block column
    (300, 64, 24),     # gemm groups that do not divide the block
    (1000, 96, 40),    # the last block is partial (1000 = 10 * 96 + 40)
    (5, 2, 1), (1, 4, 4)])
def test_blocked_equals_lapack_and_leaves_the_upper_triangle(dtype, tol, order, n, block_size,
                                                             update_width):
    A64 = _rbf_system(n, seed=n)
    A = np.array(A64, dtype=dtype, order=order)
    before = A.copy()
    assert blocked_cholesky(A, block_size, update_width=update_width) == 0
    # reference: LAPACK's Cholesky of the same rounded matrix, in float64
    ref = scipy.linalg.cholesky(before.astype(np.float64), lower=True)
    np.testing.assert_allclose(np.tril(A), ref, rtol=0, atol=tol * np.abs(ref).max())
    iu = np.triu_indices(n, 1)
    np.testing.assert_array_equal(A[iu], before[iu])  # only the lower triangle written


def test_blocked_float32_is_as_accurate_as_lapack_float32():
    # The blocked factor's backward error is that of LAPACK's float32 factor.
    A = _rbf_system(1000, alpha=1e-2).astype(np.float32)
    A64 = A.astype(np.float64)
    ref, info = scipy.linalg.lapack.spotrf(A, lower=1)
    assert info == 0
    blocked_cholesky(A, 100, update_width=50)

    def backward_error(L):
        L = np.tril(L).astype(np.float64)
        return np.abs(L @ L.T - A64).max()

    assert backward_error(A) <= 2 * backward_error(ref)
    assert backward_error(A) <= 1e-5  # float32: ~100 eps32 on entries <= 1.01


def test_potrf_only_sees_diagonal_blocks():
    # The LAPACK call that crashes multi-threaded on large matrices is given
    # diagonal blocks of at most block_size, covering the order exactly once.
    orders = []

    def diagonal_threads(order):
        orders.append(order)
        return contextlib.nullcontext()

    A = _rbf_system(700).astype(np.float32)
    assert blocked_cholesky(A, 128, diagonal_threads=diagonal_threads) == 0
    assert max(orders) == 128 and sum(orders) == 700


def test_blocked_reports_the_failing_column_like_lapack():
    A0 = _rbf_system(400)
    A0[250, 250] = -1.0  # the leading minor of order 251 is the first not positive definite
    _, info = scipy.linalg.lapack.dpotrf(A0, lower=1)
    assert info == 251
    A = A0.copy()
    assert blocked_cholesky(A, 64, update_width=32) == 251
    iu = np.triu_indices(400, 1)
    np.testing.assert_array_equal(A[iu], A0[iu])  # still there for a retry's restore


def test_blocked_refuses_arrays_it_cannot_factor_in_place():
    A = _rbf_system(20)
    with pytest.raises(ValueError, match="square"):
        blocked_cholesky(A[:, :10])
    with pytest.raises(ValueError, match="float32 or float64"):
        blocked_cholesky(A.astype(np.int64))
    with pytest.raises(ValueError, match="contiguous"):
        blocked_cholesky(A[::2, ::2])
    with pytest.raises(ValueError, match="block_size"):
        blocked_cholesky(A, 0)
    with pytest.raises(ValueError, match="update_width"):
        blocked_cholesky(A, 8, update_width=0)


# ------------------------------------------------- through robust_cholesky (blocked path)

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_robust_cholesky_blocked_path_matches_numpy(dtype):
    A0 = _rbf_system(1000)
    A = A0.astype(dtype)
    ref = np.linalg.cholesky(A0)
    res = robust_cholesky(A, overwrite_a=True, dtype=dtype, block_size=100)
    assert res.L is A and res.jitter == 0.0 and res.n_tries == 1
    tol = 1e-11 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(np.tril(A), ref, rtol=0, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_robust_cholesky_blocked_jitter_ladder(dtype):
    # Rank 30 of order 300: the pivots fail in a late block; the ladder adds
    # jitter (warned, recorded), the factor is that of A + jitter I.
    B = np.random.default_rng(0).normal(size=(300, 30))
    A0 = B @ B.T
    A = A0.astype(dtype)
    with pytest.warns(NumericalWarning, match="jitter"):
        res = robust_cholesky(A, overwrite_a=True, dtype=dtype, block_size=64)
    assert res.jitter > 0 and res.n_tries >= 2
    assert res.jitter <= 1e-2 * np.mean(np.diag(A0)) * (1 + 1e-9)  # the ladder's cap
    L = np.tril(A).astype(np.float64)
    scale = np.abs(A0).max()
    np.testing.assert_allclose(L @ L.T, A0 + res.jitter * np.eye(300),
                               atol=(1e-10 if dtype == np.float64 else 1e-5) * scale)
    iu = np.triu_indices(300, 1)
    np.testing.assert_array_equal(A[iu], A0.astype(dtype)[iu])


def test_robust_cholesky_blocked_non_pd_gives_the_clear_error_and_restores():
    A0 = _rbf_system(300).astype(np.float32)
    A0[200, 200] = np.float32(-50.0)  # indefinite beyond any capped jitter
    A = A0.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no jitter warning on the way to the error
        with pytest.raises(np.linalg.LinAlgError, match="not positive definite.*alpha"):
            robust_cholesky(A, overwrite_a=True, dtype=np.float32, block_size=64)
    np.testing.assert_array_equal(A, A0)  # the input is given back as it was
