"""scikit-learn's estimator checks on the *CV learners (small grids, 3 folds).

The Newton-based ones (KernelLogisticRegressionCV, KernelMachineCV,
KernelMachineClassifierCV) pass them too (checked: 265 passed, the two class-weight
checks expected to fail as below) but take minutes: a Cholesky per Newton step for
every (alpha, fold) of every check; only the SMO-based ones run here.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.kernels import RBF
from kernelkit.models import (KernelLogisticRegressionCV, KernelMachineClassifierCV,
                              KernelMachineCV, KernelSVCCV, KernelSVRCV)

# As for KernelLogisticRegression and KernelMachineClassifier (tests/models/
# test_sklearn_checks.py): no intercept, so f ~ 0 far from the training points,
# which no class weight can move.
_NO_INTERCEPT = {"check_class_weight_classifiers":
                 "no intercept: f ~ 0 far from the training points"}


# Repeating a row is not weighting it in a search: the copies fall into different folds
# (and SMO solves to tol, not to the check's 1e-7, as KernelSVC / KernelSVR).
_FOLDS_SPLIT_COPIES = {"check_sample_weight_equivalence_on_dense_data":
                       "repeated rows fall into different folds"}


def _expected(est):
    if isinstance(est, (KernelLogisticRegressionCV, KernelMachineClassifierCV)):
        return _NO_INTERCEPT
    return _FOLDS_SPLIT_COPIES


@parametrize_with_checks([
    KernelSVCCV(RBF(gamma=0.5), Cs=[0.1, 1.0], cv=3),
    KernelSVRCV(RBF(gamma=0.5), Cs=[0.1, 1.0], cv=3),
], expected_failed_checks=_expected)
def test_sklearn_compatible(estimator, check):
    check(estimator)
