"""Spline kernels with infinitely many knots: the closed form against a brute-force loop
of the lecture's formula and against numerical quadrature of the knot integral; the
kernel contract, the refusal of negative inputs, learners and model files."""

import math

import numpy as np
import pytest
from scipy.integrate import quad

import kernelkit
from kernelkit.exceptions import InvalidParameterError, NonFiniteKernelError
from kernelkit.kernels import Spline, parse_kernel
from kernelkit.testing import check_kernel


def _linear_spline_loop(X, Y):
    """The lecture's linear spline, one pair and one coordinate at a time."""
    K = np.ones((len(X), len(Y)))
    for i, x in enumerate(X):
        for j, y in enumerate(Y):
            for a, b in zip(x, y):
                m = min(a, b)
                K[i, j] *= 1 + a * b + a * b * m - (a + b) / 2 * m ** 2 + m ** 3 / 3
    return K


def _spline_by_quadrature(x, y, order):
    """sum_r (xy)^r + int_0^inf (x - t)_+^d (y - t)_+^d dt, the integral by scipy's quad."""
    integral, _ = quad(lambda t: max(x - t, 0.0) ** order * max(y - t, 0.0) ** order,
                       0.0, max(min(x, y), 1e-300), epsabs=1e-13, epsrel=1e-12)
    return sum((x * y) ** r for r in range(order + 1)) + integral


def test_linear_spline_equals_the_lectures_formula():
    rng = np.random.default_rng(0)
    X, Y = rng.uniform(0, 2, size=(9, 3)), rng.uniform(0, 2, size=(5, 3))
    X[0, 1] = Y[0, 1] = 0.0  # a knot-free coordinate (min = 0)
    np.testing.assert_allclose(Spline()(X, Y), _linear_spline_loop(X, Y), rtol=1e-13)
    np.testing.assert_allclose(Spline().diag(X), np.diagonal(_linear_spline_loop(X, X)),
                               rtol=1e-13)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_closed_form_equals_the_integral_over_the_knots(order):
    rng = np.random.default_rng(order)
    x, y = rng.uniform(0, 1.5, size=6), rng.uniform(0, 1.5, size=6)
    got = Spline(order=order)(x[:, None], y[:, None])
    want = np.array([[_spline_by_quadrature(a, b, order) for b in y] for a in x])
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # on vectors: the product of the coordinates' kernels
    X = np.column_stack([x, y])
    K1, K2 = Spline(order=order)(x[:, None]), Spline(order=order)(y[:, None])
    np.testing.assert_allclose(Spline(order=order)(X), K1 * K2, rtol=1e-13)


@pytest.mark.parametrize("kernel", [Spline(), Spline(order=0), Spline(order=3),
                                    Spline() + 0.5 * Spline(order=2)])
def test_contract(kernel):
    X = np.random.default_rng(1).uniform(0, 1, size=(24, 3))
    check_kernel(kernel, X)


def test_registry_repr_and_parameters():
    assert parse_kernel("spline") == Spline() == parse_kernel("linear_spline")
    assert parse_kernel(repr(Spline(order=3))) == Spline(order=3)
    assert repr(Spline(order=2)) == "Spline(order=2)"
    with pytest.raises(InvalidParameterError, match="order"):
        Spline(order=-1)
    with pytest.raises(InvalidParameterError, match="order"):
        Spline(order=1.5)


def test_negative_inputs_are_refused_with_the_fix():
    X = np.array([[0.5, -0.1], [0.2, 0.3]])
    with pytest.raises(ValueError, match="non-negative.*MinMaxScaler"):
        Spline()(X)
    with pytest.raises(ValueError, match="Y must be non-negative"):
        Spline()(np.abs(X), X)
    with pytest.raises(ValueError, match="non-negative"):
        kernelkit.KernelRidge(kernel=Spline()).fit(X, [0.0, 1.0])


def test_overflow_is_reported_not_returned():
    X = np.full((2, 40), 1e12)  # (1e36 per coordinate) ** 40 overflows float64
    with pytest.raises(NonFiniteKernelError):
        Spline()(X)


def test_learners_and_model_files(tmp_path):
    """Spline kernel ridge on a 1-D curve (small error, as a smoothing spline) and a spline
    SVC on an interval, each against scikit-learn on the brute-force Gram matrix; both
    round-trip through model files."""
    from sklearn.svm import SVC

    rng = np.random.default_rng(2)
    x = np.sort(rng.uniform(0, 1, 60))[:, None]
    y = np.sin(2 * math.pi * x[:, 0])
    K = _linear_spline_loop(x, x)
    ridge = kernelkit.KernelRidge(kernel="spline", alpha=1e-4, fit_intercept=False).fit(x, y)
    assert np.sqrt(np.mean((ridge.predict(x) - y) ** 2)) < 0.05
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

    ref = SkKernelRidge(alpha=1e-4, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(ridge.predict(x), ref.predict(K), atol=1e-6)
    labels = (np.abs(x[:, 0] - 0.5) < 0.2).astype(int)
    svc = kernelkit.KernelSVC(kernel=Spline(order=1), C=100.0).fit(x, labels)
    sk = SVC(kernel="precomputed", C=100.0).fit(K, labels)
    assert svc.score(x, labels) >= 0.95
    agree = np.mean(svc.predict(x) == sk.predict(K))
    assert agree >= 0.98, agree
    for model, name in ((ridge, "r.kk"), (svc, "s.kk")):
        kernelkit.save(model, tmp_path / name)
        back = kernelkit.load(tmp_path / name)
        assert back.kernel_ == Spline()
        np.testing.assert_array_equal(back.predict(x), model.predict(x))
