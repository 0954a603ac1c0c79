"""Vector kernels against scikit-learn, brute-force double loops, explicit feature maps
and the shared contract (kernelkit.testing.check_kernel)."""

import itertools
import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import (laplacian_kernel, linear_kernel, polynomial_kernel,
                                      rbf_kernel, sigmoid_kernel)

from kernelkit import gram
from kernelkit.kernels import (RBF, Cauchy, Constant, KroneckerDelta, Laplacian, Linear,
                               Polynomial, Sigmoid)
from kernelkit.testing import check_kernel


def _data(n=17, m=11, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((m, d))


# --- brute force: pure Python, one pair at a time ------------------------------------
def _dot(x, y):
    return math.fsum(a * b for a, b in zip(x, y))


def _brute(fn, X, Y):
    return np.array([[fn(list(map(float, x)), list(map(float, y))) for y in Y] for x in X])


BRUTE = {
    "linear": lambda g, c, p: (lambda x, y: _dot(x, y)),
    "poly": lambda g, c, p: (lambda x, y: (g * _dot(x, y) + c) ** p),
    "rbf": lambda g, c, p: (lambda x, y: math.exp(-g * math.fsum((a - b) ** 2
                                                                for a, b in zip(x, y)))),
    "laplacian": lambda g, c, p: (lambda x, y: math.exp(-g * math.fsum(abs(a - b)
                                                                      for a, b in zip(x, y)))),
    "cauchy": lambda g, c, p: (lambda x, y: math.prod(1.0 / (1.0 + g * g * (a - b) ** 2)
                                                      for a, b in zip(x, y))),
    "sigmoid": lambda g, c, p: (lambda x, y: math.tanh(g * _dot(x, y) + c)),
    "delta": lambda g, c, p: (lambda x, y: 1.0 if all(a == b for a, b in zip(x, y)) else 0.0),
}

CASES = [
    ("linear", Linear(), (None, None, None)),
    ("poly", Polynomial(degree=3, gamma=0.3, coef0=1.5), (0.3, 1.5, 3)),
    ("poly", Polynomial(degree=2, gamma=1.0, coef0=0.0), (1.0, 0.0, 2)),
    ("rbf", RBF(gamma=0.4), (0.4, None, None)),
    ("laplacian", Laplacian(gamma=0.7), (0.7, None, None)),
    ("cauchy", Cauchy(gamma=1.3), (1.3, None, None)),
    ("sigmoid", Sigmoid(gamma=0.2, coef0=-0.5), (0.2, -0.5, None)),
    ("delta", KroneckerDelta(), (None, None, None)),
]
IDS = [repr(c[1]) for c in CASES]


@pytest.mark.parametrize("name, kernel, args", CASES, ids=IDS)
def test_against_brute_force(name, kernel, args):
    X, Y = _data()
    X[3] = Y[2]  # one exact match for the Kronecker delta
    fn = BRUTE[name](*args)
    np.testing.assert_allclose(kernel(X, Y), _brute(fn, X, Y), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel(X), _brute(fn, X, X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel, reference", [
    (Linear(), lambda X, Y: linear_kernel(X, Y)),
    (Polynomial(degree=3, gamma=0.3, coef0=1.5),
     lambda X, Y: polynomial_kernel(X, Y, degree=3, gamma=0.3, coef0=1.5)),
    (RBF(gamma=0.4), lambda X, Y: rbf_kernel(X, Y, gamma=0.4)),
    (Laplacian(gamma=0.7), lambda X, Y: laplacian_kernel(X, Y, gamma=0.7)),
    (Sigmoid(gamma=0.2, coef0=-0.5), lambda X, Y: sigmoid_kernel(X, Y, gamma=0.2, coef0=-0.5)),
], ids=repr)
def test_against_sklearn(kernel, reference):
    X, Y = _data()
    np.testing.assert_allclose(kernel(X, Y), reference(X, Y), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(kernel(X), reference(X, X), rtol=1e-11, atol=1e-13)


def test_cauchy_is_product_not_rational_of_norm():
    # prod_i 1/(1 + g^2 d_i^2) differs from 1/(1 + g^2 ||d||^2) as soon as d has 2 coordinates
    x, y = np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]])
    assert Cauchy(gamma=1.0)(x, y)[0, 0] == pytest.approx(1 / 2 * 1 / 5, rel=1e-14)


def test_kronecker_delta_signed_zero_and_near_misses():
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 1.0 + 1e-15], [0.0, np.nextafter(1.0, 2)]])
    expected = _brute(BRUTE["delta"](None, None, None), X, X)
    np.testing.assert_array_equal(KroneckerDelta()(X), expected)


def test_rbf_length_scale_equivalence():
    X, Y = _data()
    for ls in (0.3, 1.0, 2.5):
        np.testing.assert_allclose(RBF(length_scale=ls)(X, Y),
                                   RBF(gamma=1 / (2 * ls**2))(X, Y), rtol=1e-14)
        assert RBF(length_scale=ls).gamma_value == pytest.approx(1 / (2 * ls**2))
    assert RBF().gamma == "scale"  # scikit-learn's SVC default, fixed from the data at fit
    with pytest.raises(ValueError, match="resolve"):
        RBF().gamma_value
    with pytest.raises(ValueError, match="not both"):
        RBF(gamma=1.0, length_scale=1.0)


def test_degree2_homogeneous_polynomial_is_explicit_feature_dot_product():
    # (x'y)^2 = <phi(x), phi(y)> with phi(x) = (x_i x_j)_{i,j}
    X, Y = _data(d=3)

    def phi(x):
        return np.array([x[i] * x[j] for i in range(len(x)) for j in range(len(x))])

    F, G = np.array([phi(x) for x in X]), np.array([phi(y) for y in Y])
    np.testing.assert_allclose(Polynomial(degree=2, gamma=1, coef0=0)(X, Y), F @ G.T,
                               rtol=1e-12, atol=1e-12)

    # the same with one coordinate per unordered pair: (x_i^2, sqrt2 x_i x_j for i < j)
    def phi_half(x):
        sq = [x[i] ** 2 for i in range(len(x))]
        cross = [math.sqrt(2) * x[i] * x[j] for i, j in itertools.combinations(range(len(x)), 2)]
        return np.array(sq + cross)

    F, G = np.array([phi_half(x) for x in X]), np.array([phi_half(y) for y in Y])
    np.testing.assert_allclose(Polynomial(degree=2, gamma=1, coef0=0)(X, Y), F @ G.T,
                               rtol=1e-12, atol=1e-12)


def test_degree2_inhomogeneous_polynomial_is_explicit_feature_dot_product():
    # (1 + x'y)^2 with the basis (1, sqrt2 x_i, x_i^2, sqrt2 x_i x_j (i < j))
    X, Y = _data(d=3)
    r2 = math.sqrt(2)

    def phi(x):
        d = len(x)
        return np.array([1.0] + [r2 * x[i] for i in range(d)] + [x[i] ** 2 for i in range(d)]
                        + [r2 * x[i] * x[j] for i, j in itertools.combinations(range(d), 2)])

    F, G = np.array([phi(x) for x in X]), np.array([phi(y) for y in Y])
    assert F.shape[1] == math.comb(3 + 2, 2)
    np.testing.assert_allclose(Polynomial(degree=2, gamma=1, coef0=1)(X, Y), F @ G.T,
                               rtol=1e-12, atol=1e-12)


def _far_float32_sample(n=40, d=5, seed=1):
    rng = np.random.default_rng(seed)
    return (1e4 + 1e-2 * rng.standard_normal((n, d))).astype(np.float32)


def test_rbf_float32_far_from_origin_does_not_cancel():
    X = _far_float32_sample()
    gamma = 1.0 / (2 * X.shape[1] * 1e-4)  # the sample's spread: values well inside (0, 1)
    X64 = X.astype(np.float64)  # the exact float32 values
    exact = _brute(BRUTE["rbf"](gamma, None, None), X64, X64)
    assert 0.05 < np.median(exact) < 0.95  # the check is not vacuous

    K = RBF(gamma=gamma)(X)
    np.testing.assert_allclose(K, exact, atol=1e-6, rtol=0)
    np.testing.assert_allclose(gram(RBF(gamma=gamma), X[:7], X[7:]), exact[:7, 7:],
                               atol=1e-6, rtol=0)

    # the naive float32 expansion ||x||^2 + ||y||^2 - 2 x'y is useless here, so the
    # test above can fail
    sq = np.einsum("ij,ij->i", X, X)
    d2 = sq[:, None] + sq[None, :] - np.float32(2) * (X @ X.T)
    naive = np.exp(-gamma * np.maximum(d2, 0).astype(np.float64))
    assert np.abs(naive - exact).max() > 1e-2


@pytest.mark.parametrize("kernel", [RBF(0.3), Laplacian(0.5), Cauchy(2.0), KroneckerDelta()],
                         ids=repr)
def test_distance_kernels_exact_unit_diagonal(kernel):
    X = _far_float32_sample().astype(np.float64)
    K = kernel(X)
    assert (np.diagonal(K) == 1.0).all()
    assert (kernel.diag(X) == 1.0).all()


def test_rbf_never_exceeds_one():
    rng = np.random.default_rng(3)
    X = 1e3 + rng.standard_normal((60, 3)) * 1e-6  # round-off dominated distances
    X = np.vstack([X, X[:10]])  # exact duplicates off the diagonal
    for K in (RBF(gamma=10.0)(X), RBF(gamma=10.0)(X, X[::-1])):
        assert K.max() <= 1.0
        assert K.min() >= 0.0


def test_constant_kernel():
    X, Y = _data()
    np.testing.assert_array_equal(Constant(2.5)(X, Y), np.full((len(X), len(Y)), 2.5))
    # input_kind "any": also on strings
    np.testing.assert_array_equal(Constant(2.5)(["ab", "c"]), np.full((2, 2), 2.5))
    with pytest.raises(ValueError, match=">= 0"):
        Constant(-1.0)


@pytest.mark.parametrize("kwargs, cls", [
    ({"gamma": 0}, RBF), ({"gamma": -1.0}, Laplacian), ({"gamma": float("nan")}, Cauchy),
    ({"degree": 0}, Polynomial), ({"degree": 2.5}, Polynomial), ({"gamma": -1}, Sigmoid),
    ({"length_scale": 0}, RBF),
])
def test_invalid_hyperparameters(kwargs, cls):
    with pytest.raises((ValueError, TypeError), match=next(iter(kwargs))):
        cls(**kwargs)


def test_psd_flags():
    assert Polynomial(coef0=1).is_psd and not Polynomial(coef0=-1).is_psd
    assert not Sigmoid().is_psd
    for k in (Linear(), RBF(), Laplacian(), Cauchy(), KroneckerDelta(), Constant()):
        assert k.is_psd
    assert RBF().is_shift_invariant and Laplacian().is_shift_invariant
    assert Cauchy().is_shift_invariant and not Linear().is_shift_invariant
    assert not Polynomial().is_shift_invariant and not Sigmoid().is_shift_invariant


ALL = [Linear(), Polynomial(), Polynomial(degree=2, gamma=0.5, coef0=0.0),
       Polynomial(degree=3, coef0=-0.5), RBF(), RBF(gamma=0.3), RBF(length_scale=2.0),
       Laplacian(gamma=0.5), Cauchy(gamma=0.8), Sigmoid(gamma=0.1, coef0=-0.2),
       KroneckerDelta(), Constant(), Constant(0.0), Constant(3.5)]


@pytest.mark.parametrize("kernel", ALL, ids=repr)
def test_check_kernel(kernel):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((24, 3))
    X[5] = X[2]  # a duplicate row (Kronecker delta off the diagonal)
    check_kernel(kernel, X)
    check_kernel(kernel, X[:10], rng.standard_normal((7, 3)))


def test_numpy_scalar_hyperparameters_round_trip():
    # a gamma computed with numpy (median heuristic) is an np.float64
    X = np.random.default_rng(0).standard_normal((20, 3))
    check_kernel(RBF(gamma=np.float64(0.5)), X)
    check_kernel(Polynomial(degree=np.int64(2)), X)
