"""The algebra's nodes against their definitions on component Gram matrices, their
errors and flags, nested parameters, and Bochner's theorem by Monte Carlo."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone

from kernelkit.kernels import (RBF, Bilinear, Cauchy, Composed, Constant, Exp, KroneckerDelta,
                               Laplacian, Linear, Polynomial, Power, Product, Scaled, Sigmoid,
                               Sum, Warped, kernel_from_dict, parse_kernel)
from kernelkit.testing import check_kernel


def _data(n=15, m=9, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((m, d))


def _sq_norm_weight(X):
    return np.exp(-0.3 * np.einsum("ij,ij->i", X, X))


def _square(X):
    return np.asarray(X) ** 2


K1, K2 = RBF(gamma=0.5), Polynomial(degree=2, coef0=1.0)


@pytest.mark.parametrize("node, reference", [
    (K1 + K2, lambda A, B: A + B),
    (K1 * K2, lambda A, B: A * B),
    (2.5 * K1, lambda A, B: 2.5 * A),
    (K1 * 2.5, lambda A, B: 2.5 * A),
    (K2 / 4, lambda A, B: B / 4),
    (K2 ** 3, lambda A, B: B ** 3),
    (K1 + 0.7, lambda A, B: A + 0.7),
    (Exp(0.1 * K2), lambda A, B: np.exp(0.1 * B)),
], ids=lambda v: repr(v) if not callable(v) or hasattr(v, "get_params") else "")
def test_nodes_match_definitions(node, reference):
    X, Y = _data()
    for args in ((X, Y), (X,)):
        A, B = K1(*args), K2(*args)
        np.testing.assert_allclose(node(*args), reference(A, B), rtol=1e-12)


def test_warped_and_composed_match_definitions():
    X, Y = _data()
    w = Warped(K2, _sq_norm_weight)
    expected = _sq_norm_weight(X)[:, None] * K2(X, Y) * _sq_norm_weight(Y)[None, :]
    np.testing.assert_allclose(w(X, Y), expected, rtol=1e-12)
    np.testing.assert_allclose(w.diag(X), _sq_norm_weight(X) ** 2 * K2.diag(X), rtol=1e-12)
    c = Composed(K1, _square)
    np.testing.assert_allclose(c(X, Y), K1(X ** 2, Y ** 2), rtol=1e-12)
    np.testing.assert_allclose(c(X), K1(X ** 2), rtol=1e-12)


def test_exp_warped_linear_is_rbf():
    # exp(-g||x-y||^2) = exp(-g||x||^2) exp(2g x'y) exp(-g||y||^2)
    X, Y = _data()
    for g in (0.1, 0.5, 1.3):
        def f(Z, g=g):
            return np.exp(-g * np.einsum("ij,ij->i", Z, Z))

        k = Warped(Exp(2 * g * Linear()), f)
        np.testing.assert_allclose(k(X, Y), RBF(gamma=g)(X, Y), rtol=1e-10)
        np.testing.assert_allclose(k(X), RBF(gamma=g)(X), rtol=1e-10)


def test_bilinear_is_linear_after_cholesky_map():
    X, Y = _data(d=4)
    rng = np.random.default_rng(1)
    M = rng.standard_normal((4, 4))
    A = M @ M.T + 0.1 * np.eye(4)
    L = scipy.linalg.cholesky(A, lower=True)  # A = L L', x'Ay = (L'x)'(L'y)
    np.testing.assert_allclose(Bilinear(A)(X, Y), Linear()(X @ L, Y @ L), rtol=1e-11)
    np.testing.assert_allclose(Bilinear(A).diag(X), np.einsum("ij,jk,ik->i", X, A, X),
                               rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: -1 * RBF(), lambda: RBF() * -0.5, lambda: Scaled(RBF(), -2),
    lambda: RBF() / -3, lambda: RBF() / 0, lambda: RBF() + (-1.0),
    lambda: RBF() ** 0, lambda: RBF() ** -2,
])
def test_negative_scale_and_bad_powers_raise(make):
    with pytest.raises(ValueError):
        make()


@pytest.mark.parametrize("A, match", [
    (np.array([[1.0, 0.0], [0.0, -1.0]]), "positive semi-definite"),
    (np.array([[1.0, 0.5], [0.0, 1.0]]), "symmetric"),
    (np.ones((2, 3)), "square"),
    (np.array([[np.nan]]), "NaN"),
])
def test_bilinear_rejects_bad_matrices(A, match):
    with pytest.raises(ValueError, match=match):
        Bilinear(A)


def test_bilinear_feature_mismatch():
    with pytest.raises(ValueError, match="features"):
        Bilinear(np.eye(3))(np.ones((2, 2)))


class _StringKernel(Linear):
    input_kind = "string"


def test_mixing_kinds_and_non_kernel_operands():
    with pytest.raises(ValueError, match="same kind"):
        RBF() + _StringKernel()
    with pytest.raises(ValueError, match="same kind"):
        Product(_StringKernel(), RBF())
    # Constant ("any") combines with both
    assert (Constant() + _StringKernel()).input_kind == "string"
    assert (Constant() + RBF()).input_kind == "vector"
    for bad in (lambda: RBF() + "rbf", lambda: RBF() * [1], lambda: Sum(RBF(), 1.0),
                lambda: Scaled("rbf", 1.0), lambda: Exp(2.0), lambda: Warped(RBF(), 3),
                lambda: Composed(RBF(), None), lambda: RBF() + True):
        with pytest.raises(TypeError):
            bad()


def test_psd_and_shift_invariance_flags():
    assert (RBF() + Laplacian()).is_shift_invariant
    assert (RBF() * Cauchy()).is_shift_invariant
    assert (2 * RBF()).is_shift_invariant and (RBF() ** 2).is_shift_invariant
    assert (RBF() + 1.0).is_shift_invariant
    assert not (RBF() + Linear()).is_shift_invariant
    assert not Warped(RBF(), _sq_norm_weight).is_shift_invariant
    assert not Composed(RBF(), _square).is_shift_invariant
    assert not Bilinear(np.eye(2)).is_shift_invariant
    assert not (RBF() + Sigmoid()).is_psd and not (Sigmoid() * RBF()).is_psd
    assert (RBF() ** 2).is_psd and not (RBF() ** 0.5).is_psd
    assert not Exp(Sigmoid()).is_psd and Exp(Linear()).is_psd
    assert not Warped(Sigmoid(), _sq_norm_weight).is_psd
    assert not Composed(Sigmoid(), _square).is_psd
    assert Bilinear(np.eye(2)).is_psd


def test_nested_params():
    k = RBF(gamma=0.5) + 0.1 * Polynomial(degree=3)
    p = k.get_params()
    assert p["k1__gamma"] == 0.5 and p["k2__scale"] == 0.1 and p["k2__k__degree"] == 3
    assert set(k.get_params(deep=False)) == {"k1", "k2"}
    k.set_params(k1__gamma=2.0, k2__k__degree=2, k2__scale=0.3)
    assert k == RBF(gamma=2.0) + 0.3 * Polynomial(degree=2)
    with pytest.raises(ValueError, match="invalid parameter"):
        k.set_params(k3=RBF())
    with pytest.raises(ValueError, match="gamma"):
        k.set_params(k1__gamma=-1.0)


def test_reconstruction_and_clone():
    k = RBF(gamma=0.5) * Laplacian() + 0.1 * Polynomial(degree=3) ** 2
    assert type(k)(**k.get_params(deep=False)) == k
    c = clone(k)
    assert c == k and c is not k and c.k1 is not k.k1
    c.set_params(k1__k1__gamma=3.0)
    assert k.k1.k1.gamma == 0.5


def test_clone_bilinear():
    # estimators clone their parameters (GridSearchCV): Bilinear must survive it
    k = Bilinear(np.diag([1.0, 2.0]))
    assert clone(k) == k
    assert clone(RBF() + Bilinear(np.eye(2))) == RBF() + Bilinear(np.eye(2))


def test_python_sum_of_kernels():
    k1, k2, k3 = RBF(), Linear(), Cauchy()
    s = sum([k1, k2, k3])
    assert s == Sum(Sum(k1, k2), k3)
    X, _ = _data()
    np.testing.assert_allclose(s(X), k1(X) + k2(X) + k3(X), rtol=1e-12)


def test_warped_composed_refuse_to_dict():
    for k in (Warped(RBF(), _sq_norm_weight), Composed(RBF(), _square),
              RBF() + Warped(Linear(), _sq_norm_weight)):
        with pytest.raises(TypeError, match="callable"):
            k.to_dict()


def test_warping_function_errors():
    X, _ = _data()
    with pytest.raises(ValueError, match="one number per sample"):
        Warped(RBF(), lambda Z: np.ones(3))(X)
    with pytest.raises(ValueError, match="NaN"):
        Warped(RBF(), lambda Z: np.full(len(Z), np.nan))(X)
    with pytest.raises(ValueError, match="failed"):
        Warped(RBF(), lambda Z: 1 / 0)(X)


def test_non_integer_power_of_negative_values():
    X, _ = _data()
    with pytest.raises(ValueError, match="integer exponent"):
        (Linear() ** 0.5)(X)
    Z = np.abs(X)
    np.testing.assert_allclose((Linear() ** 0.5)(Z), Linear()(Z) ** 0.5, rtol=1e-12)


# ---------------------------------------------------------------- contract
def _combos():
    A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 0.5]])
    return [
        RBF(0.5) + Linear(), RBF(0.5) * Laplacian(0.3), 0.1 * Polynomial(degree=3),
        Polynomial(degree=2) / 4, RBF() ** 3, (RBF() + Cauchy()) * 2.0, RBF(0.2) + 1.5,
        Exp(0.2 * Linear()), Exp(RBF()), (Laplacian() * Linear()) ** 2,
        Warped(RBF(), _sq_norm_weight), Composed(Laplacian(), _square),
        Warped(Exp(0.2 * Linear()), _sq_norm_weight) + KroneckerDelta(),
        Bilinear(A), RBF() + Bilinear(A), Sigmoid(0.1) + 0.5 * RBF(),
        Sum(RBF(), Sum(Linear(), Cauchy())), Product(RBF(), Product(Linear(), Cauchy())),
        2.0 * (0.5 * RBF()), Power(RBF(), 2.0), RBF() ** 2.5,
    ]


@pytest.mark.parametrize("kernel", _combos(), ids=repr)
def test_check_kernel(kernel):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((20, 3))
    check_kernel(kernel, X)


# --------------------------------------------------------------- Bochner
D = 200_000


def _mc_kernel(kernel, deltas, seed=0):
    dens = kernel.spectral_density()
    W = dens.sample(deltas.shape[1], D, random_state=seed)
    assert W.shape == (deltas.shape[1], D)
    return dens.scale * np.cos(deltas @ W).mean(axis=1)


@pytest.mark.parametrize("kernel", [
    RBF(gamma=0.7), Laplacian(gamma=0.8), Cauchy(gamma=1.5), 3.0 * RBF(gamma=0.2),
    RBF(gamma=0.5) + 0.5 * Laplacian(gamma=1.0), RBF(gamma=0.3) * Cauchy(gamma=0.6),
    RBF(0.4) ** 2, Constant(0.5) + Cauchy(gamma=1.0), Constant(2.0) * RBF(0.3),
], ids=repr)
def test_spectral_density_monte_carlo(kernel):
    rng = np.random.default_rng(11)
    deltas = np.vstack([np.zeros((1, 2)), 0.6 * rng.standard_normal((6, 2))])
    exact = kernel(deltas, np.zeros((1, 2)))[:, 0]
    scale = kernel.spectral_density().scale
    assert scale == pytest.approx(kernel(np.zeros((1, 2)))[0, 0])
    np.testing.assert_allclose(_mc_kernel(kernel, deltas), exact, atol=5 * scale / np.sqrt(D))


@pytest.mark.parametrize("kernel", [
    Linear(), Polynomial(), Sigmoid(), KroneckerDelta(), Bilinear(np.eye(2)),
    Warped(RBF(), _sq_norm_weight), Composed(RBF(), _square), RBF(gamma=1.0) + Linear(),
    RBF(gamma=1.0) * Polynomial(gamma=1.0), Exp(Linear()),
], ids=repr)
def test_no_spectral_density_mentions_nystroem(kernel):
    with pytest.raises(ValueError, match="Nystroem"):
        kernel.spectral_density()


def test_spectral_density_is_reproducible():
    d = (RBF(gamma=1.0) + Laplacian(gamma=1.0)).spectral_density()
    np.testing.assert_array_equal(d.sample(3, 50, random_state=4), d.sample(3, 50, random_state=4))


def test_repr_round_trip_of_nested_nodes():
    for k in (Sum(RBF(), Sum(Linear(), Cauchy())), Product(RBF(), Product(Linear(), Cauchy())),
              Scaled(Scaled(RBF(), 0.5), 2.0)):
        assert parse_kernel(repr(k)) == k, repr(k)


# ---- flat sums and products, bounded nesting (issue 13) --------------------------------
def test_sum_of_thousands_of_kernels_is_one_flat_node_without_recursion():
    from kernelkit.models import KernelRidge

    X, _ = _data()
    k = sum([Linear()] * 2999, RBF(gamma=0.5))  # RecursionError at fit before
    assert type(k) is Sum and k.n_terms == 3000
    assert k.k1 == RBF(gamma=0.5) and k.k3000 == Linear()
    np.testing.assert_allclose(k(X), RBF(gamma=0.5)(X) + 2999 * Linear()(X), rtol=1e-10)
    np.testing.assert_allclose(k.diag(X), np.diag(k(X)), rtol=1e-12)
    assert parse_kernel(repr(k)) == k
    assert kernel_from_dict(k.to_dict()) == k
    c = clone(k)
    assert c == k and c.k2 is not k.k2
    assert k.get_params()["k1__gamma"] == 0.5 and len(k.get_params(deep=False)) == 3000
    y = X[:, 0]
    pred = KernelRidge(kernel=k, alpha=1.0).fit(X, y).predict(X)
    assert np.isfinite(pred).all()


def test_random_and_explicit_features_of_wide_sums_and_products():
    from kernelkit.features import ExplicitFeatures, RandomFourierFeatures

    X, _ = _data()
    k = sum([RBF(gamma=0.1)] * 2000, RBF(gamma=0.1))
    Z = RandomFourierFeatures(k, n_components=64, random_state=0).fit_transform(X)
    assert Z.shape == (len(X), 64) and np.isfinite(Z).all()
    wide = sum([Linear()] * 500, Linear())
    np.testing.assert_allclose(ExplicitFeatures(wide).fit_transform(X) @
                               ExplicitFeatures(wide).fit_transform(X).T, wide(X), rtol=1e-10)
    prod = Linear() * Linear() * Constant(2.0)
    assert type(prod) is Product and prod.n_terms == 3
    Zp = ExplicitFeatures(prod).fit_transform(X)
    np.testing.assert_allclose(Zp @ Zp.T, prod(X), rtol=1e-10)


def test_nested_sums_flatten_and_three_term_params_work_in_a_grid_search():
    from sklearn.model_selection import GridSearchCV

    from kernelkit.models import KernelRidge

    a, b, c = RBF(gamma=0.5), Linear(), RBF(gamma=2.0)
    k = (a + b) + c
    assert k == a + (b + c) == Sum(a, b, k3=c) == sum([a, b, c])
    assert set(k.get_params(deep=False)) == {"k1", "k2", "k3"}
    assert repr(k) == "RBF(gamma=0.5) + Linear() + RBF(gamma=2.0)"
    assert Sum(a, b) != k and k != Sum(a, b)
    k.set_params(k3__gamma=3.0)
    assert k.k3.gamma == 3.0
    with pytest.raises(ValueError, match="invalid parameter 'k4'"):
        k.set_params(k4=RBF())
    with pytest.raises(TypeError, match="without gaps"):
        Sum(a, b, k4=c)
    X, _ = _data()
    y = X[:, 0] ** 2
    gs = GridSearchCV(KernelRidge(kernel=k), {"kernel__k3__gamma": [0.1, 1.0]}, cv=2).fit(X, y)
    assert gs.best_estimator_.kernel.k3.gamma in (0.1, 1.0)


def test_mixture_and_convolution_sample_as_the_nested_binary_densities_did():
    from kernelkit.kernels import spectral

    parts = [spectral.Gaussian(0.5), spectral.LaplaceDensity(2.0, scale=3.0),
             spectral.Gaussian(1.5, scale=0.5), spectral.Dirac(scale=0.0)]
    nested = spectral.Mixture(spectral.Mixture(spectral.Mixture(*parts[:2]), parts[2]),
                              parts[3])
    flat = spectral.Mixture(*parts)
    np.testing.assert_array_equal(flat.sample(3, 200, random_state=1),
                                  nested.sample(3, 200, random_state=1))
    assert flat.scale == nested.scale
    zero = [spectral.Gaussian(1.0, scale=0.0), spectral.Gaussian(1.0, scale=0.0), parts[1]]
    np.testing.assert_array_equal(
        spectral.Mixture(*zero).sample(2, 50, random_state=0),
        spectral.Mixture(spectral.Mixture(*zero[:2]), zero[2]).sample(2, 50, random_state=0))
    conv = spectral.Convolution(*parts[:3])
    np.testing.assert_array_equal(
        conv.sample(3, 40, random_state=2),
        spectral.Convolution(spectral.Convolution(*parts[:2]), parts[2]).sample(
            3, 40, random_state=2))
    rbf = RBF(gamma=1.0)
    assert (rbf ** 3).spectral_density() == spectral.Convolution(*[rbf.spectral_density()] * 3)


def test_deep_chains_of_unary_nodes_are_refused_with_the_parsers_message():
    from kernelkit.exceptions import KernelSpecError
    from kernelkit.kernels.algebra import MAX_DEPTH

    k = RBF()
    for _ in range(MAX_DEPTH - 1):
        k = 2 * k  # MAX_DEPTH levels: accepted, and every walk over it works
    X, _ = _data()
    assert np.isfinite(k(X)).all() and parse_kernel(repr(k)) == k and clone(k) == k
    assert kernel_from_dict(k.to_dict()) == k
    with pytest.raises(KernelSpecError, match="nested too deeply"):
        2 * k
    with pytest.raises(KernelSpecError, match="nested too deeply"):
        p = RBF()
        for _ in range(20000):
            p = p ** 1
    with pytest.raises(KernelSpecError, match="nested too deeply") as info:
        parse_kernel("rbf" + " * 2" * 20000)
    assert len(str(info.value)) < 500  # the message, not 80,000 characters of expression
    with pytest.raises(KernelSpecError, match="nested too deeply"):
        Exp(k)


def test_parser_builds_long_chains_as_one_flat_node():
    k = parse_kernel("rbf" + " + rbf" * 5000)
    assert type(k) is Sum and k.n_terms == 5001
    p = parse_kernel("linear" + " * linear" * 3000)
    assert type(p) is Product and p.n_terms == 3001
    assert parse_kernel("rbf * linear * 2 + 1.5 + cauchy") == \
        (RBF() * Linear()) * 2 + Constant(1.5) + Cauchy()
