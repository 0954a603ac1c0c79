"""Grid searches that reuse work (issue 24, item 1) against scikit-learn's GridSearchCV.

KernelSVCCV over gamma x C and KernelRidgeCV's exact k-fold over gamma x alpha, with
the same folds as GridSearchCV(SVC) / GridSearchCV(KernelRidge): same best parameters,
same scores; the shared pieces (kernel blocks from one squared-distance matrix, the
shifted solves of one fold) against brute-force references.
"""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC

from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidgeCV, KernelSVCCV
from kernelkit.tuning.distance_blocks import DistanceGram
from kernelkit.planning.fold_search import plan_fold_solves
from kernelkit.tuning.fold_path import fold_solves, shifted_solves
from kernelkit.tuning.paths import squared_distances

GAMMAS = [0.02, 0.1, 0.5]
#: Rates under which the fold planner takes one float32 factor and CG for every alpha
#: (factors dear) or a float64 factor per alpha (factors cheap, products dear).
CG_RATES = {"cholesky": 1e6}
DIRECT_RATES = {"cholesky": 1e15, "gemm": 1e6, "stream": 1e6}
CS = [0.1, 1.0, 10.0]


def _classification(n=120, seed=0):
    X, y = make_classification(n, 5, n_informative=3, flip_y=0.1, random_state=seed)
    return X, y


def _regression(n=90, seed=0):
    X, y = make_regression(n, 4, noise=5.0, random_state=seed)
    X = X / X.std(axis=0)
    return X, (y - y.mean()) / y.std() + 3.0


def test_distance_gram_blocks_equal_the_rbf_kernel_and_reuse_buffers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    kernel = RBF(gamma=0.7)
    buffers = {}
    G = DistanceGram(squared_distances(X), kernel, kernel.sq_euclidean_profile(), buffers)
    train, test = np.arange(5, 40)[::-1], np.arange(5)
    block = G[np.ix_(train, train)]
    np.testing.assert_allclose(block, rbf_kernel(X[train], gamma=0.7), rtol=1e-13, atol=1e-15)
    cross = G.held_out(test, train)
    np.testing.assert_allclose(cross, rbf_kernel(X[test], X[train], gamma=0.7), rtol=1e-13,
                               atol=1e-15)
    assert np.shares_memory(block, buffers["train"]) and np.shares_memory(cross, buffers["test"])
    again = G[np.ix_(train[:10], train[:10])]  # a smaller block in the same buffer
    assert np.shares_memory(again, buffers["train"])
    with pytest.raises(TypeError):
        G[0]


def test_svc_grid_equals_gridsearchcv_with_the_same_folds():
    X, y = _classification()
    folds = KFold(4, shuffle=True, random_state=1)
    ours = KernelSVCCV("rbf", Cs=CS, param_grid={"gamma": GAMMAS}, cv=folds, tol=1e-7)
    ours.fit(X, y)
    peer = GridSearchCV(SVC(tol=1e-7), {"C": CS, "gamma": GAMMAS}, cv=folds).fit(X, y)
    assert ours.cv_results_["params"] == [dict(p, C=float(p["C"])) for p in
                                          peer.cv_results_["params"]]
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               peer.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  peer.cv_results_["rank_test_score"])
    assert ours.best_params_ == peer.best_params_
    assert ours.best_score_ == pytest.approx(peer.best_score_, abs=1e-12)
    assert ours.best_index_ == peer.best_index_
    blocks = [c for c in ours.plan_.choices if c.what == "kernel blocks"]
    assert blocks[0].value == "from one squared-distance matrix"


def test_svc_ties_go_to_the_first_candidate_as_gridsearchcv():
    # a tiny separable problem: many (C, gamma) reach accuracy 1
    X, y = _classification(n=60, seed=3)
    X = X + 4.0 * (2 * y[:, None] - 1)
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = KernelSVCCV("rbf", Cs=CS, param_grid={"gamma": GAMMAS}, cv=folds).fit(X, y)
    peer = GridSearchCV(SVC(), {"C": CS, "gamma": GAMMAS}, cv=folds).fit(X, y)
    assert (ours.cv_results_["mean_test_score"] == 1.0).sum() > 1
    assert ours.best_index_ == peer.best_index_ and ours.best_params_ == peer.best_params_


@pytest.mark.parametrize("direct", [False, True])
@pytest.mark.parametrize("alphas", [[1e-3, 1e-2, 0.1, 1.0, 10.0], [0.5]])
def test_fold_solves_equal_direct_solves(alphas, direct):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(70, 3))
    K = rbf_kernel(X, gamma=0.3)
    Y = rng.normal(size=(70, 2))
    plan = plan_fold_solves(70, alphas, 2, rates=DIRECT_RATES if direct else CG_RATES)
    coef, info = fold_solves(K, Y, alphas, plan.groups)
    for j, a in enumerate(alphas):
        reference = np.linalg.solve(K + a * np.eye(70), Y)
        np.testing.assert_allclose(coef[j], reference, rtol=1e-8,
                                   atol=1e-10 * np.abs(reference).max())
    assert info["direct"] == direct and info["residual"] < 1e-9
    assert info["factors"] == (len(alphas) if direct else 1) == plan.factors


@pytest.mark.parametrize("merge", [True, False])
def test_float32_groups_merged_into_one_cg_solve_as_one_after_the_other(merge):
    # two float32 groups and a float64 one: merged, one CG run reads K once per
    # iteration for both groups (as many passes as the slower group), each column with
    # its own group's factor; the answers are the exact solves either way
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 3))
    K = rbf_kernel(X, gamma=0.3)
    Y = rng.normal(size=(90, 2))
    alphas = [1e-3, 1e-2, 0.1, 1.0, 10.0, 0.05]
    groups = [((0, 1), 0.00316), ((2, 3, 4), 1.0), ((5,), None)]
    coef, info = fold_solves(K, Y, alphas, groups, work={}, merge=merge)
    for j, a in enumerate(alphas):
        reference = np.linalg.solve(K + a * np.eye(90), Y)
        np.testing.assert_allclose(coef[j], reference, rtol=1e-8,
                                   atol=1e-10 * np.abs(reference).max())
    assert info["merged"] == merge and info["factors"] == 3 and not info["direct"]
    apart = [shifted_solves(K, Y, [alphas[i] for i in idx], alpha_ref=s).n_iter
             for idx, s in groups[:2]]
    assert info["n_iter"] == (max(apart) if merge else sum(apart))


def test_merged_groups_whose_float32_solves_overflow_all_switch_to_float64(monkeypatch):
    from kernelkit.tuning import fold_path

    def overflowing(L, R):
        raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")

    monkeypatch.setattr(fold_path, "_precondition", overflowing)
    rng = np.random.default_rng(7)
    K = rbf_kernel(rng.normal(size=(50, 2)), gamma=0.5)
    y = rng.normal(size=50)
    alphas = [1e-2, 0.1, 1.0, 10.0]
    coef, info = fold_solves(K, y, alphas, [((0, 1), 0.03), ((2, 3), 3.0)], merge=True)
    assert info["merged"] and info["fallbacks"] == 4 and info["n_iter"] <= 1  # found at once
    for j, a in enumerate(alphas):
        np.testing.assert_allclose(coef[j, :, 0], np.linalg.solve(K + a * np.eye(50), y),
                                   rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("memory", [None, 18_000_000])
def test_ridge_search_merges_its_cg_groups_when_their_preconditioners_fit(memory):
    # 900 rows, 720 per training fold: the search itself needs 17.88 MB; the low-rank
    # probe 0.41 MB more (then a float32 group and a low-rank group, merged), two
    # float32 factors merged 2.07 MB more. With 18 MB: no probe, the planner's two
    # float32 groups (rates chosen so) one after the other; plan_ says which; the
    # scores are GridSearchCV's either way
    rng = np.random.default_rng(8)
    X = rng.normal(size=(900, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=900)
    alphas = [1e-3, 1e-2, 0.1, 1.0, 10.0]
    rates = {"cholesky": 1e9, "stream": 1e10, "gemm": 1e9, "elementwise": 1e9}
    assert sum(s is not None for _, s in plan_fold_solves(720, alphas, rates=rates).groups) == 2
    folds = KFold(5, shuffle=True, random_state=0)
    with config_context(rates=rates, **({} if memory is None else {"memory": memory})):
        ours = KernelRidgeCV("rbf(gamma=0.5)", alphas=alphas, cv=folds,
                             fit_intercept=False).fit(X, y)
    solves = [c for c in ours.plan_.choices if c.what == "fold solves"][0]
    probed = memory is None
    assert ("Nystroem" in solves.value) == probed
    assert ("in one batched CG" in solves.reason) == probed
    assert ("one after the other" in solves.reason) == (not probed)
    peer = GridSearchCV(KernelRidge(kernel="rbf", gamma=0.5), {"alpha": alphas}, cv=folds,
                        scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_squared_error"],
                               -peer.cv_results_["mean_test_score"], rtol=1e-8)


def test_a_low_rank_plan_that_overruns_its_first_fold_is_dropped(monkeypatch):
    # the iteration estimate made blind to the low rank's error (kappa 1): the first
    # fold takes far more iterations than predicted, so the other folds are planned
    # without the low rank; plan_ says so; the scores are still GridSearchCV's
    from kernelkit.planning import fold_search

    monkeypatch.setattr(fold_search, "LOW_RANK_ERROR", 0.0)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(1500, 4))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=1500)
    alphas = [1e-3, 1e-2, 0.1, 1.0]
    folds = KFold(3, shuffle=True, random_state=0)
    rates = {"cholesky": 9e10, "gemm": 1e11, "stream": 2.3e10, "elementwise": 2e9}
    with config_context(rates=rates):  # this machine's, whatever the calibration cache
        ours = KernelRidgeCV("rbf(gamma=1.0)", alphas=alphas, cv=folds,
                             fit_intercept=False).fit(X, y)
    solves = [c for c in ours.plan_.choices if c.what == "fold solves"][0]
    assert "Nystroem" in solves.value
    assert "the other folds planned without it" in solves.reason
    peer = GridSearchCV(KernelRidge(kernel="rbf", gamma=1.0), {"alpha": alphas}, cv=folds,
                        scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_squared_error"],
                               -peer.cv_results_["mean_test_score"], rtol=1e-8)


def test_a_merged_group_whose_float32_solves_overflow_falls_back_alone(monkeypatch):
    # one group's factor overflows in float32: only its alphas switch to float64
    # factors, the other group's CG goes on; every answer is still the exact solve
    from kernelkit.tuning import fold_path

    real = fold_path._precondition
    bad = []

    def first_factor_fails(L, R):
        if not bad:
            bad.append(id(L))
        if id(L) == bad[0]:
            raise np.linalg.LinAlgError("the float32 Cholesky factor is singular")
        return real(L, R)

    monkeypatch.setattr(fold_path, "_precondition", first_factor_fails)
    rng = np.random.default_rng(9)
    K = rbf_kernel(rng.normal(size=(60, 2)), gamma=0.5)
    y = rng.normal(size=60)
    alphas = [1e-2, 0.1, 1.0, 10.0, 30.0]
    coef, info = fold_solves(K, y, alphas, [((0, 1), 0.03), ((2, 3, 4), 3.0)], merge=True)
    assert info["merged"] and info["fallbacks"] == 2 and info["n_iter"] > 0
    assert sorted(info["fallback_alphas"]) == [1e-2, 0.1]
    for j, a in enumerate(alphas):
        np.testing.assert_allclose(coef[j, :, 0], np.linalg.solve(K + a * np.eye(60), y),
                                   rtol=1e-8, atol=1e-10)


def test_fold_solves_with_more_columns_than_the_compiled_passes_take():
    # 9 alphas x 2 targets in one float32 group: 18 columns, beyond the compiled
    # solves (12) and the compiled product (16): strtrs and GEMM until columns leave
    from kernelkit.tuning.fold_path import PRODUCT_COMPILED_MAX, TRIANGULAR_COMPILED_MAX

    rng = np.random.default_rng(10)
    K = rbf_kernel(rng.normal(size=(80, 3)), gamma=0.3)
    Y = rng.normal(size=(80, 2))
    alphas = list(np.geomspace(0.05, 5.0, 9))
    assert 2 * len(alphas) > max(PRODUCT_COMPILED_MAX, TRIANGULAR_COMPILED_MAX)
    coef, info = fold_solves(K, Y, alphas, [(tuple(range(9)), 0.5)])
    for j, a in enumerate(alphas):
        reference = np.linalg.solve(K + a * np.eye(80), Y)
        np.testing.assert_allclose(coef[j], reference, rtol=1e-8,
                                   atol=1e-10 * np.abs(reference).max())
    assert info["residual"] < 1e-9 and info["fallbacks"] == 0


def test_merged_solves_refuse_a_shift_count_other_than_the_alphas():
    from kernelkit.tuning.fold_path import merged_solves

    with pytest.raises(ValueError, match="one shift per alpha"):
        merged_solves(np.eye(3), np.ones(3), [0.1, 1.0], [0.3])


def test_shifted_solves_fall_back_to_float64_when_cg_stops_short():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 2))
    K = rbf_kernel(X, gamma=0.5)
    y = rng.normal(size=50)
    r = shifted_solves(K, y, [1e-3, 1.0], maxiter=1)
    assert r.fallbacks >= 1
    for j, a in enumerate([1e-3, 1.0]):
        np.testing.assert_allclose(r.coef[j, :, 0], np.linalg.solve(K + a * np.eye(50), y),
                                   rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("where", [(7, 7), (30, 4)])
def test_shifted_solves_refuse_a_kernel_matrix_with_nan(where):
    # the float32 factor is not checked finite before factoring (its matrix was when it
    # was computed): a NaN that got through anyway still ends in the clear error
    rng = np.random.default_rng(3)
    K = rbf_kernel(rng.normal(size=(40, 2)), gamma=0.5)
    K[where] = K[where[::-1]] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        shifted_solves(K, rng.normal(size=40), [1e-2, 1.0])


@pytest.mark.parametrize("direct", [False, True])
def test_ridge_kfold_equals_gridsearchcv_kernel_ridge(direct):
    X, y = _regression()
    folds = KFold(5, shuffle=True, random_state=0)
    alphas, gammas = [1e-3, 1e-2, 0.1, 1.0, 10.0], [0.05, 0.2, 1.0]
    with config_context(rates=DIRECT_RATES if direct else CG_RATES):
        ours = KernelRidgeCV("rbf", alphas=alphas, param_grid={"gamma": gammas}, cv=folds,
                             fit_intercept=False).fit(X, y)
    peer = GridSearchCV(KernelRidge(kernel="rbf"), {"alpha": alphas, "gamma": gammas},
                        cv=folds, scoring="neg_mean_squared_error").fit(X, y)
    assert ours.plan_.choice == "exact"  # "auto" with folds given
    solves = [c for c in ours.plan_.choices if c.what == "fold solves"][0]
    plans = [part.split(": ", 1)[1] for part in solves.value.split(" | ")]  # per gamma
    assert len(plans) == len(gammas)
    assert all(p.startswith("float64") and "float32" not in p and "Nystroem" not in p
               for p in plans) == direct
    mine = {(a, p["gamma"]): s for p, a, s in zip(ours.cv_results_["params"],
                                                 ours.cv_results_["alpha"],
                                                 ours.cv_results_["mean_test_score"])}
    for p, s in zip(peer.cv_results_["params"], peer.cv_results_["mean_test_score"]):
        assert mine[(p["alpha"], p["gamma"])] == pytest.approx(s, rel=1e-8)
    assert {"alpha": ours.alpha_, "gamma": ours.best_params_["gamma"]} == peer.best_params_
    assert ours.best_score_ == pytest.approx(-peer.best_score_, rel=1e-8)
    np.testing.assert_allclose(ours.predict(X), peer.best_estimator_.predict(X), rtol=1e-8)


def test_ridge_kfold_intercept_is_each_fold_mean_and_lists_of_folds_work():
    X, y = _regression(n=60, seed=4)
    folds = list(KFold(3, shuffle=True, random_state=2).split(X))
    ours = KernelRidgeCV(RBF(gamma=0.3), alphas=[0.01, 1.0], cv=folds).fit(X, y)
    for j, alpha in enumerate([0.01, 1.0]):
        errors = []
        for train, test in folds:  # brute force: KernelRidge on centred targets
            m = y[train].mean()
            fit = KernelRidge(alpha=alpha, kernel="rbf", gamma=0.3).fit(X[train], y[train] - m)
            errors.append(np.mean((y[test] - m - fit.predict(X[test])) ** 2))
        assert ours.cv_results_["mean_squared_error"][j] == pytest.approx(np.mean(errors),
                                                                          rel=1e-8)
    assert ours.criterion_ == "3-fold"


def test_ridge_splitter_needs_the_exact_solver():
    X, y = _regression(n=30)
    with pytest.raises(InvalidParameterError, match="splitter"):
        KernelRidgeCV(solver="nystroem", cv=KFold(3)).fit(X, y)
