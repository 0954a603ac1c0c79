"""Falkon's M x M preconditioner is checked against the memory budget before allocating."""

import numpy as np
import pytest

from kernelkit import config_context
from kernelkit.exceptions import MemoryBudgetError
from kernelkit.kernels import RBF
from kernelkit.solvers.falkon import falkon


def test_preconditioner_that_does_not_fit_is_refused_before_any_work(monkeypatch):
    from kernelkit.kernels import base

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2000, 2)), rng.normal(size=2000)

    def boom(*args, **kwargs):
        raise AssertionError("a kernel block was computed before the budget check")

    monkeypatch.setattr(base.Kernel, "block", boom)
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=r"M=1500 centers.*1500 x 1500.*fewer"):
            falkon(RBF(), X, X[:1500], y, 1.0)
