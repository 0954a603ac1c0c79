"""The polynomial basis: Phi Phi' = K, the basis written out by hand, D = binom(d + p, p)."""

import itertools
import math

import numpy as np
import pytest

from gallery._load import load_example

ex = load_example("polynomial_basis")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_worked_example_phi_phi_transpose_is_k(res):
    X = res["points"]
    K = (X @ X.T + 1.0) ** 2  # the closed form, computed here
    Phi = res["Phi"]
    assert np.max(np.abs(Phi @ Phi.T - K)) < 1e-12 * np.max(K)
    # integer points: K is an integer matrix, and Phi Phi' rounds to it exactly
    assert np.array_equal(np.rint(Phi @ Phi.T), K)
    assert np.array_equal(res["K"], K)


def test_worked_example_basis_by_hand(res):
    """phi(x) = (1, sqrt2 x1, sqrt2 x2, x1^2, sqrt2 x1 x2, x2^2), in the columns' order."""
    x1, x2, r = res["points"][:, 0], res["points"][:, 1], np.sqrt(2.0)
    by_hand = np.column_stack([np.ones_like(x1), r * x1, r * x2, x1 ** 2, r * x1 * x2, x2 ** 2])
    assert np.max(np.abs(res["Phi"] - by_hand)) < 1e-14
    assert res["labels"] == ["1", "sqrt(2) x1", "sqrt(2) x2", "x1^2", "sqrt(2) x1 x2", "x2^2"]


def _count_monomials(d, p, exact_degree):
    """Brute force: exponent vectors a in {0..p}^d with |a| <= p (or == p)."""
    return sum(1 for a in itertools.product(range(p + 1), repeat=d)
               if (sum(a) == p if exact_degree else sum(a) <= p))


def test_dimension_table(res):
    assert len(res["table"]) >= 24
    for row in res["table"]:
        d, p, homogeneous = row["d"], row["p"], row["coef0"] == 0.0
        expected = math.comb(d + p - 1, p) if homogeneous else math.comb(d + p, p)
        assert row["columns"] == row["explicit_feature_dim"] == expected
        if d <= 5:
            assert expected == _count_monomials(d, p, homogeneous)
        assert row["max_error"] < 1e-11


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 4
    assert fig.axes[3].get_yscale() == "log"
