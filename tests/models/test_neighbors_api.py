"""Kernel k-NN's scikit-learn API: callable and None weights, kneighbors_graph and
multi-output y, against scikit-learn's KNeighbors* on precomputed feature-space distances."""

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelKNeighborsClassifier, KernelKNeighborsRegressor

POLY = Polynomial(degree=2, gamma=0.5, coef0=1.0)


def _poly(A, B):
    return (0.5 * A @ B.T + 1.0) ** 2


def _feature_distances(A, B):
    """||phi(a) - phi(b)|| of the polynomial kernel by the formula, as a reference metric."""
    sq = np.diag(_poly(A, A))[:, None] - 2.0 * _poly(A, B) + np.diag(_poly(B, B))[None, :]
    return np.sqrt(np.maximum(sq, 0.0))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    Y = np.column_stack([(X[:, 0] > 0).astype(int),
                         np.where(X[:, 1] + X[:, 2] > 0.5, "a", np.where(X[:, 1] > -1, "b", "c"))])
    Xq = rng.normal(size=(40, 3))
    return X, Y, Xq


def _reference(cls, X, y, Xq, **kw):
    ref = cls(metric="precomputed", algorithm="brute", **kw).fit(_feature_distances(X, X), y)
    return ref, _feature_distances(Xq, X)


def inverse_square(dist):
    return 1.0 / (1.0 + dist ** 2)


@pytest.mark.parametrize("weights", [None, inverse_square])
def test_weights_none_and_callable_classifier(data, weights):
    X, Y, Xq = data
    y = Y[:, 1]
    ours = KernelKNeighborsClassifier(7, weights=weights, kernel=POLY).fit(X, y)
    ref, Dq = _reference(KNeighborsClassifier, X, y, Xq, n_neighbors=7, weights=weights)
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Dq))
    np.testing.assert_allclose(ours.predict_proba(Xq), ref.predict_proba(Dq), atol=1e-10)


@pytest.mark.parametrize("weights", [None, inverse_square])
def test_weights_none_and_callable_regressor(data, weights):
    X, _, Xq = data
    y = np.sin(X[:, 0]) + X[:, 1]
    ours = KernelKNeighborsRegressor(6, weights=weights, kernel=POLY).fit(X, y)
    ref, Dq = _reference(KNeighborsRegressor, X, y, Xq, n_neighbors=6, weights=weights)
    np.testing.assert_allclose(ours.predict(Xq), ref.predict(Dq), rtol=1e-10)


def test_multi_output_classifier_and_regressor(data):
    X, Y, Xq = data
    ours = KernelKNeighborsClassifier(5, weights="distance", kernel=POLY).fit(X, Y)
    ref, Dq = _reference(KNeighborsClassifier, X, Y, Xq, n_neighbors=5, weights="distance")
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Dq))
    assert ours.predict(Xq).shape == (40, 2)
    for mine, theirs, c_mine, c_ref in zip(ours.predict_proba(Xq), ref.predict_proba(Dq),
                                           ours.classes_, ref.classes_):
        np.testing.assert_allclose(mine, theirs, atol=1e-10)
        np.testing.assert_array_equal(c_mine, c_ref)
    Yr = np.column_stack([X[:, 0] ** 2, X[:, 1] - X[:, 2], np.ones(len(X))])
    reg = KernelKNeighborsRegressor(5, kernel=POLY).fit(X, Yr)
    rref, Dq = _reference(KNeighborsRegressor, X, Yr, Xq, n_neighbors=5)
    np.testing.assert_allclose(reg.predict(Xq), rref.predict(Dq), rtol=1e-10)
    # a one-column 2-D y stays 2-D for the regressor, as scikit-learn
    assert reg.fit(X, Yr[:, :1]).predict(Xq).shape == (40, 1)


@pytest.mark.parametrize("mode", ["connectivity", "distance"])
def test_kneighbors_graph_against_sklearn(data, mode):
    X, Y, Xq = data
    y = Y[:, 0]
    # linear kernel: Euclidean, as scikit-learn's own graph
    ours = KernelKNeighborsClassifier(4, kernel="linear").fit(X, y)
    ref = KNeighborsClassifier(4).fit(X, y)
    for query in (Xq, None):
        G, G_ref = ours.kneighbors_graph(query, mode=mode), ref.kneighbors_graph(query,
                                                                                 mode=mode)
        assert G.shape == G_ref.shape and G.format == "csr"
        np.testing.assert_allclose(G.toarray(), G_ref.toarray(), rtol=1e-10, atol=1e-10)
    # polynomial kernel: against precomputed feature-space distances
    poly = KernelKNeighborsRegressor(3, kernel=POLY).fit(X, X[:, 0])
    pref, Dq = _reference(KNeighborsRegressor, X, X[:, 0], Xq, n_neighbors=3)
    np.testing.assert_allclose(poly.kneighbors_graph(Xq, 5, mode=mode).toarray(),
                               pref.kneighbors_graph(Dq, 5, mode=mode).toarray(),
                               rtol=1e-9, atol=1e-9)


def test_bad_weights_and_mode_are_refused(data):
    X, Y, Xq = data
    with pytest.raises(InvalidParameterError, match="weights"):
        KernelKNeighborsClassifier(weights="gaussian").fit(X, Y[:, 0])
    model = KernelKNeighborsRegressor(3, weights=lambda d: d[:, :1]).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="same shape"):
        model.predict(Xq)
    model = KernelKNeighborsRegressor(3, weights=lambda d: -d).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="non-negative"):
        model.predict(Xq)
    with pytest.raises(InvalidParameterError, match="mode"):
        model.kneighbors_graph(Xq, mode="weights")


def test_rbf_graph_rows_hold_the_nearest_points(data):
    X, Y, Xq = data
    model = KernelKNeighborsClassifier(3, kernel=RBF(gamma=0.3)).fit(X, Y[:, 0])
    G = model.kneighbors_graph(Xq, mode="distance").toarray()
    D = np.sqrt(np.maximum(2.0 - 2.0 * np.exp(-0.3 * ((Xq[:, None] - X[None]) ** 2).sum(-1)),
                           0.0))
    for i in range(len(Xq)):
        nearest = np.argsort(D[i], kind="stable")[:3]
        np.testing.assert_array_equal(np.flatnonzero(G[i]), np.sort(nearest))
        np.testing.assert_allclose(G[i, nearest], D[i, nearest], atol=1e-7)
