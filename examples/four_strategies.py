"""
Four strategies, one model: dual or primal, cached or on the fly
================================================================

Lecture: Learning with kernels at scale -- the four strategies (u-space or
w-space, the Gram/feature matrix cached or recomputed on the fly) and their demo.

Every learner here is an L2-regularised linear model in a feature space psi.
By the representer theorem w = sum_j u_j psi(x_j), so the SGD step

    w <- (1 - eta_t lam) w - eta_t l'(f(x_t); y_t) psi(x_t)

can be carried out on w (the *primal*, explicit features z = psi(x)) or on u
(the *dual*: u <- (1 - eta_t lam) u, u_t -= eta_t l'(f(x_t); y_t), kernel values
only). Either representation can keep its matrix (the n x D feature matrix Z,
the n x n Gram matrix K) or recompute the row it needs at each step. With the
same sample order and step sizes all four strategies take the same steps:
they learn the same function, up to rounding.

The problem: the points of [-2, 2]^2, labelled by whether they lie inside the
circle of radius 1.2, learnt by a soft-margin SVM (hinge loss, alpha = 1,
50 epochs of SGD) with the polynomial kernel (x'y + 1)^2, whose explicit
feature map has D = 6 coordinates (:class:`kernelkit.features.ExplicitFeatures`).
``KernelMachineClassifier(strategy=...)`` runs each strategy; the table gives
the train and test accuracy of each and how far its decision values are from
the Gram-cached run's.

Run: ``python examples/four_strategies.py`` (about 3 seconds)
"""

import argparse

import numpy as np

from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import Polynomial
from kernelkit.models import KernelMachineClassifier
from kernelkit.planning import STRATEGIES

KERNEL = Polynomial(degree=2, gamma=1.0, coef0=1.0)  # (x'y + 1)^2, D = 6
ALPHA, N_EPOCHS, RADIUS = 1.0, 50, 1.2


def circle_data(n, seed):
    """n points uniform in [-2, 2]^2; y = +1 inside the circle of radius RADIUS, else -1."""
    X = np.random.default_rng(seed).uniform(-2.0, 2.0, size=(n, 2))
    return X, np.where(np.linalg.norm(X, axis=1) < RADIUS, 1, -1)


def machine(strategy):
    """The SVM of the story, learnt by SGD in one strategy."""
    return KernelMachineClassifier(KERNEL, loss="hinge", alpha=ALPHA, solver="sgd",
                                   strategy=strategy, n_epochs=N_EPOCHS, random_state=0)


def run(quick=False):
    """Fit the SVM in each of the four strategies; return accuracies and their differences."""
    n_train, n_test = (200, 1000) if quick else (1000, 5000)
    X, y = circle_data(n_train, seed=0)
    X_test, y_test = circle_data(n_test, seed=1)
    models, decision = {}, {}
    for strategy in STRATEGIES:
        models[strategy] = machine(strategy).fit(X, y)
        decision[strategy] = models[strategy].decision_function(X_test)
    reference = decision["gram_cached"]
    # the representer theorem: the primal w equals Z'u of the dual run
    Z = ExplicitFeatures(KERNEL).fit(X).transform(X)
    w_from_u = Z.T @ models["gram_cached"].dual_coef_
    results = {
        "n_train": n_train, "n_test": n_test, "strategies": list(STRATEGIES),
        "representation": {s: m.representation_ for s, m in models.items()},
        "train_accuracy": {s: float(m.score(X, y)) for s, m in models.items()},
        "test_accuracy": {s: float(m.score(X_test, y_test)) for s, m in models.items()},
        "objective": {s: float(m.objective_[0]) for s, m in models.items()},
        "max_difference": {s: float(np.max(np.abs(d - reference))) for s, d in decision.items()},
        "w_vs_Zu": float(np.max(np.abs(models["features_cached"].coef_ - w_from_u))),
        "X": X, "y": y, "models": models,
    }
    print(f"SVM (hinge loss, alpha = {ALPHA:g}, {N_EPOCHS} epochs of SGD) with (x'y + 1)^2 "
          f"on the circle: {n_train} training, {n_test} test points\n")
    print(f"{'strategy':22s} {'space':>6s} {'train':>6s} {'test':>6s} {'objective':>10s} "
          f"{'max |f - f_gram|':>17s}")
    for s in STRATEGIES:
        space = "w" if results["representation"][s] == "primal" else "u"
        print(f"{s:22s} {space:>6s} {results['train_accuracy'][s]:6.3f} "
              f"{results['test_accuracy'][s]:6.3f} {results['objective'][s]:10.6f} "
              f"{results['max_difference'][s]:17.1e}")
    print(f"\nmax |w - Z'u| (primal coefficients against the dual ones mapped by Z): "
          f"{results['w_vs_Zu']:.1e}")
    return results


def plot(results):
    """Left: the four boundaries (one on top of the other); right: their differences."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.8), layout="constrained")
    ax, bars = fig.subplots(1, 2)
    X, y = results["X"], results["y"]
    g = np.linspace(-2.0, 2.0, 150)
    G1, G2 = np.meshgrid(g, g)
    grid = np.c_[G1.ravel(), G2.ravel()]
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=8)
    styles = ("-", "--", ":", "-.")
    colors = ("k", "tab:green", "tab:orange", "tab:purple")
    for s, ls, c in zip(results["strategies"], styles, colors):
        F = results["models"][s].decision_function(grid).reshape(G1.shape)
        ax.contour(G1, G2, F, levels=[0.0], colors=c, linestyles=ls)
        ax.plot([], [], color=c, ls=ls, label=f"{s} (test {results['test_accuracy'][s]:.3f})")
    ax.set_aspect("equal")
    ax.legend(loc="upper right", fontsize=7)
    ax.set_title("four strategies, one boundary")
    names = [s for s in results["strategies"] if s != "gram_cached"]
    diffs = [max(results["max_difference"][s], 1e-17) for s in names]
    bars.bar(range(len(names)), diffs, color=colors[:len(names)])
    for i, s in enumerate(names):  # a difference of exactly 0 has no bar on a log scale
        value = results["max_difference"][s]
        bars.text(i, max(value, 1e-17) * 2, "exactly 0" if value == 0 else f"{value:.1e}",
                  ha="center", fontsize=8)
    bars.set_yscale("log")
    bars.set_ylim(1e-17, 1e-6)
    bars.set_xticks(range(len(names)), [s.replace("_", "\n") for s in names], fontsize=8)
    bars.set_ylabel("max |f(x) - f_gram_cached(x)| on the test points")
    bars.set_title("the same model up to rounding")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The four strategies of the lectures.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="four_strategies.png", help="PNG file to write")
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
