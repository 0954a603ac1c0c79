"""
Training kernel machines: SMO, Pegasos, Newton, L-BFGS, Platt and several classes
=================================================================================

Lecture: Solving kernel machines -- the SVM dual by SMO against Pegasos'
stochastic subgradient steps, Newton's method and L-BFGS in the dual,
probabilities from SVM scores (Platt), and several classes (one-vs-one SVMs
against multinomial logistic regression).

On the bundled banana data (standardised, RBF kernel exp(-||x - y||^2)):

* **SMO against Pegasos** (C = 1). SMO (:func:`kernelkit.solvers.smo_gram`)
  moves two dual variables per step and knows how far it is from the optimum:
  its duality gap P(alpha) - D(alpha) falls to 0 in a few hundred steps.
  Pegasos (:func:`kernelkit.solvers.pegasos_gram`) takes one sample per step
  and a subgradient step of size 1/(lambda t), lambda = 1/(nC); its averaged
  iterate approaches the optimum at the rate 1/T of the notes. Both kinds of
  step cost O(n) with a stored Gram matrix; the figure draws each one's
  primal suboptimality P - P* against the steps (P* from SMO, which fits an
  offset b that Pegasos does not: Pegasos stays above P*).
* **Newton against L-BFGS** on kernel logistic regression,
  J(u) = (lambda/2) u'Ku + (1/n) sum_i log(1 + exp(-y_i (Ku)_i)).
  Newton's method (:func:`kernelkit.solvers.newton_dual`) converges
  quadratically: a handful of n x n solves. L-BFGS
  (:func:`kernelkit.solvers.lbfgs_dual`) needs only gradients and takes tens of
  cheap steps. Both reach the same J.
* **Platt's sigmoid**. SVM scores f(x) are not probabilities; Platt fits
  P(y = 1 | f) = 1 / (1 + exp(A f + B)) on held-out scores
  (:func:`kernelkit.solvers.platt.sigmoid_fit`). The figure compares the
  sigmoid with the observed frequencies of y = 1 in bins of f.
* **Three classes**. One-vs-one trains an SVM per pair of classes on that
  pair's Gram block (:func:`kernelkit.solvers.class_pairs.pair_grams` yields
  the blocks without forming the full n x n matrix) and lets the three
  pairwise SVMs vote; multinomial logistic regression
  (:func:`kernelkit.solvers.lbfgs_multinomial`) fits one score per class with
  a softmax. On three overlapping Gaussian clouds both reach about the same
  test accuracy and agree on most points.

Run: ``python examples/training_kernel_machines.py`` (about 10 seconds)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF
from kernelkit.solvers import (
    lbfgs_dual,
    lbfgs_multinomial,
    newton_dual,
    pegasos_gram,
    smo_gram,
)
from kernelkit.solvers.class_pairs import pair_grams
from kernelkit.solvers.platt import sigmoid_fit

KERNEL = RBF(gamma=1.0)
C = 1.0
LAM = 1e-2  # lambda of the logistic and multinomial fits
CENTRES = np.array([[0.0, 1.0], [-0.9, -0.5], [0.9, -0.5]])  # the three classes' means


def banana(n, offset=0):
    """n standardised banana points (rows offset..offset+n) with labels in {-1, +1}."""
    data = load_banana()
    X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    y = np.where(data.target == np.unique(data.target)[1], 1.0, -1.0)
    return X[offset:offset + n], y[offset:offset + n]


def three_clouds(n_per_class, seed):
    """Three Gaussian clouds (sd 0.6) around CENTRES, labels 0, 1, 2, sorted by class."""
    rng = np.random.default_rng(seed)
    X = np.vstack([c + 0.6 * rng.normal(size=(n_per_class, 2)) for c in CENTRES])
    return X, np.repeat(np.arange(3), n_per_class)


def svm_primal(K, y, alpha, bias=0.0):
    """1/2 ||w||^2 + C sum_i max(0, 1 - y_i f(x_i)), f = K (alpha y) + b."""
    v = alpha * y
    f = K @ v + bias
    return 0.5 * float(v @ K @ v) + C * float(np.sum(np.maximum(0.0, 1.0 - y * f)))


def _smo_against_pegasos(K, y, quick):
    best = smo_gram(K, y, C, tol=1e-8)
    smo_steps, smo_gap, smo_sub = [], [], []
    for cap in (3, 10, 30, 100, 300, 1000, 3000):
        r = smo_gram(K, y, C, max_iter=cap, tol=1e-8)  # stopped early on purpose
        smo_steps.append(r.n_iter)
        smo_gap.append(r.duality_gap)
        smo_sub.append(svm_primal(K, y, r.alpha, r.bias) - best.primal_objective)
        if r.converged:
            break
    n = len(y)
    peg_steps = [n // 4, n, 4 * n, 16 * n] + ([] if quick else [64 * n])
    peg_sub = [svm_primal(K, y, pegasos_gram(K, y, C, T, random_state=0).alpha)
               - best.primal_objective for T in peg_steps]
    return {"smo_optimum": best.primal_objective, "smo_dual": best.dual_objective,
            "smo_n_iter": best.n_iter, "smo_alpha": best.alpha, "smo_bias": best.bias,
            "smo_steps": smo_steps, "smo_gap": smo_gap, "smo_suboptimality": smo_sub,
            "pegasos_steps": peg_steps, "pegasos_suboptimality": peg_sub}


def _newton_against_lbfgs(K, y):
    traces = {"newton": [], "lbfgs": []}
    newton = newton_dual(K, y, "logistic", LAM, tol=1e-10,
                         callback=lambda it, g: traces["newton"].append(g))
    lbfgs = lbfgs_dual(K, y, "logistic", LAM, tol=1e-10,
                       callback=lambda it, g: traces["lbfgs"].append(g))
    return {"newton_objective": newton.objective, "lbfgs_objective": lbfgs.objective,
            "newton_n_iter": newton.n_iter, "lbfgs_n_iter": lbfgs.n_iter,
            "newton_coef": newton.coef, "lbfgs_coef": lbfgs.coef,
            "newton_trace": np.array(traces["newton"]), "lbfgs_trace": np.array(traces["lbfgs"])}


def _platt(X, y, X_cal, y_cal, smo):
    scores = KERNEL(X_cal, X) @ (smo["smo_alpha"] * y) + smo["smo_bias"]
    A, B = sigmoid_fit(scores, y_cal)
    return {"platt_A": float(A), "platt_B": float(B), "calibration_scores": scores,
            "calibration_labels": y_cal}


def _three_classes(n_per_class, n_test_per_class):
    X, y = three_clouds(n_per_class, seed=3)
    X_test, y_test = three_clouds(n_test_per_class, seed=4)
    starts = np.searchsorted(y, np.arange(4))  # X is sorted by class
    votes = np.zeros((len(X_test), 3))
    for a, b, K_ab in pair_grams(KERNEL, X, starts):
        rows = np.r_[starts[a]:starts[a + 1], starts[b]:starts[b + 1]]
        y_ab = np.where(y[rows] == a, 1.0, -1.0)
        r = smo_gram(np.ascontiguousarray(K_ab), y_ab, C, tol=1e-6)
        f = KERNEL(X_test, X[rows]) @ (r.alpha * y_ab) + r.bias
        votes[:, a] += f > 0
        votes[:, b] += f <= 0
    ovo = np.argmax(votes, axis=1)
    K = KERNEL(X, X)
    multi = lbfgs_multinomial(K, np.eye(3)[y], LAM, tol=1e-8)
    multinomial = np.argmax(KERNEL(X_test, X) @ multi.coef, axis=1)
    return {"X3": X, "y3": y, "X3_test": X_test, "y3_test": y_test, "starts": starts,
            "ovo_predictions": ovo, "multinomial_predictions": multinomial,
            "multinomial_coef": multi.coef, "multinomial_objective": multi.objective,
            "ovo_accuracy": float(np.mean(ovo == y_test)),
            "multinomial_accuracy": float(np.mean(multinomial == y_test)),
            "ovo_multinomial_agreement": float(np.mean(ovo == multinomial))}


def run(quick=False):
    """The four comparisons on banana and three Gaussian clouds; return their numbers."""
    n = 200 if quick else 500
    X, y = banana(n)
    K = KERNEL(X, X)
    results = {"n": n, "X": X, "y": y}
    results.update(_smo_against_pegasos(K, y, quick))
    results.update(_newton_against_lbfgs(K, y))
    X_cal, y_cal = banana(n, offset=n)
    results.update(_platt(X, y, X_cal, y_cal, results))
    results.update(_three_classes(60 if quick else 150, 200 if quick else 1000))

    print(f"SVM on banana, n = {n}, C = {C:g}: SMO's optimum P* = {results['smo_optimum']:.4f} "
          f"in {results['smo_n_iter']} steps")
    print(f"{'steps':>8s} {'SMO P - P*':>12s} {'SMO gap':>10s}")
    for s, sub, gap in zip(results["smo_steps"], results["smo_suboptimality"], results["smo_gap"]):
        print(f"{s:8d} {sub:12.4g} {gap:10.3g}")
    print(f"{'steps':>8s} {'Pegasos P - P*':>15s}")
    for s, sub in zip(results["pegasos_steps"], results["pegasos_suboptimality"]):
        print(f"{s:8d} {sub:15.4g}")
    print(f"\nkernel logistic regression, lambda = {LAM:g}: Newton J = "
          f"{results['newton_objective']:.10f} in {results['newton_n_iter']} steps, L-BFGS J = "
          f"{results['lbfgs_objective']:.10f} in {results['lbfgs_n_iter']} steps")
    print(f"\nPlatt's sigmoid on {n} held-out SVM scores: A = {results['platt_A']:.3f}, "
          f"B = {results['platt_B']:.3f}")
    print(f"\nthree classes: one-vs-one SVMs test accuracy {results['ovo_accuracy']:.3f}, "
          f"multinomial logistic {results['multinomial_accuracy']:.3f}; they agree on "
          f"{results['ovo_multinomial_agreement']:.1%} of the test points")
    return results


def plot(results):
    """SMO vs Pegasos, Newton vs L-BFGS, Platt's sigmoid, the three-class boundaries."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 10), layout="constrained")
    ax = fig.add_subplot(2, 2, 1)
    steps, sub = np.array(results["smo_steps"]), np.array(results["smo_suboptimality"])
    ax.loglog(steps[sub > 0], sub[sub > 0], "o-", label="SMO: P - P* (P* is SMO's last point)")
    ax.loglog(steps, results["smo_gap"], "s:", label="SMO: duality gap P - D")
    ax.loglog(results["pegasos_steps"], results["pegasos_suboptimality"], "^-",
              label="Pegasos (averaged, no offset): P - P*")
    ax.set_xlabel("steps (each O(n))")
    ax.set_ylabel("suboptimality")
    ax.legend(fontsize=8)
    ax.set_title("the SVM: SMO against Pegasos")

    ax = fig.add_subplot(2, 2, 2)
    for key, name in (("newton", "Newton"), ("lbfgs", "L-BFGS")):
        trace = results[key + "_trace"]
        ax.semilogy(np.arange(1, len(trace) + 1), trace, "o-", ms=3, label=name)
    ax.set_xlabel("iteration")
    ax.set_ylabel("gradient norm")
    ax.legend()
    ax.set_title("kernel logistic regression: Newton against L-BFGS")

    ax = fig.add_subplot(2, 2, 3)
    f, labels = results["calibration_scores"], results["calibration_labels"]
    edges = np.quantile(f, np.linspace(0, 1, 11))
    which = np.clip(np.searchsorted(edges, f, side="right") - 1, 0, 9)
    centres = [f[which == k].mean() for k in range(10)]
    freq = [np.mean(labels[which == k] > 0) for k in range(10)]
    ax.plot(centres, freq, "ko", label="frequency of y = +1 (deciles of f)")
    grid = np.linspace(f.min(), f.max(), 200)
    A, B = results["platt_A"], results["platt_B"]
    ax.plot(grid, 1.0 / (1.0 + np.exp(A * grid + B)), "C3",
            label=f"Platt: 1 / (1 + exp({A:.2f} f {B:+.2f}))")
    ax.set_xlabel("SVM score f(x)")
    ax.set_ylabel("P(y = +1 | f)")
    ax.legend(fontsize=8)
    ax.set_title("probabilities from SVM scores")

    ax = fig.add_subplot(2, 2, 4)
    X, y = results["X3"], results["y3"]
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="viridis", s=10)
    g1, g2 = np.meshgrid(np.linspace(-2.5, 2.5, 150), np.linspace(-2.5, 2.5, 150))
    grid = np.c_[g1.ravel(), g2.ravel()]
    labels = np.argmax(KERNEL(grid, X) @ results["multinomial_coef"], axis=1)
    ax.contour(g1, g2, labels.reshape(g1.shape), levels=[0.5, 1.5], colors="k")
    ax.set_title(f"three classes: multinomial {results['multinomial_accuracy']:.2f}, "
                 f"one-vs-one {results['ovo_accuracy']:.2f} (test accuracy)")
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Training kernel machines.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="training_kernel_machines.png", help="PNG file to write")
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
