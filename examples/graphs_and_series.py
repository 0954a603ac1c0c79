"""
Kernels on graphs and on time series
====================================

Lecture: Kernels on structured data -- data that are not vectors: graphs (the
Weisfeiler-Lehman subtree kernel) and time series (the global alignment kernel).

A kernel only needs k(x, y) for two objects, so a support vector machine
learns on graphs and on series of different lengths as it does on vectors.

**Graphs.** The Weisfeiler-Lehman kernel (Shervashidze et al. 2011) relabels
every node h times by its label and the sorted labels of its neighbours and
counts the labels two graphs share. On unlabelled cycles against paths,
h = 0 sees only the number of nodes (chance accuracy); one iteration sees the
two end nodes of a path, which have one neighbour, and separates the classes.
A cycle of 2m nodes against two disjoint cycles of m nodes is the classical
blind spot of the test: every node of both graphs has two neighbours at every
iteration, the feature vectors are equal, and no h helps.

**Time series.** The global alignment kernel (Cuturi 2011) sums, over every
monotone alignment of two series, the product of a local kernel along the
alignment: it compares series of different lengths and phases. Shifted
sines against noise: the accuracy against the width sigma of the local kernel
(too small a sigma and every alignment counts for nothing; Cuturi's rule of
thumb, a multiple of the median distance of points times the square root of
the median length, is marked).

Run: ``python examples/graphs_and_series.py`` (about 10 seconds)
"""

import argparse

import numpy as np

from kernelkit.kernels import GlobalAlignment, WeisfeilerLehman
from kernelkit.models import KernelSVC

C = 10.0
ITERATIONS = (0, 1, 2, 3)
SIGMAS = (0.05, 0.2, 1.0, 5.0)


def cycles_and_paths(n, seed):
    """Unlabelled cycles (class 1) and paths (class 0) of 5..12 nodes, as (edges, labels)."""
    rng = np.random.default_rng(seed)
    graphs, y = [], []
    for i in range(n):
        m = int(rng.integers(5, 13))
        edges = [(v, v + 1) for v in range(m - 1)] + ([(m - 1, 0)] if i % 2 else [])
        graphs.append((edges, [0] * m))
        y.append(i % 2)
    return graphs, np.array(y)


def one_or_two_cycles(n, seed):
    """A cycle of 2m nodes (class 1) or two disjoint cycles of m nodes (class 0), m = 3..6."""
    rng = np.random.default_rng(seed)
    graphs, y = [], []
    for i in range(n):
        m = int(rng.integers(3, 7))
        if i % 2:
            edges = [(v, (v + 1) % (2 * m)) for v in range(2 * m)]
        else:
            edges = [(v, (v + 1) % m) for v in range(m)] + \
                    [(m + v, m + (v + 1) % m) for v in range(m)]
        graphs.append((edges, [0] * (2 * m)))
        y.append(i % 2)
    return graphs, np.array(y)


def sines_and_noise(n, seed, lengths):
    """Sines of random phase (class 1) and white noise (class 0) of random lengths."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n):
        m = int(rng.integers(*lengths))
        if i % 2:
            X.append(np.sin(np.linspace(0.0, 3 * np.pi, m) + rng.uniform(0, 2 * np.pi)))
        else:
            X.append(rng.normal(scale=0.7, size=m))
        y.append(i % 2)
    return X, np.array(y)


def rule_of_thumb_sigma(X):
    """Cuturi's scale: median |x_i - x_j| over points of the series times sqrt(median length)."""
    points = np.concatenate(X)
    diffs = np.abs(points[:, None] - points[None, :])
    return float(np.median(diffs) * np.sqrt(np.median([len(s) for s in X])))


def accuracy(kernel, data):
    (X, y), (X_test, y_test) = data
    model = KernelSVC(kernel=kernel, C=C).fit(X, y)
    return float(model.score(X_test, y_test)), model


def run(quick=False):
    """SVM accuracies of the WL kernel against h and of the alignment kernel against sigma."""
    n_graphs, n_series, lengths = (24, 24, (8, 17)) if quick else (100, 80, (20, 41))
    graph_problems = {"cycles vs paths": cycles_and_paths,
                      "one 2m-cycle vs two m-cycles": one_or_two_cycles}
    graph_data = {name: (make(n_graphs, 0), make(n_graphs, 1))
                  for name, make in graph_problems.items()}
    wl = {name: [accuracy(WeisfeilerLehman(n_iter=h, normalize=True), data)[0]
                 for h in ITERATIONS] for name, data in graph_data.items()}
    series_data = (sines_and_noise(n_series, 0, lengths), sines_and_noise(n_series, 1, lengths))
    gak = [accuracy(GlobalAlignment(sigma=s), series_data)[0] for s in SIGMAS]
    sigma_rule = rule_of_thumb_sigma(series_data[0][0])
    print(f"SVM (C = {C:g}) on {n_graphs} training and {n_graphs} test graphs per problem\n")
    print(f"{'Weisfeiler-Lehman, h =':32s}" + "".join(f"{h:>7d}" for h in ITERATIONS))
    for name, accs in wl.items():
        print(f"{name:32s}" + "".join(f"{a:7.3f}" for a in accs))
    print(f"\nSVM on {n_series} training and {n_series} test series of {lengths[0]}.."
          f"{lengths[1] - 1} points (sines vs noise)\n")
    print(f"{'global alignment, sigma =':32s}" + "".join(f"{s:>7g}" for s in SIGMAS))
    print(f"{'test accuracy':32s}" + "".join(f"{a:7.3f}" for a in gak))
    print(f"\nCuturi's rule of thumb: sigma of order {sigma_rule:.2f}")
    return {"n_graphs": n_graphs, "n_series": n_series, "lengths": lengths,
            "iterations": list(ITERATIONS), "wl_accuracy": wl, "graph_data": graph_data,
            "sigmas": list(SIGMAS), "gak_accuracy": gak, "series_data": series_data,
            "sigma_rule": sigma_rule, "C": C}


def plot(results):
    """Left: WL accuracy against h; right: alignment-kernel accuracy against sigma."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.3), layout="constrained")
    left, right = fig.subplots(1, 2)
    for (name, accs), marker in zip(results["wl_accuracy"].items(), ("o-", "s--")):
        left.plot(results["iterations"], accs, marker, label=name)
    left.set_xticks(results["iterations"])
    left.set_ylim(0.3, 1.05)
    left.set_xlabel("Weisfeiler-Lehman iterations h")
    left.set_ylabel("test accuracy")
    left.set_title("graphs: one iteration sees degrees, none sees the cycles")
    left.legend(fontsize=8)
    right.semilogx(results["sigmas"], results["gak_accuracy"], "o-", label="sines vs noise")
    right.axvline(results["sigma_rule"], color="k", ls=":", label="Cuturi's rule of thumb")
    right.set_ylim(0.3, 1.05)
    right.set_xlabel("sigma of the local Gaussian kernel")
    right.set_ylabel("test accuracy")
    right.set_title("time series of different lengths: global alignment")
    right.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Kernels on graphs and time series.")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    parser.add_argument("--out", default="graphs_and_series.png", help="PNG file to write")
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
