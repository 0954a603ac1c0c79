"""gamma="scale"/"auto", callable kernels and kernel__<param> tuning from strings (issue 11)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

import kernelkit
from kernelkit import KernelRidge, KernelSVC
from kernelkit.kernels import RBF, CallableKernel, Linear, Polynomial, parse_kernel


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


@pytest.mark.parametrize("rule", ["scale", "auto"])
def test_gamma_rules_match_the_formulas_and_sklearn_svc(iris, rule):
    X, y = iris
    expected = 1.0 / (X.shape[1] * X.var()) if rule == "scale" else 1.0 / X.shape[1]
    ours = KernelSVC(kernel=f"rbf(gamma={rule})", tol=1e-6).fit(X, y)
    ref = SVC(gamma=rule, tol=1e-6).fit(X, y)
    assert ours.kernel_ == RBF(gamma=expected)
    assert ours.kernel_.gamma == ref._gamma
    assert ours.kernel == f"rbf(gamma={rule})"  # the user's parameter is untouched
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_resolve_reaches_sub_kernels_and_leaves_the_kernel_unchanged():
    X = np.arange(12.0).reshape(4, 3)
    k = parse_kernel("rbf(gamma=scale) + 2 * poly(degree=2, gamma=auto)")
    r = k.resolve(X)
    assert r.k1.gamma == 1.0 / (3 * X.var()) and r.k2.k.gamma == 1.0 / 3
    assert not k.is_resolved and r.is_resolved
    assert parse_kernel(repr(k)) == k
    assert RBF(gamma=0.5).resolve(X) is not None and Linear().resolve(X) == Linear()


def test_unresolved_kernel_resolves_on_x_when_called_and_refuses_the_block_api():
    from kernelkit.kernels import KernelRows

    X = np.random.default_rng(0).normal(size=(6, 2))
    Y = 3.0 * X[:4]
    for k in (RBF(gamma="scale"), RBF(gamma="auto") + Linear(), Polynomial(gamma="scale")):
        fixed = k.resolve(X)
        # called directly, the rule is fixed on the first argument (as scikit-learn's
        # rbf_kernel(X, Y, gamma=None) takes its default from X), not on Y
        np.testing.assert_array_equal(k(X, Y), fixed(X, Y))
        np.testing.assert_array_equal(k(X), fixed(X))
        np.testing.assert_array_equal(k.diag(X), fixed.diag(X))
        np.testing.assert_array_equal(kernelkit.gram(k, X, Y), fixed(X, Y))
        with pytest.raises(ValueError, match="call kernel.resolve"):
            KernelRows(k, X, Y)
    with pytest.raises(ValueError, match="resolve"):
        RBF(gamma="scale").spectral_density()


def test_gamma_rule_reaches_transformers_and_model_files(tmp_path, iris):
    X, y = iris
    ny = kernelkit.Nystroem(kernel="rbf(gamma=scale)", n_components=20, random_state=0).fit(X)
    assert ny.kernel_ == RBF(gamma=1.0 / (4 * X.var()))
    rff = kernelkit.RandomFourierFeatures(kernel=RBF(gamma="auto"), n_components=20,
                                          random_state=0).fit(X)
    assert rff.kernel_ == RBF(gamma=0.25)
    model = KernelRidge(kernel="rbf(gamma=scale)", alpha=0.1).fit(X, y)
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    back = kernelkit.load(path)
    assert back.kernel_ == model.kernel_
    X_new = X.copy()  # not the fitted array itself (which takes the symmetric Gram path)
    np.testing.assert_array_equal(back.predict(X_new), model.predict(X_new))


def _poly(X, Y):
    return (X @ Y.T / 4.0 + 1.0) ** 2


def test_callable_kernel_matches_sklearn_svc(iris):
    X, y = iris
    ours = KernelSVC(kernel=_poly, tol=1e-6).fit(X, y)
    ref = SVC(kernel=_poly, tol=1e-6).fit(X, y)
    assert isinstance(ours.kernel_, CallableKernel) and ours.kernel is _poly
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_allclose(CallableKernel(_poly)(X), _poly(X, X))
    np.testing.assert_allclose(CallableKernel(_poly).diag(X), np.diag(_poly(X, X)))
    assert not CallableKernel(_poly).is_psd
    clone(ours)


def test_callable_kernel_errors(tmp_path, iris):
    X, y = iris
    with pytest.raises(ValueError, match="shape"):
        CallableKernel(lambda A, B: A @ A.T)(X[:3], X[:5])
    with pytest.raises(ValueError, match="non-finite"):
        CallableKernel(lambda A, B: np.full((len(A), len(B)), np.nan))(X[:3])
    with pytest.raises(ValueError, match="Nystroem"):
        kernelkit.RandomFourierFeatures(kernel=_poly, n_components=4).fit(X)
    model = KernelRidge(kernel=_poly).fit(X, y)
    with pytest.raises(ValueError, match="a callable kernel cannot be stored safely"):
        kernelkit.save(model, tmp_path / "m.kk")
    assert not (tmp_path / "m.kk").exists()


@pytest.mark.parametrize("kernel, name", [("rbf", "kernel__gamma"),
                                          ("rbf(gamma=1)", "kernel__gamma"),
                                          ("rbf + linear", "kernel__k1__gamma")])
def test_grid_search_over_kernel_params_from_strings(iris, kernel, name):
    X, y = iris
    gammas = [0.01, 0.3, 10.0]
    est = KernelSVC(kernel=kernel)
    assert ("k1__gamma" if "+" in kernel else "gamma") in parse_kernel(kernel).get_params()
    gs = GridSearchCV(est, {name: gammas}, cv=3).fit(X, y)
    base = RBF(gamma=1.0) if kernel != "rbf + linear" else RBF(gamma=1.0) + Linear()
    ref = GridSearchCV(KernelSVC(kernel=base), {name: gammas}, cv=3).fit(X, y)
    explicit = [RBF(gamma=g) if kernel != "rbf + linear" else RBF(gamma=g) + Linear()
                for g in gammas]
    ref2 = GridSearchCV(KernelSVC(), {"kernel": explicit}, cv=3).fit(X, y)
    assert gs.best_params_[name] == ref.best_params_[name]
    assert ref2.best_params_["kernel"] == gs.best_estimator_.kernel
    assert est.kernel == kernel  # the searched estimator is cloned, not changed


def test_set_params_on_string_kernel_and_clear_refusals():
    est = KernelRidge(kernel="rbf(gamma=1)").set_params(kernel__gamma=0.5, alpha=2.0)
    assert est.kernel == RBF(gamma=0.5) and est.alpha == 2.0
    assert clone(est).kernel == RBF(gamma=0.5)
    with pytest.raises(ValueError, match="precomputed"):
        KernelRidge(kernel="precomputed").set_params(kernel__gamma=1.0)
    with pytest.raises(ValueError, match="Python function"):
        KernelRidge(kernel=_poly).set_params(kernel__gamma=1.0)


def test_non_integer_polynomial_degree_is_refused_clearly():
    with pytest.raises(ValueError, match="positive integer.*not positive semi-definite"):
        Polynomial(degree=2.5)
