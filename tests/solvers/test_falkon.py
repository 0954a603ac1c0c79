"""Falkon (Nystroem kernel ridge by preconditioned CG) against independent references."""

import numpy as np
import pytest

from kernelkit import config_context
from kernelkit.gram import GramOperator, gram, kernel_matmat
from kernelkit.exceptions import MemoryBudgetError
from kernelkit.kernels import RBF, Laplacian, Polynomial
from kernelkit.planning import falkon_store_choice
from kernelkit.solvers import dual_ridge
from kernelkit.linalg_blocked import lower_gram_in_place
from kernelkit._compiled import mirror_lower
from kernelkit.solvers.falkon import (_ONE_THREAD_SOLVE_MIN_M, _gram_of_factor, _preconditioner,
                                      _tri, falkon)


def _data(n=240, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y, rng.normal(size=(60, d))


def _nystroem_krr(kernel, X, C, Y, alpha, sw=None):
    """The closed form (K_nM' S K_nM + alpha K_MM) c = K_nM' S y, solved densely."""
    Knm, Kmm = gram(kernel, X, C), gram(kernel, C)
    S = np.ones(len(X)) if sw is None else sw
    return np.linalg.solve(Knm.T @ (S[:, None] * Knm) + alpha * Kmm, Knm.T @ (S[:, None] * Y))


@pytest.mark.parametrize("gamma", [0.3, 2.0])
def test_all_points_as_centers_is_exact_kernel_ridge(gamma):
    X, y, Xt = _data()
    k, alpha = RBF(gamma=gamma), 0.5
    u, _ = dual_ridge(gram(k, X), y, alpha)
    res = falkon(k, X, X, y, alpha, tol=1e-12, maxiter=500)
    assert res.converged
    scale = np.abs(y).max()
    assert np.abs(gram(k, Xt, X) @ (res.coef - u)).max() <= 1e-6 * scale
    assert np.abs(gram(k, X) @ (res.coef - u)).max() <= 1e-6 * scale


def test_well_conditioned_coefficients_match_exact():
    X, y, _ = _data(n=150)
    k, alpha = RBF(gamma=2.0), 1.0
    u, _ = dual_ridge(gram(k, X), y, alpha)
    res = falkon(k, X, X, y, alpha, tol=1e-13, maxiter=500)
    np.testing.assert_allclose(res.coef, u, rtol=0, atol=1e-7 * np.abs(u).max())


@pytest.mark.parametrize("kernel", [RBF(gamma=0.3), Laplacian(gamma=0.5),
                                    Polynomial(degree=2, gamma=1.0, coef0=1.0)])
def test_fewer_centers_match_closed_form_nystroem_krr(kernel):
    X, y, Xt = _data()
    C = X[::5]
    Y = np.column_stack([y, np.cos(X[:, 2])])
    ref = _nystroem_krr(kernel, X, C, Y, 0.3)
    res = falkon(kernel, X, C, Y, 0.3, tol=1e-12, maxiter=1000)
    assert res.coef.shape == (len(C), 2) and res.converged
    pred, pred_ref = gram(kernel, Xt, C) @ res.coef, gram(kernel, Xt, C) @ ref
    np.testing.assert_allclose(pred, pred_ref, atol=1e-6 * np.abs(pred_ref).max())


def test_sample_weights_match_weighted_closed_form():
    X, y, Xt = _data()
    sw = np.random.default_rng(3).uniform(0.1, 3.0, size=len(X))
    C, k = X[:50], RBF(gamma=0.3)
    ref = _nystroem_krr(k, X, C, y[:, None], 0.2, sw)[:, 0]
    res = falkon(k, X, C, y, 0.2, sample_weight=sw, tol=1e-12, maxiter=500)
    G = gram(k, Xt, C)
    np.testing.assert_allclose(G @ res.coef, G @ ref, atol=1e-7 * np.abs(G @ ref).max())


def test_stored_and_recomputed_knm_give_the_same_iterates():
    X, y, _ = _data()
    C, k = X[:40], RBF(gamma=0.5)
    with config_context(memory="16MB"):  # small blocks: many row blocks per pass
        a = falkon(k, X, C, y, 0.1, store=True, maxiter=7, tol=1e-14)
        b = falkon(k, X, C, y, 0.1, store=False, maxiter=7, tol=1e-14)
    assert a.stored and not b.stored and a.n_iter == b.n_iter == 7
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-10, atol=1e-12)


def test_fewer_iterations_are_less_accurate_and_callback_counts_them():
    X, y, _ = _data()
    C, k = X[:60], RBF(gamma=0.3)
    ref = _nystroem_krr(k, X, C, y[:, None], 0.01)[:, 0]
    calls = []
    res = falkon(k, X, C, y, 0.01, maxiter=2, tol=1e-14, callback=calls.append)
    assert calls == [1, 2] and res.n_iter == 2 and not res.converged
    full = falkon(k, X, C, y, 0.01, maxiter=500, tol=1e-12)
    G = gram(k, X, C)
    assert np.abs(G @ (full.coef - ref)).max() < np.abs(G @ (res.coef - ref)).max()


def test_float32_products_stay_close_to_float64():
    X, y, Xt = _data()
    C, k = X[:50], RBF(gamma=0.3)
    ref = falkon(k, X, C, y, 0.3, tol=1e-10, maxiter=500)
    X32 = X.astype(np.float32)
    res = falkon(k, X32, X32[:50], y, 0.3, tol=1e-10, maxiter=500, dtype=np.float32)
    G = gram(k, Xt, C)
    np.testing.assert_allclose(G @ res.coef, G @ ref.coef, atol=1e-4 * np.abs(G @ ref.coef).max())


@pytest.mark.parametrize("kernel", [RBF(gamma=0.2), Laplacian(gamma=0.3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_knm_products_match_dense_products(kernel, dtype):
    X, _, _ = _data(n=130)
    X = X + 5.0  # off-centre data: the float32 RBF path centres first
    C = X[:17]
    V = np.random.default_rng(1).normal(size=(17, 3))
    sw = np.random.default_rng(2).uniform(size=130)
    K = gram(kernel, X, C)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    with config_context(memory="16MB"):
        op = GramOperator(kernel, X.astype(dtype), C.astype(dtype), block_dtype=dtype,
                          sample_weight=sw, n_temporaries=3)
        np.testing.assert_allclose(op.matmat(V), K @ V, atol=tol * np.abs(K @ V).max())
        ref = K.T @ (sw[:, None] * (K @ V))
        got, KtY = op.gram_matmat(V, V[:1].repeat(130, 0))
        np.testing.assert_allclose(got, ref, atol=tol * np.abs(ref).max())
        ref_y = K.T @ (sw[:, None] * V[:1].repeat(130, 0))
        np.testing.assert_allclose(KtY, ref_y, atol=tol * np.abs(ref_y).max())
    out = kernel_matmat(kernel, X, C, V[:, 0])
    assert out.shape == (130,)
    np.testing.assert_allclose(out, K @ V[:, 0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", [RBF(gamma=0.3), Laplacian(gamma=0.5)])
def test_float32_preconditioner_factors_match_float64(kernel):
    X, _, _ = _data()
    C, lam = X[:70], 1e-3
    L64, La64, j64 = _preconditioner(kernel, C, lam, np.dtype(np.float64))
    L32, La32, j32 = _preconditioner(kernel, C.astype(np.float32), lam, np.dtype(np.float32))
    # float32 factors, each mirrored: its transpose in the upper triangle, which the
    # iterations' float64 solves read
    assert L32.dtype == La32.dtype == np.float32
    np.testing.assert_array_equal(L32, L32.T)
    np.testing.assert_array_equal(La32, La32.T)
    L32, La32 = np.tril(L32).astype(np.float64), np.tril(La32).astype(np.float64)
    # Each factor reproduces the matrix it factors (jitter eps M of its own precision).
    K = gram(kernel, C)
    np.testing.assert_allclose(L32 @ L32.T, K + j32 * np.eye(70), atol=1e-5)
    T = L32.T @ L32 / 70 + lam * np.eye(70)
    np.testing.assert_allclose(La32 @ La32.T, T, atol=1e-5)
    # And the float32 factors are close to the float64 ones.
    np.testing.assert_allclose(L32, np.tril(L64), atol=2e-3)
    assert j32 > j64


@pytest.mark.parametrize("store", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_blocks_computed_in_place_match_dense(store, dtype):
    X, _, _ = _data(n=130)
    C, k = X[:17], RBF(gamma=0.2)
    V = np.random.default_rng(1).normal(size=(17, 2))
    op = GramOperator(k, X.astype(dtype), C.astype(dtype), block_dtype=dtype, cache=store)
    op.block_rows = 7  # 19 blocks, the last one of 4 rows: the reused buffer is cut
    ref = gram(k, X, C) @ V
    tol = 1e-12 if dtype == np.float64 else 1e-5
    K = gram(k, X, C)
    ref_g = K.T @ (K @ V)
    for _ in range(2):  # first pass computes (and stores), second reads or recomputes
        np.testing.assert_allclose(op.matmat(V), ref, atol=tol * np.abs(ref).max())
        np.testing.assert_allclose(op.gram_matmat(V), ref_g, atol=tol * np.abs(ref_g).max())
    assert (op._K is not None) == store


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("M, rows", [(1, 4), (7, 3), (9, 3), (50, 16), (50, 64)])
def test_lower_gram_in_place_is_the_product_of_the_lower_triangle(M, rows, dtype):
    # A brute-force float64 L'L of the lower triangle; the strict upper triangle holds
    # values (as a Cholesky factor's buffer does) that must not enter the product.
    A = np.random.default_rng(M).normal(size=(M, M))
    L = np.tril(A)
    ref = np.zeros((M, M))
    for k in range(M):  # L'L = sum_k (row k)' (row k)
        ref += np.outer(L[k], L[k])
    out = lower_gram_in_place(A.astype(dtype), rows=rows)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(np.tril(out), np.tril(ref), atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("columns", [10, 40])  # one BLAS thread, then all of them
def test_triangular_solves_of_a_large_factor_solve_the_system(columns):
    rng = np.random.default_rng(2)
    M = _ONE_THREAD_SOLVE_MIN_M
    A = rng.normal(size=(M, M)) / M
    A.flat[:: M + 1] = rng.uniform(0.5, 2.0, size=M)  # the upper triangle must not be read
    L, B = np.tril(A), rng.normal(size=(M, columns))
    for trans, system in (("N", L), ("T", L.T)):
        X = _tri(A, B, trans)
        assert X.dtype == np.float64
        np.testing.assert_allclose(system @ X, B, atol=1e-10)


@pytest.mark.parametrize("columns", [1, 10, 33, 40])  # panels of 32 up to M / 8 = 37, then
def test_triangular_solves_of_a_float32_factor_run_in_float64(columns):  # LAPACK in float64
    # a float32 factor as _preconditioner returns it (mirrored): the solution is the
    # float64 one of that float32 factor, not a float32 solve's
    rng = np.random.default_rng(3)
    M = 300
    A = (rng.normal(size=(M, M)) / M).astype(np.float32)
    A.flat[:: M + 1] = rng.uniform(0.5, 2.0, size=M)
    L32 = mirror_lower(A.copy())
    L, B = np.tril(L32).astype(np.float64), rng.normal(size=(M, columns))
    for trans, system in (("N", L), ("T", L.T)):
        X = _tri(L32, B, trans)
        assert X.dtype == np.float64
        np.testing.assert_allclose(system @ X, B, rtol=0, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_gram_of_factor_matches_the_formula_and_leaves_the_factor(weighted):
    rng = np.random.default_rng(5)
    M, lam = 600, 1e-3  # > the default 512 rows per product: two block rows
    A = rng.normal(size=(M, M)).astype(np.float32)
    w = rng.uniform(0.5, 3.0, size=M) if weighted else None
    L = np.tril(A).astype(np.float64)
    D = np.ones(M) if w is None else w
    ref = L.T @ (D[:, None] * L) / D.sum() + lam * np.eye(M)
    before = A.copy()
    for out in (None, np.empty((M, M), dtype=np.float32)):
        G = _gram_of_factor(A, lam, out=out, weights=w)
        assert out is None or G is out
        np.testing.assert_array_equal(A, before)  # the factor itself is not changed
        np.testing.assert_allclose(G, ref, atol=1e-5 * np.abs(ref).max())  # mirrored too


def test_solver_follows_the_planned_store_with_the_whole_budget_threshold():
    # 16 MB budget = 16,777,216 bytes; K_nM takes 8 n M and the preconditioner 16 M^2.
    rng = np.random.default_rng(4)
    M = 100
    C = rng.normal(size=(M, 2))
    for n, stored in ((20000, True), (21000, False)):  # 16.16 MB <= 16.78 MB < 16.96 MB
        X = rng.normal(size=(n, 2))
        with config_context(memory="16MB"):
            planned = falkon_store_choice(n, M, 8)
            res = falkon(RBF(0.5), X, C, X[:, 0], 0.1, maxiter=1, store=planned)
        assert res.stored is stored and res.store_choice is planned
        assert "K_nM" in planned.what and "budget" in planned.reason
    # plain settings: the solver decides nothing, and records nothing
    forced = falkon(RBF(0.5), X[:500], C, X[:500, 0], 0.1, maxiter=1, store=True)
    default = falkon(RBF(0.5), X[:500], C, X[:500, 0], 0.1, maxiter=1)
    assert forced.stored and forced.store_choice is None
    assert not default.stored and default.store_choice is None
    np.testing.assert_array_equal(forced.coef, default.coef)
    # a forced store counts K_nM and the factors against the budget before any work
    with config_context(memory="16MB"), pytest.raises(MemoryBudgetError, match="store=False"):
        falkon(RBF(0.5), X, C, X[:, 0], 0.1, maxiter=1, store=True)
    with pytest.raises(ValueError, match="falkon_store_choice"):
        falkon(RBF(0.5), X[:500], C, X[:500, 0], 0.1, maxiter=1, store="auto")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_solver_on_a_given_operator_matches_the_default_one(dtype):
    X, y, _ = _data()
    sw = np.random.default_rng(3).uniform(0.1, 3.0, size=len(X))
    X, C, k = X.astype(dtype), X[:50].astype(dtype), RBF(gamma=0.3)
    ref = falkon(k, X, C, y, 0.2, sample_weight=sw, dtype=dtype, maxiter=20, tol=1e-12)
    op = GramOperator(k, X, C, block_dtype=dtype, sample_weight=sw, n_temporaries=3)
    res = falkon(k, None, C, y, 0.2, dtype=dtype, maxiter=20, tol=1e-12, operator=op)
    np.testing.assert_array_equal(res.coef, ref.coef)
    assert res.n_iter == ref.n_iter and res.store_choice is op.store_choice
    with pytest.raises(ValueError, match="operator"):
        falkon(k, None, C, y, 0.2, sample_weight=sw, operator=op)


def test_float32_falkon_with_more_targets_than_a_panel_solves_each_target():
    # 40 targets: the factors' solves go by panels of 32 columns (checked exactly in
    # the test above); each target's CG is its own, so the first 5 targets come out
    # as when solved alone (one panel)
    X, _, C = _data(n=300)
    Y = np.random.default_rng(7).normal(size=(300, 40))
    k = RBF(gamma=0.3)
    both = falkon(k, X.astype(np.float32), C.astype(np.float32), Y, 1e-2, tol=1e-9,
                  maxiter=200, dtype=np.float32)
    alone = falkon(k, X.astype(np.float32), C.astype(np.float32), Y[:, :5], 1e-2, tol=1e-9,
                   maxiter=200, dtype=np.float32)
    # (to the float32 products' rounding, which BLAS does differently for 5 and 40 columns)
    np.testing.assert_allclose(both.coef[:, :5], alone.coef, rtol=0,
                               atol=1e-4 * np.abs(alone.coef).max())
    ref = _nystroem_krr(k, X, C, Y, 1e-2)  # float32 K_MM and factors: close, not equal
    np.testing.assert_allclose(both.coef, ref, atol=2e-3 * np.abs(ref).max())


def test_float32_direct_solve_equals_float32_cg():
    # solve="direct" with float32 Cholesky factors: its M columns go to LAPACK on a
    # float64 copy of the factor; the same system as CG's
    X, y, C = _data(n=300)
    k = RBF(gamma=0.3)
    args = (k, X.astype(np.float32), C.astype(np.float32), y, 1e-2)
    direct = falkon(*args, dtype=np.float32, solve="direct")
    cg = falkon(*args, dtype=np.float32, solve="cg", tol=1e-12, maxiter=500)
    assert direct.solve_choice.value == "direct" and cg.solve_choice.value == "cg"
    # both within float32's reach of the float64 closed form (predictions 7e-5 and 4e-5
    # of their largest here; the coefficients, less well determined, 3e-4 and 4e-4)
    ref = gram(k, X, C) @ _nystroem_krr(k, X, C, y[:, None], 1e-2)[:, 0]
    for res in (direct, cg):
        np.testing.assert_allclose(gram(k, X, C) @ res.coef, ref, rtol=0,
                                   atol=3e-4 * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rank_deficient_kmm_chooses_the_eigen_preconditioner(dtype):
    # Centers in a few tight clusters: K_MM numerically rank-deficient.
    rng = np.random.default_rng(5)
    X = np.repeat(rng.normal(size=(8, 2)), 50, axis=0) + 1e-7 * rng.normal(size=(400, 2))
    y = np.sin(X[:, 0]) + X[:, 1]
    C, k = X[::4], RBF(gamma=0.5)
    if dtype == np.float32:  # the pivots of float32 factors decide it too
        res = falkon(k, X.astype(dtype), C.astype(dtype), y, 1e-3, tol=1e-10, maxiter=200,
                     dtype=dtype)
        assert res.preconditioner_choice.value == "eigen" and res.rank < len(C)
        return
    res = falkon(k, X, C, y, 1e-3, tol=1e-10, maxiter=200)
    assert res.preconditioner_choice.value == "eigen" and "rank-deficient" in \
        res.preconditioner_choice.reason
    assert res.rank < len(C) and res.jitter == 0.0 and res.converged
    # The fit is as good as Nystroem ridge on one center per cluster.
    C1 = X[::50]
    ref = _nystroem_krr(k, X, C1, y[:, None], 1e-3)[:, 0]
    G, G1 = gram(k, X, C), gram(k, X, C1)
    np.testing.assert_allclose(G @ res.coef, G1 @ ref, atol=1e-4)
    forced = falkon(k, X, C, y, 1e-3, tol=1e-10, maxiter=200, preconditioner="cholesky")
    assert forced.preconditioner_choice.value == "cholesky" and forced.rank == len(C)


def test_eigen_preconditioner_equals_cholesky_on_a_full_rank_problem():
    X, y, Xt = _data()
    C, k = X[:50], RBF(gamma=0.3)
    sw = np.arange(1.0, 51.0)
    a = falkon(k, X, C, y, 0.2, tol=1e-12, maxiter=500, center_weights=sw)
    b = falkon(k, X, C, y, 0.2, tol=1e-12, maxiter=500, center_weights=sw,
               preconditioner="eigen", rank_rtol=1e-14)
    assert a.preconditioner_choice.value == "cholesky" and b.rank == 50
    G = gram(k, Xt, C)
    np.testing.assert_allclose(G @ b.coef, G @ a.coef, atol=1e-7 * np.abs(G @ a.coef).max())
    with pytest.raises(ValueError, match="center_weights"):
        falkon(k, X, C, y, 0.2, center_weights=np.ones(3))
    with pytest.raises(ValueError, match="preconditioner"):
        falkon(k, X, C, y, 0.2, preconditioner="qr")


def test_auto_keeps_cholesky_above_the_eigen_size_limit(monkeypatch):
    import sys

    fk = sys.modules["kernelkit.solvers.falkon"]  # the package exports the function falkon
    rng = np.random.default_rng(5)
    X = np.repeat(rng.normal(size=(8, 2)), 50, axis=0) + 1e-7 * rng.normal(size=(400, 2))
    monkeypatch.setattr(fk, "EIGEN_MAX_M", 50)
    res = falkon(RBF(gamma=0.5), X, X[::4], X[:, 0], 1e-3, maxiter=3)
    assert res.preconditioner_choice.value == "cholesky"
    assert "M > 50" in res.preconditioner_choice.reason and res.rank == 100


@pytest.mark.parametrize("method", ["uniform", "distinct"])
def test_centers_of_rows_known_distinct_are_drawn_as_when_compared(method):
    from kernelkit.solvers.falkon_rows import draw_centers

    X = np.random.default_rng(6).normal(size=(300, 5)).astype(np.float32)  # distinct rows
    k = RBF(gamma=0.5)
    C0, w0, c0 = draw_centers(k, X, 40, method, np.random.RandomState(1))
    C1, w1, c1 = draw_centers(k, X, 40, method, np.random.RandomState(1), rows_distinct=True)
    np.testing.assert_array_equal(C1, C0)
    assert w0 is None and w1 is None and c1 == c0


def test_falkon_fit_finds_its_rows_distinct_and_skips_the_center_comparison(monkeypatch):
    from kernelkit.models import KernelRidge
    from kernelkit.solvers import falkon_rows

    X, y, _ = _data()
    calls = []
    real = falkon_rows.distinct_centers
    monkeypatch.setattr(falkon_rows, "distinct_centers",
                        lambda *a: calls.append(1) or real(*a))
    KernelRidge(RBF(gamma=0.3), solver="falkon", n_centers=30, random_state=0).fit(X, y)
    assert calls == []
    Xr = np.vstack([X, X[:10]])  # repeated rows: merged, and the centers compared
    KernelRidge(RBF(gamma=0.3), solver="falkon", n_centers=30, random_state=0,
                center_selection="uniform").fit(Xr, np.r_[y, y[:10]])
    assert calls == [1]


@pytest.mark.parametrize("kernel", [RBF(gamma=3.0), Laplacian(gamma=0.5)])
def test_float32_kmm_by_its_lower_triangle_equals_the_whole_cross_block(kernel):
    from kernelkit.kernels import KernelRows
    from kernelkit.solvers.falkon import _kmm

    # 1100 centers: a first block of 1024 x 1024 (the tiled engine), then 76 rows
    C = np.random.default_rng(7).normal(size=(1100, 40)).astype(np.float32)
    whole = KernelRows(kernel, C, C, dtype=np.float32).block(0, len(C))
    out = np.full((1100, 1100), np.nan, dtype=np.float32)
    K = _kmm(kernel, C, np.float32, out)
    assert K is out
    np.testing.assert_array_equal(K, whole)  # bit for bit: the same products, mirrored
