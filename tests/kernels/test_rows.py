"""The block API of kernels (prepare, block, diag_prepared) and KernelRows, against
Gram matrices computed by kernel(X, Y) and brute force."""

import pathlib
import re

import numpy as np
import pytest

from kernelkit.kernels import (RBF, KernelRows, Laplacian, Linear, Polynomial, Spectrum,
                               Subsequence)
from kernelkit.testing import check_kernel

KERNELS = [RBF(gamma=0.3), Laplacian(gamma=0.5), Polynomial(degree=2, gamma=1.0), RBF(0.2) + 0.5 * Linear(),
           2.0 * Laplacian(0.1) * RBF(0.4)]


def _data(n=23, m=9, d=3, seed=0, offset=4.0):
    rng = np.random.default_rng(seed)
    # off-centre data: RBF's prepare centres it (float64 and float32 paths alike)
    return rng.standard_normal((n, d)) + offset, rng.standard_normal((m, d)) + offset


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_blocks_rows_and_diag_are_submatrices(kernel):
    X, Y = _data()
    K, C = kernel(X), kernel(X, Y)
    rows = KernelRows(kernel, X)
    assert rows.shape == (23, 23) and rows.symmetric and rows.Y is rows.X
    # equal up to round-off: a matrix product's bits depend on the block's shape
    close = dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np.vstack([rows.block(0, 5), rows.block(5, 23)]), K, **close)
    np.testing.assert_allclose(rows.block(5, 12, lower=True), K[5:12, :12], **close)
    idx, cols = np.array([7, 0, 22]), np.array([3, 3, 19])
    np.testing.assert_allclose(rows.rows(idx, cols), K[np.ix_(idx, cols)], **close)
    np.testing.assert_allclose(rows.rows(slice(2, 4)), K[2:4], **close)
    np.testing.assert_array_equal(rows.diag(), kernel.diag(X))
    cross = KernelRows(kernel, X, Y)
    assert cross.shape == (23, 9) and not cross.symmetric
    np.testing.assert_allclose(np.vstack([cross.block(0, 11), cross.block(11, 23)]), C, **close)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_block_is_a_pure_function_of_its_rows(kernel):
    X, _ = _data()
    rows = KernelRows(kernel, X)
    first = rows.block(3, 9)
    for r0, r1 in [(0, 23), (9, 15), (0, 3)]:
        rows.block(r0, r1)
    np.testing.assert_array_equal(rows.block(3, 9), first)
    # the same rows from the kernel's own methods, into out or allocated
    Xp, Yp = kernel.prepare(X)
    assert Yp is Xp
    out = np.full((6, 23), np.nan)
    assert kernel.block(Xp[3:9], Yp, 3, out=out) is out
    np.testing.assert_array_equal(out, first)
    np.testing.assert_array_equal(kernel.block(Xp[3:9], Yp, 3), first)
    np.testing.assert_array_equal(kernel.diag_prepared(Xp), kernel.diag(X))


def test_rbf_exact_diagonal_only_where_told():
    X, _ = _data()
    Xp, Yp = RBF(0.7).prepare(X)
    assert (np.diagonal(RBF(0.7).block(Xp, Yp, 0)) == 1.0).all()
    assert np.diagonal(RBF(0.7).block(Xp[4:], Yp, 4)[:, 4:]).tolist() == [1.0] * 19


def _legacy_rbf32(X, C, gamma):
    """The float32 K_nM of Falkon before the block API: centre on C's mean in
    float64, round, float32 GEMM, float64 norms, exp (written out here)."""
    shift = C.mean(axis=0)
    Xc, Cc = (X - shift).astype(np.float32), (C - shift).astype(np.float32)
    G = (Xc @ Cc.T).astype(np.float64)
    xx = np.einsum("ij,ij->i", Xc, Xc, dtype=np.float64)
    cc = np.einsum("ij,ij->i", Cc, Cc, dtype=np.float64)
    return np.exp(-gamma * np.maximum(xx[:, None] + cc[None, :] - 2 * G, 0.0))


def test_rbf_float32_fast_path_is_a_centred_float32_product():
    X, C = _data(n=200, m=40, d=6, offset=30.0)
    rows = KernelRows(RBF(gamma=0.05), X, C, dtype=np.float32)
    assert rows.X.dtype == rows.Y.dtype == np.float32
    np.testing.assert_allclose(rows.X.mean(axis=0), X.mean(axis=0) - C.mean(axis=0), atol=1e-4)
    block = rows.block(0, 200)
    assert block.dtype == np.float32
    np.testing.assert_allclose(block, _legacy_rbf32(X, C, 0.05), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(block, RBF(gamma=0.05)(X, C), rtol=0, atol=1e-5)
    # a float64 out holds the same float32-computed values
    out = np.empty((200, 40))
    rows.block(0, 200, out=out)
    np.testing.assert_array_equal(out, block.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rbf_float32_rows_are_centred_in_float64_then_rounded(monkeypatch, dtype):
    # prepared by row chunks (forced here to 7 rows each): the same numbers as the
    # whole-array formula, for X and for C, and X with itself gives two equal arrays
    import kernelkit.kernels.rbf as rbf

    monkeypatch.setattr(rbf, "_CENTRE_CHUNK_BYTES", 7 * 8 * 6)
    X, C = _data(n=53, m=17, d=6, offset=30.0)
    X, C = X.astype(dtype), C.astype(dtype)
    rows = KernelRows(RBF(gamma=0.05), X, C, dtype=np.float32)
    shift = np.asarray(C, np.float64).mean(axis=0)
    np.testing.assert_array_equal(rows.X, (np.asarray(X, np.float64) - shift).astype(np.float32))
    np.testing.assert_array_equal(rows.Y, (np.asarray(C, np.float64) - shift).astype(np.float32))
    square = KernelRows(RBF(gamma=0.05), C, C, dtype=np.float32)
    assert square.X is not square.Y
    np.testing.assert_array_equal(square.X, square.Y)
    np.testing.assert_array_equal(square.X, rows.Y)


def test_rbf_float32_rows_too_large_for_float32_products_take_the_float64_path(monkeypatch):
    # centred entries of 1e20 and ~8e16: float32 products could reach 3.4e38 (inf -
    # inf); the bound d max|x| max|y| is checked on the float64 values, whichever
    # chunk holds them (chunks of 7 rows here: the large entries sit in middle ones)
    import kernelkit.kernels.rbf as rbf

    monkeypatch.setattr(rbf, "_CENTRE_CHUNK_BYTES", 7 * 8 * 3)
    X, C = _data(n=30, m=20, d=3)
    X[17, 1], C[9, 0] = 1e20, 1e17
    rows = KernelRows(RBF(gamma=1e-40), X, C, dtype=np.float32)
    assert rows.X.dtype == np.float64
    assert np.isfinite(rows.block(0, 30)).all()


def test_rbf_float32_rows_whose_shift_is_not_finite_take_the_float64_path():
    # a column of +-1e308 sums to inf - inf: no float32 rows centred by a NaN shift
    # (RBF's blocks are not checked, their values being proven in [0, 1])
    C = np.r_[np.full(128, 1e308), np.full(128, -1e308)][:, None]
    X = np.array([[1e308], [0.0], [-1e308]])
    rows = KernelRows(RBF(gamma=1e-300), X, C, dtype=np.float32)
    assert rows.X.dtype == np.float64
    block = rows.block(0, 3)
    assert np.isfinite(block).all()
    np.testing.assert_array_equal(block, RBF(gamma=1e-300)(X, C).astype(np.float32))


@pytest.mark.parametrize("kernel", [Laplacian(0.3), Polynomial(2, 1.0), RBF(0.3) + Linear()], ids=repr)
def test_float32_without_fast_path_rounds_float64_values(kernel):
    X, C = _data()
    rows = KernelRows(kernel, X, C, dtype=np.float32)
    assert rows.X.dtype == np.float64  # nothing prepared in float32: computed in float64
    np.testing.assert_array_equal(rows.block(0, 23), kernel(X, C).astype(np.float32))


def test_string_kernels_through_kernel_rows():
    S = ["acgtac", "gattaca", "ac", "tttt", "cgcgat"]
    for kernel in (Spectrum(k=2), Subsequence(p=2)):
        K = kernel(S)
        rows = KernelRows(kernel, kernel.check_input(S))
        np.testing.assert_allclose(rows.block(1, 4), K[1:4], rtol=1e-12)
        np.testing.assert_allclose(rows.rows([4, 0], [2]), K[[4, 0]][:, [2]], rtol=1e-12)
        np.testing.assert_allclose(rows.diag(), np.diagonal(K), rtol=1e-12)


def test_check_kernel_catches_a_wrong_float32_block(monkeypatch):
    X = np.random.default_rng(0).standard_normal((20, 3))
    check_kernel(RBF(gamma=0.5), X)
    fast_path = RBF._prepare_float32

    def forgets_to_centre_y_like_x(self, X, Y):
        Xc, Yc = fast_path(self, X, Y)
        return Xc, (Yc + 0.5).astype(np.float32)

    monkeypatch.setattr(RBF, "_prepare_float32", forgets_to_centre_y_like_x)
    with pytest.raises(AssertionError, match="float32 blocks"):
        check_kernel(RBF(gamma=0.5), X)


def test_no_module_outside_kernels_calls_a_private_hook():
    src = pathlib.Path(__file__).resolve().parents[2] / "src" / "kernelkit"
    hook = re.compile(r"\._(prepare|prepare_float32|block|block_into|diag)\(")
    offenders = [f"{p.relative_to(src)}:{i}" for p in src.rglob("*.py")
                 if "kernels" not in p.relative_to(src).parts[:1]
                 for i, line in enumerate(p.read_text().splitlines(), 1) if hook.search(line)]
    assert offenders == []


def test_float32_block_of_x_with_itself_rounds_like_a_cross_block():
    # numpy sends A @ A.T to SYRK, whose rounding differs from GEMM's; Falkon's
    # float32 K(C, C) must equal the K_nM blocks of the same points, bit for bit.
    import numpy as np

    from kernelkit.kernels import RBF, KernelRows

    rng = np.random.default_rng(3)
    C = rng.random((300, 784)).astype(np.float32)
    same = KernelRows(RBF(gamma=3.0), C, C, dtype=np.float32).block(0, len(C))
    cross = KernelRows(RBF(gamma=3.0), C, C.copy(), dtype=np.float32).block(0, len(C))
    np.testing.assert_array_equal(same, cross)
