"""scipy.sparse input in the kernel block API, gram, GramOperator and check_vectors.

Reference: the same kernel on the dense array (itself tested against closed
forms and scikit-learn in tests/kernels); sparse and dense values must agree
to 1e-12 relative to the largest value.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit import gram
from kernelkit.gram import GramOperator
from kernelkit.kernels import (RBF, Cauchy, Constant, KernelRows, KroneckerDelta, Laplacian,
                               Linear, Polynomial, Sigmoid, Warped)
from kernelkit._validation import check_vectors

KERNELS = [
    Linear(), Polynomial(degree=3, gamma=0.2, coef0=1.0), RBF(gamma=0.3), Laplacian(gamma=0.2),
    Cauchy(gamma=0.5), Sigmoid(gamma=0.05, coef0=0.1), Constant(2.0),
    RBF(gamma=0.1) + 2.0 * Linear(), Polynomial(degree=2) * Laplacian(gamma=0.1),
    Polynomial(degree=2) ** 2,
]


def _data(n=31, d=17, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d))
    A[rng.random(A.shape) > density] = 0.0
    A[3] = 0.0  # an empty row
    return A


def _close(got, want, rtol=1e-12):
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(np.asarray(got) - want).max() <= rtol * scale


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "csr_array"])
def test_gram_from_sparse_equals_dense(kernel, fmt):
    A, B = _data(), _data(n=9, seed=1)
    make = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix,
            "csr_array": sp.csr_array}[fmt]
    S, T = make(A), make(B)
    _close(kernel(S), kernel(A))
    _close(kernel(S, T), kernel(A, B))
    _close(gram(kernel, A, T), kernel(A, B))  # one side dense
    _close(gram(kernel, S, B), kernel(A, B))
    _close(kernel.diag(S), kernel.diag(A))


@pytest.mark.parametrize("kernel", KERNELS[:6], ids=repr)
def test_rows_and_operator_from_sparse(kernel):
    A = _data(n=40)
    S = sp.csr_matrix(A)
    dense, sparse = KernelRows(kernel, A), KernelRows(kernel, S)
    idx, cols = [5, 3, 0, 39], [1, 2, 38]
    _close(sparse.rows(idx, cols), dense.rows(idx, cols))
    _close(sparse.block(7, 19), dense.block(7, 19))
    _close(sparse.diag(), dense.diag())
    v = np.random.default_rng(2).normal(size=(40, 2))
    _close(GramOperator(kernel, S, shift=0.5).matmat(v), GramOperator(kernel, A, shift=0.5).matmat(v))
    op = GramOperator(kernel, S, S[:10])
    _close(op.gram_matmat(v[:10]), GramOperator(kernel, A, A[:10]).gram_matmat(v[:10]))


def test_symmetric_sparse_gram_has_exact_diagonal_and_clamped_distances():
    A = _data() * 1e3  # large norms: the expansion's round-off is largest
    S = sp.csr_matrix(A)
    for k in (RBF(gamma=1e-7), Laplacian(gamma=1e-4), Cauchy(gamma=1e-3)):
        K = k(S)
        assert np.array_equal(np.diag(K), np.ones(len(A)))
        assert (K <= 1.0).all() and np.array_equal(K, K.T)


def test_sparse_float32_input_computes_in_float64():
    A = _data().astype(np.float32)
    S = sp.csr_matrix(A)
    _close(RBF(gamma=0.3)(S), RBF(gamma=0.3)(A.astype(np.float64)))


def test_sparse_rbf_of_huge_values_stays_finite():
    A = _data() * 1e160  # squared norms overflow float64: the scaled path
    S = sp.csr_matrix(A)
    K, Kd = RBF(gamma=1e-300)(S), RBF(gamma=1e-300)(A)
    assert np.isfinite(K).all() and np.array_equal(np.diag(K), np.ones(len(A)))
    np.testing.assert_allclose(K, Kd, atol=1e-12)


def test_all_zero_sparse_matrix():
    S = sp.csr_matrix((4, 6))
    np.testing.assert_array_equal(RBF()(S), np.ones((4, 4)))
    np.testing.assert_array_equal(Laplacian()(S), np.ones((4, 4)))
    np.testing.assert_array_equal(Linear()(S), np.zeros((4, 4)))


def test_compiled_sparse_l1_loops_against_dense_twins():
    from kernelkit._compiled import cauchy, l1_exp
    from kernelkit._compiled.sparse import cauchy_csr, l1_exp_csr

    A, B = _data(n=23), _data(n=11, seed=4)
    for sparse_loop, dense_loop in ((l1_exp_csr, l1_exp), (cauchy_csr, cauchy)):
        got = np.empty((23, 11))
        sparse_loop(sp.csr_matrix(A), sp.csr_matrix(B), 0.3, -1, got)
        want = np.empty((23, 11))
        dense_loop(A, B, 0.3, want)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    got = np.empty((5, 23), dtype=np.float32)  # rows 4..8 of K(A, A): exact diagonal
    l1_exp_csr(sp.csr_matrix(A[4:9]), sp.csr_matrix(A), 0.3, 4, got)
    assert all(got[i, i + 4] == 1.0 for i in range(5))


@pytest.mark.parametrize("kernel", [KroneckerDelta(), RBF() + KroneckerDelta(),
                                    Warped(RBF(), np.abs)], ids=repr)
def test_kernels_without_sparse_blocks_refuse_clearly(kernel):
    S = sp.csr_matrix(_data())
    assert not kernel.accepts_sparse
    with pytest.raises(TypeError, match="does not take sparse input"):
        kernel(S)
    with pytest.raises(TypeError, match="does not take sparse input"):
        gram(kernel, S)
    with pytest.raises(TypeError, match="does not take sparse input"):
        GramOperator(kernel, S)


def test_check_vectors_sparse_canonical_form_and_errors():
    A = _data()
    coo = sp.coo_matrix((np.array([1.0, 2.0, 3.0]), (np.array([0, 0, 1]), np.array([2, 2, 0]))),
                        shape=(2, 3))
    X = check_vectors(coo, accept_sparse=True)
    assert X.format == "csr" and X.has_canonical_format
    np.testing.assert_array_equal(X.toarray(), [[0, 0, 3.0], [3.0, 0, 0]])
    unsorted = sp.csr_matrix((np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2])),
                             shape=(1, 3))
    before = unsorted.indices.copy()
    check_vectors(unsorted, accept_sparse=True)
    np.testing.assert_array_equal(unsorted.indices, before)  # input not modified
    ints = check_vectors(sp.csr_matrix(np.eye(3, dtype=np.int64)), accept_sparse=True)
    assert ints.dtype == np.float64
    assert isinstance(check_vectors(sp.csr_array(A), accept_sparse=True), sp.csr_array)
    bad = sp.csr_matrix(A)
    bad.data[5] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity .* first is NaN at row="):
        check_vectors(bad, accept_sparse=True)
    with pytest.raises(ValueError, match="Complex"):
        check_vectors(sp.csr_matrix(np.eye(2) * 1j), accept_sparse=True)
    with pytest.raises(ValueError, match="empty"):
        check_vectors(sp.csr_matrix((0, 3)), accept_sparse=True)
    with pytest.raises(TypeError, match="sparse matrix"):  # default: refused
        check_vectors(sp.csr_matrix(A))
