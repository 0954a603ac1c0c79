"""KernelSVC against scikit-learn's SVC (libsvm) on small real data."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models.svm import KernelSVC


def libsvm_dual_objective(svc, K, pair_rows):
    """sum(a) - 1/2 a'Qa of one binary problem of a fitted SVC, from its dual_coef_.

    For two classes dual_coef_ holds y_i a_i for the support vectors; K is
    the Gram matrix of the support vectors."""
    c = svc.dual_coef_[0] if pair_rows is None else pair_rows
    return np.abs(c).sum() - 0.5 * c @ K @ c


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    return X[:600], y[:600], X[600:1600], y[600:1600]


def assert_agree(ours, theirs, X, frac=0.0):
    """Same predictions except on points the models put on the boundary."""
    p, q = ours.predict(X), theirs.predict(X)
    d = theirs.decision_function(X)
    margin = np.abs(d).min(axis=1) if d.ndim == 2 else np.abs(d)
    differ = p != q
    assert differ.mean() <= frac
    assert np.all(margin[differ] < 1e-2)  # disagreements only where |decision| ~ 0


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_binary_banana_matches_libsvm(banana, C):
    X, y, Xt, yt = banana
    ours = KernelSVC(RBF(gamma=1.0), C=C).fit(X, y)
    sk = SVC(C=C, gamma=1.0).fit(X, y)
    assert_agree(ours, sk, Xt, frac=0.002)
    np.testing.assert_allclose(ours.decision_function(Xt), sk.decision_function(Xt), atol=5e-3)
    K = RBF(gamma=1.0)(sk.support_vectors_)
    d_sk = libsvm_dual_objective(sk, K, None)
    assert ours.dual_objective_[0] == pytest.approx(d_sk, rel=1e-3)
    assert len(np.setxor1d(ours.support_, sk.support_)) <= 0.02 * len(sk.support_) + 1
    assert ours.dual_coef_.shape == (1, len(ours.support_))
    assert 0 <= ours.duality_gap_[0] <= 1e-3 * ours.dual_objective_[0] * 10


@pytest.mark.parametrize("data,gamma,C", [("iris", 0.5, 1.0), ("digits", 0.001, 10.0)])
def test_multiclass_ovo_matches_libsvm(data, gamma, C):
    X, y = load_iris(return_X_y=True) if data == "iris" else load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))[:600]
    X, y = X[idx], y[idx]
    ours = KernelSVC(RBF(gamma=gamma), C=C).fit(X, y)
    sk = SVC(C=C, gamma=gamma).fit(X, y)
    assert_agree(ours, sk, X, frac=0.005)
    np.testing.assert_array_equal(ours.n_support_, sk.n_support_)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=2e-2 * C)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=1e-2)
    for shape in ("ovr", "ovo"):
        ours.set_params(decision_function_shape=shape)
        sk.set_params(decision_function_shape=shape)
        np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X),
                                   atol=1e-2)
    # the dual objective of each pair, recovered from libsvm's dual_coef_ layout
    n_classes = len(sk.classes_)
    start = np.concatenate([[0], np.cumsum(sk.n_support_)])
    K = RBF(gamma=gamma)(sk.support_vectors_)
    p = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            c = np.zeros(len(sk.support_))
            c[start[a]:start[a + 1]] = sk.dual_coef_[b - 1, start[a]:start[a + 1]]
            c[start[b]:start[b + 1]] = sk.dual_coef_[a, start[b]:start[b + 1]]
            d_sk = libsvm_dual_objective(sk, K, c)
            assert ours.dual_objective_[p] == pytest.approx(d_sk, rel=1e-3)
            p += 1


def test_multiclass_ovr_matches_one_vs_rest_svc():
    X, y = load_iris(return_X_y=True)
    ours = KernelSVC(RBF(gamma=0.5), C=3.0, multiclass="ovr").fit(X, y)
    sk = OneVsRestClassifier(SVC(C=3.0, gamma=0.5)).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=5e-3)
    assert (ours.predict(X) == sk.predict(X)).mean() >= 0.99
    assert ours.dual_coef_.shape == (3, len(ours.support_))
    assert ours.dual_objective_.shape == (3,)


@pytest.mark.parametrize("multiclass", ["ovo", "ovr"])
def test_row_cache_multiclass_equals_stored(multiclass):
    X, y = load_iris(return_X_y=True)
    ref = KernelSVC(RBF(gamma=0.5), C=3.0, multiclass=multiclass).fit(X, y)
    rows = KernelSVC(RBF(gamma=0.5), C=3.0, multiclass=multiclass, cache=False).fit(X, y)
    np.testing.assert_allclose(rows.dual_objective_, ref.dual_objective_, rtol=1e-4)
    np.testing.assert_allclose(rows.decision_function(X), ref.decision_function(X), atol=1e-2)


def test_string_labels_and_binary_orientation(banana):
    X, y, Xt, yt = banana
    labels = np.where(y > 0, "yes", "no")
    ours = KernelSVC(RBF(gamma=1.0)).fit(X, labels)
    sk = SVC(gamma=1.0).fit(X, labels)
    assert list(ours.classes_) == ["no", "yes"]
    assert (ours.predict(Xt) == sk.predict(Xt)).mean() > 0.998
    np.testing.assert_allclose(ours.decision_function(Xt), sk.decision_function(Xt), atol=5e-3)


@pytest.mark.parametrize("class_weight", [{0: 3.0, 2: 0.5}, "balanced"])
def test_class_weight_matches_libsvm(class_weight):
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:50, 50:80, 100:150]  # unbalanced
    X, y = X[keep], y[keep]
    ours = KernelSVC(RBF(gamma=0.5), C=2.0, class_weight=class_weight).fit(X, y)
    sk = SVC(C=2.0, gamma=0.5, class_weight=class_weight).fit(X, y)
    assert_agree(ours, sk, X, frac=0.01)
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=5e-2)


def test_sample_weight_matches_libsvm(banana):
    X, y, Xt, yt = banana
    w = np.random.default_rng(1).uniform(0, 3, len(y))
    w[:20] = 0  # left out, as libsvm does
    ours = KernelSVC(RBF(gamma=1.0), C=2.0).fit(X, y, sample_weight=w)
    sk = SVC(C=2.0, gamma=1.0).fit(X, y, sample_weight=w)
    assert_agree(ours, sk, Xt, frac=0.003)
    # scikit-learn's support_ counts positions after dropping the weight-0
    # samples; ours are indices into the X given to fit
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(w > 0)[sk.support_])
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=5e-3)


def test_precomputed_and_row_cache_equal_stored_gram(banana):
    X, y, Xt, yt = banana
    k = Polynomial(degree=2, gamma=0.5)
    ref = KernelSVC(k, C=1.0).fit(X, y)
    pre = KernelSVC("precomputed", C=1.0).fit(k(X), y)
    rows = KernelSVC(k, C=1.0, cache=False).fit(X, y)
    np.testing.assert_allclose(pre.decision_function(k(Xt, X)), ref.decision_function(Xt),
                               atol=1e-8)
    assert (rows.predict(Xt) == ref.predict(Xt)).mean() > 0.995
    assert rows.dual_objective_[0] == pytest.approx(ref.dual_objective_[0], rel=1e-4)


def test_pegasos_solver_close_to_smo(banana):
    X, y, Xt, yt = banana
    smo = KernelSVC(RBF(gamma=1.0), C=1.0).fit(X, y)
    peg = KernelSVC(RBF(gamma=1.0), C=1.0, solver="pegasos", n_iter=30 * len(X),
                    random_state=0).fit(X, y)
    assert peg.intercept_[0] == 0.0
    assert peg.score(Xt, yt) > smo.score(Xt, yt) - 0.03
    assert peg.duality_gap_[0] > 0
    # the same draws give the same model
    again = KernelSVC(RBF(gamma=1.0), C=1.0, solver="pegasos", n_iter=30 * len(X),
                      random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.dual_coef_, peg.dual_coef_)


@pytest.mark.parametrize("params,y,match", [
    ({}, np.zeros(20), "only one class"),
    ({"C": 0.0}, np.r_[np.zeros(10), np.ones(10)], "C must be"),
    ({"C": -1.0}, np.r_[np.zeros(10), np.ones(10)], "C must be"),
    ({}, np.array([1, "a"] * 10, dtype=object), "mixes strings and numbers"),
    ({"solver": "newton"}, np.r_[np.zeros(10), np.ones(10)], "solver must be"),
])
def test_errors(params, y, match):
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=match):
        KernelSVC(**params).fit(X, y)


def test_nan_refused():
    X = np.random.default_rng(0).normal(size=(20, 2))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelSVC().fit(X, np.r_[np.zeros(10), np.ones(10)])


def test_max_iter_warns_and_defaults_work(banana):
    from sklearn.exceptions import ConvergenceWarning

    X, y, Xt, yt = banana
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        KernelSVC(RBF(gamma=1.0), C=10.0, max_iter=3).fit(X, y)
    # the string default "rbf" (gamma=1.0) and a column-vector y (warned, as scikit-learn)
    from sklearn.exceptions import DataConversionWarning

    with pytest.warns(DataConversionWarning):
        clf = KernelSVC().fit(X, y[:, None])
    assert clf.score(Xt, yt) > 0.85
