"""The allow-list of model files: the one place that names every class a model file
may hold, which of its fitted attributes are arrays and which JSON, and the check
that a restored state is one consistent fitted model; and the public classes that
``save`` refuses, each with the reason.

Loading rebuilds only the classes named here, with only the attributes named here
(``model_files`` refuses any other member or attribute), and runs the entry's check
before the model is handed back. The checks themselves live beside the code that
knows each family: ``_checks`` (shared: sizes, kernel, ranges, stored inputs),
``_model_checks`` (kernel ridge, machines, neighbours, k-means, outliers, kitchen
sinks), ``_svm_checks``, ``_transformer_checks`` (feature maps, scalers),
``_decomposition`` (KernelPCA), ``_similarity``, ``_preprocessors`` (encoders,
imputers), ``_linear_models``; ``_feature_machines`` extends a kernel machine's
check to a feature map of its own.
"""

from __future__ import annotations

from sklearn.impute import SimpleImputer
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, RobustScaler, StandardScaler

from ..features import (ExplicitFeatures, Nystroem, RandomFourierFeatures, RandomKitchenSinks,
                        TaylorFeatures, WeisfeilerLehmanFeatures)
from ..models import (KernelKMeans, KernelKNeighborsClassifier, KernelKNeighborsRegressor,
                      KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                      KernelOneClassSVM, KernelOutlierDetector, KernelPCA, KernelRidge,
                      KernelRidgeClassifier, KernelRidgeClassifierCV, KernelRidgeCV,
                      KernelSimilarity, KernelSVC, KernelSVR, KitchenSinksClassifier,
                      KitchenSinksRegressor, LearnedKernelRidge)
from ._checks import Entry, then_check_ranges
from ._decomposition import check_kernel_pca_state
from ._feature_machines import MACHINES, with_feature_map
from ._linear_models import LINEAR_CLASSIFIERS, LINEAR_MODELS, check_linear
from ._model_checks import (check_kernel_machine_state, check_kitchen_sinks_state,
                            check_kmeans_state, check_neighbors_state, check_outlier_state,
                            check_ridge_classifier_state, check_ridge_state)
from ._preprocessors import check_imputer_state, check_onehot_state
from ._similarity import check_similarity_state
from ._svm_checks import check_one_class_state, check_svc_state, check_svr_state
from ._transformer_checks import (SCALER_ARRAYS, WL_ARRAYS, check_explicit, check_nystroem,
                                  check_random_fourier, check_scaler, check_taylor,
                                  check_wl_features)

__all__ = ["allow_list", "REFUSED", "Entry"]

_NAMES = ("n_features_in_", "feature_names_in_")
# Kernel ridge's intercept and Falkon's final residual: absent from files written
# before they existed (a missing intercept_ is 0, see _model_checks).
_RIDGE_ARRAYS = ("dual_coef_", "X_fit_", "coef_", "centers_", "intercept_", "residual_norm_")
_RIDGE_JSON = ("solver_", "jitter_", "n_features_in_", "n_samples_fit_", "feature_names_in_",
               "n_iter_", "rank_")
_RIDGE_CV_ARRAYS = ("dual_coef_", "X_fit_", "centers_", "intercept_", "residual_norm_")
_RIDGE_CV_JSON = ("alpha_", "best_score_", "solver_", "rank_", "n_features_in_",
                  "n_samples_fit_", "feature_names_in_")
_KM_ARRAYS = ("dual_coef_", "X_fit_", "coef_", "objective_", "intercept_")
_KM_JSON = ("representation_", "solver_", "strategy_", "n_iter_") + _NAMES
_KNN_ARRAYS = ("X_fit_", "y_fit_", "diag_fit_")
_KNN_JSON = ("n_features_in_", "n_samples_fit_", "feature_names_in_")
# Random kitchen sinks: the feature map's parameters are arrays; a callable
# basis or sampler is refused at save time (it is a parameter, not data).
_RKS_ARRAYS = ("random_weights_", "random_offset_")
_KS_ARRAYS = _RKS_ARRAYS + ("coef_", "intercept_", "objective_")
_KS_JSON = ("gamma_", "bandwidth_", "n_iter_", "converged_") + _NAMES
# KernelSVC: probA_/probB_ with probability=True, SMO's final violation (both
# optional: absent from older files).
_SVC_ARRAYS = ("dual_coef_", "support_vectors_", "intercept_", "support_", "n_support_",
               "dual_objective_", "duality_gap_", "n_iter_", "max_violation_", "probA_",
               "probB_")
_SVR_ARRAYS = ("dual_coef_", "support_vectors_", "intercept_", "support_")


def _kernelkit_entries():
    """kernelkit's estimators and transformers; every check ends with the range
    checks of the restored numbers (``_checks.check_ranges``)."""
    return {
        # kernel ridge
        "KernelRidge": Entry(KernelRidge, _RIDGE_ARRAYS, _RIDGE_JSON, check_ridge_state),
        "KernelRidgeClassifier": Entry(KernelRidgeClassifier, _RIDGE_ARRAYS,
                                       ("classes_",) + _RIDGE_JSON,
                                       check_ridge_classifier_state),
        "KernelRidgeCV": Entry(KernelRidgeCV, _RIDGE_CV_ARRAYS, _RIDGE_CV_JSON, check_ridge_state),
        "LearnedKernelRidge": Entry(LearnedKernelRidge, _RIDGE_ARRAYS + ("theta_", "y_scale_"),
                                    _RIDGE_JSON + ("alpha_", "objective_", "objective_value_",
                                                   "log_marginal_likelihood_"),
                                    check_ridge_state),
        "KernelRidgeClassifierCV": Entry(KernelRidgeClassifierCV, _RIDGE_CV_ARRAYS,
                                         ("classes_",) + _RIDGE_CV_JSON,
                                         check_ridge_classifier_state),
        # support vector machines
        "KernelSVC": Entry(KernelSVC, _SVC_ARRAYS, ("classes_",) + _NAMES, check_svc_state),
        "KernelSVR": Entry(KernelSVR, _SVR_ARRAYS,
                           ("n_iter_", "dual_objective_", "duality_gap_") + _NAMES,
                           check_svr_state),
        "KernelOneClassSVM": Entry(KernelOneClassSVM, _SVR_ARRAYS,
                                   ("offset_", "n_iter_", "objective_", "max_violation_")
                                   + _NAMES, check_one_class_state),
        # kernel machines (any loss)
        "KernelMachine": Entry(KernelMachine, _KM_ARRAYS, _KM_JSON, check_kernel_machine_state),
        "KernelMachineClassifier": Entry(KernelMachineClassifier, _KM_ARRAYS,
                                         ("classes_",) + _KM_JSON, check_kernel_machine_state),
        "KernelLogisticRegression": Entry(KernelLogisticRegression, _KM_ARRAYS,
                                          ("classes_", "multi_class_") + _KM_JSON,
                                          check_kernel_machine_state),
        # distances in feature space
        "KernelKNeighborsClassifier": Entry(KernelKNeighborsClassifier, _KNN_ARRAYS,
                                            ("classes_",) + _KNN_JSON, check_neighbors_state),
        "KernelKNeighborsRegressor": Entry(KernelKNeighborsRegressor, _KNN_ARRAYS, _KNN_JSON,
                                           check_neighbors_state),
        "KernelKMeans": Entry(KernelKMeans, ("labels_", "X_fit_", "dual_coef_",
                                             "center_membership_", "center_norms_",
                                             "cluster_centers_", "components_",
                                             "normalization_"),
                              ("inertia_", "n_iter_") + _NAMES, check_kmeans_state),
        "KernelOutlierDetector": Entry(KernelOutlierDetector, ("X_fit_", "diag_fit_"),
                                       ("offset_", "mean_norm_") + _NAMES, check_outlier_state),
        "KernelSimilarity": Entry(KernelSimilarity, ("X_fit_", "diag_fit_"),
                                  ("n_samples_fit_",) + _NAMES, check_similarity_state),
        "KernelPCA": Entry(KernelPCA, ("eigenvalues_", "eigenvectors_", "X_fit_", "K_fit_rows_",
                                       "centers_", "projection_", "projection_offset_",
                                       "dual_coef_", "X_transformed_fit_"),
                           ("eigen_solver_", "K_fit_all_", "n_samples_fit_") + _NAMES,
                           check_kernel_pca_state),
        # random kitchen sinks
        "RandomKitchenSinks": Entry(RandomKitchenSinks, _RKS_ARRAYS,
                                    ("gamma_", "bandwidth_", "n_components_") + _NAMES,
                                    check_kitchen_sinks_state),
        "KitchenSinksRegressor": Entry(KitchenSinksRegressor, _KS_ARRAYS, _KS_JSON,
                                       check_kitchen_sinks_state),
        "KitchenSinksClassifier": Entry(KitchenSinksClassifier, _KS_ARRAYS,
                                        ("classes_",) + _KS_JSON, check_kitchen_sinks_state),
        # feature maps (on their own, as pipeline steps, or a machine's own map)
        "RandomFourierFeatures": Entry(RandomFourierFeatures, ("random_weights_",
                                                               "random_offset_"),
                                       ("n_components_",) + _NAMES, check_random_fourier),
        "Nystroem": Entry(Nystroem, ("components_", "component_indices_", "normalization_"),
                          ("n_components_",) + _NAMES, check_nystroem),
        "ExplicitFeatures": Entry(ExplicitFeatures, (), ("n_components_",) + _NAMES,
                                  check_explicit),
        "TaylorFeatures": Entry(TaylorFeatures, (), ("gamma_", "n_components_") + _NAMES,
                                check_taylor),
        "WeisfeilerLehmanFeatures": Entry(WeisfeilerLehmanFeatures, WL_ARRAYS,
                                          ("n_components_",), check_wl_features),
    }


def _scikit_learn_entries():
    """The scikit-learn preprocessors a kernel model sits behind, and the linear
    models that end "form psi, run your favourite linear method"."""
    table = {
        "StandardScaler": Entry(StandardScaler, SCALER_ARRAYS["StandardScaler"],
                                ("n_samples_seen_",) + _NAMES, check_scaler),
        "MinMaxScaler": Entry(MinMaxScaler, SCALER_ARRAYS["MinMaxScaler"],
                              ("n_samples_seen_",) + _NAMES, check_scaler),
        "RobustScaler": Entry(RobustScaler, SCALER_ARRAYS["RobustScaler"], _NAMES,
                              check_scaler),
        # public state only, scikit-learn's private state rebuilt on load (_preprocessors)
        "OneHotEncoder": Entry(OneHotEncoder, ("categories_text_", "categories_float_",
                                               "categories_int_", "category_kinds_",
                                               "category_counts_", "drop_columns_"), _NAMES,
                               check_onehot_state),
        "SimpleImputer": Entry(SimpleImputer, ("statistics_",),
                               ("fit_dtype_", "statistics_dtype_") + _NAMES,
                               check_imputer_state),
    }
    # Ridge, LinearRegression, SGDRegressor, LinearSVR, RidgeClassifier,
    # LogisticRegression, SGDClassifier, LinearSVC
    for cls in LINEAR_MODELS:
        table[cls.__name__] = Entry(cls, ("coef_", "intercept_"),
                                    (("classes_",) if cls in LINEAR_CLASSIFIERS else ())
                                    + _NAMES, check_linear)
    return table


def allow_list():
    """Every class a model file may hold: name -> :class:`Entry` (class, array
    attributes, JSON attributes, state check)."""
    table = {name: entry._replace(check=then_check_ranges(entry.check))
             for name, entry in _kernelkit_entries().items()}
    for name in MACHINES:  # their state may include a feature map of their own
        table[name] = with_feature_map(table[name])
    return {**table, **_scikit_learn_entries()}


_SEARCH = ("a search along a path of parameters (its cross-validation results are not a "
           "model); save its best_estimator_ (a {0}, refitted on all the data), which "
           "predicts as the search does")
_DASK = ("it is fitted on a Dask cluster; save its to_local() (an in-memory {0} that "
         "predicts the same)")

#: The public estimators ``save`` refuses, with the reason (and the way out) that its
#: message gives. Every other public estimator and transformer has an entry above
#: (``tests/test_persistence_every_kind.py`` holds the two lists to the package).
REFUSED = {
    "KernelDBSCAN": "as scikit-learn's DBSCAN it has no predict: its labels_ are the training "
                    "set's, and a model file would hold nothing to apply to new points",
    "KernelAgglomerativeClustering": "as scikit-learn's AgglomerativeClustering it has no "
                                     "predict: its labels_ are the training set's, and a "
                                     "model file would hold nothing to apply to new points",
    "KernelMachineCV": _SEARCH.format("KernelMachine"),
    "KernelMachineClassifierCV": _SEARCH.format("KernelMachineClassifier"),
    "KernelLogisticRegressionCV": _SEARCH.format("KernelLogisticRegression"),
    "KernelSVCCV": _SEARCH.format("KernelSVC"),
    "KernelSVRCV": _SEARCH.format("KernelSVR"),
    "DaskKernelRidge": _DASK.format("KernelRidge"),
    "DaskKernelRidgeClassifier": _DASK.format("KernelRidgeClassifier"),
    "DaskKernelKMeans": _DASK.format("KernelKMeans"),
    "ParallelPostFit": "it wraps an estimator for parallel prediction; save its estimator_ "
                       "and wrap the loaded model again",
}
