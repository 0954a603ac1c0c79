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


def _rbf_problem(m=120, t=1, gamma=0.5, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    return rbf_kernel(X, gamma=gamma), rng.normal(size=(m, t))


def test_float32_factor_per_alpha_with_refinement_equals_a_float64_solve():
    import scipy.linalg

    K, Y = _rbf_problem(150, t=2)
    K_before = K.copy()
    groups = [((j,), a) for j, a in enumerate(ALPHAS)]  # each alpha its own float32 factor
    work = {}
    coef, info = fold_solves(K, Y, ALPHAS, groups, work=work)
    assert info["factors"] == len(ALPHAS) and info["fallbacks"] == 0 and not info["direct"]
    assert info["n_iter"] <= 12 * len(ALPHAS)  # refinement: a few iterations per alpha
    worst = 0.0
    for j, a in enumerate(ALPHAS):
        chol = scipy.linalg.cho_factor(K + a * np.eye(150), lower=True)
        reference = scipy.linalg.cho_solve(chol, Y)  # float64 Cholesky, as KernelRidge
        np.testing.assert_allclose(coef[j], reference, rtol=1e-9,
                                   atol=1e-11 * np.abs(reference).max())
        res = np.linalg.norm(Y - K @ coef[j] - a * coef[j], axis=0) / np.linalg.norm(Y, axis=0)
        worst = max(worst, res.max())
    assert info["residual"] == pytest.approx(worst, rel=1e-6)  # the final residual, kept
    assert worst <= 100 * 1e-12
    np.testing.assert_array_equal(K, K_before)  # K is not modified
    assert work["factor32"].dtype == np.float32 and work["factor32"].size == 150 * 150


def test_factor_buffer_is_kept_across_calls_and_smaller_folds():
    K, Y = _rbf_problem(100)
    work = {}
    shifted_solves(K, Y, [0.1], alpha_ref=0.1, work=work)
    buffer = work["factor32"]
    small = K[:90, :90]
    r = shifted_solves(small, Y[:90], [0.1], alpha_ref=0.1, work=work)
    assert work["factor32"] is buffer  # reused, not reallocated
    np.testing.assert_allclose(r.coef[0], np.linalg.solve(small + 0.1 * np.eye(90), Y[:90]),
                               rtol=1e-9)
    coef, info = fold_solves(K, Y, [0.1, 1.0], [((0, 1), None)], work=work)  # float64 each
    coef_small, _ = fold_solves(small, Y[:90], [0.1, 1.0], [((0, 1), None)], work=work)
    assert work["factor64"].size == 100 * 100 and info["factors"] == 2
    for j, a in enumerate([0.1, 1.0]):
        np.testing.assert_allclose(coef[j], np.linalg.solve(K + a * np.eye(100), Y),
                                   rtol=1e-10)
        np.testing.assert_allclose(coef_small[j],
                                   np.linalg.solve(small + a * np.eye(90), Y[:90]), rtol=1e-10)


@pytest.mark.parametrize("t", [1, 2, 5])  # 3, 6 and 15 CG columns: per column and batched
def test_batched_cg_columns_by_column_or_by_gemm_give_the_same_solutions(t):
    K, Y = _rbf_problem(90, t=t, seed=t)
    alphas = [1e-2, 0.1, 1.0]
    r = shifted_solves(K, Y, alphas, alpha_ref=0.1)
    assert r.fallbacks == 0
    for j, a in enumerate(alphas):
        np.testing.assert_allclose(r.coef[j], np.linalg.solve(K + a * np.eye(90), Y),
                                   rtol=1e-8, atol=1e-10)
    assert r.residual.shape == (3,) and r.residual.max() <= 100 * 1e-12


def test_refinement_stopping_short_switches_to_float64_without_a_warning():
    """CG short of the tolerance: the alpha switches to its own float64 factor, which
    solves the system -- counted and named in the result, no ConvergenceWarning (the
    answer is not short of the tolerance)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    K, Y = _rbf_problem(80)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = shifted_solves(K, Y, [1e-3], alpha_ref=1e-3, maxiter=1)
    assert r.fallbacks == 1 and r.n_iter == 1 and r.fallback_alphas == (1e-3,)
    assert r.cg_residual > 100 * 1e-12  # what CG had left: the reason for the switch
    reference = np.linalg.solve(K + 1e-3 * np.eye(80), Y)
    np.testing.assert_allclose(r.coef[0], reference, rtol=1e-8, atol=1e-10)
    true = np.linalg.norm(Y - K @ r.coef[0] - 1e-3 * r.coef[0]) / np.linalg.norm(Y)
    assert r.residual[0] == pytest.approx(true, rel=1e-6)
    assert true <= 100 * 1e-12


def test_an_answer_short_of_the_tolerance_after_the_switch_warns():
    """A tolerance no float64 solve reaches (1e-18): the switched alpha's final answer
    is short of it, and that is what warns, with the residual kept."""
    from sklearn.exceptions import ConvergenceWarning

    K, Y = _rbf_problem(80)
    with pytest.warns(ConvergenceWarning, match="float64 Cholesky factor it switched to"):
        r = shifted_solves(K, Y, [1e-3], alpha_ref=1e-3, maxiter=1, rtol=1e-20)
    true = np.linalg.norm(Y - K @ r.coef[0] - 1e-3 * r.coef[0]) / np.linalg.norm(Y)
    assert r.fallbacks == 1 and true > 1e-18
    assert r.residual[0] == pytest.approx(true, rel=1e-6)


def test_direct_float64_solves_warn_only_when_short_of_the_tolerance():
    """The planner's float64-per-alpha groups: silent at the usual tolerance (answers
    equal np.linalg.solve), a ConvergenceWarning with the residual kept when the
    tolerance is one no float64 solve reaches."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from kernelkit.tuning.fold_path import fold_solves

    K, Y = _rbf_problem(70)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        coef, info = fold_solves(K, Y, [1e-2, 1.0], [((0, 1), None)])
    for j, a in enumerate([1e-2, 1.0]):
        np.testing.assert_allclose(coef[j], np.linalg.solve(K + a * np.eye(70), Y),
                                   rtol=1e-8, atol=1e-10)
    assert info["direct"] and info["factors"] == 2 and info["residual"] <= 1e-10
    with pytest.warns(ConvergenceWarning, match="float64 Cholesky factors left"):
        _, info = fold_solves(K, Y, [1e-2], [((0,), None)], rtol=1e-20)
    assert info["residual"] > 1e-18


def test_float32_solves_that_overflow_switch_to_float64_factors(monkeypatch):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from kernelkit.tuning import fold_path

    def overflowing(L, R):
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")

    monkeypatch.setattr(fold_path, "_precondition", overflowing)
    K, Y = _rbf_problem(60)
    work = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        r = shifted_solves(K, Y, [1e-2, 1e-1], alpha_ref=3e-2, work=work)
    assert r.fallbacks == 2 and r.fallback_alphas == (1e-2, 1e-1)
    for a, alpha in enumerate([1e-2, 1e-1]):
        reference = np.linalg.solve(K + alpha * np.eye(60), Y)
        np.testing.assert_allclose(r.coef[a], reference, rtol=1e-8, atol=1e-10)
    assert work["factor64"].size >= 60 * 60  # the fallback wrote into the kept buffer


def test_kfold_search_records_the_switch_in_plan_and_prints_it(monkeypatch, capsys):
    """Every float32-preconditioned solve of a KernelRidgeCV k-fold search switches to
    float64 (the float32 solves made to overflow): no ConvergenceWarning, the switches
    counted in plan_ (folds x alphas in CG groups, from the planner) and printed at
    verbose=1, and the scores still GridSearchCV(KernelRidge)'s."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import GridSearchCV, KFold

    from kernelkit import config_context
    from kernelkit.models import KernelRidgeCV
    from kernelkit.tuning import fold_path

    def overflowing(L, R):
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")

    monkeypatch.setattr(fold_path, "_precondition", overflowing)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    alphas = [1e-2, 0.1, 1.0]
    folds = KFold(3, shuffle=True, random_state=0)
    cheap_cg = {"cholesky": 1e6}  # factors dear: the planner shares float32 factors
    with config_context(rates=cheap_cg), warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = KernelRidgeCV("rbf(gamma=0.5)", alphas=alphas, cv=folds, fit_intercept=False,
                             verbose=1).fit(X, y)
        in_cg = sum(len(idx) for idx, shift in plan_fold_solves(40, alphas).groups
                    if shift is not None)
        refit_float32 = plan_fold_solves(60, [ours.alpha_]).groups[0][1] is not None
    assert in_cg > 0
    solves = [c for c in ours.plan_.choices if c.what == "fold solves"][0]
    assert "Nystroem" not in solves.value  # else its folds' alphas would not switch
    # the refit's CG switches only if it ran on a float32 factor (not a low-rank one)
    refit_in_cg = "refit preconditioned by a rank-" not in solves.reason and refit_float32
    assert f"{3 * in_cg} fold solves switched from CG" in solves.reason
    assert ("the refit's CG also switched" in solves.reason) == refit_in_cg
    full = rbf_kernel(X, gamma=0.5)  # the refit's residual, recomputed independently
    u = ours.dual_coef_.ravel()
    refit_res = np.linalg.norm(y - full @ u - ours.alpha_ * u) / np.linalg.norm(y)
    quoted = float(solves.reason.split("(the refit's ")[1].split(")")[0])
    assert quoted == pytest.approx(refit_res, rel=0.05, abs=1e-15)
    assert "fold solves switched from CG" in capsys.readouterr().out
    peer = GridSearchCV(KernelRidge(kernel="rbf", gamma=0.5), {"alpha": alphas}, cv=folds,
                        scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_squared_error"],
                               -peer.cv_results_["mean_test_score"], rtol=1e-8)


def test_dear_iterations_give_a_float32_factor_per_alpha():
    # memory-bound iterations (slow stream) against a fast float32 factor: one factor
    # per alpha, each refined at its own shift, beats sharing factors over CG
    m = 6400
    rates = {"gemm": 100e9, "cholesky": 80e9, "stream": 1e10, "elementwise": 1e9}
    plan = plan_fold_solves(m, ALPHAS, rates=rates)
    assert [len(idx) for idx, _ in plan.groups] == [1] * len(ALPHAS)
    assert all(s == pytest.approx(ALPHAS[idx[0]]) for idx, s in plan.groups)
    one_each = sum(group_seconds(m, [a], a, rates=rates)[0] for a in ALPHAS)
    assert plan.seconds == pytest.approx(one_each)
    assert plan.seconds < min(plan.alternatives.values())


def test_the_solver_defaults_to_the_tolerance_the_planner_counts_iterations_for():
    from kernelkit.planning import fold_search
    from kernelkit.tuning import fold_path

    assert fold_path.FOLD_RTOL == fold_search.FOLD_RTOL


def test_the_planner_counts_the_solver_s_column_thresholds():
    # the planner may not import the solver (rooms): its copies of the solver's switch
    # points (compiled symmetric product up to 16 columns, compiled solves up to 12)
    # must agree
    from kernelkit.planning import fold_search
    from kernelkit.tuning import fold_path

    assert fold_path.PRODUCT_COMPILED_MAX == fold_search.PRODUCT_COMPILED_MAX
    assert fold_path.TRIANGULAR_COMPILED_MAX == fold_search.TRIANGULAR_COMPILED_MAX


def test_an_iteration_costs_more_with_more_columns_and_a_far_factor_more_iterations():
    # the cost model's shape: while both the product and the solves run compiled (up to
    # 12 columns), more columns cost more, and beyond, where the solver switches to
    # LAPACK / GEMM, never less; a factor farther from the alphas costs more
    # iterations and time
    from kernelkit.planning.fold_search import _iteration_seconds

    rates = {"stream": 3e10, "gemm": 1e11, "cholesky": 5e10, "elementwise": 5e9}
    times = [_iteration_seconds(4000, k, rates) for k in range(1, 25)]
    assert all(b > a for a, b in zip(times[:12], times[1:12]))
    assert all(b >= a for a, b in zip(times, times[1:]))  # no step down at a switch
    near, far = (group_seconds(4000, [1e-2, 1e-1], s, rates=rates) for s in (0.0316, 1.0))
    assert near[1] < far[1] and near[0] < far[0]


def test_merged_groups_cost_less_than_the_same_groups_one_after_the_other():
    # one CG run for two float32 groups shares the product with K: cheaper than the
    # groups' separate costs, and as many iterations as the slower group
    from kernelkit.planning.fold_search import merged_seconds

    rates = {"stream": 3e10, "gemm": 1e11, "cholesky": 5e10, "elementwise": 5e9}
    alphas = np.array([1e-3, 1e-2, 0.1, 1.0, 10.0])
    groups = (((0, 1), 0.00316), ((2, 3, 4), 1.0))
    apart = [group_seconds(12800, alphas[list(idx)], s, rates=rates) for idx, s in groups]
    seconds, iterations = merged_seconds(12800, alphas, groups, rates=rates)
    assert iterations == max(it for _, it in apart)
    assert seconds < sum(sec for sec, _ in apart)
    factors = 2 * 12800 ** 3 / 3 / (2.0 * rates["cholesky"])
    assert seconds > factors  # and never below the factors it computes
    fast_factors = dict(rates, cholesky=1e11)  # a plan of two float32 groups
    plan = plan_fold_solves(12800, alphas, rates=fast_factors)
    assert sum(s is not None for _, s in plan.groups) == 2
    assert plan.merged == merged_seconds(12800, alphas, plan.groups, rates=fast_factors)
    one = plan_fold_solves(12800, [0.1], rates=fast_factors)
    assert one.merged is None  # nothing to merge
    # the choice quotes the merged prediction when the groups ran merged
    from kernelkit._units import format_seconds
    from kernelkit.planning.fold_search import fold_solves_choice

    merged = fold_solves_choice(plan, alphas, 12800, 5, 5 * plan.merged[1], 0, 1e-12,
                                merged=True)
    assert f"{format_seconds(plan.merged[0])} per fold" in merged.reason
    assert f"vs {plan.merged[1]} predicted" in merged.reason
    assert "in one batched CG" in merged.reason
    apart = fold_solves_choice(plan, alphas, 12800, 5, 5 * sum(plan.iterations), 0, 1e-12,
                               merged=False)
    assert f"vs {sum(plan.iterations)} predicted" in apart.reason
    assert "one after the other" in apart.reason
