"""Feature maps + ridge: kernelkit vs scikit-learn's RBFSampler / Nystroem + Ridge.

Question: at the same number of features D, how fast are kernelkit's random
Fourier features and Nystroem features (transform, and fit + transform), and
ridge regression on them, compared with scikit-learn -- at the same test RMSE?

Data: California housing (``537_houses``, 20,640 x 8), the split of
``krr.py``: 2,000 test rows (seed 0), the other 18,640 for training; X and y
standardised with the training statistics. RBF gamma = 0.5, ridge alpha = 0.1
(on the summed squared errors, with an unpenalised intercept) for both.

Pairs compared at D = 100, 500, 2000 (float64 everywhere):

* ``RBFSampler(gamma, D)`` + ``Ridge(alpha)`` vs ``RandomFourierFeatures(RBF(gamma), D)``
  + kernelkit's streamed normal equations (``solvers.feature_normal_equations``
  and ``solve_normal_equations(..., fit_intercept=True)``: the same model).
* ``Nystroem(kernel="rbf", gamma, n_components=D)`` (uniform centers) + ``Ridge``
  vs kernelkit's ``Nystroem(RBF(gamma), D)`` + the same normal equations.

Timed (medians of 5 alternating repeats, after a warm-up): ``transform`` of
the 18,640 training rows by an already fitted map; ``fit_transform`` of the
map on them; the whole pipeline "fit + predict" (map fit, ridge fit, test
predictions). Ratio = scikit-learn time / kernelkit time (> 1: kernelkit
faster). The random draws differ between libraries, so RMSEs differ a little.

Run: ``python benchmarks/features.py`` (a few minutes) or ``--quick``.
"""

from __future__ import annotations

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import alternate, parse_args, print_table, write_json

from kernelkit.datasets import load_shared_table
from kernelkit.features import Nystroem as KKNystroem
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF
from kernelkit.solvers import feature_normal_equations, solve_normal_equations
from sklearn.kernel_approximation import Nystroem as SKNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import Ridge

GAMMA, ALPHA, N_TEST, SEED = 0.5, 0.1, 2000, 0


def split(n_train=None):
    X, y, _ = load_shared_table("537_houses")
    perm = np.random.default_rng(SEED).permutation(len(X))
    test, train = perm[:N_TEST], perm[N_TEST:]
    train = train if n_train is None else train[:n_train]
    mu, sd, ym, ys = X[train].mean(0), X[train].std(0), y[train].mean(), y[train].std()
    X, y = (X - mu) / sd, (y - ym) / ys
    return X[train], y[train], X[test], y[test]


def makers(D):
    """(sklearn map, kernelkit map) factories, same seed."""
    return {
        "rff": (lambda: RBFSampler(gamma=GAMMA, n_components=D, random_state=1),
                lambda: RandomFourierFeatures(RBF(gamma=GAMMA), D, random_state=1)),
        "nystroem": (lambda: SKNystroem(kernel="rbf", gamma=GAMMA, n_components=D,
                                        random_state=1),
                     lambda: KKNystroem(RBF(gamma=GAMMA), D, random_state=1)),
    }


def sk_pipeline(make, Xtr, ytr, Xte):
    f = make()
    ridge = Ridge(alpha=ALPHA).fit(f.fit_transform(Xtr), ytr)
    return ridge.predict(f.transform(Xte))


def kk_pipeline(make, Xtr, ytr, Xte):
    f = make().fit(Xtr)
    W, b, _ = solve_normal_equations(feature_normal_equations(f.transform, Xtr, ytr), ALPHA,
                                     fit_intercept=True)
    return f.transform(Xte) @ W[:, 0] + b[0]


def rmse(p, y):
    return float(np.sqrt(np.mean((p - y) ** 2)))


def main():
    args = parse_args(__doc__.splitlines()[0])
    Ds, repeats, n_train = ([100, 500], 3, 5000) if args.quick else ([100, 500, 2000], 5, None)
    Xtr, ytr, Xte, yte = split(n_train)
    print(f"California housing: train {Xtr.shape}, test {Xte.shape}, gamma={GAMMA}, "
          f"alpha={ALPHA}, medians of {repeats}")
    for sk_make, kk_make in makers(50).values():  # warm-up, untimed
        sk_pipeline(sk_make, Xtr[:500], ytr[:500], Xte[:10])
        kk_pipeline(kk_make, Xtr[:500], ytr[:500], Xte[:10])
    rows = []
    for D in Ds:
        for method, (sk_make, kk_make) in makers(D).items():
            sk_fitted, kk_fitted = sk_make().fit(Xtr), kk_make().fit(Xtr)
            tr = alternate({"sk": lambda: sk_fitted.transform(Xtr),
                            "kk": lambda: kk_fitted.transform(Xtr)}, repeats)
            ft = alternate({"sk": lambda: sk_make().fit_transform(Xtr),
                            "kk": lambda: kk_make().fit_transform(Xtr)}, repeats)
            pipe = alternate({"sk": lambda: sk_pipeline(sk_make, Xtr, ytr, Xte),
                              "kk": lambda: kk_pipeline(kk_make, Xtr, ytr, Xte)}, repeats)
            row = {"method": method, "D": D}
            for name, res in (("transform", tr), ("fit_transform", ft), ("pipeline", pipe)):
                row[f"{name}_sklearn_s"] = res["sk"]["median"]
                row[f"{name}_kernelkit_s"] = res["kk"]["median"]
                row[f"{name}_ratio"] = res["sk"]["median"] / res["kk"]["median"]
            row["rmse_sklearn"] = rmse(pipe["sk"]["result"], yte)
            row["rmse_kernelkit"] = rmse(pipe["kk"]["result"], yte)
            rows.append(row)
            print(f"  {method} D={D}: transform ratio {row['transform_ratio']:.2f}, "
                  f"fit+predict ratio {row['pipeline_ratio']:.2f}", flush=True)
    print()
    print_table(rows, [
        ("method", "map", ""), ("D", "D", "d"),
        ("transform_sklearn_s", "transform sk s", ".3f"),
        ("transform_kernelkit_s", "kk s", ".3f"), ("transform_ratio", "ratio", ".2f"),
        ("fit_transform_sklearn_s", "fit_transform sk s", ".3f"),
        ("fit_transform_kernelkit_s", "kk s", ".3f"), ("fit_transform_ratio", "ratio", ".2f"),
        ("pipeline_sklearn_s", "fit+predict sk s", ".3f"),
        ("pipeline_kernelkit_s", "kk s", ".3f"), ("pipeline_ratio", "ratio", ".2f"),
        ("rmse_sklearn", "RMSE sk", ".4f"), ("rmse_kernelkit", "RMSE kk", ".4f")])
    write_json("features", {"question": "RFF / Nystroem + ridge vs scikit-learn",
                            "n_train": len(Xtr), "n_test": len(Xte), "gamma": GAMMA,
                            "alpha": ALPHA, "rows": rows}, quick=args.quick)


if __name__ == "__main__":
    main()
