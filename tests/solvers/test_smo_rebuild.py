"""SMO's gradient rebuild from the support vectors' rows (solvers/smo.py) against
the plain product with the submatrix K[rows][:, cols]."""

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.solvers.smo import _GramRows, _symmetric_dot, _symmetric_dot_all, smo_gram


@pytest.fixture(scope="module")
def gram():
    X = np.random.default_rng(0).normal(size=(300, 4))
    return RBF(gamma=0.3)(X)


@pytest.mark.parametrize("n_rows", [3, 60, 290])  # the gather path, and the streamed one
def test_rebuild_equals_the_submatrix_product(gram, n_rows):
    rng = np.random.default_rng(n_rows)
    rows = np.sort(rng.choice(300, n_rows, replace=False))
    cols = np.sort(rng.choice(300, 40, replace=False))
    v = rng.normal(size=40)
    expected = gram[np.ix_(rows, cols)] @ v
    np.testing.assert_allclose(_GramRows(gram).dot(rows, cols, v), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(_symmetric_dot(gram, rows, cols, v), expected, atol=1e-12)
    np.testing.assert_allclose(_symmetric_dot_all(gram, cols, v)[rows], expected, atol=1e-12)
    assert not _GramRows(gram).dot(rows, cols[:0], v[:0]).any()  # no support vector: 0


def test_the_solution_is_optimal_after_the_rebuilds(gram):
    """Shrinking then the final rebuild: the gradient it ends with is Q alpha - 1."""
    y = np.where(np.random.default_rng(1).random(300) > 0.4, 1.0, -1.0)
    r = smo_gram(gram, y, 1.0, shrinking=True)
    ay = r.alpha * y
    G = y * (gram @ ay) - 1.0
    assert r.dual_objective == pytest.approx(r.alpha.sum() - 0.5 * ay @ gram @ ay, rel=1e-12)
    assert r.primal_objective == pytest.approx(
        0.5 * ay @ gram @ ay + np.maximum(0.0, -G - y * r.bias).sum(), rel=1e-9)


def test_row_cache_rebuild_reads_cached_rows_and_computes_the_rest(gram):
    """Rows on demand: the cached support vectors' rows by symmetry, the others computed."""
    from kernelkit.gram import KernelRows
    from kernelkit.solvers.smo import row_source

    X = np.random.default_rng(0).normal(size=(300, 4))
    cache, _ = row_source(KernelRows(RBF(gamma=0.3), X), cache_bytes=50 * 300 * 8, batch=1)
    istate = np.zeros(10, dtype=np.int64)
    rng = np.random.default_rng(5)
    cols = np.sort(rng.choice(300, 40, replace=False))
    cache.store(cols[:25], istate)  # 25 of the 40 support vectors' rows cached
    computed = cache.n_computed
    rows = np.sort(rng.choice(300, 200, replace=False))
    v = rng.normal(size=40)
    np.testing.assert_allclose(cache.dot(rows, cols, v), gram[np.ix_(rows, cols)] @ v,
                               rtol=0, atol=1e-12)
    assert cache.n_computed == computed  # the rebuild's values are not cached rows
