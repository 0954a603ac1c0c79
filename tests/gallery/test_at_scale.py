"""At scale: the plan against the cost model's own rules and closed-form sizes, the Nystroem
error against a brute-force pseudo-inverse, Falkon against the closed-form Nystroem solution."""

import numpy as np
import pytest
from sklearn.utils import check_random_state

from gallery._load import load_example
from kernelkit import gram
from kernelkit.config import REFERENCE_RATES
from kernelkit.planning import FALKON_MIN_N

ex = load_example("at_scale")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_quick_mode_plans_with_the_reference_rates(res):
    assert res["rates"] == dict(REFERENCE_RATES)


def test_plan_follows_the_gram_size_and_the_cheapest_feasible_rule(res):
    budget = 8e9
    for r in res["plan"]:
        n = r["n"]
        assert r["dual_memory"] == pytest.approx(8.0 * n * n)  # the n x n float64 Gram matrix
        assert r["dual_feasible"] == (8.0 * n * n <= budget * 1.08)  # "8GB" as 8e9 or 8 GiB
        if n <= FALKON_MIN_N:  # Falkon is an approximation: never for small n
            assert r["choice"] == "dual"
        else:
            feasible = {name: r[f"{name}_seconds"] for name in ("dual", "falkon")
                        if r[f"{name}_feasible"]}
            assert r["choice"] == min(feasible, key=feasible.get)
    big = [r for r in res["plan"] if r["n"] >= 100_000]
    assert big and all(r["choice"] == "falkon" for r in big)
    # the dual's time grows between n^2 (kernel entries) and n^3 (Cholesky)
    by_n = {r["n"]: r["dual_seconds"] for r in res["plan"]}
    ratio = by_n[1_000_000] / by_n[100_000]
    assert 100 <= ratio <= 1000


def _brute_nystroem_error(X, idx):
    K = gram(ex.KERNEL, X)
    approx = K[:, idx] @ np.linalg.pinv(K[np.ix_(idx, idx)], rcond=1e-12) @ K[idx, :]
    return np.trace(K - approx) / np.trace(K)


def test_nystroem_error_against_a_pseudo_inverse():
    X, _ = ex.make_data(200, seed=3)
    for method in ex.METHODS:
        idx = ex.select_centers(ex.KERNEL, X, 15, method, check_random_state(1))
        assert len(np.unique(idx)) == 15 and idx.min() >= 0 and idx.max() < 200
        assert ex.nystroem_error(X, idx) == pytest.approx(_brute_nystroem_error(X, idx),
                                                          rel=1e-6, abs=1e-10)
    assert ex.nystroem_error(X, np.arange(200)) < 1e-8  # every point a center: exact


def test_more_centers_smaller_error(res):
    for method in ex.METHODS:
        errs = [res["errors"][method, M] for M in res["sizes"]]
        assert all(0.0 <= e <= 1.0 for e in errs)
        assert errs[-1] < errs[0]


def test_falkon_solves_the_nystroem_system_and_beats_plain_cg(res):
    X, y, C = res["X"], res["y"], res["centers"]
    Knm, Kmm = gram(ex.KERNEL, X, C), gram(ex.KERNEL, C)
    closed = np.linalg.solve(Knm.T @ Knm + ex.ALPHA * Kmm, Knm.T @ y)
    fitted = Knm @ closed
    scale = np.linalg.norm(fitted)
    assert np.linalg.norm(Knm @ res["falkon_coef"] - fitted) <= 1e-6 * scale
    # the curves measure the distance to that same solution
    assert np.linalg.norm(Knm @ res["pcg_x"] - fitted) / scale == pytest.approx(
        res["plain_cg"][-1], rel=1e-6)
    k = len(res["falkon"])
    assert res["falkon"][-1] < 1e-3 and res["falkon"][-1] < 0.01 * res["plain_cg"][-1]
    assert len(res["plain_cg"]) == k


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 3
    assert fig.axes[0].get_xscale() == "log" and fig.axes[2].get_yscale() == "log"
