"""Every size-dependent automatic choice of a fit shows up in the estimator's ``plan_``."""

import numpy as np
import pytest

import kernelkit
from kernelkit.datasets import load_banana
from kernelkit.exceptions import MemoryBudgetError
from kernelkit.kernels import RBF
from kernelkit.models import (KernelKMeans, KernelLogisticRegression, KernelMachine,
                              KernelMachineClassifier, KernelRidge, KernelRidgeCV, KernelSVC)
from kernelkit.planning import Plan


def _choice(plan, what):
    found = [c for c in plan.choices if what in c.what]
    assert found, f"no choice about {what!r} in\n{plan.explain()}"
    return found[0]


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    return X[:1200], y[:1200]


def test_svc_stores_the_gram_matrix_under_the_default_budget(banana):
    X, y = banana
    clf = KernelSVC(RBF(gamma=1.0)).fit(X[:300], y[:300])
    store = _choice(clf.plan_, "300 x 300 Gram matrix")
    assert store.value is True and "<= 0.5 of the memory budget" in store.reason
    assert clf.plan_.choice == "smo" and "Gram matrices stored" in clf.plan_.reason


def test_svc_computes_rows_on_demand_when_the_gram_matrix_does_not_fit(banana):
    X, y = banana  # K is 8 * 1200^2 = 11 MB > half of 16 MB
    with kernelkit.config_context(memory="16MB"):
        small = KernelSVC(RBF(gamma=1.0)).fit(X, y)
    store = _choice(small.plan_, "1200 x 1200 Gram matrix")
    assert store.value is False
    assert "11 MB > 0.5 of the memory budget 16 MB" in store.reason
    assert "on demand" in small.plan_.reason
    assert "store the 1200 x 1200 Gram matrix: False" in small.plan_.explain()
    # The choice changes the work, not the model (up to SMO's tolerance).
    full = KernelSVC(RBF(gamma=1.0)).fit(X, y)
    assert _choice(full.plan_, "1200 x 1200 Gram matrix").value is True
    assert np.mean(small.predict(X) == full.predict(X)) > 0.99


def test_svc_forced_cache_and_one_vs_one_pairs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    forced = KernelSVC(RBF(gamma=0.5), cache=False).fit(X, y)
    stores = [c for c in forced.plan_.choices if c.what.startswith("store")]
    assert stores and all(c.value is False and "forced" in c.reason for c in stores)
    # rows on demand: each one-vs-one problem of 60 samples keeps a row cache of them all
    caches = [c for c in forced.plan_.choices if c.what == "kernel-row cache"]
    assert [c.value for c in caches] == ["60 of 60 rows"]
    assert "of the memory budget" in caches[0].reason
    auto = KernelSVC(RBF(gamma=0.5)).fit(X, y)
    assert _choice(auto.plan_, "class pairs").value is True
    assert auto.plan_.problem == {"n": 90, "classes": 3, "problems": 3}


def test_svc_row_cache_under_a_small_budget_is_recorded():
    X = np.random.default_rng(0).normal(size=(1500, 2))
    y = (X[:, 0] > 0).astype(int)
    with kernelkit.config_context(memory="16MB"):
        clf = KernelSVC(RBF(gamma=0.5)).fit(X, y)
    cache = _choice(clf.plan_, "kernel-row cache")
    rows = (16 * 1024**2 // 4) // (8 * 1500)
    assert cache.value == f"{rows} of 1500 rows" and "4 MB" in cache.reason


def test_svc_precomputed_has_a_plan_without_storage_choices():
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.repeat([0, 1], 20)
    clf = KernelSVC("precomputed").fit(RBF(gamma=0.5)(X), y)
    assert isinstance(clf.plan_, Plan) and clf.plan_.choices == ()


def test_kmeans_records_storing_k():
    X = np.random.default_rng(0).normal(size=(1600, 2))  # K is 20 MB
    init = X[:4]
    stored = KernelKMeans(4, kernel=RBF(gamma=0.2), init=init).fit(X)
    assert _choice(stored.plan_, "1600 x 1600 Gram matrix").value is True
    with kernelkit.config_context(memory="16MB"):
        blocked = KernelKMeans(4, kernel=RBF(gamma=0.2), init=init).fit(X)
    store = _choice(blocked.plan_, "1600 x 1600 Gram matrix")
    assert store.value is False and "19.5 MB > 0.5 of the memory budget 16 MB" in store.reason
    nys = KernelKMeans(4, kernel=RBF(gamma=0.2), approximation="nystroem", n_components=20,
                       random_state=0).fit(X[:200])
    assert nys.plan_.choice == "nystroem"


def test_kernel_machine_records_newton_or_sgd():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 2))
    y = np.sin(X[:, 0])
    newton = KernelMachine(RBF(gamma=0.5), loss="huber", alpha=1.0).fit(X[:300], y[:300])
    assert newton.solver_ == "newton" and newton.plan_.choice == "newton"
    assert _choice(newton.plan_, "solver").value == "newton"
    X = rng.normal(size=(3000, 2))
    y = np.sin(X[:, 0])
    with kernelkit.config_context(memory="128MB"):  # K is 68.7 MB
        sgd = KernelMachine(RBF(gamma=0.5), loss="huber", n_epochs=1, random_state=0).fit(X, y)
    solver = _choice(sgd.plan_, "solver")
    assert sgd.solver_ == "sgd" and solver.value == "sgd"
    assert solver.reason == ("Newton needs the Gram matrix: 68.7 MB > 0.5 of the memory "
                             "budget 128 MB")
    assert sgd.plan_.choice == sgd.strategy_  # the SGD planner's table, with the choice added
    hinge = KernelMachineClassifier(RBF(), loss="hinge", n_epochs=1, random_state=0).fit(
        X[:100], np.sign(y[:100]))
    assert "hinge" in _choice(hinge.plan_, "solver").reason


def test_kernel_machine_lbfgs_records_storing_k():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 2))
    y = np.sin(X[:, 0])
    with kernelkit.config_context(memory="16MB"):
        m = KernelMachine(RBF(gamma=0.5), loss="huber", solver="lbfgs", max_iter=5).fit(X, y)
    assert _choice(m.plan_, "solver").reason == "set by the user"
    assert _choice(m.plan_, "1500 x 1500 Gram matrix").value is False


def test_newton_budget_error_prints_sizes_in_binary_units():
    X = np.random.default_rng(0).normal(size=(1500, 2))
    with kernelkit.config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=r"needs 17.2 MB but the memory budget is "
                                                    r"16 MB.*solver='lbfgs'"):
            KernelMachine(RBF(), loss="huber", solver="newton").fit(X, X[:, 0])


def test_logistic_regression_plans():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    multi = KernelLogisticRegression(RBF(gamma=0.5), max_iter=50).fit(X, y)
    assert multi.plan_.choice == "lbfgs"
    assert _choice(multi.plan_, "120 x 120 Gram matrix").value is True
    binary = KernelLogisticRegression(RBF(gamma=0.5), max_iter=50).fit(X, y > 0)
    assert binary.plan_.choice == "lbfgs" and len(binary.plan_.choices) == 2


def test_exact_ridge_budget_errors_print_sizes_in_binary_units():
    X = np.random.default_rng(0).normal(size=(1500, 2))
    with kernelkit.config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=r"n=1500 .* needs 17.2 MB but the memory "
                                                    r"budget is 16 MB.*subsample"):
            KernelRidge(RBF(), solver="dual", precision="float64").fit(X, X[:, 0])
        # the float32 Gram matrix (9 MB) fits: "auto" solves in mixed precision
        mixed = KernelRidge(RBF(), solver="dual").fit(X, X[:, 0])
        assert {c.what: c.value for c in mixed.plan_.choices}["precision"] == "mixed"
        assert "does not fit the budget" in str(mixed.plan_)
        X2 = np.random.default_rng(1).normal(size=(2500, 2))
        with pytest.raises(MemoryBudgetError, match=r"n=2500 .* float32 Gram matrix\) needs "
                                                    r"23.8 MB but the memory budget is 16 MB"):
            KernelRidge(RBF(), solver="dual").fit(X2, X2[:, 0])
        with pytest.raises(MemoryBudgetError, match=r"leave-one-out .* needs 34.3 MB but the "
                                                    r"memory budget is 16 MB"):
            KernelRidgeCV(RBF(), solver="exact").fit(X, X[:, 0])
        # solver="auto" plans the Nystroem path instead (within the budget)
        assert KernelRidgeCV(RBF()).fit(X, X[:, 0]).plan_.choice == "nystroem"


@pytest.mark.parametrize("make", [
    lambda: KernelRidge(RBF(gamma=0.5)),
    lambda: KernelMachine(RBF(gamma=0.5), loss="huber"),
    lambda: KernelSVC(RBF(gamma=0.5)),
    lambda: KernelKMeans(2, kernel=RBF(gamma=0.5), random_state=0),
    lambda: KernelLogisticRegression(RBF(gamma=0.5)),
], ids=["ridge", "machine", "svc", "kmeans", "logistic"])
def test_verbosity_prints_the_plan_once_per_fit(make, capsys):
    X = np.random.default_rng(0).normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    make().fit(X, y)
    assert capsys.readouterr().out == ""
    with kernelkit.config_context(verbosity=1):
        est = make().fit(X, y)
    out = capsys.readouterr().out
    assert out == est.plan_.explain() + "\n"


def test_ridge_verbose_parameter_prints_the_plan(capsys):
    X = np.random.default_rng(0).normal(size=(50, 2))
    est = KernelRidge(RBF(gamma=0.5), verbose=1).fit(X, X[:, 0])
    assert capsys.readouterr().out == est.plan_.explain() + "\n"


def test_falkon_records_storing_k_nm():
    X = np.random.default_rng(0).normal(size=(600, 3))
    y = np.sin(X[:, 0])
    model = KernelRidge(RBF(gamma=0.5), solver="falkon", n_centers=50, random_state=0).fit(X, y)
    knm = _choice(model.plan_, "K_nM")
    assert knm.value is True and "<=" in knm.reason
    with kernelkit.config_context(memory="16MB"):
        big = np.random.default_rng(1).normal(size=(30000, 3))
        tight = KernelRidge(RBF(gamma=0.5), solver="falkon", n_centers=100, max_iter=3,
                            random_state=0).fit(big, np.sin(big[:, 0]))
    assert _choice(tight.plan_, "K_nM").value is False  # 30000 x 100 x 8 B = 23 MB > 16 MB


def test_a_forced_ridge_solver_is_the_plans_choice():
    X = np.random.default_rng(0).normal(size=(300, 3))
    forced = KernelRidge(RBF(gamma=0.5), solver="falkon", n_centers=50).fit(X, X[:, 0])
    assert forced.plan_.choice == "falkon" and "set by the user" in forced.plan_.reason
    assert "the planner would pick dual" in forced.plan_.reason
    auto = KernelRidge(RBF(gamma=0.5)).fit(X, X[:, 0])
    assert auto.plan_.choice == auto.solver_ == "dual"
