"""The Dask estimators plan once, expose plan_, and take KernelRidge's n_centers."""

import importlib
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from kernelkit import KernelRidge  # noqa: E402
from kernelkit.dask import (DaskKernelKMeans, DaskKernelRidge,  # noqa: E402
                            DaskKernelRidgeClassifier)
from kernelkit.exceptions import InvalidParameterError  # noqa: E402
from kernelkit.planning import Plan, falkon_centers  # noqa: E402
from kernelkit.planning.dask import plan_dask_ridge  # noqa: E402

ridge_module = importlib.import_module("kernelkit.dask.ridge")
operators_module = importlib.import_module("kernelkit.dask.operators")
KERNEL = "rbf(gamma=0.3)"


def _data(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.sin(X[:, 0]) + 0.5 * X[:, 1]


@pytest.mark.parametrize("solver", ["auto", "falkon", "features"])
def test_fit_visits_the_planner_once(where, monkeypatch, solver):
    calls = []

    def counting(*args, **kwargs):
        calls.append(kwargs["solver"])
        return plan_dask_ridge(*args, **kwargs)

    monkeypatch.setattr(ridge_module, "plan_dask_ridge", counting)
    # the operator cannot ask the planner again: it does not import it
    # (tests/test_planning_room.py); it follows the plan's Choice of persisting K_nM
    assert not hasattr(operators_module, "plan_persist")
    X, y = _data()
    m = DaskKernelRidge(KERNEL, solver=solver, n_centers=30, max_iter=20, random_state=0)
    m.client = where
    m.fit(da.from_array(X, chunks=200), y)
    assert calls == [solver]
    assert m.solver_ == (m.plan_.choice if solver == "auto" else solver)


@pytest.mark.filterwarnings("ignore::kernelkit.exceptions.NumericalWarning")  # 800 centers
def test_plan_explains_its_choices(where):
    X, y = _data()
    Xd = da.from_array(X, chunks=200)
    falkon = DaskKernelRidge(KERNEL, n_centers=30, tol=1e-4, random_state=0)
    falkon.client = where
    falkon.fit(Xd, y)
    plan = falkon.plan_
    assert isinstance(plan, Plan) and plan.choice == falkon.solver_ == "falkon"
    # the attributes of before are the plan's own records
    assert plan.choices[:2] == (falkon.solver_choice_, falkon.store_choice_)
    assert plan.problem == {"n": 600, "d": 3, "M": 30}
    text = plan.explain()
    for c in plan.choices:
        assert str(c) in text
    whats = [c.what for c in plan.choices]
    chunks = ["rows per chunk"] if where is not None else []  # the workers' room, read
    assert whats == ["solver", "persist the K_nM chunks", "preconditioner", "Falkon solve",
                     *chunks]
    # the same preconditioner as the in-memory twin finds on the same centers
    ref = KernelRidge(KERNEL, solver="falkon", n_centers=30, tol=1e-4, random_state=0).fit(X, y)
    ref_choices = {c.what: c for c in ref.plan_.choices}
    assert plan.choices[2] == ref_choices["preconditioner"]
    clf = DaskKernelRidgeClassifier(KERNEL, solver="features", random_state=0)
    clf.client = where
    clf.fit(Xd, y > 0)
    assert clf.plan_.choice == "features"
    assert clf.plan_.choices[0] == clf.solver_choice_
    assert [c.what for c in clf.plan_.choices[1:]] == chunks
    assert "set by the user" in clf.plan_.explain()
    assert clf.plan_.problem["M"] == falkon_centers(600)  # "auto": KernelRidge's rule
    km = DaskKernelKMeans(3, n_components=800, random_state=0)
    km.client = where
    km.fit(Xd)
    centers, *rest = km.plan_.choices
    assert [c.what for c in rest] == chunks
    if chunks:  # 600 rows in chunks of 200
        assert rest[0].value == 200 and "3 chunks of up to 200 rows" in rest[0].reason
    assert centers.value == 600 == km.feature_map_.components_.shape[0]
    assert "capped at n=600" in km.plan_.explain()


def test_n_components_is_the_deprecated_name_of_n_centers():
    X, y = _data(300)
    new = DaskKernelRidge(KERNEL, solver="features", n_centers=20, random_state=0).fit(X, y)
    with pytest.warns(FutureWarning, match="use n_centers"):
        old = DaskKernelRidge(KERNEL, solver="features", n_components=20,
                              random_state=0).fit(X, y)
    np.testing.assert_array_equal(old.coef_, new.coef_)
    assert old.plan_ == new.plan_
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # the new name warns nothing
        DaskKernelRidge(KERNEL, solver="features", n_centers=20, random_state=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="n_centers only"):
        DaskKernelRidge(KERNEL, n_centers=10, n_components=20).fit(X, y)
    assert DaskKernelRidge().get_params()["n_components"] == "deprecated"
