"""
Learning in the dual: ridge two ways, ridge for classes, the tube of SVR, the losses
====================================================================================

Lecture: Learning with kernels -- kernel ridge regression in the dual,
(K + n lambda I) u = y, against ridge in the primal on the explicit features;
ridge classification by +-1 targets; support vector regression; the losses.

The representer theorem says the ridge minimiser of
(1/n) sum_i (f(x_i) - y_i)^2 + lambda ``||f||``^2 is f = sum_j u_j k(., x_j) with
(K + n lambda I) u = y (:func:`kernelkit.solvers.dual_ridge`, n x n). When the
kernel has a finite feature map, k(x, y) = psi(x)'psi(y), the same f is
w'psi(x) with (Z'Z + n lambda I) w = Z'y (:func:`kernelkit.solvers.primal_ridge`,
D x D) and w = Z'u. The polynomial kernel (x'y + 1)^3 on R^5 has D = 56 monomials:
the script solves both systems and prints how far apart the two predictions are
(round-off, about 1e-12). ``KernelRidge.fit`` plans which system to solve: the
dual while n is below about D, the primal beyond (its ``solver_`` and ``plan_``).

Ridge classification fits +-1 targets by least squares and predicts the sign
(:class:`kernelkit.models.KernelRidgeClassifier`): its scores are exactly
those of kernel ridge on the +-1 targets. Support vector regression
(:class:`kernelkit.models.KernelSVR`) replaces the squared loss by the
epsilon-insensitive one, max(0, ``|r|`` - epsilon): points inside the tube of
half-width epsilon cost nothing and drop out of the expansion (u_i = 0), so
only the points on or outside the tube are support vectors. The figure draws
the six losses of :func:`kernelkit.solvers.losses.get_loss`, the SVR tube over
noisy sinc data with kernel ridge for comparison, and the ridge classifier's
boundary on the bundled banana data.

Run: ``python examples/learning_in_the_dual.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_banana
from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelRidge, KernelRidgeClassifier, KernelSVR
from kernelkit.solvers import dual_ridge, primal_ridge
from kernelkit.solvers.losses import get_loss

CUBIC = Polynomial(degree=3, gamma=1.0, coef0=1.0)  # (x'y + 1)^3, D = 56 on R^5
LAM = 1e-3  # the notes' lambda; the solvers' alpha is n lambda
LOSSES = ("squared", "logistic", "hinge", "squared_hinge", "huber", "epsilon_insensitive")
EPSILON = 0.1  # the SVR tube's half-width (and the Huber threshold drawn is 1)


def cubic_data(n, seed):
    """x uniform in [-1, 1]^5, y a cubic polynomial of x plus noise 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 5))
    y = X[:, 0] * X[:, 1] * X[:, 2] - X[:, 3] ** 2 + 0.5 * X[:, 4] + 0.1 * rng.normal(size=n)
    return X, y


def sinc_data(n, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-3.0, 3.0, size=n))
    return x[:, None], np.sinc(x) + 0.1 * rng.normal(size=n)


def _dual_and_primal(n_small, n_large, n_test):
    X, y = cubic_data(n_large, seed=0)
    X_test, _ = cubic_data(n_test, seed=1)
    n = len(X)
    u, _ = dual_ridge(CUBIC(X, X), y, n * LAM)
    features = ExplicitFeatures(CUBIC).fit(X)
    Z, Z_test = features.transform(X), features.transform(X_test)
    w, _ = primal_ridge(Z, y, n * LAM)
    f_dual, f_primal = CUBIC(X_test, X) @ u, Z_test @ w
    fits = {}
    for size in (n_small, n_large):
        model = KernelRidge(kernel=CUBIC, alpha=size * LAM, fit_intercept=False)
        model.fit(X[:size], y[:size])
        u_size, _ = dual_ridge(CUBIC(X[:size], X[:size]), y[:size], size * LAM)
        fits[size] = (model.solver_, float(np.max(np.abs(
            model.predict(X_test) - CUBIC(X_test, X[:size]) @ u_size))))
    return {
        "n": n, "D": Z.shape[1], "u": u, "w": w,
        "dual_vs_primal": float(np.max(np.abs(f_dual - f_primal))),
        "w_vs_Zu": float(np.max(np.abs(w - Z.T @ u))),
        "scale": float(np.max(np.abs(f_dual))),
        "solver_small": fits[n_small][0], "solver_large": fits[n_large][0],
        "estimator_vs_dual_small": fits[n_small][1], "estimator_vs_dual_large": fits[n_large][1],
        "n_small": n_small, "n_large": n_large,
    }


def run(quick=False):
    """Dual vs primal ridge, the ridge classifier, SVR against ridge; return the numbers."""
    results = _dual_and_primal(40, 400, 200 if quick else 1000)

    banana = load_banana()
    X, y = banana.data[: 300 if quick else 1000], banana.target[: 300 if quick else 1000]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    signs = np.where(y == np.unique(y)[1], 1.0, -1.0)
    rbf = RBF(gamma=1.0)
    classifier = KernelRidgeClassifier(kernel=rbf, alpha=0.1).fit(X, y)
    regressor = KernelRidge(kernel=rbf, alpha=0.1).fit(X, signs)
    results.update(
        X_banana=X, y_banana=signs, classifier=classifier,
        classifier_accuracy=float(classifier.score(X, y)),
        classifier_vs_ridge=float(np.max(np.abs(
            classifier.decision_function(X) - regressor.predict(X)))))

    x, t = sinc_data(60 if quick else 150, seed=2)
    svr = KernelSVR(kernel=RBF(gamma=2.0), C=10.0, epsilon=EPSILON, tol=1e-6).fit(x, t)
    ridge = KernelRidge(kernel=RBF(gamma=2.0), alpha=0.1).fit(x, t)
    residual = np.abs(t - svr.predict(x))
    inside = np.setdiff1d(np.arange(len(x)), svr.support_)
    results.update(
        x_sinc=x[:, 0], t_sinc=t, svr=svr, ridge=ridge,
        n_support=len(svr.support_), n_sinc=len(x),
        max_residual_inside=float(residual[inside].max()) if len(inside) else 0.0,
        min_residual_support=float(residual[svr.support_].min()),
        svr_dual_coef=svr.dual_coef_[0].copy(), svr_support=svr.support_.copy())

    print(f"ridge with (x'y + 1)^3 on R^5, lambda = {LAM:g}: n = {results['n']}, "
          f"D = {results['D']} features")
    print(f"  max |dual prediction - primal prediction| = {results['dual_vs_primal']:.1e} "
          f"(predictions up to {results['scale']:.2f});  max |w - Z'u| = "
          f"{results['w_vs_Zu']:.1e}")
    for which in ("small", "large"):
        print(f"  KernelRidge.fit on n = {results['n_' + which]:3d}: solver "
              f"{results['solver_' + which]!r}")
    print(f"\nridge classifier on banana (n = {len(X)}): training accuracy "
          f"{results['classifier_accuracy']:.3f}; max |its score - kernel ridge on +-1| = "
          f"{results['classifier_vs_ridge']:.1e}")
    print(f"\nSVR, epsilon = {EPSILON}: {results['n_support']} support vectors of "
          f"{results['n_sinc']} points; residuals inside the tube <= "
          f"{results['max_residual_inside']:.3f}, of the support vectors >= "
          f"{results['min_residual_support']:.3f}")
    return results


def plot(results):
    """The six losses; SVR's tube against kernel ridge; the ridge classifier's boundary."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(15, 4.5), layout="constrained")
    ax = fig.add_subplot(1, 3, 1)
    z = np.linspace(-3.0, 3.0, 601)
    for name in LOSSES:
        loss = get_loss(name, EPSILON if name == "epsilon_insensitive" else 1.0)
        if loss.classification:  # a function of the margin y z, with y = +1
            ax.plot(z, loss.value(z, np.ones_like(z)), label=f"{name} (margin yz)")
        else:  # a function of the residual z - y, with y = 0
            ax.plot(z, loss.value(z, np.zeros_like(z)), "--", label=f"{name} (residual)")
    ax.set_ylim(0, 4)
    ax.set_xlabel("margin y z, or residual z - y")
    ax.legend(fontsize=7)
    ax.set_title("the losses (get_loss)")

    ax = fig.add_subplot(1, 3, 2)
    x, t, svr = results["x_sinc"], results["t_sinc"], results["svr"]
    grid = np.linspace(x.min(), x.max(), 400)[:, None]
    f = svr.predict(grid)
    ax.fill_between(grid[:, 0], f - EPSILON, f + EPSILON, color="C0", alpha=0.2,
                    label=f"tube +-{EPSILON}")
    ax.plot(grid[:, 0], f, "C0", label="SVR")
    ax.plot(grid[:, 0], results["ridge"].predict(grid), "C1--", label="kernel ridge")
    support = np.zeros(len(x), bool)
    support[results["svr_support"]] = True
    ax.scatter(x[~support], t[~support], s=10, c="grey", label="inside the tube (u = 0)")
    ax.scatter(x[support], t[support], s=18, facecolors="none", edgecolors="k",
               label=f"support vectors ({support.sum()})")
    ax.legend(fontsize=7)
    ax.set_title("support vector regression")

    ax = fig.add_subplot(1, 3, 3)
    X, y = results["X_banana"], results["y_banana"]
    g1, g2 = np.meshgrid(np.linspace(X[:, 0].min(), X[:, 0].max(), 150),
                         np.linspace(X[:, 1].min(), X[:, 1].max(), 150))
    F = results["classifier"].decision_function(np.c_[g1.ravel(), g2.ravel()]).reshape(g1.shape)
    ax.contourf(g1, g2, F, levels=20, cmap="coolwarm", alpha=0.5)
    ax.contour(g1, g2, F, levels=[0.0], colors="k")
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=6)
    ax.set_title(f"ridge classifier on +-1 targets (accuracy "
                 f"{results['classifier_accuracy']:.2f})")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Learning in the dual.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="learning_in_the_dual.png", help="PNG file to write")
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
