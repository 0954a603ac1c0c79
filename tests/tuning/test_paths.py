"""Regularisation paths (kernelkit.tuning.paths, nystroem_path) against direct formulas,
brute-force refits and KernelRidge; the grid-edge check."""

import warnings

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.linalg import eigh_psd
from kernelkit.models import KernelRidge
from kernelkit.tuning import GridEdgeWarning, on_edge, warn_if_on_edge
from kernelkit.tuning.nystroem_path import Moments, NystroemPath, accumulate_moments, whitening
from kernelkit.tuning.paths import (centre_targets, cholesky_path, choose_factorisation,
                                    eigen_path, squared_distances)

ALPHAS = (1e-3, 0.1, 2.0)


def _data(n=40, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = np.column_stack([np.sin(X[:, 0]) + 3.0, X[:, 1] * X[:, 2] - 7.0])[:, :t]
    return X, Y + 0.1 * rng.normal(size=Y.shape)


def _paths(K, y0, fit_intercept):
    w, Q = eigh_psd(K.copy())
    return {"eigen": eigen_path(w, Q, y0, ALPHAS, fit_intercept),
            "cholesky": cholesky_path(K, y0, ALPHAS, fit_intercept)}


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_loo_residuals_equal_a_brute_force_loop_of_kernel_ridge(fit_intercept):
    X, Y = _data(t=2)
    kernel = RBF(gamma=0.4)
    K = kernel(X)
    y0, _ = centre_targets(Y, fit_intercept)
    brute = {}
    for alpha in ALPHAS:  # refit without each point: the model KernelRidge fits (checked below)
        res = np.empty_like(Y)
        for i in range(len(X)):
            keep = np.arange(len(X)) != i
            mean = Y[keep].mean(axis=0) if fit_intercept else 0.0
            u = np.linalg.solve(K[np.ix_(keep, keep)] + alpha * np.eye(len(X) - 1),
                                Y[keep] - mean)
            res[i] = Y[i] - mean - K[i, keep] @ u
        brute[alpha] = res
    one = np.arange(len(X)) != 5  # the loop's model is KernelRidge's
    ref = KernelRidge(kernel=kernel, alpha=ALPHAS[1], solver="dual",
                      fit_intercept=fit_intercept).fit(X[one], Y[one])
    np.testing.assert_allclose(Y[5] - ref.predict(X[5:6])[0], brute[ALPHAS[1]][5], rtol=1e-9)
    for name, points in _paths(K, y0, fit_intercept).items():
        for p in points:
            np.testing.assert_allclose(p.loo_residuals, brute[p.alpha], rtol=1e-8, atol=1e-10,
                                       err_msg=f"{name} alpha={p.alpha}")


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_gcv_equals_the_formula_with_the_explicit_hat_matrix(fit_intercept):
    X, Y = _data(n=30, t=2, seed=1)
    K = RBF(gamma=0.7)(X)
    n = len(X)
    y0, _ = centre_targets(Y, fit_intercept)
    J = np.full((n, n), 1.0 / n) if fit_intercept else np.zeros((n, n))
    for points in _paths(K, y0, fit_intercept).values():
        for p in points:
            H = K @ np.linalg.inv(K + p.alpha * np.eye(n))
            H1 = J + H @ (np.eye(n) - J)  # the model: mean + kernel ridge of centred y
            residual = Y - H1 @ Y
            ref = np.mean(residual ** 2, axis=0) / (1 - np.trace(H1) / n) ** 2
            np.testing.assert_allclose(p.gcv, ref, rtol=1e-9)


def test_path_coefficients_equal_separate_kernel_ridge_fits():
    X, Y = _data(t=2, seed=2)
    Y = Y + 100.0
    kernel = RBF(gamma=0.3)
    y0, mean = centre_targets(Y, True)
    for points in _paths(kernel(X), y0, True).values():
        for p in points:
            ref = KernelRidge(kernel=kernel, alpha=p.alpha, solver="dual").fit(X, Y)
            np.testing.assert_allclose(p.coef, ref.dual_coef_, rtol=1e-8, atol=1e-9)
            np.testing.assert_allclose(mean, ref.intercept_, rtol=1e-14)


def test_choose_factorisation_by_count():
    assert choose_factorisation(3)[0] == "cholesky"
    assert choose_factorisation(25)[0] == "eigen"
    assert choose_factorisation(3, "eigen") == ("eigen", "set by the user")


def test_squared_distances_clamped_and_exact_on_a_shifted_cloud():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 4)) + 1e4  # far from the origin: centring avoids cancellation
    ref = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    D = squared_distances(X)
    assert (D >= 0).all() and np.all(np.diag(D) == 0)
    np.testing.assert_allclose(D, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(squared_distances(X, X[:5]), ref[:, :5], rtol=1e-9, atol=1e-9)


# ---- Nystroem / features paths ------------------------------------------------

def _nystroem(n=60, M=12, seed=4):
    X, Y = _data(n=n, t=2, seed=seed)
    C = X[:M]
    kernel = RBF(gamma=0.5)
    return X, Y, C, kernel(X, C), kernel(C)


def _direct_coef(Knm, Kmm, Y, alpha, fit_intercept):
    mean = Y.mean(axis=0) if fit_intercept else np.zeros(Y.shape[1])
    c = np.linalg.solve(Knm.T @ Knm + alpha * Kmm, Knm.T @ (Y - mean))
    return c, mean


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_nystroem_gcv_and_coefficients_equal_direct_formulas(fit_intercept):
    X, Y, C, Knm, Kmm = _nystroem()
    n = len(X)
    shift = Y.mean(axis=0) if fit_intercept else 0.0  # how the estimator calls it
    blocks = [(r0, min(n, r0 + 17), [Knm[r0:r0 + 17]]) for r0 in range(0, n, 17)]
    moments = accumulate_moments(blocks, Y - shift)[0][0]
    T, rank = whitening(Kmm)
    assert rank == len(C)
    path = NystroemPath(moments, T, fit_intercept)
    J = np.full((n, n), 1.0 / n) if fit_intercept else np.zeros((n, n))
    for alpha, gcv in zip(ALPHAS, path.gcv(ALPHAS)):
        c, mean = _direct_coef(Knm, Kmm, Y, alpha, fit_intercept)
        np.testing.assert_allclose(path.coef(alpha), c, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(path.mean + shift, mean, rtol=1e-12)
        H = Knm @ np.linalg.solve(Knm.T @ Knm + alpha * Kmm, Knm.T)
        H1 = J + H @ (np.eye(n) - J)
        ref = np.mean((Y - H1 @ Y) ** 2, axis=0) / (1 - np.trace(H1) / n) ** 2
        np.testing.assert_allclose(gcv, ref, rtol=1e-7)


def test_nystroem_k_fold_equals_refits_on_each_training_part():
    X, Y, C, Knm, Kmm = _nystroem(seed=5)
    n, k = len(X), 3
    folds = np.arange(n) % k
    moments = accumulate_moments([(0, n, [Knm])], Y, folds, k)[0]
    total = moments[0] + moments[1] + moments[2]
    T, _ = whitening(Kmm)
    sse = sum(NystroemPath(total - m, T).heldout_sse(ALPHAS, m) for m in moments)
    ref = np.zeros((len(ALPHAS), 2))
    for j, alpha in enumerate(ALPHAS):
        for f in range(k):
            tr, va = folds != f, folds == f
            c, mean = _direct_coef(Knm[tr], Kmm, Y[tr], alpha, True)
            ref[j] += ((Y[va] - mean - Knm[va] @ c) ** 2).sum(axis=0)
    np.testing.assert_allclose(sse, ref, rtol=1e-7)


def test_rank_deficient_centers_give_the_same_predictions():
    X, Y, C, Knm, Kmm = _nystroem(seed=6)
    C2 = np.vstack([C, C[:3]])  # repeated centers: K_MM exactly singular
    kernel = RBF(gamma=0.5)
    Knm2, Kmm2 = kernel(X, C2), kernel(C2)
    T, rank = whitening(Kmm2)
    assert rank == len(C)
    path = NystroemPath(accumulate_moments([(0, len(X), [Knm2])], Y)[0][0], T)
    c, mean = _direct_coef(Knm, Kmm, Y, 0.1, True)
    np.testing.assert_allclose(Knm2 @ path.coef(0.1) + path.mean, Knm @ c + mean,
                               rtol=1e-7, atol=1e-8)


def test_features_path_is_primal_ridge():
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(50, 8))
    y = rng.normal(size=(50, 1)) + 5.0
    path = NystroemPath(accumulate_moments([(0, 50, [Z])], y)[0][0], None, True)
    w = np.linalg.solve(Z.T @ Z + 0.3 * np.eye(8), Z.T @ (y - y.mean()))
    np.testing.assert_allclose(path.coef(0.3), w, rtol=1e-9)


def test_moments_add_and_subtract():
    rng = np.random.default_rng(8)
    Z, y = rng.normal(size=(10, 3)), rng.normal(size=(10, 1))
    a, b, whole = Moments.zeros(3, 1), Moments.zeros(3, 1), Moments.zeros(3, 1)
    a.add(Z[:4], y[:4]); b.add(Z[4:], y[4:]); whole.add(Z, y)
    np.testing.assert_allclose((a + b).gram, whole.gram)
    np.testing.assert_allclose((whole - a).cross, b.cross)
    assert (whole - a).n == 6


# ---- grid edges ---------------------------------------------------------------

def test_edge_warning_fires_at_both_ends_and_not_inside():
    grid = [0.1, 1.0, 10.0]
    for chosen, edge in ((0.1, "smallest"), (10.0, "largest")):
        with pytest.warns(GridEdgeWarning, match=edge):
            choice = warn_if_on_edge("alpha", grid, chosen)
        assert choice.value is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_if_on_edge("alpha", grid, 1.0).value is True
        assert warn_if_on_edge("alpha", [1.0], 1.0).value is True  # one value: no edge
        assert warn_if_on_edge("kernel", ["rbf", "laplacian"], "rbf").value is True
    assert on_edge([3, 1, 2], 3) == "largest"  # unsorted grids
