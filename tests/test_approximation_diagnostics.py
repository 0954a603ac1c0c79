"""approximation_error / approximation_curve / the bounds / spectrum, against closed forms,
brute-force loops, Monte-Carlo frequencies and numpy's eigvalsh."""

import json
import math

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.exceptions import NotFittedError

from kernelkit.diagnostics import (approximation_curve, approximation_error, data_diameter,
                                   hoeffding_bound, hoeffding_epsilon, rahimi_recht_bound,
                                   rahimi_recht_epsilon, spectral_second_moment, spectrum)
from kernelkit.features import Nystroem, RandomFourierFeatures
from kernelkit.kernels import RBF, Cauchy, Laplacian


def _X(n=60, d=3, seed=0):
    return 0.7 * np.random.default_rng(seed).standard_normal((n, d))


# ---------------------------------------------------------------- bounds, closed forms

def test_hoeffding_closed_form_and_inverse():
    D = np.array([10, 100, 1000])
    assert np.allclose(hoeffding_bound(D, 0.2), 2 * np.exp(-D * 0.04 / 8), rtol=1e-14)
    assert hoeffding_bound(800, 0.1) == pytest.approx(2 * math.exp(-1.0), rel=1e-14)
    # paired features: D/2 terms in [-1, 1] -> 2 exp(-2 (D/2) a^2 / 2^2) = 2 exp(-D a^2 / 4)
    assert hoeffding_bound(400, 0.1, variant="paired") == pytest.approx(2 * math.exp(-1.0))
    # scale s: the terms lie in [-2s, 2s]
    assert hoeffding_bound(800, 0.3, scale=3.0) == pytest.approx(2 * math.exp(-1.0))
    eps = hoeffding_epsilon(D, 0.05)
    assert np.allclose(eps, np.sqrt(8 * np.log(2 / 0.05) / D))
    assert np.allclose(hoeffding_bound(D, eps), 0.05)
    assert hoeffding_bound(D, hoeffding_epsilon(D, 0.01, scale=2.0), scale=2.0) == \
        pytest.approx(np.full(3, 0.01))


def test_rahimi_recht_closed_form_and_lambert_inverse():
    kw = dict(sigma2=2.0, diameter=3.0, n_features=4)
    D, eps = 5000, 0.5
    expected = 2 ** 8 * 2.0 * 9.0 / eps ** 2 * math.exp(-D * eps ** 2 / (4 * 6))
    assert rahimi_recht_bound(D, eps, **kw) == pytest.approx(expected, rel=1e-13)
    # scale s: the error of s k is s times that of k
    assert rahimi_recht_bound(D, 2 * eps, scale=2.0, **kw) == pytest.approx(expected)
    Ds = np.array([100, 1000, 10000, 1e6])
    for delta in (0.5, 0.05, 1e-6):
        e = rahimi_recht_epsilon(Ds, delta, **kw)
        assert np.allclose(rahimi_recht_bound(Ds, e, **kw), delta, rtol=1e-9)
        assert np.all(np.diff(e) < 0)
    assert rahimi_recht_epsilon(100, 0.1, scale=3.0, **kw) == \
        pytest.approx(3 * rahimi_recht_epsilon(100, 0.1, **kw))
    assert rahimi_recht_bound(100, 0.1, sigma2=math.inf, diameter=1.0, n_features=2) == math.inf
    assert rahimi_recht_epsilon(100, 0.1, sigma2=math.inf, diameter=1.0, n_features=2) == math.inf


@pytest.mark.parametrize("kernel, closed_form", [
    (RBF(gamma=0.3), 2 * 0.3 * 4),
    (Cauchy(gamma=0.5), 2 * 0.5 ** 2 * 4),
    (2.0 * RBF(gamma=0.3), 2 * 0.3 * 4),
    (RBF(gamma=0.3) * Cauchy(gamma=0.5), 2 * 0.3 * 4 + 2 * 0.25 * 4),
    (3.0 * RBF(gamma=0.3) + Cauchy(gamma=0.5), 0.75 * 2.4 + 0.25 * 2.0),
])
def test_second_moment_closed_form_and_monte_carlo(kernel, closed_form):
    density = kernel.spectral_density()
    assert spectral_second_moment(density, 4) == pytest.approx(closed_form, rel=1e-12)
    W = density.sample(4, 200_000, random_state=0)
    assert np.mean(np.sum(W ** 2, axis=0)) == pytest.approx(closed_form, rel=0.03)


def test_laplacian_has_no_second_moment():
    assert spectral_second_moment(Laplacian(0.5).spectral_density(), 3) == math.inf
    assert spectral_second_moment((RBF(1.0) + Laplacian(0.5)).spectral_density(), 3) == math.inf


# ---------------------------------------------------------------- approximation_error

def test_error_matches_a_brute_force_loop():
    X, Y = _X(25), _X(17, seed=1)
    kernel = RBF(gamma=0.4)
    rff = RandomFourierFeatures(kernel, 40, random_state=0).fit(X)
    Zx, Zy = rff.transform(X), rff.transform(Y)
    errs = [abs(float(Zx[i] @ Zy[j]) - math.exp(-0.4 * float(np.sum((X[i] - Y[j]) ** 2))))
            for i in range(len(X)) for j in range(len(Y))]
    res = approximation_error(kernel, rff, X, Y)
    assert res.exhaustive and res.n_pairs == len(errs)
    assert res.max_error == pytest.approx(max(errs), rel=1e-10)
    assert res.mean_error == pytest.approx(np.mean(errs), rel=1e-10)
    assert res.rms_error == pytest.approx(math.sqrt(np.mean(np.square(errs))), rel=1e-10)
    assert "over all" in str(res)


def test_random_subgrid_beyond_max_pairs_is_seeded():
    X = _X(200)
    kernel = RBF(gamma=0.4)
    rff = RandomFourierFeatures(kernel, 30, random_state=0).fit(X)
    full = approximation_error(kernel, rff, X)
    a = approximation_error(kernel, rff, X, max_pairs=900, random_state=3)
    b = approximation_error(kernel, rff, X, max_pairs=900, random_state=3)
    assert full.n_pairs == 200 * 200 and full.exhaustive
    assert not a.exhaustive and a.n_pairs <= 900 and a.n_pairs >= 800
    assert a == b
    assert a.max_error <= full.max_error
    assert a.mean_error == pytest.approx(full.mean_error, rel=0.3)


def test_nystroem_with_every_point_a_center_is_exact():
    X = _X(50)
    for kernel in (RBF(gamma=0.5), Cauchy(gamma=0.5), Laplacian(gamma=0.3)):
        ny = Nystroem(kernel, n_components=50, random_state=0).fit(X)
        assert approximation_error(kernel, ny, X).max_error < 1e-8


def test_bad_input():
    X = _X()
    kernel = RBF(gamma=0.5)
    rff = RandomFourierFeatures(kernel, 20, random_state=0).fit(X)
    with pytest.raises(ValueError, match="approximate RBF\\(gamma=0.5\\), not RBF\\(gamma=2"):
        approximation_error(RBF(gamma=2.0), rff, X)
    with pytest.raises(NotFittedError, match="call features.fit"):
        approximation_error(kernel, RandomFourierFeatures(kernel, 20), X)
    with pytest.raises(TypeError, match="transform method"):
        approximation_error(kernel, np.eye(3), X)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        approximation_error(kernel, rff, Xn)
    with pytest.raises(ValueError, match="features"):
        approximation_error(kernel, rff, X[:, :2])
    with pytest.raises(ValueError, match="method"):
        approximation_curve(kernel, X, [10], method="sketch")
    with pytest.raises(ValueError, match="n_features"):
        approximation_curve(kernel, X, [0, 10])
    with pytest.raises(ValueError, match="delta"):
        hoeffding_epsilon(10, 1.5)
    with pytest.raises(ValueError, match="a must be > 0"):
        hoeffding_bound(10, -0.1)


# ---------------------------------------------------------------- error against D

def test_rff_error_shrinks_like_inverse_sqrt_D_and_stays_inside_the_bounds():
    X = _X(120, d=4)
    curve = approximation_curve(RBF(gamma=0.25), X, [100, 1600], n_repeats=4, random_state=0)
    ratio = np.median(curve.mean_error[0]) / np.median(curve.mean_error[1])
    assert 2.8 < ratio < 5.7  # sqrt(1600 / 100) = 4
    assert np.all(curve.max_error < curve.uniform_epsilon[:, None])
    assert np.all(np.median(curve.mean_error, axis=1) < curve.hoeffding_epsilon)
    assert curve.sigma2 == pytest.approx(2 * 0.25 * 4)
    assert curve.diameter == pytest.approx(pdist(X).max())
    assert json.loads(json.dumps(curve.to_dict()))["method"] == "rff"
    assert [r["D"] for r in curve.rows()] == [100, 1600]


def test_laplacian_curve_says_why_there_is_no_uniform_bound():
    curve = approximation_curve(Laplacian(0.3), _X(40), [20, 80], n_repeats=2)
    assert np.all(np.isinf(curve.uniform_epsilon)) and "infinite second moment" in curve.note
    assert np.all(np.isfinite(curve.hoeffding_epsilon))
    ny = approximation_curve(Laplacian(0.3), _X(40), [10, 40], method="nystroem", n_repeats=2)
    assert np.all(np.isnan(ny.hoeffding_epsilon)) and ny.max_error[1].max() < 1e-8


def test_empirical_tail_below_hoeffding():
    """P(|z(x)'z(y) - k(x, y)| >= a) for one pair, over 4000 independent maps of D features.

    The columns of one RFF map with 4000 D features are independent; each group of D
    columns, rescaled by sqrt(4000), is an independent D-feature map.
    """
    D, draws = 16, 4000
    kernel = RBF(gamma=0.5)
    xy = np.array([[0.0, 0.0], [0.6, -0.4]])
    k = kernel(xy)[0, 1]
    Z = RandomFourierFeatures(kernel, D * draws, random_state=1).fit_transform(xy)
    Z = Z * math.sqrt(draws)
    est = (Z[0] * Z[1]).reshape(draws, D).sum(axis=1)
    err = np.abs(est - k)
    for a in (0.2, 0.4, 0.6, 0.8):
        observed = np.mean(err >= a)
        # three binomial standard errors of slack for the Monte-Carlo frequency
        slack = 3 * math.sqrt(max(observed, 1 / draws) / draws)
        assert observed <= min(1.0, hoeffding_bound(D, a)) + slack
    assert np.mean(err >= 0.2) > 0.05  # the draws do vary: the test could fail


def test_data_diameter_matches_pdist():
    X = _X(300, d=5, seed=4) + 100.0
    assert data_diameter(X) == pytest.approx(pdist(X).max(), rel=1e-10)


# ---------------------------------------------------------------- spectrum

def test_spectrum_of_K_equals_eigvalsh():
    X = _X(70)
    K = RBF(gamma=0.5)(X)
    expected = np.clip(np.linalg.eigvalsh(K)[::-1], 0, None)
    assert np.allclose(spectrum(K), expected, atol=1e-12)
    assert np.allclose(spectrum(RBF(gamma=0.5), X), expected, atol=1e-12)
    assert np.allclose(spectrum("rbf(gamma=0.5)", X, k=5), expected[:5], atol=1e-12)
    assert np.all(np.diff(spectrum(K)) <= 0) and spectrum(K).min() >= 0


@pytest.mark.parametrize("D", [10, 200])
def test_spectrum_of_features_equals_eigvalsh_of_ZZt(D):
    X = _X(70)
    rff = RandomFourierFeatures(RBF(gamma=0.5), D, random_state=0).fit(X)
    Z = rff.transform(X)
    expected = np.clip(np.linalg.eigvalsh(Z @ Z.T)[::-1], 0, None)
    got = spectrum(rff, X)
    assert got.shape == (70,)
    assert np.allclose(got, expected, atol=1e-10)
    assert np.allclose(spectrum(rff, X, k=3), expected[:3], atol=1e-10)


def test_spectrum_bad_input():
    X = _X(10)
    with pytest.raises(ValueError, match="square"):
        spectrum(np.ones((3, 4)))
    with pytest.raises(ValueError, match="needs the sample X"):
        spectrum(RBF(0.5))
    with pytest.raises(ValueError, match="k must be an integer"):
        spectrum(RBF(0.5), X, k=11)
    with pytest.raises(NotFittedError):
        spectrum(RandomFourierFeatures("rbf", 10), X)
    with pytest.raises(ValueError, match="NaN"):
        spectrum(np.full((2, 2), np.nan))
