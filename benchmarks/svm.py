"""Kernel SVM: kernelkit.models.KernelSVC (SMO, Pegasos) vs sklearn.svm.SVC (libsvm).

Question: does kernelkit's SMO reach libsvm's solution (same accuracy, same
dual objective) at least as fast, and how much faster is prediction?

Part 1, Fashion-MNIST (784 pixels / 255): the first n = 10k and 20k training
    images, all 10,000 test images. RBF, C = 10, gamma = 'scale' computed as
    1 / (784 X.var()) on the training subset and passed to both (so SVC gets
    the same number). One-vs-one for both. Fit and predict are timed in
    alternation (SVC fit, KernelSVC fit, SVC predict, KernelSVC predict) and
    the medians of the repeats quoted. Quality: test accuracy of both, the
    fraction of test points where the two predict the same class, and the
    dual objective sum(a) - 1/2 a'Qa of each of the 45 binary problems
    (libsvm's is recovered from SVC.dual_coef_ and the kernel of its support
    vectors): the relative difference of the sums and the largest one per
    problem.
Part 2, adult (census income, 14 label-encoded columns, standardised with the
    training statistics): a fixed random split (seed 0) into 10k training and
    10k test rows, RBF gamma = 1/14 (= 'scale' after standardising), C = 1.
    MAGIC gamma telescope (10 columns), the same way: 12k training and 7,020
    test rows. ``SVM_PART=small-d`` runs these two only; ``SVM_PROFILE=1``
    prints the seconds of the Gram matrix and of the SMO solve inside each fit.
    Each case starts with kernelkit's pool of warm buffers emptied
    (``kernelkit.solvers.buffers.release()``): its first fit writes the Gram
    matrix into new memory (page faults, as a single fit in a fresh process),
    the repeats into the buffer the first one gave back (as a grid search or a
    refit does). Both are printed: "cold" is the first pair of fits (SVC, then
    KernelSVC), "ratio" the medians of all repeats; "buffer" says what each
    KernelSVC fit's ``plan_`` recorded, "cold ahead" whether the first fit's new
    buffer had its pages mapped ahead of SMO on a second thread (``plan_``'s
    "pages of the new Gram buffer mapped ahead", decided from the cores and the
    CPU pressure), "Gram filled" whether its Gram matrix
    was filled row by row as SMO asked (small d: only the rows SMO uses are
    computed and their pages faulted) or whole; "load" the 1-minute load average. An
    untimed fit on 300 rows first loads the compiled loops (a once-per-process cost).
Part 3, kernelised Pegasos on Fashion-MNIST 10k (one-vs-one, same C and
    gamma): test accuracy and seconds against T = k n_pair steps per binary
    problem, next to SMO's.

Run: ``python benchmarks/svm.py`` (about 15 minutes on 2 cores) or
``--quick`` (n = 2000, seconds).
"""

from __future__ import annotations

import os
import statistics

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import parse_args, peak_rss_gb, print_table, timed, write_json

from kernelkit.datasets import load_fashion_mnist, load_shared_table
from kernelkit.kernels import RBF
from kernelkit.models.svm import KernelSVC
from kernelkit.solvers import buffers
from sklearn.svm import SVC


def libsvm_pair_objectives(svc, kernel):
    """sum(a) - 1/2 a'Qa of each one-vs-one problem of a fitted SVC."""
    K = kernel(svc.support_vectors_)
    n_sv = svc.n_support_
    start = np.concatenate([[0], np.cumsum(n_sv)])
    k = len(svc.classes_)
    if k == 2:
        c = svc.dual_coef_[0]
        return np.array([np.abs(c).sum() - 0.5 * c @ K @ c])
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            c = np.zeros(len(svc.support_))
            c[start[a]:start[a + 1]] = svc.dual_coef_[b - 1, start[a]:start[a + 1]]
            c[start[b]:start[b + 1]] = svc.dual_coef_[a, start[b]:start[b + 1]]
            idx = np.flatnonzero(c)
            out.append(np.abs(c[idx]).sum() - 0.5 * c[idx] @ K[np.ix_(idx, idx)] @ c[idx])
    return np.array(out)


def compare(name, X, y, Xt, yt, C, gamma, repeats):
    kernel = RBF(gamma=gamma)
    times = {"sk_fit": [], "kk_fit": [], "sk_pred": [], "kk_pred": []}
    buffer_used, filled, ahead, loads = [], [], [], []
    # untimed: a small fit loads the compiled loops (numba's on-disk cache), a one-time
    # cost of the process; then the pool is emptied so the first timed fit is cold
    KernelSVC(kernel, C=C).fit(X[:300], y[:300])
    buffers.release()
    for _ in range(repeats):
        loads.append(os.getloadavg()[0])
        sk = kk = None
        t, sk = timed(lambda: SVC(C=C, gamma=gamma, cache_size=200).fit(X, y))
        times["sk_fit"].append(t)
        t, kk = timed(lambda: KernelSVC(kernel, C=C).fit(X, y))
        times["kk_fit"].append(t)
        buffer_used.append(next((str(c.value) for c in kk.plan_.choices
                                 if c.what.startswith("buffer of")), "-"))
        filled.append(next((str(c.value) for c in kk.plan_.choices
                            if c.what == "Gram matrix filled"), "-"))
        # new memory filled on demand: whether a second thread mapped its pages ahead
        ahead.append(next((c for c in kk.plan_.choices
                           if c.what.startswith("pages of the new Gram buffer")), None))
        t, p_sk = timed(lambda: sk.predict(Xt))
        times["sk_pred"].append(t)
        t, p_kk = timed(lambda: kk.predict(Xt))
        times["kk_pred"].append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    d_sk = libsvm_pair_objectives(sk, kernel)
    d_kk = kk.dual_objective_
    row = {
        "case": name, "n": len(X), "C": C, "gamma": gamma,
        "sk_fit_s": med["sk_fit"], "kk_fit_s": med["kk_fit"],
        "fit_ratio": med["sk_fit"] / med["kk_fit"],
        "cold_fit_ratio": times["sk_fit"][0] / times["kk_fit"][0],
        "kk_buffers": buffer_used, "buffer": "/".join(b.split()[0] for b in buffer_used),
        "gram_filled": filled[-1],
        "kk_pages_ahead": [None if c is None else str(c) for c in ahead],
        "cold_ahead": "-" if ahead[0] is None else ("yes" if ahead[0].value else "no"),
        "plan": kk.plan_.explain(), "loadavg_1min": loads,
        "load": statistics.median(loads),
        "sk_predict_s": med["sk_pred"], "kk_predict_s": med["kk_pred"],
        "predict_ratio": med["sk_pred"] / med["kk_pred"],
        "sk_acc": float(np.mean(p_sk == yt)), "kk_acc": float(np.mean(p_kk == yt)),
        "same_prediction": float(np.mean(p_sk == p_kk)),
        "sk_dual": float(d_sk.sum()), "kk_dual": float(d_kk.sum()),
        "dual_rel_diff": float((d_kk.sum() - d_sk.sum()) / abs(d_sk.sum())),
        "dual_max_rel_diff_per_problem": float(np.max(np.abs(d_kk - d_sk) / np.abs(d_sk))),
        "kk_max_rel_gap": float(np.max(kk.duality_gap_ / kk.dual_objective_)),
        "sk_n_sv": int(len(sk.support_)), "kk_n_sv": int(len(kk.support_)),
        "sk_iter": int(np.sum(sk.n_iter_)), "kk_iter": int(np.sum(kk.n_iter_)),
        "times": times, "repeats": repeats, "peak_rss_gb": peak_rss_gb(),
    }
    print_table([row], [("case", "case", ""), ("n", "n", "d"), ("sk_fit_s", "SVC fit s", ".3g"),
                        ("kk_fit_s", "KSVC fit s", ".3g"), ("fit_ratio", "ratio", ".3g"),
                        ("cold_fit_ratio", "cold", ".3g"),
                        ("cold_ahead", "cold ahead", ""), ("buffer", "buffer", ""),
                        ("gram_filled", "Gram filled", ""),
                        ("sk_predict_s", "SVC pred s", ".3g"),
                        ("kk_predict_s", "KSVC pred s", ".3g"),
                        ("predict_ratio", "ratio", ".3g"), ("sk_acc", "SVC acc", ".4f"),
                        ("kk_acc", "KSVC acc", ".4f"), ("same_prediction", "same", ".4f"),
                        ("dual_rel_diff", "dual rel diff", ".2e"), ("load", "load", ".2f")])
    print()
    return row, kk


def pegasos_curve(X, y, Xt, yt, C, gamma, multiples, smo_row):
    rows = []
    for k in multiples:
        n_pair = len(X) // 5  # two of ten balanced classes
        t, m = timed(lambda: KernelSVC(RBF(gamma=gamma), C=C, solver="pegasos",
                                       n_iter=k * n_pair, random_state=0).fit(X, y))
        acc = float(np.mean(m.predict(Xt) == yt))
        rows.append({"solver": f"pegasos T={k}n", "T_per_problem": k * n_pair, "fit_s": t,
                     "acc": acc, "dual": float(m.dual_objective_.sum())})
    rows.append({"solver": "smo", "T_per_problem": None, "fit_s": smo_row["kk_fit_s"],
                 "acc": smo_row["kk_acc"], "dual": smo_row["kk_dual"]})
    print_table(rows, [("solver", "solver", ""), ("fit_s", "fit s", ".3g"), ("acc", "acc", ".4f"),
                       ("dual", "sum of dual objectives", ".6g")])
    print()
    return rows


def _print_phases():
    """SVM_PROFILE=1: print the seconds of each Gram matrix and each SMO solve inside
    KernelSVC's fits (where a fit's time goes; the timed figures include these prints)."""
    import time

    import kernelkit.models.svm as svm_module

    def timer(name, fn):
        def call(*args, **kwargs):
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            print(f"    {name} {time.perf_counter() - t0:.3f} s", flush=True)
            return out
        return call

    svm_module.gram = timer("gram", svm_module.gram)
    svm_module.pairwise_blocked = timer("gram", svm_module.pairwise_blocked)
    svm_module.smo_gram = timer("smo", svm_module.smo_gram)


def main():
    # SVM_PART=small-d: only adult and MAGIC (small d, where the Gram matrix and SMO
    # loop dominate); written to results/svm_small_d.json.
    part = os.environ.get("SVM_PART", "all")
    if os.environ.get("SVM_PROFILE"):
        _print_phases()
    args = parse_args(__doc__.splitlines()[0])
    if part == "all":
        Xtr, ytr = load_fashion_mnist(subset="train", return_X_y=True, dtype=np.float64)
        Xte, yte = load_fashion_mnist(subset="test", return_X_y=True, dtype=np.float64)
    sizes, repeats = ([2000], {2000: 2}) if args.quick else ([10_000, 20_000], {10_000: 3,
                                                                                20_000: 3})
    if args.quick and part == "all":
        Xte, yte = Xte[:2000], yte[:2000]
    results = {"fashion_mnist": [], "adult": None, "magic": None, "pegasos": None}
    first = None
    for n in sizes if part == "all" else ():
        X, y = Xtr[:n], ytr[:n]
        gamma = 1.0 / (X.shape[1] * X.var())
        row, _ = compare(f"fashion-mnist {n}", X, y, Xte, yte, 10.0, gamma, repeats[n])
        results["fashion_mnist"].append(row)
        first = first or (row, X, y, gamma)

    for name, n_a in (("adult", 10_000), ("magic", 12_000)):
        if part not in ("all", "small-d"):
            break
        Xa, ya, _ = load_shared_table(name)
        perm = np.random.default_rng(0).permutation(len(Xa))
        n_a = 2000 if args.quick else n_a
        tr, te = perm[:n_a], perm[n_a:n_a + min(n_a, len(Xa) - n_a)]
        mu, sd = Xa[tr].mean(axis=0), Xa[tr].std(axis=0)
        Xa = (Xa - mu) / sd
        row, _ = compare(f"{name} {n_a}", Xa[tr], ya[tr], Xa[te], ya[te], 1.0,
                         1.0 / Xa.shape[1], 1 if args.quick else 3)
        results[name] = row
    if first is None:
        write_json("svm_small_d" if part == "small-d" else "svm", results, quick=args.quick)
        return

    row, X, y, gamma = first
    multiples = (1, 3) if args.quick else (1, 3, 10, 30)
    results["pegasos"] = pegasos_curve(X, y, Xte, yte, 10.0, gamma, multiples, row)
    write_json("svm", results, quick=args.quick)


if __name__ == "__main__":
    main()
