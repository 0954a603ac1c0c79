"""KernelRidge.fit as validate -> plan -> execute: one visit to the planner.

Every automatic choice of the fit is made by one call of
``planning.plan_kernel_ridge``; the solvers follow the plan (Falkon is given the
K_nM decision and does not ask again) and only add what they found in the data.
"""

import importlib

import numpy as np
import pytest

import kernelkit.models.kernel_ridge as kr_module
from kernelkit import config_context
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelRidge
from kernelkit.planning import falkon_store_choice, plan_kernel_ridge, plan_ridge

# the module (kernelkit.solvers.falkon is also the name of the function it exports)
falkon_module = importlib.import_module("kernelkit.solvers.falkon")


def _count_plans(monkeypatch):
    calls = []

    def counting(*args, **kwargs):
        calls.append(kwargs.get("solver"))
        return plan_kernel_ridge(*args, **kwargs)

    monkeypatch.setattr(kr_module, "plan_kernel_ridge", counting)
    # the solver cannot ask the planner again: it does not import it
    # (tests/test_planning_room.py); it follows the plan's Choice of storing K_nM
    assert not hasattr(falkon_module, "falkon_store_choice")
    return calls


def _data(n=300, repeat=False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    if repeat:
        X = np.vstack([X, X[: n // 2]])
    return X, np.sin(X[:, 0]) + X[:, 1]


@pytest.mark.parametrize("kw", [dict(), dict(solver="falkon", n_centers=40, random_state=0),
                                dict(solver="falkon", n_centers=40, random_state=0,
                                     center_selection="distinct"),
                                dict(kernel=Linear(), solver="primal"),
                                dict(precision="mixed")])
def test_fit_visits_the_planner_once(monkeypatch, kw):
    calls = _count_plans(monkeypatch)
    X, y = _data(repeat=True)
    kw = dict(dict(kernel=RBF(gamma=0.5), alpha=0.1), **kw)
    model = KernelRidge(**kw).fit(X, y)
    assert calls == [kw.get("solver", "auto")]
    assert model.solver_ == kw.get("solver", "dual")


def test_the_plan_records_what_the_fit_did():
    # Falkon on rows with repeats: the plan's merge, K_nM and centers choices, then the
    # solver's findings, in that order; the recorded strategy is plan_ridge's own table.
    X, y = _data(repeat=True)
    with config_context(memory="1GB"):
        model = KernelRidge(RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=40,
                            random_state=0).fit(X, y)
        store = falkon_store_choice(300, 40, 8)
        reference = plan_ridge(len(X), 3, memory=None, n_centers=40)
    whats = [c.what for c in model.plan_.choices]
    assert whats[:2] == ["repeated rows", "store K_nM (300 x 40)"]
    assert whats[2:] == ["distinct centers", "preconditioner", "Falkon solve"]
    assert model.plan_.choices[1] == store
    assert model.plan_.candidates == reference.candidates


def test_plan_kernel_ridge_alone_makes_every_choice():
    # the planner with no data: what a fit of that size would do, before any numerics
    with config_context(memory="16MB"):
        dual = plan_kernel_ridge(1000, 3, RBF(gamma=1.0), alpha=np.array([1.0]))
        falkon = plan_kernel_ridge(1000, 3, RBF(gamma=1.0), alpha=np.array([1.0]),
                                   solver="falkon", n_centers=50)
    assert dual.solver == "dual" and not dual.mixed and dual.store_knm is None
    assert [c.what for c in dual.plan.choices] == ["precision"]
    assert falkon.solver == "falkon" and falkon.n_centers == 50
    assert falkon.store_knm.value is True and falkon.merged is None
    assert "K_nM (1000 x 50)" in falkon.store_knm.what
    with pytest.raises(ValueError, match="precomputed"):
        plan_kernel_ridge(10, 10, "precomputed", solver="falkon")
