"""
The potential-function method: the kernel perceptron as charges placed at mistakes
==================================================================================

Lecture: Learning with kernels -- the potential-function (Aizerman) view of
kernel classifiers (Aizerman, Braverman & Rozonoer 1964): the kernel perceptron,
f(x) = sum of charges k(x, x_i) placed at the mistakes, and Novikoff's bound.

Aizerman and colleagues pictured a classifier as an electric potential: every
training point that is misclassified when it is presented drops a charge
+-1 (its label) at its own position, and the potential of a charge at x_i
felt at x is k(x, x_i) -- for them exp(-||x - x_i||^2 / sigma), or any
"potential function". The classifier is the sign of the total potential

    f(x) = sum_i c_i y_i k(x, x_i),   c_i = number of mistakes made on x_i.

This is the perceptron in the feature space of k: w = sum_i c_i y_i phi(x_i),
updated by w <- w + y_i phi(x_i) on each mistake, written with kernel values
only. On data that a w with ||w|| = 1 separates with margin gamma in that space,
Novikoff's theorem bounds the number of mistakes by (R / gamma)^2,
R = max_i ||phi(x_i)|| = max_i sqrt(k(x_i, x_i)), whatever the order of the points.

The data: points of [-2, 2]^2 inside and outside the circle of radius 1.2 with
an empty band around it (separable by (x'y + 1)^2 and by the Gaussian
potential). For both kernels the script runs the kernel perceptron to
convergence, prints its mistakes next to the bound (gamma from the hard-margin
separator through the origin, solved in the dual), and checks that with the
polynomial kernel it makes exactly the mistakes of the perceptron on the
explicit features phi(x) (:class:`kernelkit.features.ExplicitFeatures`).
kernelkit has no perceptron estimator: the loop is written here.

Run: ``python examples/potential_function.py`` (about 2 seconds)
"""

import argparse

import numpy as np
from scipy.optimize import minimize

from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import RBF, Polynomial

KERNELS = {"gaussian potential": RBF(gamma=1.0),
           "polynomial (x'y + 1)^2": Polynomial(degree=2, gamma=1.0, coef0=1.0)}
RADIUS, GAP = 1.2, 0.15
MAX_EPOCHS = 1000


def circle_data(n, seed=0):
    """n points of [-2, 2]^2 outside the band RADIUS +- GAP; y = +1 inside, -1 outside."""
    rng = np.random.default_rng(seed)
    X = np.empty((0, 2))
    while len(X) < n:
        P = rng.uniform(-2.0, 2.0, size=(2 * n, 2))
        X = np.vstack([X, P[np.abs(np.linalg.norm(P, axis=1) - RADIUS) > GAP]])
    X = X[:n]
    return X, np.where(np.linalg.norm(X, axis=1) < RADIUS, 1.0, -1.0)


def kernel_perceptron(K, y, max_epochs=MAX_EPOCHS):
    """The perceptron in u-space: c_i += 1 when y_i f(x_i) <= 0, f = K (c * y).

    Presents the points in their order, epoch after epoch, until an epoch
    without mistakes. Returns (charges c, the indices of the mistakes in order,
    the steps at which they happened (0-based presentations), epochs run, converged).
    """
    n = len(y)
    charges = np.zeros(n)
    mistakes, steps = [], []
    for epoch in range(1, max_epochs + 1):
        clean = True
        for i in range(n):
            if y[i] * (K[i] @ (charges * y)) <= 0.0:
                charges[i] += 1.0
                mistakes.append(i)
                steps.append((epoch - 1) * n + i)
                clean = False
        if clean:
            return charges, mistakes, steps, epoch, True
    return charges, mistakes, steps, max_epochs, False


def primal_perceptron(Z, y, max_epochs=MAX_EPOCHS):
    """The same perceptron on explicit features: w += y_i z_i when y_i w'z_i <= 0."""
    w = np.zeros(Z.shape[1])
    mistakes = []
    for _ in range(max_epochs):
        clean = True
        for i in range(len(y)):
            if y[i] * (Z[i] @ w) <= 0.0:
                w += y[i] * Z[i]
                mistakes.append(i)
                clean = False
        if clean:
            break
    return w, mistakes


def hard_margin(K, y):
    """The margin gamma of the max-margin separator through the origin in feature space.

    Dual: max sum(a) - a'Qa/2 over a >= 0, Q = (y y') * K (L-BFGS-B); then
    w = sum_i a_i y_i phi(x_i) and gamma = min_i y_i f(x_i) / ||w|| -- a margin
    that w really has (valid for Novikoff's bound even if a is not quite optimal).
    """
    Q = (y[:, None] * y[None, :]) * K
    result = minimize(lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0), np.zeros(len(y)),
                      jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * len(y),
                      options={"maxiter": 10_000, "ftol": 1e-15, "gtol": 1e-10})
    a = result.x
    f = K @ (a * y)
    return float(np.min(y * f) / np.sqrt(a @ Q @ a))


def run(quick=False):
    """Run the kernel perceptron with both kernels; return mistakes, bounds and charges."""
    X, y = circle_data(80 if quick else 200)
    out = {"X": X, "y": y, "kernels": {}}
    print(f"circle data: {len(X)} points, separable with a band of half-width {GAP} around "
          f"the circle\n")
    print(f"{'kernel':24s} {'mistakes':>8s} {'epochs':>6s} {'charged points':>14s} "
          f"{'R':>6s} {'gamma':>8s} {'(R/gamma)^2':>11s}")
    for name, kernel in KERNELS.items():
        K = kernel(X, X)
        charges, mistakes, steps, epochs, converged = kernel_perceptron(K, y)
        R = float(np.sqrt(np.max(np.diag(K))))
        gamma = hard_margin(K, y)
        f = K @ (charges * y)
        out["kernels"][name] = {
            "kernel": kernel, "charges": charges, "mistakes": mistakes, "steps": steps,
            "epochs": epochs,
            "converged": converged, "R": R, "gamma": gamma, "bound": (R / gamma) ** 2,
            "train_accuracy": float(np.mean(np.sign(f) == y))}
        print(f"{name:24s} {len(mistakes):8d} {epochs:6d} {int(np.sum(charges > 0)):14d} "
              f"{R:6.2f} {gamma:8.4f} {(R / gamma) ** 2:11.0f}")
    poly = KERNELS["polynomial (x'y + 1)^2"]
    Z = ExplicitFeatures(poly).fit(X).transform(X)
    w, primal_mistakes = primal_perceptron(Z, y)
    dual = out["kernels"]["polynomial (x'y + 1)^2"]
    g = np.random.default_rng(1).uniform(-2, 2, size=(500, 2))
    f_dual = poly(g, X) @ (dual["charges"] * y)
    f_primal = ExplicitFeatures(poly).fit(X).transform(g) @ w
    out["primal"] = {"mistakes": primal_mistakes, "w": w,
                     "max_difference": float(np.max(np.abs(f_dual - f_primal)))}
    print(f"\npolynomial kernel: the perceptron on phi(x) (D = {Z.shape[1]}) makes "
          f"{'the same' if primal_mistakes == dual['mistakes'] else 'DIFFERENT'} "
          f"{len(primal_mistakes)} mistakes; max |f_kernel - f_phi| on 500 points: "
          f"{out['primal']['max_difference']:.1e}")
    return out


def plot(results):
    """The potentials with their charges (one panel per kernel) and the mistakes against time."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(15, 4.6), layout="constrained")
    axes = fig.subplots(1, 3)
    X, y = results["X"], results["y"]
    g = np.linspace(-2, 2, 120)
    G1, G2 = np.meshgrid(g, g)
    grid = np.c_[G1.ravel(), G2.ravel()]
    for ax, (name, r) in zip(axes[:2], results["kernels"].items()):
        F = (r["kernel"](grid, X) @ (r["charges"] * y)).reshape(G1.shape)
        top = np.max(np.abs(F))
        ax.contourf(G1, G2, F, levels=np.linspace(-top, top, 21), cmap="RdBu_r")
        ax.contour(G1, G2, F, levels=[0.0], colors="k")
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", s=6, edgecolors="0.3", linewidths=0.2)
        q = r["charges"] > 0
        ax.scatter(X[q, 0], X[q, 1], s=15 + 25 * r["charges"][q], facecolors="none",
                   edgecolors="k", label="charges (size: count)")
        ax.set_aspect("equal")
        ax.set_title(f"{name}: {len(r['mistakes'])} mistakes")
        ax.legend(loc="upper right", fontsize=7)
    ax = axes[2]
    for (name, r), color in zip(results["kernels"].items(), ("tab:blue", "tab:orange")):
        ax.step(np.r_[0, np.array(r["steps"]) + 1, r["epochs"] * len(y)],
                np.r_[0, np.arange(1, len(r["steps"]) + 1), len(r["steps"])], where="post",
                color=color, label=f"{name}: mistakes")
        ax.axhline(r["bound"], color=color, ls="--", label=f"(R/gamma)^2 = {r['bound']:.0f}")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel("points presented (epochs x n)")
    ax.set_ylabel("mistakes so far")
    ax.set_title("mistakes against Novikoff's bound")
    ax.legend(fontsize=7)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The potential-function method (Aizerman 1964).")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="potential_function.png", help="PNG file to write")
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
