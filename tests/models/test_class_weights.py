"""class_weight on KernelRidgeClassifier and KitchenSinksClassifier, sample_weight on the
kitchen sinks: against scikit-learn's RidgeClassifier, manual weights and repeated rows."""

import numpy as np
import pytest
from sklearn.linear_model import RidgeClassifier
from sklearn.utils.class_weight import compute_sample_weight

from kernelkit.models import KernelRidgeClassifier, KitchenSinksClassifier, KitchenSinksRegressor


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=90) > 0.6, "b",
                 np.where(X[:, 1] > 0.5, "c", "a"))  # unbalanced three classes
    return X, y, rng.normal(size=(30, 3))


@pytest.mark.parametrize("class_weight", ["balanced", {"a": 1.0, "b": 5.0, "c": 0.5}])
@pytest.mark.parametrize("binary", [False, True])
def test_ridge_classifier_class_weight_equals_sklearn_linear(data, class_weight, binary):
    X, y, Xq = data
    if binary:
        y = np.where(y == "b", "b", "a")
        if isinstance(class_weight, dict):
            class_weight = {"a": 1.0, "b": 5.0}
    sw = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    ref = RidgeClassifier(alpha=0.5, fit_intercept=False, class_weight=class_weight).fit(
        X, y, sample_weight=sw)
    ours = KernelRidgeClassifier("linear", alpha=0.5, fit_intercept=False,
                                 class_weight=class_weight).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.decision_function(Xq), ref.decision_function(Xq),
                               rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Xq))


def test_ridge_classifier_class_weight_is_sample_weight(data):
    X, y, Xq = data
    by_class = KernelRidgeClassifier("rbf(gamma=0.5)", alpha=0.1,
                                     class_weight="balanced").fit(X, y)
    manual = KernelRidgeClassifier("rbf(gamma=0.5)", alpha=0.1).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_allclose(by_class.decision_function(Xq), manual.decision_function(Xq),
                               rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="not in class_weight|classes"):
        KernelRidgeClassifier("linear", class_weight={"zzz": 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        KernelRidgeClassifier("linear", class_weight="auto").fit(X, y)


def _repeat(X, y, w):
    return np.repeat(X, w, axis=0), np.repeat(y, w, axis=0)


class _Drawn:
    """A feature map already drawn: the random basis depends on the data (sigmoid offsets,
    gamma="scale"), so the repeated-rows fit reuses the weighted fit's."""

    def __init__(self, fmap):
        self.fmap = fmap

    def fit(self, X, y=None):
        return self.fmap


@pytest.mark.parametrize("basis", ["cosine", "sigmoid"])
def test_kitchen_sinks_regressor_integer_weights_equal_repeated_rows(data, basis):
    X, _, Xq = data
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    w = np.random.default_rng(2).integers(0, 4, size=len(X))
    kw = dict(n_components=30, basis=basis, gamma=0.5, random_state=0, tol=1e-12,
              max_iter=20000)
    weighted = KitchenSinksRegressor(**kw).fit(X, y, sample_weight=w)
    repeated = KitchenSinksRegressor(**kw)
    repeated._feature_map = lambda: _Drawn(weighted.feature_map_)
    Xr, yr = _repeat(X, y, w)
    repeated.fit(Xr, yr)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-7)
    np.testing.assert_allclose(weighted.predict(Xq), repeated.predict(Xq), atol=1e-7)
    unweighted = KitchenSinksRegressor(**kw).fit(X, y)
    assert not np.allclose(unweighted.coef_, weighted.coef_, atol=1e-3)


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
def test_kitchen_sinks_classifier_weights_equal_repeated_rows(data, loss):
    X, y, Xq = data
    w = np.random.default_rng(3).integers(0, 4, size=len(X))
    kw = dict(n_components=30, loss=loss, C=20.0, random_state=0, tol=1e-10, max_iter=20000)
    weighted = KitchenSinksClassifier(**kw).fit(X, y, sample_weight=w)
    repeated = KitchenSinksClassifier(**kw)
    repeated._feature_map = lambda: _Drawn(weighted.feature_map_)
    repeated.fit(*_repeat(X, y, w))
    np.testing.assert_allclose(weighted.decision_function(Xq), repeated.decision_function(Xq),
                               atol=1e-5)


def test_kitchen_sinks_class_weight_is_sample_weight(data):
    X, y, Xq = data
    kw = dict(n_components=30, C=20.0, random_state=0, tol=1e-8, max_iter=5000)
    sw = np.random.default_rng(4).uniform(0.5, 2.0, size=len(X))
    cw = {"a": 1.0, "b": 3.0, "c": 0.5}
    by_class = KitchenSinksClassifier(class_weight=cw, **kw).fit(X, y, sample_weight=sw)
    manual = KitchenSinksClassifier(**kw).fit(X, y,
                                              sample_weight=sw * compute_sample_weight(cw, y))
    np.testing.assert_allclose(by_class.decision_function(Xq), manual.decision_function(Xq),
                               atol=1e-12)
    binary = np.where(y == "b", "b", "a")
    by_class = KitchenSinksClassifier(class_weight="balanced", **kw).fit(X, binary)
    manual = KitchenSinksClassifier(**kw).fit(
        X, binary, sample_weight=compute_sample_weight("balanced", binary))
    np.testing.assert_allclose(by_class.decision_function(Xq), manual.decision_function(Xq),
                               atol=1e-12)
    with pytest.raises(ValueError, match="sample_weight"):
        KitchenSinksRegressor().fit(X, X[:, 0], sample_weight=-np.ones(len(X)))
