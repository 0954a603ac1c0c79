"""String Gram matrices: throughput of kernelkit's string kernels against references.

Question: how many string pairs per second does ``kernelkit.gram`` evaluate
for the gap-weighted subsequence kernel and the spectrum (k-mer) kernel, and
how does that compare with (a) the obvious pure-Python dynamic program, (b)
brute-force enumeration of index subsequences (the definition), and (c) for
the spectrum kernel, scikit-learn's character n-gram ``CountVectorizer``
followed by a sparse product (the same kernel, a real peer)?

Data
    DNA: the bundled splice-junction sequences (60 bases each), first n.
    SMS: the SMS Spam Collection (shared data; mean 80, max 910 characters),
         first n messages; skipped with a message when the shared data is absent.

Kernels (unnormalised, so every reference computes exactly the same numbers)
    ``Subsequence(p=2, decay=0.5, normalize=False)`` -- O(p |s| |t|) per pair,
    compiled and parallel over rows; ``Spectrum(k=3, normalize=False)`` --
    sparse 3-mer counts and one sparse (or dense) product.

Measures
    kernelkit: the symmetric Gram matrix ``gram(kernel, X)`` for n = 1000 and
    3000 (``--quick``: 200 and 400), pairs/s = n (n + 1) / 2 / seconds (the
    distinct pairs; the engine computes the lower triangle and mirrors).
    References run on a small sample of pairs and are extrapolated per pair
    (pure-Python DP: 40 DNA / 12 SMS pairs; brute force: 6 DNA / 3 SMS pairs,
    SMS truncated to 40 characters for brute force only -- it enumerates
    O(|s|^2 |t|^2) tuple pairs). scikit-learn's CountVectorizer runs at the
    same n, alternating with kernelkit. "max |diff|" compares kernelkit's
    values with each reference on the pairs the reference computed.

Run: ``python benchmarks/strings.py`` (several minutes on a loaded machine)
or ``--quick``. Medians of 3 alternating repeats (1 repeat when one Gram
matrix takes more than 60 s), after an untimed warm-up (numba compile/cache).
"""

from __future__ import annotations

import time

import numpy as np

from _common import alternate, parse_args, print_table, timed, write_json

from kernelkit import gram
from kernelkit._compiled._reference import subsequence_brute, subsequence_pair_ref
from kernelkit.datasets import load_dna_splice, load_sms_spam
from kernelkit.kernels import Spectrum, Subsequence

P, DECAY, K = 2, 0.5, 3
SUBSEQ = Subsequence(p=P, decay=DECAY, normalize=False)
SPECTRUM = Spectrum(k=K, normalize=False)


def datasets():
    X, _ = load_dna_splice(return_X_y=True)
    out = {"DNA": np.array(X, dtype=str)}
    try:
        out["SMS"] = load_sms_spam(return_X_y=True)[0]
    except FileNotFoundError as exc:
        print(f"SMS spam skipped: {exc}")
    return out


def sample_pairs(n, count, seed=0):
    rng = np.random.default_rng(seed)
    return [(int(i), int(j)) for i, j in rng.integers(0, n, size=(count, 2))]


def per_pair(fn, pairs):
    """Seconds per pair of ``fn(i, j)`` over ``pairs``, and the values."""
    t0 = time.perf_counter()
    values = [fn(i, j) for i, j in pairs]
    return (time.perf_counter() - t0) / len(pairs), np.array(values)


def naive_spectrum(s, t):
    from collections import Counter

    a = Counter(s[i:i + K] for i in range(len(s) - K + 1))
    b = Counter(t[i:i + K] for i in range(len(t) - K + 1))
    return float(sum(c * b[u] for u, c in a.items()))


def sklearn_spectrum(X):
    from sklearn.feature_extraction.text import CountVectorizer

    # A callable analyzer: the built-in "char" one collapses runs of whitespace first,
    # which would be a different kernel.
    A = CountVectorizer(analyzer=lambda s: [s[i:i + K] for i in range(len(s) - K + 1)],
                        dtype=np.float64).fit_transform(X)
    return (A @ A.T).toarray()


def reference_rows(name, X, kernel, n_python, n_brute):
    """Pure-Python and brute-force references on sampled pairs (per-pair seconds)."""
    rows = []
    pairs = sample_pairs(min(len(X), 3000), n_python)
    ours = gram(kernel, X[:3000][[i for i, _ in pairs]], X[:3000][[j for _, j in pairs]])
    ours = np.diagonal(ours)  # k(X[i], X[j]) for each sampled pair
    if kernel is SUBSEQ:
        py = lambda i, j: subsequence_pair_ref(X[i], X[j], P, DECAY)  # noqa: E731
        label = "pure-Python DP"
    else:
        py = lambda i, j: naive_spectrum(X[i], X[j])  # noqa: E731
        label = "pure-Python Counter"
    sec, values = per_pair(py, pairs)
    rows.append({"reference": label, "pairs_sampled": len(pairs), "ref_pairs_per_s": 1 / sec,
                 "max_abs_diff": float(np.max(np.abs(values - ours)))})
    if kernel is SUBSEQ and n_brute:
        cut = 40 if name == "SMS" else None  # brute force is O(|s|^2 |t|^2) for p = 2
        Xb = np.array([s[:cut] for s in X[:3000]], dtype=str)
        bpairs = pairs[:n_brute]
        sec, values = per_pair(lambda i, j: subsequence_brute(Xb[i], Xb[j], P, DECAY), bpairs)
        ours_b = np.diagonal(gram(kernel, Xb[[i for i, _ in bpairs]], Xb[[j for _, j in bpairs]]))
        rows.append({"reference": "brute force" + (" (40 chars)" if cut else ""),
                     "pairs_sampled": len(bpairs), "ref_pairs_per_s": 1 / sec,
                     "max_abs_diff": float(np.max(np.abs(values - ours_b)))})
    return rows


def main():
    args = parse_args(__doc__.splitlines()[0])
    sizes = (200, 400) if args.quick else (1000, 3000)
    n_python, n_brute = (10, 2) if args.quick else (40, 6)
    data = datasets()
    for X in data.values():  # warm-up: numba compilation or cache load
        gram(SUBSEQ, X[:20]), gram(SPECTRUM, X[:20]), sklearn_spectrum(X[:20])
    rows, refs = [], []
    for name, X in data.items():
        for kernel in (SUBSEQ, SPECTRUM):
            for ref in reference_rows(name, X, kernel,
                                      n_python if name == "DNA" else max(3, n_python * 3 // 10),
                                      n_brute if name == "DNA" else max(1, n_brute // 2)):
                refs.append(dict(ref, data=name, kernel=repr(kernel)))
            for n in sizes:
                Xn = X[:n]
                pairs = n * (n + 1) / 2
                fns = {"kernelkit": lambda: gram(kernel, Xn)}
                if kernel is SPECTRUM:
                    fns["sklearn CountVectorizer"] = lambda: sklearn_spectrum(Xn)
                first, _ = timed(fns["kernelkit"])
                repeats = 1 if first > 60 else 3
                res = alternate(fns, repeats)
                ours = res["kernelkit"]["median"]
                row = {"data": name, "kernel": repr(kernel), "n": n, "repeats": repeats,
                       "mean_len": float(np.mean([len(s) for s in Xn])),
                       "kk_s": ours, "kk_pairs_per_s": pairs / ours,
                       "times": {k: v["times"] for k, v in res.items()}}
                if "sklearn CountVectorizer" in res:
                    sk = res["sklearn CountVectorizer"]
                    row.update(sk_s=sk["median"], ratio_sklearn=sk["median"] / ours,
                               sk_max_abs_diff=float(np.max(np.abs(
                                   sk["result"] - res["kernelkit"]["result"]))))
                for ref in refs:
                    if ref["data"] == name and ref["kernel"] == repr(kernel):
                        row[f"ratio_{ref['reference'].split()[0]}"] = \
                            row["kk_pairs_per_s"] / ref["ref_pairs_per_s"]
                rows.append(row)
                print(f"{name} {kernel!r} n={n}: {ours:.2f} s, "
                      f"{row['kk_pairs_per_s']:.3g} pairs/s", flush=True)
    print("\nkernelkit Gram matrices (ratio = reference time per pair / kernelkit's)")
    print_table(rows, [("data", "data", ""), ("kernel", "kernel", ""), ("n", "n", "d"),
                       ("mean_len", "mean len", ".0f"), ("kk_s", "kk s", ".3g"),
                       ("kk_pairs_per_s", "kk pairs/s", ".3g"),
                       ("sk_s", "sklearn s", ".3g"), ("ratio_sklearn", "vs sklearn", ".2f"),
                       ("sk_max_abs_diff", "|diff| sk", ".1g"),
                       ("ratio_pure-Python", "vs pure Python", ".3g"),
                       ("ratio_brute", "vs brute", ".3g")])
    print("\nreferences on sampled pairs")
    print_table(refs, [("data", "data", ""), ("kernel", "kernel", ""),
                       ("reference", "reference", ""), ("pairs_sampled", "pairs", "d"),
                       ("ref_pairs_per_s", "pairs/s", ".3g"),
                       ("max_abs_diff", "max |diff| vs kk", ".1g")])
    write_json("strings", {"question": __doc__.splitlines()[0], "rows": rows,
                           "references": refs}, quick=args.quick)


if __name__ == "__main__":
    main()
