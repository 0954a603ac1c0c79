"""
Generalisation bounds on data: the Rademacher bound and the kitchen-sink bound
==============================================================================

Lecture: Learning theory for kernel methods -- the Rademacher bound of the class
{f : ||f||_H <= B} and the oracle inequality of weighted sums of random kitchen
sinks (Rahimi & Recht 2008, Theorem 1), each against the gap observed on data.

For a loss that is L-Lipschitz in f, with probability 1 - delta every f with
||f||_H <= B has

    R(f) - R_n(f) <= 2 L B sqrt(tr K) / n + 3 M sqrt(log(2/delta) / (2n))

(:func:`kernelkit.diagnostics.generalization_bound`; M = 2 L B kappa bounds the
loss's range). Part 1 fits kernel logistic regression (RBF kernel, no intercept,
so f is in the RKHS; the logistic loss is 1-Lipschitz) on growing samples of the
bundled banana data, reads B = ||f||_H off the fitted model
(:func:`kernelkit.diagnostics.rkhs_norm`, sqrt(u'K u)) and compares the bound with
the observed gap: the mean logistic loss on 2,000 held-out points (standing in for
R) minus the training mean. The bound holds with room to spare -- at these sizes
it is above 1, loose by a factor of tens: what it gives is a guarantee and a rate,
B / sqrt(n) (tr K = n for RBF), not a forecast of the gap; and B itself grows with
n at a fixed C, as the fit uses more of the class. (B is read after the
fit, so strictly the bound is that of the class with this B fixed in advance.)

Part 2 fits weighted sums of q random cosines with the box ``|beta_k| <= C / q``
(``KitchenSinksClassifier``, no intercept) for growing q. Rahimi & Recht's
theorem (:func:`kernelkit.diagnostics.kitchen_sinks_bound`) splits the excess
risk into an estimation term in C / sqrt(n), half of which bounds the observed
gap R - R_n of every function of the random class, and an approximation term in
C / sqrt(q), the price of q random sinks instead of the whole class.

Run: ``python examples/generalization_bounds.py`` (about 10 seconds)
"""

import argparse
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from kernelkit.datasets import load_banana
from kernelkit.diagnostics import generalization_bound, kitchen_sinks_bound, rkhs_norm
from kernelkit.kernels import RBF
from kernelkit.models import KernelLogisticRegression, KitchenSinksClassifier

KERNEL = RBF(gamma=1.0)  # k(x, x) = 1: kappa = 1, tr K = n
C_LOGISTIC = 1.0
C_SINKS = 5.0
DELTA = 0.05


def banana(n_train, n_test, seed=0):
    """Standardised banana points (statistics of the training part), labels -1/+1."""
    X, y = load_banana(return_X_y=True)
    perm = np.random.default_rng(seed).permutation(len(X))
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    mu, sd = X[train].mean(0), X[train].std(0)
    return (X[train] - mu) / sd, y[train], (X[test] - mu) / sd, y[test]


def logistic_loss(y, f):
    """Mean of log(1 + exp(-y f)), computed stably."""
    return float(np.mean(np.logaddexp(0.0, -y * f)))


def run(quick=False):
    """Both bounds against the observed gaps; returns the tables (and the fitted models)."""
    n_values = (100, 400) if quick else (100, 200, 400, 800, 1600)
    q_values = (10, 100) if quick else (10, 30, 100, 300, 1000)
    n_test = 1000 if quick else 2000
    rademacher = []
    for n in n_values:
        X, y, X_test, y_test = banana(n, n_test)
        model = KernelLogisticRegression(KERNEL, C=C_LOGISTIC).fit(X, y)
        bound = generalization_bound(model, delta=DELTA, lipschitz=1.0)  # B = rkhs_norm
        train = logistic_loss(y, model.decision_function(X))
        test = logistic_loss(y_test, model.decision_function(X_test))
        rademacher.append({"n": n, "B": bound.B, "train_loss": train, "test_loss": test,
                           "gap": test - train, "complexity": bound.complexity,
                           "confidence": bound.confidence, "bound": bound.total,
                           "model": model})
    n_sinks = 400 if quick else 2000
    X, y, X_test, y_test = banana(n_sinks, n_test)
    sinks = []
    for q in q_values:
        with warnings.catch_warnings():  # max_iter is a time budget here
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = KitchenSinksClassifier(q, C=C_SINKS, loss="logistic", fit_intercept=False,
                                           random_state=0).fit(X, y)
        terms = kitchen_sinks_bound(n_sinks, q, C_SINKS, 1.0, DELTA, terms=True)
        train = logistic_loss(y, model.decision_function(X))
        test = logistic_loss(y_test, model.decision_function(X_test))
        sinks.append({"q": q, "train_loss": train, "test_loss": test, "gap": test - train,
                      "deviation_bound": terms.estimation / 2,
                      "estimation": terms.estimation, "approximation": terms.approximation,
                      "bound": terms.total, "test_accuracy": float(model.score(X_test, y_test)),
                      "model": model})
    print(f"Part 1: kernel logistic regression, {KERNEL!r}, C = {C_LOGISTIC:g}, delta = "
          f"{DELTA}: R - R_n <= 2 L B sqrt(tr K)/n + 3 M sqrt(log(2/delta)/(2n))")
    print(f"{'n':>6s} {'B':>7s} {'train':>7s} {'test':>7s} {'gap':>7s} {'bound':>7s}")
    for r in rademacher:
        print(f"{r['n']:6d} {r['B']:7.2f} {r['train_loss']:7.3f} {r['test_loss']:7.3f} "
              f"{r['gap']:7.3f} {r['bound']:7.3f}")
    print(f"\nPart 2: {n_sinks} points, q random cosines, |beta_k| <= C/q with C = {C_SINKS:g}: "
          "the gap against half the estimation term, and the whole bound")
    print(f"{'q':>6s} {'train':>7s} {'test':>7s} {'gap':>7s} {'est./2':>7s} {'approx.':>8s} "
          f"{'bound':>7s} {'acc.':>6s}")
    for r in sinks:
        print(f"{r['q']:6d} {r['train_loss']:7.3f} {r['test_loss']:7.3f} {r['gap']:7.3f} "
              f"{r['deviation_bound']:7.3f} {r['approximation']:8.3f} {r['bound']:7.3f} "
              f"{r['test_accuracy']:6.3f}")
    return {"rademacher": rademacher, "sinks": sinks, "n_sinks": n_sinks, "n_test": n_test}


def plot(results):
    """Left: the Rademacher bound and the observed gap against n; right: the kitchen-sink
    terms and the observed gap against q."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    rad = results["rademacher"]
    n = [r["n"] for r in rad]
    left.loglog(n, [r["bound"] for r in rad], "o-", label="bound (Rademacher + McDiarmid)")
    left.loglog(n, [r["complexity"] for r in rad], "s--", label="2 L B sqrt(tr K) / n")
    left.loglog(n, [max(r["gap"], 1e-4) for r in rad], "^-", label="observed gap R - R_n (<= 0 drawn at 1e-4)")
    left.set_xlabel("training points n")
    left.set_ylabel("logistic loss")
    left.set_title("kernel class ||f|| <= B")
    left.legend(fontsize=8)
    sinks = results["sinks"]
    q = [r["q"] for r in sinks]
    right.loglog(q, [r["bound"] for r in sinks], "o-", label="oracle bound (1 - 2 delta)")
    right.loglog(q, [r["approximation"] for r in sinks], "s--", label="approximation ~ C/sqrt(q)")
    right.loglog(q, [r["deviation_bound"] for r in sinks], "d:", label="deviation ~ C/sqrt(n)")
    right.loglog(q, [max(r["gap"], 1e-4) for r in sinks], "^-", label="observed gap R - R_n (<= 0 drawn at 1e-4)")
    right.set_xlabel("random kitchen sinks q")
    right.set_title(f"kitchen sinks, n = {results['n_sinks']}")
    right.legend(fontsize=8)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generalisation bounds against data.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="generalization_bounds.png", help="PNG file to write")
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
