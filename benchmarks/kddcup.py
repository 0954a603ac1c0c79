"""KDD Cup 99 with random Fourier features: kernelkit vs RBFSampler + RidgeClassifier.

Question: Rahimi & Recht's (2007) large-scale experiment -- random Fourier
features plus a linear ridge classifier on KDD Cup 99 -- how fast is it in
kernelkit compared with scikit-learn, at the same accuracy? (Target: the
peer's accuracy in <= 5 s, fit + predict.)

Data: ``kddcup.tsv.gz`` (494,020 x 41, 23 classes; the categorical columns
1-3 -- protocol, service, flag -- are stored label-encoded). Preprocessing,
identical for both and not timed: a fixed random split (seed 0) into 400,000
training and 94,020 test rows; columns 1-3 one-hot encoded (3 + 66 + 11
columns); the 38 numeric columns standardised with the training statistics
(constant columns left at 0): 118 float64 columns.

Peer: ``RBFSampler(gamma, n_components=D)`` + ``RidgeClassifier(alpha=1)``
(one-vs-rest least squares on +-1 targets, with intercept).
kernelkit: ``RandomFourierFeatures(RBF(gamma), D, dtype="float32")`` (the
same cos+bias features, float32 storage, multi-threaded transform) and the
same ridge classifier solved from the normal equations Z'Z accumulated block
by block (``solvers.feature_normal_equations``: Z is never stored), with an
unpenalised intercept, alpha = 1, one column of +-1 targets per class; the
class with the largest score wins. Both get the same float64 arrays; the
timed call is fit + predict on the test set. The random frequencies differ
(each library draws its own), so accuracies differ slightly.

D = 500: medians of 3 alternating repeats; D = 2000 (full run only): one
run each.

Falkon part (issue 10): ``KernelRidgeClassifier(RBF(gamma=0.01), alpha=1,
solver="falkon", n_centers=2000, center_selection="distinct")`` (M centers
drawn among the 121k distinct training rows; the repeated rows merged, the
preconditioner and the solve chosen automatically: on this rank-deficient
K_MM the eigen preconditioner and a direct solve in its directions) against
scikit-learn's ``Nystroem(gamma=0.01, n_components=M)`` +
``RidgeClassifier(alpha=1)`` (the same Nystroem model with centers drawn
uniformly from the rows; its alpha is the same penalty of ||f||^2, and the
same alpha and gamma as the RFF part), medians of 3 alternating runs (1 with
``--quick``), fit + predict. Also one run of the uniform centers
(``center_selection="uniform"``) for comparison. The load average
(``os.getloadavg``) is recorded with every row.

Run: ``python benchmarks/kddcup.py`` (about 5 minutes) or ``--quick``;
``KDD_PART=falkon`` (or ``rff``) runs one part and keeps the other's figures;
``KDD_FALKON_MAX_ITER=30`` caps Falkon's iterations.
"""

from __future__ import annotations

import json
import os

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import RESULTS, alternate, parse_args, print_table, write_json

from kernelkit.datasets import load_shared_table
from kernelkit.features import RandomFourierFeatures
from kernelkit.kernels import RBF
from kernelkit.models import KernelRidgeClassifier
from kernelkit.solvers import feature_normal_equations, solve_normal_equations
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.linear_model import RidgeClassifier

GAMMA, ALPHA, N_TRAIN, SEED = 0.01, 1.0, 400_000, 0
CATEGORICAL = (1, 2, 3)


def preprocess(n_train, n_test=None):
    X, y, _ = load_shared_table("kddcup")
    perm = np.random.default_rng(SEED).permutation(len(X))
    train = perm[:n_train]
    test = perm[n_train:] if n_test is None else perm[n_train:n_train + n_test]
    numeric = [j for j in range(X.shape[1]) if j not in CATEGORICAL]
    Xn = X[:, numeric]
    mu, sd = Xn[train].mean(axis=0), Xn[train].std(axis=0)
    sd[sd == 0] = 1.0
    onehot = [(X[:, [j]] == np.unique(X[:, j])[None, :]).astype(np.float64)
              for j in CATEGORICAL]
    Xp = np.hstack([(Xn - mu) / sd] + onehot)
    return (np.ascontiguousarray(Xp[train]), y[train], np.ascontiguousarray(Xp[test]),
            y[test])


def peer(Xtr, ytr, Xte, D):
    rbf = RBFSampler(gamma=GAMMA, n_components=D, random_state=0)
    clf = RidgeClassifier(alpha=ALPHA).fit(rbf.fit_transform(Xtr), ytr)
    return clf.predict(rbf.transform(Xte))


def kernelkit_rff_ridge(Xtr, ytr, Xte, D):
    """One-vs-rest ridge classifier on float32 random Fourier features (RidgeClassifier's
    model), from streamed normal equations."""
    rff = RandomFourierFeatures(RBF(gamma=GAMMA), D, dtype="float32", random_state=0).fit(Xtr)
    classes, code = np.unique(ytr, return_inverse=True)
    Y = np.full((len(ytr), len(classes)), -1.0, dtype=np.float32)
    Y[np.arange(len(ytr)), code] = 1.0
    ne = feature_normal_equations(rff.transform, Xtr, Y)
    W, b, _ = solve_normal_equations(ne, ALPHA, fit_intercept=True)
    scores = rff.transform(Xte) @ W.astype(np.float32) + b.astype(np.float32)
    return classes[np.argmax(scores, axis=1)]


FALKON = {"gamma": GAMMA, "alpha": ALPHA, "n_centers": 2000, "center_selection": "distinct",
          "max_iter": None}


def nystroem_peer(Xtr, ytr, Xte, M):
    ny = Nystroem(kernel="rbf", gamma=FALKON["gamma"], n_components=M, random_state=0)
    clf = RidgeClassifier(alpha=FALKON["alpha"]).fit(ny.fit_transform(Xtr), ytr)
    return clf.predict(ny.transform(Xte))


def _falkon(M, selection, kw):
    return KernelRidgeClassifier(RBF(gamma=FALKON["gamma"]), alpha=FALKON["alpha"],
                                 solver="falkon", n_centers=M, center_selection=selection,
                                 random_state=0, **kw)


def falkon_part(Xtr, ytr, Xte, yte, M, repeats):
    """Falkon against Nystroem + RidgeClassifier at the same M: medians of ``repeats``
    alternating runs, then one run of Falkon with uniform centers."""
    import warnings

    max_iter = os.environ.get("KDD_FALKON_MAX_ITER", FALKON["max_iter"])  # None: default
    FALKON["max_iter"] = None if max_iter is None else int(max_iter)
    kw = {} if max_iter is None else {"max_iter": int(max_iter)}
    clf = _falkon(M, FALKON["center_selection"], kw)
    uniform = _falkon(M, "uniform", kw)
    loads = [os.getloadavg()[0]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = alternate({"sklearn Nystroem + RidgeClassifier":
                         lambda: nystroem_peer(Xtr, ytr, Xte, M),
                         f"kernelkit falkon ({FALKON['center_selection']} centers)":
                         lambda: clf.fit(Xtr, ytr).predict(Xte)}, repeats)
        loads.append(os.getloadavg()[0])
        res.update(alternate({"kernelkit falkon (uniform centers)":
                              lambda: uniform.fit(Xtr, ytr).predict(Xte)}, 1))
        loads.append(os.getloadavg()[0])
    rows = []
    for name, rec in res.items():
        row = {"model": name, "M": M, "n_train": len(Xtr), "seconds": rec["median"],
               "times": rec["times"], "accuracy": float(np.mean(rec["result"] == yte))}
        model = clf if "distinct" in name else uniform if "uniform" in name else None
        if model is not None:
            row.update({"n_iter": model.n_iter_, "rank": model.rank_,
                        "distinct_centers": len(model.centers_),
                        "residual_norm_max": float(np.max(model.residual_norm_)),
                        "choices": [str(c) for c in model.plan_.choices]})
        rows.append(row)
    peer_s = rows[0]["seconds"]
    for row in rows:
        row["ratio"] = peer_s / row["seconds"]
    print(f"\nKDD Cup 99 Falkon vs Nystroem + RidgeClassifier, M = {M}, gamma = "
          f"{FALKON['gamma']}, alpha = {FALKON['alpha']} (fit + predict; load {loads})")
    print_table(rows, [("model", "model", "s"), ("seconds", "seconds", ".3g"),
                       ("ratio", "peer / this", ".2f"), ("accuracy", "accuracy", ".4f")])
    for row in rows:
        if "choices" in row:
            print(f"{row['model']}: " + ", ".join(
                f"{k}={row[k]}" for k in ("n_iter", "rank", "distinct_centers",
                                          "residual_norm_max")))
            for c in row["choices"]:
                print("   ", c)
    return {"rows": rows, "loadavg_1min": loads,
            "warnings": sorted({f"{type(w.message).__name__}: {w.message}" for w in caught})}


def main():
    args = parse_args(__doc__.splitlines()[0])
    part = os.environ.get("KDD_PART", "all")  # "rff" or "falkon": one part only
    path = RESULTS / f"kddcup{'_quick' if args.quick else ''}.json"
    old = json.loads(path.read_text()) if part != "all" and path.exists() else {}
    n_train, n_test = (50_000, 20_000) if args.quick else (N_TRAIN, None)
    cases = [(200, 2)] if args.quick else [(500, 3), (2000, 1)]
    Xtr, ytr, Xte, yte = preprocess(n_train, n_test)
    falkon = old.get("falkon", {})
    if part in ("all", "falkon"):
        falkon = falkon_part(Xtr, ytr, Xte, yte, 500 if args.quick else FALKON["n_centers"],
                             1 if args.quick else 3)
        falkon["settings"] = dict(FALKON)
    if part == "falkon":
        old["falkon"] = falkon
        write_json("kddcup", old, quick=args.quick)
        return
    print(f"KDD Cup 99: train {Xtr.shape}, test {Xte.shape}, {len(np.unique(ytr))} classes, "
          f"gamma={GAMMA}, alpha={ALPHA}")
    # Warm-up (BLAS threads, first-call imports), untimed.
    peer(Xtr[:2000], ytr[:2000], Xte[:100], 50)
    kernelkit_rff_ridge(Xtr[:2000], ytr[:2000], Xte[:100], 50)
    rows = []
    for D, repeats in cases:
        res = alternate({"sklearn": lambda: peer(Xtr, ytr, Xte, D),
                         "kernelkit": lambda: kernelkit_rff_ridge(Xtr, ytr, Xte, D)}, repeats)
        sk, kk = res["sklearn"], res["kernelkit"]
        rows.append({"D": D, "repeats": repeats, "sklearn_s": sk["median"],
                     "kernelkit_s": kk["median"], "ratio": sk["median"] / kk["median"],
                     "sklearn_acc": float(np.mean(sk["result"] == yte)),
                     "kernelkit_acc": float(np.mean(kk["result"] == yte)),
                     "sklearn_times": sk["times"], "kernelkit_times": kk["times"]})
        print_table(rows[-1:], [("D", "D", "d"), ("sklearn_s", "sklearn s", ".2f"),
                                ("kernelkit_s", "kernelkit s", ".2f"), ("ratio", "ratio", ".2f"),
                                ("sklearn_acc", "acc sklearn", ".4f"),
                                ("kernelkit_acc", "acc kernelkit", ".4f")])
    write_json("kddcup", {"question": "RFF + ridge classifier on KDD Cup 99, fit + predict",
                          "n_train": len(Xtr), "n_test": len(Xte), "gamma": GAMMA,
                          "alpha": ALPHA, "rows": rows,
                          "falkon": falkon},
               quick=args.quick)


if __name__ == "__main__":
    main()
