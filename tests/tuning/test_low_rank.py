"""The low-rank (Nystroem) preconditioner of the k-fold ridge search: randomly pivoted
Cholesky against brute-force references, the preconditioner against its closed form
built densely, and the fold solves that use it against direct solves."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit.planning.fold_search import (EXACT_SHIFT_ITERATIONS, is_low_rank,
                                            low_rank_iterations, plan_fold_solves)
from kernelkit.tuning.fold_path import fold_solves, merged_solves
from kernelkit.tuning.low_rank import (LOW_RANK_MAX, LowRankPreconditioner, low_rank_rank,
                                       randomly_pivoted_cholesky)


def _kernel(n=120, d=3, gamma=0.5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return rbf_kernel(X, gamma=gamma)


def test_full_rank_pivoted_cholesky_reproduces_the_matrix():
    # an SPD matrix of order 40 factored to rank 40: F F' = K, pivots a permutation
    rng = np.random.default_rng(1)
    A = rng.normal(size=(40, 40))
    K = A @ A.T + 40 * np.eye(40)
    F, piv = randomly_pivoted_cholesky(K, 40, block=7, seed=3)
    assert F.shape == (40, 40) and sorted(piv) == list(range(40))
    np.testing.assert_allclose(F @ F.T, K, rtol=1e-12, atol=1e-10)
    # F[piv] is lower triangular: the Cholesky factor of K[piv][:, piv]
    np.testing.assert_allclose(F[piv], np.linalg.cholesky(K[np.ix_(piv, piv)]),
                               rtol=1e-10, atol=1e-10)


def test_partial_pivoted_cholesky_is_the_nystroem_approximation_of_its_pivots():
    # K - F F' is PSD, zero on the pivots' rows, and F F' = K[:, S] K[S, S]^-1 K[S, :]
    K = _kernel()
    F, S = randomly_pivoted_cholesky(K, 30, block=10, seed=0)
    assert F.shape == (120, 30) and len(set(S.tolist())) == 30
    nystroem = K[:, S] @ np.linalg.solve(K[np.ix_(S, S)], K[S, :])
    np.testing.assert_allclose(F @ F.T, nystroem, atol=1e-9)
    residual = K - F @ F.T
    np.testing.assert_allclose(residual[S], 0.0, atol=1e-10)
    assert np.linalg.eigvalsh(residual).min() > -1e-9


def test_pivoted_cholesky_of_a_low_rank_matrix_stops_at_its_rank():
    # rank 5 with duplicated rows: the dependent pivots are refused, no division by 0
    rng = np.random.default_rng(2)
    B = rng.normal(size=(60, 5))
    B[30:] = B[:30]
    K = B @ B.T
    F, piv = randomly_pivoted_cholesky(K, 50, block=20, seed=1)
    assert F.shape[1] == 5 and np.isfinite(F).all()
    np.testing.assert_allclose(F @ F.T, K, atol=1e-9 * np.abs(K).max())


def test_pivoted_cholesky_is_deterministic_for_a_seed_and_refuses_a_nan_diagonal():
    K = _kernel()
    a, pa = randomly_pivoted_cholesky(K, 20, seed=5)
    b, pb = randomly_pivoted_cholesky(K, 20, seed=5)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(pa, pb)
    K[3, 3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        randomly_pivoted_cholesky(K, 20)


def test_preconditioner_matches_its_closed_form():
    # P^-1 = (lam + mu) U (diag(s) + mu)^-1 U' + (I - U U'), U from an SVD of F
    K = _kernel()
    F, _ = randomly_pivoted_cholesky(K, 25, seed=0)
    P = LowRankPreconditioner(F)
    U, sv, _ = np.linalg.svd(F, full_matrices=False)
    s = sv ** 2
    np.testing.assert_allclose(P.eigenvalues, s, rtol=1e-10)
    assert P.tail == pytest.approx(s.min(), rel=1e-10) and P.rank == 25
    R = np.random.default_rng(3).normal(size=(120, 3))
    mus = np.array([0.01, 0.3, 5.0])
    got = P.apply(R, mus)
    for j, mu in enumerate(mus):
        dense = ((s.min() + mu) * U @ np.diag(1.0 / (s + mu)) @ U.T
                 + np.eye(120) - U @ U.T)
        np.testing.assert_allclose(got[:, j], dense @ R[:, j], rtol=1e-9, atol=1e-12)


def test_compiled_and_blas_applications_agree():
    # up to APPLY_COMPILED_MAX columns two compiled passes, beyond it GEMM: the same
    from kernelkit.tuning.low_rank import APPLY_COMPILED_MAX

    K = _kernel()
    P = LowRankPreconditioner(randomly_pivoted_cholesky(K, 25, seed=0)[0])
    k = APPLY_COMPILED_MAX + 4
    R = np.random.default_rng(6).normal(size=(120, k))
    mus = np.geomspace(1e-3, 10.0, k)
    wide = P.apply(R, mus)
    narrow = np.column_stack([P.apply(R[:, j:j + 2], mus[j:j + 2])[:, 0] for j in range(k)])
    np.testing.assert_allclose(wide, narrow, rtol=1e-12, atol=1e-13)


def test_preconditioned_spectrum_lies_in_the_papers_bound():
    # kappa(P^-1/2 (K + mu I) P^-1/2) <= (lam + mu + ||K - F F'||) / mu
    K = _kernel(gamma=1.0)
    F, _ = randomly_pivoted_cholesky(K, 40, seed=0)
    P = LowRankPreconditioner(F)
    mu = 0.1
    Pinv = P.apply(np.eye(120), np.full(120, mu))
    ev = np.linalg.eigvals(Pinv @ (K + mu * np.eye(120))).real
    bound = (P.tail + mu + np.linalg.norm(K - F @ F.T, 2)) / mu
    assert ev.min() > 0 and ev.max() / ev.min() <= bound * (1 + 1e-9)


def test_a_rank_zero_preconditioner_is_the_identity():
    P = LowRankPreconditioner(np.zeros((10, 0)))
    R = np.arange(20.0).reshape(10, 2)
    np.testing.assert_array_equal(P.apply(R, [1.0, 2.0]), R)
    assert P.tail == 0.0 and P.rank == 0


def test_low_rank_rank_rule():
    assert low_rank_rank(12_800) == LOW_RANK_MAX
    assert low_rank_rank(500) == 50 and low_rank_rank(3) == 1


@pytest.mark.parametrize("merge", [True, False])
def test_fold_solves_with_a_low_rank_group_equal_direct_solves(merge):
    K = _kernel(n=300, gamma=0.3)
    Y = np.random.default_rng(4).normal(size=(300, 2))
    alphas = [1e-3, 1e-2, 0.1, 1.0, 10.0]
    groups = [((0, 1, 2), 0.01), ((3, 4), ("rank", 30))]
    coef, info = fold_solves(K, Y, alphas, groups, merge=merge)
    assert info["low_rank"] == 30 and info["factors"] == 1 and info["merged"] == merge
    assert info["fallbacks"] == 0 and info["residual"] <= 1e-10
    for j, a in enumerate(alphas):
        reference = np.linalg.solve(K + a * np.eye(300), Y)
        np.testing.assert_allclose(coef[j], reference, rtol=1e-8,
                                   atol=1e-10 * np.abs(reference).max())


def test_a_low_rank_group_short_of_the_tolerance_falls_back_to_float64_factors():
    # rank 3 for alpha 1e-4 on a slowly decaying spectrum: CG cannot finish in 20
    # iterations; the alpha switches to its own float64 factor, still exact
    K = _kernel(n=200, gamma=2.0)
    y = np.random.default_rng(5).normal(size=200)
    r = merged_solves(K, y, [1e-4, 1.0], [("rank", 3), ("rank", 3)], maxiter=20)
    assert 1e-4 in r.fallback_alphas and r.low_rank == 3
    for j, a in enumerate([1e-4, 1.0]):
        np.testing.assert_allclose(r.coef[j, :, 0], np.linalg.solve(K + a * np.eye(200), y),
                                   rtol=1e-8, atol=1e-10)


def test_a_probe_built_preconditioner_is_used_as_given():
    K = _kernel(n=200)
    y = np.ones(200)
    P = LowRankPreconditioner(randomly_pivoted_cholesky(K, 12, seed=9)[0])
    r = merged_solves(K, y, [1.0], [("rank", 50)], low_rank=P)
    assert r.low_rank == 12  # the given one, not a new rank-50 factor


def test_planner_takes_the_low_rank_group_only_where_the_tail_allows():
    alphas = [1e-3, 1e-2, 0.1, 1.0, 10.0]
    rates = {"cholesky": 9e10, "gemm": 1e11, "stream": 2.3e10, "elementwise": 2e9}
    without = plan_fold_solves(12_800, alphas, rates=rates)
    assert not any(is_low_rank(s) for _, s in without.groups)
    small = plan_fold_solves(12_800, alphas, rates=rates, low_rank=(1000, 1e-6))
    assert all(is_low_rank(s) for _, s in small.groups) and small.factors == 0
    large = plan_fold_solves(12_800, alphas, rates=rates, low_rank=(1000, 1e3))
    assert not any(is_low_rank(s) for _, s in large.groups)
    middle = plan_fold_solves(12_800, alphas, rates=rates, low_rank=(1000, 0.3))
    low = [idx for idx, s in middle.groups if is_low_rank(s)]
    # the large alphas, never the smallest
    assert low and 0 not in low[0] and 4 in low[0]
    assert middle.seconds < without.seconds
    assert "Nystroem" in middle.describe(alphas)


def test_low_rank_iterations_grow_with_the_tail_over_alpha():
    assert low_rank_iterations(1.0, 0.0) == EXACT_SHIFT_ITERATIONS
    its = [low_rank_iterations(1.0, t) for t in (0.01, 0.1, 1.0, 10.0)]
    assert its == sorted(its) and its[-1] > its[0]
    assert low_rank_iterations(10.0, 1.0) < low_rank_iterations(0.1, 1.0)


def test_a_float32_group_that_overflows_next_to_a_low_rank_group_falls_back_alone(
        monkeypatch):
    # only the float32 group's alphas switch to float64 factors; the low-rank group's
    # CG goes on; every answer is the exact solve
    from kernelkit.tuning import fold_path

    def overflowing(L, R):
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")

    monkeypatch.setattr(fold_path, "_precondition", overflowing)
    K = _kernel(n=150, gamma=0.5)
    y = np.random.default_rng(12).normal(size=150)
    alphas = [1e-2, 0.1, 1.0, 10.0]
    coef, info = fold_solves(K, y, alphas, [((0, 1), 0.03), ((2, 3), ("rank", 15))],
                             merge=True)
    assert info["merged"] and sorted(info["fallback_alphas"]) == [1e-2, 0.1]
    for j, a in enumerate(alphas):
        np.testing.assert_allclose(coef[j, :, 0], np.linalg.solve(K + a * np.eye(150), y),
                                   rtol=1e-8, atol=1e-10)


def test_a_low_rank_group_refuses_a_kernel_matrix_with_nan():
    K = _kernel(n=80)
    K[:, 5] = K[5, :] = np.nan
    K[5, 5] = 1.0  # the diagonal finite: the pivots' rows find the NaN
    with pytest.raises(ValueError, match="NaN or infinite"):
        merged_solves(K, np.ones(80), [1.0], [("rank", 80)])


def test_a_shift_tuple_other_than_rank_is_refused():
    with pytest.raises(ValueError, match="a float or"):
        merged_solves(np.eye(3), np.ones(3), [1.0], [("ranks", 2)])
