"""Falkon's "every row distinct" decision is a boolean handed over by the row check,
not read back from the text of the ``"repeated rows"`` report in ``plan_``.

The reference for "distinct" is ``np.unique(X, axis=0)``; the report's words are
renamed in the tests, and the branch Falkon takes (uniform centers compared again or
not) must not move.
"""

import numpy as np
import pytest

from kernelkit.kernels import RBF


def _rows(repeat, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 3))
    if repeat:
        X = np.vstack([X, X[:25]])
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    return X, y


@pytest.mark.parametrize("repeat", [False, True])
def test_merge_rows_choice_says_distinct_as_np_unique_does(repeat):
    from kernelkit.solvers.falkon_rows import merge_rows_choice

    X, y = _rows(repeat)
    found = merge_rows_choice(X, y, None)
    distinct = len(np.unique(X, axis=0)) == len(X)
    assert found.checked and found.all_distinct == distinct
    assert (found.merged is None) == distinct
    if not distinct:
        assert len(found.merged.X) == len(np.unique(X, axis=0))


def test_rows_not_compared_are_not_called_distinct():
    from kernelkit.solvers.falkon_rows import merge_rows_choice

    X = np.empty(3, dtype=object)
    X[:] = [{1}, {2}, {3}]  # objects: rows are compared as arrays only
    found = merge_rows_choice(X, np.zeros(3), None)
    assert not found.checked and not found.all_distinct and found.merged is None


@pytest.mark.parametrize("repeat", [False, True])
def test_the_falkon_branch_follows_the_rows_not_the_report_text(monkeypatch, repeat):
    """The report reworded ("none" -> "no repeats", "merged" -> "combined"): Falkon
    still skips the centers' comparison exactly when np.unique finds every row
    distinct (before the fix, the renamed report made it compare them again)."""
    import kernelkit.models.kernel_ridge as kr_module
    from kernelkit.models import KernelRidge
    from kernelkit.solvers import falkon_rows

    real_choice = falkon_rows.Choice
    renamed = {"none": "no repeats", "merged": "combined"}
    monkeypatch.setattr(falkon_rows, "Choice", lambda what, value, reason: real_choice(
        what, renamed.get(value, value) if what == "repeated rows" else value,
        "reworded: " + reason))
    handed = []
    real_draw = kr_module.draw_centers
    monkeypatch.setattr(kr_module, "draw_centers",
                        lambda *a, **kw: handed.append(kw["rows_distinct"]) or real_draw(*a, **kw))
    X, y = _rows(repeat)
    model = KernelRidge(RBF(gamma=0.3), solver="falkon", n_centers=30, random_state=0,
                        center_selection="uniform").fit(X, y)
    distinct = len(np.unique(X, axis=0)) == len(X)
    assert handed == [distinct]
    report = {c.what: c for c in model.plan_.choices}["repeated rows"]
    assert report.value == ("no repeats" if distinct else "combined")  # the text renamed
