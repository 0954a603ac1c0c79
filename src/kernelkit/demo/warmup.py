"""The compiled loops the demo uses, compiled (or read from numba's disk cache)
before anything is timed, so that a fresh install's compile time is reported as
compile time and not as the first model's fit time.

Each loop is compiled for the argument types it is called with; the warm-up
fits the demo's models on a few generated rows of the same types (float64,
C order; DNA-like strings), which is what selects the same compiled versions.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

__all__ = ["warm_up"]


def warm_up():
    """Fit the demo's kinds of model on tiny data; return the seconds it took.

    About 0.5 s when numba's cache on disk holds the loops (every run after the
    first), tens of seconds on the first run after an install (compiling).
    """
    from ..features import Nystroem, RandomFourierFeatures
    from ..kernels import RBF, Spectrum, Subsequence, WeightedDegree
    from ..models import (KernelKMeans, KernelKNeighborsClassifier, KernelLogisticRegression,
                          KernelOutlierDetector, KernelRidge, KernelRidgeCV, KernelSVC)

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(48, 2))
    y = X[:, 0] - X[:, 1]
    labels = (y > 0).astype(int)
    rbf = RBF(gamma=0.5)
    with warnings.catch_warnings():  # tiny fits: grid edges and max_iter are expected
        warnings.simplefilter("ignore")
        for kernel in ("linear", "poly(degree=2)", rbf):
            KernelRidge(kernel=kernel, alpha=1.0, solver="dual").fit(X, y).predict(X)
        KernelRidgeCV(kernel="rbf", alphas=[0.1, 1.0], param_grid={"gamma": [0.5, 1.0]}).fit(X, y)
        KernelRidge(kernel=rbf, alpha=1.0, solver="falkon", n_centers=12,
                    random_state=0).fit(X, y).predict(X)
        for fmap in (RandomFourierFeatures(rbf, n_components=16, random_state=0),
                     Nystroem(rbf, n_components=12, random_state=0)):
            KernelRidge(kernel="linear", alpha=1.0, solver="primal").fit(
                fmap.fit_transform(X), y)
        for model in (KernelSVC(kernel="linear"), KernelSVC(kernel=rbf),
                      KernelSVC(kernel=rbf, solver="pegasos", n_iter=200, random_state=0),
                      KernelLogisticRegression(kernel=rbf)):
            model.fit(X, labels).predict(X)
        dna = ["".join(rng.choice(list("ACGT"), size=20)) for _ in range(24)]
        dna_labels = np.arange(24) % 2
        Subsequence(p=3, decay=0.5, all_lengths=True, normalize=False)(["cat"], ["cart"])
        for kernel in (WeightedDegree(degree=3), Spectrum(k=5)):
            KernelSVC(kernel=kernel).fit(dna, dna_labels).predict(dna)
            KernelKNeighborsClassifier(kernel=kernel, n_neighbors=3).fit(
                dna, dna_labels).predict(dna)
        KernelKMeans(n_clusters=2, kernel=WeightedDegree(degree=3), random_state=0).fit(dna)
        KernelOutlierDetector(kernel=WeightedDegree(degree=3)).fit(dna).decision_function(dna)
    return time.perf_counter() - start
