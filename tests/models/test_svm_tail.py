"""The SMO estimators' shared fitted state (models/_svm_tail.py): libsvm's one-vs-one
layout against loops over samples and pairs, and KernelSVC, KernelSVR and
KernelOneClassSVM keeping support vectors, coefficients and steps the same way."""

from itertools import combinations

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.models import KernelOneClassSVM, KernelSVC, KernelSVR
from kernelkit.models._svm_tail import class_pairs, from_libsvm_layout, to_libsvm_layout


@pytest.mark.parametrize("k", [2, 3, 5])
def test_class_pairs_are_libsvms_order(k):
    assert [(a, b) for _, a, b in class_pairs(k)] == list(combinations(range(k), 2))
    assert [p for p, _, _ in class_pairs(k)] == list(range(k * (k - 1) // 2))


def _pair_coefs(labels, k, rng):
    """Random y_i a_i per pair problem: nonzero only on the pair's samples, some zeros."""
    coefs = np.zeros((k * (k - 1) // 2, len(labels)))
    for p, (a, b) in enumerate(combinations(range(k), 2)):
        inside = np.isin(labels, (a, b))
        coefs[p, inside] = rng.normal(size=inside.sum()) * (rng.random(inside.sum()) < 0.7)
    return coefs


@pytest.mark.parametrize("k", [3, 4])
def test_libsvm_layout_against_a_loop_over_samples(k):
    rng = np.random.default_rng(k)
    labels = np.sort(rng.integers(0, k, size=40))
    coefs = _pair_coefs(labels, k, rng)
    expected = np.zeros((k - 1, len(labels)))
    for i, c in enumerate(labels):  # libsvm: pair (a, b) -> row b - 1 for a's, row a for b's
        for p, (a, b) in enumerate(combinations(range(k), 2)):
            if c == a:
                expected[b - 1, i] = coefs[p, i]
            elif c == b:
                expected[a, i] = coefs[p, i]
    dual = to_libsvm_layout(coefs, labels, k)
    np.testing.assert_array_equal(dual, expected)
    # read back: every pair's coefficients, on the support vectors (grouped by class)
    sv = np.flatnonzero((coefs != 0).any(axis=0))
    np.testing.assert_array_equal(from_libsvm_layout(dual[:, sv], labels[sv], k),
                                  coefs[:, sv].T)


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)


@pytest.mark.parametrize("make", [
    lambda X, y: KernelSVC(RBF(gamma=0.5)).fit(X, y),
    lambda X, y: KernelSVR(RBF(gamma=0.5), C=2.0).fit(X, X[:, 0]),
    lambda X, y: KernelOneClassSVM(RBF(gamma=0.5), nu=0.3).fit(X),
], ids=["svc", "svr", "one-class"])
def test_the_three_estimators_keep_the_same_state(make):
    X, y = _data()
    est = make(X, y)
    assert est.support_.dtype == np.int64 and np.all(np.diff(est.support_) != 0)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    assert est.dual_coef_.shape == (1, len(est.support_)) and np.all(est.dual_coef_ != 0)
    # the decision values from the stored state alone, summed term by term
    f = np.array([sum(c * np.exp(-0.5 * np.sum((sv - x) ** 2))
                      for c, sv in zip(est.dual_coef_[0], est.support_vectors_)) for x in X[:8]])
    out = est.predict(X[:8]) if isinstance(est, KernelSVR) else est.decision_function(X[:8])
    np.testing.assert_allclose(f + est.intercept_[0], out, rtol=1e-10, atol=1e-12)
    n_iter = est.n_iter_[0] if isinstance(est, KernelSVC) else est.n_iter_
    violation = est.max_violation_[0] if isinstance(est, KernelSVC) else est.max_violation_
    assert n_iter > 0 and 0 <= violation < est.tol
    assert est.plan_.choice == "smo" and est.kernel_ == RBF(gamma=0.5)


def test_one_vs_one_state_predicts_as_a_loop_over_pairs():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(75, 2))
    y = np.repeat([0, 1, 2], 25)
    X[y == 1] += 1.5
    X[y == 2] -= 1.5
    svc = KernelSVC(RBF(gamma=0.3), decision_function_shape="ovo").fit(X, y)
    assert svc.dual_coef_.shape == (2, len(svc.support_))
    np.testing.assert_array_equal(svc.n_support_, np.bincount(y[svc.support_], minlength=3))
    K = np.exp(-0.3 * ((X[:10, None, :] - svc.support_vectors_[None]) ** 2).sum(-1))
    cls = y[svc.support_]
    expected = np.zeros((10, 3))
    for p, (a, b) in enumerate(combinations(range(3), 2)):
        expected[:, p] = (K[:, cls == a] @ svc.dual_coef_[b - 1, cls == a]
                          + K[:, cls == b] @ svc.dual_coef_[a, cls == b] + svc.intercept_[p])
    np.testing.assert_allclose(svc.decision_function(X[:10]), expected, rtol=1e-10, atol=1e-12)


def test_precomputed_support_vectors_and_a_refit_without_violations():
    X, y = _data()
    K = RBF(gamma=0.5)(X, X)
    assert KernelSVC("precomputed").fit(K, y).support_vectors_.shape == (0, 0)  # as SVC
    assert KernelSVR("precomputed").fit(K, X[:, 0]).support_vectors_ is None
    assert KernelOneClassSVM("precomputed").fit(K).support_vectors_ is None
    svc = KernelSVC(RBF(gamma=0.5)).fit(X, y)
    assert svc.max_violation_.shape == (1,)
    svc.set_params(solver="pegasos", random_state=0).fit(X, y)
    assert not hasattr(svc, "max_violation_")  # Pegasos measures none; the old one is gone
