"""Sparse input: KernelSVC vs sklearn.svm.SVC (libsvm) on the same TF-IDF matrix.

Question: on a sparse text problem, does KernelSVC fed the scipy.sparse
matrix directly (kernel blocks from sparse products, nothing densified)
reach libsvm's accuracy, and how do fit and predict times compare?

Data: the SMS Spam Collection (5,574 messages, ham/spam), TF-IDF by
``sklearn.feature_extraction.text.TfidfVectorizer`` (unigrams, sublinear tf,
min_df = 2, rows L2-normalised) fitted on the training messages only. A fixed
random split (seed 0): 4,000 training and the remaining 1,574 test messages
(``--quick``: 1,500 and 1,000). Both estimators get the same CSR matrices.

Cases: RBF with gamma = 1 (rows have unit norm, so squared distances lie in
[0, 4]) and C = 10; linear with C = 1. Fit and predict are timed in
alternation (SVC fit, KernelSVC fit, SVC predict, KernelSVC predict), medians
of the repeats quoted, with the load average of the machine at the start and
end of each case (other processes share the 2 cores). Quality: test accuracy
of both, the fraction of test messages where the two predict the same label,
the numbers of support vectors.

Run: ``python benchmarks/sparse_svc.py`` (about a minute on 2 quiet cores)
or ``--quick`` (seconds).
"""

from __future__ import annotations

import os
import statistics

import numpy as np

import _common  # noqa: F401  (sets KERNELKIT_SHARED_DATA)
from _common import parse_args, print_table, timed, write_json

from kernelkit.datasets import load_sms_spam
from kernelkit.models import KernelSVC
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import SVC


def tfidf_split(n_train, n_test):
    texts, labels = load_sms_spam(return_X_y=True)
    texts, labels = np.asarray(texts), np.asarray(labels)
    perm = np.random.default_rng(0).permutation(len(texts))
    tr, te = perm[:n_train], perm[n_train:n_train + n_test]
    vec = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vec.fit_transform(texts[tr]).tocsr()
    Xt = vec.transform(texts[te]).tocsr()
    return X, labels[tr], Xt, labels[te]


def compare(name, X, y, Xt, yt, kernel, sk_params, C, repeats):
    load_start = os.getloadavg()
    times = {"sk_fit": [], "kk_fit": [], "sk_pred": [], "kk_pred": []}
    for _ in range(repeats):
        sk = kk = None
        t, sk = timed(lambda: SVC(C=C, cache_size=200, **sk_params).fit(X, y))
        times["sk_fit"].append(t)
        t, kk = timed(lambda: KernelSVC(kernel, C=C).fit(X, y))
        times["kk_fit"].append(t)
        t, p_sk = timed(lambda: sk.predict(Xt))
        times["sk_pred"].append(t)
        t, p_kk = timed(lambda: kk.predict(Xt))
        times["kk_pred"].append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    sk_total, kk_total = med["sk_fit"] + med["sk_pred"], med["kk_fit"] + med["kk_pred"]
    row = {
        "case": name, "n_train": X.shape[0], "n_test": Xt.shape[0], "n_features": X.shape[1],
        "density": X.nnz / (X.shape[0] * X.shape[1]), "C": C, "kernel": kernel,
        "sk_fit_s": med["sk_fit"], "kk_fit_s": med["kk_fit"],
        "fit_ratio": med["sk_fit"] / med["kk_fit"],
        "sk_predict_s": med["sk_pred"], "kk_predict_s": med["kk_pred"],
        "predict_ratio": med["sk_pred"] / med["kk_pred"],
        "fit_predict_ratio": sk_total / kk_total,
        "sk_acc": float(np.mean(p_sk == yt)), "kk_acc": float(np.mean(p_kk == yt)),
        "same_prediction": float(np.mean(p_sk == p_kk)),
        "sk_n_sv": int(len(sk.support_)), "kk_n_sv": int(len(kk.support_)),
        "kk_support_vectors_sparse": bool(hasattr(kk.support_vectors_, "nnz")),
        "times": times, "repeats": repeats,
        "loadavg_1_5_15_start": load_start, "loadavg_1_5_15_end": os.getloadavg(),
    }
    print_table([row], [("case", "case", ""), ("n_train", "n", "d"),
                        ("sk_fit_s", "SVC fit s", ".3g"), ("kk_fit_s", "KSVC fit s", ".3g"),
                        ("fit_ratio", "ratio", ".3g"), ("sk_predict_s", "SVC pred s", ".3g"),
                        ("kk_predict_s", "KSVC pred s", ".3g"),
                        ("predict_ratio", "ratio", ".3g"),
                        ("fit_predict_ratio", "fit+pred ratio", ".3g"),
                        ("sk_acc", "SVC acc", ".4f"), ("kk_acc", "KSVC acc", ".4f"),
                        ("same_prediction", "same", ".4f")])
    print(f"load average (1, 5, 15 min): {load_start} at the start, "
          f"{row['loadavg_1_5_15_end']} at the end\n")
    return row


def main():
    args = parse_args(__doc__.splitlines()[0])
    n_train, n_test = (1500, 1000) if args.quick else (4000, 1574)
    repeats = 2 if args.quick else 3
    X, y, Xt, yt = tfidf_split(n_train, n_test)
    print(f"SMS spam TF-IDF: {X.shape[0]} x {X.shape[1]} training rows, "
          f"{X.nnz / X.shape[0]:.1f} nonzeros per row; {Xt.shape[0]} test rows\n")
    rows = [
        compare(f"sms rbf {n_train}", X, y, Xt, yt, "rbf(gamma=1.0)",
                {"kernel": "rbf", "gamma": 1.0}, 10.0, repeats),
        compare(f"sms linear {n_train}", X, y, Xt, yt, "linear", {"kernel": "linear"}, 1.0,
                repeats),
    ]
    write_json("sparse_svc", {"cases": rows}, quick=args.quick)


if __name__ == "__main__":
    main()
