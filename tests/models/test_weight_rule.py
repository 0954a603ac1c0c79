"""One rule for every weight (issue 23): class weights and sample weights must be finite,
>= 0 and not all zero, for every classifier that takes them; a clear error otherwise (NaN
weights gave probabilities of 0.5 everywhere, negative ones a hanging kitchen-sinks fit)."""

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.models import (KernelLogisticRegression, KernelMachineClassifier, KernelSVC,
                              KernelSVCCV, KitchenSinksClassifier)

MAKERS = [lambda cw: KernelSVC(RBF(gamma=0.5), class_weight=cw),
          lambda cw: KernelSVC(RBF(gamma=0.5), class_weight=cw, probability=True,
                               random_state=0),
          lambda cw: KernelLogisticRegression(RBF(gamma=0.5), class_weight=cw),
          lambda cw: KernelMachineClassifier(RBF(gamma=0.5), class_weight=cw),
          lambda cw: KernelSVCCV(RBF(gamma=0.5), Cs=[1.0, 10.0], cv=2, class_weight=cw),
          lambda cw: KitchenSinksClassifier(n_components=20, class_weight=cw, random_state=0)]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("cw, match", [({0: np.nan, 1: 1.0}, "class 0 the weight nan"),
                                       ({0: -2.0, 1: 1.0}, "class 0 the weight -2.0"),
                                       ({0: np.inf, 1: 1.0}, "class 0 the weight inf"),
                                       ({0: 0.0, 1: 0.0}, "every class the weight 0")])
def test_bad_class_weights_are_refused(data, make, cw, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        make(cw).fit(X, y)


@pytest.mark.parametrize("make", MAKERS)
def test_good_class_weights_still_fit(data, make):
    X, y = data
    model = make({0: 2.0, 1: 0.5}).fit(X, y)
    assert set(model.predict(X)) <= {0, 1}


def test_overflowing_sample_weights_are_refused(data):
    from kernelkit.models import KernelOneClassSVM, KernelRidge

    X, y = data
    with pytest.raises(ValueError, match="sample_weight is too large"):
        KernelOneClassSVM(RBF(gamma=0.5)).fit(X, sample_weight=np.full(len(X), 1e308))
    with pytest.raises(ValueError, match="sample_weight is too large"):
        KernelRidge(RBF(gamma=0.5)).fit(X, y, sample_weight=np.full(len(X), 1e305))
    KernelRidge(RBF(gamma=0.5)).fit(X, y, sample_weight=np.full(len(X), 1e250))  # still fine


@pytest.mark.parametrize("name, other", [("KernelRidge", "KernelRidgeClassifier"),
                                         ("KernelSVR", "KernelSVC"),
                                         ("KernelRidgeCV", "KernelRidgeClassifierCV"),
                                         ("KernelMachine", "KernelMachineClassifier")])
def test_text_labels_given_to_a_regressor_name_the_classifier(data, name, other):
    import kernelkit.models as models

    X, _ = data
    labels = np.array(["cat", "dog"] * (len(X) // 2))
    with pytest.raises(ValueError, match=f"{name} is a regressor.*'cat'.*use {other}$"):
        getattr(models, name)(RBF(gamma=0.5)).fit(X, labels)
    numeric_text = np.array(["1.5", "2"] * (len(X) // 2))  # numbers as text still convert
    getattr(models, name)(RBF(gamma=0.5)).fit(X, numeric_text)


def test_knn_callable_weights_all_zero_refuse_to_vote(data):
    # scikit-learn raises too; before, the first class was returned for such a query
    from sklearn.neighbors import KNeighborsClassifier
    from kernelkit.models import KernelKNeighborsClassifier

    X, y = data
    zero = lambda d: np.zeros_like(d)  # noqa: E731
    with pytest.raises(ValueError):
        KNeighborsClassifier(weights=zero).fit(X, y).predict(X[:3])
    with pytest.raises(ValueError, match="weight 0, so it has no vote"):
        KernelKNeighborsClassifier(weights=zero).fit(X, y).predict(X[:3])
    half = lambda d: (np.arange(d.shape[1]) == 0) * np.ones_like(d)  # noqa: E731
    ours = KernelKNeighborsClassifier(weights=half).fit(X, y).predict(X[:5])
    np.testing.assert_array_equal(ours, KNeighborsClassifier(weights=half).fit(X, y)
                                  .predict(X[:5]))
