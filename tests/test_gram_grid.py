"""RBF's grid route (kernels/rbf_grid.py): exact float32 products of rows on a grid.

References: brute-force kernels from the inputs in long double (the exact
integer distances, or coordinate differences of the float64 inputs), and
scikit-learn's ``rbf_kernel``; the compiled loops against plain-numpy twins.
The tiled engine normally starts at 2**20 entries; the tests lower that
threshold so small matrices go through the same tiles.
"""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from kernelkit import gram
from kernelkit._compiled.grid import grid_integers, grid_shifted, grid_wide_pairs
from kernelkit.gram import product_choice
from kernelkit.kernels import RBF
from kernelkit.kernels import rbf_grid
from kernelkit.kernels import tiled


@pytest.fixture
def tiles_for_small(monkeypatch):
    monkeypatch.setattr(tiled, "MIN_TILED_ENTRIES", 0)


def images(rng, n, d, levels=256):
    """8-bit images as a library loads them: integers / 255 in float64."""
    return rng.integers(0, levels, size=(n, d)) / 255.0


def exact_rbf(X, Y, gamma):
    """exp(-gamma ||x - y||^2) of the float64 inputs, summed in long double (near exact)."""
    Xl, Yl = X.astype(np.longdouble), Y.astype(np.longdouble)
    D = np.empty((len(X), len(Y)), dtype=np.longdouble)
    for i in range(len(X)):
        diff = Xl[i] - Yl
        D[i] = np.einsum("jk,jk->j", diff, diff)
    return np.exp(-np.longdouble(gamma) * D)


def bound_for(X, Y, gamma, scale):
    nx = np.sqrt(np.max(np.sum(np.rint(X * scale) ** 2, axis=1)))
    ny = np.sqrt(np.max(np.sum(np.rint(Y * scale) ** 2, axis=1)))
    return rbf_grid.grid_error_bound(gamma, scale, nx, ny)


# ---- the compiled loops against their twins ---------------------------------------

def grid_integers_ref(X, scale):
    A = np.rint(X * scale)
    if not np.array_equal(A / scale, X) or np.abs(A).max(initial=0) > 2.0 ** 24:
        return None
    return A.astype(np.float32), np.sum(A * A, axis=1)


def grid_wide_pairs_ref(A, B, aa, bb, gamma, diag_offset, out):
    out = out.copy()
    for i in range(len(A)):
        for j in range(len(B)):
            if aa[i] * bb[j] <= 2.0 ** 48 or (diag_offset >= 0 and j == i + diag_offset):
                continue
            dot = int(np.dot(A[i].astype(np.int64), B[j].astype(np.int64)))
            out[i, j] = np.exp(-gamma * max(aa[i] + bb[j] - 2 * dot, 0.0))
    return out


def test_grid_integers_matches_twin():
    rng = np.random.default_rng(0)
    X = images(rng, 30, 40)
    got, ref = grid_integers(X, 255.0), grid_integers_ref(X, 255.0)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    off = X.copy()
    off[3, 7] += 1e-9  # one coordinate off the grid
    assert grid_integers(off, 255.0) is None and grid_integers_ref(off, 255.0) is None
    assert grid_integers(np.full((2, 3), 2.0 ** 25), 1.0) is None  # not exact in float32


def test_grid_shifted_matches_twin():
    rng = np.random.default_rng(12)
    X = images(rng, 30, 40)
    shift = np.rint(X.mean(axis=0) * 255.0)
    rows, top = grid_shifted(X, 255.0, shift)
    np.testing.assert_array_equal(rows, (np.rint(X * 255.0) - shift) / 255.0)
    assert top == np.max(np.sum(np.rint(X * 255.0) ** 2, axis=1))  # the unshifted integers
    off = X.copy()
    off[0, 0] = 0.3  # not k / 255
    assert grid_shifted(off, 255.0, shift) is None
    assert grid_shifted(np.ones((2, 2)), 1.0, np.array([-2.0 ** 24, 0.0])) is None


def test_grid_wide_pairs_matches_twin():
    rng = np.random.default_rng(1)
    A = rng.integers(-3000, 3000, size=(7, 40)).astype(np.float32)
    A[:2] = rng.integers(-3, 3, size=(2, 40))  # small rows: not wide
    aa = np.sum(A.astype(np.float64) ** 2, axis=1)
    out = rng.random((7, 7))
    for diag in (-1, 0):
        got = out.copy()
        n_fixed = grid_wide_pairs(A, A, aa, aa, 1e-8, diag, got)
        np.testing.assert_allclose(got, grid_wide_pairs_ref(A, A, aa, aa, 1e-8, diag, out),
                                   rtol=1e-15, atol=0)
        assert n_fixed == np.sum((aa[:, None] * aa[None, :] > 2.0 ** 48)
                                 & ~(np.eye(7, dtype=bool) if diag == 0 else False))


# ---- the route's values -------------------------------------------------------------

@pytest.mark.parametrize("gamma", [1 / 784, 0.05, 2.0])
def test_images_equal_exact_kernel_within_bound(tiles_for_small, gamma):
    rng = np.random.default_rng(2)
    X, Y = images(rng, 90, 100), images(rng, 70, 100)
    kernel = RBF(gamma=gamma)
    assert kernel.product_route(*kernel.prepare(X, Y)).used
    K = gram(kernel, X, Y)
    err = np.abs(K - exact_rbf(X, Y, gamma)).max()
    assert err <= bound_for(X, Y, gamma, 255.0)
    # scikit-learn's float64 expansion: within its own round-off of the same values
    np.testing.assert_allclose(K, rbf_kernel(X, Y, gamma=gamma), rtol=0, atol=1e-12)


def test_symmetric_gram_exact_diagonal_and_mirror(tiles_for_small):
    rng = np.random.default_rng(3)
    X = images(rng, 120, 64)
    K = gram(RBF(gamma=0.02), X)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_array_equal(K, K.T)
    assert np.abs(K - exact_rbf(X, X, 0.02)).max() <= bound_for(X, X, 0.02, 255.0)


def test_counts_and_nearly_equal_rows(tiles_for_small):
    """Integer counts (s = 1), rows one unit apart: the kernel exp(-gamma) exactly,
    where the float64 expansion of uncentred rows loses digits."""
    rng = np.random.default_rng(4)
    X = rng.integers(10_000, 11_000, size=(60, 48)).astype(np.float64)
    Y = X.copy()
    Y[np.arange(60), rng.integers(0, 48, 60)] += 1.0
    gamma = 0.3
    K = gram(RBF(gamma=gamma), X, Y)
    exact = exact_rbf(X, Y, gamma)
    assert np.abs(K - exact).max() <= bound_for(X, Y, gamma, 1.0)
    np.testing.assert_allclose(np.diag(K), np.exp(-gamma), rtol=4e-16)


def test_huge_gamma(tiles_for_small):
    """Values underflow except for equal rows: still the exact kernel."""
    rng = np.random.default_rng(5)
    X = images(rng, 40, 50, levels=4)
    Y = np.vstack([X[:10], images(rng, 30, 50, levels=4)])
    for gamma in (1e4, 1e300):
        K = gram(RBF(gamma=gamma), X, Y)
        assert np.abs(K - exact_rbf(X, Y, gamma)).max() <= bound_for(X, Y, gamma, 255.0)
        np.testing.assert_array_equal(np.diag(K[:10, :10]), 1.0)


def test_large_norm_pairs_recomputed_exactly(tiles_for_small):
    """A few rows so large that their float32 products round: recomputed in float64."""
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(400, 64)).astype(np.float64)
    X[:3] = 2 * rng.integers(150_000, 250_000, size=(3, 64)) + 1  # odd, large
    Y = rng.integers(0, 40, size=(50, 64)).astype(np.float64)
    gamma = 1e-13
    kernel = RBF(gamma=gamma)
    route = kernel.product_route(*kernel.prepare(X, Y))
    assert route.used and 0 < route.wide_share <= rbf_grid.MAX_WIDE_SHARE
    # the proof is needed: float32 products of those rows do round
    A, B = route.A[:3], route.B
    assert not np.array_equal(A @ B.T, A.astype(np.float64) @ B.T.astype(np.float64))
    K = gram(kernel, X, Y)
    assert np.abs(K - exact_rbf(X, Y, gamma)).max() <= bound_for(X, Y, gamma, 1.0)


def test_bound_holds_over_random_grids(tiles_for_small):
    """Brute-force errors never exceed the bound (which may be loose)."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for trial in range(6):
        scale = float(rng.choice([1, 10, 255, 4096]))
        d = int(rng.integers(32, 90))
        X = rng.integers(-500, 500, size=(50, d)) / scale
        Y = rng.integers(-500, 500, size=(40, d)) / scale
        gamma = float(10.0 ** rng.uniform(-4, 1)) * scale ** 2 / d / 1e4
        kernel = RBF(gamma=gamma)
        assert kernel.product_route(*kernel.prepare(X, Y)).used
        err = float(np.abs(gram(kernel, X, Y) - exact_rbf(X, Y, gamma)).max())
        bound = bound_for(X, Y, gamma, scale)
        assert err <= bound
        worst = max(worst, err / bound)
    assert worst > 0.0  # the comparison measures something


def test_far_from_origin_error_within_bound_of_given_integers(tiles_for_small):
    """Integers near 1e4 / s: the inputs' rounding grows with the given integers, not
    with the centred ones; the route's bound uses the given ones and holds."""
    rng = np.random.default_rng(14)
    scale = 255.0
    X = (rng.integers(9000, 11000, size=64) + rng.integers(0, 3, size=(120, 64))) / scale
    gamma = scale ** 2 / 100
    kernel = RBF(gamma=gamma)
    route = kernel.product_route(*kernel.prepare(X, X))
    assert route.used
    err = float(np.abs(gram(kernel, X) - exact_rbf(X, X, gamma)).max())
    assert route.bound == pytest.approx(bound_for(X, X, gamma, scale), rel=1e-12)
    assert err <= route.bound
    # the centred integers' norms would give a bound the measured error exceeds
    centred = np.rint(X * scale) - np.rint(X.mean(axis=0) * scale)
    small = np.sqrt(np.max(np.sum(centred ** 2, axis=1)))
    assert err > rbf_grid.grid_error_bound(gamma, scale, small, small)


def test_saturated_leading_rows_take_the_route(tiles_for_small):
    """The first rows all 255 (saturated pixels): the scale is found and carried to
    the route, whose values stay within the bound of the exact kernel."""
    rng = np.random.default_rng(15)
    X, Y = images(rng, 90, 64), images(rng, 40, 64)
    X[:40] = 1.0
    Y[:35] = 1.0
    kernel = RBF(gamma=0.05)
    route = kernel.product_route(*kernel.prepare(X, Y))
    assert route.used and route.scale == 255.0, route.reason
    err = np.abs(gram(kernel, X, Y) - exact_rbf(X, Y, 0.05)).max()
    assert err <= bound_for(X, Y, 0.05, 255.0)
    assert product_choice(kernel, X).value == "exact float32 products of grid integers"


# ---- the decision ---------------------------------------------------------------

def test_route_decision_from_the_data(tiles_for_small):
    rng = np.random.default_rng(8)
    kernel = RBF(gamma=0.1)
    gaussian = rng.standard_normal((50, 64))
    route = kernel.product_route(*kernel.prepare(gaussian, gaussian))
    assert not route.used and "not on a grid" in route.reason
    narrow = images(rng, 50, 10)
    assert not kernel.product_route(*kernel.prepare(narrow, narrow)).used  # d < 32
    wide = rng.integers(-40_000, 40_000, size=(50, 64)).astype(np.float64)
    route = kernel.product_route(*kernel.prepare(wide, wide))
    assert not route.used and route.wide_share > rbf_grid.MAX_WIDE_SHARE
    ard = RBF(length_scale=np.ones(64))
    pics = images(rng, 50, 64)
    assert not ard.product_route(*ard.prepare(pics, pics)).used
    choice = product_choice(kernel, pics)
    assert choice.value == "exact float32 products of grid integers"
    assert "integers / 255" in choice.reason
    assert product_choice(kernel, gaussian).value == "float64 products"


def test_small_matrices_say_float64():
    """Below the tiled engine's size, one float64 block: the choice says so."""
    pics = images(np.random.default_rng(11), 50, 64)
    choice = product_choice(RBF(gamma=0.1), pics)
    assert choice.value == "float64 products" and "entries" in choice.reason


def test_gram_prints_the_choice_when_verbose(tiles_for_small, capsys):
    rng = np.random.default_rng(9)
    gram(RBF(gamma=0.1), images(rng, 20, 40), verbose=1)
    assert "Gram products: exact float32 products of grid integers" in capsys.readouterr().out
    gram(RBF(gamma=0.1), images(rng, 20, 40))
    assert capsys.readouterr().out == ""


def test_off_grid_rows_keep_the_float64_values(tiles_for_small):
    """Rows near but not on the grid take float64 products: same values as before."""
    rng = np.random.default_rng(10)
    X = images(rng, 60, 40) + 1e-12
    K = gram(RBF(gamma=0.1), X)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=0.1), rtol=0, atol=1e-13)


def test_kernel_rows_blocks_and_direct_calls_take_the_route(tiles_for_small):
    """KernelRows' large rectangular blocks (predictions, Falkon's K_nM) and k(X, Y)."""
    from kernelkit.kernels import KernelRows

    rng = np.random.default_rng(13)
    X, C = images(rng, 80, 96), images(rng, 30, 96)
    kernel = RBF(gamma=0.01)
    exact = exact_rbf(X, C, 0.01)
    bound = bound_for(X, C, 0.01, 255.0)
    rows = KernelRows(kernel, X, C)
    assert np.abs(rows.block(10, 70) - exact[10:70]).max() <= bound
    assert np.abs(kernel(X, C) - exact).max() <= bound


# ---- the decision recorded in the estimators' plan_ ----------------------------------

def test_decision_on_given_rows_matches_the_engines_route(tiles_for_small):
    """grid_decision (one read-only pass, what plan_ records) against the route the
    tiles take on the prepared rows: same verdict, scale, share and bound."""
    rng = np.random.default_rng(16)
    saturated = images(rng, 60, 64)
    saturated[:40] = 1.0
    cases = [images(rng, 60, 64), saturated, rng.standard_normal((60, 64)),
             rng.integers(-40_000, 40_000, size=(60, 64)).astype(np.float64)]
    big = rng.integers(0, 3, size=(200, 64)).astype(np.float64)
    big[:1] = 2 * rng.integers(150_000, 250_000, size=(1, 64)) + 1
    cases.append(big)
    kernel = RBF(gamma=0.01)
    for X in cases:
        for Y in (X, X[::2].copy()):
            engine = kernel.product_route(*kernel.prepare(X, Y))
            given = rbf_grid.grid_decision(X, Y, 0.01)
            assert (given.used, given.reason, given.scale, given.wide_share) == \
                (engine.used, engine.reason, engine.scale, engine.wide_share)
            assert given.bound == engine.bound or (np.isnan(given.bound)
                                                   and np.isnan(engine.bound))


def _products(est):
    return [c for c in est.plan_.choices if c.what == "Gram products"]


@pytest.mark.filterwarnings("ignore:alpha=0.1 is the smallest")  # the search's edge
def test_estimators_record_the_products_last(tiles_for_small, capsys):
    from kernelkit.models import KernelRidge, KernelRidgeCV, KernelSVC

    rng = np.random.default_rng(17)
    X = images(rng, 120, 40)
    y = X[:, 0] - X[:, 1] + 0.1 * rng.standard_normal(120)
    fits = [KernelRidge(kernel="rbf", verbose=1).fit(X, y),
            KernelRidge(kernel="rbf", precision="mixed").fit(X, y),
            KernelRidge(kernel="rbf", solver="falkon", n_centers=30).fit(X, y),
            KernelSVC(kernel="rbf", cache=True).fit(X, y > np.median(y)),
            KernelRidgeCV(kernel="rbf", alphas=[0.1, 1.0], cv="loo").fit(X, y)]
    assert "Gram products: exact float32 products of grid integers" in capsys.readouterr().out
    for est in fits:
        assert est.plan_.choices[-1].what == "Gram products", est
        assert est.plan_.choices[-1].value == "exact float32 products of grid integers"
    # the reason is the decision product_choice gives for the fitted kernel
    assert fits[0].plan_.choices[-1] == product_choice(fits[0].kernel_, X)
    # off the grid: recorded, saying float64
    off = rng.standard_normal((120, 40))
    assert _products(KernelRidge(kernel="rbf").fit(off, y))[-1].value == "float64 products"
    # the question does not arise: narrow rows, ARD, other kernels -- nothing recorded
    assert _products(KernelRidge(kernel="rbf").fit(X[:, :10], y)) == []
    assert _products(KernelRidge(kernel=RBF(length_scale=np.ones(40))).fit(X, y)) == []
    assert _products(KernelRidge(kernel="laplacian").fit(X, y)) == []
