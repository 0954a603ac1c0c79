"""
Kernel ridge regression is a sum of Gaussians
=============================================

Lecture: Learning with kernels -- "kernel ridge is a sum of Gaussians": the
representer theorem's f(x) = sum_i u_i k(x, x_i) drawn as the sum of its bumps.

With the RBF kernel k(x, x') = exp(-gamma (x - x')^2), the kernel ridge
regression of y on x is

    f(x) = sum_i u_i k(x, x_i),   u = (K + alpha I)^{-1} y,

one Gaussian bump of height u_i centred at each training point. The heights
are not the targets: neighbouring bumps overlap, so u_i is what is left of
y_i once the neighbours' bumps are counted (and alpha shrinks them all).
A small alpha lets the bumps grow large and of alternating sign (they
nearly interpolate the noise); a large alpha keeps them small (a smoother,
flatter f).

Twenty noisy samples of sin(x) on [0, 10], gamma = 2, alpha = 0.05 and 1,
fitted by :class:`kernelkit.models.KernelRidge` (``fit_intercept=False``: f is
exactly the sum of the bumps). The script prints the bumps' heights and checks
that their sum is the model's prediction.

Run: ``python examples/ridge_sum_of_gaussians.py`` (about 1 second)
"""

import argparse

import numpy as np

from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge

GAMMA = 2.0
ALPHAS = (0.05, 1.0)


def samples(n=20, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 10.0, size=n))
    return x[:, None], np.sin(x) + noise * rng.normal(size=n)


def bumps(x_grid, X, u):
    """(n_grid, n) matrix of the bumps u_i k(x, x_i) on the grid."""
    return np.exp(-GAMMA * (x_grid[:, None] - X[:, 0][None, :]) ** 2) * u[None, :]


def run(quick=False):
    """Fit kernel ridge for each alpha; return the bumps, their sum and the predictions."""
    X, y = samples()
    grid = np.linspace(-1.0, 11.0, 200 if quick else 600)
    fits = {}
    for alpha in ALPHAS:
        model = KernelRidge(RBF(gamma=GAMMA), alpha=alpha, fit_intercept=False).fit(X, y)
        u = np.asarray(model.dual_coef_, dtype=np.float64)
        B = bumps(grid, X, u)
        prediction = model.predict(grid[:, None])
        fits[alpha] = {"u": u, "bumps": B, "sum_of_bumps": B.sum(axis=1),
                       "prediction": prediction,
                       "max_difference": float(np.max(np.abs(B.sum(axis=1) - prediction))),
                       "train_rmse": float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))}
    print(f"kernel ridge, RBF gamma = {GAMMA}, {len(X)} noisy samples of sin(x)\n")
    print(f"{'x_i':>6s} {'y_i':>7s} " + " ".join(f"{'u_i, alpha=' + format(a, 'g'):>16s}"
                                              for a in ALPHAS))
    for i in range(len(X)):
        print(f"{X[i, 0]:6.2f} {y[i]:7.3f} " + " ".join(f"{fits[a]['u'][i]:16.3f}" for a in ALPHAS))
    for a in ALPHAS:
        print(f"\nalpha = {a:g}: train RMSE {fits[a]['train_rmse']:.3f}; "
              f"max |sum of the bumps - KernelRidge.predict| on the grid: "
              f"{fits[a]['max_difference']:.1e}")
    return {"X": X, "y": y, "grid": grid, "gamma": GAMMA, "alphas": ALPHAS, "fits": fits}


def plot(results):
    """One panel per alpha: the bumps (thin), their sum (thick), the data and sin(x)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.2), layout="constrained")
    X, y, grid = results["X"], results["y"], results["grid"]
    for ax, alpha in zip(fig.subplots(1, len(results["alphas"]), sharey=True),
                         results["alphas"]):
        fit = results["fits"][alpha]
        ax.plot(grid, fit["bumps"], color="tab:blue", lw=0.8, alpha=0.6)
        ax.plot([], [], color="tab:blue", lw=0.8, label="bumps u_i k(x, x_i)")
        ax.plot(grid, fit["sum_of_bumps"], color="k", lw=2.2, label="their sum = f(x)")
        ax.plot(grid, np.sin(grid), "g--", lw=1, label="sin(x)")
        ax.plot(X[:, 0], y, "o", color="tab:red", ms=4, label="data")
        ax.set_title(f"alpha = {alpha:g}")
        ax.set_xlabel("x")
        ax.set_ylim(-3.5, 3.5)
    ax.legend(fontsize=8, loc="lower left")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel ridge as a sum of Gaussian bumps.")
    parser.add_argument("--quick", action="store_true", help="a coarser grid (a test run)")
    parser.add_argument("--out", default="ridge_sum_of_gaussians.png", help="PNG file to write")
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
