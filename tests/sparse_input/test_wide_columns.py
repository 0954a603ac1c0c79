"""Sparse inputs with very many columns (hashed text: 2**40) cost memory by their
stored values, never by their number of columns."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit import KernelRidge, KernelSVC, config_context
from kernelkit.kernels import RBF
from kernelkit.kernels.data_dependent import InputScale, feature_scale_spread
from kernelkit.kernels._sparse import compact_columns


def _wide(n, d, nnz, seed=0):
    rng = np.random.default_rng(seed)
    return sp.csr_matrix((rng.normal(size=nnz), (rng.integers(0, n, nnz),
                                                  rng.integers(0, d, nnz))), shape=(n, d))


def _compacted(X):
    """The same rows with only the stored columns, renumbered by a Python dict."""
    C = X.tocoo()
    rank = {c: i for i, c in enumerate(sorted(set(C.col.tolist())))}
    return sp.csr_matrix((C.data, (C.row, [rank[c] for c in C.col.tolist()])),
                         shape=(X.shape[0], len(rank)))


@pytest.mark.parametrize("make", [lambda: KernelRidge("linear", alpha=0.5),
                                  lambda: KernelRidge("rbf(gamma=0.3)", alpha=0.5),
                                  lambda: KernelSVC("poly(degree=2, gamma=0.5)")])
def test_2_to_the_40_columns_fit_like_their_stored_columns(make):
    X = _wide(60, 2**40, 400)
    y = (np.arange(60) % 2).astype(float)
    tracemalloc.start()
    with config_context(memory="16MB"):
        wide = make().fit(X, y)
        got = wide.decision_function(X[:7]) if hasattr(wide, "decision_function") \
            else wide.predict(X[:7])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 32 * 2**20  # 2**40 float64 columns would be 8 TiB
    Xc = _compacted(X)
    ref = make().fit(Xc, y)
    want = ref.decision_function(Xc[:7]) if hasattr(ref, "decision_function") \
        else ref.predict(Xc[:7])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_gamma_scale_on_wide_sparse_is_the_rule_over_all_entries():
    X = _wide(40, 2**40, 300)
    n, d = X.shape
    mean = X.data.sum() / (n * d)
    var = (X.data ** 2).sum() / (n * d) - mean ** 2
    resolved = RBF().resolve(X)
    np.testing.assert_allclose(resolved.gamma, 1.0 / (d * var), rtol=1e-12)


def test_column_moments_of_sparse_equal_the_dense_ones():
    X = _wide(30, 50, 200, seed=3)
    X[:, 7] = 5.0 * X[:, 7]  # one wide column
    scale, dense = InputScale.of(sp.csr_matrix(X)), InputScale.of(X.toarray())
    np.testing.assert_allclose(scale.column_mean, dense.column_mean, atol=1e-15)
    np.testing.assert_allclose(scale.column_var, dense.column_var, rtol=1e-12, atol=1e-15)
    assert feature_scale_spread(scale)[1:] == feature_scale_spread(dense)[1:]
    np.testing.assert_allclose(feature_scale_spread(scale)[0], feature_scale_spread(dense)[0],
                               rtol=1e-12)


def test_compact_columns_keeps_every_inner_product():
    A, B = _wide(20, 2**35, 80, seed=1), _wide(15, 2**35, 60, seed=2)
    Ac, Bc = compact_columns(A, B)
    assert Ac.shape[1] == Bc.shape[1] == len(np.union1d(A.indices, B.indices))
    ref = _compacted(sp.vstack([A, B]).tocsr())
    np.testing.assert_array_equal((Ac @ Bc.T).toarray(), (ref[:20] @ ref[20:].T).toarray())


def test_linear_svc_coef_from_sparse_support_vectors(tmp_path):
    """coef_ of a linear KernelSVC fitted on CSR gives its decision values, x'w + b, per
    one-vs-one problem (and the model saves)."""
    from kernelkit import load, save

    X = sp.random(60, 15, density=0.3, format="csr", random_state=0)
    y = np.arange(60) % 3
    model = KernelSVC("linear", decision_function_shape="ovo").fit(X, y)
    assert isinstance(model.coef_, np.ndarray) and model.coef_.shape == (3, 15)
    np.testing.assert_allclose(X.toarray() @ model.coef_.T + model.intercept_,
                               model.decision_function(X), rtol=1e-10, atol=1e-10)
    save(model, tmp_path / "m.kk")
    np.testing.assert_array_equal(load(tmp_path / "m.kk").decision_function(X),
                                  model.decision_function(X))
