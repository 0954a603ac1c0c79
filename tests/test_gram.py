"""The Gram engine: gram(), blocking within the memory budget, the float32 policy and
the GramOperator (matvec/matmat/shift/cache) against dense matrices."""

import numpy as np
import pytest
from scipy.sparse.linalg import cg

import kernelkit
from kernelkit import GramOperator, config_context, gram
from kernelkit.kernels import RBF, Laplacian, Linear, Polynomial, Power, Warped
from kernelkit._budget import rows_per_block
from kernelkit.exceptions import InvalidParameterError, MemoryBudgetError
from kernelkit.planning import operator_store_choice


def _data(n=30, m=20, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((m, d))


@pytest.mark.parametrize("kernel", [RBF(0.3), Laplacian(0.5), Polynomial(2), Linear()],
                         ids=repr)
def test_gram_equals_kernel_call(kernel):
    X, Y = _data()
    np.testing.assert_array_equal(gram(kernel, X), kernel(X))
    np.testing.assert_array_equal(gram(kernel, X, Y), kernel(X, Y))
    np.testing.assert_array_equal(gram(repr(kernel), X, Y), kernel(X, Y))


def test_gram_expression_string():
    X, _ = _data()
    np.testing.assert_allclose(gram("rbf(gamma=0.5) + 0.1*poly(degree=3)", X),
                               RBF(0.5)(X) + 0.1 * Polynomial(3)(X), rtol=1e-12)


def test_rows_per_block():
    assert rows_per_block(1000, memory=16_000) == 1
    assert rows_per_block(10, memory=1600) == 10
    assert rows_per_block(10**9, memory=10) == 1
    with config_context(memory="16MB"):
        assert rows_per_block(100) == (16 * 1024**2 // 8) // (100 * 8 * 2)


@pytest.mark.parametrize("kernel", [RBF(0.3), Laplacian(0.5), Polynomial(2) + RBF()], ids=repr)
def test_blocked_equals_unblocked(kernel):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((700, 3))
    Y = rng.standard_normal((650, 3))
    with config_context(memory="16MB"):
        assert rows_per_block(700) * 3 < 700  # several blocks really happen
        K_small = gram(kernel, X)
        C_small = gram(kernel, X, Y)
    with config_context(memory="8GB"):
        assert rows_per_block(700) >= 700
        K_big = gram(kernel, X)
        C_big = gram(kernel, X, Y)
    np.testing.assert_allclose(K_small, K_big, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(C_small, C_big, rtol=1e-12, atol=1e-14)
    if isinstance(kernel, RBF):
        assert (np.diagonal(K_small) == 1.0).all()


def test_dtype_policy_default_float64():
    X, _ = _data()
    assert gram(RBF(), X.astype(np.float32)).dtype == np.float64
    assert gram(RBF(), X).dtype == np.float64
    with config_context(dtype="float32"):
        assert gram(RBF(), X).dtype == np.float64  # float64 input stays float64


@pytest.mark.parametrize("kernel", [RBF(0.3), Linear(), Laplacian()], ids=repr)
def test_dtype_policy_float32(kernel):
    X, Y = _data()
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    with config_context(dtype="float32"):
        K = gram(kernel, X32)
        C = gram(kernel, X32, Y32)
    assert K.dtype == np.float32 and C.dtype == np.float32
    np.testing.assert_allclose(K, gram(kernel, X32.astype(np.float64)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(C, gram(kernel, X32, Y32), rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------- GramOperator
def _cache(setting, n, m):
    """The operator's ``cache``: a plain bool, or the planner's decision for n x m."""
    return operator_store_choice(n, m) if setting == "planned" else setting


@pytest.mark.parametrize("cache", [False, True, "planned"])
@pytest.mark.parametrize("memory", ["16MB", "1GB"])
def test_operator_against_dense(cache, memory):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((500, 3))
    Y = rng.standard_normal((450, 3))
    k = RBF(0.5)
    K, C = k(X), k(X, Y)
    v, V = rng.standard_normal(500), rng.standard_normal((500, 3))
    w, W = rng.standard_normal(450), rng.standard_normal((450, 2))
    with config_context(memory=memory):
        op = GramOperator(k, X, cache=_cache(cache, 500, 500))
        assert op.shape == (500, 500) and op.dtype == np.float64
        for _ in range(2):  # the second product uses the cache when there is one
            np.testing.assert_allclose(op.matvec(v), K @ v, rtol=1e-11, atol=1e-11)
            np.testing.assert_allclose(op.matmat(V), K @ V, rtol=1e-11, atol=1e-11)
            np.testing.assert_allclose(op @ v, K @ v, rtol=1e-11, atol=1e-11)
        shifted = GramOperator(k, X, shift=0.7, cache=_cache(cache, 500, 500))
        np.testing.assert_allclose(shifted.matmat(V), K @ V + 0.7 * V, rtol=1e-11, atol=1e-11)
        rect = GramOperator(k, X, Y, cache=_cache(cache, 500, 450))
        assert rect.shape == (500, 450)
        np.testing.assert_allclose(rect.matvec(w), C @ w, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(rect @ W, C @ W, rtol=1e-11, atol=1e-11)


def test_operator_follows_the_planned_cache_which_depends_on_budget():
    X, _ = _data(n=300)
    with config_context(memory="16MB"):
        op = GramOperator(RBF(gamma=1.0), X, cache=operator_store_choice(300, 300))
        op.matvec(np.ones(300))
        assert op._K is not None  # 300^2 * 8 bytes = 0.7 MB <= 8 MB
    X = np.random.default_rng(0).standard_normal((1100, 2))
    with config_context(memory="16MB"):
        op = GramOperator(RBF(gamma=1.0), X, cache=operator_store_choice(1100, 1100))
        op.matvec(np.ones(1100))
        assert op._K is None  # 9.7 MB > 8 MB


def test_operator_does_not_ask_the_planner():
    # "auto" would be a decision made inside the operator: refused, naming the planner's
    # function that makes it
    X, _ = _data()
    with pytest.raises(InvalidParameterError, match=r"planning\.operator_store_choice"):
        GramOperator(RBF(gamma=1.0), X, cache="auto")
    # a forced store must fit the memory budget, checked before anything is allocated
    with config_context(memory="16MB"), pytest.raises(MemoryBudgetError, match="cache=False"):
        GramOperator(RBF(gamma=1.0), np.zeros((1500, 1)), cache=True)


def test_operator_with_scipy_cg():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 3))
    y = rng.standard_normal(200)
    lam = 0.5
    op = GramOperator(RBF(0.4), X, shift=lam)
    x, info = cg(op.aslinearoperator(), y, rtol=1e-12, atol=0, maxiter=1000)
    assert info == 0
    expected = np.linalg.solve(RBF(0.4)(X) + lam * np.eye(200), y)
    np.testing.assert_allclose(x, expected, rtol=1e-8, atol=1e-9)


def test_operator_errors():
    X, Y = _data()
    with pytest.raises(ValueError, match="square"):
        GramOperator(RBF(gamma=1.0), X, Y, shift=1.0)
    op = GramOperator(RBF(gamma=1.0), X)
    with pytest.raises(ValueError, match="1-D"):
        op.matvec(np.ones((30, 1, 1)))
    with pytest.raises(ValueError, match="shape"):
        op.matmat(np.ones((29, 2)))
    with pytest.raises(ValueError, match="shape"):
        op.matvec(np.ones(31))


def test_operator_cache_not_poisoned_by_a_failed_product():
    # the first product fails half-way; the second must fail again (or be right),
    # never return products with the uninitialised cache
    X = np.random.default_rng(0).standard_normal((50, 3))
    op = GramOperator(Power(Linear(), 0.5), X, cache=True)
    for _ in range(2):
        with pytest.raises(ValueError, match="integer exponent"):
            op.matvec(np.ones(50))


# ----------------------------------------------------------------- input errors
def test_input_errors():
    X, Y = _data()
    with pytest.raises(ValueError, match="features"):
        gram(RBF(), X, Y[:, :3])
    with pytest.raises(ValueError, match="reshape"):
        gram(RBF(), X[:, 0])
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="row=3, column=2"):
        gram(RBF(), Xn)
    with pytest.raises(ValueError, match="NaN"):
        gram(RBF(), X, Xn)
    with pytest.raises(TypeError, match="strings"):
        gram(RBF(), ["abc", "de"])
    with pytest.raises(ValueError, match="features"):
        GramOperator(RBF(gamma=1.0), X, Y[:, :2])
    with pytest.raises(TypeError, match="expression string"):
        gram(42, X)
    with pytest.raises(kernelkit.KernelSpecError):
        gram("rbf(gamma=", X)


def test_warped_in_blocks():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((700, 2))
    k = Warped(RBF(), lambda Z: 1.0 + Z[:, 0] ** 2)
    with config_context(memory="16MB"):
        K = gram(k, X)
    f = 1.0 + X[:, 0] ** 2
    np.testing.assert_allclose(K, f[:, None] * RBF()(X) * f[None, :], rtol=1e-12)


# ----------------------------------------------------------------- one operator for K(X, Y)
@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("block_dtype", [np.float64, np.float32])
def test_operator_gram_matmat_against_dense(cache, block_dtype):
    rng = np.random.default_rng(7)
    X, C = rng.standard_normal((300, 4)) + 2.0, rng.standard_normal((25, 4)) + 2.0
    sw, V = rng.uniform(0.1, 3.0, 300), rng.standard_normal((25, 3))
    Yt = rng.standard_normal((300, 2))
    for kernel in (RBF(0.4), Laplacian(0.3), RBF(0.2) + Linear()):
        K = gram(kernel, X, C)  # the dense reference
        tol = 1e-12 if block_dtype == np.float64 else 1e-5
        with config_context(memory="16MB"):
            op = GramOperator(kernel, X.astype(block_dtype), C.astype(block_dtype), cache=cache,
                              block_dtype=block_dtype, sample_weight=sw)
        op.block_rows = 29  # several blocks, the last one shorter
        assert op.shape == (300, 25) and op.dtype == np.float64 and op.block_dtype == block_dtype
        for _ in range(2):  # the second pass reads the store when there is one
            KtSKV, KtSY = op.gram_matmat(V, Yt)
            ref = K.T @ (sw[:, None] * (K @ V))
            np.testing.assert_allclose(KtSKV, ref, atol=tol * np.abs(ref).max())
            ref_y = K.T @ (sw[:, None] * Yt)
            np.testing.assert_allclose(KtSY, ref_y, atol=tol * np.abs(ref_y).max())
            np.testing.assert_allclose(op.gram_matmat(V), ref, atol=tol * np.abs(ref).max())
            np.testing.assert_allclose(op.matmat(V), K @ V, atol=tol * np.abs(K @ V).max())
        assert (op._K is not None) == cache
        assert op._K is None or op._K.dtype == block_dtype


def test_operator_store_choice_keeps_the_half_budget_threshold():
    # 16 MB budget: a stored K may take 8 MB = 1,048,576 float64 entries.
    def operator(n, cache, dtype=np.float64):
        return GramOperator(RBF(gamma=1.0), np.zeros((n, 1)), np.zeros((1024, 1)), cache=cache,
                            block_dtype=dtype)

    with config_context(memory="16MB"):
        fits = operator(1024, operator_store_choice(1024, 1024))
        over = operator(1025, operator_store_choice(1025, 1024))
        half = operator(1025, operator_store_choice(1025, 1024, itemsize=4), np.float32)
        forced = operator(1025, operator_store_choice(1025, 1024, setting=True))
        plain = operator(1025, True)
        never = GramOperator(RBF(gamma=1.0), np.zeros((3, 1)))
    assert fits.store_choice.value is True and over.store_choice.value is False
    assert half.store_choice.value is True  # float32 blocks: half the bytes
    assert (fits.stores, over.stores, half.stores) == (True, False, True)
    assert "8 MB <=" in fits.store_choice.reason and ">" in over.store_choice.reason
    assert forced.store_choice.value is True and "forced" in forced.store_choice.reason
    assert plain.stores and plain.store_choice is None  # no decision was made: none recorded
    assert not never.stores and never.store_choice is None
    assert "kernel matrix (1025 x 1024)" in str(over.store_choice)


def test_kernel_matmat_is_the_operator_product():
    from kernelkit.gram import kernel_matmat

    rng = np.random.default_rng(8)
    X, C = rng.standard_normal((120, 3)), rng.standard_normal((15, 3))
    coef = rng.standard_normal((15, 2))
    K = gram(RBF(0.5), X, C)
    np.testing.assert_allclose(kernel_matmat(RBF(0.5), X, C, coef), K @ coef, rtol=1e-12,
                               atol=1e-12)
    out = kernel_matmat("rbf(gamma=0.5)", X, C, coef[:, 0])
    assert out.shape == (120,)
    np.testing.assert_allclose(out, K @ coef[:, 0], rtol=1e-12, atol=1e-12)
    out32 = kernel_matmat(RBF(0.5), X.astype(np.float32), C.astype(np.float32), coef,
                          dtype=np.float32)
    assert out32.dtype == np.float64
    np.testing.assert_allclose(out32, K @ coef, atol=1e-5 * np.abs(K @ coef).max())


@pytest.mark.parametrize("kernel, tiled", [("rbf(gamma=0.5)", True),
                                           ("laplacian(gamma=0.5)", False)])
def test_tiled_blocks_are_computed_in_chunks_and_yielded_as_the_same_blocks(monkeypatch, kernel,
                                                                            tiled):
    # A store filled by tiles is computed in chunks of whole blocks (here 4 x 333 rows)
    # and yielded block by block: the same row ranges and values as one call per block;
    # so is the reused buffer (n_temporaries = 2 blocks); a kernel without tiles keeps
    # one call per block (its temporaries are block-sized). The tiled engine is made to
    # take these small blocks.
    import importlib

    monkeypatch.setattr(importlib.import_module("kernelkit.gram"), "STORED_TILED_ROWS", 1000)
    tiled_module = importlib.import_module("kernelkit.kernels.tiled")
    monkeypatch.setattr(tiled_module, "MIN_TILED_ENTRIES", 1 << 12)
    engine, engine_rows = tiled_module.tiled_gram, []

    def counted(kernel, X, Y, out, **kw):
        done = engine(kernel, X, Y, out, **kw)
        if done:
            engine_rows.append(len(out))
        return done

    monkeypatch.setattr(tiled_module, "tiled_gram", counted)
    rng = np.random.default_rng(0)
    X, C = rng.random((5000, 30)).astype(np.float32), rng.random((700, 30)).astype(np.float32)
    stored = GramOperator(kernel, X, C, cache=True, block_dtype=np.float32)
    plain = GramOperator(kernel, X, C, cache=False, block_dtype=np.float32)
    stored.block_rows = plain.block_rows = 333
    assert stored.rows.tiles_every_block() is tiled
    # one call per block, as the blocks were computed before chunks
    want = [(r0, min(r0 + 333, 5000), plain.rows.block(r0, min(r0 + 333, 5000)))
            for r0 in range(0, 5000, 333)]
    assert engine_rows == ([333] * 15 if tiled else [])  # the last 5 rows: too few
    for op, chunks in ((stored, [1332, 1332, 1332, 1004]), (plain, [666] * 7 + [338])):
        engine_rows.clear()
        got = [(r0, r1, b.copy()) for r0, r1, b in op.blocks()]
        assert [g[:2] for g in got] == [w[:2] for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g[2], w[2])
        assert engine_rows == (chunks if tiled else [])
    assert stored._K is not None
