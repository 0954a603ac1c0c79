"""Falkon's direct solve in the preconditioner's directions, and distinct-row centers.

References: the closed-form Nystroem ridge (K_nM' S K_nM + alpha K_MM) c = K_nM' S y
solved densely, and Falkon's own conjugate-gradient iterations at a tight tolerance.
"""

import sys

import numpy as np
import pytest

from kernelkit.gram import gram
from kernelkit.kernels import RBF, Laplacian, Polynomial
from kernelkit.models import KernelRidge, KernelRidgeClassifier
from kernelkit.solvers.falkon import falkon

fk = sys.modules["kernelkit.solvers.falkon"]  # the package exports the function falkon


def _nystroem_krr(kernel, X, C, Y, alpha, sw=None):
    Knm, Kmm = gram(kernel, X, C), gram(kernel, C)
    S = np.ones(len(X)) if sw is None else sw
    return np.linalg.solve(Knm.T @ (S[:, None] * Knm) + alpha * Kmm, Knm.T @ (S[:, None] * Y))


def _clustered(seed=5):
    """Rows in 8 tight clusters: K_MM of every-4th-row centers is rank-deficient."""
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.normal(size=(8, 2)), 50, axis=0) + 1e-7 * rng.normal(size=(400, 2))
    return X, np.column_stack([np.sin(X[:, 0]) + X[:, 1], np.cos(X[:, 1])])


@pytest.mark.parametrize("kernel", [RBF(gamma=0.3), Laplacian(gamma=0.5),
                                    Polynomial(degree=2, gamma=1.0, coef0=1.0)])
def test_direct_solve_equals_the_closed_form(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2]])
    sw = rng.uniform(0.2, 2.0, size=300)
    C = X[::6]
    ref = _nystroem_krr(kernel, X, C, Y, 0.3, sw)
    res = falkon(kernel, X, C, Y, 0.3, sample_weight=sw, solve="direct")
    assert res.solve_choice.value == "direct" and "set by the user" in res.solve_choice.reason
    assert res.n_iter == 1 and res.converged and np.all(res.residual_norm < 1e-10)
    Xt = rng.normal(size=(50, 4))
    pred, pred_ref = gram(kernel, Xt, C) @ res.coef, gram(kernel, Xt, C) @ ref
    np.testing.assert_allclose(pred, pred_ref, atol=1e-7 * np.abs(pred_ref).max())


def test_direct_equals_cg_in_the_eigen_directions():
    X, Y = _clustered()
    C, k = X[::4], RBF(gamma=0.5)
    cg = falkon(k, X, C, Y, 1e-3, tol=1e-12, maxiter=500, solve="cg")
    direct = falkon(k, X, C, Y, 1e-3, solve="direct")
    assert cg.preconditioner_choice.value == direct.preconditioner_choice.value == "eigen"
    assert cg.converged and cg.n_iter > 1 and cg.rank == direct.rank < len(C)
    G = gram(k, X, C)
    np.testing.assert_allclose(G @ direct.coef, G @ cg.coef, atol=1e-8 * np.abs(Y).max())


def test_auto_solves_directly_only_when_rank_deficient_and_cheap(monkeypatch, tmp_path):
    X, Y = _clustered()
    k = RBF(gamma=0.5)
    res = falkon(k, X, X[::4], Y, 1e-3)  # eigen, a handful of directions
    assert res.solve_choice.value == "direct" and res.n_iter == 1
    assert f"{res.rank} directions <=" in res.solve_choice.reason
    # a full-rank K_MM keeps Falkon's CG
    rng = np.random.default_rng(1)
    Xf = rng.normal(size=(200, 3))
    full = falkon(k, Xf, Xf[::5], Xf[:, 0], 0.1)
    assert full.preconditioner_choice.value == "cholesky" and full.solve_choice.value == "cg"
    # a checkpoint is CG's state: asking for one keeps CG
    ck = falkon(k, X, X[::4], Y, 1e-3, checkpoint=tmp_path / "cg.npz", tol=1e-6)
    assert ck.solve_choice.value == "cg" and "checkpoint" in ck.solve_choice.reason
    # more directions than the iterations would cost: CG
    monkeypatch.setattr(fk, "DIRECT_CG_ITERATIONS", 0)
    res = falkon(k, X, X[::4], Y, 1e-3, tol=1e-8, maxiter=300)
    assert res.solve_choice.value == "cg" and "> 0 = 0 iterations" in res.solve_choice.reason
    with pytest.raises(ValueError, match="solve must be"):
        falkon(k, X, X[::4], Y, 1e-3, solve="lu")


def _repeated_rows(seed=0):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(120, 3))
    counts = rng.integers(1, 40, size=120)  # a few rows repeated many times
    X = np.repeat(base, counts, axis=0)
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    return X, y


def test_distinct_centers_are_distinct_rows_and_give_the_closed_form():
    X, y = _repeated_rows()
    k, M = RBF(gamma=0.4), 60
    m = KernelRidge(k, alpha=0.2, solver="falkon", n_centers=M, center_selection="distinct",
                    fit_intercept=False, tol=1e-12, max_iter=500, random_state=0).fit(X, y)
    assert len(m.centers_) == M and len(np.unique(m.centers_, axis=0)) == M
    plan = {c.what: c for c in m.plan_.choices}
    assert "distinct training rows" in plan["distinct centers"].reason
    assert "Falkon solve" in plan
    uniform = KernelRidge(k, alpha=0.2, solver="falkon", n_centers=M, fit_intercept=False,
                          random_state=0).fit(X, y)
    assert len(uniform.centers_) < M  # uniform draws repeat the frequent rows
    # the model is the Nystroem ridge on all (unmerged) rows with those centers
    ref = _nystroem_krr(k, X, m.centers_, y[:, None], 0.2)[:, 0]
    Xt = np.random.default_rng(3).normal(size=(40, 3))
    G = gram(k, Xt, m.centers_)
    np.testing.assert_allclose(m.predict(Xt), G @ ref, atol=1e-7 * np.abs(G @ ref).max())


def test_distinct_centers_equal_uniform_when_no_row_repeats():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1])
    kw = dict(alpha=0.1, solver="falkon", n_centers=50, random_state=7)
    a = KernelRidgeClassifier(RBF(gamma=0.5), center_selection="distinct", **kw).fit(X, y)
    b = KernelRidgeClassifier(RBF(gamma=0.5), center_selection="uniform", **kw).fit(X, y)
    np.testing.assert_array_equal(a.centers_, b.centers_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


def test_distinct_centers_skip_rows_of_zero_weight():
    X, y = _repeated_rows(1)
    sw = np.ones(len(X))
    zero_row = X[0]
    sw[np.all(X == zero_row, axis=1)] = 0.0
    m = KernelRidge(RBF(gamma=0.4), alpha=0.2, solver="falkon", n_centers=119,
                    center_selection="distinct", random_state=0).fit(X, y, sample_weight=sw)
    assert len(m.centers_) == 119  # 120 distinct rows, one of them of weight 0
    assert not np.any(np.all(m.centers_ == zero_row, axis=1))


def test_choices_made_during_the_fit_are_printed_when_verbose(capsys):
    X, y = _repeated_rows()
    KernelRidge(RBF(gamma=0.4), alpha=0.2, solver="falkon", n_centers=60,
                center_selection="distinct", random_state=0, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "distinct centers" in out and "preconditioner:" in out and "Falkon solve:" in out
    KernelRidge(RBF(gamma=0.4), alpha=0.2, solver="falkon", n_centers=60,
                random_state=0).fit(X, y)
    assert "Falkon solve" not in capsys.readouterr().out
