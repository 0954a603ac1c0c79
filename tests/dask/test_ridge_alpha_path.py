"""DaskKernelRidge(alpha=[...]): alpha chosen by GCV from the one pass, against the GCV
formula with the explicit hat matrix of the features and the in-memory solve."""

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from kernelkit.exceptions import InvalidParameterError  # noqa: E402
from kernelkit.dask import DaskKernelRidge, DaskKernelRidgeClassifier  # noqa: E402
from kernelkit.tuning import GridEdgeWarning  # noqa: E402

ALPHAS = [1e-3, 1e-2, 1e-1, 1.0, 10.0]


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] + 0.2 * rng.normal(size=n) + 20.0


def test_alpha_list_is_chosen_by_gcv_of_the_features_model():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        m = DaskKernelRidge("rbf(gamma=0.5)", alpha=ALPHAS, n_components=40,
                            random_state=0).fit(da.from_array(X, chunks=150), y)
    assert m.solver_ == "features" and m.solver_choice_.value == "features"
    Z = m.feature_map_.transform(X)
    n = len(X)
    J = np.full((n, n), 1.0 / n)
    ref = []
    for alpha in ALPHAS:  # the model: the mean + ridge on Z of the centred target
        H = Z @ np.linalg.solve(Z.T @ Z + alpha * np.eye(Z.shape[1]), Z.T)
        H1 = J + H @ (np.eye(n) - J)
        ref.append(np.mean((y - H1 @ y) ** 2) / (1 - np.trace(H1) / n) ** 2)
    np.testing.assert_allclose(m.gcv_, ref, rtol=1e-7)
    assert m.alpha_ == ALPHAS[int(np.argmin(ref))]
    w = np.linalg.solve(Z.T @ Z + m.alpha_ * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))
    np.testing.assert_allclose(m.predict(X), Z @ w + y.mean(), rtol=1e-8)
    assert m.to_local().alpha == m.alpha_


def test_alpha_list_edges_and_errors():
    X, y = _data(200, seed=1)
    Xd = da.from_array(X, chunks=100)
    with pytest.warns(GridEdgeWarning, match="alpha=100 is the smallest"):
        m = DaskKernelRidge("rbf(gamma=0.5)", alpha=[100.0, 1e4], n_components=20,
                            random_state=0).fit(Xd, y)
    assert m.alpha_choice_.value is False
    with pytest.raises(InvalidParameterError, match="Falkon takes one alpha"):
        DaskKernelRidge(alpha=[0.1, 1.0], solver="falkon").fit(Xd, y)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        DaskKernelRidge(alpha=[0.1, 1.0]).fit(Xd, y, sample_weight=np.ones(len(y)))
    with pytest.raises(InvalidParameterError, match="positive"):
        DaskKernelRidge(alpha=[0.1, -1.0]).fit(Xd, y)


def test_classifier_takes_an_alpha_list():
    X, _ = _data(300, seed=2)
    labels = np.where(X[:, 0] * X[:, 1] > 0, "a", "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        clf = DaskKernelRidgeClassifier("rbf(gamma=1.0)", alpha=ALPHAS, n_components=60,
                                        random_state=0).fit(da.from_array(X, chunks=100),
                                                            labels)
    assert clf.alpha_ in ALPHAS and clf.gcv_.shape == (len(ALPHAS),)
    assert np.mean(clf.predict(X) == labels) > 0.85
