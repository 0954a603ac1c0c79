"""Data-dependent default widths (gamma="scale") and kernels whose repr reads back (issue 20).

References: scikit-learn's SVC(gamma="scale")._gamma, its pairwise kernels and its
Matern kernel, brute-force loops over pairs of rows, and the kernels' own formulas.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.gaussian_process.kernels import Matern as SkMatern
from sklearn.metrics.pairwise import chi2_kernel, laplacian_kernel, polynomial_kernel, rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kernelkit
from kernelkit.kernels import (KERNELS, RBF, AdditiveChi2, Bilinear, Cauchy, Chi2, Constant,
                               Exp, KroneckerDelta, Laplacian, Linear, Matern, Polynomial, Power,
                               Product, Scaled, Sigmoid, Spectrum, Subsequence, Sum,
                               WeightedDegree, kernel_from_dict, parse_kernel)
from kernelkit.kernels.data_dependent import InputScale, rule_value


def _data(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * np.array([1.0, 3.0, 0.5, 2.0, 10.0])[:d] + 4.0


def _svc_gamma(X, rule="scale"):
    y = np.arange(X.shape[0]) % 2
    return SVC(gamma=rule).fit(X, y)._gamma


WIDTHS = {RBF: "gamma", Laplacian: "gamma", Cauchy: "gamma", Sigmoid: "gamma",
          Polynomial: "gamma", Chi2: "gamma", Matern: "length_scale"}


@pytest.mark.parametrize("cls", list(WIDTHS), ids=lambda c: c.__name__)
def test_every_width_defaults_to_scale(cls):
    assert getattr(cls(), WIDTHS[cls]) == "scale"
    assert not cls().is_resolved
    assert repr(cls()) == f"{cls.__name__}()"


@pytest.mark.parametrize("rule", ["scale", "auto"])
def test_squared_distance_rules_equal_sklearn_svc(rule):
    X = _data()
    for k in (RBF(gamma=rule), Polynomial(gamma=rule), Sigmoid(gamma=rule)):
        assert k.resolve(X).gamma == _svc_gamma(X, rule)  # same formula, same float
    Xs = sp.random(30, 8, density=0.3, format="csr", random_state=1)
    assert RBF(gamma=rule).resolve(Xs).gamma == pytest.approx(_svc_gamma(Xs, rule), rel=1e-12)


def test_default_kernels_evaluate_as_sklearn_with_the_svc_gamma():
    X = _data()
    g = _svc_gamma(X)
    np.testing.assert_allclose(RBF()(X), rbf_kernel(X, gamma=g), rtol=1e-12)
    np.testing.assert_allclose(kernelkit.gram("rbf", X), rbf_kernel(X, gamma=g), rtol=1e-12)
    np.testing.assert_allclose(Polynomial()(X), polynomial_kernel(X, gamma=g), rtol=1e-12)
    # called on (X, Y), the width comes from X (the first argument), as documented
    Y = X[:7] * 5.0
    np.testing.assert_allclose(RBF()(X, Y), rbf_kernel(X, Y, gamma=g), rtol=1e-12, atol=1e-300)


def test_laplacian_scale_is_sklearns_default_on_standardised_columns_and_of_order_one():
    X = _data(60, 5)
    Xs = StandardScaler().fit_transform(X)
    assert Laplacian().resolve(Xs).gamma == pytest.approx(1.0 / X.shape[1], rel=1e-12)
    np.testing.assert_allclose(Laplacian()(Xs), laplacian_kernel(Xs), rtol=1e-10)
    # on the raw columns, gamma * ||x - z||_1 stays of order 1 (brute force over the pairs)
    g = Laplacian().resolve(X).gamma
    l1 = [np.abs(a - b).sum() for i, a in enumerate(X) for b in X[i + 1:]]
    assert 0.3 < g * np.mean(l1) < 3.0
    assert g == pytest.approx(1.0 / (X.shape[1] * X.std()), rel=1e-12)


def test_cauchy_scale_is_the_square_root_of_the_rbf_rule():
    X = _data()
    c, r = Cauchy().resolve(X).gamma, RBF().resolve(X).gamma
    assert c == pytest.approx(np.sqrt(r), rel=1e-12)
    K = np.array([[np.prod(1.0 / (1.0 + c ** 2 * (a - b) ** 2)) for b in X] for a in X])
    np.testing.assert_allclose(Cauchy()(X), K, rtol=1e-12)  # brute force, the resolved gamma
    # near the diagonal the Cauchy kernel is the RBF of width gamma^2
    close = X[:1] + 1e-3 * np.random.default_rng(1).normal(size=(5, X.shape[1]))
    np.testing.assert_allclose(Cauchy(gamma=c)(close), RBF(gamma=c ** 2)(close), rtol=1e-5)


def test_length_scale_rule_is_the_rbf_gamma_rule():
    X = _data()
    ell = Matern().resolve(X).length_scale
    assert 1.0 / (2.0 * ell ** 2) == pytest.approx(_svc_gamma(X), rel=1e-12)
    assert RBF(length_scale="scale").resolve(X).gamma_value == pytest.approx(_svc_gamma(X),
                                                                             rel=1e-12)
    for nu in (0.5, 1.5, 2.5):
        np.testing.assert_allclose(Matern(nu=nu)(X), SkMatern(length_scale=ell, nu=nu)(X),
                                   rtol=1e-10)
    assert RBF(length_scale=2.0).resolve(X) == RBF(length_scale=2.0)  # gamma's rule unused


def test_chi2_scale_puts_the_chi2_distance_near_one():
    rng = np.random.default_rng(3)
    X = rng.poisson([1.0, 5.0, 20.0, 0.5], size=(80, 4)).astype(float)
    X[:, 3] = 0.0  # a column of zeros adds nothing
    g = Chi2().resolve(X).gamma
    mean, var = X.mean(axis=0), X.var(axis=0)
    assert g == pytest.approx(1.0 / np.sum(var[:3] / mean[:3]), rel=1e-12)
    d = [sum((a - b) ** 2 / (a + b) for a, b in zip(x, z) if a + b > 0)
         for i, x in enumerate(X) for z in X[i + 1:]]
    assert 0.5 < g * np.mean(d) < 2.0
    np.testing.assert_allclose(Chi2()(X), chi2_kernel(X, gamma=g), rtol=1e-12)


@pytest.mark.parametrize("k", [RBF(), Laplacian(), Cauchy(), Matern(), Chi2(), Polynomial(),
                               Sigmoid(), RBF() + Laplacian(), 2.0 * Matern(nu=0.5)], ids=repr)
def test_scale_rules_make_kernels_invariant_to_the_units(k):
    X = np.abs(_data())
    for c in (1e-3, 7.0, 1e4):
        np.testing.assert_allclose(k(c * X), k(X), rtol=1e-9, atol=1e-12)


def test_auto_rules_and_constant_inputs():
    X = _data(10, 4)
    assert Laplacian(gamma="auto").resolve(X).gamma == 0.25
    assert Cauchy(gamma="auto").resolve(X).gamma == pytest.approx(0.5)
    assert Matern(length_scale="auto").resolve(X).length_scale == pytest.approx(np.sqrt(2.0))
    Z = np.ones((5, 3))  # no spread: every rule falls back to a width of 1
    assert RBF().resolve(Z).gamma == 1.0 and Laplacian().resolve(Z).gamma == 1.0
    assert Chi2().resolve(Z).gamma == 1.0


def test_rules_on_rows_near_float64s_limit_stay_positive_and_finite():
    X = _data() * 1e200
    for k in (RBF(), Laplacian(), Cauchy(), Matern(), Polynomial()):
        r = k.resolve(X)
        value = r.length_scale if isinstance(r, Matern) else r.gamma
        assert np.isfinite(value) and value > 0
    K = RBF()(X)
    assert np.isfinite(K).all() and np.all(np.diag(K) == 1.0)


def test_moments_give_the_same_rules_as_the_rows():
    X = np.abs(_data())
    scale = InputScale.from_moments(X.mean(axis=0), X.var(axis=0))
    for kind in ("gamma", "l1_gamma", "cauchy_gamma", "length_scale", "chi2_gamma"):
        assert rule_value(kind, "scale", scale) == pytest.approx(rule_value(kind, "scale", X),
                                                                 rel=1e-12)


def test_model_files_written_with_the_old_default_keep_gamma_one():
    old = {"kernel": "RBF", "params": {"gamma": None, "length_scale": None}}
    assert kernel_from_dict(old) == RBF(gamma=1.0)
    old_ls = {"kernel": "RBF", "params": {"gamma": None, "length_scale": 2.0}}
    assert kernel_from_dict(old_ls) == RBF(length_scale=2.0)
    with pytest.raises(ValueError, match="gamma='scale'"):
        RBF(gamma=None)


# ---- repr reads back, in Python and in the parser ---------------------------------------
def _examples():
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    return {
        "Linear": [Linear()],
        "Polynomial": [Polynomial(), Polynomial(degree=2, gamma=0.5, coef0=0.0),
                       Polynomial(gamma="auto")],
        "RBF": [RBF(), RBF(gamma=0.25), RBF(gamma="auto"), RBF(length_scale=1.5),
                RBF(length_scale="scale"), RBF(length_scale=np.array([0.5, 2.0]))],
        "Laplacian": [Laplacian(), Laplacian(gamma=0.3)],
        "Cauchy": [Cauchy(), Cauchy(gamma="auto")],
        "Sigmoid": [Sigmoid(), Sigmoid(gamma=0.1, coef0=-1.0)],
        "KroneckerDelta": [KroneckerDelta()],
        "Constant": [Constant(), Constant(2.5)],
        "Matern": [Matern(), Matern(nu=0.5, length_scale=2.0), Matern(nu=2.5,
                                                                      length_scale="auto")],
        "Chi2": [Chi2(), Chi2(gamma=0.7)],
        "AdditiveChi2": [AdditiveChi2()],
        "Sum": [RBF() + Laplacian(gamma="auto"), Sum(RBF(), Linear(), k3=Cauchy(gamma=2.0))],
        "Product": [RBF(gamma="scale") * Polynomial(degree=2),
                    Product(Linear(), Linear(), k3=Matern())],
        "Scaled": [0.5 * RBF(), 3.0 * (RBF() + Linear())],
        "Power": [RBF() ** 2, (Laplacian() + Constant(1.0)) ** 0.5],
        "Exp": [Exp(0.1 * Linear()), Exp(RBF(gamma="auto"))],
        "Bilinear": [Bilinear(A)],
        "Subsequence": [Subsequence(), Subsequence(p=3, decay=0.25, all_lengths=True)],
        "Spectrum": [Spectrum(), Spectrum(k=2, normalize=False)],
        "WeightedDegree": [WeightedDegree(degree=2)],
        "Spline": [kernelkit.kernels.Spline(), kernelkit.kernels.Spline(order=3)],
        "WeisfeilerLehman": [kernelkit.kernels.WeisfeilerLehman(),
                             kernelkit.kernels.WeisfeilerLehman(n_iter=1, normalize=True)],
        "MeanEmbedding": [kernelkit.kernels.MeanEmbedding(),
                          kernelkit.kernels.MeanEmbedding(RBF(gamma=0.5), normalize=True),
                          kernelkit.kernels.MeanEmbedding(Linear() + 0.5 * RBF())],
        "SubsetTree": [kernelkit.kernels.SubsetTree(),
                       kernelkit.kernels.SubsetTree(decay=0.25, normalize=False)],
        "GlobalAlignment": [kernelkit.kernels.GlobalAlignment(),
                            kernelkit.kernels.GlobalAlignment(sigma=0.5, triangular=4)],
    }


def test_the_examples_cover_every_registered_kernel():
    assert set(_examples()) == set(KERNELS)


@pytest.mark.parametrize("kernel", [k for ks in _examples().values() for k in ks], ids=repr)
def test_repr_reads_back_in_python_and_in_the_parser(kernel):
    text = repr(kernel)
    assert parse_kernel(text) == kernel
    assert eval(text, {"__builtins__": {}}, dict(KERNELS)) == kernel  # noqa: S307 - the test
    assert parse_kernel(text.replace("'", '"')) == kernel  # either quote


def test_quoted_strings_parse_and_the_parser_evaluates_nothing():
    assert parse_kernel("rbf(gamma='scale')") == parse_kernel('rbf(gamma="scale")') == RBF()
    assert parse_kernel("laplacian(gamma='auto') + 2 * matern(length_scale='scale')") == \
        Laplacian(gamma="auto") + 2 * Matern()
    for text in ("rbf(gamma='__import__(\"os\")')", "rbf(gamma='1.0')"):
        with pytest.raises(kernelkit.KernelSpecError, match="gamma"):
            parse_kernel(text)  # a string is a string: checked by the constructor, never run


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("n", [1, 5, 23])
def test_column_variances_by_row_chunks_match_numpy(monkeypatch, dtype, n):
    # chunks of 4 rows here (several, the last one short): numpy's float64 variances
    import kernelkit.kernels.data_dependent as dd

    monkeypatch.setattr(dd, "_VAR_CHUNK_BYTES", 4 * 8 * 6)
    A = (np.random.default_rng(n).normal(size=(n, 6)) * [1, 10, 100, 1e-3, 1e4, 3] + 50)
    A = A.astype(dtype)
    mean = A.mean(axis=0, dtype=np.float64)
    np.testing.assert_allclose(dd._column_var(A, mean), A.var(axis=0, dtype=np.float64),
                               rtol=1e-13, atol=0)
