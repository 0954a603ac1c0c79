"""
Logistic regression's decision boundaries with linear, polynomial and RBF kernels
=================================================================================

Lecture: Learning with kernels -- logistic regression's decision boundaries
with kernels (linear, polynomial and Gaussian).

L2-penalised logistic regression, (1/2)||f||^2 + C sum_i log(1 + exp(-y_i f(x_i))),
is a linear model; by the representer theorem its minimiser in the feature space
of a kernel is f(x) = sum_j u_j k(x, x_j), so the same model is learnt with any
kernel through K alone (:class:`kernelkit.models.KernelLogisticRegression`).
The kernel decides the shape of the boundary {x : P(y = 1 | x) = 1/2}:

* ``x'y + 1`` (linear, the constant giving a penalised intercept): a straight line;
* ``(x'y + 1)^3`` (polynomial): a cubic curve -- the same as logistic regression
  on the ten monomials of degree <= 3, suitably weighted;
* ``exp(-||x - y||^2)`` (RBF): any shape the data ask for.

On the bundled banana data (two interleaved classes, standardised), C = 1,
the script prints the train and test accuracy and log-loss of each and draws
the probability P(y = 1 | x) with its 1/2 contour.

Run: ``python examples/logistic_boundaries.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF, Constant, Linear, Polynomial
from kernelkit.models import KernelLogisticRegression

C = 1.0
KERNELS = {
    "linear": Linear() + Constant(1.0),
    "polynomial": Polynomial(degree=3, gamma=1.0, coef0=1.0),
    "rbf": RBF(gamma=1.0),
}
LABELS = {"linear": "linear x'y + 1", "polynomial": "polynomial (x'y + 1)^3",
          "rbf": "RBF exp(-||x - y||^2)"}


def banana_split(n_train, n_test=1000, seed=0):
    """Standardised banana data: (X_train, y_train, X_test, y_test)."""
    X, y = load_banana(return_X_y=True)
    perm = np.random.default_rng(seed).permutation(len(X))
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    return (X[train] - mu) / sd, y[train], (X[test] - mu) / sd, y[test]


def log_loss(model, X, y):
    proba = model.predict_proba(X)
    p_true = proba[np.arange(len(y)), np.searchsorted(model.classes_, y)]
    return float(-np.mean(np.log(np.clip(p_true, 1e-300, None))))


def run(quick=False):
    """Fit kernel logistic regression with each kernel; return scores and the models."""
    X, y, X_test, y_test = banana_split(150 if quick else 600)
    models, rows = {}, {}
    for name, kernel in KERNELS.items():
        models[name] = model = KernelLogisticRegression(kernel, C=C).fit(X, y)
        rows[name] = {"train_accuracy": float(model.score(X, y)),
                      "test_accuracy": float(model.score(X_test, y_test)),
                      "train_log_loss": log_loss(model, X, y),
                      "test_log_loss": log_loss(model, X_test, y_test)}
    print(f"kernel logistic regression, C = {C:g}, banana: {len(X)} training and "
          f"{len(X_test)} test points\n")
    print(f"{'kernel':28s} {'train acc':>9s} {'test acc':>9s} {'train loss':>10s} "
          f"{'test loss':>10s}")
    for name, r in rows.items():
        print(f"{LABELS[name]:28s} {r['train_accuracy']:9.3f} "
              f"{r['test_accuracy']:9.3f} {r['train_log_loss']:10.3f} {r['test_log_loss']:10.3f}")
    return {"C": C, "rows": rows, "models": models, "X": X, "y": y, "X_test": X_test,
            "y_test": y_test}


def plot(results):
    """P(y = 1 | x) of each kernel's model with its 1/2 contour and the training points."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4.5), layout="constrained")
    X, y = results["X"], results["y"]
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    G1, G2 = np.meshgrid(np.linspace(lo[0], hi[0], 150), np.linspace(lo[1], hi[1], 150))
    grid = np.c_[G1.ravel(), G2.ravel()]
    for ax, (name, model) in zip(fig.subplots(1, 3, sharey=True), results["models"].items()):
        positive = list(model.classes_).index(1)
        P = model.predict_proba(grid)[:, positive].reshape(G1.shape)
        image = ax.contourf(G1, G2, P, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.8)
        ax.contour(G1, G2, P, levels=[0.5], colors="k")
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", linewidths=0.3, s=12)
        r = results["rows"][name]
        ax.set_title(f"{LABELS[name]}: test accuracy {r['test_accuracy']:.3f}")
        ax.set_xlabel("x1")
    fig.colorbar(image, ax=fig.axes, label="P(y = 1 | x)", shrink=0.8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel logistic regression's boundaries.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="logistic_boundaries.png", help="PNG file to write")
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
