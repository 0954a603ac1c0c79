"""Mercer's theorem: the eigenfunctions of the Gaussian kernel, and kernel PCA
===========================================================================

Lecture: Mercer's theorem and eigenfunctions -- the expansion
k(x, y) = sum_k lambda_k phi_k(x) phi_k(y), the eigenfunctions estimated from a
sample and extended to new points (Nystroem), eigen-features, kernel PCA.

Mercer's theorem writes a PSD kernel as a sum over the eigenpairs of its
integral operator (T f)(x) = int k(x, y) f(y) p(y) dy. For the Gaussian kernel
k(x, y) = exp(-gamma (x - y)^2) under a Gaussian density p = N(0, sigma^2) they
are known in closed form (Rasmussen & Williams 2006, section 4.3.1): with
a = 1 / (4 sigma^2), b = gamma, c = sqrt(a^2 + 2ab), A = a + b + c, B = b / A::

    lambda_k = sqrt(2a / A) B^k,
    phi_k(x) ~ exp(-(c - a) x^2) H_k(sqrt(2c) x)     (Hermite polynomials H_k),

so the eigenvalues fall geometrically, by the factor B, and the eigenfunctions
are Hermite functions. On a sample the operator becomes the Gram matrix:
``KernelPCA(center_kernel=False)`` gives mu_k = ``eigenvalues_ / n``, which estimate
lambda_k, and ``eigenfunctions(x)`` the Nystroem extension
phi_k(x) = sqrt(n) / lambda_k(K) sum_j k(x, x_j) v_jk. The table compares the
closed form with three estimates: a random sample, the n quantiles of p (a
quadrature of the integral, so the error is no longer the sampling noise
1/sqrt(n)), and a large random sample through the Nystroem eigen-solver (K never
formed; in one dimension a dozen centers spread by kernel k-means++ hold the
leading eigenpairs). The top pictures show the eigenvalues and the first
eigenfunctions (the dots: the Nystroem extension from the quantile sample).

The eigen-features sqrt(mu_k) phi_k(x) (``transform``) make the expansion an
inner product, k(x, y) ~ z(x)'z(y): on the sample, exact with all terms.

Kernel PCA is the same decomposition with the kernel centred in feature space.
On two concentric rings, linear PCA's first component mixes the rings; the
first kernel principal component of the RBF kernel separates them (bottom
pictures).

Run: ``python examples/mercer_eigenfunctions.py`` (about 10 seconds)
"""

import argparse

import numpy as np
from scipy.special import eval_hermite, factorial
from scipy.stats import norm
from sklearn.decomposition import PCA

from kernelkit.diagnostics import spectrum
from kernelkit.kernels import RBF
from kernelkit.models import KernelPCA

SIGMA, GAMMA = 1.0, 0.5      # the density N(0, SIGMA^2) and the kernel's width
N_EIGEN = 6                  # eigenpairs shown
RINGS_GAMMA = 0.5            # RBF width under which the first component splits the rings


def gaussian_kernel_eigen(sigma, gamma, n_eigen):
    """Closed-form eigenvalues and eigenfunctions (R&W 2006, 4.3.1), normalised
    so that int phi_k^2 p = 1: the Hermite integral gives ||phi_k||^2 =
    2^k k! / (2 sigma sqrt(c)) before normalising."""
    a, b = 1.0 / (4.0 * sigma ** 2), gamma
    c = np.sqrt(a * a + 2.0 * a * b)
    A = a + b + c
    B = b / A
    lam = np.sqrt(2.0 * a / A) * B ** np.arange(n_eigen)

    def phi(k, x):
        norm_k = np.sqrt(2.0 ** k * factorial(k) / (2.0 * sigma * np.sqrt(c)))
        return np.exp(-(c - a) * x ** 2) * eval_hermite(k, np.sqrt(2.0 * c) * x) / norm_k

    return lam, phi, B


def two_rings(n, noise=0.1, seed=0):
    """n points on the unit circle and n on the circle of radius 3, with noise."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, size=2 * n)
    r = np.r_[np.ones(n), 3 * np.ones(n)]
    X = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=noise, size=(2 * n, 2))
    return X, np.r_[np.zeros(n, dtype=int), np.ones(n, dtype=int)]


def ring_gap(z, y):
    """Width of the empty interval between the two rings' values of z (< 0: they overlap)."""
    a, b = z[y == 0], z[y == 1]
    return float(max(b.min() - a.max(), a.min() - b.max()))


def _operator_eigen(X, **params):
    """mu_k = eigenvalues / n and the fitted model, kernel k itself (no centring)."""
    model = KernelPCA(N_EIGEN, kernel=RBF(gamma=GAMMA), center_kernel=False, **params).fit(X)
    return model.eigenvalues_ / len(X), model


def run(quick=False):
    """Closed form against the three estimates, and kernel PCA on the rings.

    Returns
    -------
    dict of plain floats and arrays (see the keys below).
    """
    n_random, n_quad = (400, 400) if quick else (1000, 2000)
    # In one dimension the spectrum falls by B per eigenvalue: a dozen centers spread
    # by kernel k-means++ hold the leading eigenpairs (more become numerically dependent).
    n_nys, n_centers = (2000, 12) if quick else (50000, 12)
    lam, phi, B = gaussian_kernel_eigen(SIGMA, GAMMA, N_EIGEN)

    rng = np.random.default_rng(0)
    X_random = rng.normal(scale=SIGMA, size=(n_random, 1))
    mu_random, _ = _operator_eigen(X_random)
    # the same numbers as the spectrum of the Gram matrix, divided by n
    gram_spectrum = spectrum(RBF(gamma=GAMMA), X_random) / n_random
    # eigen-features: Z Z' is the Mercer expansion on the sample, K itself with all terms
    K = RBF(gamma=GAMMA)(X_random)
    Z_all = KernelPCA(kernel=RBF(gamma=GAMMA), center_kernel=False).fit_transform(X_random)
    Z_few = Z_all[:, :N_EIGEN]  # the leading terms (the eigenpairs are sorted)
    mercer_errors = (float(np.abs(Z_all @ Z_all.T - K).max()),
                     float(np.linalg.norm(K - Z_few @ Z_few.T) / np.linalg.norm(K)))
    quantiles = SIGMA * norm.ppf((np.arange(n_quad) + 0.5) / n_quad)[:, None]
    mu_quad, model = _operator_eigen(quantiles)
    nys_X = rng.normal(scale=SIGMA, size=(n_nys, 1))
    mu_nys, nys = _operator_eigen(nys_X, eigen_solver="nystroem", n_centers=n_centers,
                                  center_selection="kmeans++", random_state=0)

    grid = np.linspace(-2.5 * SIGMA, 2.5 * SIGMA, 201)
    closed = np.column_stack([phi(k, grid) for k in range(N_EIGEN)])
    estimated = model.eigenfunctions(grid[:, None])
    estimated *= np.sign((estimated * closed).sum(axis=0))  # eigenfunctions' sign is free

    print(f"Gaussian kernel gamma={GAMMA} under N(0, {SIGMA}^2): lambda_k = "
          f"{lam[0]:.4f} B^k, B = {B:.4f}")
    print(f"{'k':>2} {'closed form':>12} {'random n=' + str(n_random):>15} "
          f"{'quantiles n=' + str(n_quad):>17} {'Nystroem n=' + str(n_nys):>18}")
    for k in range(N_EIGEN):
        print(f"{k:>2} {lam[k]:>12.5f} {mu_random[k]:>15.5f} {mu_quad[k]:>17.5f} "
              f"{mu_nys[k]:>18.5f}")
    print("eigenvalue ratios mu_(k+1) / mu_k (closed form: B = "
          f"{B:.4f}): quantiles {np.round(mu_quad[1:] / mu_quad[:-1], 4).tolist()}")
    print(f"eigen-features on the random sample: max |Z Z' - K| = {mercer_errors[0]:.1e} with "
          f"all {Z_all.shape[1]} non-zero terms; ||K - Z Z'||_F / ||K||_F = "
          f"{mercer_errors[1]:.1e} with {N_EIGEN}")

    X, y = two_rings(150 if quick else 300)
    kpca = KernelPCA(2, kernel=RBF(gamma=RINGS_GAMMA)).fit_transform(X)
    pca = PCA(2).fit_transform(X)
    gaps = ring_gap(kpca[:, 0], y), ring_gap(pca[:, 0], y)
    print(f"two rings, first component: gap between the rings {gaps[0]:.3f} (kernel PCA, "
          f"RBF gamma={RINGS_GAMMA}) vs {gaps[1]:.3f} (linear PCA; < 0 means they overlap)")
    return {"B": float(B), "closed_eigenvalues": lam, "random_eigenvalues": mu_random,
            "quantile_eigenvalues": mu_quad, "nystroem_eigenvalues": mu_nys,
            "gram_spectrum": gram_spectrum, "mercer_error_all": mercer_errors[0],
            "mercer_error_truncated": mercer_errors[1],
            "n_random": n_random, "n_quantiles": n_quad, "n_nystroem": n_nys,
            "n_centers": int(nys.centers_.shape[0]), "grid": grid,
            "closed_functions": closed, "estimated_functions": estimated,
            "rings_X": X, "rings_y": y, "rings_kpca": kpca, "rings_pca": pca,
            "rings_gap_kpca": gaps[0], "rings_gap_pca": gaps[1]}


def plot(results):
    """Eigenvalues, eigenfunctions, and the rings in input space and in the first two
    kernel principal components; returns the Figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 8.5))
    ax = axes[0, 0]
    k = np.arange(len(results["closed_eigenvalues"]))
    ax.semilogy(k, results["closed_eigenvalues"], "k-", label="closed form sqrt(2a/A) B^k")
    ax.semilogy(k, results["random_eigenvalues"], "o", label=f"random sample, n={results['n_random']}")
    ax.semilogy(k, results["quantile_eigenvalues"], "x", ms=9,
                label=f"quantiles of p, n={results['n_quantiles']}")
    ax.semilogy(k, results["nystroem_eigenvalues"], "+", ms=11,
                label=f"Nystroem, n={results['n_nystroem']}, M={results['n_centers']}")
    ax.set(title="Mercer eigenvalues of the Gaussian kernel", xlabel="k", ylabel="lambda_k")
    ax.legend(fontsize=8)
    ax = axes[0, 1]
    for i in range(4):
        line, = ax.plot(results["grid"], results["closed_functions"][:, i], lw=1.5,
                        label=f"phi_{i}")
        ax.plot(results["grid"][::8], results["estimated_functions"][::8, i], "o", ms=4,
                color=line.get_color())
    ax.set(title="Eigenfunctions: Hermite (lines), Nystroem extension (dots)", xlabel="x")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8)
    X, y = results["rings_X"], results["rings_y"]
    axes[1, 0].scatter(X[:, 0], X[:, 1], c=y, s=8, cmap="coolwarm")
    axes[1, 0].set(title="two rings (input space)", aspect="equal")
    Z = results["rings_kpca"]
    axes[1, 1].scatter(Z[:, 0], Z[:, 1], c=y, s=8, cmap="coolwarm")
    axes[1, 1].set(title=f"kernel PCA (RBF gamma={RINGS_GAMMA}): first component splits "
                   "the rings", xlabel="component 1", ylabel="component 2")
    axes[1, 1].title.set_fontsize(9)
    fig.tight_layout()
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Mercer eigenfunctions of the Gaussian "
                                     "kernel, and kernel PCA on two rings")
    parser.add_argument("--quick", action="store_true", help="small samples (about 2 s)")
    parser.add_argument("--out", default="mercer_eigenfunctions.png", help="picture file")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        import matplotlib
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    matplotlib.use("Agg")
    fig = plot(results)
    fig.savefig(args.out, dpi=100)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
