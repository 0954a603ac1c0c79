"""scikit-learn compatible estimators: validate, plan, solve, store fitted state."""

from .kernel_machine import KernelMachine, KernelMachineClassifier
from .kernel_ridge import KernelRidge
from .kernel_ridge_cv import KernelRidgeCV
from .learned_kernel_ridge import LearnedKernelRidge
from .kernel_ridge_classifier import KernelRidgeClassifier
from .kernel_ridge_classifier_cv import KernelRidgeClassifierCV
from .kitchen_sinks import KitchenSinksClassifier, KitchenSinksRegressor
from .logistic import KernelLogisticRegression
from .logistic_cv import KernelLogisticRegressionCV
from .machine_cv import KernelMachineClassifierCV, KernelMachineCV
from .svm import KernelSVC
from .svr import KernelSVR
from .svm_cv import KernelSVCCV, KernelSVRCV
from .neighbors import KernelKNeighborsClassifier, KernelKNeighborsRegressor
from .cluster import KernelKMeans
from .outliers import KernelOutlierDetector
from .one_class_svm import KernelOneClassSVM
from .kernel_pca import KernelPCA
from .cluster_density import KernelDBSCAN
from .cluster_hierarchical import KernelAgglomerativeClustering
from .similarity import KernelSimilarity, most_similar

__all__ = ["KernelRidge", "KernelRidgeCV", "KernelSVC", "KernelSVR", "KernelMachine",
           "KernelMachineClassifier", "KernelLogisticRegression",
           "KernelKNeighborsClassifier", "KernelKNeighborsRegressor", "KernelKMeans",
           "KernelOutlierDetector", "KernelOneClassSVM",
           "KernelRidgeClassifier", "KernelRidgeClassifierCV", "LearnedKernelRidge",
           "KitchenSinksRegressor", "KitchenSinksClassifier",
           "KernelSVCCV", "KernelSVRCV", "KernelLogisticRegressionCV", "KernelMachineCV",
           "KernelMachineClassifierCV", "KernelPCA",
           "KernelDBSCAN", "KernelAgglomerativeClustering", "KernelSimilarity", "most_similar"]
