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
Run: ``python examples/sms_spam.py`` (about 30 seconds)
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

# As the benchmarks: the shared data next to the repository, unless told otherwise.
os.environ.setdefault("KERNELKIT_SHARED_DATA",
                      str(Path(__file__).resolve().parents[2] / "shared" / "data"))


def main():
    try:
        X, y = load_sms_spam(return_X_y=True)
    except FileNotFoundError as exc:
        print(f"This example needs the SMS spam collection from the shared data: {exc}")
        return None
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
    return acc, f1


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
