"""
The hard-margin SVM
===================

Lecture: Support vector machines -- the hard-margin SVM in its normalised form,
min ||w||^2 / 2 s.t. y_i f(x_i) >= 1, its margin 1/||w|| and its support
vectors; and the soft margin's C -> inf limit.

On data that a hyperplane separates, the notes fix the scale of (w, b) by
asking y_i (w'x_i + b) >= 1 for every sample, with equality for the closest
ones: then the margin, the distance from the separating line to the closest
points, is 1/||w||, and maximising it is minimising ||w||^2 / 2. Its dual is
the soft margin's with C = inf (no upper bound on the alpha_i), and
||w||^2 = sum_i alpha_i at the optimum; the support vectors (alpha_i > 0) are
the points on the margin lines f(x) = +-1. :class:`kernelkit.models.KernelSVC`
with ``C=np.inf`` solves it by SMO with an unbounded box (and says so, with an
error, when the classes overlap: then no hard margin exists).

Two separable clouds in the plane, a linear kernel. The table goes from a soft
margin (C = 0.01, 0.1, 1) to the hard one: the margin 1/||w|| shrinks as C grows
(the soft margin lets points inside it) until no point is inside, where every
larger C -- and C = inf -- gives the hard-margin solution. The figure shows
the separating line f = 0, the margin lines f = +-1 and the circled support
vectors, for a soft and the hard margin; and an RBF hard margin on two classes
that only a curved boundary separates.

The regression twin is the hard epsilon-tube, ``KernelSVR(C=np.inf)``:
min ||w||^2 / 2 s.t. ``|f(x_i) - y_i| <= epsilon`` for every i, the kernel form of
the minimax (L-infinity) fit -- the notes' *brittle* regression: it bounds the
largest residual, so the fit must pass within epsilon of every point, a single
outlier included: one sample decides the fit around it (the last panel: the
same samples with and without one outlier).

Run: ``python examples/hard_margin.py`` (about 1 second)
"""

import argparse

import numpy as np

from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelSVC, KernelSVR

CS = (0.01, 0.1, 1.0, np.inf)
RBF_GAMMA = 0.5
TUBE_EPSILON = 0.3
TUBE_GAMMA = 4.0


def clouds(n=40, seed=0):
    """Two Gaussian clouds, separable by a line (labels -1/+1)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1, 1], n // 2)
    X = rng.normal(scale=0.7, size=(n, 2)) + np.where(y[:, None] > 0, [1.6, 1.2], [-1.6, -1.2])
    return X, y


def rings(n=60, seed=1):
    """An inner disc and an outer ring: separable by a curve only."""
    rng = np.random.default_rng(seed)
    radius = np.r_[rng.uniform(0.0, 1.0, n // 2), rng.uniform(2.0, 2.8, n // 2)]
    angle = rng.uniform(0.0, 2 * np.pi, n)
    return (np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]),
            np.repeat([1, -1], n // 2))


def wave(n=30, seed=2):
    """Samples of sin(x) on [0, 8] with small noise, and the index of the one outlier."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 8.0, size=n))
    return x[:, None], np.sin(x) + rng.uniform(-0.1, 0.1, size=n), n // 2


def tube_fits(quick=False):
    """The hard epsilon-tube on the wave with and without an outlier (+2.5 at one point)."""
    X, y, out = wave(20 if quick else 40)
    y_out = y.copy()
    y_out[out] += 2.5
    grid = np.linspace(0.0, 8.0, 200 if quick else 400)
    fits = {}
    for name, target in (("clean", y), ("one outlier", y_out)):
        model = KernelSVR(RBF(gamma=TUBE_GAMMA), C=np.inf, epsilon=TUBE_EPSILON,
                          tol=1e-6).fit(X, target)
        fits[name] = {"y": target, "train": model.predict(X),
                      "prediction": model.predict(grid[:, None]),
                      "max_residual": float(np.max(np.abs(model.predict(X) - target)))}
    moved = np.abs(fits["one outlier"]["prediction"] - fits["clean"]["prediction"])
    return {"X": X, "outlier": out, "grid": grid, "epsilon": TUBE_EPSILON,
            "gamma": TUBE_GAMMA, "fits": fits, "largest_move": float(moved.max())}


def linear_summary(model):
    """w, b, the margin 1/||w||, the support vectors and the training margins y f(x)."""
    w = (model.dual_coef_[0] @ model.support_vectors_).ravel()
    return {"w": w, "b": float(model.intercept_[0]),
            "margin": float(1.0 / np.linalg.norm(w)),
            "sum_alpha": float(np.abs(model.dual_coef_).sum()),
            "n_support": int(model.support_.size), "support": model.support_.copy()}


def run(quick=False):
    """Fit the soft margins and the hard one; return their margins and support vectors."""
    X, y = clouds(30 if quick else 60)
    fits = {}
    for C in CS:
        model = KernelSVC(Linear(), C=C, tol=1e-8).fit(X, y)
        summary = linear_summary(model)
        summary["inside"] = int(np.sum(y * model.decision_function(X) < 1 - 1e-6))
        fits[C] = summary
    Xr, yr = rings(40 if quick else 80)
    curved = KernelSVC(RBF(gamma=RBF_GAMMA), C=np.inf, tol=1e-8).fit(Xr, yr)
    print(f"linear kernel, {len(y)} points in two separable clouds\n")
    print(f"{'C':>6s} {'margin 1/||w||':>15s} {'sum alpha':>10s} {'||w||^2':>9s} "
          f"{'SVs':>4s} {'inside margin':>14s}")
    for C, fit in fits.items():
        print(f"{C:6g} {fit['margin']:15.5f} {fit['sum_alpha']:10.4f} "
              f"{fit['w'] @ fit['w']:9.4f} {fit['n_support']:4d} {fit['inside']:14d}")
    hard = fits[np.inf]
    print(f"\nhard margin: w = {np.round(hard['w'], 5)}, b = {hard['b']:.5f}; "
          f"||w||^2 = sum alpha: {hard['w'] @ hard['w']:.6f} = {hard['sum_alpha']:.6f}")
    print(f"RBF (gamma = {RBF_GAMMA:g}) hard margin on the rings: {curved.support_.size} "
          f"support vectors, min y f(x) = {np.min(yr * curved.decision_function(Xr)):.6f}")
    tube = tube_fits(quick)
    print(f"\nhard epsilon-tube (KernelSVR(C=inf), epsilon = {TUBE_EPSILON:g}): largest "
          f"|f(x_i) - y_i| {tube['fits']['clean']['max_residual']:.4f} (clean), "
          f"{tube['fits']['one outlier']['max_residual']:.4f} (one outlier); the outlier "
          f"moves the fit by up to {tube['largest_move']:.3f}")
    return {"X": X, "y": y, "Cs": CS, "fits": fits, "rings": (Xr, yr),
            "rbf_gamma": RBF_GAMMA, "rbf_support": curved.support_.copy(),
            "rbf_margins": yr * curved.decision_function(Xr), "rbf_model": curved,
            "tube": tube}


def _panel(ax, X, y, decision, support, title):
    lo, hi = X.min(axis=0) - 1.0, X.max(axis=0) + 1.0
    g0, g1 = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
    F = decision(np.column_stack([g0.ravel(), g1.ravel()])).reshape(g0.shape)
    ax.contourf(g0, g1, F, levels=[-1e9, -1, 0, 1, 1e9],
                colors=["#c6dbef", "#eaf2fa", "#fbe9e4", "#f6c3b3"])
    ax.contour(g0, g1, F, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"],
               linewidths=[1, 1.6, 1])
    ax.scatter(X[:, 0], X[:, 1], c=np.where(y > 0, "tab:red", "tab:blue"), s=14)
    ax.scatter(X[support, 0], X[support, 1], s=90, facecolors="none", edgecolors="k",
               label="support vectors")
    ax.set_title(title)
    ax.set_aspect("equal")


def plot(results):
    """A soft margin (C = 0.1), the hard margin, the RBF hard margin on the rings, and
    the hard epsilon-tube with and without an outlier."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(18, 4.8), layout="constrained")
    axes = fig.subplots(1, 4)
    X, y = results["X"], results["y"]
    for ax, C in zip(axes[:2], (0.1, np.inf)):
        fit = results["fits"][C]
        name = "hard margin (C = inf)" if np.isinf(C) else f"soft margin (C = {C:g})"
        _panel(ax, X, y, lambda P, fit=fit: P @ fit["w"] + fit["b"], fit["support"],
               f"{name}: margin 1/||w|| = {fit['margin']:.3f}")
    Xr, yr = results["rings"]
    _panel(axes[2], Xr, yr, results["rbf_model"].decision_function, results["rbf_support"],
           f"RBF hard margin (gamma = {results['rbf_gamma']:g})")
    axes[0].legend(fontsize=8, loc="lower right")
    tube, ax = results["tube"], axes[3]
    x = tube["X"][:, 0]
    for (name, fit), color in zip(tube["fits"].items(), ("tab:green", "tab:purple")):
        ax.fill_between(tube["grid"], fit["prediction"] - tube["epsilon"],
                        fit["prediction"] + tube["epsilon"], color=color, alpha=0.15)
        ax.plot(tube["grid"], fit["prediction"], color=color, lw=1.8, label=f"tube: {name}")
    ax.plot(x, tube["fits"]["clean"]["y"], ".", color="0.3", ms=5, label="data")
    ax.plot(x[tube["outlier"]], tube["fits"]["one outlier"]["y"][tube["outlier"]], "x",
            color="tab:red", ms=9, label="the outlier")
    ax.set_title(f"hard epsilon-tube (SVR, C = inf, epsilon = {tube['epsilon']:g})")
    ax.set_xlabel("x")
    ax.legend(fontsize=8, loc="lower left")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The hard-margin SVM and its margin.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="hard_margin.png", help="PNG file to write")
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
