"""
The polynomial basis: Phi Phi' = K with binom(d + p, p) columns
===============================================================

Lecture: Kernels and feature maps -- the polynomial kernel's explicit basis
(the basis matrices Phi of the worked example, and the dimension count).

The polynomial kernel k(x, y) = (gamma x'y + c)^p is a finite sum of products
of monomials: by the multinomial theorem

    (gamma x'y + c)^p = sum_{``|a|`` <= p} p! / ((p - ``|a|``)! a_1! ... a_d!)
                        c^(p - ``|a|``) gamma^``|a|`` x^a y^a,

so phi_a(x) = sqrt(p! / ((p - ``|a|``)! prod_i a_i!) c^(p - ``|a|``) gamma^``|a|``) x^a is an
explicit feature map, one coordinate per monomial of degree <= p in d
variables: D = binom(d + p, p) of them (binom(d + p - 1, p) when c = 0: only
the monomials of degree exactly p). For d = 2, p = 2, c = gamma = 1:

    phi(x) = (1, sqrt(2) x1, sqrt(2) x2, x1^2, sqrt(2) x1 x2, x2^2).

The script builds the basis matrix Phi (one row phi(x_i) per point) of four
integer points with :class:`kernelkit.features.ExplicitFeatures`, prints it
next to the Gram matrix K and Phi Phi', and tabulates D for a few d and p
(the count :func:`kernelkit.features.explicit_feature_dim` gives, and the
columns the transform returns) against binom(d + p, p): the exact route costs
O(n D^2) instead of O(n^2 d) and pays off while D stays small.

Run: ``python examples/polynomial_basis.py`` (about 1 second)
"""

import argparse
import math

import numpy as np

from kernelkit.features import ExplicitFeatures, explicit_feature_dim
from kernelkit.kernels import Polynomial

POINTS = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [-1.0, 3.0]])
DIMS, DEGREES = (1, 2, 3, 5, 10), (1, 2, 3, 4)


def monomial_labels(d, p, coef0):
    """Names of the basis functions, in the order of ExplicitFeatures' columns."""
    from sklearn.preprocessing import PolynomialFeatures

    powers = PolynomialFeatures(degree=p).fit(np.zeros((1, d))).powers_
    if coef0 == 0:
        powers = powers[powers.sum(axis=1) == p]
    labels = []
    for a in powers:
        weight = (math.factorial(p) / math.factorial(p - int(a.sum()))
                  / math.prod(math.factorial(int(ai)) for ai in a))
        term = " ".join(f"x{i + 1}" + (f"^{ai}" if ai > 1 else "") for i, ai in enumerate(a) if ai)
        labels.append((f"sqrt({weight:g}) " if weight != 1 else "") + (term or "1"))
    return labels


def run(quick=False):
    """Phi, K and Phi Phi' of the worked example, and the table of dimensions."""
    kernel = Polynomial(degree=2, gamma=1.0, coef0=1.0)
    Phi = ExplicitFeatures(kernel).fit(POINTS).transform(POINTS)
    K = kernel(POINTS, POINTS)
    labels = monomial_labels(2, 2, 1.0)
    print("basis matrix Phi of (x'y + 1)^2 for four points (one row phi(x_i) per point):\n")
    print("x".rjust(10) + "".join(f"{lab:>14s}" for lab in labels))
    for x, row in zip(POINTS, Phi):
        print(f"({x[0]:+.0f}, {x[1]:+.0f})".rjust(10) + "".join(f"{v:14.4f}" for v in row))
    print("\nK = (x_i'x_j + 1)^2:")
    print(np.array2string(K, precision=4))
    print("\nPhi Phi':")
    print(np.array2string(Phi @ Phi.T, precision=4, suppress_small=True))
    error = float(np.max(np.abs(Phi @ Phi.T - K)))
    print(f"max |Phi Phi' - K| = {error:.1e}")

    dims = DIMS[:4] if quick else DIMS
    table = []
    rng = np.random.default_rng(0)
    for d in dims:
        X = rng.normal(size=(20, d))
        for p in DEGREES:
            for coef0 in (1.0, 0.0):
                k = Polynomial(degree=p, gamma=1.0 / d, coef0=coef0)
                Z = ExplicitFeatures(k).fit(X).transform(X)
                table.append({"d": d, "p": p, "coef0": coef0,
                              "explicit_feature_dim": explicit_feature_dim(k, d),
                              "columns": Z.shape[1],
                              "max_error": float(np.max(np.abs(Z @ Z.T - k(X, X))))})
    gap = "max |ZZ' - K|"
    print("\nD, the number of basis functions of (x'y / d + c)^p on d inputs:\n")
    print(f"{'d':>3s} {'p':>2s}  {'c = 1: D':>9s} {'binom(d+p,p)':>13s}  "
          f"{'c = 0: D':>9s} {'binom(d+p-1,p)':>15s}  {gap:>14s}")
    for r1, r0 in zip(table[::2], table[1::2]):
        d, p = r1["d"], r1["p"]
        print(f"{d:3d} {p:2d}  {r1['columns']:9d} {math.comb(d + p, p):13d}  "
              f"{r0['columns']:9d} {math.comb(d + p - 1, p):15d}  "
              f"{max(r1['max_error'], r0['max_error']):14.1e}")
    return {"points": POINTS, "Phi": Phi, "K": K, "labels": labels, "max_error": error,
            "table": table}


def plot(results):
    """Phi, K and Phi Phi' as images, and D against d for each degree."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 3.8), layout="constrained")
    axes = fig.subplots(1, 4, width_ratios=[1.5, 1, 1, 1.4])
    Phi, K = results["Phi"], results["K"]
    for ax, M, title in ((axes[0], Phi, "Phi (4 x 6)"), (axes[1], K, "K = (x'y + 1)^2"),
                         (axes[2], Phi @ Phi.T, "Phi Phi'")):
        ax.imshow(M, cmap="viridis")
        for (i, j), v in np.ndenumerate(M):
            ax.text(j, i, f"{round(v, 10) + 0.0:.3g}", ha="center", va="center", fontsize=7, color="w")
        ax.set_title(title)
        ax.set_yticks(range(len(M)))
    axes[0].set_xticks(range(Phi.shape[1]), results["labels"], rotation=60, fontsize=7)
    ax = axes[3]
    for p in DEGREES:
        rows = [r for r in results["table"] if r["p"] == p and r["coef0"] == 1.0]
        ax.plot([r["d"] for r in rows], [r["columns"] for r in rows], "o-", label=f"p = {p}")
    ax.set_yscale("log")
    ax.set_xlabel("input dimension d")
    ax.set_ylabel("D = binom(d + p, p)")
    ax.legend(fontsize=8)
    ax.set_title("size of the basis")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="The polynomial kernel's explicit basis.")
    parser.add_argument("--quick", action="store_true", help="a smaller table (a test run)")
    parser.add_argument("--out", default="polynomial_basis.png", help="PNG file to write")
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
