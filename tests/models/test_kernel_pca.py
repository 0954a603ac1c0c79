"""KernelPCA against scikit-learn's KernelPCA and PCA, the Mercer expansion on a sample,
the Nystroem extension of the eigenfunctions, the Nystroem eigen-solver, plans, errors,
model files and scikit-learn's estimator checks."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import kernelkit
from kernelkit import config_context
from kernelkit.exceptions import InvalidParameterError, MemoryBudgetError, ModelFormatError
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelPCA
from kernelkit.persistence._allowlist import allow_list


def _data(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(9, d))


def _rbf(X, Y, gamma):
    """Brute-force RBF kernel (independent of kernelkit's)."""
    return np.exp(-gamma * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))


def _same_up_to_sign(A, B, atol):
    signs = np.sign((A * B).sum(axis=0))
    np.testing.assert_allclose(A, B * signs, atol=atol, rtol=0)


@pytest.mark.parametrize("n_components", [4, None])
def test_matches_scikit_learn_rbf(n_components):
    X, Xt = _data()
    ours = KernelPCA(n_components, kernel=RBF(gamma=0.3), fit_inverse_transform=True,
                     alpha=0.1).fit(X)
    ref = SkKernelPCA(n_components, kernel="rbf", gamma=0.3, fit_inverse_transform=True,
                      alpha=0.1, eigen_solver="dense").fit(X)
    assert ours.eigenvalues_.shape == ref.eigenvalues_.shape
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10, atol=1e-12)
    top = 6  # beyond the well-separated eigenvalues the eigenvectors are not unique
    _same_up_to_sign(ours.eigenvectors_[:, :top], ref.eigenvectors_[:, :top], 1e-8)
    _same_up_to_sign(ours.transform(Xt)[:, :top], ref.transform(Xt)[:, :top], 1e-8)
    _same_up_to_sign(ours.fit_transform(X)[:, :top], ref.fit_transform(X)[:, :top], 1e-8)
    if n_components is not None:  # the pre-image: the same ridge on the same projections
        Z = ref.transform(Xt)
        np.testing.assert_allclose(ours.inverse_transform(ours.transform(Xt)),
                                   ref.inverse_transform(Z), atol=1e-8)


def test_arpack_matches_scikit_learn_and_lapack():
    X, Xt = _data(n=250)
    ours = KernelPCA(3, kernel=RBF(gamma=0.3), eigen_solver="arpack", random_state=0).fit(X)
    ref = SkKernelPCA(3, kernel="rbf", gamma=0.3, eigen_solver="arpack", random_state=0).fit(X)
    lapack = KernelPCA(3, kernel=RBF(gamma=0.3), eigen_solver="dense").fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(ours.eigenvalues_, lapack.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(ours.transform(Xt), ref.transform(Xt), atol=1e-8)
    np.testing.assert_allclose(ours.transform(Xt), lapack.transform(Xt), atol=1e-8)


def test_matches_scikit_learn_precomputed():
    X, Xt = _data()
    K, Kt = _rbf(X, X, 0.5), _rbf(Xt, X, 0.5)
    ours = KernelPCA(5, kernel="precomputed").fit(K)
    ref = SkKernelPCA(5, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(ours.eigenvectors_, ref.eigenvectors_, atol=1e-8)  # same signs
    np.testing.assert_allclose(ours.transform(Kt), ref.transform(Kt), atol=1e-8)
    # and the kernel given as an object agrees with its Gram matrix
    np.testing.assert_allclose(KernelPCA(5, kernel=RBF(gamma=0.5)).fit(X).transform(Xt),
                               ours.transform(Kt), atol=1e-8)


def test_linear_kernel_is_pca():
    X, Xt = _data(d=4)
    ours = KernelPCA(3, kernel=Linear()).fit(X)
    pca = PCA(3).fit(X)
    _same_up_to_sign(ours.transform(Xt), pca.transform(Xt), 1e-8)
    np.testing.assert_allclose(ours.eigenvalues_, pca.explained_variance_ * (len(X) - 1),
                               rtol=1e-10)


def test_mercer_expansion_reproduces_k_on_the_sample():
    X, _ = _data()
    K = _rbf(X, X, 0.3)
    Z = KernelPCA(kernel=RBF(gamma=0.3), center_kernel=False).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-10, rtol=0)
    # truncated at k terms, the spectral-norm error is the (k+1)-th eigenvalue of K
    lam = np.linalg.eigvalsh(K)[::-1]
    Zk = KernelPCA(5, kernel=RBF(gamma=0.3), center_kernel=False).fit(X).transform(X)
    np.testing.assert_allclose(np.linalg.norm(K - Zk @ Zk.T, 2), lam[5], rtol=1e-8)


def test_eigenfunctions_nystroem_extension():
    X, Xt = _data()
    n, gamma = len(X), 0.3
    model = KernelPCA(6, kernel=RBF(gamma=gamma), center_kernel=False).fit(X)
    lam, V = np.linalg.eigh(_rbf(X, X, gamma))  # independent eigendecomposition
    lam, V = lam[::-1][:6], V[:, ::-1][:, :6]
    phi_train = model.eigenfunctions(X)
    # at a training point the extension is the eigenvector entry, times sqrt(n)
    np.testing.assert_allclose(phi_train, np.sqrt(n) * model.eigenvectors_, atol=1e-10)
    _same_up_to_sign(phi_train, np.sqrt(n) * V, 1e-8)
    np.testing.assert_allclose(phi_train.T @ phi_train / n, np.eye(6), atol=1e-10)
    # at new points: the formula sqrt(n) / lambda_i sum_j k(x, x_j) v_ij, by a loop
    brute = np.array([[np.sqrt(n) / lam[i] * sum(_rbf(x[None], X[j:j + 1], gamma)[0, 0]
                                                 * V[j, i] for j in range(n))
                       for i in range(6)] for x in Xt])
    _same_up_to_sign(model.eigenfunctions(Xt), brute, 1e-8)
    # eigen-features: transform = sqrt(lambda / n) phi
    np.testing.assert_allclose(model.transform(Xt),
                               model.eigenfunctions(Xt) * np.sqrt(model.eigenvalues_ / n),
                               atol=1e-12)


@pytest.mark.parametrize("center_kernel", [True, False])
def test_nystroem_path_converges_to_dense(center_kernel):
    X, Xt = _data(n=120)
    dense = KernelPCA(4, kernel=RBF(gamma=0.5), center_kernel=center_kernel).fit(X)
    errors = []
    for M in (15, 40, 120):
        nys = KernelPCA(4, kernel=RBF(gamma=0.5), center_kernel=center_kernel,
                        eigen_solver="nystroem", n_centers=M, random_state=0).fit(X)
        errors.append(np.abs(nys.eigenvalues_ - dense.eigenvalues_).max())
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-10 * dense.eigenvalues_[0]  # every sample a center: exact
    _same_up_to_sign(nys.eigenvectors_, dense.eigenvectors_, 1e-8)
    _same_up_to_sign(nys.transform(Xt), dense.transform(Xt), 1e-8)
    _same_up_to_sign(nys.eigenfunctions(Xt), dense.eigenfunctions(Xt), 1e-7)
    np.testing.assert_allclose(nys.eigenfunctions(X), np.sqrt(len(X)) * nys.eigenvectors_,
                               atol=1e-8)


def test_auto_plan_dense_then_nystroem_within_the_budget(capsys):
    X, Xt = _data(n=300)
    model = KernelPCA(3, kernel=RBF(gamma=0.5), verbose=1).fit(X)
    assert model.eigen_solver_ == "arpack" and model.plan_.choices[0].value == "arpack"
    assert "eigen-solver: arpack" in capsys.readouterr().out  # printed at verbose=1
    assert KernelPCA(10, kernel=RBF(gamma=0.5)).fit(X).plan_.choice == "dense"
    X, Xt = _data(n=1050)
    with config_context(memory="16MB"):  # the dense path needs 16.8 MB; K is never formed
        small = KernelPCA(3, kernel=RBF(gamma=0.5), random_state=0).fit(X)
        assert small.eigen_solver_ == "nystroem"
        assert "memory budget" in small.plan_.choices[0].reason
        assert small.plan_.choices[1].what == "Nystroem centers"
        with pytest.raises(MemoryBudgetError):
            KernelPCA(3, kernel=RBF(gamma=0.5), eigen_solver="dense").fit(X)
    exact = KernelPCA(3, kernel=RBF(gamma=0.5)).fit(X)
    # the approximation's leading components are close to the exact ones
    _same_up_to_sign(small.transform(Xt)[:, :2], exact.transform(Xt)[:, :2], 0.05)


def test_sparse_input_and_remove_zero_eig():
    X, Xt = _data()
    dense = KernelPCA(4, kernel=RBF(gamma=0.3)).fit(X)
    sparse = KernelPCA(4, kernel=RBF(gamma=0.3)).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.transform(sp.csr_matrix(Xt)), dense.transform(Xt),
                               atol=1e-10)
    # two identical points: the centred linear kernel on 1-D data has rank 1
    Z = np.r_[X[:, :1], X[:1, :1]]
    kept = KernelPCA(3, kernel=Linear(), remove_zero_eig=True).fit(Z)
    assert kept.eigenvalues_.shape == (1,)
    assert KernelPCA(3, kernel=Linear()).fit(Z).eigenvalues_.tolist()[1:] == [0.0, 0.0]


def test_string_kernel_both_paths():
    from kernelkit.kernels import Spectrum

    X = np.array(["abcab", "bcabc", "aaaaa", "ccccc", "abcabc", "cabca", "bbbba", "acacac"])
    K = Spectrum(2)(X, X)
    dense = KernelPCA(3, kernel=Spectrum(2)).fit(X)
    ref = SkKernelPCA(3, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(dense.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    with warnings.catch_warnings():  # "aaaaa" and "ccccc" have dependent features
        warnings.simplefilter("ignore")
        nys = KernelPCA(3, kernel=Spectrum(2), eigen_solver="nystroem", n_centers=8).fit(X)
    np.testing.assert_allclose(nys.eigenvalues_, dense.eigenvalues_, rtol=1e-10)


def test_bad_input():
    X, _ = _data()
    with pytest.raises(InvalidParameterError, match="n_components"):
        KernelPCA(0).fit(X)
    with pytest.raises(InvalidParameterError, match="eigen_solver"):
        KernelPCA(eigen_solver="randomized").fit(X)
    with pytest.raises(InvalidParameterError, match="fit_inverse_transform"):
        KernelPCA(kernel="precomputed", fit_inverse_transform=True).fit(X @ X.T)
    with pytest.raises(InvalidParameterError, match="precomputed"):
        KernelPCA(kernel="precomputed", eigen_solver="nystroem").fit(X @ X.T)
    with pytest.raises(ValueError, match="square"):
        KernelPCA(kernel="precomputed").fit(X)
    with pytest.raises(InvalidParameterError, match="n_centers"):
        KernelPCA(10, eigen_solver="nystroem", n_centers=5).fit(X)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        KernelPCA(kernel="precomputed").fit(-(X @ X.T))
    with pytest.raises(ValueError, match="NaN"):
        KernelPCA().fit(np.r_[X, [[np.nan, 0, 0]]])
    model = KernelPCA(3).fit(X)
    with pytest.raises(NotFittedError, match="fit_inverse_transform"):
        model.inverse_transform(model.transform(X))
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :2])
    inv = KernelPCA(3, fit_inverse_transform=True).fit(X)
    with pytest.raises(ValueError, match="projections of shape"):
        inv.inverse_transform(X[:, :2])


@pytest.mark.parametrize("params", [
    {"n_components": 4, "fit_inverse_transform": True, "alpha": 0.1},
    {"n_components": 4, "eigen_solver": "nystroem", "n_centers": 30, "random_state": 0},
    {"center_kernel": False},
    {"n_components": 3, "kernel": "precomputed"},
])
def test_save_load_identical_transforms(tmp_path, params):
    X, Xt = _data()
    if params.get("kernel") == "precomputed":
        X, Xt = X @ X.T, Xt @ X.T
    model = KernelPCA(**params).fit(X)
    kernelkit.save(model, tmp_path / "m.kk")
    loaded = kernelkit.load(tmp_path / "m.kk")
    assert np.array_equal(loaded.transform(Xt), model.transform(Xt))
    if params.get("fit_inverse_transform"):
        Z = model.transform(Xt)
        assert np.array_equal(loaded.inverse_transform(Z), model.inverse_transform(Z))


def test_pipeline_save_load_and_pandas_output(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, Xt = _data()
    pipe = make_pipeline(StandardScaler(), KernelPCA(3, kernel="rbf(gamma=0.5)")).fit(X)
    kernelkit.save(pipe, tmp_path / "p.kk")
    assert np.array_equal(kernelkit.load(tmp_path / "p.kk").transform(Xt), pipe.transform(Xt))
    frame = KernelPCA(3).set_output(transform="pandas").fit(X).transform(Xt)
    assert list(frame.columns) == ["kernelpca0", "kernelpca1", "kernelpca2"]


def test_state_check_refuses_inconsistent_state(tmp_path):
    X, _ = _data()
    check = allow_list()["KernelPCA"].check
    model = KernelPCA(4, eigen_solver="nystroem", n_centers=30, random_state=0).fit(X)
    model.projection_ = model.projection_[:, :3]
    with pytest.raises(ModelFormatError, match="projection_"):
        check(tmp_path / "m.kk", model)
    model = KernelPCA(4).fit(X)
    model.eigenvalues_ = -model.eigenvalues_
    with pytest.raises(ModelFormatError, match="eigenvalues_"):
        check(tmp_path / "m.kk", model)


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _CHECKED = [KernelPCA(kernel=RBF(gamma=0.5)),
                KernelPCA(2, kernel=RBF(gamma=0.5), fit_inverse_transform=True),
                KernelPCA(3, kernel=RBF(gamma=0.5), eigen_solver="nystroem", n_centers=20,
                          random_state=0),
                KernelPCA(3, kernel="precomputed")]


@parametrize_with_checks(_CHECKED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
