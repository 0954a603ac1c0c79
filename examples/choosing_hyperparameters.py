"""
Choosing hyperparameters: leave-one-out, cross-validation, the marginal likelihood
==================================================================================

Lecture: Model selection for kernel methods -- the regularisation path of
kernel ridge from one eigendecomposition with its exact leave-one-out error,
choosing C by cross-validation along a warm-started path, the Gaussian-process
log marginal likelihood, and the Rademacher bound sqrt(tr K) / n.

* **The ridge path.** With K = Q diag(w) Q' computed once, every alpha costs
  O(n^2): (K + alpha I)^-1 = Q diag(1 / (w + alpha)) Q'. The leave-one-out
  residuals need no refit either: y_i - f_{-i}(x_i) = u_i / [(K + alpha I)^-1]_ii
  (Allen's PRESS identity; :func:`kernelkit.tuning.eigen_path`, with the
  intercept's correction). The script checks them against n brute-force refits
  and lets :class:`kernelkit.models.KernelRidgeCV` pick alpha by the same
  criterion.
* **C by cross-validation.** :class:`kernelkit.models.KernelSVCCV` solves the
  SVM for increasing C on each fold, each solve started from the previous one's
  support vectors; its mean accuracies are those of scikit-learn's
  ``GridSearchCV`` refitting from scratch.
* **The marginal likelihood.** Seen as a Gaussian process, y ~ N(0, K + alpha I)
  and log p(y) = -y'(K + alpha I)^-1 y / 2 - log det(K + alpha I) / 2 - n log(2 pi) / 2
  (:func:`kernelkit.tuning.log_marginal_likelihood`): a fit term against a
  complexity term, a smooth function of (gamma, alpha) one can climb by its
  gradient. The figure draws it on a grid;
  :class:`kernelkit.models.LearnedKernelRidge` climbs it and lands on the top.
* **The Rademacher bound.** The empirical Rademacher complexity of
  {f : ||f||_H <= 1} is (1/n) E_sigma sqrt(sigma'K sigma) <= sqrt(tr K) / n
  (:func:`kernelkit.diagnostics.rademacher_bound`). For the RBF kernel tr K = n
  whatever gamma, so the bound is 1/sqrt(n). The Monte-Carlo value reaches it as
  gamma grows and K tends to I (then sigma'K sigma = n for every sigma); for a
  wide kernel (small gamma) K tends to the all-ones matrix, the unit ball to the
  constants, and the complexity to (1/n) E|sum_i sigma_i|, about sqrt(2/pi) =
  0.80 of the bound: the bound is tight within 20% for every gamma.

Run: ``python examples/choosing_hyperparameters.py`` (about 20 seconds)
"""

import argparse
from math import lgamma

import numpy as np

from kernelkit.datasets import load_banana
from kernelkit.diagnostics import rademacher_bound
from kernelkit.kernels import RBF
from kernelkit.linalg import eigh_psd
from kernelkit.models import KernelRidgeCV, KernelSVCCV, LearnedKernelRidge
from kernelkit.tuning import (
    centre_targets,
    eigen_path,
    kernel_parameters,
    log_marginal_likelihood,
)

GAMMA = 1.0  # the ridge path's and the SVM's kernel exp(-gamma ||x - y||^2)


def sine_data(n, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-3.0, 3.0, size=n))
    return x[:, None], np.sin(2.0 * x) + 0.3 * rng.normal(size=n)


def brute_force_loo(K, y, alpha):
    """y_i - f_{-i}(x_i) by n refits, each with the mean of the other targets as intercept."""
    n = len(y)
    residuals = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        mean = y[keep].mean()
        u = np.linalg.solve(K[np.ix_(keep, keep)] + alpha * np.eye(n - 1), y[keep] - mean)
        residuals[i] = y[i] - (K[i, keep] @ u + mean)
    return residuals


def _ridge_path(X, y, alphas, checked):
    K = RBF(gamma=GAMMA)(X, X)
    w, Q = eigh_psd(K)
    y0, _ = centre_targets(y, fit_intercept=True)
    path = eigen_path(w, Q, y0, alphas)
    loo = np.array([np.mean(p.loo_residuals ** 2) for p in path])
    brute = np.array([np.mean(brute_force_loo(K, y, alphas[j]) ** 2) for j in checked])
    cv = KernelRidgeCV(kernel=RBF(gamma=GAMMA), alphas=alphas).fit(X, y)
    return {"alphas": np.asarray(alphas), "loo_mse": loo, "checked": np.asarray(checked),
            "brute_force_mse": brute, "ridge_cv_alpha": float(cv.alpha_),
            "ridge_cv_criterion": cv.criterion_, "path_best_alpha": float(alphas[np.argmin(loo)])}


def _svc_path(X, y, Cs):
    model = KernelSVCCV(kernel=RBF(gamma=GAMMA), Cs=Cs, cv=5).fit(X, y)
    return {"Cs": np.asarray(Cs), "svc_cv_scores": np.asarray(model.cv_results_["mean_test_score"]),
            "svc_best_C": float(model.best_params_["C"]), "X_svc": X, "y_svc": y}


def _marginal_likelihood(X, y, gammas, noise):
    y0 = y - y.mean()
    lml = np.array([[log_marginal_likelihood(kernel_parameters(RBF(gamma=g)), X, y0, a)
                     for g in gammas] for a in noise])
    learned = LearnedKernelRidge(kernel=RBF(gamma=1.0), alpha=0.1, learn_amplitude=False,
                                 objective="marginal_likelihood").fit(X, y)
    return {"gammas": gammas, "noise": noise, "lml": lml,
            "learned_gamma": float(learned.kernel_.gamma), "learned_alpha": float(learned.alpha_),
            "learned_lml": float(learned.log_marginal_likelihood_)}


def _rademacher(X, gammas, n_draws, seed):
    rng = np.random.default_rng(seed)
    n = len(X)
    sigma = rng.choice([-1.0, 1.0], size=(n_draws, n))
    bound, monte_carlo, stderr = [], [], []
    for g in gammas:
        K = RBF(gamma=g)(X, X)
        values = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", sigma, K, sigma), 0.0)) / n
        bound.append(rademacher_bound(K))
        monte_carlo.append(values.mean())
        stderr.append(values.std(ddof=1) / np.sqrt(n_draws))
    counts = np.arange(n + 1)  # the number of +1 signs is Binomial(n, 1/2)
    weights = np.exp([lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) - n * np.log(2.0)
                      for k in counts])
    constants = float(np.sum(weights * np.abs(2 * counts - n)) / n)
    return {"rademacher_gammas": gammas, "rademacher_bound": np.array(bound),
            "rademacher_constants": constants,
            "rademacher_monte_carlo": np.array(monte_carlo),
            "rademacher_stderr": np.array(stderr), "rademacher_n": n}


def run(quick=False):
    """The LOO path, the C path, the marginal-likelihood surface and the bound."""
    n = 60 if quick else 200
    X, y = sine_data(n, seed=0)
    alphas = np.logspace(-4, 2, 13 if quick else 25)
    checked = [0, len(alphas) // 2, len(alphas) - 1]
    results = {"n": n, "X": X, "y": y}
    results.update(_ridge_path(X, y, alphas, checked))

    banana = load_banana()
    m = 150 if quick else 500
    Xb = (banana.data - banana.data.mean(axis=0)) / banana.data.std(axis=0)
    results.update(_svc_path(Xb[:m], banana.target[:m], np.logspace(-2, 3, 6 if quick else 11)))

    results.update(_marginal_likelihood(X, y, np.logspace(-2, 1.5, 8 if quick else 29),
                                        np.logspace(-2.5, 0.5, 7 if quick else 25)))
    results.update(_rademacher(X, np.logspace(-3, 3, 7 if quick else 13),
                               200 if quick else 1000, seed=1))

    print(f"kernel ridge on noisy sin(2x), n = {n}, RBF gamma = {GAMMA:g}: exact LOO from "
          "one eigendecomposition")
    print(f"{'alpha':>10s} {'LOO MSE (path)':>15s} {'LOO MSE (n refits)':>19s}")
    for j, brute in zip(results["checked"], results["brute_force_mse"]):
        print(f"{alphas[j]:10.3g} {results['loo_mse'][j]:15.6f} {brute:19.6f}")
    print(f"best alpha on the path {results['path_best_alpha']:.3g}; KernelRidgeCV chose "
          f"{results['ridge_cv_alpha']:.3g} ({results['ridge_cv_criterion']})")
    print(f"\nSVM on banana (n = {m}), 5-fold accuracy along the C path:")
    for C, score in zip(results["Cs"], results["svc_cv_scores"]):
        print(f"  C = {C:8.3g}: {score:.4f}")
    print(f"KernelSVCCV chose C = {results['svc_best_C']:g}")
    top = np.unravel_index(np.argmax(results["lml"]), results["lml"].shape)
    print(f"\nlog marginal likelihood: grid maximum {results['lml'][top]:.3f} at gamma = "
          f"{results['gammas'][top[1]]:.3g}, alpha = {results['noise'][top[0]]:.3g}; "
          f"LearnedKernelRidge: {results['learned_lml']:.3f} at gamma = "
          f"{results['learned_gamma']:.3g}, alpha = {results['learned_alpha']:.3g}")
    print(f"\nRademacher complexity of the unit ball, n = {n}: bound sqrt(tr K)/n = "
          f"{results['rademacher_bound'][0]:.4f} for every gamma")
    for g, mc in zip(results["rademacher_gammas"], results["rademacher_monte_carlo"]):
        print(f"  gamma = {g:8.3g}: Monte Carlo {mc:.4f}")
    print(f"  gamma -> 0 (K = 11', exact): {results['rademacher_constants']:.4f}")
    return results


def plot(results):
    """LOO against alpha, CV accuracy against C, the LML surface, the Rademacher bound."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 10), layout="constrained")
    ax = fig.add_subplot(2, 2, 1)
    ax.semilogx(results["alphas"], results["loo_mse"], "-", label="exact LOO (eigen_path)")
    ax.semilogx(results["alphas"][results["checked"]], results["brute_force_mse"], "ko",
                mfc="none", label="n refits")
    ax.axvline(results["ridge_cv_alpha"], color="C3", ls="--", label="KernelRidgeCV's alpha")
    ax.set_xlabel("alpha")
    ax.set_ylabel("leave-one-out mean squared error")
    ax.legend()
    ax.set_title("the kernel ridge path")

    ax = fig.add_subplot(2, 2, 2)
    ax.semilogx(results["Cs"], results["svc_cv_scores"], "o-", label="KernelSVCCV")
    ax.axvline(results["svc_best_C"], color="C3", ls="--", label="chosen C")
    ax.set_xlabel("C")
    ax.set_ylabel("5-fold accuracy")
    ax.legend()
    ax.set_title("the SVM's C path (warm-started)")

    ax = fig.add_subplot(2, 2, 3)
    G, A = np.meshgrid(results["gammas"], results["noise"])
    lml = results["lml"]
    levels = np.sort(np.max(lml) - np.array([200, 100, 50, 20, 10, 5, 2, 1, 0.5, 0]))
    cs = ax.contourf(G, A, np.maximum(lml, levels[0]), levels=levels, cmap="viridis")
    fig.colorbar(cs, ax=ax, label="log marginal likelihood")
    ax.plot(results["learned_gamma"], results["learned_alpha"], "r*", ms=15,
            label="LearnedKernelRidge")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("gamma")
    ax.set_ylabel("alpha (noise variance)")
    ax.legend()
    ax.set_title("the marginal likelihood surface")

    ax = fig.add_subplot(2, 2, 4)
    g = results["rademacher_gammas"]
    ax.semilogx(g, results["rademacher_bound"], "k--", label="bound sqrt(tr K) / n")
    ax.errorbar(g, results["rademacher_monte_carlo"], yerr=2 * results["rademacher_stderr"],
                fmt="o-", label="(1/n) E sqrt(sigma'K sigma), Monte Carlo")
    ax.axhline(results["rademacher_constants"], color="grey", ls=":",
               label="(1/n) E|sum sigma_i|: the limit gamma -> 0")
    ax.set_xlabel("gamma")
    ax.set_ylabel("Rademacher complexity of ||f||_H <= 1")
    ax.set_ylim(0, 1.2 * results["rademacher_bound"].max())
    ax.legend()
    ax.set_title(f"the Rademacher bound (n = {results['rademacher_n']})")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Choosing hyperparameters.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="choosing_hyperparameters.png", help="PNG file to write")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
