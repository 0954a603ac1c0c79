"""
The random-feature recipe: form psi, run your favourite linear method
=====================================================================

Lecture: Random features -- "form psi, run your favourite linear method":
random Fourier features psi(x) = sqrt(2/D) cos(W'x + b) followed by an ordinary
linear learner, compared with the exact kernel machine, and kept in a model file.

Bochner's theorem makes psi(x)'psi(y) an unbiased estimate of a shift-invariant
kernel k(x, y), with an error of order 1/sqrt(D). So any linear method run on
Z = psi(X) learns (nearly) the kernel machine of k: scikit-learn's ``Ridge`` on
Z is kernel ridge regression with the same alpha, ``LogisticRegression`` on Z
(no intercept) is kernel logistic regression with the same C. The cost changes
from the n x n Gram matrix to the n x D feature matrix.

This script runs the recipe as a scikit-learn pipeline,
``make_pipeline(StandardScaler(), RandomFourierFeatures(RBF(gamma), D), Ridge(alpha))``,
on the bundled cpu_act data (regression: the CPU's user time from 21 system
counters), and ``... LogisticRegression(C, fit_intercept=False)`` on the bundled
banana data (two overlapping classes in the plane), for growing D. For each D it
prints the test error of the recipe next to the exact kernel model (KernelRidge,
KernelLogisticRegression), how far their predictions are apart, and checks that
the pipeline saved with :func:`kernelkit.save` and read back with
:func:`kernelkit.load` predicts exactly as before. The figure shows the test
error against D, with the exact model as a line.

Run: ``python examples/random_feature_recipe.py`` (about 15 seconds)
"""

import argparse
import os
import tempfile

import numpy as np
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelkit
from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF
from kernelkit.models import KernelLogisticRegression, KernelRidge

#: The kernels and penalties of the story (on standardised inputs).
REGRESSION_GAMMA, REGRESSION_ALPHA = 0.02, 1.0
CLASSIFICATION_GAMMA, CLASSIFICATION_C = 1.0, 10.0


def split(X, y, n_train, n_test, seed=0):
    """A random train/test split of the first n_train + n_test rows of a permutation."""
    perm = np.random.default_rng(seed).permutation(len(X))
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    return X[train], y[train], X[test], y[test]


def regression_recipe(D, random_state=0):
    """StandardScaler -> random Fourier features of RBF -> scikit-learn's Ridge."""
    return make_pipeline(StandardScaler(),
                         RandomFourierFeatures(RBF(gamma=REGRESSION_GAMMA), n_components=D,
                                               random_state=random_state),
                         Ridge(alpha=REGRESSION_ALPHA))


def regression_exact():
    return make_pipeline(StandardScaler(),
                         KernelRidge(RBF(gamma=REGRESSION_GAMMA), alpha=REGRESSION_ALPHA))


def classification_recipe(D, random_state=0):
    """StandardScaler -> random Fourier features -> LogisticRegression (no intercept)."""
    return make_pipeline(StandardScaler(),
                         RandomFourierFeatures(RBF(gamma=CLASSIFICATION_GAMMA), n_components=D,
                                               random_state=random_state),
                         LogisticRegression(C=CLASSIFICATION_C, fit_intercept=False,
                                            max_iter=2000))


def classification_exact():
    return make_pipeline(StandardScaler(),
                         KernelLogisticRegression(RBF(gamma=CLASSIFICATION_GAMMA),
                                                  C=CLASSIFICATION_C))


def _saved_and_loaded(model, X, folder):
    """Save, load and compare predictions; returns the largest difference (0.0 expected)."""
    path = os.path.join(folder, "recipe.kk")
    kernelkit.save(model, path)
    again = kernelkit.load(path)
    return float(np.max(np.abs(again.predict(X) - model.predict(X))))


def run(quick=False):
    """The recipe for each D on both data sets, with the exact models; returns the numbers."""
    D_values = (50, 200, 800) if quick else (50, 100, 200, 400, 800, 1600)
    n_reg, n_cls = (500, 400) if quick else (3000, 3000)
    n_test = 1000 if quick else 2000
    Xr, yr, Xr_test, yr_test = split(*load_cpu_act(return_X_y=True), n_reg, n_test)
    Xc, yc, Xc_test, yc_test = split(*load_banana(return_X_y=True), n_cls, n_test)
    exact_reg = regression_exact().fit(Xr, yr)
    exact_cls = classification_exact().fit(Xc, yc)
    exact_rmse = float(np.sqrt(np.mean((exact_reg.predict(Xr_test) - yr_test) ** 2)))
    exact_acc = float(exact_cls.score(Xc_test, yc_test))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for D in D_values:
            reg = regression_recipe(D).fit(Xr, yr)
            cls = classification_recipe(D).fit(Xc, yc)
            pred = reg.predict(Xr_test)
            rows.append({
                "D": D,
                "rmse": float(np.sqrt(np.mean((pred - yr_test) ** 2))),
                "rmse_gap_to_exact": float(np.sqrt(np.mean((pred - exact_reg.predict(Xr_test))
                                                           ** 2))),
                "accuracy": float(cls.score(Xc_test, yc_test)),
                "agreement": float(np.mean(cls.predict(Xc_test) ==
                                           exact_cls.predict(Xc_test))),
                "reload_difference": max(_saved_and_loaded(reg, Xr_test, folder),
                                         _saved_and_loaded(cls, Xc_test, folder)),
            })
    results = {"D": np.array(D_values), "rows": rows, "exact_rmse": exact_rmse, "n_test": n_test,
               "exact_accuracy": exact_acc, "n_regression": n_reg, "n_classification": n_cls,
               "regression_baseline": float(np.std(yr_test))}
    print(f"cpu_act: {n_reg} training rows; RBF(gamma={REGRESSION_GAMMA}) ridge, alpha = "
          f"{REGRESSION_ALPHA:g}; exact KernelRidge test RMSE {exact_rmse:.3f} "
          f"(predicting the mean: {results['regression_baseline']:.2f})")
    print(f"banana: {n_cls} training rows; RBF(gamma={CLASSIFICATION_GAMMA}) logistic, C = "
          f"{CLASSIFICATION_C:g}; exact KernelLogisticRegression test accuracy {exact_acc:.3f}\n")
    print(f"{'D':>6s} {'Ridge RMSE':>11s} {'RMS to exact':>13s} {'LogReg acc':>11s} "
          f"{'agree':>7s} {'reload diff':>12s}")
    for r in rows:
        print(f"{r['D']:6d} {r['rmse']:11.3f} {r['rmse_gap_to_exact']:13.3f} "
              f"{r['accuracy']:11.3f} {r['agreement']:7.3f} {r['reload_difference']:12.1e}")
    return results


def plot(results):
    """Test error of the recipe against D, the exact kernel models as horizontal lines."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    D = results["D"]
    left.semilogx(D, [r["rmse"] for r in results["rows"]], "o-",
                  label="RFF + scikit-learn Ridge")
    left.axhline(results["exact_rmse"], color="k", ls="--", label="exact KernelRidge")
    left.set_xlabel("number of random features D")
    left.set_ylabel("test RMSE (cpu_act)")
    left.set_title("regression")
    left.legend()
    right.semilogx(D, [1 - r["accuracy"] for r in results["rows"]], "o-",
                   label="RFF + LogisticRegression")
    right.axhline(1 - results["exact_accuracy"], color="k", ls="--",
                  label="exact KernelLogisticRegression")
    right.set_xlabel("number of random features D")
    right.set_ylabel("test error (banana)")
    right.set_title("classification")
    right.legend()
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Random features + a linear method.")
    parser.add_argument("--quick", action="store_true", help="fewer points (a test run)")
    parser.add_argument("--out", default="random_feature_recipe.png", help="PNG file to write")
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
