"""psd_check, rademacher_bound and effective_dimension against direct computations."""

import dataclasses

import numpy as np
import pytest

from kernelkit.diagnostics import PSDReport, effective_dimension, psd_check, rademacher_bound
from kernelkit.kernels import RBF, Linear, Sigmoid


def _X(n=40, d=3, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def test_rbf_is_psd():
    X = _X()
    for kernel in (RBF(0.5), "rbf(gamma=0.5)", RBF(0.5) + 0.1 * Linear()):
        report = psd_check(kernel, X)
        assert report.is_psd and report.n_negative == 0
        assert str(report).startswith("PSD on this sample: smallest eigenvalue")
        assert report.max_eigenvalue > 0


def test_sigmoid_is_not_psd_on_a_sample():
    # tanh(gamma x'y + coef0) with a negative offset: the Gram matrix has a clearly
    # negative eigenvalue on standard normal data
    X = _X()
    report = psd_check(Sigmoid(gamma=1.0, coef0=-1.0), X)
    assert not report.is_psd
    assert report.min_eigenvalue < -1.0
    assert report.n_negative >= 1
    assert str(report).startswith("NOT PSD on this sample")
    assert f"{report.n_negative} negative eigenvalue" in str(report)
    # independent check of the eigenvalues
    w = np.linalg.eigvalsh(Sigmoid(gamma=1.0, coef0=-1.0)(X))
    assert report.min_eigenvalue == pytest.approx(w[0], rel=1e-10)
    assert report.max_eigenvalue == pytest.approx(w[-1], rel=1e-10)
    assert report.n_negative == int((w < -1e-8 * max(abs(w[-1]), 1)).sum())


def test_precomputed():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues -1 and 3
    report = psd_check("precomputed", K)
    assert report == PSDReport(min_eigenvalue=pytest.approx(-1.0), max_eigenvalue=pytest.approx(3.0),
                               is_psd=False, n_negative=1, tol=1e-8)
    assert "1 negative eigenvalue)" in str(report)
    assert psd_check("precomputed", np.eye(3)).is_psd


def test_threshold_is_relative_to_largest_but_at_least_one():
    K = np.diag([1e6, -1e-3])  # -1e-3 >= -1e-8 * 1e6
    assert psd_check("precomputed", K).is_psd
    K = np.diag([1e-6, -1e-7])  # scale floor 1: -1e-7 >= -1e-8 ? no
    assert not psd_check("precomputed", K).is_psd
    assert psd_check("precomputed", K, tol=1e-6).is_psd


def test_round_off_counts_as_psd():
    X = _X(60)
    X = np.vstack([X, X])  # rank deficient: eigenvalues ~ +-1e-14
    report = psd_check(Linear(), X)
    assert report.is_psd and report.n_negative == 0
    assert "PSD on this sample" in str(report)


def test_report_is_frozen():
    report = psd_check(RBF(), _X(5))
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.is_psd = False


def test_psd_check_errors():
    with pytest.raises(ValueError, match="square"):
        psd_check("precomputed", np.ones((2, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        psd_check("precomputed", np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="NaN"):
        psd_check("precomputed", np.array([[np.nan]]))
    with pytest.raises(ValueError, match="tol"):
        psd_check(RBF(), _X(5), tol=-1)


def test_rademacher_bound():
    X = _X(50)
    K = RBF(0.3)(X)
    assert rademacher_bound(K) == pytest.approx(np.sqrt(50) / 50)  # trace = n for RBF
    K = Linear()(X)
    expected = 2.5 * np.sqrt((X ** 2).sum()) / 50
    assert rademacher_bound(K, c=2.5) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="c must"):
        rademacher_bound(K, c=0)
    with pytest.raises(ValueError, match="square"):
        rademacher_bound(np.ones((2, 3)))


def test_effective_dimension_against_direct_solve():
    X = _X(60)
    K = RBF(0.2)(X)
    n = len(K)
    for lam in (1e-4, 1e-2, 1.0):
        direct = np.trace(np.linalg.solve(K + n * lam * np.eye(n), K))  # (K + n lam I)^-1 K
        assert effective_dimension(K, lam) == pytest.approx(direct, rel=1e-8)
    # monotone in lam, between 0 and n
    values = [effective_dimension(K, lam) for lam in (1e-6, 1e-3, 1e-1, 10.0)]
    assert all(a > b for a, b in zip(values, values[1:]))
    assert 0 < values[-1] < values[0] <= n
    assert effective_dimension(np.eye(4), 0.25) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="lam"):
        effective_dimension(K, 0.0)


def test_every_public_name_is_exported_by_the_package():
    import importlib

    import kernelkit.diagnostics as diagnostics

    for module in ("gram_matrix", "approximation", "bounds"):
        mod = importlib.import_module(f"kernelkit.diagnostics.{module}")
        for name in mod.__all__:
            assert name in diagnostics.__all__ and getattr(diagnostics, name) is getattr(mod, name)
    assert sorted(diagnostics.__all__) == sorted(set(diagnostics.__all__))
