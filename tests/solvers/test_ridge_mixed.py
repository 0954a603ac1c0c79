"""Mixed-precision exact kernel ridge (float32 Cholesky preconditioning float64 CG)
against the float64 Cholesky solve and scikit-learn's KernelRidge."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_ridge import KernelRidge as SKRidge

import kernelkit.models.kernel_ridge as kr_module
import kernelkit.solvers.ridge_mixed as ridge_mixed
from kernelkit import gram
from kernelkit.kernels import RBF, Laplacian, Matern
from kernelkit.models import KernelRidge, KernelRidgeClassifier
from kernelkit.solvers import dual_ridge
from kernelkit.solvers.ridge_mixed import _float32_gram, _lower_rows, _Shifted, dual_ridge_mixed


def _data(n=600, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y, rng.normal(size=(100, d))


@pytest.fixture(params=[None, 300], ids=["one-block", "blocks-of-300-rows"])
def rows_per_block(request, monkeypatch):
    """One block of rows (large enough for the tiled engine), or blocks of 300 rows."""
    if request.param is not None:
        monkeypatch.setattr(ridge_mixed, "rows_per_block", lambda n, **kw: request.param)
    return request.param


def test_float32_gram_is_the_float64_gram_rounded(rows_per_block):
    X, _, _ = _data(1500, d=4)
    for k in (RBF(gamma=0.3), Laplacian(gamma=0.2)):
        np.testing.assert_array_equal(_float32_gram(_lower_rows(k, X)),
                                      gram(k, X).astype(np.float32))


def test_products_from_the_lower_blocks_equal_the_dense_products(rows_per_block):
    # (S^1/2 K S^1/2 + alpha I) V from the lower triangle's blocks, each used twice.
    X, _, _ = _data(1500, d=4)
    rng = np.random.default_rng(2)
    V, root = rng.normal(size=(1500, 3)), np.sqrt(rng.uniform(0.5, 2.0, size=1500))
    for k in (RBF(gamma=0.3), Matern(nu=1.5, length_scale=2.0)):
        K = gram(k, X)
        op = _Shifted(_lower_rows(k, X), root, 0.7)
        np.testing.assert_allclose(op.matmat(V), root[:, None] * (K @ (root[:, None] * V))
                                   + 0.7 * V, rtol=1e-11, atol=1e-11)
        plain = _Shifted(_lower_rows(k, X), None, 0.0)
        np.testing.assert_allclose(plain.matmat(V[:, :1]), K @ V[:, :1], rtol=1e-11,
                                   atol=1e-11)


@pytest.mark.parametrize("alpha", [1.0, 1e-2, 1e-4])
@pytest.mark.parametrize("kernel", [RBF(gamma=0.2), Matern(nu=2.5, length_scale=1.0), Laplacian(gamma=0.3)])
def test_mixed_equals_float64_cholesky(kernel, alpha):
    X, y, Xt = _data()
    Y = np.column_stack([y, np.cos(X[:, 3])])
    sw = np.random.default_rng(1).uniform(0.5, 2.0, size=len(X))
    u, _ = dual_ridge(gram(kernel, X), Y, alpha, sample_weight=sw)
    res = dual_ridge_mixed(kernel, X, Y, alpha, sample_weight=sw)
    assert res.converged and 1 <= res.n_iter <= 15 and np.all(res.residual_norm <= 1e-12)
    Kt = gram(kernel, Xt, X)
    p, pm = Kt @ u, Kt @ res.coef
    assert np.abs(p - pm).max() <= 1e-9 * np.abs(p).max()


def test_estimator_mixed_matches_float64_and_scikit_learn(monkeypatch):
    X, y, Xt = _data(800)
    kw = dict(alpha=1e-2, solver="dual", fit_intercept=False)
    mixed = KernelRidge(RBF(gamma=0.2), precision="mixed", **kw).fit(X, y)
    exact = KernelRidge(RBF(gamma=0.2), precision="float64", **kw).fit(X, y)
    peer = SKRidge(kernel="rbf", gamma=0.2, alpha=1e-2).fit(X, y)
    p = exact.predict(Xt)
    assert np.abs(mixed.predict(Xt) - p).max() <= 1e-9 * np.abs(p).max()
    np.testing.assert_allclose(p, peer.predict(Xt), rtol=1e-8, atol=1e-10)
    assert mixed.n_iter_ > 1 and mixed.residual_norm_ <= 1e-12
    choices = {c.what: c for c in mixed.plan_.choices}
    assert choices["precision"].value == "mixed" and "set by the user" in \
        choices["precision"].reason
    # "auto" picks mixed from MIXED_MIN_N on, and says why
    monkeypatch.setattr(kr_module, "MIXED_MIN_N", 500)
    auto = KernelRidge(RBF(gamma=0.2), **kw).fit(X, y)
    reason = {c.what: c for c in auto.plan_.choices}["precision"]
    assert reason.value == "mixed" and "n = 800 >= 500" in reason.reason
    small = KernelRidge(RBF(gamma=0.2), **kw).fit(X[:400], y[:400])
    assert {c.what: c.value for c in small.plan_.choices}["precision"] == "float64"
    clf = KernelRidgeClassifier(RBF(gamma=0.2), alpha=1e-2, solver="dual",
                                precision="mixed").fit(X, y > 0)
    ref = KernelRidgeClassifier(RBF(gamma=0.2), alpha=1e-2, solver="dual",
                                precision="float64").fit(X, y > 0)
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt),
                               atol=1e-9)


def test_too_ill_conditioned_for_float32_warns_and_keeps_the_residual():
    # A wide RBF and a tiny alpha: cond(K + alpha I) ~ 1e12 >> 1 / eps32.
    X, y, _ = _data(400, d=3)
    m = KernelRidge(RBF(gamma=0.01), alpha=1e-10, solver="dual", precision="mixed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m.fit(X, y)
    assert any(issubclass(w.category, ConvergenceWarning) and "too ill-conditioned"
               in str(w.message) for w in caught)
    assert np.max(m.residual_norm_) > 1e-12
