"""scikit-learn's estimator checks on the distance methods (DBSCAN, agglomerative
clustering, the similarity index)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kernelkit.models import KernelAgglomerativeClustering, KernelDBSCAN, KernelSimilarity


@parametrize_with_checks([KernelDBSCAN(), KernelAgglomerativeClustering(),
                          KernelAgglomerativeClustering(linkage="single", kernel="linear"),
                          KernelSimilarity()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
