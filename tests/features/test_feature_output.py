"""Output feature names, set_output(transform="pandas") and Nystroem(kernel="precomputed"),
against scikit-learn's RBFSampler and Nystroem."""

import os

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.utils.estimator_checks import (check_dataframe_column_names_consistency,
                                            check_get_feature_names_out_error,
                                            check_set_output_transform,
                                            check_set_output_transform_pandas,
                                            check_transformer_get_feature_names_out,
                                            check_transformer_get_feature_names_out_pandas)

import kernelkit
from kernelkit.exceptions import InvalidParameterError
from kernelkit.features import (ExplicitFeatures, Nystroem, RandomFourierFeatures,
                                RandomKitchenSinks)
from kernelkit.kernels import RBF

MAPS = [RandomFourierFeatures(RBF(gamma=0.5), n_components=8, random_state=0),
        Nystroem(RBF(gamma=0.5), n_components=6, random_state=0),
        RandomKitchenSinks(7, random_state=0),
        ExplicitFeatures("poly(degree=2, coef0=1)")]
CHECKS = [check_transformer_get_feature_names_out,
          check_transformer_get_feature_names_out_pandas, check_set_output_transform,
          check_set_output_transform_pandas, check_get_feature_names_out_error,
          check_dataframe_column_names_consistency]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("fmap", MAPS, ids=lambda m: type(m).__name__)
def test_sklearn_feature_name_and_output_checks(fmap, check):
    check(type(fmap).__name__, fmap)


def test_names_follow_rbf_sampler_and_pandas_output_keeps_the_index():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"],
                     index=np.arange(100, 120))
    ref = RBFSampler(gamma=0.5, n_components=8, random_state=0).set_output(transform="pandas")
    ours = RandomFourierFeatures("rbf(gamma=0.5)", 8, random_state=0).set_output(
        transform="pandas")
    Zr, Zo = ref.fit_transform(X), ours.fit_transform(X)
    assert list(Zr.columns) == [f"rbfsampler{i}" for i in range(8)]
    assert list(Zo.columns) == [f"randomfourierfeatures{i}" for i in range(8)]
    pd.testing.assert_index_equal(Zo.index, Zr.index)
    np.testing.assert_array_equal(ours.feature_names_in_, ref.feature_names_in_)
    # as a DataFrame or an array: the same numbers
    np.testing.assert_array_equal(Zo.to_numpy(),
                                  ours.set_output(transform="default").transform(X))
    with pytest.raises(ValueError, match="input_features is not equal"):
        ours.get_feature_names_out(["x", "y", "z"])


def test_nystroem_names_count_the_kept_eigenvalues_as_sklearn_counts_components():
    X = np.random.default_rng(1).normal(size=(30, 2))
    ref = SkNystroem(kernel="rbf", gamma=0.5, n_components=10, random_state=0).fit(X)
    ours = Nystroem("rbf(gamma=0.5)", n_components=10, random_state=0).fit(X)
    assert len(ours.get_feature_names_out()) == len(ref.get_feature_names_out()) == 10
    assert ours.get_feature_names_out()[0] == "nystroem0" == ref.get_feature_names_out()[0]
    with pytest.raises(NotFittedError):
        Nystroem().get_feature_names_out()


def _poly_data(n=30, n_new=7, seed=0):
    rng = np.random.default_rng(seed)
    X, Xn = rng.normal(size=(n, 3)), rng.normal(size=(n_new, 3))
    return polynomial_kernel(X, degree=2, coef0=0.1), polynomial_kernel(Xn, X, degree=2,
                                                                        coef0=0.1)


def test_precomputed_all_centers_matches_sklearn():
    """scikit-learn's precomputed Nystroem takes every sample as a center (its own test)."""
    X = np.random.default_rng(0).normal(size=(25, 3))
    K = rbf_kernel(X, gamma=0.3)
    Kn = rbf_kernel(X[:6] + 0.1, X, gamma=0.3)
    ref = SkNystroem(kernel="precomputed", n_components=25).fit(K)
    ours = Nystroem(kernel="precomputed", n_components=25).fit(K)
    Z = ours.transform(K)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-8)
    # features differ by a rotation; their inner products agree
    np.testing.assert_allclose(ours.transform(Kn) @ Z.T,
                               ref.transform(Kn) @ ref.transform(K).T, atol=1e-8)
    assert ours.n_features_in_ == ref.n_features_in_ == 25


def test_precomputed_subset_of_centers_equals_the_kernel_route():
    """M < n centers: the features from K equal those of the same centers from the kernel."""
    rng = np.random.default_rng(2)
    X, Xn = rng.normal(size=(40, 3)), rng.normal(size=(5, 3))
    K, Kn = rbf_kernel(X, gamma=0.5), rbf_kernel(Xn, X, gamma=0.5)
    pre = Nystroem(kernel="precomputed", n_components=12, random_state=0).fit(K)
    direct = Nystroem("rbf(gamma=0.5)", centers=X[pre.component_indices_]).fit(X)
    assert pre.components_.shape == (12, 40)
    np.testing.assert_allclose(pre.transform(Kn), direct.transform(Xn), atol=1e-10)
    np.testing.assert_allclose(pre.transform(K), direct.transform(X), atol=1e-10)


def test_precomputed_errors_are_clear():
    K, Kn = _poly_data()
    with pytest.raises(InvalidParameterError, match="centers='uniform' only"):
        Nystroem(kernel="precomputed", centers="kmeans++").fit(K)
    with pytest.raises(ValueError, match="square Gram matrix"):
        Nystroem(kernel="precomputed", n_components=5).fit(K[:, :10])
    bad = K.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        Nystroem(kernel="precomputed", n_components=30).fit(bad)
    fitted = Nystroem(kernel="precomputed", n_components=5, random_state=0).fit(K)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(Kn[:, :10])


def test_precomputed_round_trips_through_a_model_file(tmp_path):
    K, Kn = _poly_data()
    ours = Nystroem(kernel="precomputed", n_components=8, random_state=0).fit(K)
    path = os.path.join(tmp_path, "nys.kkm")
    kernelkit.save(ours, path)
    back = kernelkit.load(path)
    np.testing.assert_array_equal(back.transform(Kn), ours.transform(Kn))
