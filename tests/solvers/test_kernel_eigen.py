"""solvers/kernel_eigen.py against scikit-learn's eigenvalue rules, numpy's eigh and the
Nystroem matrix formed explicitly."""

import numpy as np
import pytest
from sklearn.utils.validation import _check_psd_eigenvalues

from kernelkit.kernels import RBF
from kernelkit.solvers.kernel_eigen import (center_gram, check_psd_eigenvalues,
                                            gram_eigenpairs, nystroem_eigenpairs,
                                            nystroem_project, sign_rule)


@pytest.mark.parametrize("lam", [[5.0, 2.0, 1e-13], [5.0, -5e-5, 1.0], [3.0, 4e-12, 0.0],
                                 [1e-11, -1e-11]])
def test_eigenvalue_rule_is_scikit_learns(lam):
    np.testing.assert_array_equal(check_psd_eigenvalues(lam), _check_psd_eigenvalues(lam))


@pytest.mark.parametrize("lam, words", [([5.0, -1.0], "significantly negative"),
                                        ([-5.0, -1.0], "all computed eigenvalues")])
def test_indefinite_spectra_are_refused(lam, words):
    with pytest.raises(ValueError, match=words):
        check_psd_eigenvalues(lam)


def test_centring_and_eigenpairs_against_numpy():
    X = np.random.default_rng(0).normal(size=(50, 2))
    K = RBF(gamma=0.7)(X)
    H = np.eye(50) - 1 / 50
    Kc = K.copy()
    rows, total = center_gram(Kc)
    np.testing.assert_allclose(Kc, H @ K @ H, atol=1e-12)
    np.testing.assert_allclose(rows, K.mean(axis=0), atol=1e-15)
    assert total == pytest.approx(K.mean(), abs=1e-15)
    lam_ref, V_ref = np.linalg.eigh(H @ K @ H)
    for solver in ("dense", "arpack"):
        lam, V = gram_eigenpairs(Kc.copy(), 4, solver=solver, rng=np.random.RandomState(0))
        np.testing.assert_allclose(lam, lam_ref[::-1][:4], rtol=1e-10)
        np.testing.assert_allclose(np.abs(V.T @ V_ref[:, ::-1][:, :4]), np.eye(4), atol=1e-8)
        assert (sign_rule(V) == 1).all()


@pytest.mark.parametrize("center", [True, False])
def test_nystroem_eigenpairs_are_those_of_the_formed_approximation(center):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 3))
    C = X[rng.choice(90, 25, replace=False)]
    kernel = RBF(gamma=0.4)
    K_nC, K_CC = kernel(X, C), kernel(C)
    approx = K_nC @ np.linalg.pinv(K_CC, rcond=1e-12, hermitian=True) @ K_nC.T
    if center:
        H = np.eye(90) - 1 / 90
        approx = H @ approx @ H
    lam_ref, V_ref = np.linalg.eigh(approx)
    lam_ref, V_ref = lam_ref[::-1][:5], V_ref[:, ::-1][:, :5]
    lam, P, offset = nystroem_eigenpairs(kernel, X, C, 5, center=center)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-8)
    V = nystroem_project(kernel, X, C, P, offset) / np.sqrt(lam)  # unit eigenvectors
    np.testing.assert_allclose(np.abs(V.T @ V_ref), np.eye(5), atol=1e-7)
    if not center:
        np.testing.assert_array_equal(offset, 0.0)
