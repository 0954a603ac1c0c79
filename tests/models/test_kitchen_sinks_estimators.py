"""KitchenSinksRegressor / KitchenSinksClassifier against scikit-learn on the same features."""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression, LogisticRegression

from kernelkit.models import KitchenSinksClassifier, KitchenSinksRegressor


def _regression(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    return X, np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)


def _classification(n=300, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    r = np.hypot(X[:, 0], X[:, 1]) + 0.3 * rng.normal(size=n)  # noisy rings: not separable
    labels = np.array(["inner", "middle", "outer"])
    return X, labels[np.digitize(r, [0.8, 1.5] if n_classes == 3 else [1.2])]


def test_unconstrained_limit_is_least_squares_on_the_features():
    X, y = _regression()
    # few, well-separated frequencies: a well-conditioned Z, so the iteration converges fast
    reg = KitchenSinksRegressor(8, gamma=2.0, C=1e9, tol=1e-10, max_iter=50_000,
                                random_state=0).fit(X, y)
    assert reg.converged_
    Z = reg.feature_map_.transform(X)
    ols = LinearRegression().fit(Z, y)
    np.testing.assert_allclose(reg.predict(X), ols.predict(Z), atol=1e-6)


def test_box_is_respected_and_binds():
    X, y = _regression()
    q, C = 50, 2.0
    reg = KitchenSinksRegressor(q, C=C, random_state=0).fit(X, y)
    assert np.abs(reg.coef_).max() <= C / q
    assert np.sum(np.isclose(np.abs(reg.coef_), C / q)) > 0
    wide = KitchenSinksRegressor(q, C=1e4, max_iter=5000, random_state=0).fit(X, y)
    assert wide.score(X, y) > reg.score(X, y)  # the bound is what limits the fit


def test_multi_output_regression_is_columnwise():
    X, y = _regression()
    Y = np.column_stack([y, -2 * y])
    both = KitchenSinksRegressor(40, C=5.0, tol=1e-8, max_iter=20_000, random_state=0).fit(X, Y)
    one = KitchenSinksRegressor(40, C=5.0, tol=1e-8, max_iter=20_000, random_state=0)
    one.fit(X, -2 * y)
    assert both.predict(X).shape == (len(X), 2) and both.intercept_.shape == (2,)
    np.testing.assert_allclose(both.predict(X)[:, 1], one.predict(X), atol=1e-3)


def test_quality_improves_with_q():
    X, y = _regression(n=400, seed=1)
    Xt, yt = _regression(n=400, seed=2)
    scores = [KitchenSinksRegressor(q, C=50.0, random_state=0).fit(X, y).score(Xt, yt)
              for q in (3, 30, 300)]
    assert scores[0] < scores[1] < scores[2] and scores[2] > 0.9


def test_logistic_unconstrained_limit_is_sklearn_logistic_regression():
    X, y = _classification(seed=3)
    clf = KitchenSinksClassifier(8, gamma=2.0, C=1e9, tol=1e-10, max_iter=50_000,
                                 random_state=0).fit(X, y)
    assert clf.converged_
    Z = clf.feature_map_.transform(X)
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(Z, y)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(Z), atol=1e-4)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(Z), atol=1e-5)


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
def test_one_vs_rest_is_one_binary_problem_per_class(loss):
    X, y = _classification(seed=4, n_classes=3)
    kw = dict(n_components=40, C=20.0, loss=loss, tol=1e-9 if loss == "logistic" else 1e-4,
              max_iter=20_000, random_state=0)
    clf = KitchenSinksClassifier(**kw).fit(X, y)
    assert list(clf.classes_) == ["inner", "middle", "outer"]
    assert clf.coef_.shape == (40, 3) and clf.decision_function(X).shape == (len(X), 3)
    for c, label in enumerate(clf.classes_):
        binary = KitchenSinksClassifier(**kw).fit(X, np.where(y == label, "yes", "always no"))
        # "yes" sorts after "always no", so it is the +1 class, as label c in the OvR fit
        f_ovr, f_one = clf.decision_function(X)[:, c], binary.decision_function(X)
        if loss == "logistic":  # strictly convex in the scores: one answer
            np.testing.assert_allclose(f_ovr, f_one, atol=1e-3)
        else:  # the smoothed hinge may have several minimisers: the same labels
            assert np.mean(np.sign(f_ovr) == np.sign(f_one)) > 0.97
    assert clf.score(X, y) > 0.6


def test_classifier_predictions_and_probabilities():
    X, y = _classification(seed=5)
    clf = KitchenSinksClassifier(100, random_state=0).fit(X, y)
    f = clf.decision_function(X)
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], expit(f))
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, clf.classes_[1],
                                                           clf.classes_[0]))
    assert clf.score(X, y) > 0.75
    three = KitchenSinksClassifier(60, random_state=0).fit(*_classification(n_classes=3))
    np.testing.assert_allclose(three.predict_proba(X).sum(1), 1.0)
    hinge = KitchenSinksClassifier(60, loss="hinge", random_state=0).fit(X, y)
    assert not hasattr(hinge, "predict_proba")
    assert hinge.score(X, y) > 0.75


def test_bump_and_sigmoid_bases_learn():
    X, y = _classification(seed=6)
    for basis in ("bump", "sigmoid"):
        clf = KitchenSinksClassifier(150, basis=basis, random_state=0).fit(X, y)
        assert clf.score(X, y) > 0.75, basis


def test_convergence_warning():
    X, y = _regression()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        KitchenSinksRegressor(20, max_iter=2, random_state=0).fit(X, y)


@pytest.mark.parametrize("kwargs, match", [
    (dict(C=0.0), "C must be a number > 0"),
    (dict(C=np.inf), "C must be"),
    (dict(loss="squared"), "loss must be one of"),
    (dict(fit_intercept="no"), "fit_intercept"),
    (dict(basis="wavelet"), "basis must be one of"),
    (dict(tol=-1.0), "tol"),
])
def test_bad_parameters(kwargs, match):
    X, y = _classification()
    with pytest.raises(ValueError, match=match):
        KitchenSinksClassifier(10, **kwargs).fit(X, y)


def test_bad_data():
    X, y = _classification()
    with pytest.raises(ValueError, match="only one class"):
        KitchenSinksClassifier(10).fit(X, np.zeros(len(X)))
    bad = X.copy()
    bad[3, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        KitchenSinksRegressor(10).fit(bad, np.ones(len(X)))
    reg = KitchenSinksRegressor(10, random_state=0).fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :1])
    with pytest.raises(ValueError, match="requires y"):
        KitchenSinksRegressor(10).fit(X, None)
