"""The Taylor-features gallery page: errors below the Taylor remainder's closed-form
bound, decreasing with the degree, D = C(2 + p, p), and the error of one degree
recomputed from the definition of the features (a brute-force loop over the multi-indices)."""

import itertools
import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from gallery._load import load_example

ex = load_example("taylor_features")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def test_error_decreases_with_degree_and_stays_below_the_bound(res):
    g, R = res["gamma"], res["radius"]
    for p, D, err, bound in zip(res["degrees"], res["dims"], res["errors"], res["bounds"]):
        assert D == math.comb(2 + p, p)
        assert bound == pytest.approx((2 * g * R ** 2) ** (p + 1) / math.factorial(p + 1))
        assert err <= bound
    assert all(b < a for a, b in itertools.pairwise(res["errors"]))
    # the radial curve: below its bound (up to rounding) at every norm
    assert (res["radial_error"] <= res["radial_bound"] * (1 + 1e-9) + 1e-15).all()


def test_the_deterministic_basis_beats_random_features_of_the_same_size_in_the_disc(res):
    for p, err, rff in zip(res["degrees"], res["errors"], res["fourier"]):
        if p >= 5:
            assert err < rff / 10


def test_one_degree_against_the_definition_of_the_features(res):
    X, g, p = res["X"], res["gamma"], 3
    Z = []
    for a in itertools.product(range(p + 1), repeat=2):
        if sum(a) <= p:
            w = math.sqrt((2 * g) ** sum(a) / (math.factorial(a[0]) * math.factorial(a[1])))
            Z.append(np.exp(-g * (X ** 2).sum(1)) * w * X[:, 0] ** a[0] * X[:, 1] ** a[1])
    Z = np.column_stack(Z)
    err = np.abs(Z @ Z.T - rbf_kernel(X, gamma=g)).max()
    assert err == pytest.approx(res["errors"][p], rel=1e-9)


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 2
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    assert fig.axes[1].get_xlabel() == "||x||"
