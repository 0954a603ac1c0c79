"""examples/kitchen_sinks.py: the constrained ERM's accuracy against q and C, and the
share of weights the box holds at its bound, recomputed from the fitted models."""

import numpy as np
import pytest

from gallery._load import load_example


@pytest.fixture(scope="module")
def res():
    return load_example("kitchen_sinks").run(quick=True)


def test_a_tight_box_holds_the_weights_at_its_bound(res):
    accuracy = {c: v[0] for c, v in res["bound"].items()}
    at_bound = {c: v[1] for c, v in res["bound"].items()}
    assert at_bound[1.0] > 0.8 > at_bound[1000.0]  # C / q binds for small C only
    assert accuracy[1000.0] > accuracy[1.0] + 0.05  # a small C underfits


def test_the_box_is_respected_and_ridge_is_scikit_learns():
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline

    from kernelkit.datasets import load_banana
    from kernelkit.features import RandomKitchenSinks
    from kernelkit.models import KitchenSinksClassifier

    X, y = load_banana(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    clf = KitchenSinksClassifier(50, C=5.0, random_state=0, max_iter=3000).fit(X[:800], y[:800])
    assert np.abs(clf.coef_).max() <= 5.0 / 50 * (1 + 1e-12)
    Z = RandomKitchenSinks(50, normalize=True, random_state=0).fit_transform(X[:800])
    pipe = make_pipeline(RandomKitchenSinks(50, normalize=True, random_state=0),
                         RidgeClassifier(alpha=1e-3)).fit(X[:800], y[:800])
    direct = RidgeClassifier(alpha=1e-3).fit(Z, y[:800])
    np.testing.assert_allclose(pipe[-1].coef_, direct.coef_, rtol=1e-10)


def test_plot(res):
    fig = load_example("kitchen_sinks").plot(res)
    assert len(fig.axes) == 2
