"""Every estimator on strings, against the same estimator on explicit k-mer count vectors.

The spectrum kernel is the linear kernel of k-mer counts, so an estimator with
``Spectrum(k)`` on strings must give what it gives with ``Linear()`` on the
count vectors (built here by a naive Counter, independently of the library's
sparse counting); the normalised spectrum kernel is the linear kernel of the
row-normalised counts.
"""

from collections import Counter

import numpy as np
import pytest

from kernelkit import GramOperator, gram
from kernelkit.features import Nystroem
from kernelkit.kernels import RBF, Linear, Spectrum, Subsequence, WeightedDegree
from kernelkit.models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelRidge, KernelRidgeCV, KernelSVC)
from kernelkit.models.kernel_ridge import predict_dual

K_MER = 2


def make_strings(n, seed):
    """Two classes: the second has 'gattaca' planted, the third (y3) 'ccc' at the start."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n):
        s = "".join(rng.choice(list("acgt"), size=int(rng.integers(12, 20))))
        if i % 3 == 1:
            s = s[:4] + "gattaca" + s[4:]
        elif i % 3 == 2:
            s = "ccc" + s
        X.append(s)
        y.append(i % 3)
    return X, np.array(y)


def count_vectors(X, normalize):
    vocab = sorted({s[i:i + K_MER] for s in TRAIN + TEST for i in range(len(s) - K_MER + 1)})
    Z = np.array([[Counter(s[i:i + K_MER] for i in range(len(s) - K_MER + 1))[u] for u in vocab]
                  for s in X], dtype=float)
    return Z / np.linalg.norm(Z, axis=1, keepdims=True) if normalize else Z


TRAIN, Y3 = make_strings(60, 0)
TEST, YT3 = make_strings(30, 1)
Y2 = np.where(Y3 == 1, "planted", "plain")
YR = Y3.astype(float) + 0.1 * np.arange(len(Y3)) % 3


ESTIMATORS = [
    (lambda k: KernelRidge(k, alpha=0.5), "regression"),
    (lambda k: KernelRidgeCV(k, alphas=[0.1, 1.0]), "regression"),
    (lambda k: KernelMachine(k, alpha=0.5, solver="newton"), "regression"),
    (lambda k: KernelMachine(k, loss="huber", alpha=0.5, solver="lbfgs"), "regression"),
    (lambda k: KernelMachine(k, alpha=0.5, solver="sgd", strategy="kernel_on_the_fly",
                             random_state=0), "regression"),
    (lambda k: KernelSVC(k, C=1.0, tol=1e-9), "binary"),
    (lambda k: KernelSVC(k, C=1.0, tol=1e-9, cache=False), "multiclass"),
    (lambda k: KernelSVC(k, C=1.0, tol=1e-9, multiclass="ovr"), "multiclass"),
    (lambda k: KernelSVC(k, C=1.0, solver="pegasos", random_state=0), "binary"),
    (lambda k: KernelMachineClassifier(k, loss="squared_hinge", solver="newton"), "multiclass"),
    (lambda k: KernelMachineClassifier(k, loss="hinge", random_state=0), "binary"),
    (lambda k: KernelLogisticRegression(k, C=2.0), "multiclass"),
    (lambda k: KernelLogisticRegression(k, C=2.0, solver="newton"), "binary"),
]


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("make, task", ESTIMATORS)
def test_strings_equal_linear_on_count_vectors(make, task, normalize):
    y = {"regression": YR, "binary": Y2, "multiclass": Y3}[task]
    on_strings = make(Spectrum(k=K_MER, normalize=normalize)).fit(TRAIN, y)
    on_vectors = make(Linear()).fit(count_vectors(TRAIN, normalize), y)
    Zt = count_vectors(TEST, normalize)
    method = "predict" if task == "regression" else "decision_function"
    np.testing.assert_allclose(getattr(on_strings, method)(TEST), getattr(on_vectors, method)(Zt),
                               rtol=1e-6, atol=1e-8)
    assert not hasattr(on_strings, "n_features_in_")  # strings are not tabular
    if task != "regression":
        np.testing.assert_array_equal(on_strings.predict(TEST), on_vectors.predict(Zt))


def test_string_models_learn_and_keep_strings():
    k = WeightedDegree(degree=3) + Spectrum(k=3)
    svc = KernelSVC(k, C=1.0).fit(np.array(TRAIN, dtype=object), Y3)  # object arrays of str too
    assert svc.support_vectors_.dtype.kind == "U" and svc.support_vectors_.ndim == 1
    assert svc.score(TEST, YT3) > 0.9
    krr = KernelRidge(Subsequence(p=2, decay=0.8), alpha=0.1, fit_intercept=False).fit(
        tuple(TRAIN), YR)
    assert krr.X_fit_.dtype.kind == "U"
    # predict through the Gram operator equals the stored Gram matrix product
    np.testing.assert_allclose(krr.predict(TEST),
                               gram(krr.kernel_, TEST, TRAIN) @ krr.dual_coef_, rtol=1e-10)
    np.testing.assert_allclose(predict_dual(krr.kernel_, TEST, krr.X_fit_, krr.dual_coef_),
                               krr.predict(TEST), rtol=1e-12)


def test_string_kernel_ridge_equals_precomputed():
    k = Subsequence(p=3, decay=0.6, all_lengths=True)
    a = KernelRidge(k, alpha=0.3).fit(TRAIN, YR)
    b = KernelRidge("precomputed", alpha=0.3).fit(gram(k, TRAIN), YR)
    np.testing.assert_allclose(a.predict(TEST), b.predict(gram(k, TEST, TRAIN)), rtol=1e-10)
    c = KernelSVC(k, tol=1e-9).fit(TRAIN, Y3)
    d = KernelSVC("precomputed", tol=1e-9).fit(gram(k, TRAIN), Y3)
    np.testing.assert_allclose(c.decision_function(TEST),
                               d.decision_function(gram(k, TEST, TRAIN)), rtol=1e-8, atol=1e-10)


def test_gram_operator_on_strings_within_a_small_budget():
    from kernelkit import config_context

    k = Subsequence(p=2)
    v = np.linspace(-1, 1, len(TRAIN))
    K = gram(k, TRAIN)
    with config_context(memory="16MB"):
        op = GramOperator(k, TRAIN, shift=0.5)
        np.testing.assert_allclose(op.matvec(v), K @ v + 0.5 * v, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:.*eigenvalues of the centers:UserWarning")
def test_nystroem_on_strings_equals_nystroem_on_counts():
    # 16 bigrams over acgt: the kernels have rank 16, so some eigenvalues are dropped
    for centers in ("uniform", "kmeans++", "leverage"):
        a = Nystroem(Spectrum(k=K_MER, normalize=False), n_components=25, centers=centers,
                     random_state=0).fit(TRAIN)
        b = Nystroem(Linear(), n_components=25, centers=centers, random_state=0) \
            .fit(count_vectors(TRAIN, False))
        np.testing.assert_array_equal(a.component_indices_, b.component_indices_)
        Za, Zb = a.transform(TEST), b.transform(count_vectors(TEST, False))
        np.testing.assert_allclose(Za @ Za.T, Zb @ Zb.T, rtol=1e-8, atol=1e-8)
    # every sample a center: the approximation is exact on the training strings
    k = Subsequence(p=2)
    full = Nystroem(k, n_components=len(TRAIN)).fit(TRAIN)
    Z = full.transform(TRAIN)
    np.testing.assert_allclose(Z @ Z.T, gram(k, TRAIN), atol=1e-8)
    # and a linear model on Nystroem features of strings learns
    clf = KernelMachineClassifier(k, features=Nystroem(k, 30, random_state=0), solver="sgd",
                                  strategy="features_cached", random_state=0).fit(TRAIN, Y2)
    assert clf.representation_ == "primal" and clf.score(TEST, np.where(YT3 == 1, "planted",
                                                                          "plain")) > 0.8


@pytest.mark.parametrize("make", [lambda k: KernelRidge(k), lambda k: KernelSVC(k),
                                  lambda k: KernelMachine(k), lambda k: KernelMachineClassifier(k),
                                  lambda k: KernelLogisticRegression(k),
                                  lambda k: Nystroem(k, n_components=4)])
@pytest.mark.filterwarnings("ignore:.*eigenvalues of the centers:UserWarning")
def test_clear_errors_for_input_that_does_not_fit_the_kernel(make):
    y = np.arange(4) % 2
    with pytest.raises(TypeError, match="contains strings; this kernel works on numeric"):
        make(RBF()).fit(["ab", "cd", "ef", "gh"], y)
    with pytest.raises(ValueError, match="1-D collection of strings.*vector kernel"):
        make(Spectrum()).fit(np.ones((4, 3)), y)
    with pytest.raises(TypeError, match="mixes strings and numbers"):
        make(Spectrum()).fit(["ab", 1.5, "ef", "gh"], y)
    model = make(Spectrum(k=1)).fit(["ab", "cd", "ab", "cd"], y)
    with pytest.raises(TypeError, match="holds numbers, not strings"):
        (model.predict if hasattr(model, "predict") else model.transform)([1.0, 2.0])


def test_string_kernel_refuses_the_feature_routes():
    with pytest.raises(ValueError, match="neither a finite feature map.*nor a spectral density"
                                         ".*Nystroem"):
        KernelMachine(Spectrum(), solver="sgd", strategy="features_cached").fit(TRAIN, YR)
    with pytest.raises(ValueError, match="no finite explicit feature map|solver='dual'"):
        KernelRidge(Spectrum(), solver="primal").fit(TRAIN, YR)
    with pytest.raises(ValueError, match="samples"):
        KernelRidge(Spectrum()).fit(TRAIN, YR[:-1])
