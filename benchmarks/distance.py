"""Distance methods in feature space: kernel k-means and kernel k-NN vs scikit-learn.

Questions:
(a) Does KernelKMeans with the linear kernel reach scikit-learn's KMeans
    (algorithm="lloyd") from the same initial centers -- same labels, same
    inertia within 1e-6 relative -- and at what cost? Data: letter (UCI, 16
    features, standardised), the first n rows, k = 26, initial centers from
    sklearn.cluster.kmeans_plusplus (seed 0), tol = 0 for both (run to
    convergence of the labels). Kernel k-means works on the n x n Gram matrix
    (O(n^2 k) per iteration) where Euclidean Lloyd works on the d features
    (O(n d k)): with a linear kernel the peer must win; the row says by how
    much. The Nystroem option (m = 200 centers) is timed with it; for the
    linear kernel (rank 16) it is exact after dropping the null eigenvalues.
(b) Two concentric rings (radii 1 and 3, noise 0.08): Euclidean KMeans vs
    RBF kernel k-means (gamma = 0.5, n_init = 10): adjusted Rand index of both.
(c) k-NN (k = 5) on Fashion-MNIST (pixels in [0, 1]), the first 10k training and
    2k test images: KNeighborsClassifier (brute force, Euclidean) vs
    KernelKNeighborsClassifier with the linear kernel (the same neighbours)
    and with RBF (gamma = 1 / (784 Var X); the same neighbour order as
    Euclidean, so the same accuracy): fit+predict time, accuracy, agreement.

Peer and kernelkit alternate; medians of the repeats.
Run: ``python benchmarks/distance.py`` (a few minutes) or ``--quick``.
"""

from __future__ import annotations

import warnings

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import alternate, parse_args, peak_rss_gb, print_table, write_json

from kernelkit import NumericalWarning
from kernelkit.datasets import load_fashion_mnist, load_shared_table
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelKMeans, KernelKNeighborsClassifier
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import KNeighborsClassifier


def part_a(n, repeats):
    X, _, _ = load_shared_table("letter")
    X = X[:n]
    X = (X - X.mean(0)) / X.std(0)
    k = 26
    init, _ = kmeans_plusplus(X, k, random_state=0)
    # The linear kernel's 200 x 200 center matrix has rank 16: the dropped null
    # eigenvalues are expected here.
    warnings.filterwarnings("ignore", category=NumericalWarning)
    res = alternate({
        "sklearn": lambda: KMeans(k, init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(X),
        "kernelkit": lambda: KernelKMeans(k, kernel=Linear(), init=init, tol=0.0).fit(X),
        "nystroem": lambda: KernelKMeans(k, kernel=Linear(), init=init, tol=0.0,
                                         approximation="nystroem", n_components=200,
                                         random_state=0).fit(X),
    }, repeats)
    sk, kk, ny = (res[m]["result"] for m in ("sklearn", "kernelkit", "nystroem"))
    rows = [{
        "case": f"letter n={n} k={k} linear", "peer_s": res["sklearn"]["median"],
        "ours_s": res["kernelkit"]["median"],
        "ratio": res["sklearn"]["median"] / res["kernelkit"]["median"],
        "inertia_peer": float(sk.inertia_), "inertia_ours": kk.inertia_,
        "rel_diff": abs(kk.inertia_ - sk.inertia_) / sk.inertia_,
        "same_labels": float(np.mean(kk.labels_ == sk.labels_)),
        "iter_peer": int(sk.n_iter_), "iter_ours": int(kk.n_iter_),
    }, {
        "case": f"letter n={n} k={k} Nystroem m=200", "peer_s": res["sklearn"]["median"],
        "ours_s": res["nystroem"]["median"],
        "ratio": res["sklearn"]["median"] / res["nystroem"]["median"],
        "inertia_peer": float(sk.inertia_), "inertia_ours": ny.inertia_,
        "rel_diff": abs(ny.inertia_ - sk.inertia_) / sk.inertia_,
        "same_labels": float(np.mean(ny.labels_ == sk.labels_)),
        "iter_peer": int(sk.n_iter_), "iter_ours": int(ny.n_iter_),
    }]
    print_table(rows, [("case", "case", ""), ("peer_s", "KMeans s", ".3g"),
                       ("ours_s", "ours s", ".3g"), ("ratio", "ratio", ".3g"),
                       ("inertia_peer", "inertia KMeans", ".8g"),
                       ("inertia_ours", "inertia ours", ".8g"), ("rel_diff", "rel diff", ".1e"),
                       ("same_labels", "same labels", ".4f"), ("iter_peer", "it KMeans", "d"),
                       ("iter_ours", "it ours", "d")])
    return rows


def rings(n, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, size=2 * n)
    r = np.r_[np.ones(n), 3 * np.ones(n)]
    X = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.08, size=(2 * n, 2))
    return X, np.r_[np.zeros(n), np.ones(n)]


def part_b(n, repeats):
    X, y = rings(n)
    res = alternate({
        "sklearn": lambda: KMeans(2, n_init=10, random_state=0).fit(X),
        "kernelkit": lambda: KernelKMeans(2, kernel=RBF(gamma=0.5), n_init=10,
                                          random_state=0).fit(X),
    }, repeats)
    row = {"case": f"two rings n={2 * n}", "peer_s": res["sklearn"]["median"],
           "ours_s": res["kernelkit"]["median"],
           "ari_peer": adjusted_rand_score(y, res["sklearn"]["result"].labels_),
           "ari_ours": adjusted_rand_score(y, res["kernelkit"]["result"].labels_)}
    print_table([row], [("case", "case", ""), ("peer_s", "KMeans s", ".3g"),
                        ("ours_s", "RBF kernel k-means s", ".3g"),
                        ("ari_peer", "ARI Euclidean", ".3f"), ("ari_ours", "ARI RBF", ".3f")])
    return [row]


def part_c(n_train, n_test, repeats):
    X, y = load_fashion_mnist(subset="train", return_X_y=True)
    Xt, yt = load_fashion_mnist(subset="test", return_X_y=True)
    X, y, Xt, yt = X[:n_train], y[:n_train], Xt[:n_test], yt[:n_test]  # pixels in [0, 1]
    gamma = 1.0 / (X.shape[1] * X.var())
    rows = []
    for name, kernel in (("linear", Linear()), (f"rbf(gamma={gamma:.4f})", RBF(gamma=gamma))):
        res = alternate({
            "sklearn": lambda: KNeighborsClassifier(5, algorithm="brute").fit(X, y).predict(Xt),
            "kernelkit": lambda: KernelKNeighborsClassifier(5, kernel=kernel).fit(X, y).predict(
                Xt),
        }, repeats)
        p_sk, p_kk = res["sklearn"]["result"], res["kernelkit"]["result"]
        rows.append({"case": f"FMNIST {n_train}/{n_test} k=5 {name}",
                     "peer_s": res["sklearn"]["median"], "ours_s": res["kernelkit"]["median"],
                     "ratio": res["sklearn"]["median"] / res["kernelkit"]["median"],
                     "acc_peer": float(np.mean(p_sk == yt)), "acc_ours": float(np.mean(p_kk == yt)),
                     "agree": float(np.mean(p_sk == p_kk))})
    print_table(rows, [("case", "case", ""), ("peer_s", "KNeighbors s", ".3g"),
                       ("ours_s", "ours s", ".3g"), ("ratio", "ratio", ".3g"),
                       ("acc_peer", "acc KNeighbors", ".4f"), ("acc_ours", "acc ours", ".4f"),
                       ("agree", "same prediction", ".4f")])
    return rows


def main():
    args = parse_args(__doc__.splitlines()[0])
    if args.quick:
        a = part_a(2000, 1)
        b = part_b(200, 1)
        c = part_c(2000, 500, 1)
    else:
        a = part_a(10000, 3)
        b = part_b(500, 3)
        c = part_c(10000, 2000, 3)
    write_json("distance", {"kmeans_linear": a, "rings": b, "knn": c,
                            "peak_rss_gb": peak_rss_gb()}, quick=args.quick)


if __name__ == "__main__":
    main()
