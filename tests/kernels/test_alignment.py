"""The global alignment kernel: the sum over every alignment path enumerated by brute force,
the plain-Python recursion (the compiled loop's twin), positive definiteness on generated
series for several sigmas (Cuturi 2011, Theorem 1), the normalised kernel, stability of the
log-space computation on long series, the kernel contract, learners and model files."""

import math

import numpy as np
import pytest

import kernelkit
from kernelkit.exceptions import InvalidParameterError, NonFiniteKernelError
from kernelkit.kernels import GlobalAlignment, parse_kernel
from kernelkit.testing import check_kernel


def _as_2d(s):
    s = np.asarray(s, dtype=float)
    return s[:, None] if s.ndim == 1 else s


def _kappa(x, y, sigma, i, j, T):
    """The local kernel w k / (2 - w k) of points x (time i) and y (time j)."""
    w = 1.0 if T == 0 else max(0.0, 1.0 - abs(i - j) / T)
    wk = w * math.exp(-float(np.sum((x - y) ** 2)) / (2 * sigma ** 2))
    return wk / (2.0 - wk)


def _paths(n, m):
    """Every alignment path from (0, 0) to (n-1, m-1) with steps (1,0), (0,1), (1,1)."""
    if (n, m) == (1, 1):
        return [[(0, 0)]]
    out = []
    for di, dj in ((1, 0), (0, 1), (1, 1)):
        if n - di >= 1 and m - dj >= 1:
            out += [p + [(n - 1, m - 1)] for p in _paths(n - di, m - dj)]
    return out


def _brute_force(x, y, sigma, T=0):
    x, y = _as_2d(x), _as_2d(y)
    return sum(math.prod(_kappa(x[i], y[j], sigma, i, j, T) for i, j in path)
               for path in _paths(len(x), len(y)))


def _recursion(x, y, sigma, T=0):
    """The plain-Python recursion M(i,j) = kappa (M(i-1,j-1) + M(i-1,j) + M(i,j-1))."""
    x, y = _as_2d(x), _as_2d(y)
    M = np.zeros((len(x) + 1, len(y) + 1))
    M[0, 0] = 1.0
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            M[i, j] = _kappa(x[i - 1], y[j - 1], sigma, i, j, T) * (
                M[i - 1, j - 1] + M[i - 1, j] + M[i, j - 1])
    return M[-1, -1]


def _series(n, seed, d=1, lengths=(4, 9)):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(*lengths)), d)).squeeze(-1) if d == 1 else
            rng.normal(size=(int(rng.integers(*lengths)), d)) for _ in range(n)]


def test_path_count_is_the_delannoy_number():
    assert [len(_paths(k, k)) for k in range(1, 5)] == [1, 3, 13, 63]


@pytest.mark.parametrize("T", [0, 2, 3])
def test_equals_the_sum_over_all_alignment_paths(T):
    rng = np.random.default_rng(T)
    pairs = [(rng.normal(size=3), rng.normal(size=4)), (rng.normal(size=(4, 2)),
                                                        rng.normal(size=(2, 2))),
             (rng.normal(size=1), rng.normal(size=4)), (rng.normal(size=4), rng.normal(size=4))]
    for sigma in (0.5, 2.0):
        k = GlobalAlignment(sigma=sigma, triangular=T, normalize=False)
        for x, y in pairs:
            want = _brute_force(x, y, sigma, T)
            got = k([x], [y])[0, 0]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-300), (x.shape, y.shape)


def test_equals_the_plain_recursion_on_longer_series():
    X = _series(6, seed=1, d=2, lengths=(5, 16))
    k = GlobalAlignment(sigma=1.5, normalize=False)
    want = np.array([[_recursion(a, b, 1.5) for b in X] for a in X])
    np.testing.assert_allclose(k(X), want, rtol=1e-11)
    np.testing.assert_allclose(k.log_values(X[:2], X), np.log(want[:2]), rtol=1e-12)


@pytest.mark.parametrize("sigma", [0.2, 1.0, 5.0])
@pytest.mark.parametrize("T", [0, 3])
def test_positive_definite_for_every_sigma(sigma, T):
    X = _series(30, seed=2, lengths=(5, 12))
    for normalize in (False, True):
        K = GlobalAlignment(sigma=sigma, triangular=T, normalize=normalize)(X)
        w = np.linalg.eigvalsh(K)
        assert w[0] >= -1e-10 * w[-1], (sigma, T, normalize, w[0])


def test_normalized_kernel_has_unit_diagonal_and_is_the_cosine():
    X = _series(8, seed=3)
    K = GlobalAlignment(sigma=0.7, normalize=False)(X)
    N = GlobalAlignment(sigma=0.7)(X)
    np.testing.assert_array_equal(np.diagonal(N), 1.0)
    d = np.sqrt(np.diagonal(K))
    np.testing.assert_allclose(N, K / np.outer(d, d), rtol=1e-12)
    assert (N <= 1.0 + 1e-12).all() and (N > 0).all()


def test_long_series_stay_finite_in_log_space():
    """Series of 600 points: the unnormalised kernel is exp(hundreds) -- far beyond float64
    for some pairs -- and is refused with the fix; the normalised one is computed from the
    logarithms and is exact: equal to log-values combined by hand."""
    rng = np.random.default_rng(4)
    X = [np.sin(np.linspace(0, 8, 600) + rng.uniform(0, 6)) + 0.1 * rng.normal(size=600)
         for _ in range(3)]
    k = GlobalAlignment(sigma=0.3)
    L = k.log_values(X)
    assert np.isfinite(L).all() and L.max() > 710  # exp(710) overflows float64
    N = k(X)
    d = np.diagonal(L)
    np.testing.assert_allclose(N, np.exp(L - d[:, None] / 2 - d[None, :] / 2), rtol=1e-12)
    with pytest.raises(NonFiniteKernelError):
        GlobalAlignment(sigma=0.3, normalize=False)(X)


def test_triangular_refuses_far_lengths_and_decreases_the_value():
    x, y = np.zeros(3), np.zeros(7)
    assert GlobalAlignment(triangular=4, normalize=False)([x], [y])[0, 0] == 0.0
    z = np.zeros(5)
    full = GlobalAlignment(normalize=False)([x], [z])[0, 0]
    banded = GlobalAlignment(triangular=3, normalize=False)([x], [z])[0, 0]
    assert 0 < banded < full


@pytest.mark.parametrize("kernel", [GlobalAlignment(sigma=0.5, triangular=3),
                                    GlobalAlignment(sigma=2.0, normalize=False),
                                    0.5 * GlobalAlignment() + GlobalAlignment(triangular=2)])
def test_contract(kernel):
    # 20 short series: check_kernel repeats them to 640 for its blocked Gram matrix
    check_kernel(kernel, _series(20, seed=5, d=2, lengths=(2, 6)))


def test_sigma_scale_is_cuturis_median_rule():
    from scipy.spatial.distance import pdist

    X = _series(12, seed=6, d=2)
    points = np.concatenate(X)
    want = np.median(pdist(points)) * np.sqrt(np.median([len(s) for s in X]))
    assert GlobalAlignment().resolve(X).sigma == pytest.approx(want, rel=1e-12)
    assert not GlobalAlignment().is_resolved
    both = (0.5 * GlobalAlignment() + GlobalAlignment(triangular=2)).resolve(X)
    assert [term.sigma for term in (both.terms[0].k, both.terms[1])] == \
        pytest.approx([want, want], rel=1e-12)
    np.testing.assert_allclose(GlobalAlignment()(X), GlobalAlignment(sigma=want)(X),
                               rtol=1e-12)
    model = kernelkit.KernelRidge(kernel=GlobalAlignment(), alpha=1.0).fit(X, np.arange(12.0))
    assert model.kernel_.sigma == pytest.approx(want, rel=1e-12)


def test_parameters_registry_and_repr():
    assert parse_kernel("gak") == GlobalAlignment()
    assert parse_kernel(repr(GlobalAlignment(sigma=0.5, triangular=4))) == \
        GlobalAlignment(sigma=0.5, triangular=4)
    with pytest.raises(InvalidParameterError, match="sigma"):
        GlobalAlignment(sigma=0.0)
    with pytest.raises(InvalidParameterError, match="triangular"):
        GlobalAlignment(triangular=-1)
    with pytest.raises(ValueError, match="features"):
        GlobalAlignment()([np.zeros((3, 2))], [np.zeros((3, 1))])


def _sines_and_noise(n, seed, length=(20, 40)):
    """Sines with a random phase and length (class 1) against white noise (class 0)."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n):
        m = int(rng.integers(*length))
        if i % 2:
            X.append(np.sin(np.linspace(0, 3 * np.pi, m) + rng.uniform(0, 2 * np.pi)))
        else:
            X.append(rng.normal(scale=0.7, size=m))
        y.append(i % 2)
    return X, np.array(y)


def test_learners_and_model_files(tmp_path):
    from sklearn.svm import SVC

    X, y = _sines_and_noise(40, seed=0)
    X_test, y_test = _sines_and_noise(20, seed=1)
    k = GlobalAlignment(sigma=1.0)
    svc = kernelkit.KernelSVC(kernel=k, C=10.0).fit(X, y)
    ref = SVC(kernel="precomputed", C=10.0).fit(k(X), y)
    np.testing.assert_array_equal(svc.predict(X_test), ref.predict(k(X_test, X)))
    assert svc.score(X_test, y_test) >= 0.9
    ridge = kernelkit.KernelRidge(kernel="gak(sigma=1.0)", alpha=0.1).fit(X, y.astype(float))
    for model, name in ((svc, "svc.kk"), (ridge, "ridge.kk")):
        kernelkit.save(model, tmp_path / name)
        back = kernelkit.load(tmp_path / name)
        np.testing.assert_array_equal(back.predict(X_test), model.predict(X_test))


def test_nystroem_features_of_series_and_their_model_file(tmp_path):
    from kernelkit.features import Nystroem

    X = _series(20, seed=12)
    fmap = Nystroem(kernel=GlobalAlignment(), n_components=20, random_state=0).fit(X)
    Z = fmap.transform(X)
    np.testing.assert_allclose(Z @ Z.T, fmap.kernel_(X), atol=1e-8)  # all centers: exact
    kernelkit.save(fmap, tmp_path / "n.kk")
    back = kernelkit.load(tmp_path / "n.kk")
    assert back.kernel_ == fmap.kernel_ and isinstance(back.kernel_.sigma, float)
    np.testing.assert_array_equal(back.transform(X), Z)
