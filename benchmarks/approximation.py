"""Approximation error of random Fourier features against D, inside the bounds?

Question: on real data, how does max / mean |z(x)'z(y) - k(x, y)| over all
pairs fall with the number of features D for the RBF, Laplacian and Cauchy
kernels, and do the observed errors respect the bounds -- Hoeffding's
2 exp(-D a^2 / 8) for each fixed pair and Rahimi & Recht's (2007, Claim 1)
uniform bound over all pairs? The peer is scikit-learn's ``RBFSampler``
(RBF only, the same cos+bias features), measured the same way; with the
same seed both libraries draw the same frequencies and offsets (numpy's
RandomState normal, then uniform), so identical figures are a cross-check.

Data: California housing (``537_houses``, 20,640 x 8), 3,000 random rows
(seed 0), standardised; all 9 million ordered pairs (diagonal included).
Kernel widths by the median heuristic (1 / median squared distance for RBF,
1 / median L1 distance for Laplacian, Cauchy such that prod 1/(1 + g^2 d_i^2)
is about exp(-1) at the median), rounded to 2 digits.

Per kernel and D, over 5 independent draws (medians): max and mean error;
the fraction of pairs whose error exceeds Hoeffding's fixed-pair level
a(D) = sqrt(8 log(2/delta) / D) (each pair exceeds it with probability
<= delta = 0.05, so this fraction must be about <= delta); and whether the
max error is below the uniform level eps(D) where the Rahimi-Recht bound
equals delta (inf for the Laplacian kernel: its Cauchy spectral density has
no second moment, so Claim 1 gives nothing). Timing is not the question
here (see ``features.py``).

Run: ``python benchmarks/approximation.py`` (a few minutes) or ``--quick``.
"""

from __future__ import annotations

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import parse_args, print_table, write_json

from kernelkit.datasets import load_shared_table
from kernelkit.diagnostics import (data_diameter, hoeffding_epsilon, rahimi_recht_epsilon,
                                   spectral_second_moment)
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF, Cauchy, Laplacian
from sklearn.kernel_approximation import RBFSampler

DELTA = 0.05


def kernels_for(X):
    rng = np.random.default_rng(1)
    A, B = X[rng.integers(len(X), size=4000)], X[rng.integers(len(X), size=4000)]

    def r(g):
        return float(f"{g:.2g}")

    l2 = np.median(np.sum((A - B) ** 2, axis=1))
    l1 = np.median(np.sum(np.abs(A - B), axis=1))
    per_coordinate = np.median((A - B) ** 2)
    return [RBF(gamma=r(1.0 / l2)), Laplacian(gamma=r(1.0 / l1)),
            Cauchy(gamma=r(np.sqrt(1.0 / (X.shape[1] * per_coordinate))))]


def errors(Z, K, level):
    E = np.abs(Z @ Z.T - K)
    return float(E.max()), float(E.mean()), float(np.mean(E >= level))


def main():
    args = parse_args(__doc__.splitlines()[0])
    n, Ds, repeats = (600, [10, 100, 1000], 2) if args.quick else \
        (3000, [10, 30, 100, 300, 1000, 3000, 10000], 5)
    X, _, _ = load_shared_table("537_houses")
    X = X[np.random.default_rng(0).permutation(len(X))[:n]]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    d, diameter = X.shape[1], data_diameter(X)
    print(f"California housing: {n} standardised rows x {d}, diameter {diameter:.3g}, "
          f"{n * n} pairs, {repeats} draws, delta = {DELTA}")
    rows = []
    for kernel in kernels_for(X):
        K = kernel(X)
        sigma2 = spectral_second_moment(kernel.spectral_density(), d)
        makers = {"kernelkit": lambda D, s: RandomFourierFeatures(kernel, D, random_state=s)}
        if isinstance(kernel, RBF):
            makers["sklearn RBFSampler"] = lambda D, s: RBFSampler(
                gamma=kernel.gamma_value, n_components=D, random_state=s)
        for D in Ds:
            a = hoeffding_epsilon(D, DELTA)
            eps = rahimi_recht_epsilon(D, DELTA, sigma2=sigma2, diameter=diameter, n_features=d)
            for lib, make in makers.items():
                stats = np.array([errors(make(D, 1000 * D + s).fit_transform(X), K, a)
                                  for s in range(repeats)])
                mx, mean, frac = np.median(stats, axis=0)
                rows.append({"kernel": repr(kernel), "library": lib, "D": D,
                             "max_error": mx, "mean_error": mean,
                             "hoeffding_level": a, "frac_pairs_over_hoeffding": frac,
                             "uniform_level": eps,
                             # None where there is no uniform bound (eps = inf)
                             "max_inside_uniform": (bool(np.all(stats[:, 0] < eps))
                                                    if np.isfinite(eps) else None),
                             "max_error_per_draw": stats[:, 0].tolist()})
        print()
        print_table([r for r in rows if r["kernel"] == repr(kernel)],
                    [("kernel", "kernel", ""), ("library", "library", ""), ("D", "D", "d"),
                     ("max_error", "max err", ".4f"), ("mean_error", "mean err", ".4f"),
                     ("hoeffding_level", "Hoeffding a", ".4f"),
                     ("frac_pairs_over_hoeffding", "pairs >= a", ".2e"),
                     ("uniform_level", "uniform eps", ".3g"),
                     ("max_inside_uniform", "max < eps", "")])
        if np.isinf(sigma2):
            print("  (no uniform bound: E[w'w] is infinite for the Laplacian kernel's Cauchy "
                  "spectral density)")
    for row in rows:  # JSON has no inf
        row["uniform_level"] = str(row["uniform_level"]) if np.isinf(row["uniform_level"]) \
            else row["uniform_level"]
    write_json("approximation", {"question": "RFF error against D and the bounds",
                                 "n": n, "delta": DELTA, "diameter": diameter, "rows": rows},
               quick=args.quick)


if __name__ == "__main__":
    main()
