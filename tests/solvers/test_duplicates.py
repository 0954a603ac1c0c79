"""Repeated rows merged into weighted rows: grouping, the exact reduction, Falkon on it."""

import numpy as np
import pytest

from kernelkit import KernelRidge, KernelRidgeClassifier
from kernelkit._compiled import row_hashes, rows_equal
from kernelkit._compiled._reference import row_hashes_ref, rows_equal_ref
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.solvers import duplicates
from kernelkit.solvers.duplicates import merge_duplicate_rows, row_groups
from kernelkit.solvers.falkon import falkon


def _repeated(n_distinct=60, n=300, d=4, seed=0, onehot=True):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n_distinct, d))
    if onehot:  # columns that differ only in a float's exponent bits (0.0 / 1.0)
        base = np.hstack([base, np.eye(n_distinct)[:, :5]])
    X = base[rng.integers(0, n_distinct, size=n)]
    return X, rng


def _groups_brute(X):
    first, inverse = {}, []
    for i, row in enumerate(map(bytes, X)):
        inverse.append(first.setdefault(row, len(first)))
    starts = np.zeros(len(first), dtype=int)
    for i in range(len(X) - 1, -1, -1):
        starts[inverse[i]] = i
    return starts, np.array(inverse), np.bincount(inverse)


def test_compiled_twins():
    X, rng = _repeated()
    W = np.ascontiguousarray(X).view(np.uint64)
    np.testing.assert_array_equal(row_hashes(W), row_hashes_ref(W))
    rows, leaders = rng.integers(0, len(X), 50), rng.integers(0, len(X), 50)
    np.testing.assert_array_equal(rows_equal(W, rows, leaders), rows_equal_ref(W, rows, leaders))
    with pytest.raises(IndexError):
        rows_equal(W, np.array([len(X)]), np.array([0]))


@pytest.mark.parametrize("onehot", [True, False])
def test_row_groups_equal_brute_force(onehot):
    X, _ = _repeated(onehot=onehot)
    X[3] = -0.0 * X[3]          # a row of signed zeros is its own group (bytes differ)
    for got, want in zip(row_groups(X), _groups_brute(X)):
        np.testing.assert_array_equal(got, want)


def test_hash_collisions_fall_back_to_exact_grouping(monkeypatch):
    X, _ = _repeated()
    monkeypatch.setattr(duplicates, "row_hashes", lambda W: np.zeros(len(W), np.uint64))
    for got, want in zip(row_groups(X), _groups_brute(X)):
        np.testing.assert_array_equal(got, want)


def test_merge_is_the_same_weighted_least_squares():
    X, rng = _repeated(n_distinct=8, n=40, d=2, onehot=False)
    y = rng.normal(size=(40, 2))
    s = rng.uniform(0.5, 2.0, size=40)
    m = merge_duplicate_rows(X, y, s)
    assert len(m.X) == 8 and m.n_rows == 40
    np.testing.assert_array_equal(m.X[m.inverse], X)
    # for any f on the rows, the two objectives differ by a constant
    f1, f2 = rng.normal(size=(8, 2)), rng.normal(size=(8, 2))
    full = [np.sum(s[:, None] * (y - f[m.inverse]) ** 2) for f in (f1, f2)]
    small = [np.sum(m.sample_weight[:, None] * (m.y - f) ** 2) for f in (f1, f2)]
    assert abs((full[0] - full[1]) - (small[0] - small[1])) < 1e-10 * abs(full[0])
    assert merge_duplicate_rows(np.eye(3), np.zeros(3)) is None


def test_falkon_on_repeated_rows_equals_the_unmerged_problem():
    X, rng = _repeated(n_distinct=80, n=600, d=3)
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=len(X))   # targets differ within a group
    kw = dict(alpha=1e-2, tol=1e-12, max_iter=300, random_state=0)
    m = KernelRidge(RBF(gamma=0.3), solver="falkon", n_centers=40, **kw).fit(X, y)
    choice = {c.what: c for c in m.plan_.choices}["repeated rows"]
    assert choice.value == "merged" and "80 distinct of 600" in choice.reason
    # reference: the solver on all 600 rows with the same centers (no merging)
    yc = y - y.mean()
    ref = falkon(RBF(gamma=0.3), X, m.centers_, yc, 1e-2, tol=1e-12, maxiter=300)
    np.testing.assert_allclose(m.dual_coef_, ref.coef, rtol=1e-7,
                               atol=1e-7 * np.abs(ref.coef).max())
    # and the closed form of the Nystroem problem on all rows
    Knm, Kmm = gram(RBF(gamma=0.3), X, m.centers_), gram(RBF(gamma=0.3), m.centers_)
    c = np.linalg.lstsq(Knm.T @ Knm + 1e-2 * Kmm, Knm.T @ yc, rcond=None)[0]
    np.testing.assert_allclose(Knm @ m.dual_coef_, Knm @ c, rtol=1e-6, atol=1e-6)


def test_classifier_with_repeated_rows_and_weights():
    X, rng = _repeated(n_distinct=50, n=400, d=3)
    labels = np.where(X[:, 0] > 0, "a", "b")
    s = rng.uniform(0.5, 2.0, size=len(X))
    kw = dict(alpha=1e-2, tol=1e-12, max_iter=300, random_state=0, n_centers=30)
    m = KernelRidgeClassifier(RBF(gamma=0.3), solver="falkon", **kw).fit(X, labels, s)
    Y = np.where(labels == "b", 1.0, -1.0)
    ref = KernelRidge(RBF(gamma=0.3), solver="falkon", **kw)
    # the same fit with every row distinct: jitter each row by a tiny unique offset
    Xj = X + 1e-12 * np.arange(len(X))[:, None]
    ref.fit(Xj, Y, s)
    assert {c.what: c.value for c in ref.plan_.choices}["repeated rows"] == "none"
    np.testing.assert_allclose(m.decision_function(X), ref.predict(X), rtol=1e-5, atol=1e-6)
