"""
Weighted sums of random kitchen sinks on the banana data (Rahimi & Recht 2008)
==============================================================================

Lecture: Random features -- random kitchen sinks: random cosines, bumps and
sigmoids fitted by the constrained ERM max_i ``|beta_i|`` <= C / q.

The story of the lectures: instead of optimising the basis functions of
f(x) = sum_i beta_i psi(x; w_i), draw w_1..w_q at random once and fit only
the weights, by the constrained ERM

    min (1/n) sum_j l(y_j, f(x_j))   subject to   max_i ``|beta_i|`` <= C / q.

The theory says the excess risk shrinks like C / sqrt(q) + C / sqrt(n):
more random sinks, better functions. This script shows it on the bundled
banana data (5,300 points, 2 features, overlapping banana-shaped classes):

1. test accuracy as q grows, for random cosines, bumps and sigmoids fitted
   by the constrained ERM (logistic loss);
2. the same random cosine features handed to scikit-learn's RidgeClassifier
   (an L2 penalty instead of the box) -- two ways to learn the same weights.

Run: ``python examples/kitchen_sinks.py`` (about 20 seconds)
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import RidgeClassifier
from sklearn.pipeline import make_pipeline

from kernelkit.datasets import load_banana
from kernelkit.features import RandomKitchenSinks
from kernelkit.models import KitchenSinksClassifier

Q_VALUES = (5, 20, 100, 500)
C = 100.0


def main():
    X, y = load_banana(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    train, test = perm[:3000], perm[3000:]
    mu, sd = X[train].mean(0), X[train].std(0)
    X = (X - mu) / sd
    print(f"banana: {len(train)} training and {len(test)} test points, 2 features")
    print(f"constrained ERM, logistic loss, C = {C:g}: test accuracy as q grows\n")
    print(f"{'q':>5}  {'cosine':>8}  {'bump':>8}  {'sigmoid':>8}  {'ridge on cosines':>17}")
    for q in Q_VALUES:
        row = []
        for basis in ("cosine", "bump", "sigmoid"):
            with warnings.catch_warnings():  # max_iter is a time budget here
                warnings.simplefilter("ignore", ConvergenceWarning)
                clf = KitchenSinksClassifier(q, basis=basis, C=C, random_state=0)
                clf.fit(X[train], y[train])
            row.append(clf.score(X[test], y[test]))
        ridge = make_pipeline(RandomKitchenSinks(q, normalize=True, random_state=0),
                              RidgeClassifier(alpha=1e-3)).fit(X[train], y[train])
        row.append(ridge.score(X[test], y[test]))
        print(f"{q:>5}  " + "  ".join(f"{a:8.3f}" for a in row[:3]) + f"  {row[3]:17.3f}")

    print("\nThe bound C: with q = 500 random cosines, a small C underfits")
    for c in (1.0, 10.0, 100.0, 1000.0):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = KitchenSinksClassifier(500, C=c, random_state=0).fit(X[train], y[train])
        active = np.mean(np.isclose(np.abs(clf.coef_), c / 500))
        print(f"  C = {c:6g}: test accuracy {clf.score(X[test], y[test]):.3f}, "
              f"{active:4.0%} of the weights at the bound, {clf.n_iter_} iterations, "
              f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
