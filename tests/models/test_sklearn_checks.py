"""scikit-learn's estimator checks on every kernelkit estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import (KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelRidge, KernelRidgeClassifier, KernelRidgeClassifierCV,
                              KernelRidgeCV, KernelSVC, KernelSVR)
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier,
                              KernelKNeighborsRegressor, KernelOutlierDetector,
                              KitchenSinksClassifier, KitchenSinksRegressor)
from kernelkit.models import KernelOneClassSVM

# With kernel="precomputed", these two checks feed matrices that are not Gram
# matrices at all (a mean-shifted Gram matrix; a Gram matrix truncated to
# integers): both are indefinite. kernelkit refuses an indefinite "kernel"
# with a LinAlgError that says so and how to fix it, by design, instead of
# returning a least-squares answer to a problem that is not kernel ridge.
_INDEFINITE_PRECOMPUTED = {
    "check_positive_only_tag_during_fit": "indefinite precomputed K is refused by design",
    "check_estimators_dtypes": "integer-truncated precomputed K is indefinite: refused by design",
}


# SMO stops at tolerance tol (and Pegasos is stochastic), so weighting and
# repeating samples agree to ~tol, not to the check's 1e-7; scikit-learn marks
# its own SVC the same way for this check.
_SVC_WEIGHT_EQUIVALENCE = {"check_sample_weight_equivalence_on_dense_data":
                           "SMO solves to tolerance tol, not to 1e-7",
                           "check_sample_weight_equivalence_on_sparse_data":
                           "SMO solves to tolerance tol, not to 1e-7"}
# The check sets n_iter=100: a hundred Pegasos steps cannot reach its accuracy bar.
_PEGASOS_FEW_STEPS = {"check_class_weight_classifiers": "100 Pegasos steps are too few"}


# k-means++ (and the Nystroem centers) draw row indices at random: a row repeated
# twice and the same row with weight 2 consume different random numbers, so the
# seeds differ (scikit-learn marks its BisectingKMeans the same way).
_KMEANS_WEIGHT_EQUIVALENCE = {"check_sample_weight_equivalence_on_dense_data":
                              "random k-means++ draws differ for weighted and repeated rows",
                              "check_sample_weight_equivalence_on_sparse_data":
                              "random k-means++ draws differ for weighted and repeated rows"}


# The random basis is drawn from the rows (gamma="scale" from their variance, sigmoid
# offsets and bump centers from rows drawn at random), so repeated rows draw another
# basis; and the ERM stops at tol=1e-3. Integer weights equal repeated rows on the same
# basis to the solver's tolerance (tests/models/test_class_weights.py).
_KITCHEN_SINKS_WEIGHT_EQUIVALENCE = {"check_sample_weight_equivalence_on_dense_data":
                                     "the random basis is drawn from the rows"}
# scikit-learn's outlier checks fit (300, 2) feature data whatever the pairwise tag,
# so a precomputed-kernel outlier detector (its own OneClassSVM too) sees no Gram matrix.
_OUTLIER_CHECKS_ON_FEATURES = {
    "check_outliers_fit_predict": "feeds features, not a Gram matrix, to kernel='precomputed'",
    "check_outliers_train": "feeds features, not a Gram matrix, to kernel='precomputed'",
}
# No intercept (by design: add a constant to the kernel for one): with the local
# RBF(gamma=0.5) on the check's blobs (std 20), test points see f ~ 0, which no
# class weight can move. With kernel "rbf(gamma=0.5) + 1" both estimators pass
# (checked by hand).
_NO_INTERCEPT_CLASS_WEIGHT = {"check_class_weight_classifiers":
                              "no intercept: f ~ 0 far from the training points"}


# The kernel machines take sample_weight (issue 21, item 3): Newton's fits pass the
# check; SGD visits a row repeated k times k times per epoch, a row of weight k once
# with k times the step: the same objective, other iterates (and n differs, so the
# step sizes too). tests/models/test_machine_intercept.py checks weights = repeats
# for Newton and L-BFGS.
_SGD_WEIGHT_EQUIVALENCE = {"check_sample_weight_equivalence_on_dense_data":
                           "SGD's iterates differ for weighted and repeated rows",
                           "check_sample_weight_equivalence_on_sparse_data":
                           "SGD's iterates differ for weighted and repeated rows"}


def _machine_uses_sgd(estimator):
    return isinstance(estimator, (KernelMachine, KernelMachineClassifier)) and (
        estimator.solver == "sgd" or (estimator.solver == "auto" and estimator.loss in
                                      ("hinge", "epsilon_insensitive")))


def _expected_failures(estimator):
    sgd = _SGD_WEIGHT_EQUIVALENCE if _machine_uses_sgd(estimator) else {}
    if isinstance(estimator, (KernelLogisticRegression, KernelMachineClassifier)):
        if getattr(estimator, "fit_intercept", False):  # the intercept moves f: passes
            return sgd
        return {**_NO_INTERCEPT_CLASS_WEIGHT, **sgd}
    if sgd:
        return sgd
    if isinstance(estimator, KernelKMeans):
        return _KMEANS_WEIGHT_EQUIVALENCE
    if isinstance(estimator, (KitchenSinksRegressor, KitchenSinksClassifier)):
        return _KITCHEN_SINKS_WEIGHT_EQUIVALENCE
    if isinstance(estimator, KernelSVC):
        if estimator.kernel == "precomputed":
            return {}
        if estimator.solver == "pegasos":
            return {**_SVC_WEIGHT_EQUIVALENCE, **_PEGASOS_FEW_STEPS}
        return _SVC_WEIGHT_EQUIVALENCE
    if isinstance(estimator, KernelOneClassSVM) and estimator.kernel == "precomputed":
        return _OUTLIER_CHECKS_ON_FEATURES
    if isinstance(estimator, (KernelSVR, KernelOneClassSVM)):  # SMO takes indefinite K
        return {} if estimator.kernel == "precomputed" else _SVC_WEIGHT_EQUIVALENCE
    if getattr(estimator, "kernel", None) == "precomputed":
        return _INDEFINITE_PRECOMPUTED
    return {}


@parametrize_with_checks([
    KernelRidge(kernel=RBF(gamma=0.5), alpha=0.1),
    KernelRidge(kernel="precomputed", alpha=0.1),
    KernelRidge(kernel=Polynomial(degree=2, gamma=1.0), alpha=0.1, solver="primal"),
    KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.1, 1.0)),
    KernelRidgeCV(kernel="rbf", alphas=(0.1, 1.0), param_grid={"gamma": [0.1, 1.0]}),
    KernelRidgeClassifierCV(kernel=RBF(gamma=0.5), alphas=(0.1, 1.0)),
    KernelSVC(kernel=RBF(gamma=0.5)),
    KernelSVR(kernel=RBF(gamma=0.5)),
    KernelSVR(kernel="precomputed"),
    KernelSVC(kernel="precomputed"),
    KernelSVC(kernel=RBF(gamma=0.5), multiclass="ovr"),
    KernelSVC(kernel=RBF(gamma=0.5), probability=True, random_state=0),
    KernelSVC(kernel=RBF(gamma=0.5), solver="pegasos", random_state=0),
    KernelMachine(kernel=RBF(gamma=0.5), alpha=0.1),
    KernelMachine(kernel=RBF(gamma=0.5), loss="huber", alpha=0.1, solver="sgd", random_state=0),
    KernelMachine(kernel=Polynomial(degree=2), alpha=0.1, solver="sgd",
                  strategy="features_cached", random_state=0),
    KernelMachineClassifier(kernel=RBF(gamma=0.5), alpha=0.1, random_state=0),
    KernelMachineClassifier(kernel=RBF(gamma=0.5), loss="logistic", alpha=0.1),
    KernelMachineClassifier(kernel=RBF(gamma=0.5), loss="logistic", alpha=0.1,
                            fit_intercept=True),
    KernelLogisticRegression(kernel=RBF(gamma=0.5), C=10.0),
    KernelLogisticRegression(kernel=RBF(gamma=0.5), C=10.0, multi_class="ovr", solver="newton"),
    KernelKNeighborsClassifier(),
    KernelKNeighborsClassifier(n_neighbors=3, weights="distance", kernel=RBF(gamma=0.5)),
    KernelKNeighborsRegressor(kernel=RBF(gamma=0.5), weights="distance"),
    KernelKMeans(kernel=RBF(gamma=0.5), random_state=0),
    KernelKMeans(kernel=RBF(gamma=0.5), approximation="nystroem", n_components=20,
                 random_state=0),
    KernelOutlierDetector(kernel=RBF(gamma=0.5)),
    KernelOneClassSVM(kernel=RBF(gamma=0.5)),
    KernelOneClassSVM(kernel="precomputed", nu=0.2),
    # The RBF distance to the feature-space mean is bounded (no tail), so Tukey's
    # rule ("auto") flags nothing on the checks' blobs; test this method with a float.
    KernelOutlierDetector(kernel=RBF(gamma=0.5), method="mean", contamination=0.1),
    KernelRidge(kernel=RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=100, tol=1e-10,
                random_state=0),
    KernelRidgeClassifier(kernel=RBF(gamma=0.5), alpha=0.1),
    KernelRidgeClassifier(kernel=RBF(gamma=0.5), alpha=0.1, solver="falkon", n_centers=100,
                          tol=1e-10, random_state=0),
    KitchenSinksRegressor(random_state=0),
    KitchenSinksRegressor(basis="sigmoid", random_state=0),
    KitchenSinksClassifier(random_state=0),
    KitchenSinksClassifier(basis="bump", loss="hinge", random_state=0),
], expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
