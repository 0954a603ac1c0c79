"""
Beyond one machine: the Gram matrix, kernel k-means and kernel ridge on Dask
============================================================================

Lecture: Large-scale kernel methods -- the Gram matrix as a lazy Dask array of
blocks, kernel k-means on a cluster, and kernel ridge on a cluster in one pass.

When the rows do not fit one machine, the notes split X into row chunks
X_1, ..., X_b and write every computation as a sum over chunks: the Gram
matrix is a b x b grid of blocks K(X_i, X_j), each computed where its chunks
live; Lloyd's statistics (counts and sums of features per cluster) and the
normal equations Z'Z, Z'y are sums of per-chunk pieces, tree-summed to the
client. :mod:`kernelkit.dask` does this with Dask. The same code runs on a
cluster (``est.client = Client(...)``) or, as here, on Dask's local threaded
scheduler -- no cluster needed to follow the example. Three parts:

1. :func:`kernelkit.dask.gram`: the lazy Gram matrix of a chunked X, its block
   grid, and the row means of K (a kernel density estimate) computed block by
   block, equal to the in-memory :func:`kernelkit.gram`.
2. :class:`kernelkit.dask.DaskKernelKMeans` on three Gaussian blobs: Lloyd's
   iterations on Nystroem features with the statistics summed over chunks --
   the same clusters as scikit-learn's ``KMeans`` on the same features from
   the same start (kernel k-means in memory, on rings, is the
   ``clustering_rings`` example).
3. :class:`kernelkit.dask.DaskKernelRidge`: ``solver="features"`` forms
   Z'Z and Z'y in one pass over the chunks (the same weights as scikit-learn's
   ``Ridge`` on the Nystroem features), and ``solver="falkon"`` runs Falkon's
   iterations with K_nM products summed over chunks (the same coefficients as
   the in-memory :class:`kernelkit.KernelRidge` with ``solver="falkon"``).

Run: ``python examples/beyond_one_machine.py`` (about 15 seconds)
"""

import argparse

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

import kernelkit
from kernelkit.kernels import RBF

KERNEL = RBF(gamma=0.3)
RIDGE_KERNEL = RBF(gamma=0.3)


def blobs(n, seed=0):
    """Three unit Gaussian blobs centred at (0, 0), (4, 0) and (0, 4) (labels 0, 1, 2)."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 3, size=n)
    centers = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    return centers[label] + rng.normal(size=(n, 2)), label


def regression_data(n, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)


def lazy_gram(quick):
    """The Gram matrix as a grid of blocks, and its row means computed block by block."""
    import dask.array as da

    from kernelkit.dask import gram

    X, _ = blobs(400 if quick else 4000)
    Xd = da.from_array(X, chunks=len(X) // 4)
    K = gram(KERNEL, Xd)
    density = K.mean(axis=1).compute()  # nothing is computed before this line
    return {"X": X, "chunks": K.chunks, "n_tasks": len(K.__dask_graph__()),
            "density": density, "block": K.blocks[0, 1].compute()}


def kmeans(quick):
    """DaskKernelKMeans on blobs from a fixed start, and scikit-learn's Lloyd as its twin."""
    import dask.array as da

    from kernelkit.dask import DaskKernelKMeans

    X, label = blobs(600 if quick else 6000, seed=2)
    Xd = da.from_array(X, chunks=len(X) // 3)
    start = X[:3]  # the first three points, whatever blobs they fall in
    km = DaskKernelKMeans(3, kernel=KERNEL, n_components=60, init=start,
                          random_state=0).fit(Xd)
    labels = km.predict(Xd).compute()
    Z = km.feature_map_.transform(X)
    twin = KMeans(3, init=km.feature_map_.transform(start), n_init=1, tol=1e-4,
                  algorithm="lloyd").fit(Z)
    return {"X": X, "truth": label, "labels": labels, "twin_labels": twin.labels_,
            "centers": km.cluster_centers_, "twin_centers": twin.cluster_centers_,
            "ari": float(adjusted_rand_score(label, labels)),
            "local_labels": km.to_local().predict(X), "n_iter": km.n_iter_,
            "inertia": float(km.inertia_)}


def ridge(quick):
    """DaskKernelRidge (features, one pass; Falkon) against in-memory fits."""
    import dask.array as da

    from kernelkit.dask import DaskKernelRidge

    n = 1000 if quick else 10000
    X, y = regression_data(n)
    Xd = da.from_array(X, chunks=n // 4)
    M = 60 if quick else 300
    feat = DaskKernelRidge(RIDGE_KERNEL, alpha=0.1, solver="features", n_centers=M,
                           fit_intercept=False, random_state=0).fit(Xd, y)
    kw = {"alpha": 1.0, "tol": 1e-10, "max_iter": 200, "random_state": 0, "fit_intercept": False}
    fal = DaskKernelRidge(RIDGE_KERNEL, solver="falkon", n_centers=M, **kw).fit(Xd, y)
    local = kernelkit.KernelRidge(RIDGE_KERNEL, solver="falkon", n_centers=M, **kw).fit(X, y)
    return {"X": X, "y": y, "alpha_features": 0.1, "features_model": feat,
            "features_pred": feat.predict(Xd).compute(), "features_passes": feat.n_passes_,
            "falkon_pred": fal.predict(Xd).compute(), "falkon_passes": fal.n_passes_,
            "falkon_iter": fal.n_iter_, "falkon_coef": fal.dual_coef_,
            "local_pred": local.predict(X), "local_coef": local.dual_coef_,
            "to_local_pred": fal.to_local().predict(X)}


def run(quick=False):
    """The three parts on dask's local scheduler; each compared with its in-memory twin."""
    g = lazy_gram(quick)
    K = kernelkit.gram(KERNEL, g["X"])
    print(f"dask.gram: {len(g['X'])} x {len(g['X'])} Gram matrix as "
          f"{len(g['chunks'][0])} x {len(g['chunks'][1])} blocks ({g['n_tasks']} tasks); "
          f"row means differ from the in-memory ones by "
          f"{np.abs(g['density'] - K.mean(axis=1)).max():.1e}")
    k = kmeans(quick)
    print(f"\nDaskKernelKMeans on three blobs: adjusted Rand index {k['ari']:.3f}, "
          f"{k['n_iter']} Lloyd iterations; "
          f"labels equal to scikit-learn's Lloyd on the same features: "
          f"{np.mean(k['labels'] == k['twin_labels']):.0%}")
    r = ridge(quick)
    print(f"\nDaskKernelRidge, n = {len(r['X'])}:")
    print(f"  features (Nystroem, one pass): {r['features_passes']} passes over the chunks")
    print(f"  falkon: {r['falkon_iter']} CG iterations, {r['falkon_passes']} passes; "
          f"largest difference from in-memory KernelRidge(solver='falkon'): "
          f"{np.abs(r['falkon_pred'] - r['local_pred']).max():.1e}")
    return {"gram": g, "kmeans": k, "ridge": r}


def plot(results):
    """The Gram matrix's block grid; the blobs' clusters; Dask against in-memory predictions."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4.4), layout="constrained")
    ax_gram, ax_km, ax_ridge = fig.subplots(1, 3)
    g = results["gram"]
    order = np.argsort(np.argmin(((g["X"][:, None, :] - np.array([[0, 0], [4, 0], [0, 4]]))
                                  ** 2).sum(axis=2), axis=1), kind="stable")  # blob by blob
    K = kernelkit.gram(KERNEL, g["X"][order])
    ax_gram.imshow(K, cmap="viridis")
    edges = np.cumsum(g["chunks"][0])[:-1]
    for e in edges:
        ax_gram.axhline(e - 0.5, color="w", lw=0.8)
        ax_gram.axvline(e - 0.5, color="w", lw=0.8)
    ax_gram.set_title("K as a grid of Dask blocks (rows by blob)")
    k = results["kmeans"]
    ax_km.scatter(*k["X"].T, c=k["labels"], s=4, cmap="coolwarm")
    ax_km.set_aspect("equal")
    ax_km.set_title(f"DaskKernelKMeans: ARI {k['ari']:.2f}")
    r = results["ridge"]
    ax_ridge.plot(r["local_pred"], r["falkon_pred"], ".", ms=3)
    lo, hi = r["local_pred"].min(), r["local_pred"].max()
    ax_ridge.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax_ridge.set_xlabel("in-memory KernelRidge (Falkon)")
    ax_ridge.set_ylabel("DaskKernelRidge (Falkon)")
    ax_ridge.set_title("the same predictions")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernel methods on Dask (local scheduler).")
    parser.add_argument("--quick", action="store_true", help="small data (a test run)")
    parser.add_argument("--out", default="beyond_one_machine.png", help="PNG file to write")
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
