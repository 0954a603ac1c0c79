"""The tiled Gram engine (kernels/tiled.py) against the row-block path, scikit-learn,
a brute-force loop and the numpy twins of its compiled tile loops."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit.kernels.tiled as tiled
from kernelkit import config_context, gram
from kernelkit._compiled import mirror_tile, rbf_tile
from kernelkit._compiled._reference import mirror_tile_ref, rbf_tile_ref
from kernelkit.kernels import RBF, Polynomial


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 37 x 23 on matrices of a few hundred rows: many tiles, ragged edges."""
    monkeypatch.setattr(tiled, "MIN_TILED_ENTRIES", 1)
    monkeypatch.setattr(tiled, "tile_shape", lambda d, m: (37, min(m, 23)))


def _row_block_path(kernel, X, Y=None, monkeypatch=None):
    monkeypatch.setattr(tiled, "MIN_TILED_ENTRIES", 1 << 62)
    try:
        return gram(kernel, X, Y)
    finally:
        monkeypatch.setattr(tiled, "MIN_TILED_ENTRIES", 1)


def _brute(X, Y, gamma):
    return np.array([[np.exp(-gamma * np.sum((x - y) ** 2)) for y in Y] for x in X])


@pytest.mark.parametrize("d", [3, 300])
def test_tiles_equal_row_blocks_sklearn_and_brute_force(small_tiles, monkeypatch, d):
    rng = np.random.default_rng(d)
    X, Y = rng.normal(2.0, 1.0, (211, d)), rng.normal(2.0, 1.0, (157, d))
    k = RBF(gamma=0.7 / d)
    K = gram(k, X, Y)
    np.testing.assert_allclose(K, _row_block_path(k, X, Y, monkeypatch), rtol=0, atol=1e-14)
    np.testing.assert_allclose(K, rbf_kernel(X, Y, gamma=0.7 / d), rtol=0, atol=1e-13)
    np.testing.assert_allclose(K[:20, :15], _brute(X[:20], Y[:15], 0.7 / d), rtol=0, atol=1e-13)


def test_symmetric_tiles_are_exactly_symmetric_with_unit_diagonal(small_tiles, monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(5.0, 1.0, (203, 4))
    K = gram(RBF(gamma=0.3), X)
    assert np.array_equal(K, K.T)
    assert np.array_equal(np.diag(K), np.ones(len(X)))
    np.testing.assert_allclose(K, _row_block_path(RBF(gamma=0.3), X, None, monkeypatch),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=0.3), rtol=0, atol=1e-13)


def test_repeated_rows_as_in_the_row_block_path(small_tiles, monkeypatch):
    X = np.repeat(np.random.default_rng(2).normal(size=(40, 3)), 3, axis=0)
    K = gram(RBF(gamma=2.0), X)
    np.testing.assert_allclose(K, _row_block_path(RBF(gamma=2.0), X, None, monkeypatch),
                               rtol=0, atol=1e-15)
    same = np.equal.outer(np.arange(120) // 3, np.arange(120) // 3)
    assert K.max() <= 1.0 and np.all(K[same] > 1 - 1e-14)  # distances clamped at 0


def test_float32_output_rounds_float64_values(small_tiles):
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(120, 6)).astype(np.float32), rng.normal(size=(90, 6)).astype(np.float32)
    with config_context(dtype="float32"):
        K32, S32 = gram(RBF(gamma=0.4), X, Y), gram(RBF(gamma=0.4), X)
    K64 = gram(RBF(gamma=0.4), X, Y)
    assert K32.dtype == np.float32 and S32.dtype == np.float32
    np.testing.assert_array_equal(K32, K64.astype(np.float32))
    assert np.array_equal(S32, S32.T)


def test_one_thread_gives_the_same_matrix(small_tiles, monkeypatch):
    X = np.random.default_rng(4).normal(size=(150, 5))
    two = gram(RBF(gamma=0.5), X)
    monkeypatch.setattr(tiled, "_threads", lambda: 1)
    np.testing.assert_array_equal(gram(RBF(gamma=0.5), X), two)


def test_progress_reaches_all_rows(small_tiles):
    X = np.random.default_rng(5).normal(size=(100, 3))
    seen = []
    out = np.empty((100, 100))
    Xp, Yp = RBF(gamma=1.0).prepare(X)
    assert tiled.tiled_gram(RBF(gamma=1.0), Xp, Yp, out, symmetric=True,
                            on_block=lambda done, n: seen.append((done, n)))
    assert seen[-1] == (100, 100) and all(a <= b for (a, _), (b, _) in zip(seen, seen[1:]))


def test_progress_on_one_thread_reaches_all_rows(small_tiles, monkeypatch):
    monkeypatch.setattr(tiled, "_threads", lambda: 1)
    X = np.random.default_rng(5).normal(size=(100, 3))
    seen = []
    Xp, Yp = RBF(gamma=1.0).prepare(X)
    assert tiled.tiled_gram(RBF(gamma=1.0), Xp, Yp, np.empty((100, 100)), symmetric=False,
                            on_block=lambda done, n: seen.append(done))
    assert seen[-1] == 100 and seen == sorted(seen) and len(seen) > 1


def test_an_error_in_a_tile_reaches_the_caller(small_tiles):
    X = np.random.default_rng(6).normal(size=(100, 3))
    Xp, Yp = RBF(gamma=1.0).prepare(X)

    def check(tile):
        raise FloatingPointError("tile check")

    with pytest.raises(FloatingPointError, match="tile check"):
        tiled.tiled_gram(RBF(gamma=1.0), Xp, Yp, np.empty((100, 100)), symmetric=False,
                         check=check)


def test_kernels_without_tiles_and_sparse_rows_keep_the_row_block_path(small_tiles):
    import scipy.sparse as sp

    X = np.random.default_rng(7).normal(size=(60, 4))
    k = Polynomial(degree=2, gamma=1.0)
    assert not tiled.tiled_gram(k, *k.prepare(X), np.empty((60, 60)), symmetric=True)
    Xs = sp.random(60, 30, density=0.2, format="csr", random_state=0)
    r = RBF(gamma=0.1)
    assert not tiled.tiled_gram(r, *r.prepare(Xs), np.empty((60, 60)), symmetric=True)
    np.testing.assert_allclose(gram(r, Xs), rbf_kernel(Xs, gamma=0.1), rtol=0, atol=1e-13)


def test_overflowing_rows_use_the_scaled_row_block_path(small_tiles, monkeypatch):
    X = np.array([[1e155, 0.0], [1e155, 1e154], [0.0, 0.0]])
    r = RBF(gamma=1e-308)
    assert r._tile_values(*r.prepare(X)) is None  # ||x||^2 would overflow
    K = gram(r, X)
    assert np.isfinite(K).all()
    np.testing.assert_array_equal(K, _row_block_path(r, X, None, monkeypatch))


# ---- the compiled tile loops against their numpy twins ----------------------

@pytest.mark.parametrize("layout, out_dtype", [
    ("strided", np.float64), ("strided", np.float32), ("contiguous", np.float64),
    ("contiguous", np.float32), ("in_place", np.float64)])  # in place: out is G, float64
@pytest.mark.parametrize("diag_offset", [-1, 0, 3])
def test_rbf_tile_matches_twin(layout, out_dtype, diag_offset):
    """Each of rbf_tile's three loops (views through a buffer, contiguous rows, in place)."""
    rng = np.random.default_rng(8)
    big = rng.normal(size=(12, 20))
    G = big[2:9, 4:15] if layout == "strided" else np.ascontiguousarray(big[2:9, 4:15])
    xx, yy = rng.uniform(1, 3, 7), rng.uniform(1, 3, 11)
    ref = rbf_tile_ref(G, xx, yy, 0.3, diag_offset, np.empty((7, 11), out_dtype))
    if layout == "strided":
        out = np.zeros((12, 20), out_dtype)[2:9, 4:15]
    elif layout == "contiguous":
        out = np.zeros((7, 11), out_dtype)
    else:
        out = G
    rbf_tile(G, xx, yy, 0.3, diag_offset, out)
    np.testing.assert_allclose(out, ref, rtol=1e-15 if out_dtype == np.float64 else 1e-7)
    if diag_offset >= 0:
        assert all(out[i, i + diag_offset] == 1.0 for i in range(7) if i + diag_offset < 11)


def test_rbf_tile_clamps_and_keeps_nan():
    G = np.array([[2.0, np.nan, 0.5]])
    out = rbf_tile(G.copy(), np.array([1.0]), np.array([1.0, 1.0, 1.0]), 1.0, -1,
                   np.empty((1, 3)))
    assert out[0, 0] == 1.0 and np.isnan(out[0, 1]) and out[0, 2] == pytest.approx(np.exp(-1.0))


@pytest.mark.parametrize("tile", [(70, 140, 0, 70), (70, 140, 70, 140), (130, 150, 10, 129),
                                  (0, 150, 0, 150)])
def test_mirror_tile_matches_twin(tile):
    K = np.random.default_rng(9).normal(size=(150, 150))
    ref = K.copy()
    mirror_tile(K, *tile)
    mirror_tile_ref(ref, *tile)
    np.testing.assert_array_equal(K, ref)


def test_mirror_tile_refuses_a_tile_outside():
    with pytest.raises(ValueError, match="inside"):
        mirror_tile(np.zeros((5, 5)), 0, 6, 0, 5)


def test_small_rbf_blocks_on_one_thread_equal_the_parallel_loop(monkeypatch):
    """RBF blocks under SERIAL_BLOCK_ENTRIES use the single-thread tile loop (SMO's rows)."""
    import kernelkit.kernels.rbf as rbf
    from kernelkit.kernels import KernelRows

    rng = np.random.default_rng(10)
    X = rng.normal(size=(300, 7))
    rows = KernelRows(RBF(gamma=0.2), X)
    index = rng.choice(300, 40, replace=False)
    serial = rows.rows(index)
    block32 = np.empty((40, 300), np.float32)
    serial32 = rows.rows(index, out=block32).copy()
    monkeypatch.setattr(rbf, "SERIAL_BLOCK_ENTRIES", 0)  # every block in parallel
    np.testing.assert_allclose(serial, rows.rows(index), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(serial32, rows.rows(index, out=block32))
    np.testing.assert_allclose(serial, rbf_kernel(X[index], X, gamma=0.2), rtol=0, atol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rectangular_row_blocks_use_tiles_with_the_same_values(small_tiles, monkeypatch, dtype):
    """KernelRows.block of a rectangular K (GramOperator's blocks: Falkon's K_nM) goes
    through the tiles; float32 blocks are the RBF float32 fast path's values."""
    from kernelkit.kernels import KernelRows

    rng = np.random.default_rng(11)
    X, C = rng.normal(1.0, 1.0, (230, 12)), rng.normal(1.0, 1.0, (90, 12))
    rows = KernelRows(RBF(gamma=0.08), X, C, dtype=dtype)
    calls = []
    real = tiled.tiled_gram
    monkeypatch.setattr(tiled, "tiled_gram", lambda *a, **k: calls.append(1) or real(*a, **k))
    out = np.empty((150, 90), dtype)
    tiles = rows.block(40, 190, out=out).copy()
    assert calls  # the tiles did the work
    monkeypatch.setattr(tiled, "MIN_TILED_ENTRIES", 1 << 62)
    plain = rows.block(40, 190, out=np.empty((150, 90), dtype))
    if dtype == np.float64:
        np.testing.assert_allclose(tiles, plain, rtol=0, atol=1e-15)
    else:  # float32 products: single-thread tiles vs one multi-threaded SGEMM
        np.testing.assert_allclose(tiles, plain, rtol=0, atol=2e-6)
    np.testing.assert_allclose(tiles, rbf_kernel(X[40:190], C, gamma=0.08), rtol=0,
                               atol=1e-13 if dtype == np.float64 else 1e-5)


def test_worker_threads_run_their_tiles_on_one_blas_thread(small_tiles, monkeypatch):
    """With a BLAS whose limit is per thread (OpenBLAS on OpenMP, faked here), the
    caller's block does not reach the pool's threads: each worker limits itself."""
    import threading

    import kernelkit.linalg as linalg

    class PerThreadPool:  # omp_set_num_threads: one count per thread, 4 by default
        internal_api, threading_layer = "openblas", "openmp"
        _local = threading.local()

        def get_num_threads(self):
            return getattr(self._local, "n", 4)

        def set_num_threads(self, n):
            self._local.n = n

    pool = PerThreadPool()
    monkeypatch.setattr(linalg, "_pools", linalg._split_pools([pool]))
    monkeypatch.setattr(tiled, "_threads", lambda: 2)
    seen = []

    def check(tile):
        seen.append((threading.current_thread().name, pool.get_num_threads()))

    X = np.random.default_rng(7).normal(size=(120, 3))
    Xp, Yp = RBF(gamma=1.0).prepare(X)
    K = np.empty((120, 120))
    tiled.tiled_gram(RBF(gamma=1.0), Xp, Yp, K, symmetric=False, check=check)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=1.0), rtol=0, atol=1e-14)
    assert any(name.startswith("kernelkit-gram") for name, _ in seen)
    assert all(n == 1 for _, n in seen)
    assert pool.get_num_threads() == 4  # the caller's count restored
