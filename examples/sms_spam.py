"""
Spam filtering on raw SMS text with a string kernel (needs the shared data)
===========================================================================

Lecture: Kernels on data that are not vectors -- the spectrum kernel on raw
text (an SVM, kernel k-means and feature-space outliers on strings).

The SMS Spam Collection (5,574 messages, 13% spam; UCI, CC BY 4.0) is read
from the shared data directory (``KERNELKIT_SHARED_DATA``, or ``../shared/data``
next to the repository); without it this example says so and exits.

A support vector machine on the messages themselves: the spectrum kernel
compares the counts of character 3-grams (cosine-normalised, so long and short
messages weigh alike). No tokeniser, no vocabulary, no stop words.

Then, without labels: kernel k-means on the messages (same kernel, k-means++
in feature space) and how its clusters line up with ham and spam, and the
feature-space outlier scores (distance to the 5th neighbour): the most unusual
messages.

Split: stratified, 30% test (1,673 messages), ``random_state=0``.
Run: ``python examples/sms_spam.py [--quick] [--out sms_spam.png]`` (about 30 seconds)
"""

import os
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

from kernelkit.datasets import load_sms_spam
from kernelkit.kernels import Spectrum
from kernelkit.models import KernelKMeans, KernelOutlierDetector, KernelSVC

# As the benchmarks: the shared data next to the repository (run from its root),
# unless KERNELKIT_SHARED_DATA says otherwise.
os.environ.setdefault("KERNELKIT_SHARED_DATA", str(Path("..") / "shared" / "data"))


def run(quick=False):
    """The spectrum-kernel SVM's test accuracy and spam F1, or None without the data
    (``quick``: 1,200 messages)."""
    try:
        X, y = load_sms_spam(return_X_y=True)
    except FileNotFoundError as exc:
        print(f"This example needs the SMS spam collection from the shared data: {exc}")
        return None
    if quick:
        idx = np.random.default_rng(0).choice(len(X), size=min(1200, len(X)), replace=False)
        X, y = X[idx], y[idx]
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y)
    print(f"SMS spam: {len(X_train)} training, {len(X_test)} test messages "
          f"({np.mean(y == 'spam'):.1%} spam)\n")
    kernel = Spectrum(k=3)
    t0 = time.perf_counter()
    clf = KernelSVC(kernel, C=1.0).fit(X_train, y_train)
    pred = clf.predict(X_test)
    seconds = time.perf_counter() - t0
    acc = float(np.mean(pred == y_test))
    f1 = f1_score(y_test, pred, pos_label="spam")
    print(f"KernelSVC({kernel!r}, C=1.0): test accuracy {acc:.3f}, spam F1 {f1:.3f} "
          f"({len(clf.support_)} support vectors, {seconds:.1f} s)")
    missed = X_test[(y_test == "spam") & (pred == "ham")][:3]
    print("\nspam it let through, e.g.:")
    for text in missed:
        print(f"  {text[:90]!r}")
    unsupervised(X_train, y_train, kernel)
    return {"accuracy": acc, "f1": float(f1)}


def plot(results):
    """Accuracy and spam F1 of the spectrum-kernel SVM."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3), layout="constrained")
    ax = fig.subplots()
    ax.bar(["accuracy", "spam F1"], [results["accuracy"], results["f1"]], color=["C0", "C3"])
    ax.set_ylim(0, 1)
    ax.set_title("spectrum kernel (k = 3) SVM on raw SMS text")
    return fig


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description="Spam filtering with a string kernel.")
    parser.add_argument("--quick", action="store_true", help="1,200 messages")
    parser.add_argument("--out", default="sms_spam.png", help="the picture's file")
    args = parser.parse_args(argv)
    results = run(quick=args.quick)
    if results is None:
        return None
    try:
        fig = plot(results)
    except ImportError:
        print("no picture (matplotlib is not installed)")
        return results
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return results


def unsupervised(X, y, kernel, n_clusters=4):
    """Kernel k-means on the messages and feature-space outlier scores (labels unused)."""
    t0 = time.perf_counter()
    km = KernelKMeans(n_clusters=n_clusters, kernel=kernel, n_init=3, random_state=0).fit(X)
    print(f"\nkernel k-means, {n_clusters} clusters on {len(X)} messages "
          f"({time.perf_counter() - t0:.1f} s); share of spam per cluster:")
    for c in range(n_clusters):
        members = km.labels_ == c
        print(f"  cluster {c}: {members.sum():5d} messages, {np.mean(y[members] == 'spam'):6.1%}"
              " spam")
    detector = KernelOutlierDetector(kernel=kernel, method="knn", n_neighbors=5).fit(X)
    order = np.argsort(detector.score_samples(X))
    print("\nmost unusual messages (farthest from their 5th neighbour in feature space):")
    for i in order[:3]:
        print(f"  [{y[i]}] {X[i][:90]!r}")
    return km, detector


if __name__ == "__main__":
    main()
