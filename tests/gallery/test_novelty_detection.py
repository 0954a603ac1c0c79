"""Novelty detection: the one-class SVM equals scikit-learn's; the distance scores order the
tumours as the feature-space distances computed here from kernel values."""

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.svm import OneClassSVM

from gallery._load import load_example

ex = load_example("novelty_detection")


@pytest.fixture(scope="module")
def res():
    return ex.run(quick=True)


def _rbf(A, B):
    sq = (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-ex.GAMMA * np.maximum(sq, 0.0))


def test_one_class_svm_is_scikit_learns(res):
    ocsvm = res["detectors"]["one-class SVM (nu=0.05)"]
    ref = OneClassSVM(gamma=ex.GAMMA, nu=0.05).fit(res["train"])
    diff = np.max(np.abs(ocsvm.decision_function(res["test"]) - ref.decision_function(res["test"])))
    assert diff < 1e-3 and res["sklearn_difference"] == pytest.approx(diff)


def test_distance_scores_are_feature_space_distances(res):
    train, test = res["train"], res["test"]
    Kxt = _rbf(test, train)
    # distance to the kernel mean: k(x, x) - 2 mean_i k(x, x_i) + mean_ij k(x_i, x_j)
    to_mean = 1.0 - 2.0 * Kxt.mean(axis=1) + _rbf(train, train).mean()
    # distance to the 5th nearest training point: 2 - 2 k(x, x_i), 5th smallest
    fifth = np.sort(2.0 - 2.0 * Kxt, axis=1)[:, 4]
    for name, reference in (("distance to kernel mean", to_mean),
                            ("5th neighbour distance", fifth)):
        scores = -res["detectors"][name].score_samples(test)
        assert spearmanr(scores, reference).statistic > 0.999, name


def test_malignant_tumours_look_unusual(res):
    assert all(auc > 0.9 for auc in res["auc"].values())


def test_plot(res):
    fig = ex.plot(res)
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) == 4
