"""
Random cosines: what a random Fourier feature looks like, and how their average is the kernel
=============================================================================================

Lecture: Random features -- the random-cosine picture (a few features
z_w(x) = sqrt(2) cos(w'x + b) drawn as curves and surfaces; their average
approximating the kernel).

One random Fourier feature of the RBF kernel k(x, y) = exp(-gamma ||x - y||^2)
is a plane wave z_w(x) = sqrt(2) cos(w'x + b) with a random direction and
frequency w ~ Normal(0, 2 gamma I) and a random phase b ~ Uniform[0, 2 pi]: a
ripple across the input space, nothing like a bump. Yet the product
z_w(x) z_w(y) has expectation k(x, y), so the average over D features,

    (1/D) sum_j z_{w_j}(x) z_{w_j}(y) = z(x)'z(y),

approaches the kernel -- here as a function of x with y = 0 fixed: the ripples
cancel away from y and add up near it, and a Gaussian bump emerges as D grows;
the error falls like 1/sqrt(D).

Top row, in 1-D (gamma = 1/2, so w ~ Normal(0, 1)): four random cosines; the
average of z_w(x) z_w(0) over D = 1, 10, 100 and 2000 features against
k(x, 0) = exp(-x^2 / 2); the root-mean-square error over [-4, 4] against D.
Bottom row, in 2-D: two random cosine surfaces and the average of 1000
products with the origin, next to the kernel's contours. The features come
from :class:`kernelkit.features.RandomFourierFeatures` (its columns scaled
back from sqrt(2/D) cos to sqrt(2) cos).

Run: ``python examples/random_cosines.py`` (about 2 seconds)
"""

import argparse

import numpy as np

from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF

GAMMA = 0.5
N_AVERAGES = (1, 10, 100, 2000)
N_CURVE = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)


def cosines(X, n_features, seed):
    """(n, n_features) raw features sqrt(2) cos(w_j'x + b_j) of the RBF kernel."""
    rff = RandomFourierFeatures(RBF(gamma=GAMMA), n_components=n_features,
                                random_state=seed).fit(X)
    return rff.transform(X) * np.sqrt(n_features), rff


def kernel_to_origin(X):
    return np.exp(-GAMMA * np.sum(X ** 2, axis=1))


def run(quick=False):
    """The 1-D averages and their errors, and the 2-D surfaces."""
    x = np.linspace(-4.0, 4.0, 401)  # the origin is the middle point
    X1 = x[:, None]
    origin = len(x) // 2
    Z, _ = cosines(X1, max(N_CURVE), seed=0)
    products = Z * Z[origin]  # z_w(x) z_w(0), one column per feature
    running = np.cumsum(products, axis=1) / np.arange(1, Z.shape[1] + 1)
    exact = kernel_to_origin(X1)
    rmse = {D: float(np.sqrt(np.mean((running[:, D - 1] - exact) ** 2))) for D in N_CURVE}

    side = 41 if quick else 81
    D2 = 500 if quick else 1000
    g = np.linspace(-3.0, 3.0, side)
    G1, G2 = np.meshgrid(g, g)
    X2 = np.vstack([[0.0, 0.0], np.c_[G1.ravel(), G2.ravel()]])  # row 0: the origin
    Z2, _ = cosines(X2, D2, seed=1)
    average2 = (Z2[1:] @ Z2[0] / D2).reshape(G1.shape)
    print(f"RBF kernel, gamma = {GAMMA}: z_w(x) = sqrt(2) cos(w'x + b), w ~ Normal(0, "
          f"{2 * GAMMA:g} I)\n")
    print("1-D: root-mean-square error of (1/D) sum_j z_j(x) z_j(0) against k(x, 0) on [-4, 4]")
    print(f"{'D':>6s} {'RMSE':>8s} {'RMSE * sqrt(D)':>15s}")
    for D in N_CURVE:
        print(f"{D:6d} {rmse[D]:8.4f} {rmse[D] * np.sqrt(D):15.3f}")
    err2 = float(np.sqrt(np.mean((average2 - kernel_to_origin(X2[1:]).reshape(G1.shape)) ** 2)))
    print(f"\n2-D, D = {D2}: RMSE of the average against k(x, 0) on [-3, 3]^2: {err2:.4f}")
    return {"x": x, "features": Z[:, :4], "averages": {D: running[:, D - 1] for D in N_AVERAGES},
            "exact": exact, "rmse": rmse, "grid": (G1, G2), "surfaces": Z2[1:, :2].T.reshape(
                2, *G1.shape), "average_2d": average2, "n_features_2d": D2, "rmse_2d": err2}


def plot(results):
    """Top: 1-D cosines, their averages, the error against D. Bottom: 2-D surfaces, average."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 8), layout="constrained")
    (cos_ax, avg_ax, err_ax), (s1, s2, avg2) = fig.subplots(2, 3)
    x = results["x"]
    cos_ax.plot(x, results["features"], lw=1)
    cos_ax.set_title("four random cosines sqrt(2) cos(wx + b)")
    for D, a in results["averages"].items():
        avg_ax.plot(x, a, lw=1 if D < 2000 else 2, label=f"D = {D}")
    avg_ax.plot(x, results["exact"], "k--", label="k(x, 0)")
    avg_ax.set_ylim(-2.2, 2.2)
    avg_ax.legend(fontsize=8)
    avg_ax.set_title("(1/D) sum_j z_j(x) z_j(0)")
    Ds = np.array(list(results["rmse"]))
    err_ax.loglog(Ds, list(results["rmse"].values()), "o-", label="measured")
    err_ax.loglog(Ds, results["rmse"][Ds[0]] / np.sqrt(Ds), "k:", label="1 / sqrt(D)")
    err_ax.set_xlabel("D")
    err_ax.set_title("RMSE against k on [-4, 4]")
    err_ax.legend(fontsize=8)
    G1, G2 = results["grid"]
    extent = (G1.min(), G1.max(), G2.min(), G2.max())
    for ax, S, i in ((s1, results["surfaces"][0], 1), (s2, results["surfaces"][1], 2)):
        ax.imshow(S, extent=extent, origin="lower", cmap="RdBu_r", vmin=-1.5, vmax=1.5)
        ax.set_title(f"random cosine surface {i}")
    avg2.imshow(results["average_2d"], extent=extent, origin="lower", cmap="viridis")
    avg2.contour(G1, G2, np.exp(-GAMMA * (G1 ** 2 + G2 ** 2)), levels=[0.1, 0.5, 0.9],
                 colors="w", linewidths=1)
    avg2.set_title(f"average of {results['n_features_2d']} products; white: k(x, 0)")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The random-cosine picture.")
    parser.add_argument("--quick", action="store_true", help="a coarser 2-D grid (a test run)")
    parser.add_argument("--out", default="random_cosines.png", help="PNG file to write")
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
