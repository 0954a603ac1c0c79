"""
How good are random Fourier features? Error against D on real data, with the bounds
===================================================================================

Lecture: Random features -- the approximation error max ``|z(x)'z(y) - k(x, y)|``
against D, with Hoeffding's bound for one pair and Rahimi & Recht's uniform bound.

On 1,500 standardised rows of the bundled CPU activity data (``cpu_act``,
8,192 x 21, used by Rahimi & Recht 2007) this compares z(x)'z(y) with the exact
kernel k(x, y) over all pairs, for D = 10 ... 3000 cos+bias features and three
shift-invariant kernels: RBF, Laplacian and Cauchy. Next to the observed
errors it prints

* Hoeffding's level for one fixed pair: with probability >= 1 - delta,
  ``|z(x)'z(y) - k(x, y)|`` < sqrt(8 log(2 / delta) / D);
* Rahimi & Recht's uniform level (Claim 1) for all pairs of a set of the
  data's diameter at once -- infinite for the Laplacian kernel, whose Cauchy
  spectral density has no second moment.

The observed mean error falls like 1/sqrt(D), and the worst pair stays below
the uniform level (which is loose by an order of magnitude).

Run: ``python examples/approximation_error.py [--n ROWS] [--out FILE]`` (about 20
seconds; ``--quick``: 150 rows and D <= 300; the picture needs matplotlib: ``pip install matplotlib``)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_cpu_act
from kernelkit.diagnostics import approximation_curve
from kernelkit.kernels import RBF, Cauchy, Laplacian

N_FEATURES = (10, 30, 100, 300, 1000, 3000)


def kernels_for(X):
    """Widths from the data: the median pairwise distance (the 'median heuristic')."""
    rng = np.random.default_rng(0)
    A, B = X[rng.integers(len(X), size=2000)], X[rng.integers(len(X), size=2000)]
    l2 = np.median(np.sum((A - B) ** 2, axis=1))
    l1 = np.median(np.sum(np.abs(A - B), axis=1))
    per_coordinate = np.median((A - B) ** 2)

    def r(g):  # two significant digits, for a readable table
        return float(f"{g:.2g}")

    return {"RBF": RBF(gamma=r(1.0 / l2)),
            "Laplacian": Laplacian(gamma=r(1.0 / l1)),
            # prod_i 1 / (1 + gamma^2 delta_i^2): about exp(-1) at the median distance
            "Cauchy": Cauchy(gamma=r(np.sqrt(1.0 / (X.shape[1] * per_coordinate))))}


def run(quick=False, *, n_rows=None):
    """Errors of random Fourier features against D for three kernels; prints the table.

    ``n_rows`` rows of cpu_act (default 1500, 150 with ``quick``). Returns
    {"n_rows", "n_features", "curves": {kernel name: ApproximationCurve}}.
    """
    n_rows = n_rows or (150 if quick else 1500)
    n_features = N_FEATURES[:4] if quick else N_FEATURES  # quick: D up to 300
    X, _ = load_cpu_act(return_X_y=True)
    X = X[np.random.default_rng(0).permutation(len(X))[:n_rows]]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    curves = {}
    print(f"cpu_act, {len(X)} standardised rows x {X.shape[1]}; all {len(X) ** 2} pairs; "
          f"medians of 3 draws; bounds at delta = 0.05\n")
    print(f"{'kernel':>22}  {'D':>5}  {'max err':>8}  {'mean err':>8}  {'Hoeffding':>9}  "
          f"{'uniform':>8}")
    for name, kernel in kernels_for(X).items():
        curves[name] = curve = approximation_curve(kernel, X, n_features, n_repeats=3,
                                                   max_pairs=len(X) ** 2, random_state=0)
        for row in curve.rows():
            print(f"{curve.kernel:>22}  {row['D']:5d}  {row['max_error']:8.4f}  "
                  f"{row['mean_error']:8.4f}  {row['hoeffding_epsilon']:9.4f}  "
                  f"{row['uniform_epsilon']:8.3g}")
        if curve.note:
            print(f"{'':>24}({curve.note})")
    return {"n_rows": len(X), "n_features": n_features, "curves": curves}


def plot(results):
    """One panel per kernel: the observed errors and the two bounds against D."""
    from matplotlib.figure import Figure

    from kernelkit.plotting import plot_approximation_curve

    fig = Figure(figsize=(15, 4.5), layout="constrained")
    for ax, curve in zip(fig.subplots(1, 3), results["curves"].values()):
        plot_approximation_curve(curve, ax=ax)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="How good are random Fourier features?")
    parser.add_argument("--out", default="approximation_error.png", help="PNG file to write")
    parser.add_argument("--n", type=int, default=None, help="rows of cpu_act to use (1500)")
    parser.add_argument("--quick", action="store_true", help="150 rows (a test run)")
    args = parser.parse_args(argv)
    results = run(quick=args.quick, n_rows=args.n)
    try:
        fig = plot(results)
    except ImportError:
        print("\nno picture (matplotlib is not installed: pip install matplotlib)")
        return
    fig.savefig(args.out, dpi=110)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
