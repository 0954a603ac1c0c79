"""The operators of ``Kernel`` find the algebra's nodes through the table
``kernels/algebra.py`` fills at import (``kernels/base.py`` cannot import them:
they subclass ``Kernel``). Compared against the node classes built by hand."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

from kernelkit.kernels import RBF, Constant, Linear, Power, Product, Scaled, Sum
from kernelkit.kernels import base


def test_every_operator_builds_the_node_written_by_hand():
    a, b = RBF(gamma=0.5), Linear()
    assert a + b == Sum(a, b)
    assert a + 1.5 == Sum(a, Constant(value=1.5))
    assert 2 + a == Sum(a, Constant(value=2.0))
    assert a * b == Product(a, b)
    assert 3 * a == Scaled(a, 3.0) == a * 3
    assert a / 4 == Scaled(a, 0.25)
    assert b ** 2 == Power(b, 2)
    assert sum([a, b]) == Sum(a, b)
    for k in (a + b, a + 1.5, 3 * a, a / 4, b ** 2):
        assert repr(k) == repr(pickle.loads(pickle.dumps(k)))
    X = np.random.default_rng(0).normal(size=(6, 3))
    np.testing.assert_allclose((2 * a + b ** 2)(X), 2 * np.exp(-0.5 * (
        (X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) + (X @ X.T) ** 2, rtol=1e-12)


def test_the_table_holds_the_algebra_modules_classes():
    from kernelkit.kernels import algebra, vector

    assert base._ALGEBRA_NODES == {"Sum": algebra.Sum, "Product": algebra.Product,
                                   "Scaled": algebra.Scaled, "Power": algebra.Power,
                                   "Constant": vector.Constant}


@pytest.mark.parametrize("nodes, match", [
    ({"Sum": Sum}, "missing"),
    ({"Sum": Sum, "Product": Product, "Scaled": Scaled, "Power": Power, "Constant": Constant,
      "Quotient": Sum}, "unknown"),
    ({"Sum": dict, "Product": Product, "Scaled": Scaled, "Power": Power,
      "Constant": Constant}, "subclass of Kernel"),
])
def test_registering_a_wrong_table_is_refused_and_changes_nothing(nodes, match):
    before = dict(base._ALGEBRA_NODES)
    with pytest.raises(TypeError, match=match):
        base.register_algebra_nodes(**nodes)
    assert base._ALGEBRA_NODES == before


def test_an_empty_table_says_which_import_fills_it(monkeypatch):
    monkeypatch.setattr(base, "_ALGEBRA_NODES", {})
    with pytest.raises(RuntimeError, match="import kernelkit.kernels"):
        RBF(gamma=1.0) + Linear()


def test_importing_only_base_and_rbf_still_gives_the_operators():
    """Python runs kernels/__init__ (which imports algebra) before any module of it."""
    code = ("from kernelkit.kernels.base import Kernel\n"
            "from kernelkit.kernels.rbf import RBF\n"
            "k = 2 * RBF(gamma=1.0) + 1\n"
            "print(type(k).__module__, type(k).__name__, k)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.strip()
    assert out == "kernelkit.kernels.algebra Sum 2.0 * RBF(gamma=1.0) + Constant()"
