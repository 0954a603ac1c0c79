"""examples/mercer_eigenfunctions.py against the closed form of Rasmussen & Williams
(2006, section 4.3.1) and scikit-learn's KernelPCA."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.decomposition import KernelPCA as SkKernelPCA

from gallery._load import load_example


@pytest.fixture(scope="module")
def example():
    return load_example("mercer_eigenfunctions")


@pytest.fixture(scope="module")
def results(example):
    return example.run(quick=True)


def _closed_form(sigma, gamma, n):
    """R&W (4.41): a = 1/(4 sigma^2), b = gamma (= 1/(2 l^2)), c = sqrt(a^2 + 2ab),
    A = a + b + c, B = b/A, lambda_k = sqrt(2a/A) B^k."""
    a, b = 1 / (4 * sigma ** 2), gamma
    A = a + b + np.sqrt(a * a + 2 * a * b)
    return np.sqrt(2 * a / A) * (b / A) ** np.arange(n), b / A


def test_closed_form_and_its_normalisation(example, results):
    lam, B = _closed_form(example.SIGMA, example.GAMMA, example.N_EIGEN)
    assert results["B"] == pytest.approx(B, rel=1e-12)
    np.testing.assert_allclose(results["closed_eigenvalues"], lam, rtol=1e-12)
    # the Hermite functions are orthonormal under p = N(0, sigma^2) (quadrature)
    _, phi, _ = example.gaussian_kernel_eigen(example.SIGMA, example.GAMMA, 4)
    x = np.linspace(-12, 12, 40001)
    p = norm.pdf(x, scale=example.SIGMA)
    gram = np.array([[np.trapezoid(phi(i, x) * phi(j, x) * p, x) for j in range(4)]
                     for i in range(4)])
    np.testing.assert_allclose(gram, np.eye(4), atol=1e-10)
    # and the expansion sums back to the kernel (30 terms: the tail is below 1e-12)
    lam30, phi30, _ = example.gaussian_kernel_eigen(example.SIGMA, example.GAMMA, 30)
    s, t = np.array([0.3, -1.1]), np.array([-0.2, 0.7])
    series = sum(lam30[k] * phi30(k, s) * phi30(k, t) for k in range(30))
    np.testing.assert_allclose(series, np.exp(-example.GAMMA * (s - t) ** 2), atol=1e-9)


def test_eigenvalues_against_the_closed_form(example, results):
    lam, B = _closed_form(example.SIGMA, example.GAMMA, example.N_EIGEN)
    k = 4  # the leading eigenvalues, well above round-off and the sample's resolution
    quad = results["quantile_eigenvalues"]
    # the quantiles are a quadrature of p: errors far below the sampling noise
    np.testing.assert_allclose(quad[1:k + 1] / quad[:k], B, rtol=0.01)
    np.testing.assert_allclose(quad[:k], lam[:k], rtol=0.01)
    # random samples: within a few standard errors 1/sqrt(n) of the operator's eigenvalues
    for key, n in (("random_eigenvalues", results["n_random"]),
                   ("nystroem_eigenvalues", results["n_nystroem"])):
        np.testing.assert_allclose(results[key][:k], lam[:k], rtol=4 / np.sqrt(n))


def test_gram_spectrum_and_eigen_features(example, results):
    k = example.N_EIGEN
    np.testing.assert_allclose(results["random_eigenvalues"], results["gram_spectrum"][:k],
                               rtol=1e-10)
    assert results["mercer_error_all"] < 1e-10
    # truncated after k terms: ||K - Z Z'||_F^2 is the sum of the dropped lambda_i(K)^2
    lam = results["gram_spectrum"]
    assert results["mercer_error_truncated"] == pytest.approx(
        np.sqrt((lam[k:] ** 2).sum() / (lam ** 2).sum()), rel=1e-6)


def test_nystroem_extension_is_the_hermite_function(results):
    error = np.abs(results["estimated_functions"] - results["closed_functions"]).max(axis=0)
    assert (error[:4] < 0.02).all(), error


def test_first_kernel_component_separates_the_rings(example, results):
    X, y = results["rings_X"], results["rings_y"]
    assert results["rings_gap_kpca"] > 0 > results["rings_gap_pca"]
    ref = SkKernelPCA(2, kernel="rbf", gamma=example.RINGS_GAMMA).fit_transform(X)
    ours = results["rings_kpca"]
    np.testing.assert_allclose(np.abs(ours[:, 0]), np.abs(ref[:, 0]), atol=1e-8)
    z = ref[:, 0] * np.sign(ref[:, 0] @ ours[:, 0])
    assert np.isclose(example.ring_gap(z, y), results["rings_gap_kpca"], atol=1e-8)


def test_plot(example, results):
    fig = example.plot(results)
    axes = fig.get_axes()
    assert len(axes) == 4
    titles = [ax.get_title() for ax in axes]
    assert "eigenvalues" in titles[0] and "Eigenfunctions" in titles[1]
    assert "rings" in titles[2] and "kernel PCA" in titles[3]
    assert axes[0].get_yscale() == "log" and len(axes[0].get_lines()) == 4
    assert len(axes[1].get_lines()) == 8


def test_main_writes_the_picture(example, tmp_path, capsys):
    out = tmp_path / "mercer.png"
    example.main(["--quick", "--out", str(out)])
    assert out.stat().st_size > 0
    assert "closed form" in capsys.readouterr().out
