"""Nystroem features: exactness on the centers, convergence, center choice, contract."""

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit import NumericalWarning, gram
from kernelkit.features.nystroem import Nystroem
from kernelkit.kernels import RBF, Kernel, Laplacian


def _rel_error(kernel, X, Z):
    K = gram(kernel, X)
    return np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)


def _clustered(seed):
    # One big cluster and nine small ones: uniform sampling spends most
    # centers on the big one and misses small ones.
    r = np.random.default_rng(seed)
    means = r.normal(scale=6.0, size=(10, 2))
    sizes = [300] + [15] * 9
    return np.vstack([m + 0.5 * r.normal(size=(s, 2)) for m, s in zip(means, sizes)])


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(300, 3))


@pytest.mark.parametrize("centers", ["uniform", "kmeans++", "leverage"])
def test_exact_when_every_sample_is_a_center(centers):
    X = np.random.default_rng(1).normal(size=(60, 3))
    k = RBF(gamma=0.5)
    nys = Nystroem(k, n_components=60, centers=centers, random_state=0).fit(X)
    assert sorted(nys.component_indices_) == list(range(60))
    Z = nys.transform(X)
    np.testing.assert_allclose(Z @ Z.T, gram(k, X), atol=1e-8)


def test_expression_kernel_and_attributes(X):
    nys = Nystroem("rbf(gamma=0.5)", n_components=20, random_state=0).fit(X)
    assert nys.kernel_ == RBF(gamma=0.5)
    assert nys.components_.shape == (20, 3)
    np.testing.assert_array_equal(nys.components_, X[nys.component_indices_])
    assert nys.normalization_.shape == (20, nys.n_components_)
    assert nys.n_components_ == 20 and nys.n_features_in_ == 3
    assert nys.transform(X[:7]).shape == (7, 20)


@pytest.mark.parametrize("kernel", [RBF(gamma=0.5), Laplacian(gamma=0.5)])
def test_error_decreases_with_n_components(kernel, X):
    errors = [_rel_error(kernel, X, Nystroem(kernel, M, random_state=0).fit_transform(X))
              for M in (10, 40, 160)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.1


def test_agrees_with_sklearn_given_the_same_centers(X):
    sk = SkNystroem(kernel="rbf", gamma=0.5, n_components=30, random_state=0).fit(X)
    ours = Nystroem(RBF(gamma=0.5), centers=sk.components_).fit(X)
    assert ours.component_indices_ is None
    Zs, Zo = sk.transform(X), ours.transform(X)
    # The bases may differ by a rotation; the approximated kernel may not.
    np.testing.assert_allclose(Zo @ Zo.T, Zs @ Zs.T, atol=1e-8)


def test_user_centers_transform_is_exact_on_them(X):
    C = X[:25] + 0.1
    Z = Nystroem(RBF(gamma=0.5), centers=C).fit(X).transform(C)
    np.testing.assert_allclose(Z @ Z.T, gram(RBF(gamma=0.5), C), atol=1e-8)


def test_kmeanspp_and_leverage_not_worse_than_uniform_on_clustered_data():
    # Measured over 30 seeds in windows of 5 (M = 30): mean relative Frobenius
    # error uniform 0.09-0.105, kmeans++ 0.03-0.042 (always far better),
    # leverage 0.065-0.09 (better in every window, by as little as 0.002).
    # At M = 10 the three are equal (~0.135): the test asserts no more than that.
    k = RBF(gamma=0.5)
    errors = {c: [] for c in ("uniform", "kmeans++", "leverage")}
    for seed in range(5):
        X = _clustered(seed)
        for c in errors:
            Z = Nystroem(k, 30, centers=c, random_state=seed).fit_transform(X)
            errors[c].append(_rel_error(k, X, Z))
    mean = {c: np.mean(v) for c, v in errors.items()}
    assert mean["kmeans++"] < 0.7 * mean["uniform"], mean
    assert mean["leverage"] <= 1.05 * mean["uniform"], mean


@pytest.mark.parametrize("centers", ["uniform", "kmeans++", "leverage"])
def test_same_random_state_same_result(centers, X):
    a = Nystroem(RBF(gamma=0.5), 15, centers=centers, random_state=3).fit(X)
    b = Nystroem(RBF(gamma=0.5), 15, centers=centers, random_state=3).fit(X)
    np.testing.assert_array_equal(a.component_indices_, b.component_indices_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    c = Nystroem(RBF(gamma=0.5), 15, centers=centers, random_state=4).fit(X)
    assert not np.array_equal(a.component_indices_, c.component_indices_)


def test_kmeanspp_picks_distinct_points_on_duplicates():
    X = np.repeat(np.arange(4.0)[:, None], 5, axis=0)  # 4 distinct points, 5 copies each
    nys = Nystroem(RBF(gamma=1.0), 4, centers="kmeans++", random_state=0).fit(X)
    assert sorted(X[nys.component_indices_, 0]) == [0.0, 1.0, 2.0, 3.0]


def test_dependent_centers_are_dropped_with_a_warning(X):
    C = np.vstack([X[:5], X[:5]])
    with pytest.warns(NumericalWarning, match="dropped"):
        nys = Nystroem(RBF(gamma=0.5), centers=C).fit(X)
    assert nys.n_components_ == 5
    Z = nys.transform(X[:5])
    np.testing.assert_allclose(Z @ Z.T, gram(RBF(gamma=0.5), X[:5]), atol=1e-8)


def test_n_components_above_n_samples_is_capped_with_a_warning(X):
    with pytest.warns(UserWarning, match="all 300 samples are used"):
        nys = Nystroem(RBF(gamma=0.5), n_components=500, random_state=0).fit(X)
    assert len(nys.components_) == 300


@pytest.mark.parametrize("centers, match", [
    (np.zeros((5, 2)), "features"),
    (np.zeros(3), "2-D"),
    ("random", "centers"),
])
def test_bad_centers(centers, match, X):
    with pytest.raises(ValueError, match=match):
        Nystroem(RBF(gamma=0.5), centers=centers).fit(X)


def test_nan_and_wrong_n_features(X):
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Nystroem(RBF(gamma=0.5), 10, random_state=0).fit(Xn)
    nys = Nystroem(RBF(gamma=0.5), 10, random_state=0).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        nys.transform(Xn)
    with pytest.raises(ValueError, match="features"):
        nys.transform(X[:, :2])


@pytest.mark.parametrize("params", [{"n_components": 0}, {"regularization": -1.0},
                                    {"kernel": 3}])
def test_bad_parameters(params, X):
    with pytest.raises((ValueError, TypeError)):
        Nystroem(**params).fit(X)


@parametrize_with_checks([Nystroem(kernel=RBF(gamma=0.5), n_components=10, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


class _CharCounts(Kernel):
    """A toy string kernel (counts of a, b, c, d): exercises the non-vector path."""

    input_kind = "string"

    def check_input(self, X, name="X"):
        return list(X)

    def _block(self, X, Y, diag_offset):
        f = lambda s: np.array([s.count(ch) for ch in "abcd"], dtype=float)  # noqa: E731
        return np.array([[f(x) @ f(y) for y in Y] for x in X])

    def _diag(self, X):
        return np.array([self._block([x], [x], 0)[0, 0] for x in X])


@pytest.mark.parametrize("centers", ["uniform", "kmeans++", "leverage"])
def test_string_kernel(centers):
    S = ["abca", "bbd", "cad", "dd", "abcd", "aab"]  # feature space of rank 4
    with pytest.warns(NumericalWarning, match="dropped"):
        nys = Nystroem(_CharCounts(), 6, centers=centers, random_state=0).fit(S)
    assert nys.n_components_ == 4
    Z = nys.transform(S)
    np.testing.assert_allclose(Z @ Z.T, gram(_CharCounts(), S), atol=1e-8)


# ---- the centers' M x M work within the memory budget (issue 13) -----------------------
def _fail_on_gram(monkeypatch):
    """Make any kernel evaluation fail: the budget must be checked before any work."""
    from kernelkit.kernels import base

    def boom(*args, **kwargs):
        raise AssertionError("a kernel block was computed before the budget check")

    monkeypatch.setattr(base.Kernel, "block", boom)


@pytest.mark.parametrize("centers", ["uniform", "kmeans++", "leverage"])
def test_n_components_whose_eigendecomposition_does_not_fit_is_refused_first(centers,
                                                                            monkeypatch):
    from kernelkit import config_context
    from kernelkit.exceptions import MemoryBudgetError

    X = np.random.default_rng(0).normal(size=(4000, 2))
    _fail_on_gram(monkeypatch)
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError,
                           match=r"Nystroem\(n_components=4000\).*4000 x 4000.*488 MB"
                                 r".*16 MB.*fewer components"):
            Nystroem(n_components=4000, centers=centers, random_state=0).fit(X)
        with pytest.raises(MemoryBudgetError, match="Nystroem with 1000 given centers"):
            Nystroem(centers=X[:1000]).fit(X)


def test_leverage_pilot_is_checked_against_the_budget(monkeypatch):
    from kernelkit import config_context
    from kernelkit.exceptions import MemoryBudgetError

    from kernelkit.features.centers import leverage_centers
    from kernelkit.kernels import RBF

    X = np.random.default_rng(0).normal(size=(2000, 2))
    # The pilot of 2M = 1600 rows needs its 1600 x 1600 matrix: 20.5 MB, over 16 MB.
    with config_context(memory="16MB"):
        _fail_on_gram(monkeypatch)
        with pytest.raises(MemoryBudgetError, match=r"ridge-leverage centers \(a pilot of 1600"):
            leverage_centers(RBF(gamma=1.0), X, 800, np.random.RandomState(0))


def test_normalization_in_place_is_bit_identical():
    from kernelkit.features.nystroem import nystroem_normalization
    from kernelkit.linalg import eigh_psd

    X = np.random.default_rng(1).normal(size=(60, 3))
    X[30:] = X[:30]  # duplicate centers: eigenvalues dropped
    K = gram(RBF(gamma=0.3), X)
    s, U = eigh_psd(K)
    keep = s >= 1e-12 * s[-1]
    with pytest.warns(NumericalWarning):
        np.testing.assert_array_equal(nystroem_normalization(K), U[:, keep] / np.sqrt(s[keep]))
