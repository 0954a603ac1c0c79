"""KernelRidge(solver="falkon") and the planner's Falkon candidate."""

import numpy as np
import pytest

from kernelkit import config_context, load, save
from kernelkit.gram import gram
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge
from kernelkit.planning import falkon_centers, plan_ridge


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 / 4 + 0.1 * rng.normal(size=n)
    return X, y, rng.normal(size=(50, 3))


def test_all_centers_equals_exact_dual():
    X, y, Xt = _data()
    exact = KernelRidge(RBF(gamma=0.5), alpha=0.3, solver="dual").fit(X, y)
    fk = KernelRidge(RBF(gamma=0.5), alpha=0.3, solver="falkon", n_centers=len(X), tol=1e-12,
                     max_iter=500).fit(X, y)
    assert fk.solver_ == "falkon" and fk.centers_.shape == X.shape and fk.n_iter_ >= 1
    np.testing.assert_allclose(fk.predict(Xt), exact.predict(Xt), rtol=0, atol=1e-6)


def test_subset_of_centers_matches_closed_form_and_is_close_to_exact():
    X, y, Xt = _data(n=300)
    k = RBF(gamma=0.5)
    fk = KernelRidge(k, alpha=0.3, solver="falkon", n_centers=100, tol=1e-12, max_iter=500,
                     random_state=0, fit_intercept=False).fit(X, y)
    C = fk.centers_
    assert C.shape == (100, 3) and all((X == c).all(axis=1).any() for c in C)
    Knm, Kmm = gram(k, X, C), gram(k, C)
    ref = np.linalg.solve(Knm.T @ Knm + 0.3 * Kmm, Knm.T @ y)
    np.testing.assert_allclose(fk.predict(Xt), gram(k, Xt, C) @ ref, atol=1e-6)
    exact = KernelRidge(k, alpha=0.3).fit(X, y)
    assert np.sqrt(np.mean((fk.predict(Xt) - exact.predict(Xt)) ** 2)) < 0.05


@pytest.mark.parametrize("selection", ["uniform", "kmeans++", "leverage"])
def test_center_selection_is_seeded_and_multi_target(selection):
    X, y, Xt = _data()
    Y = np.column_stack([y, -y])
    a = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=40,
                    center_selection=selection, random_state=1).fit(X, Y)
    b = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=40,
                    center_selection=selection, random_state=1).fit(X, Y)
    assert a.dual_coef_.shape == (40, 2)
    np.testing.assert_array_equal(a.centers_, b.centers_)
    np.testing.assert_allclose(a.predict(Xt)[:, 0], -a.predict(Xt)[:, 1], atol=1e-10)


def test_n_centers_above_n_is_capped_and_auto_rule():
    X, y, _ = _data(n=80)
    m = KernelRidge(RBF(gamma=0.5), solver="falkon", n_centers=1000).fit(X, y)
    assert m.centers_.shape[0] == 80
    assert falkon_centers(80) == 80 and falkon_centers(10**6) == 13816
    assert falkon_centers(10**9) == 20000


def test_verbose_progress_bar_runs(capsys):
    X, y, _ = _data(n=100)
    KernelRidge(RBF(gamma=0.5), solver="falkon", n_centers=30, verbose=1).fit(X, y)
    assert "kernelkit Falkon CG" in capsys.readouterr().err


@pytest.mark.parametrize("params, match", [
    ({"n_centers": 0}, "n_centers"), ({"n_centers": "many"}, "n_centers"),
    ({"center_selection": "random"}, "center_selection"), ({"tol": 0.0}, "tol"),
    ({"max_iter": 0}, "max_iter"), ({"alpha": [0.1, 1.0]}, "one alpha"),
])
def test_bad_parameters_say_what_is_wrong(params, match):
    X, y, _ = _data(n=50)
    Y = np.column_stack([y, y])
    with pytest.raises(ValueError, match=match):
        KernelRidge(RBF(gamma=0.5), solver="falkon", **params).fit(X, Y)


def test_precomputed_kernel_is_refused():
    X, y, _ = _data(n=50)
    with pytest.raises(ValueError, match="precomputed"):
        KernelRidge("precomputed", solver="falkon").fit(gram(RBF(), X), y)


def test_planner_picks_dual_small_and_falkon_at_a_million():
    small = plan_ridge(2000, 10, memory=8 * 2**30, n_centers=falkon_centers(2000))
    assert small.choice == "dual"
    big = plan_ridge(10**6, 10, memory=8 * 2**30, n_centers=falkon_centers(10**6))
    assert big.choice == "falkon" and "falkon" in big.explain()
    assert "M=13816" in big.explain()
    # With a huge budget exact fits, but at n = 1e6 it is predicted far slower.
    huge = plan_ridge(10**6, 10, memory=1e16, n_centers=falkon_centers(10**6))
    assert huge.choice == "falkon" and "slower" in huge.reason
    assert [c.name for c in plan_ridge(100, 2, n_centers=None).candidates] == ["dual", "primal"]


def test_auto_falls_back_to_falkon_when_exact_does_not_fit():
    X, y, Xt = _data(n=1500)
    with config_context(memory="16MB"):  # the 1500 x 1500 Gram matrix needs 18 MB
        m = KernelRidge(RBF(gamma=0.5), alpha=0.1, random_state=0).fit(X, y)
    assert m.solver_ == "falkon" and m.plan_.choice == "falkon"
    exact = KernelRidge(RBF(gamma=0.5), alpha=0.1).fit(X, y)
    assert exact.solver_ == "dual"
    assert np.sqrt(np.mean((m.predict(Xt) - exact.predict(Xt)) ** 2)) < 0.05


def test_float32_policy_gives_float32_products_close_to_float64():
    X, y, Xt = _data()
    ref = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=50,
                      random_state=0).fit(X, y)
    with config_context(dtype="float32"):
        m = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=50,
                        random_state=0).fit(X.astype(np.float32), y)
        p32 = m.predict(Xt.astype(np.float32))
    np.testing.assert_allclose(p32, ref.predict(Xt), atol=1e-3)


def test_save_load_round_trip(tmp_path):
    X, y, Xt = _data()
    m = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=30,
                    random_state=0).fit(X, np.column_stack([y, y ** 2]))
    save(m, tmp_path / "m.kk")
    back = load(tmp_path / "m.kk")
    assert back.solver_ == "falkon" and back.n_iter_ == m.n_iter_
    np.testing.assert_allclose(back.predict(Xt), m.predict(Xt), rtol=1e-12, atol=1e-13)


def test_stopping_short_of_tol_warns_and_keeps_the_residual():
    from sklearn.exceptions import ConvergenceWarning

    X, y, _ = _data()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        m = KernelRidge(RBF(gamma=0.5), alpha=1e-4, solver="falkon", n_centers=80, max_iter=2,
                        tol=1e-10, random_state=0).fit(X, y)
    assert m.n_iter_ == 2 and m.residual_norm_ > 1e-10
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ok = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=80,
                         random_state=0).fit(X, y)  # the default tol is reached
    assert ok.n_iter_ < 100 and ok.residual_norm_ <= 1e-4 and ok.rank_ == 80


def test_repeated_rows_give_distinct_centers_and_the_same_model():
    X, y, Xt = _data(n=60)
    Xr, yr = np.repeat(X, 5, axis=0), np.repeat(y, 5)  # every row five times
    m = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=150, tol=1e-12,
                    max_iter=500, random_state=0).fit(Xr, yr)
    assert len(np.unique(m.centers_, axis=0)) == len(m.centers_) < 150
    assert any(c.what == "distinct centers" and "dropped" in c.reason for c in m.plan_.choices)
    # The model is Nystroem ridge on the distinct centers (closed form).
    k, C = RBF(gamma=0.5), m.centers_
    Knm = gram(k, Xr, C)
    ref = np.linalg.solve(Knm.T @ Knm + 0.1 * gram(k, C), Knm.T @ (yr - yr.mean()))
    np.testing.assert_allclose(m.predict(Xt), gram(k, Xt, C) @ ref + yr.mean(), atol=1e-6)
