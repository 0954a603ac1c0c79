"""The fold models of KernelSVCCV's search score the held-out block as KernelSVC does."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from kernelkit.kernels import RBF
from kernelkit.models import KernelSVC, KernelSVCCV


@pytest.mark.parametrize("n_classes, multiclass", [(2, "ovo"), (3, "ovo"), (3, "ovr")])
def test_fold_model_decisions_equal_kernel_svc_own(n_classes, multiclass):
    X, y = make_classification(240, 5, n_informative=4, n_redundant=0, n_classes=n_classes,
                               random_state=0)
    K = RBF(gamma=0.3)(X)
    test = np.arange(1, 240, 3)
    train = np.setdiff1d(np.arange(240), test)
    search = KernelSVCCV("precomputed", multiclass=multiclass)
    block = np.ascontiguousarray(K[np.ix_(test, train)])
    seen = 0
    for C, model, _ in search._fold_path(K, train, y[train], [0.1, 1.0, 10.0]):
        fast = model.decision_function(block)
        base = KernelSVC._raw_decision(model, block)  # the checked path: X[:, support] @ W
        np.testing.assert_allclose(model._raw_decision(block), base, rtol=0, atol=1e-12)
        assert fast.shape[0] == len(test)
        reference = KernelSVC("precomputed", C=C, multiclass=multiclass)
        for key, value in vars(model).items():  # the same fitted state, the plain class
            if key.endswith("_") and not key.startswith("_"):
                setattr(reference, key, value)
        np.testing.assert_array_equal(model.predict(block), reference.predict(block))
        seen += 1
    assert seen == 3
