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

Run: ``python examples/kitchen_sinks.py [--quick] [--out kitchen_sinks.png]`` (about 20 seconds)
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


def run(quick=False):
    """Test accuracy against q for each basis (and for ridge on the cosines), and the
    share of weights at the bound C/q for several C (``quick``: 1,000 training points,
    q <= 100)."""
    X, y = load_banana(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(X))
    n_train = 1000 if quick else 3000
    train, test = perm[:n_train], perm[n_train:]
    mu, sd = X[train].mean(0), X[train].std(0)
    X = (X - mu) / sd
    q_values = Q_VALUES[:3] if quick else Q_VALUES
    print(f"banana: {len(train)} training and {len(test)} test points, 2 features")
    print(f"constrained ERM, logistic loss, C = {C:g}: test accuracy as q grows\n")
    print(f"{'q':>5}  {'cosine':>8}  {'bump':>8}  {'sigmoid':>8}  {'ridge on cosines':>17}")
    table = {}
    for q in q_values:
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
        table[q] = row
        print(f"{q:>5}  " + "  ".join(f"{a:8.3f}" for a in row[:3]) + f"  {row[3]:17.3f}")
    q_box = 100 if quick else 500
    print(f"\nThe bound C: with q = {q_box} random cosines, a small C underfits")
    bound = {}
    for c in (1.0, 10.0, 100.0, 1000.0):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = KitchenSinksClassifier(q_box, C=c, random_state=0).fit(X[train], y[train])
        active = float(np.mean(np.isclose(np.abs(clf.coef_), c / q_box)))
        bound[c] = (float(clf.score(X[test], y[test])), active)
        print(f"  C = {c:6g}: test accuracy {bound[c][0]:.3f}, "
              f"{active:4.0%} of the weights at the bound, {clf.n_iter_} iterations, "
              f"{time.perf_counter() - t0:.1f} s")
    return {"q": list(table), "table": table, "bound": bound}


def plot(results):
    """Accuracy against q for each basis; accuracy and weights at the bound against C."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    qs = results["q"]
    for k, name in enumerate(("cosine", "bump", "sigmoid", "ridge on cosines")):
        ax.plot(qs, [results["table"][q][k] for q in qs], "o-", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("q random features")
    ax.set_ylabel("test accuracy")
    ax.legend()
    cs = sorted(results["bound"])
    bx.plot(cs, [results["bound"][c][0] for c in cs], "o-", label="test accuracy")
    bx.plot(cs, [results["bound"][c][1] for c in cs], "s--", label="share at |beta| = C/q")
    bx.set_xscale("log")
    bx.set_xlabel("C")
    bx.legend()
    return fig


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description="Weighted sums of random kitchen sinks.")
    parser.add_argument("--quick", action="store_true", help="smaller problem (seconds)")
    parser.add_argument("--out", default="kitchen_sinks.png", help="the picture's file")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return results
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return results


if __name__ == "__main__":
    main()
