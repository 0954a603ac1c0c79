"""Random kitchen sinks (constrained ERM) vs scikit-learn's RBFSampler + a linear model.

Question: at an equal number q of random cosine features, how long does
kernelkit's KitchenSinksClassifier / KitchenSinksRegressor (features drawn
as RBFSampler's, w ~ N(0, 2 gamma I), weights fitted by the box-constrained
ERM with accelerated projected gradient) take against the usual recipe,
``make_pipeline(RBFSampler, LogisticRegression / Ridge)``, and how good is
each answer?

Data: banana (bundled, 5,300 x 2, classification: 4,000 train / 1,300 test)
and cpu_act (bundled, 8,192 x 21, regression: 6,000 train / 2,192 test); X
standardised with the training statistics, cpu_act's y too (RMSE quoted in
the original units). Same gamma for both libraries (banana 1/d = 0.5,
cpu_act 0.01), q = 100, 500, 2000. kernelkit: default C = 100, max_iter =
1000, tol = 1e-3. Peers: LogisticRegression(C=100, lbfgs, max_iter=1000)
and Ridge(alpha=1e-2) on RBFSampler features. The two models differ (a box
instead of an L2 penalty), so quality is reported next to time.

Measured: fit (feature map + solver), median of 3 alternating repeats (1 for
--quick, q = 100, 500 only). Ratio = peer time / kernelkit time (> 1: kernelkit
faster).

Run: ``python benchmarks/kitchen_sinks.py`` (a few minutes) or ``--quick``.
"""

from __future__ import annotations

import warnings

import numpy as np

import _common  # noqa: F401
from _common import alternate, parse_args, print_table, write_json

from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

from kernelkit.datasets import load_banana, load_cpu_act
from kernelkit.models import KitchenSinksClassifier, KitchenSinksRegressor


def split(X, y, n_train, regression):
    perm = np.random.default_rng(0).permutation(len(X))
    tr, te = perm[:n_train], perm[n_train:]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    sd[sd == 0] = 1.0
    X = (X - mu) / sd
    ym, ys = (y[tr].mean(), y[tr].std()) if regression else (0.0, 1.0)
    y = (y - ym) / ys if regression else y
    return X[tr], y[tr], X[te], y[te], ys


def main():
    args = parse_args(__doc__.splitlines()[0])
    qs = (100, 500) if args.quick else (100, 500, 2000)
    repeats = 1 if args.quick else 3
    warnings.simplefilter("ignore", ConvergenceWarning)
    rows = []
    problems = [("banana", load_banana(return_X_y=True), 4000, False, 0.5),
                ("cpu_act", load_cpu_act(return_X_y=True), 6000, True, 0.01)]
    for name, (X, y), n_train, regression, gamma in problems:
        Xtr, ytr, Xte, yte, ys = split(X, y, n_train, regression)
        for q in qs:
            if regression:
                ours = KitchenSinksRegressor(q, gamma=gamma, random_state=0)
                peer = make_pipeline(RBFSampler(gamma=gamma, n_components=q, random_state=0),
                                     Ridge(alpha=1e-2))
            else:
                ours = KitchenSinksClassifier(q, gamma=gamma, random_state=0)
                peer = make_pipeline(RBFSampler(gamma=gamma, n_components=q, random_state=0),
                                     LogisticRegression(C=100.0, max_iter=1000))
            out = alternate({"peer": lambda: peer.fit(Xtr, ytr),
                             "kernelkit": lambda: ours.fit(Xtr, ytr)}, repeats)

            def quality(model):
                if regression:
                    return float(np.sqrt(np.mean((model.predict(Xte) - yte) ** 2)) * ys)
                return float(model.score(Xte, yte))

            rows.append({"data": name, "q": q, "metric": "RMSE" if regression else "accuracy",
                         "peer_s": out["peer"]["median"], "ours_s": out["kernelkit"]["median"],
                         "ratio": out["peer"]["median"] / out["kernelkit"]["median"],
                         "peer_quality": quality(out["peer"]["result"]),
                         "ours_quality": quality(out["kernelkit"]["result"]),
                         "ours_iter": int(ours.n_iter_), "ours_converged": bool(ours.converged_)})
            print_table(rows[-1:], COLUMNS)
    print()
    print_table(rows, COLUMNS)
    write_json("kitchen_sinks", {"question": __doc__.splitlines()[0], "rows": rows},
               quick=args.quick)


COLUMNS = [("data", "data", ""), ("q", "q", "d"), ("metric", "metric", ""),
           ("peer_s", "peer s", ".3g"), ("ours_s", "kernelkit s", ".3g"),
           ("ratio", "ratio", ".2f"), ("peer_quality", "peer quality", ".4g"),
           ("ours_quality", "kernelkit quality", ".4g"), ("ours_iter", "iterations", "d")]


if __name__ == "__main__":
    main()
