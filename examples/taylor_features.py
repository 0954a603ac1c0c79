"""
The Gaussian kernel's infinite Taylor basis, truncated
======================================================

Lecture: Kernels and feature maps -- the Gaussian kernel has an infinite-dimensional
feature space: its Taylor expansion, and the error of truncating it at degree p.

The Gaussian kernel factors as exp(-gamma ||x||^2) exp(-gamma ||y||^2) exp(2 gamma x'y),
and the Taylor series of the last factor, expanded by the multinomial theorem, is
an inner product of scaled monomials::

    phi_a(x) = exp(-gamma ||x||^2) sqrt((2 gamma)^|a| / a!) x^a,   a in N^d.

Infinitely many features; keeping those of degree ``|a| <= p`` gives C(d + p, p) of
them (:class:`kernelkit.features.TaylorFeatures`) and an error that is the Taylor
remainder of exp, at most (2 gamma R^2)^(p+1) / (p+1)! for inputs of norm <= R
(Cotter, Keshet & Srebro 2011). The table and the left panel show the largest
error on points of the unit disc against the degree, with that bound, and the
error of random Fourier features with the same number of features: the
deterministic basis wins by orders of magnitude near the origin. The right
panel shows its price: the error grows with the norm of the inputs like the
bound, r^(2(p+1)), while random features are as good everywhere.

Run: ``python examples/taylor_features.py`` (about 8 seconds)
"""

import argparse
import math

import numpy as np

from kernelkit.features import (RandomFourierFeatures, TaylorFeatures, taylor_error_bound,
                                taylor_feature_dim)
from kernelkit.kernels import RBF

GAMMA, RADIUS, CURVE_DEGREE = 1.0, 1.0, 4


def disc_points(n, seed, radius=RADIUS):
    """n points uniform in the disc of the given radius (in the plane)."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0.0, 2.0 * math.pi, n)
    r = radius * np.sqrt(rng.uniform(0.0, 1.0, n))
    return np.column_stack([r * np.cos(angle), r * np.sin(angle)])


def taylor_error(X, degree, gamma=GAMMA):
    """max |phi(x)'phi(y) - k(x, y)| over the pairs of rows of X."""
    Z = TaylorFeatures(gamma=gamma, degree=degree).fit(X).transform(X)
    return float(np.abs(Z @ Z.T - RBF(gamma=gamma)(X)).max())


def fourier_error(X, n_components, n_draws, gamma=GAMMA):
    """The same error for random Fourier features, averaged over draws."""
    K = RBF(gamma=gamma)(X)
    errors = []
    for seed in range(n_draws):
        rff = RandomFourierFeatures(RBF(gamma=gamma), n_components=n_components,
                                    random_state=seed)
        Z = rff.fit_transform(X)
        errors.append(np.abs(Z @ Z.T - K).max())
    return float(np.mean(errors))


def run(quick=False):
    """Errors of the truncated Taylor basis against the degree and against the input norm."""
    n, max_degree, n_draws = (60, 8, 2) if quick else (300, 14, 10)
    X = disc_points(n, seed=0)
    degrees = list(range(max_degree + 1))
    dims = [taylor_feature_dim(2, p) for p in degrees]
    errors = [taylor_error(X, p) for p in degrees]
    bounds = [taylor_error_bound(GAMMA, p, RADIUS) for p in degrees]
    fourier = [fourier_error(X, D, n_draws) for D in dims]
    # the error of k(x, x) = 1 along a ray, at one degree: the local nature of the basis
    radii = np.linspace(0.0, 3.0, 31)
    ray = np.outer(radii, [1.0, 1.0]) / math.sqrt(2.0)  # the diagonal direction
    Z = TaylorFeatures(gamma=GAMMA, degree=CURVE_DEGREE).fit(ray).transform(ray)
    radial_error = np.abs(1.0 - np.einsum("ij,ij->i", Z, Z))
    radial_bound = np.array([taylor_error_bound(GAMMA, CURVE_DEGREE, r) for r in radii])
    D_curve = taylor_feature_dim(2, CURVE_DEGREE)
    radial_fourier = np.mean([
        np.abs(1.0 - (RandomFourierFeatures(RBF(gamma=GAMMA), n_components=D_curve,
                                            random_state=seed).fit_transform(ray) ** 2).sum(1))
        for seed in range(n_draws)], axis=0)
    print(f"Taylor features of exp(-{GAMMA:g} ||x - y||^2) on {n} points of the unit disc\n")
    print(f"{'degree':>6s} {'D':>5s} {'max error':>10s} {'bound':>10s} {'RFF, same D':>12s}")
    for p, D, e, b, f in zip(degrees, dims, errors, bounds, fourier):
        print(f"{p:6d} {D:5d} {e:10.2e} {b:10.2e} {f:12.2e}")
    return {"gamma": GAMMA, "radius": RADIUS, "n": n, "degrees": degrees, "dims": dims,
            "errors": errors, "bounds": bounds, "fourier": fourier, "X": X,
            "radii": radii, "radial_error": radial_error, "radial_bound": radial_bound,
            "radial_fourier": radial_fourier, "curve_degree": CURVE_DEGREE}


def plot(results):
    """Left: error against the degree; right: error against the input norm."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.5), layout="constrained")
    left, right = fig.subplots(1, 2)
    p = results["degrees"]
    left.semilogy(p, results["errors"], "o-", label="Taylor features, max error")
    left.semilogy(p, results["bounds"], "k--", label="bound (2 gamma R^2)^(p+1) / (p+1)!")
    left.semilogy(p, results["fourier"], "s:", label="random Fourier features, same D")
    left.set_xlabel("degree p (D = C(2 + p, p) features)")
    left.set_ylabel("max |phi(x)'phi(y) - k(x, y)|")
    left.set_title("points of the unit disc")
    left.legend(fontsize=8)
    r = results["radii"]
    right.semilogy(r, np.maximum(results["radial_error"], 1e-17), "o-",
                   label=f"Taylor features, degree {results['curve_degree']}")
    right.semilogy(r, results["radial_bound"], "k--", label="bound")
    right.semilogy(r, np.maximum(results["radial_fourier"], 1e-17), "s:",
                   label="random Fourier features, same D")
    right.set_ylim(1e-17, 10.0)
    right.set_xlabel("||x||")
    right.set_ylabel("|phi(x)'phi(x) - 1|")
    right.set_title("the basis is local: error grows with the norm")
    right.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Taylor features of the Gaussian kernel.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="taylor_features.png", help="PNG file to write")
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
