"""
Distance methods in feature space: kernel hierarchical and density-based clustering
===================================================================================

Lecture: Kernels -- the distance methods (k-NN, k-means, outliers, density-based
and hierarchical clustering, recommendation): every method that only needs
distances runs in feature space through d(x, y)^2 = k(x,x) + k(y,y) - 2 k(x,y).

Hierarchical clustering with Ward's or average linkage merges, in input space,
whatever is close on average: two concentric rings become two half-moons, two
interleaved moons are cut across. In the feature space of an RBF kernel, the
distance saturates at sqrt(2) beyond the kernel's width, so only the local
structure counts, and the same linkages find the rings and the moons (Ward's
linkage stays exact there: the feature space is Euclidean, so the
Lance-Williams update of the distances is Ward's method on phi(x)).

DBSCAN is already local, and with RBF nothing changes: the feature distance is
an increasing function of the Euclidean one, so kernel DBSCAN at radius eps is
Euclidean DBSCAN at radius sqrt(-ln(1 - eps^2 / 2) / gamma) -- the same labels.
A kernel changes DBSCAN when it changes what "near" means: three rays from the
origin, points dense near it and sparse far out, defeat Euclidean DBSCAN at
every radius (the rays touch near the origin, their far points are isolated),
while the normalised linear kernel k(x, y) = x'y / (``|x|`` ``|y|``), whose feature
distance depends on the angle only, makes each ray one tight cluster.

The script prints the adjusted Rand index of every method against the true
groups and draws the six partitions.

Run: ``python examples/kernel_clustering.py`` (about 3 seconds)
"""

import argparse

import numpy as np
from sklearn.cluster import DBSCAN, AgglomerativeClustering
from sklearn.datasets import make_moons
from sklearn.metrics import adjusted_rand_score

from kernelkit.kernels import RBF, Composed, Linear
from kernelkit.models import KernelAgglomerativeClustering, KernelDBSCAN

#: RBF widths: about the spacing of the points, well below the distance of the groups.
RINGS_GAMMA, MOONS_GAMMA = 1.0, 8.0
#: Kernel DBSCAN on the rays: radius in the normalised kernel's feature space.
RAYS_EPS, RAYS_MIN_SAMPLES = 0.1, 5


def two_rings(n=150, noise=0.08, seed=0):
    """Rings of radius 1 and 3, n points each, Gaussian noise; labels 0 (inner), 1."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, size=2 * n)
    r = np.r_[np.ones(n), 3 * np.ones(n)]
    X = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=noise, size=(2 * n, 2))
    return X, np.repeat([0, 1], n)


def rays(n=100, angles=(0.3, 0.9, 1.5), seed=0):
    """Points along rays from the origin: angle +- 0.03, radius log-uniform in [0.1, 5]."""
    rng = np.random.default_rng(seed)
    theta = np.concatenate([a + rng.normal(scale=0.03, size=n) for a in angles])
    r = np.exp(rng.uniform(np.log(0.1), np.log(5.0), size=theta.size))
    return np.c_[r * np.cos(theta), r * np.sin(theta)], np.repeat(np.arange(len(angles)), n)


def unit_rows(X):
    """x / |x|: the feature map of the normalised linear kernel x'y / (|x| |y|)."""
    return X / np.linalg.norm(X, axis=1, keepdims=True)


#: The normalised (cosine) linear kernel.
COSINE = Composed(Linear(), unit_rows)


def euclidean_dbscan_grid(quick):
    """(eps, min_samples) pairs tried for Euclidean DBSCAN on the rays."""
    eps = np.geomspace(0.01, 2.0, 15 if quick else 60)
    return [(float(e), m) for e in eps for m in ((2, 5, 12) if quick else (2, 3, 5, 8, 12))]


def run(quick=False):
    """Cluster the rings, the moons and the rays in input space and in feature space."""
    X_rings, y_rings = two_rings()
    X_moons, y_moons = make_moons(300, noise=0.06, random_state=0)
    X_rays, y_rays = rays()
    res = {"rings_X": X_rings, "rings_y": y_rings, "moons_X": X_moons, "moons_y": y_moons,
           "rays_X": X_rays, "rays_y": y_rays, "labels": {}, "ari": {}}

    def record(key, truth, labels):
        res["labels"][key] = np.asarray(labels)
        res["ari"][key] = float(adjusted_rand_score(truth, labels))

    for name, X, y, gamma in (("rings", X_rings, y_rings, RINGS_GAMMA),
                              ("moons", X_moons, y_moons, MOONS_GAMMA)):
        for linkage in ("ward", "average"):
            record(f"{name} {linkage} euclidean", y,
                   AgglomerativeClustering(2, linkage=linkage).fit_predict(X))
            record(f"{name} {linkage} kernel", y,
                   KernelAgglomerativeClustering(2, kernel=RBF(gamma=gamma),
                                                 linkage=linkage).fit_predict(X))
    # Euclidean DBSCAN on the rays at its best radius and min_samples
    best = max((adjusted_rand_score(y_rays, DBSCAN(eps=e, min_samples=m).fit_predict(X_rays)),
                e, m) for e, m in euclidean_dbscan_grid(quick))
    res["rays_best_euclidean_eps"], res["rays_best_euclidean_min_samples"] = best[1], best[2]
    record("rays dbscan euclidean", y_rays,
           DBSCAN(eps=best[1], min_samples=best[2]).fit_predict(X_rays))
    record("rays dbscan kernel", y_rays,
           KernelDBSCAN(RAYS_EPS, min_samples=RAYS_MIN_SAMPLES, kernel=COSINE).fit_predict(X_rays))
    # RBF kernel DBSCAN is Euclidean DBSCAN at the radius that maps to eps
    eps, gamma = 0.3, MOONS_GAMMA
    res["rbf_dbscan"] = KernelDBSCAN(eps, min_samples=5, kernel=RBF(gamma=gamma)).fit_predict(
        X_moons)
    res["rbf_dbscan_eps"], res["rbf_dbscan_gamma"] = eps, gamma
    res["rbf_dbscan_euclidean_eps"] = float(np.sqrt(-np.log(1 - eps ** 2 / 2) / gamma))

    print(f"{'adjusted Rand index':38s} {'Euclidean':>10s} {'kernel':>10s}")
    for name, kernel in (("rings", f"RBF(gamma={RINGS_GAMMA:g})"),
                         ("moons", f"RBF(gamma={MOONS_GAMMA:g})")):
        for linkage in ("ward", "average"):
            print(f"{name + ', ' + linkage + ' linkage, ' + kernel:38s} "
                  f"{res['ari'][f'{name} {linkage} euclidean']:10.3f} "
                  f"{res['ari'][f'{name} {linkage} kernel']:10.3f}")
    print(f"{'rays, DBSCAN, cosine kernel':38s} {res['ari']['rays dbscan euclidean']:10.3f} "
          f"{res['ari']['rays dbscan kernel']:10.3f}")
    print(f"\n(Euclidean DBSCAN at its best of {len(euclidean_dbscan_grid(quick))} settings: "
          f"eps = {best[1]:.3g}, min_samples = {best[2]})")
    print(f"RBF kernel DBSCAN at eps = {eps} is Euclidean DBSCAN at eps = "
          f"sqrt(-ln(1 - eps^2/2) / gamma) = {res['rbf_dbscan_euclidean_eps']:.4f}")
    return res


def plot(results):
    """Six panels: input space above, feature space below (ARI in each title)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 7.5), layout="constrained")
    axes = fig.subplots(2, 3)
    panels = (("rings", "rings ward", "Ward"), ("moons", "moons average", "average linkage"),
              ("rays", "rays dbscan", "DBSCAN"))
    for col, (data, key, method) in enumerate(panels):
        X = results[f"{data}_X"]
        for row, (space, where) in enumerate((("euclidean", "Euclidean"),
                                              ("kernel", "feature space"))):
            ax = axes[row, col]
            labels = results["labels"][f"{key} {space}"]
            ax.scatter(X[:, 0], X[:, 1], c=labels, s=7, cmap="tab10", vmin=-1, vmax=9)
            ax.set_title(f"{method}, {where}: ARI {results['ari'][f'{key} {space}']:.2f}",
                         fontsize=10)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel hierarchical and density-based "
                                     "clustering against their Euclidean versions.")
    parser.add_argument("--quick", action="store_true", help="a smaller DBSCAN grid")
    parser.add_argument("--out", default="kernel_clustering.png", help="PNG file to write")
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
