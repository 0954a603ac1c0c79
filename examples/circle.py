"""
The circle: a degree-2 kernel separates what a linear SVM cannot
================================================================

Lecture: Kernels and feature maps -- the circle example (points inside and
outside a circle; the degree-2 feature map in which the boundary is a plane).

Points of the square [-2, 2]^2 are labelled by whether they lie inside the
circle of radius 1.2 (a thin empty band of width 0.2 around the circle gives
the two classes a margin). No straight line separates them: a linear SVM can do
little better than saying "outside" everywhere. The homogeneous polynomial
kernel of degree 2,

    k(x, y) = (x'y)^2 = phi(x)'phi(y),   phi(x) = (x1^2, sqrt(2) x1 x2, x2^2),

is the inner product of an explicit 3-D feature map: in that space the circle
x1^2 + x2^2 = r^2 is the plane phi_1 + phi_3 = r^2, and an SVM with this kernel
(the plane plus its offset b) classifies every test point correctly.

The script prints the accuracies of the linear and the polynomial SVM, checks
k(x, y) = phi(x)'phi(y) on the data, fits the same SVM as a *linear* SVM on
phi(x) (same decision values), and draws the two boundaries in the plane and
the separating plane in the feature space.

Run: ``python examples/circle.py`` (about 2 seconds)
"""

import argparse

import numpy as np

from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import Linear, Polynomial
from kernelkit.models import KernelSVC

RADIUS, GAP, SIDE = 1.2, 0.1, 2.0
KERNEL = Polynomial(degree=2, gamma=1.0, coef0=0.0)  # (x'y)^2
C = 10.0


def circle_data(n, seed):
    """n points uniform in [-SIDE, SIDE]^2 outside the band RADIUS +- GAP; y = +1 inside."""
    rng = np.random.default_rng(seed)
    X = np.empty((0, 2))
    while len(X) < n:
        P = rng.uniform(-SIDE, SIDE, size=(2 * n, 2))
        r = np.linalg.norm(P, axis=1)
        X = np.vstack([X, P[np.abs(r - RADIUS) > GAP]])
    X = X[:n]
    y = np.where(np.linalg.norm(X, axis=1) < RADIUS, 1, -1)
    return X, y


def phi(X):
    """The explicit degree-2 feature map (x1^2, sqrt(2) x1 x2, x2^2) of (x'y)^2."""
    X = np.asarray(X, dtype=np.float64)
    return np.column_stack([X[:, 0] ** 2, np.sqrt(2.0) * X[:, 0] * X[:, 1], X[:, 1] ** 2])


def run(quick=False):
    """Fit the linear and the degree-2 SVM on the circle data; return their numbers."""
    n_train, n_test = (200, 500) if quick else (500, 2000)
    X, y = circle_data(n_train, seed=0)
    X_test, y_test = circle_data(n_test, seed=1)

    linear = KernelSVC(kernel=Linear(), C=C).fit(X, y)
    poly = KernelSVC(kernel=KERNEL, C=C, tol=1e-6).fit(X, y)
    # the same SVM written in the feature space: a linear SVM on phi(x)
    plane = KernelSVC(kernel=Linear(), C=C, tol=1e-6).fit(phi(X), y)

    K = KERNEL(X[:50], X[:50])
    P = phi(X[:50])
    results = {
        "n_train": n_train, "n_test": n_test,
        "inside_share": float(np.mean(y_test == 1)),
        "linear_train": float(linear.score(X, y)), "linear_test": float(linear.score(X_test, y_test)),
        "poly_train": float(poly.score(X, y)), "poly_test": float(poly.score(X_test, y_test)),
        "kernel_vs_phi": float(np.max(np.abs(K - P @ P.T))),
        "phi_vs_explicit_features": float(np.max(np.abs(
            ExplicitFeatures(KERNEL).fit(X).transform(X[:50]) - P))),
        "decision_poly_vs_plane": float(np.max(np.abs(
            poly.decision_function(X_test) - plane.decision_function(phi(X_test))))),
        "plane_w": plane.coef_[0].copy(), "plane_b": float(plane.intercept_[0]),
        "X": X, "y": y, "X_test": X_test, "y_test": y_test,
        "linear_model": linear, "poly_model": poly,
    }
    print(f"circle of radius {RADIUS} in [-{SIDE:g}, {SIDE:g}]^2: {n_train} training and "
          f"{n_test} test points ({results['inside_share']:.1%} of the test points inside)\n")
    print(f"{'SVM (C = 10)':34s} {'train':>6s} {'test':>6s}")
    for key, name in (("linear", "linear kernel x'y"), ("poly", "polynomial kernel (x'y)^2")):
        print(f"{name:34s} {results[key + '_train']:6.3f} {results[key + '_test']:6.3f}")
    w, b = results["plane_w"], results["plane_b"]
    w, b = w / (-0.5 * (w[0] + w[2])), b / (-0.5 * (w[0] + w[2]))  # scaled: phi1 + phi3 near 1
    print(f"\nmax |k(x, y) - phi(x)'phi(y)| over 50 x 50 pairs: {results['kernel_vs_phi']:.1e}")
    print(f"the SVM's plane in phi-space: {-w[0]:.3f} phi1 {-w[1]:+.3f} phi2 {-w[2]:+.3f} phi3 "
          f"= {b:.3f}  (the circle: phi1 + phi3 = {RADIUS ** 2:.2f})")
    print(f"max |decision values of the kernel SVM - the linear SVM on phi|: "
          f"{results['decision_poly_vs_plane']:.1e}")
    return results


def plot(results):
    """Left: the data and both boundaries; right: phi(x) in 3-D with the separating plane."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 5), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    X, y = results["X"], results["y"]
    g = np.linspace(-2.0, 2.0, 200)
    G1, G2 = np.meshgrid(g, g)
    grid = np.c_[G1.ravel(), G2.ravel()]
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=10)
    for key, color, name in (("linear", "k", "linear x'y"), ("poly", "g", "(x'y)^2")):
        F = results[f"{key}_model"].decision_function(grid).reshape(G1.shape)
        ax.contour(G1, G2, F, levels=[0.0], colors=color)
        ax.plot([], [], color=color, label=f"{name}: test accuracy {results[key + '_test']:.3f}")
    # (the linear SVM's line may lie outside the square: it says "outside" everywhere)
    ax.set_aspect("equal")
    ax.set_xlim(-2, 2)
    ax.set_ylim(-2, 2)
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title("input space: the boundaries")

    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    P = phi(X)
    ax3.scatter(P[:, 0], P[:, 1], P[:, 2], c=y, cmap="coolwarm", s=6)
    w, b = results["plane_w"], results["plane_b"]
    a, c = np.meshgrid(np.linspace(0, 4, 10), np.linspace(-5.7, 5.7, 10))
    height = -(w[0] * a + w[1] * c + b) / w[2]
    height[(height < 0) | (height > 4)] = np.nan  # the part of the plane inside the box
    ax3.plot_surface(a, c, height, alpha=0.3, color="g")
    ax3.set_zlim(0, 4)
    ax3.set_xlabel("x1^2")
    ax3.set_ylabel("sqrt(2) x1 x2")
    ax3.set_zlabel("x2^2")
    ax3.set_title("feature space: the boundary is a plane")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The circle example of the lectures.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="circle.png", help="PNG file to write")
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
