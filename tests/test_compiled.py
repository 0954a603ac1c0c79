"""Compiled Gram loops against their numpy twins, and the twins against
brute-force double loops and scikit-learn's kernels."""

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import (laplacian_kernel, polynomial_kernel, rbf_kernel,
                                      sigmoid_kernel)

from kernelkit import _compiled as C
from kernelkit._compiled import _reference as R

RTOL = {np.float64: 1e-12, np.float32: 1e-6}
DTYPES = [np.float64, np.float32]


def _data(n, m, d, dtype, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(dtype)
    Y = rng.standard_normal((m, d)).astype(dtype)
    return X, Y


def _inner_args(name, X, Y):
    """Arguments (before ``out``) of the function ``name`` for the block X vs Y."""
    d = X.shape[1]
    G = X @ Y.T
    xx = np.einsum("ij,ij->i", X.astype(np.float64), X.astype(np.float64))
    yy = np.einsum("ij,ij->i", Y.astype(np.float64), Y.astype(np.float64))
    return {
        "rbf_from_inner": (G, xx, yy, 1.0 / d, -1),
        "sqdist_from_inner": (G, xx, yy, -1),
        "exp_scaled": (G, -0.3),
        "poly_from_inner": (G, 1.0 / d, 1.0, 3),
        "powf_from_inner": (G, 1.0 / d, 1.0, 2.5),  # some bases < 0: NaN
        "tanh_from_inner": (G, 0.5 / d, 0.1),
        "scale_add_rows_cols": (G, np.exp(-xx / d), np.exp(-yy / d)),
        "l1_exp": (X, Y, 1.0 / d),
        "cauchy": (X, Y, 0.5),
    }[name]


ALL = ["rbf_from_inner", "sqdist_from_inner", "exp_scaled", "poly_from_inner",
       "powf_from_inner", "tanh_from_inner", "scale_add_rows_cols", "l1_exp", "cauchy"]
FROM_BLOCK = ALL[:7]  # functions whose first argument may be overwritten


def _compare(name, args, out, dtype):
    got = getattr(C, name)(*args, out)
    want = getattr(R, name + "_ref")(*args, np.empty(out.shape, dtype))
    assert got is out
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=0, equal_nan=True)
    return got, want


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("shape", [(37, 23, 5), (23, 300, 70), (1, 7, 3)])
def test_matches_ref_out_of_place(name, dtype, shape):
    n, m, d = shape
    X, Y = _data(n, m, d, dtype)
    args = _inner_args(name, X, Y)
    snapshot = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    _compare(name, args, np.full((n, m), -7.0, dtype), dtype)
    for a, b in zip(args, snapshot):  # inputs untouched
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FROM_BLOCK)
def test_matches_ref_in_place(name, dtype):
    X, Y = _data(41, 19, 6, dtype)
    args = _inner_args(name, X, Y)
    want = getattr(R, name + "_ref")(*args, np.empty((41, 19), dtype))
    G = args[0]
    got = getattr(C, name)(*args, G)
    assert got is G
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=0, equal_nan=True)


@pytest.mark.parametrize("name", FROM_BLOCK)
def test_float32_block_into_float64_out(name):
    X, Y = _data(13, 29, 4, np.float32)
    _compare(name, _inner_args(name, X, Y), np.empty((13, 29)), np.float64)


# ---------------------------------------------------------------- diagonal

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("offset, n_cols", [(10, 50), (10, 25), (0, 20), (45, 50)])
@pytest.mark.parametrize("name, diag_value", [("rbf_from_inner", 1.0),
                                              ("sqdist_from_inner", 0.0)])
def test_shifted_diagonal_exact(name, diag_value, offset, n_cols, in_place, dtype):
    # block = rows offset:offset+20 of the symmetric Gram matrix of Z vs Z[:n_cols]
    Z, _ = _data(70, 1, 8, dtype, seed=3)
    Xb, Yb = Z[offset:offset + 20], Z[:n_cols]
    G, xx, yy, *rest = _inner_args(name, Xb, Yb)
    rest[-1] = offset
    args = (G, xx, yy, *rest)
    no_diag = getattr(R, name + "_ref")(*args[:-1], -1, np.empty(G.shape, dtype))
    want = getattr(R, name + "_ref")(*args, np.empty(G.shape, dtype))
    got = getattr(C, name)(*args, G if in_place else np.empty(G.shape, dtype))
    np.testing.assert_array_equal(got, want) if dtype is np.float32 else \
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    n, m = G.shape
    on_diag = np.zeros((n, m), bool)
    for i in range(n):
        if i + offset < m:
            on_diag[i, i + offset] = True
    assert on_diag.sum() == max(0, min(n, m - offset))
    assert np.all(got[on_diag] == diag_value)
    np.testing.assert_allclose(got[~on_diag], no_diag[~on_diag], rtol=RTOL[dtype], atol=0)


@pytest.mark.parametrize("name", ["rbf_from_inner", "sqdist_from_inner"])
def test_no_diagonal_when_offset_negative_or_none(name):
    X, _ = _data(12, 1, 3, np.float64)
    args = list(_inner_args(name, X, X))
    args[-1] = None
    a = getattr(C, name)(*args, np.empty((12, 12)))
    args[-1] = -3
    b = getattr(C, name)(*args, np.empty((12, 12)))
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- clamping

@pytest.mark.parametrize("dtype", DTYPES)
def test_negative_round_off_distance_is_clamped(dtype):
    rng = np.random.default_rng(1)
    xx = rng.uniform(1, 2, 9)
    yy = rng.uniform(1, 2, 7)
    # 2G a hair above xx + yy: distance slightly negative through round-off
    G = (0.5 * (xx[:, None] + yy[None, :]) * (1 + 4e-16)).astype(dtype)
    if dtype is np.float32:
        G = np.nextafter(G, np.float32(np.inf))
    assert np.all(xx[:, None] + yy[None, :] - 2.0 * G.astype(np.float64) < 0)
    for fn in (C.rbf_from_inner, R.rbf_from_inner_ref):
        k = fn(G, xx, yy, 3.0, -1, np.empty(G.shape, dtype))
        assert np.all(k == 1.0)
    for fn in (C.sqdist_from_inner, R.sqdist_from_inner_ref):
        d = fn(G, xx, yy, -1, np.empty(G.shape, dtype))
        assert np.all(d == 0.0) and not np.any(np.signbit(d))


def test_nan_propagates():
    X, Y = _data(5, 6, 2, np.float64)
    G, xx, yy, gamma, off = _inner_args("rbf_from_inner", X, Y)
    G[2, 3] = np.nan
    for fn in (C.rbf_from_inner, R.rbf_from_inner_ref):
        k = fn(G, xx, yy, gamma, off, np.empty(G.shape))
        assert np.isnan(k[2, 3]) and np.isnan(k).sum() == 1


# ---------------------------------------------------------------- powers

@pytest.mark.parametrize("degree", [0, 1, 2, 3, 4, 7, -1, -2])
def test_integer_degrees(degree):
    X, Y = _data(11, 13, 3, np.float64)
    _compare("poly_from_inner", (X @ Y.T, 0.7, 0.3, degree), np.empty((11, 13)), np.float64)


def test_integer_degree_rejects_fraction():
    G = np.ones((2, 2))
    with pytest.raises(ValueError, match="integer"):
        C.poly_from_inner(G, 1.0, 0.0, 2.5, np.empty((2, 2)))


def test_float_power_of_negative_base_is_nan_like_numpy():
    G = np.array([[-2.0, -1.0, 0.0, 1.0, 2.0]])
    for fn in (C.powf_from_inner, R.powf_from_inner_ref):
        frac = fn(G, 1.0, 0.0, 0.5, np.empty(G.shape))
        assert np.isnan(frac[0, :2]).all()
        np.testing.assert_allclose(frac[0, 2:], [0.0, 1.0, math.sqrt(2)], rtol=1e-15)
        whole = fn(G, 1.0, 0.0, 3.0, np.empty(G.shape))  # integral float power: real
        np.testing.assert_array_equal(whole, [[-8.0, -1.0, 0.0, 1.0, 8.0]])


# ---------------------------------------------------------------- argument checks

def test_argument_checks():
    G = np.ones((4, 6))
    xx, yy = np.ones(4), np.ones(6)
    with pytest.raises(ValueError, match="C-contiguous"):
        C.rbf_from_inner(np.ones((6, 4)).T, xx, yy, 1.0, -1, np.empty((4, 6)))
    with pytest.raises(ValueError, match="shape"):
        C.rbf_from_inner(G, xx, yy, 1.0, -1, np.empty((6, 4)))
    with pytest.raises(ValueError, match="float64 or float32"):
        C.exp_scaled(G.astype(np.int64), 1.0, np.empty((4, 6)))
    with pytest.raises(ValueError, match="xx"):
        C.rbf_from_inner(G, np.ones(5), yy, 1.0, -1, np.empty((4, 6)))
    big = np.ones((5, 6))
    with pytest.raises(ValueError, match="overlaps"):
        C.exp_scaled(big[:4], 1.0, big[1:])
    with pytest.raises(ValueError, match="features"):
        C.l1_exp(np.ones((3, 2)), np.ones((4, 3)), 1.0, np.empty((3, 4)))


def test_import_compiles_nothing():
    import subprocess
    import sys
    # every numba dispatcher of every module of the package (importing kernelkit
    # first: it must not compile any of them either)
    code = ("import kernelkit, pkgutil, importlib, numba.core.registry as r; "
            "import kernelkit._compiled as C; "
            "ms = [importlib.import_module('kernelkit._compiled.' + m.name) "
            "for m in pkgutil.iter_modules(C.__path__)]; "
            "fs = [f for m in ms for f in vars(m).values() "
            "if isinstance(f, r.CPUDispatcher)]; "
            "assert len(fs) >= 15, len(fs); "
            "assert all(not f.signatures for f in fs), [f for f in fs if f.signatures]")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- the twins themselves

def _tiny(dtype=np.float64):
    return _data(4, 3, 2, dtype, seed=7)


def test_refs_of_distance_kernels_brute_force():
    X, Y = _tiny()
    G = X @ Y.T
    xx, yy = (X * X).sum(1), (Y * Y).sum(1)
    sq = np.array([[sum((X[i, k] - Y[j, k]) ** 2 for k in range(2)) for j in range(3)]
                   for i in range(4)])
    l1 = np.array([[sum(abs(X[i, k] - Y[j, k]) for k in range(2)) for j in range(3)]
                   for i in range(4)])
    ca = np.array([[math.prod(1 / (1 + 0.8 ** 2 * (X[i, k] - Y[j, k]) ** 2)
                              for k in range(2)) for j in range(3)] for i in range(4)])
    out = np.empty((4, 3))
    np.testing.assert_allclose(R.sqdist_from_inner_ref(G, xx, yy, -1, out), sq, rtol=1e-12)
    want = np.vectorize(lambda s: math.exp(-0.4 * s))(sq)
    np.testing.assert_allclose(R.rbf_from_inner_ref(G, xx, yy, 0.4, -1, out), want, rtol=1e-12)
    np.testing.assert_allclose(R.rbf_from_inner_ref(G, xx, yy, 0.4, -1, out),
                               rbf_kernel(X, Y, gamma=0.4), rtol=1e-12)
    want = np.vectorize(lambda s: math.exp(-0.4 * s))(l1)
    np.testing.assert_allclose(R.l1_exp_ref(X, Y, 0.4, out), want, rtol=1e-12)
    np.testing.assert_allclose(R.l1_exp_ref(X, Y, 0.4, out),
                               laplacian_kernel(X, Y, gamma=0.4), rtol=1e-12)
    np.testing.assert_allclose(R.cauchy_ref(X, Y, 0.8, out), ca, rtol=1e-12)
    # exact diagonal of the twin: rows 1:4 of Z's Gram matrix
    Z = np.vstack([X, X[:1]])
    Gz = Z[1:4] @ Z.T
    zz = (Z * Z).sum(1)
    k = R.rbf_from_inner_ref(Gz, zz[1:4], zz, 0.4, 1, np.empty((3, 5)))
    assert k[0, 1] == k[1, 2] == k[2, 3] == 1.0


def test_refs_of_inner_product_kernels_brute_force():
    X, Y = _tiny()
    G = np.array([[sum(X[i, k] * Y[j, k] for k in range(2)) for j in range(3)]
                  for i in range(4)])
    out = np.empty((4, 3))
    b = 0.6 * G + 0.5
    np.testing.assert_allclose(R.poly_from_inner_ref(G, 0.6, 0.5, 3, out),
                               np.vectorize(lambda t: t ** 3)(b), rtol=1e-12)
    np.testing.assert_allclose(R.poly_from_inner_ref(G, 0.6, 0.5, 3, out),
                               polynomial_kernel(X, Y, degree=3, gamma=0.6, coef0=0.5),
                               rtol=1e-12)
    np.testing.assert_allclose(R.poly_from_inner_ref(G, 0.6, 0.5, -2, out),
                               np.vectorize(lambda t: t ** -2)(b), rtol=1e-12)
    want = np.vectorize(lambda t: math.pow(t, 1.5) if t >= 0 else math.nan)(b)
    np.testing.assert_allclose(R.powf_from_inner_ref(G, 0.6, 0.5, 1.5, out), want,
                               rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(R.tanh_from_inner_ref(G, 0.6, 0.5, out),
                               np.vectorize(math.tanh)(b), rtol=1e-12)
    np.testing.assert_allclose(R.tanh_from_inner_ref(G, 0.6, 0.5, out),
                               sigmoid_kernel(X, Y, gamma=0.6, coef0=0.5), rtol=1e-12)
    np.testing.assert_allclose(R.exp_scaled_ref(G, -0.7, out),
                               np.vectorize(lambda t: math.exp(-0.7 * t))(G), rtol=1e-12)
    fr, fc = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, -1.0, 2.0])
    want = np.array([[fr[i] * G[i, j] * fc[j] for j in range(3)] for i in range(4)])
    np.testing.assert_allclose(R.scale_add_rows_cols_ref(G, fr, fc, out), want, rtol=1e-15)


def test_refs_accept_float32_and_round_once():
    X, Y = _tiny(np.float32)
    G = X @ Y.T
    out = np.empty((4, 3), np.float32)
    want = np.exp(-0.3 * G.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(R.exp_scaled_ref(G, -0.3, out), want)


def test_exp_within_one_ulp_of_numpy_over_the_whole_range():
    # the compiled loops use a hand-written exp that vectorises (see _compiled._exp)
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, -1e-300, -745.13, -745.14,
               -745.2, -800.0, -708.4, -708.39, 709.78, 709.79, 800.0]
    a = np.concatenate([np.linspace(-746, 711, 200_001),
                        np.random.default_rng(0).uniform(-1, 1, 50_000), special])[None, :]
    got = C.exp_scaled(a, 1.0, np.empty_like(a))[0]
    with np.errstate(over="ignore"):
        want = np.exp(a[0])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    ulps = np.abs(got[ok].view(np.int64) - want[ok].view(np.int64))
    assert ulps.max() <= 1
    assert got[-16:][1] == np.inf and got[-16:][2] == 0.0 and got[-16:][3] == 1.0


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 200])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_mirror_lower_matches_twin_and_brute_force(n, dtype):
    from kernelkit._compiled import mirror_lower
    from kernelkit._compiled._reference import mirror_lower_ref

    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n)).astype(dtype)
    B = A.copy()
    mirror_lower(A)
    mirror_lower_ref(B)
    np.testing.assert_array_equal(A, B)
    for i in range(n):  # brute force: symmetric, lower triangle untouched
        for j in range(i + 1):
            assert A[i, j] == A[j, i]
    with pytest.raises(ValueError, match="square"):
        mirror_lower(np.zeros((2, 3)))


def test_row_strided_block_views_are_accepted_and_filled_in_place():
    from kernelkit._compiled import rbf_from_inner
    from kernelkit._compiled._reference import rbf_from_inner_ref

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    big = np.full((30, 50), -7.0)
    view = big[10:20, :15]  # contiguous rows, row stride 50
    G = X[10:20] @ X[:15].T
    xx = (X ** 2).sum(1)
    rbf_from_inner(G, xx[10:20], xx[:15], 0.3, 10, view)
    expect = rbf_from_inner_ref(G, xx[10:20], xx[:15], 0.3, 10, np.empty((10, 15)))
    np.testing.assert_allclose(view, expect, rtol=1e-12)
    assert (big[:10] == -7).all() and (big[20:] == -7).all() and (big[10:20, 15:] == -7).all()
    with pytest.raises(ValueError, match="C-contiguous"):
        rbf_from_inner(G, xx[10:20], xx[:15], 0.3, -1, np.empty((15, 10)).T)


def test_member_sums_equals_its_numpy_twin():
    from kernelkit._compiled import member_sums
    from kernelkit._compiled._reference import member_sums_ref

    rng = np.random.default_rng(0)
    for K in (rng.normal(size=(37, 53)), rng.normal(size=(5, 8)).astype(np.float32)):
        member = rng.integers(0, 4, size=K.shape[1])
        a = rng.uniform(size=K.shape[1])
        got = member_sums(K, member, a, np.empty((K.shape[0], 4)))
        ref = member_sums_ref(K.astype(np.float64), member, a, np.empty((K.shape[0], 4)))
        np.testing.assert_allclose(got, ref, rtol=1e-6 if K.dtype == np.float32 else 1e-12,
                                   atol=1e-12)
    with pytest.raises(ValueError, match="indices"):
        member_sums(K, np.full(K.shape[1], 9), a, np.empty((K.shape[0], 4)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_smallest_k_equals_its_numpy_twin_with_ties_and_inf(dtype):
    from kernelkit._compiled import smallest_k
    from kernelkit._compiled._reference import smallest_k_ref

    rng = np.random.default_rng(7)
    for n, m in ((1, 1), (5, 3), (40, 200)):
        # Few distinct values: many ties, which must be ordered by column index.
        D = rng.integers(0, 6, size=(n, m)).astype(dtype)
        D[rng.random((n, m)) < 0.1] = np.inf
        for k in sorted({1, min(3, m), m}):
            got = smallest_k(D, k)
            assert got.dtype == np.int64 and got.shape == (n, k)
            np.testing.assert_array_equal(got, smallest_k_ref(D, k))
            # Independent check: sorted() of each row's (value, index) pairs.
            brute = [[j for _, j in sorted(zip(row.tolist(), range(m)))][:k] for row in D]
            np.testing.assert_array_equal(got, np.array(brute).reshape(n, k))
    with pytest.raises(ValueError, match="k must be"):
        smallest_k(np.zeros((2, 3)), 4)


def test_smallest_k_stable_is_the_old_smallest_k_ref():
    from kernelkit import _compiled

    D = np.array([[3.0, 1.0, 1.0, 0.0, np.inf]])
    np.testing.assert_array_equal(_compiled.smallest_k_stable(D, 3), [[3, 1, 2]])


def test_production_code_does_not_import_the_twins():
    import subprocess
    import sys
    code = ("import sys, kernelkit, kernelkit.models, kernelkit.solvers, kernelkit.features, "
            "kernelkit.diagnostics, kernelkit.kernels; "
            "bad = [m for m in sys.modules if m.endswith('._reference')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("n, r0, r1", [(1, 0, 1), (70, 0, 30), (200, 64, 130), (150, 10, 150),
                                       (130, 0, 0)])
def test_mirror_band_upper_matches_twin(n, r0, r1):
    from kernelkit._compiled import mirror_band_upper
    from kernelkit._compiled._reference import mirror_band_upper_ref

    A = np.random.default_rng(n + r0).normal(size=(n, n))
    B = A.copy()
    mirror_band_upper(A, r0, r1)
    mirror_band_upper_ref(B, r0, r1)
    np.testing.assert_array_equal(A, B)
    with pytest.raises(ValueError, match="square"):
        mirror_band_upper(np.zeros((3, 4)), 0, 1)


def test_gather_exp_matches_its_twin_and_rbf_kernel():
    # the k-fold searches' RBF blocks: exp(-gamma D2[rows][:, cols]) from one stored D2
    from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel
    rng = np.random.default_rng(3)
    X = rng.standard_normal((57, 4))
    D2 = euclidean_distances(X, squared=True)
    rows = rng.permutation(57)[:31]
    cols = np.r_[rng.permutation(57)[:20], rows[:3]]  # repeated and unsorted indices
    got = C.gather_exp(D2, rows, cols, -0.4, np.full((31, 23), np.nan))
    want = R.gather_exp_ref(D2, rows, cols, -0.4, np.empty((31, 23)))
    np.testing.assert_allclose(got, want, rtol=3e-16, atol=0)
    np.testing.assert_allclose(got, rbf_kernel(X[rows], X[cols], gamma=0.4), rtol=1e-12)
    empty = C.gather_exp(D2, rows[:0], cols, -0.4, np.empty((0, 23)))
    assert empty.shape == (0, 23)


def test_gather_exp_refuses_indices_outside_the_matrix():
    D2 = np.zeros((5, 5))
    with pytest.raises(IndexError, match="rows index out of range"):
        C.gather_exp(D2, np.array([0, 5]), np.array([1]), -1.0, np.empty((2, 1)))
    with pytest.raises(IndexError, match="cols index out of range"):
        C.gather_exp(D2, np.array([0]), np.array([-1]), -1.0, np.empty((1, 1)))
    with pytest.raises(ValueError, match="out must have shape"):
        C.gather_exp(D2, np.array([0]), np.array([1]), -1.0, np.empty((2, 1)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, n, k", [(13, 13, 1), (37, 29, 3), (64, 70, 5), (3, 2, 8)])
def test_matmat_t_matches_its_twin_and_a_float64_product(dtype, m, n, k):
    # K V with a few columns, K read once (the k-fold ridge's CG products); rows in
    # fours plus a tail of 0-3 rows
    rng = np.random.default_rng(m + k)
    K = rng.standard_normal((m, n)).astype(dtype)
    Vt = rng.standard_normal((k, n))
    got = C.matmat_t(K, Vt, np.full((k, m), np.nan), serial=False)
    want = R.matmat_t_ref(K, Vt, np.empty((k, m)))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())
    serial = C.matmat_t(K, Vt, np.full((k, m), np.nan), serial=True)
    np.testing.assert_array_equal(serial, got)  # the same loop body, one thread
    exact = np.array([[math.fsum(float(a) * b for a, b in zip(K[i], Vt[c])) for i in range(m)]
                      for c in range(k)])
    np.testing.assert_allclose(got, exact, rtol=1e-13, atol=1e-13 * np.abs(exact).max())


def test_matmat_t_propagates_nan_and_refuses_bad_shapes():
    K = np.ones((6, 6))
    K[2, 4] = np.nan
    got = C.matmat_t(K, np.ones((2, 6)), np.empty((2, 6)))
    assert np.isnan(got[:, 2]).all() and np.isfinite(np.delete(got, 2, axis=1)).all()
    with pytest.raises(ValueError, match="Vt must be a C-contiguous float64 array of shape"):
        C.matmat_t(K, np.ones((2, 5)), np.empty((2, 6)))
    with pytest.raises(ValueError, match="Ot must be"):
        C.matmat_t(K, np.ones((2, 6)), np.empty((3, 6)))
    with pytest.raises(ValueError, match="Vt must be"):
        C.matmat_t(K, np.ones((2, 6), dtype=np.float32), np.empty((2, 6)))
    with pytest.raises(ValueError, match="K must be C-contiguous"):
        C.matmat_t(np.ones((6, 12))[:, ::2], np.ones((2, 6)), np.empty((2, 6)))
    buf = np.zeros((8, 6))
    with pytest.raises(ValueError, match="Ot overlaps K or Vt"):
        C.matmat_t(buf[:6], np.ones((2, 6)), buf[4:6])


def test_matmat_t_off_the_main_thread_runs_serially_with_the_same_values():
    # several Python threads at once (numba's workqueue layer would abort on parallel
    # regions entered concurrently): the default runs the serial loop off the main thread
    import threading

    rng = np.random.default_rng(5)
    K = rng.standard_normal((1100, 1000))
    Vt = rng.standard_normal((3, 1000))
    want = C.matmat_t(K, Vt, np.empty((3, 1100)), serial=False)
    got = [np.empty((3, 1100)) for _ in range(4)]
    threads = [threading.Thread(target=C.matmat_t, args=(K, Vt, g)) for g in got]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for g in got:
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, k", [(1, 1), (5, 2), (13, 1), (37, 3), (66, 5), (70, 9)])
def test_symmetric_matmat_t_reads_the_lower_triangle_only(dtype, m, k):
    # K V for a symmetric K from its lower triangle (the k-fold ridge's CG): the upper
    # triangle holds garbage that must not be read; rows in fours plus singles, the
    # threads' row ranges at every split
    rng = np.random.default_rng(m * 7 + k)
    A = rng.standard_normal((m, m))
    S = (A + A.T).astype(dtype)
    K = S.copy()
    K[np.triu_indices(m, 1)] = np.nan  # never read
    Vt = rng.standard_normal((k, m))
    want = np.array([[math.fsum(float(a) * b for a, b in zip(S[i], Vt[c])) for i in range(m)]
                     for c in range(k)])
    got = C.symmetric_matmat_t(K, Vt, np.full((k, m), np.nan), serial=False)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())
    serial = C.symmetric_matmat_t(K, Vt, np.full((k, m), np.nan), serial=True)
    np.testing.assert_allclose(serial, want, rtol=1e-13, atol=1e-13 * np.abs(want).max())
    twin = R.symmetric_matmat_t_ref(K, Vt, np.empty((k, m)))
    np.testing.assert_allclose(got, twin, rtol=1e-13, atol=1e-13 * np.abs(want).max())


def test_symmetric_matmat_t_propagates_nan_and_refuses_bad_input():
    K = np.eye(6)
    K[4, 2] = np.nan  # lower triangle: row 4's sum and, mirrored, row 2's
    got = C.symmetric_matmat_t(K, np.ones((2, 6)), np.empty((2, 6)))
    assert np.isnan(got[:, [2, 4]]).all() and np.isfinite(np.delete(got, [2, 4], axis=1)).all()
    with pytest.raises(ValueError, match="K must be square"):
        C.symmetric_matmat_t(np.ones((6, 5)), np.ones((2, 5)), np.empty((2, 6)))
    with pytest.raises(ValueError, match="Vt must be"):
        C.symmetric_matmat_t(K, np.ones((2, 5)), np.empty((2, 6)))
    with pytest.raises(ValueError, match="Ot overlaps"):
        buf = np.zeros((8, 6))
        C.symmetric_matmat_t(buf[:6], np.ones((2, 6)), buf[4:6])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, k", [(1, 1), (3, 2), (63, 1), (64, 3), (65, 4), (130, 5),
                                  (200, 9)])
def test_cho_solve_t_solves_with_the_factor_s_memory(dtype, m, k):
    # (L L')^-1 R from a Fortran-order lower factor as LAPACK leaves it (U = L.T, a
    # view), the strict lower part of U holding garbage; blocks of 64 rows, 1-4 column
    # groups, both drivers; against the product check and scipy's float64 solves
    import scipy.linalg

    rng = np.random.default_rng(m + 100 * k)
    A = rng.standard_normal((m, m + 3))
    G = (A @ A.T / (m + 3) + np.eye(m)).astype(dtype)
    L = np.asfortranarray(G.copy())
    scipy.linalg.lapack.get_lapack_funcs("potrf", (L,))(L, lower=1, overwrite_a=1)
    L64 = np.tril(L.astype(np.float64))
    U = L.T
    assert U.flags.c_contiguous
    U[np.tril_indices(m, -1)] = np.nan  # L's strict upper part: never read
    Rt = rng.standard_normal((k, m))
    for serial in (False, True):
        got = C.cho_solve_t(U, Rt.copy(), serial=serial)
        np.testing.assert_allclose((L64 @ (L64.T @ got.T)).T, Rt, rtol=0, atol=1e-12 * m)
        twin = R.cho_solve_t_ref(U, Rt.copy())
        np.testing.assert_allclose(got, twin, rtol=1e-12, atol=1e-12 * np.abs(twin).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("m, k", [(1, 1), (3, 2), (63, 1), (65, 4), (130, 5), (200, 10)])
def test_tri_solve_t_solves_one_triangle_each_way(dtype, m, k):
    # L^-1 R (lower=True) and L'^-1 R (lower=False) with U = L' in C order, its strict
    # lower part garbage (never read); against the product check and the numpy twin
    rng = np.random.default_rng(m + 10 * k)
    U = np.triu(rng.standard_normal((m, m)) / m) + np.diag(rng.uniform(0.5, 2.0, m))
    U = U.astype(dtype)
    U64 = U.astype(np.float64)
    U[np.tril_indices(m, -1)] = np.nan
    Rt = rng.standard_normal((k, m))
    for lower, system in ((True, U64.T), (False, U64)):
        twin = R.tri_solve_t_ref(U, Rt.copy(), lower=lower)
        for serial in (False, True):
            got = C.tri_solve_t(U, Rt.copy(), lower=lower, serial=serial)
            np.testing.assert_allclose((system @ got.T).T, Rt, rtol=0, atol=1e-12 * m)
            np.testing.assert_allclose(got, twin, rtol=1e-12, atol=1e-12 * np.abs(twin).max())
    # the two one-way solves make the Cholesky solve
    both = C.tri_solve_t(U, C.tri_solve_t(U, Rt.copy(), lower=True), lower=False)
    np.testing.assert_allclose(both, C.cho_solve_t(U, Rt.copy()), rtol=1e-13,
                               atol=1e-13 * np.abs(both).max())


def test_tri_solve_t_refuses_bad_input():
    with pytest.raises(ValueError, match="U must be square"):
        C.tri_solve_t(np.ones((5, 4)), np.ones((2, 5)), lower=True)
    with pytest.raises(ValueError, match="Rt must be a writeable C-contiguous float64"):
        C.tri_solve_t(np.eye(5), np.ones((2, 5), dtype=np.float32), lower=False)
    with pytest.raises(ValueError, match="tri_solve_t: Rt overlaps U"):
        buf = np.ones(35)
        C.tri_solve_t(buf[:25].reshape(5, 5), buf[20:30].reshape(2, 5), lower=True)


def test_cho_solve_t_gives_inf_for_a_zero_pivot_and_refuses_bad_input():
    U = np.eye(5, dtype=np.float32)
    U[2, 2] = 0.0
    got = C.cho_solve_t(U, np.ones((2, 5)))
    assert not np.isfinite(got).all()
    with pytest.raises(ValueError, match="U must be square"):
        C.cho_solve_t(np.ones((5, 4)), np.ones((2, 5)))
    with pytest.raises(ValueError, match="Rt must be a writeable C-contiguous float64"):
        C.cho_solve_t(np.eye(5), np.ones((2, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="Rt must be"):
        C.cho_solve_t(np.eye(5), np.ones((5, 2)).T)
    with pytest.raises(ValueError, match="U must be C-contiguous"):
        C.cho_solve_t(np.asfortranarray(np.eye(5)) + np.triu(np.ones((5, 5)), 1).T, np.ones((2, 5)))


@pytest.mark.parametrize("serial", [False, True])
def test_cho_solve_t_with_a_block_that_is_not_a_multiple_of_four(serial):
    # the panels' single-row tail and the dots' 1-3-row remainder run only with a block
    # not a multiple of 4 (the default is 64): the private drivers with a block of 6
    import scipy.linalg

    from kernelkit._compiled import triangular

    rng = np.random.default_rng(11)
    m, k = 20, 5
    A = rng.standard_normal((m, m + 2))
    L = np.asfortranarray(A @ A.T / m + np.eye(m))
    scipy.linalg.lapack.dpotrf(L, lower=1, overwrite_a=1)
    U = L.T
    Rt = rng.standard_normal((k, m))
    got = (triangular._cho_solve_t_serial(U, Rt.copy(), 6) if serial
           else triangular._cho_solve_t(U, Rt.copy(), 6, 2))
    want = R.cho_solve_t_ref(U, Rt.copy())
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_symmetric_matmat_t_refuses_a_read_only_output():
    Ot = np.empty((1, 4))
    Ot.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        C.symmetric_matmat_t(np.eye(4), np.ones((1, 4)), Ot)
