"""
Neighbours in feature space: k-NN and the most similar items through a kernel
=============================================================================

Lecture: Kernels as similarities -- distances in feature space from kernel
values, kernel k-nearest neighbours (classification and regression) and the
nearest items to a query.

A kernel is an inner product in a feature space, so it gives distances there
without ever computing phi:

    ||phi(x) - phi(z)||^2 = k(x, x) - 2 k(x, z) + k(z, z).

:func:`kernelkit.solvers.sq_distances` evaluates this formula (clamped at 0);
for the homogeneous quadratic kernel (x'z)^2 on the plane, whose feature map
phi(x) = (x1^2, sqrt(2) x1 x2, x2^2) is explicit, it matches the distance of
the mapped points. Any algorithm that only needs distances can then run in
feature space:

1. **Classification** (:class:`kernelkit.models.KernelKNeighborsClassifier`)
   on the bundled banana data: the linear kernel gives back Euclidean k-NN
   (scikit-learn's ``KNeighborsClassifier``); the Laplacian kernel
   exp(-gamma ||x - z||_1) is a decreasing function of the L1 distance, so
   its neighbours are scikit-learn's ``metric="manhattan"`` ones; the
   quadratic kernel's are neither (it cannot tell x from -x, and loses). On
   strings, the weighted-degree kernel (k-mers matched at the same position)
   makes k-NN a splice-junction detector on the bundled DNA sequences -- no
   vectors in sight (the support vector machine of the ``dna_splice`` example
   does better, at >= 0.95).
2. **Regression** (:class:`kernelkit.models.KernelKNeighborsRegressor`) of a
   noisy sine: the mean (or 1/distance-weighted mean) of the k nearest
   targets; small k follows the noise, large k flattens the curve.
3. **The nearest items** (:func:`kernelkit.models.most_similar`): the
   training sequences most similar to a test sequence by the normalised
   kernel k(s, t) / sqrt(k(s, s) k(t, t)), with their labels.

Run: ``python examples/neighbours_in_feature_space.py`` (about 20 seconds)
"""

import argparse

import numpy as np
from sklearn.neighbors import KNeighborsClassifier

from kernelkit.datasets import load_banana, load_dna_splice
from kernelkit.kernels import RBF, Laplacian, Linear, Polynomial, WeightedDegree
from kernelkit.models import (
    KernelKNeighborsClassifier,
    KernelKNeighborsRegressor,
    most_similar,
)
from kernelkit.solvers import sq_distances

QUADRATIC = Polynomial(degree=2, gamma=1.0, coef0=0.0)
LAPLACIAN = Laplacian(gamma=0.5)
BANANA_KS = (1, 5, 15, 45)
REGRESSION_KS = (1, 5, 25)
DNA_KS = (1, 5, 15, 45)
DNA_KERNEL = WeightedDegree(degree=3)


def quadratic_map(X):
    """The explicit feature map of (x'z)^2 on the plane: (x1^2, sqrt(2) x1 x2, x2^2)."""
    X = np.asarray(X, dtype=np.float64)
    return np.column_stack([X[:, 0] ** 2, np.sqrt(2.0) * X[:, 0] * X[:, 1], X[:, 1] ** 2])


def feature_space_sq_distances(kernel, A, B):
    """sq_distances of the rows of A to the rows of B under ``kernel``."""
    return sq_distances(kernel, A, kernel.diag(A), B, kernel.diag(B))


def banana(quick):
    """Test accuracy of k-NN: scikit-learn Euclidean and Manhattan, and kernel k-NN."""
    X, y = load_banana(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    n_train, n_test = (800, 800) if quick else (3000, 2300)
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    rows = []
    for k in BANANA_KS:
        row = {"k": k}
        for name, metric in (("sklearn_euclidean", "euclidean"),
                             ("sklearn_manhattan", "manhattan")):
            ref = KNeighborsClassifier(k, metric=metric).fit(X[train], y[train])
            row[name] = ref.predict(X[test])
        for name, kernel in (("linear", Linear()), ("laplacian", LAPLACIAN),
                             ("quadratic", QUADRATIC)):
            knn = KernelKNeighborsClassifier(k, kernel=kernel).fit(X[train], y[train])
            row[name] = knn.predict(X[test])
        rows.append(row)
    return X[train], y[train], X[test], y[test], rows


def regression(quick):
    """Kernel k-NN regression of a noisy sine on [0, 2 pi] (RBF kernel), on a grid."""
    rng = np.random.default_rng(1)
    n = 150 if quick else 400
    x = np.sort(rng.uniform(0.0, 2 * np.pi, n))[:, None]
    y = np.sin(x[:, 0]) + 0.3 * rng.normal(size=n)
    grid = np.linspace(0.0, 2 * np.pi, 300)[:, None]
    curves = {}
    for k in REGRESSION_KS:
        for weights in ("uniform", "distance"):
            model = KernelKNeighborsRegressor(k, weights=weights, kernel=RBF(gamma=0.5))
            curves[k, weights] = model.fit(x, y).predict(grid)
    return x, y, grid, curves


def dna(quick):
    """Splice junctions by k-NN in the weighted-degree kernel's feature space; the training
    sequences nearest to the first test sequence."""
    texts, labels = load_dna_splice(return_X_y=True)
    texts = np.array([str(t) for t in texts], dtype=object)
    perm = np.random.default_rng(2).permutation(len(texts))
    n_train, n_test = (600, 300) if quick else (2186, 1000)
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    accuracy = {}
    for k in DNA_KS:
        knn = KernelKNeighborsClassifier(k, kernel=DNA_KERNEL).fit(list(texts[train]),
                                                                  labels[train])
        accuracy[k] = float(knn.score(list(texts[test]), labels[test]))
    query = texts[test[0]]
    sim, idx = most_similar(list(texts[train]), [query], k=5, kernel=DNA_KERNEL)
    return {"items": list(texts[train]), "item_labels": labels[train], "accuracy": accuracy,
            "majority": float(np.mean(labels[test] == "N")), "query": query,
            "query_label": labels[test[0]], "similarity": sim[0], "nearest": idx[0]}


def run(quick=False):
    """Feature-space distances, k-NN on banana, k-NN regression, DNA k-NN and most_similar."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(6, 2)), rng.normal(size=(5, 2))
    D_kernel = feature_space_sq_distances(QUADRATIC, A, B)
    PA, PB = quadratic_map(A), quadratic_map(B)
    D_map = ((PA[:, None, :] - PB[None, :, :]) ** 2).sum(axis=2)
    print("||phi(x) - phi(z)||^2 of (x'z)^2 from kernel values against the explicit map: "
          f"max difference {np.abs(D_kernel - D_map).max():.1e}")

    Xtr, ytr, Xte, yte, rows = banana(quick)
    print(f"\nbanana, {len(Xtr)} training / {len(Xte)} test points: test accuracy "
          "(agreement with scikit-learn in brackets)")
    print(f"{'k':>3s} {'sklearn L2':>10s} {'linear':>14s} {'sklearn L1':>10s} "
          f"{'laplacian':>14s} {'quadratic':>10s}")
    for r in rows:
        acc = {name: float(np.mean(r[name] == yte)) for name in r if name != "k"}
        lin = np.mean(r["linear"] == r["sklearn_euclidean"])
        lap = np.mean(r["laplacian"] == r["sklearn_manhattan"])
        print(f"{r['k']:>3d} {acc['sklearn_euclidean']:10.3f} {acc['linear']:7.3f} ({lin:4.0%})"
              f" {acc['sklearn_manhattan']:10.3f} {acc['laplacian']:7.3f} ({lap:4.0%})"
              f" {acc['quadratic']:10.3f}")

    x, y, grid, curves = regression(quick)
    truth = np.sin(grid[:, 0])
    print(f"\nk-NN regression of sin(x) + noise (n = {len(x)}, RBF kernel): "
          "RMSE to sin on a grid")
    for k in REGRESSION_KS:
        print(f"  k = {k:2d}: uniform {np.sqrt(np.mean((curves[k, 'uniform'] - truth) ** 2)):.3f}"
              f", 1/distance {np.sqrt(np.mean((curves[k, 'distance'] - truth) ** 2)):.3f}")

    seq = dna(quick)
    print(f"\nDNA splice junctions, weighted-degree kernel (degree 3), {len(seq['items'])} "
          f"training sequences (always 'N' scores {seq['majority']:.3f}): test accuracy")
    for k, acc in seq["accuracy"].items():
        print(f"  k = {k:2d}: {acc:.3f}")
    print(f"\nthe training sequences most similar to a test sequence [{seq['query_label']}]:")
    print(f"        {seq['query']}")
    for s, i in zip(seq["similarity"], seq["nearest"]):
        print(f"  {s:.3f} {seq['items'][i]} [{seq['item_labels'][i]}]")
    return {"A": A, "B": B, "D_kernel": D_kernel, "D_map": D_map,
            "banana": {"X_train": Xtr, "y_train": ytr, "X_test": Xte, "y_test": yte,
                       "rows": rows},
            "regression": {"x": x, "y": y, "grid": grid, "curves": curves}, "dna": seq}


def plot(results):
    """Banana accuracy against k; the k-NN regression curves; DNA accuracy against k."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4.2), layout="constrained")
    ax_banana, ax_reg, ax_dna = fig.subplots(1, 3)
    b = results["banana"]
    ks = [r["k"] for r in b["rows"]]
    for name, style in (("sklearn_euclidean", "k--"), ("linear", "o"),
                        ("sklearn_manhattan", "k:"), ("laplacian", "s"), ("quadratic", "^-")):
        ax_banana.plot(ks, [np.mean(r[name] == b["y_test"]) for r in b["rows"]], style,
                       mfc="none", label=name)
    ax_banana.set_xscale("log")
    ax_banana.set_xlabel("k neighbours")
    ax_banana.set_ylabel("test accuracy")
    ax_banana.set_title("banana: k-NN in feature space")
    ax_banana.legend(fontsize=8)
    r = results["regression"]
    ax_reg.plot(r["x"][:, 0], r["y"], ".", color="0.7", label="data")
    ax_reg.plot(r["grid"][:, 0], np.sin(r["grid"][:, 0]), "k--", label="sin x")
    for k in REGRESSION_KS:
        ax_reg.plot(r["grid"][:, 0], r["curves"][k, "uniform"], label=f"k = {k}")
    ax_reg.set_xlabel("x")
    ax_reg.set_title("kernel k-NN regression")
    ax_reg.legend(fontsize=8)
    acc = results["dna"]["accuracy"]
    ax_dna.bar([str(k) for k in acc], list(acc.values()))
    ax_dna.axhline(results["dna"]["majority"], color="k", ls="--", label="always 'N'")
    ax_dna.set_ylim(0.0, 1.0)
    ax_dna.set_xlabel("k neighbours")
    ax_dna.set_ylabel("test accuracy")
    ax_dna.set_title("DNA splice junctions: weighted-degree k-NN")
    ax_dna.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="k-NN and most_similar in feature space.")
    parser.add_argument("--quick", action="store_true", help="smaller data (a test run)")
    parser.add_argument("--out", default="neighbours_in_feature_space.png",
                        help="PNG file to write")
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
