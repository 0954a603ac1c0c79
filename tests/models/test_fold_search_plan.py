"""The fold planner (issue 24 item 1): which alphas share a float32 factor, from cost.

Its choice against a brute-force enumeration of every contiguous grouping under the
same cost function, the direction of the choice as the factor rate changes, the
iteration prediction against what CG takes, and any grouping's solutions against
np.linalg.solve.
"""

import itertools
import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit.planning.fold_search import (cg_iterations, group_seconds,
                                            plan_fold_solves)
from kernelkit.tuning.fold_path import fold_solves, shifted_solves

ALPHAS = [1e-3, 1e-2, 0.1, 1.0, 10.0]
RATES = {"gemm": 70e9, "cholesky": 40e9, "stream": 2e10, "elementwise": 1e9}


def _contiguous_groupings(k):
    for cuts in itertools.product([False, True], repeat=k - 1):
        groups, start = [], 0
        for i, cut in enumerate(cuts, start=1):
            if cut:
                groups.append(list(range(start, i)))
                start = i
        yield groups + [list(range(start, k))]


@pytest.mark.parametrize("m", [800, 3000, 6000, 12800])
def test_planner_choice_is_the_cheapest_contiguous_grouping(m):
    plan = plan_fold_solves(m, ALPHAS, rates=RATES)
    a = np.array(ALPHAS)
    brute = float("inf")
    for grouping in _contiguous_groupings(len(a)):
        total = 0.0
        for g in grouping:
            shift = math.sqrt(a[g[0]] * a[g[-1]])
            total += min(group_seconds(m, a[g], None, rates=RATES)[0],
                         group_seconds(m, a[g], shift, rates=RATES)[0])
        brute = min(brute, total)
    assert plan.seconds == pytest.approx(brute, rel=1e-12)
    assert plan.seconds <= min(plan.alternatives.values()) * (1 + 1e-12)
    assert sorted(i for idx, _ in plan.groups for i in idx) == list(range(len(a)))


def test_fast_factors_give_more_groups_slow_factors_one():
    m = 6000
    slow = plan_fold_solves(m, ALPHAS, rates=dict(RATES, cholesky=1e8))
    fast = plan_fold_solves(m, ALPHAS, rates=dict(RATES, cholesky=1e13))
    assert len(slow.groups) == 1 and slow.groups[0][1] is not None
    assert fast.factors == len(ALPHAS) and fast.groups[0][1] is None
    counts = [plan_fold_solves(m, ALPHAS, rates=dict(RATES, cholesky=c)).factors
              for c in (1e8, 1e10, 4e10, 1e11, 1e12, 1e13)]
    assert counts == sorted(counts) and 1 < max(c for c in counts if c < len(ALPHAS))


def test_groups_are_contiguous_in_sorted_alphas_and_shift_is_geometric_middle():
    alphas = [10.0, 1e-3, 0.3, 1e-2, 1.0, 1e-4]
    plan = plan_fold_solves(5000, alphas, rates=RATES)
    a = np.array(alphas)
    bounds = []
    for idx, shift in plan.groups:
        vals = np.sort(a[list(idx)])
        bounds.append((vals[0], vals[-1]))
        if shift is not None:
            assert shift == pytest.approx(math.sqrt(vals[0] * vals[-1]))
    for (lo1, hi1), (lo2, _) in zip(bounds, bounds[1:]):
        assert hi1 < lo2  # no interleaving


def test_predicted_iterations_follow_the_condition_number_bound():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    K = rbf_kernel(X, gamma=0.5)
    y = rng.normal(size=300)
    for alpha, shift in [(1e-3, 1e-2), (1e-3, 0.1), (1.0, 10.0)]:
        taken = shifted_solves(K, y, [alpha], alpha_ref=shift).n_iter
        predicted = cg_iterations(alpha, shift)
        assert taken <= 1.3 * predicted  # the bound holds; the constant is about 1
    assert cg_iterations(0.1, 0.1) < cg_iterations(0.1, 1.0) < cg_iterations(0.1, 10.0)


@pytest.mark.parametrize("groups", [
    [((0, 1, 2, 3, 4), 0.1)],
    [((0, 1), 0.003), ((2, 3, 4), 1.0)],
    [((0,), None), ((1, 2), 0.03), ((3, 4), None)],
    [((4, 2, 0), 0.05), ((1, 3), None)],  # any grouping, any shift
])
def test_any_grouping_gives_the_solutions_of_np_linalg_solve(groups):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    K = rbf_kernel(X, gamma=0.4)
    Y = rng.normal(size=(80, 2))
    coef, info = fold_solves(K, Y, ALPHAS, groups)
    for j, a in enumerate(ALPHAS):
        reference = np.linalg.solve(K + a * np.eye(80), Y)
        np.testing.assert_allclose(coef[j], reference, rtol=1e-8,
                                   atol=1e-10 * np.abs(reference).max())
    assert info["residual"] < 1e-9


def test_groups_must_cover_every_alpha_once():
    K = np.eye(4)
    with pytest.raises(ValueError, match="exactly once"):
        fold_solves(K, np.ones(4), [1.0, 2.0], [((0,), None)])
