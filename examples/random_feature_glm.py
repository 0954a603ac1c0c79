"""
Random features + a GLM: least squares and logistic regression on q = 30 features
=================================================================================

Lecture: Random features -- "form psi, run your favourite linear method": the
random-feature GLM table with q = 30 features.

The recipe of the lectures: draw q random basis functions psi(x; w_1..w_q)
once, map every input to z = psi(x) in R^q, and fit a generalised linear model
on z -- least squares for a real target, logistic regression for a label.
Nothing is kernel-specific in the second step: it is the textbook GLM, on q
columns instead of d.

The table fits both GLMs on q = 30 features of four kinds, and on the raw
inputs (the linear GLM) for comparison:

* random Fourier features of the RBF kernel, sqrt(2/q) cos(w'x + b);
* random kitchen sinks with sigmoid units tanh(w'x + b) and with bumps
  1{||x - c|| <= h} (:class:`kernelkit.features.RandomKitchenSinks`);

least squares on the bundled CPU activity data (``cpu_act``, 21 standardised
inputs, the target is the share of time the CPUs run user code, in %):
test RMSE and R^2; logistic regression (C = 100, the intercept as a constant
feature) on the bundled banana data (2-D, two interleaved classes): test
accuracy and log-loss. The least squares come from kernelkit's normal
equations (:func:`kernelkit.solvers.feature_normal_equations`), the logistic
regression is :class:`kernelkit.models.KernelLogisticRegression` with the
linear kernel on z.

Run: ``python examples/random_feature_glm.py`` (about 5 seconds)
"""

import argparse

import numpy as np

from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.features import RandomFourierFeatures, RandomKitchenSinks
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelLogisticRegression
from kernelkit.solvers import feature_normal_equations, solve_normal_equations

Q = 30
C = 100.0


class RawInputs:
    """The identity map (the plain linear GLM), with the transformers' fit/transform."""

    def fit(self, X):
        return self

    def transform(self, X):
        return np.asarray(X, dtype=np.float64)


def feature_maps(d, q=Q, seed=0):
    """The four kinds of features of the table, unfitted, for inputs of dimension d."""
    gamma = 1.0 / (2.0 * d)  # standardised inputs: about the median squared distance / 4
    return {
        "raw inputs (linear)": RawInputs(),
        "random Fourier (RBF)": RandomFourierFeatures(RBF(gamma=gamma), n_components=q,
                                                      random_state=seed),
        "sinks: sigmoid": RandomKitchenSinks(q, basis="sigmoid", gamma=gamma, random_state=seed),
        "sinks: bump": RandomKitchenSinks(q, basis="bump", random_state=seed),
    }


def with_constant(Z):
    """z with a constant 1 appended: the logistic model's (penalised) intercept."""
    return np.hstack([Z, np.ones((len(Z), 1))])


def least_squares(Z_train, y_train, Z_test):
    """Ordinary least squares with an intercept, from kernelkit's normal equations."""
    ne = feature_normal_equations(lambda B: B, Z_train, y_train, n_jobs=1)
    coef, intercept, _ = solve_normal_equations(ne, 0.0, fit_intercept=True)
    return Z_train @ coef[:, 0] + intercept[0], Z_test @ coef[:, 0] + intercept[0]


def logistic(Z_train, y_train, Z_test):
    """L2-penalised logistic regression (scikit-learn's C) on [z, 1]; returns P(y = +1)."""
    clf = KernelLogisticRegression(Linear(), C=C).fit(with_constant(Z_train), y_train)
    positive = list(clf.classes_).index(1)
    return (clf.predict_proba(with_constant(Z_train))[:, positive],
            clf.predict_proba(with_constant(Z_test))[:, positive])


def standardised_split(X, y, n_train, n_test, seed=0):
    perm = np.random.default_rng(seed).permutation(len(X))
    train, test = perm[:n_train], perm[n_train:n_train + n_test]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    sd[sd == 0] = 1.0
    return (X[train] - mu) / sd, y[train], (X[test] - mu) / sd, y[test]


def datasets(quick=False):
    """(regression split, classification split) of the table."""
    n_reg, n_cls = (600, 300) if quick else (4000, 2000)
    X, y = load_cpu_act(return_X_y=True)
    regression = standardised_split(X, y.astype(np.float64), n_reg, 2000)
    X, y = load_banana(return_X_y=True)
    classification = standardised_split(X, y, n_cls, 2000)
    return regression, classification


def run(quick=False):
    """The table: test RMSE / R^2 of least squares, accuracy / log-loss of logistic regression."""
    (Xr, yr, Xr_test, yr_test), (Xc, yc, Xc_test, yc_test) = datasets(quick)
    rows = {}
    for name in feature_maps(Xr.shape[1]):
        fmap_r = feature_maps(Xr.shape[1])[name].fit(Xr)
        fmap_c = feature_maps(Xc.shape[1])[name].fit(Xc)
        _, pred = least_squares(fmap_r.transform(Xr), yr, fmap_r.transform(Xr_test))
        _, proba = logistic(fmap_c.transform(Xc), yc, fmap_c.transform(Xc_test))
        p_true = np.where(yc_test == 1, proba, 1.0 - proba)
        rows[name] = {
            "q": fmap_r.transform(Xr[:1]).shape[1],
            "rmse": float(np.sqrt(np.mean((pred - yr_test) ** 2))),
            "r2": float(1.0 - np.mean((pred - yr_test) ** 2) / np.var(yr_test)),
            "accuracy": float(np.mean(np.where(proba > 0.5, 1, -1) == yc_test)),
            "log_loss": float(-np.mean(np.log(np.clip(p_true, 1e-300, None)))),
            "prediction": pred, "probability": proba,  # on the test rows
        }
    print(f"q = {Q} random features, then a GLM. Least squares on cpu_act ({len(Xr)} train, "
          f"{len(Xr_test)} test); logistic regression (C = {C:g}) on banana ({len(Xc)} train, "
          f"{len(Xc_test)} test)\n")
    print(f"{'features':22s} {'q (cpu_act)':>11s} {'RMSE':>7s} {'R^2':>6s} "
          f"{'accuracy':>9s} {'log-loss':>9s}")
    for name, r in rows.items():
        print(f"{name:22s} {r['q']:11d} {r['rmse']:7.2f} {r['r2']:6.3f} {r['accuracy']:9.3f} "
              f"{r['log_loss']:9.3f}")
    return {"q": Q, "C": C, "rows": rows, "quick": quick}


def plot(results):
    """Bars of the table: R^2 of least squares and accuracy of logistic regression."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4), layout="constrained")
    names = list(results["rows"])
    ticks = [n.replace(" (", "\n(").replace(": ", ":\n") for n in names]
    for ax, key, title in zip(fig.subplots(1, 2), ("r2", "accuracy"),
                              ("least squares on cpu_act: test R^2",
                               "logistic regression on banana: test accuracy")):
        values = [results["rows"][n][key] for n in names]
        ax.bar(range(len(names)), values, color=["0.6"] + ["tab:blue"] * (len(names) - 1))
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:.3f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(names)), ticks, fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{title} (q = {results['q']})", fontsize=10)
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(description="Random features and a GLM, q = 30.")
    parser.add_argument("--quick", action="store_true", help="fewer rows (a test run)")
    parser.add_argument("--out", default="random_feature_glm.png", help="PNG file to write")
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
