"""
Any L2-regularised loss can be kernelised
=========================================

Lecture: Learning with kernels -- "any L2-regularised linear model can be
kernelised": the representer theorem for every loss, shown with a loss of
one's own on data with outliers.

The representer theorem does not care which loss is used: the minimiser of

    (alpha/2) ||f||_H^2 + sum_i l(f(x_i) + b; y_i)

is f = sum_j u_j k(., x_j) for *any* loss l. So a kernel machine needs only
the loss's value, its derivative in the score z = f(x) + b (for gradient
methods) and, for Newton's method, its second derivative.
:func:`kernelkit.solvers.make_loss` turns three vectorised functions into a
loss that :class:`kernelkit.models.KernelMachine` fits like a built-in one.

Noisy samples of sin(x) + 2 with 10% of the targets pushed up by 3 to 6
(outliers), fitted with an RBF kernel and an unpenalised intercept b
(``fit_intercept=True``) under four losses of the residual r = z - y:

- squared r^2/2 (built in): the outliers pull the fit up;
- Huber (built in, epsilon = 0.5): linear beyond epsilon, bounded pull;
- log-cosh log(cosh r) (user-defined, with its curvature 1 - tanh^2 r: Newton):
  quadratic near 0, linear far away, smooth everywhere;
- Cauchy (c^2/2) log(1 + (r/c)^2), c = 0.5 (user-defined, without curvature:
  L-BFGS): its pull falls back to 0 for large residuals, so the outliers are
  all but ignored (a non-convex loss: L-BFGS finds a local minimum from u = 0).

The table gives each fit's solver (from ``plan_``), its objective and its error
against the clean sin(x) + 2: the robust losses stay close to it, the squared
loss does not. The figure shows the four fits over the data and the four
losses' shapes.

Run: ``python examples/any_loss.py`` (about 2 seconds)
"""

import argparse

import numpy as np

from kernelkit.kernels import RBF
from kernelkit.models import KernelMachine
from kernelkit.solvers import make_loss

GAMMA = 1.0
ALPHA = 1.0
HUBER_EPSILON = 0.5
CAUCHY_C = 0.5
LEVEL = 2.0  # the targets' level: fitted by the unpenalised intercept


def log_cosh_loss():
    """log(cosh(z - y)), written without overflow; its gradient and curvature."""
    return make_loss(lambda z, y: np.logaddexp(z - y, y - z) - np.log(2.0),
                     lambda z, y: np.tanh(z - y),
                     lambda z, y: 1.0 - np.tanh(z - y) ** 2, name="log_cosh")


def cauchy_loss(c=CAUCHY_C):
    """(c^2/2) log(1 + ((z - y)/c)^2) and its gradient (no curvature: not convex)."""
    return make_loss(lambda z, y: 0.5 * c * c * np.log1p(((z - y) / c) ** 2),
                     lambda z, y: (z - y) / (1.0 + ((z - y) / c) ** 2), name="cauchy")


def losses():
    """The four losses, by label: a built-in name or a user loss."""
    return {"squared": "squared", "huber": "huber", "log-cosh (user)": log_cosh_loss(),
            "Cauchy (user)": cauchy_loss()}


def samples(n, seed=0):
    """x in [0, 10], y = sin(x) + LEVEL + noise, 10% outliers pushed up by 3 to 6."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 10.0, size=n))
    y = np.sin(x) + LEVEL + 0.15 * rng.normal(size=n)
    outliers = rng.choice(n, size=n // 10, replace=False)
    y[outliers] += rng.uniform(3.0, 6.0, size=outliers.size)
    return x[:, None], y, np.sort(outliers)


def run(quick=False):
    """Fit the four losses; return the data, the fits and their objectives."""
    X, y, outliers = samples(60 if quick else 200)
    grid = np.linspace(0.0, 10.0, 200 if quick else 500)
    truth = np.sin(grid) + LEVEL
    fits = {}
    for label, loss in losses().items():
        model = KernelMachine(RBF(gamma=GAMMA), loss=loss, alpha=ALPHA, epsilon=HUBER_EPSILON,
                              fit_intercept=True, tol=1e-10, max_iter=2000).fit(X, y)
        prediction = model.predict(grid[:, None])
        fits[label] = {
            "solver": model.solver_,
            # objective_ is J/n in the solvers' scaling: n J is the sum form above
            "objective": float(model.objective_[0] * len(y)),
            "intercept": float(model.intercept_),
            "dual_coef": np.asarray(model.dual_coef_, dtype=np.float64),
            "prediction": prediction,
            "rmse_to_truth": float(np.sqrt(np.mean((prediction - truth) ** 2)))}
    print(f"{len(y)} samples of sin(x) + {LEVEL:g}, {outliers.size} outliers; RBF gamma = "
          f"{GAMMA:g}, alpha = {ALPHA:g}, unpenalised intercept\n")
    print(f"{'loss':<18s} {'solver':<7s} {'objective':>11s} {'intercept':>10s} "
          f"{'RMSE to sin(x) + 2':>19s}")
    for label, fit in fits.items():
        print(f"{label:<18s} {fit['solver']:<7s} {fit['objective']:11.5f} "
              f"{fit['intercept']:10.4f} {fit['rmse_to_truth']:19.4f}")
    return {"X": X, "y": y, "outliers": outliers, "grid": grid, "truth": truth,
            "gamma": GAMMA, "alpha": ALPHA, "huber_epsilon": HUBER_EPSILON,
            "cauchy_c": CAUCHY_C, "fits": fits}


def plot(results):
    """Left: the data, the outliers and the four fits; right: the four losses l(r)."""
    from matplotlib.figure import Figure

    from kernelkit.solvers.losses import get_loss

    fig = Figure(figsize=(12, 4.5), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(2, 1))
    X, y, out = results["X"][:, 0], results["y"], results["outliers"]
    inliers = np.setdiff1d(np.arange(len(y)), out)
    left.plot(X[inliers], y[inliers], ".", color="0.5", ms=4, label="data")
    left.plot(X[out], y[out], "x", color="tab:red", ms=6, label="outliers")
    left.plot(results["grid"], results["truth"], "k--", lw=1, label="sin(x) + 2")
    for label, fit in results["fits"].items():
        left.plot(results["grid"], fit["prediction"], lw=1.8,
                  label=f"{label} (RMSE {fit['rmse_to_truth']:.2f})")
    left.set_xlabel("x")
    left.set_title("kernel machines with four losses")
    left.legend(fontsize=8, loc="upper right")
    r = np.linspace(-4.0, 4.0, 400)
    zeros = np.zeros_like(r)
    shapes = {"squared": get_loss("squared").value(r, zeros),
              "huber": get_loss("huber", results["huber_epsilon"]).value(r, zeros),
              "log-cosh (user)": log_cosh_loss().value(r, zeros),
              "Cauchy (user)": cauchy_loss(results["cauchy_c"]).value(r, zeros)}
    for label, values in shapes.items():
        right.plot(r, values, lw=1.8, label=label)
    right.set_ylim(0.0, 4.0)
    right.set_xlabel("residual r = f(x) + b - y")
    right.set_title("the losses l(r)")
    right.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Any L2-regularised loss, kernelised.")
    parser.add_argument("--quick", action="store_true", help="fewer samples (a test run)")
    parser.add_argument("--out", default="any_loss.png", help="PNG file to write")
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
