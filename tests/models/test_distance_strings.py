"""Distance-based estimators on strings equal their vector twins on k-mer counts.

The normalised spectrum kernel is the cosine similarity of k-mer count vectors,
so k-NN, kernel k-means and the outlier detector on strings with
``Spectrum(k)`` must give what they give with the linear kernel on the
unit-normalised count vectors (built here with ``collections.Counter``, an
independent reference).
"""

from collections import Counter
from itertools import product

import numpy as np
import pytest

from kernelkit.datasets import load_dna_splice
from kernelkit.kernels import Spectrum
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier,
                              KernelKNeighborsRegressor, KernelOutlierDetector)


def _kmer_vectors(strings, k):
    vocab = {"".join(p): i for i, p in enumerate(product("ACGT", repeat=k))}
    V = np.zeros((len(strings), len(vocab)))
    for i, s in enumerate(strings):
        for kmer, c in Counter(s[j:j + k] for j in range(len(s) - k + 1)).items():
            V[i, vocab[kmer]] = c
    return V / np.linalg.norm(V, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def dna():
    X, y = load_dna_splice(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.choice(len(y), size=300, replace=False)
    X = np.array([str(s) for s in X[idx]])
    return X, y[idx], _kmer_vectors(X, 3)


def test_knn_on_strings_equals_knn_on_kmer_vectors(dna):
    X, y, V = dna
    s = KernelKNeighborsClassifier(kernel=Spectrum(k=3), n_neighbors=5).fit(X[:200], y[:200])
    v = KernelKNeighborsClassifier(kernel="linear", n_neighbors=5).fit(V[:200], y[:200])
    ds, js = s.kneighbors(X[200:])
    dv, jv = v.kneighbors(V[200:])
    np.testing.assert_allclose(ds, dv, atol=1e-7)
    # Votes can differ only where the 5th and 6th neighbours tie in distance.
    d6, _ = v.kneighbors(V[200:], n_neighbors=6)
    clear = d6[:, 5] - d6[:, 4] > 1e-6
    assert clear.sum() > 50
    np.testing.assert_array_equal(s.predict(X[200:])[clear], v.predict(V[200:])[clear])
    r = KernelKNeighborsRegressor(kernel=Spectrum(k=3), n_neighbors=3).fit(
        X[:200], (y[:200] == "N").astype(float))
    assert r.predict(X[200:]).shape == (100,)


def test_kernel_kmeans_on_strings_equals_linear_on_kmer_vectors(dna):
    X, _, V = dna
    s = KernelKMeans(n_clusters=3, kernel=Spectrum(k=3), n_init=2, random_state=0).fit(X)
    v = KernelKMeans(n_clusters=3, kernel="linear", n_init=2, random_state=0).fit(V)
    np.testing.assert_array_equal(s.labels_, v.labels_)
    np.testing.assert_allclose(s.inertia_, v.inertia_, rtol=1e-9)
    np.testing.assert_array_equal(s.predict(X[:20]), v.predict(V[:20]))


def test_outlier_detector_on_strings_equals_linear_on_kmer_vectors(dna):
    X, _, V = dna
    for method in ("knn", "mean"):
        s = KernelOutlierDetector(kernel=Spectrum(k=3), method=method).fit(X)
        v = KernelOutlierDetector(kernel="linear", method=method).fit(V)
        np.testing.assert_allclose(s.score_samples(X[:50]), v.score_samples(V[:50]), atol=1e-9)
        np.testing.assert_array_equal(s.predict(X), v.predict(V))


def test_string_kernel_with_numbers_is_a_clear_error(dna):
    _, y, V = dna
    with pytest.raises((TypeError, ValueError), match="string"):
        KernelKMeans(n_clusters=2, kernel=Spectrum(k=3)).fit(V)
    with pytest.raises((TypeError, ValueError), match="string"):
        KernelKNeighborsClassifier(kernel="rbf").fit(np.array(["ACGT", "TTGA"]), [0, 1])


def test_string_models_round_trip_through_model_files(dna, tmp_path):
    from kernelkit import load, save
    from kernelkit.exceptions import ModelFormatError
    from kernelkit.models import KernelRidge

    X, y, _ = dna
    yn = (y == "N").astype(float)
    models = [
        KernelKNeighborsClassifier(kernel=Spectrum(k=3), n_neighbors=3).fit(X, y),
        KernelKMeans(n_clusters=3, kernel=Spectrum(k=3), n_init=1, random_state=0).fit(X),
        KernelKMeans(n_clusters=3, kernel=Spectrum(k=3), approximation="nystroem",
                     n_components=20, random_state=0).fit(X),
        KernelOutlierDetector(kernel=Spectrum(k=3)).fit(X),
        KernelRidge(kernel=Spectrum(k=3), alpha=0.1, solver="falkon", n_centers=40,
                    random_state=0).fit(X, yn),
    ]
    for i, model in enumerate(models):
        path = tmp_path / f"m{i}.kk"
        save(model, path)
        again = load(path)
        ref = model.predict(X[:30])
        np.testing.assert_array_equal(again.predict(X[:30]), ref)
    # A string model whose stored inputs are numbers is refused.
    bad = KernelOutlierDetector(kernel=Spectrum(k=3)).fit(X)
    bad.X_fit_ = np.zeros((len(X), 3))
    with pytest.raises((ModelFormatError, ValueError)):
        save(bad, tmp_path / "bad.kk")
        load(tmp_path / "bad.kk")
