"""Tests of kernelkit.linalg against plain numpy/scipy references."""

import warnings

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse.linalg import LinearOperator

from kernelkit.exceptions import NumericalWarning
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.linalg import (CholeskyResult, PCGResult, cho_solve, eigh_psd, loo_residuals,
                              pcg, robust_cholesky, solve_psd)


def spd(n, seed=0, cond_shift=1.0):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, n))
    return G @ G.T / n + cond_shift * np.eye(n)


def low_rank(n, d, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X @ X.T


# ---------------------------------------------------------------- robust_cholesky
def test_robust_cholesky_without_the_finite_check_never_jitters_a_nan():
    # check_finite=False: no pass over A before potrf. OpenBLAS's potrf factors through
    # a NaN (a NaN factor, for the caller to see); a potrf that fails on it gets the
    # NaN named after the first attempt, before any jitter (no NumericalWarning)
    A = np.eye(6) * 2.0
    A[4, 4] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = robust_cholesky(A, check_finite=False)
        except ValueError as e:
            assert "NaN or infinity" in str(e)
        else:
            assert r.jitter == 0.0 and not np.isfinite(np.tril(r.L)).all()
        with pytest.raises(ValueError, match="NaN or infinity"):
            robust_cholesky(A)  # the default checks first
    # a finite matrix that fails potrf still climbs the jitter ladder after the check
    G = np.random.default_rng(0).normal(size=(6, 3))
    with pytest.warns(NumericalWarning, match="jitter"):
        r = robust_cholesky(G @ G.T, check_finite=False)
    assert r.jitter > 0 and np.isfinite(np.tril(r.L)).all()
    B = np.eye(6) * 2.0 + 0.5
    np.testing.assert_allclose(np.tril(robust_cholesky(B, check_finite=False).L),
                               np.linalg.cholesky(B), rtol=1e-14)



@pytest.mark.parametrize("n, block_size", [(1, 7), (50, 7), (64, 16), (101, 16), (130, 64),
                                           (60, 64), (200, 2048)])
def test_cholesky_matches_scipy(n, block_size):
    A = spd(n, seed=n)
    A0 = A.copy()
    res = robust_cholesky(A, block_size=block_size)
    assert isinstance(res, CholeskyResult)
    assert res.jitter == 0.0 and res.n_tries == 1
    assert res.L.shape == (n, n) and res.L.dtype == np.float64
    ref = scipy.linalg.cholesky(A0, lower=True)
    np.testing.assert_allclose(np.tril(res.L), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(A, A0)  # overwrite_a=False leaves the input alone


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("block_size", [16, 500])
def test_cholesky_overwrite_in_place(order, block_size):
    A0 = spd(90, seed=3)
    A = np.array(A0, order=order)
    res = robust_cholesky(A, overwrite_a=True, block_size=block_size)
    assert res.L is A
    np.testing.assert_allclose(np.tril(A), scipy.linalg.cholesky(A0, lower=True),
                               rtol=1e-12, atol=1e-12)
    iu = np.triu_indices(90, 1)
    np.testing.assert_array_equal(A[iu], A0[iu])  # strict upper triangle untouched


def test_cholesky_copies_when_it_cannot_overwrite():
    A0 = spd(40, seed=4)
    for A in (A0.astype(np.float32), A0[::1, :][:, ::-1][:, ::-1][::2, ::2], A0.tolist()):
        A_before = np.array(A, copy=True)
        res = robust_cholesky(A, overwrite_a=True, block_size=8)
        np.testing.assert_array_equal(np.asarray(A), A_before)
        ref = scipy.linalg.cholesky(np.asarray(A, dtype=np.float64), lower=True)
        np.testing.assert_allclose(np.tril(res.L), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("block_size", [7, 1000])
def test_cholesky_rank_deficient_gets_jitter(block_size):
    n, d = 60, 20  # with block_size=7 the failure is in block 3: restore from upper runs
    A0 = low_rank(n, d)
    A = A0.copy(order="F")
    with pytest.warns(NumericalWarning, match="jitter"):
        res = robust_cholesky(A, overwrite_a=True, block_size=block_size)
    assert res.jitter > 0 and res.n_tries >= 2
    Aj = A0 + res.jitter * np.eye(n)
    L = np.tril(res.L)
    np.testing.assert_allclose(L @ L.T, Aj, atol=1e-10 * np.abs(A0).max())
    ref = scipy.linalg.cholesky(Aj, lower=True)
    np.testing.assert_allclose(L, ref, atol=1e-6 * np.abs(ref).max())
    iu = np.triu_indices(n, 1)
    np.testing.assert_array_equal(A[iu], A0[iu])


def test_cholesky_jitter_start_and_same_result_blocked_or_not():
    A0 = low_rank(40, 5, seed=1)
    with pytest.warns(NumericalWarning):
        a = robust_cholesky(A0, jitter_start=1e-6, block_size=6)
    with pytest.warns(NumericalWarning):
        b = robust_cholesky(A0, jitter_start=1e-6, block_size=100)
    assert a.jitter == b.jitter == 1e-6 and a.n_tries == 2
    np.testing.assert_allclose(np.tril(a.L), np.tril(b.L), atol=1e-9)


@pytest.mark.parametrize("block_size", [4, 100])
def test_cholesky_indefinite_raises_and_restores(block_size):
    A0 = spd(30, seed=5)
    A0[20, 20] = -5.0  # clearly indefinite, failure in a later block
    A = A0.copy()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite.*alpha"):
        robust_cholesky(A, overwrite_a=True, block_size=block_size, max_tries=3)
    np.testing.assert_array_equal(A, A0)  # overwrite_a=True input restored on failure


def test_cholesky_rejects_bad_input():
    A = spd(10)
    A[3, 4] = A[4, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        robust_cholesky(A)
    A[3, 4] = A[4, 3] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        robust_cholesky(A, block_size=3)
    with pytest.raises(ValueError, match="square"):
        robust_cholesky(np.ones((3, 4)))


# ---------------------------------------------------------------- solves

@pytest.mark.parametrize("shape", [(75,), (75, 3)])
def test_cho_solve_and_solve_psd(shape):
    A = spd(75, seed=6)
    B = np.random.default_rng(6).standard_normal(shape)
    ref = np.linalg.solve(A, B)
    chol = robust_cholesky(A, block_size=16)
    np.testing.assert_allclose(cho_solve(chol, B), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cho_solve(chol.L, B), ref, rtol=1e-10, atol=1e-12)
    X, chol2 = solve_psd(A, B, block_size=32)
    assert X.shape == shape and chol2.jitter == 0.0
    np.testing.assert_allclose(X, ref, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- pcg

def _operators(A):
    return {"ndarray": A,
            "LinearOperator": LinearOperator(A.shape, matvec=lambda v: A @ v, dtype=A.dtype),
            "callable": lambda v: A @ v}


@pytest.mark.parametrize("kind", ["ndarray", "LinearOperator", "callable"])
def test_pcg_matches_solve(kind):
    A = spd(80, seed=7)
    b = np.random.default_rng(7).standard_normal(80)
    res = pcg(_operators(A)[kind], b, rtol=1e-10)
    assert isinstance(res, PCGResult) and res.converged and res.x.shape == (80,)
    np.testing.assert_allclose(res.x, np.linalg.solve(A, b), rtol=1e-8, atol=1e-9)
    assert np.isscalar(res.residual_norm) and res.residual_norm <= 1e-10 * np.linalg.norm(b)


@pytest.mark.parametrize("kind", ["ndarray", "LinearOperator", "callable"])
def test_pcg_multiple_columns(kind):
    A = spd(60, seed=8)
    B = np.random.default_rng(8).standard_normal((60, 3))
    B[:, 1] *= 1e-3
    B[:, 2] = A[:, 0]  # solution e_0: this column converges in very few steps
    res = pcg(_operators(A)[kind], B, rtol=1e-10)
    assert res.converged and res.x.shape == (60, 3) and res.residual_norm.shape == (3,)
    np.testing.assert_allclose(res.x, np.linalg.solve(A, B), rtol=1e-7, atol=1e-10)
    for j in range(3):  # each column exactly as a single-column run
        single = pcg(A, B[:, j], rtol=1e-10)
        np.testing.assert_allclose(res.x[:, j], single.x, rtol=1e-9, atol=1e-12)


def test_pcg_jacobi_preconditioner_helps_on_ill_scaled_matrix():
    n = 100
    d = np.logspace(0, 4, n)
    A = spd(n, seed=9, cond_shift=2.0) * np.sqrt(np.outer(d, d))  # D^1/2 S D^1/2
    b = np.random.default_rng(9).standard_normal(n)
    plain = pcg(A, b, rtol=1e-8)
    jac = pcg(A, b, rtol=1e-8, M=lambda v: v / np.diag(A))
    assert jac.converged and jac.n_iter < plain.n_iter / 2
    np.testing.assert_allclose(jac.x, np.linalg.solve(A, b), rtol=1e-5)


def test_pcg_callback_maxiter_zero_rhs_and_x0():
    A = spd(50, seed=10)
    b = np.random.default_rng(10).standard_normal(50)
    seen = []
    res = pcg(A, b, callback=lambda xk: seen.append(xk.copy()))
    assert res.converged and len(seen) == res.n_iter > 0
    np.testing.assert_array_equal(seen[-1], res.x)
    short = pcg(A, b, maxiter=2)
    assert not short.converged and short.n_iter == 2
    assert short.residual_norm > 1e-6 * np.linalg.norm(b)
    zero = pcg(A, np.zeros(50), x0=np.ones(50))
    assert zero.converged and zero.n_iter == 0 and not zero.x.any() and zero.residual_norm == 0
    warm = pcg(A, b, x0=np.linalg.solve(A, b))
    assert warm.converged and warm.n_iter == 0
    loose = pcg(A, b, atol=1e3)  # atol wins over rtol when larger
    assert loose.n_iter == 0 and loose.converged


def test_pcg_warns_on_indefinite():
    A = np.diag([1.0, -1.0, 2.0])
    with pytest.warns(NumericalWarning, match="not positive definite"):
        res = pcg(A, np.ones(3))
    assert not res.converged


# ---------------------------------------------------------------- eigh / LOO

def test_eigh_psd_clips_and_warns():
    K = low_rank(30, 4, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # rounding-level negatives: no warning
        w, Q = eigh_psd(K)
    assert w.min() >= 0
    np.testing.assert_allclose((Q * w) @ Q.T, K, atol=1e-10 * np.abs(K).max())
    bad = K - 0.1 * np.abs(K).max() * np.eye(30)
    with pytest.warns(NumericalWarning, match="negative eigenvalues"):
        w, _ = eigh_psd(bad)
    assert w.min() == 0.0


def _loo_brute_force(K, y, alpha, sw=None):
    n = K.shape[0]
    sw = np.ones(n) if sw is None else sw
    res = np.empty_like(y)
    for i in range(n):
        m = np.arange(n) != i
        # Weighted dual ridge on the rest: min sum sw (y - K a)^2 + alpha a'Ka
        # => (W K + alpha I) a = W y.
        a = np.linalg.solve(sw[m, None] * K[np.ix_(m, m)] + alpha * np.eye(n - 1),
                            (sw[m] * y[m].T).T)
        res[i] = y[i] - K[i, m] @ a
    return res


@pytest.mark.parametrize("yshape", [(25,), (25, 3)])
@pytest.mark.parametrize("alpha", [1e-2, 1.0])
def test_loo_residuals_match_refitting(yshape, alpha):
    rng = np.random.default_rng(12)
    X = rng.standard_normal((25, 3))
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    y = rng.standard_normal(yshape)
    w, Q = eigh_psd(K)
    np.testing.assert_allclose(loo_residuals(w, Q, y, alpha), _loo_brute_force(K, y, alpha),
                               rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("yshape", [(25,), (25, 2)])
def test_loo_residuals_sample_weight(yshape):
    rng = np.random.default_rng(13)
    X = rng.standard_normal((25, 2))
    K = (X @ X.T + 1.0) ** 2
    y = rng.standard_normal(yshape)
    sw = rng.uniform(0.2, 3.0, 25)
    s = np.sqrt(sw)
    w, Q = eigh_psd(s[:, None] * K * s[None])
    np.testing.assert_allclose(loo_residuals(w, Q, y, 0.3, sample_weight=sw),
                               _loo_brute_force(K, y, 0.3, sw), rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match="alpha"):
        loo_residuals(w, Q, y, 0.0)


@pytest.mark.parametrize("block_size", [12000, 30, 11])  # one spotrf call, blocked
def test_float32_cholesky_matches_numpy_and_leaves_upper_triangle(block_size):
    X = np.random.default_rng(1).normal(size=(70, 3))
    A = (gram(RBF(gamma=0.3), X) + 0.1 * np.eye(70)).astype(np.float32)
    work = A.copy()
    res = robust_cholesky(work, overwrite_a=True, dtype=np.float32, block_size=block_size,
                          jitter_start=1e-6)
    assert res.jitter == 0.0 and res.L is work and work.dtype == np.float32
    ref = np.linalg.cholesky(A.astype(np.float64))
    np.testing.assert_allclose(np.tril(work), ref, atol=2e-5)
    iu = np.triu_indices(70, 1)
    np.testing.assert_array_equal(work[iu], A[iu])


@pytest.mark.parametrize("block_size", [12000, 11])
def test_float32_cholesky_adds_jitter_to_singular_and_refuses_indefinite(block_size):
    rng = np.random.default_rng(0)
    B = rng.normal(size=(30, 5))
    A = (B @ B.T).astype(np.float32)  # rank 5: singular
    work = A.copy()
    with pytest.warns(NumericalWarning, match="jitter"):
        j = robust_cholesky(work, overwrite_a=True, dtype=np.float32, block_size=block_size,
                            jitter_start=1e-4).jitter
    assert j > 0
    L = np.tril(work).astype(np.float64)
    np.testing.assert_allclose(L @ L.T, A + j * np.eye(30), atol=1e-4 * np.abs(A).max())
    # An indefinite matrix: error, input restored (symmetric, same diagonal).
    S = np.diag(np.r_[np.ones(29), -10.0]).astype(np.float32) + np.float32(0.01)
    work = S.copy()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        robust_cholesky(work, overwrite_a=True, dtype=np.float32, block_size=block_size,
                        jitter_start=1e-6)
    np.testing.assert_array_equal(work, S)


def test_pcg_with_a_shift_per_column_solves_each_shifted_system():
    import numpy as np
    from kernelkit.linalg import pcg
    rng = np.random.default_rng(4)
    G = rng.normal(size=(60, 60))
    A = G @ G.T / 60  # PSD, ill-conditioned at the small end
    B = rng.normal(size=(60, 3))
    shifts = np.array([1e-2, 0.3, 5.0])
    out = pcg(A, B, rtol=1e-12, maxiter=500, shift=shifts)
    for j, a in enumerate(shifts):
        want = np.linalg.solve(A + a * np.eye(60), B[:, j])
        np.testing.assert_allclose(out.x[:, j], want, rtol=1e-9, atol=1e-11)
    assert out.converged
    # a start x0 counts its shift too
    again = pcg(A, B, rtol=1e-12, maxiter=500, shift=shifts, x0=out.x)
    assert again.n_iter <= 1


def test_pcg_gives_a_column_wise_preconditioner_the_active_columns():
    # M with matmat_columns(R, cols): each column preconditioned by its own exact
    # inverse converges in one iteration; the indices seen are the active ones, in order
    from kernelkit.linalg import pcg
    rng = np.random.default_rng(6)
    G = rng.normal(size=(40, 40))
    A = G @ G.T / 40
    shifts = np.array([1e-2, 1.0, 10.0])
    inverses = [np.linalg.inv(A + a * np.eye(40)) for a in shifts]
    seen = []

    class PerColumn:
        def matmat_columns(self, R, cols):
            seen.append(tuple(cols))
            return np.column_stack([inverses[c] @ R[:, i] for i, c in enumerate(cols)])

    B = rng.normal(size=(40, 3))
    B[:, 1] = 0.0  # b = 0: never active
    out = pcg(A, B, M=PerColumn(), rtol=1e-10, maxiter=5, shift=shifts)
    assert out.n_iter == 1 and seen == [(0, 2)]
    for j in (0, 2):
        np.testing.assert_allclose(out.x[:, j], inverses[j] @ B[:, j], rtol=1e-9)


def test_robust_cholesky_runs_one_threaded_potrf_up_to_its_dtype_s_safe_order(monkeypatch):
    # one LAPACK call up to 12,000 (float64) or 16,000 (float32), blocked beyond: the
    # orders at which the wheel's threaded potrf was measured clean, with a margin
    from kernelkit import linalg

    calls = []
    monkeypatch.setattr(linalg, "blocked_cholesky",
                        lambda A, b, **kw: calls.append(("blocked", A.dtype, b)) or 0)
    monkeypatch.setattr(linalg, "_potrf_inplace",
                        lambda A: calls.append(("potrf", A.dtype)) or 0)
    monkeypatch.setattr(linalg, "THREADED_POTRF_MAX_N", 6)
    monkeypatch.setattr(linalg, "THREADED_SPOTRF_MAX_N", 9)
    monkeypatch.setattr(linalg, "BLOCKED_BLOCK_SIZE", 4)
    for n, dtype in [(6, np.float64), (7, np.float64), (9, np.float32), (10, np.float32)]:
        robust_cholesky(np.eye(n), dtype=dtype)
    assert calls == [("potrf", np.float64), ("blocked", np.float64, 4),
                     ("potrf", np.float32), ("blocked", np.float32, 4)]
    assert linalg.THREADED_SPOTRF_MAX_N >= linalg.THREADED_POTRF_MAX_N
