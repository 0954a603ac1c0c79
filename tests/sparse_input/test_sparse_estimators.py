"""Every kernelkit estimator fitted on CSR equals the same fit on the dense array.

Reference: the dense fit (tested elsewhere against scikit-learn and closed
forms), and scikit-learn's SVC on the very same sparse matrix. Small data:
each fit takes milliseconds.

Direct solvers (Cholesky, eigen, Falkon's CG, Newton, L-BFGS, seeded SGD)
agree to 1e-10. SMO's path of working sets depends on the last bits of kernel
values (the dense fit on X * (1 + 1e-15) differs from the one on X by ~tol),
and sparse products sum in another order than BLAS: SMO estimators are fitted
with tol=1e-10 and compared to 1e-7, labels exactly.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from kernelkit.features import ExplicitFeatures, Nystroem, RandomFourierFeatures
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier,
                              KernelKNeighborsRegressor, KernelLogisticRegression,
                              KernelMachine, KernelMachineClassifier, KernelOutlierDetector,
                              KernelRidge, KernelRidgeClassifier, KernelRidgeCV, KernelSVC,
                              KernelOneClassSVM, KernelSVR, KitchenSinksClassifier)

RBF = "rbf(gamma=0.1)"


def _data():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(60, 12))
    A[rng.random(A.shape) < 0.6] = 0.0
    y = A[:, 0] - A[:, 1] + 0.1 * rng.normal(size=60)
    return A, y, (y > 0).astype(int), np.digitize(y, [-0.5, 0.5])


ESTIMATORS = [  # (estimator, target kind, tolerance)
    (KernelRidge(kernel=RBF), "reg", 1e-10),
    (KernelRidge(kernel="laplacian(gamma=0.1)"), "reg", 1e-10),
    (KernelRidge(kernel="poly(degree=2)", solver="primal"), "reg", 1e-10),
    (KernelRidge(kernel=RBF, solver="falkon", n_centers=20, random_state=0), "reg", 1e-10),
    (KernelRidge(kernel=RBF, solver="falkon", n_centers=20, center_selection="kmeans++",
                 random_state=0), "reg", 1e-10),
    (KernelRidgeClassifier(kernel=RBF), "multi", 1e-10),
    (KernelRidgeCV(kernel=RBF), "reg", 1e-10),
    (KernelSVC(kernel=RBF, tol=1e-10), "multi", 1e-7),
    (KernelSVC(kernel="linear", tol=1e-10), "binary", 1e-7),
    (KernelSVC(kernel=RBF, tol=1e-10, multiclass="ovr", cache=False), "multi", 1e-7),
    (KernelSVC(kernel=RBF, solver="pegasos", random_state=0), "binary", 1e-10),
    (KernelSVR(kernel=RBF, tol=1e-10), "reg", 1e-7),
    (KernelLogisticRegression(kernel=RBF), "multi", 1e-10),
    (KernelLogisticRegression(kernel=RBF, solver="newton"), "binary", 1e-10),
    (KernelMachine(kernel=RBF, solver="newton"), "reg", 1e-10),
    (KernelMachine(kernel=RBF, solver="sgd", strategy="kernel_on_the_fly", random_state=0),
     "reg", 1e-10),
    (KernelMachine(kernel=RBF, solver="sgd", strategy="features_cached", random_state=0,
                   features=RandomFourierFeatures(RBF, n_components=40, random_state=0)),
     "reg", 1e-10),
    (KernelMachine(kernel=RBF, solver="sgd", strategy="features_on_the_fly", random_state=0,
                   features=Nystroem(RBF, n_components=20, random_state=0)), "reg", 1e-10),
    (KernelMachineClassifier(kernel=RBF, solver="lbfgs", loss="logistic"), "binary", 1e-10),
    (KernelKNeighborsClassifier(kernel=RBF), "multi", 1e-10),
    (KernelKNeighborsRegressor(kernel="laplacian(gamma=0.1)"), "reg", 1e-10),
    (KernelKMeans(n_clusters=3, kernel=RBF, random_state=0), None, 0),
    (KernelKMeans(n_clusters=3, kernel=RBF, approximation="nystroem", n_components=20,
                  random_state=0), None, 0),
    (KernelOutlierDetector(kernel=RBF), None, 1e-10),
    (KernelOneClassSVM(kernel=RBF, nu=0.3, tol=1e-10), None, 1e-7),
    (KernelOutlierDetector(kernel=RBF, method="mean", contamination=0.1), None, 1e-10),
]


def _id(case):
    est = case[0]
    return f"{type(est).__name__}-{est.get_params().get('kernel')}-" \
           f"{est.get_params().get('solver', '')}"


@pytest.mark.parametrize("case", ESTIMATORS, ids=[_id(c) for c in ESTIMATORS])
@pytest.mark.parametrize("fmt", ["csr", "csc_array"])
def test_fit_on_sparse_equals_fit_on_dense(case, fmt):
    est, kind, tol = case
    A, y, yb, y3 = _data()
    S = (sp.csr_matrix if fmt == "csr" else sp.csc_array)(A)
    y = {"reg": y, "binary": yb, "multi": y3, None: None}[kind]
    dense, sparse = clone(est), clone(est)
    (dense.fit(A) if y is None else dense.fit(A, y))
    (sparse.fit(S) if y is None else sparse.fit(S, y))
    method = "decision_function" if hasattr(dense, "decision_function") else "predict"
    want = np.asarray(getattr(dense, method)(A), dtype=np.float64)
    for X in (S, A):  # a sparse fit predicts dense and sparse rows alike
        got = np.asarray(getattr(sparse, method)(X), dtype=np.float64)
        assert np.abs(got - want).max() <= tol * max(1.0, np.abs(want).max())
    if kind != "reg":  # labels (classes, clusters, inlier/outlier) exactly
        np.testing.assert_array_equal(dense.predict(A), sparse.predict(S))
    for attr in ("X_fit_", "support_vectors_", "centers_"):  # training rows stay sparse
        if getattr(sparse, attr, None) is not None:
            assert sp.issparse(getattr(sparse, attr)), attr


def test_kernel_svc_agrees_with_libsvm_on_the_same_sparse_matrix():
    from sklearn.svm import SVC

    rng = np.random.default_rng(1)
    A = rng.random((200, 40))
    A[A < 0.85] = 0.0  # a text-like matrix: 15% nonzeros
    y = (A[:, :20].sum(axis=1) > A[:, 20:].sum(axis=1)).astype(int)
    S = sp.csr_matrix(A)
    ours = KernelSVC(kernel="rbf(gamma=0.5)", C=10.0, tol=1e-6).fit(S, y)
    ref = SVC(kernel="rbf", gamma=0.5, C=10.0, tol=1e-6).fit(S, y)
    np.testing.assert_allclose(ours.decision_function(S), ref.decision_function(S),
                               atol=1e-4)
    np.testing.assert_array_equal(ours.predict(S), ref.predict(S))
    assert sorted(ours.support_) == sorted(ref.support_)


def test_libsvm_file_goes_straight_in(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    from kernelkit.datasets import load_libsvm

    A, _, yb, _ = _data()
    path = tmp_path / "d.svm"
    dump_svmlight_file(A, yb, str(path))
    X, y = load_libsvm(path)
    assert sp.issparse(X)
    model = KernelSVC(kernel=RBF).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), KernelSVC(kernel=RBF).fit(A, yb).predict(A))


def test_feature_maps_on_sparse_equal_dense():
    A, *_ = _data()
    S = sp.csr_matrix(A)
    for fmap in (RandomFourierFeatures(RBF, n_components=30, random_state=0),
                 RandomFourierFeatures("laplacian(gamma=0.1)", n_components=30,
                                       variant="cos_bias", random_state=0),
                 Nystroem("laplacian(gamma=0.1)", n_components=15, centers="kmeans++",
                          random_state=0),
                 ExplicitFeatures("poly(degree=2)")):
        want = clone(fmap).fit(A).transform(A)
        np.testing.assert_allclose(clone(fmap).fit(S).transform(S), want, rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(want).max()))
    assert sp.issparse(Nystroem(RBF, n_components=10, random_state=0).fit(S).components_)


def test_explicit_features_of_sparse_refuse_a_dense_output_over_budget():
    from kernelkit import config_context
    from kernelkit.exceptions import MemoryBudgetError

    S = sp.random(5000, 300, density=0.01, format="csr", random_state=0)  # D = 45,451
    with config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match="ExplicitFeatures.transform of a sparse"):
            ExplicitFeatures("poly(degree=2)").fit(S[:5]).transform(S)


def test_estimators_refuse_sparse_input_where_the_kernel_cannot_take_it():
    A, y, yb, _ = _data()
    S = sp.csr_matrix(A)
    with pytest.raises(TypeError, match="kernel KroneckerDelta.* does not take sparse input"):
        KernelRidge(kernel="kronecker").fit(S, y)
    with pytest.raises(TypeError, match="does not take sparse input"):
        KernelSVC(kernel="spectrum(k=2)").fit(S, yb)
    with pytest.raises(TypeError, match="does not take sparse input"):
        Nystroem("kronecker", n_components=5).fit(S)
    with pytest.raises(TypeError, match="sparse"):
        KernelSVC(kernel="precomputed").fit(sp.csr_matrix(np.eye(60)), yb)
    with pytest.raises(TypeError, match="sparse"):  # no kernel: a dense feature sampler
        KitchenSinksClassifier().fit(S, yb)
    dense = KernelRidge(kernel="kronecker").fit(A, y)
    with pytest.raises(TypeError, match="does not take sparse input"):
        dense.predict(S)


@pytest.mark.parametrize("kernel", ["linear", "poly(degree=2)"])
def test_kmeans_explicit_centers_and_transform_from_sparse_rows(kernel):
    A, *_ = _data()
    S = sp.csr_matrix(A)
    dense = KernelKMeans(n_clusters=3, kernel=kernel, random_state=0).fit(A)
    sparse = KernelKMeans(n_clusters=3, kernel=kernel, random_state=0).fit(S)
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, atol=1e-12)
    np.testing.assert_allclose(sparse.transform(S), dense.transform(A), atol=1e-10)
