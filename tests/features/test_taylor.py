"""Taylor features of the Gaussian kernel: each column against a brute-force loop over
the multi-indices, the Gram matrix against the truncated exponential series and the RBF
kernel (error decreasing with the degree, below the Taylor remainder's bound), the
scikit-learn transformer contract, set_output, the memory budget and model files."""

import itertools
import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import (check_set_output_transform,
                                            check_set_output_transform_pandas,
                                            check_transformer_get_feature_names_out,
                                            parametrize_with_checks)

import kernelkit
from kernelkit.exceptions import InvalidParameterError, MemoryBudgetError
from kernelkit.features import TaylorFeatures, taylor_error_bound, taylor_feature_dim


def _brute_force_features(X, gamma, degree):
    """{a: phi_a(X)} over every multi-index a with |a| <= degree, from the definition."""
    d = X.shape[1]
    out = {}
    for a in itertools.product(range(degree + 1), repeat=d):
        if sum(a) > degree:
            continue
        weight = math.sqrt((2 * gamma) ** sum(a) / math.prod(math.factorial(k) for k in a))
        column = np.exp(-gamma * (X ** 2).sum(axis=1)) * weight
        for i, k in enumerate(a):
            column = column * X[:, i] ** k
        out[a] = column
    return out


@pytest.mark.parametrize("d, degree", [(1, 5), (2, 4), (3, 3), (4, 0), (3, 1)])
def test_every_column_equals_the_brute_force_multinomial_loop(d, degree):
    rng = np.random.default_rng(d + degree)
    X, gamma = rng.normal(scale=0.7, size=(7, d)), 0.4
    fmap = TaylorFeatures(gamma=gamma, degree=degree).fit(X)
    Z = fmap.transform(X)
    reference = _brute_force_features(X, gamma, degree)
    powers = [tuple(int(v) for v in row) for row in fmap.powers_]
    assert len(powers) == len(set(powers)) == len(reference) == taylor_feature_dim(d, degree)
    assert Z.shape == (7, math.comb(d + degree, degree))
    for j, a in enumerate(powers):
        np.testing.assert_allclose(Z[:, j], reference[a], rtol=1e-13, atol=1e-300)
    # the multinomial theorem: the truncated sum is the truncated series of exp(2 gamma x'y)
    G = 2 * gamma * X @ X.T
    series = sum(G ** j / math.factorial(j) for j in range(degree + 1))
    sq = (X ** 2).sum(axis=1)
    truncated = np.exp(-gamma * (sq[:, None] + sq[None, :])) * series
    np.testing.assert_allclose(Z @ Z.T, truncated, rtol=1e-12)


def test_error_against_rbf_decreases_with_degree_and_stays_below_the_bound():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True).max()  # inside the unit ball
    gamma = 1.0
    K = rbf_kernel(X, gamma=gamma)
    errors = []
    for degree in range(9):
        fmap = TaylorFeatures(gamma=gamma, degree=degree).fit(X)
        Z = fmap.transform(X)
        err = np.abs(Z @ Z.T - K)
        bound = fmap.error_bound(X)
        assert (err <= bound * (1 + 1e-9) + 1e-15).all(), degree
        assert err.max() <= taylor_error_bound(gamma, degree, 1.0) * (1 + 1e-9) + 1e-15
        errors.append(err.max())
    assert all(b < a for a, b in itertools.pairwise(errors)), errors


def test_uniform_bound_is_the_lagrange_remainder():
    for gamma, degree, radius in [(0.5, 3, 1.0), (0.1, 6, 2.0), (2.0, 0, 0.3)]:
        z = 2 * gamma * radius ** 2
        assert taylor_error_bound(gamma, degree, radius) == pytest.approx(
            z ** (degree + 1) / math.factorial(degree + 1), rel=1e-12)
    assert taylor_error_bound(1.0, 3, 0.0) == 0.0
    assert taylor_error_bound(1e6, 40, 1e6) == math.inf  # (2e18)^41 / 41! overflows
    # on the diagonal the error is exactly the remainder exp(-z) (e^z - T_p(z)), z = 2 gamma |x|^2
    x = np.array([[0.1, 0.0]])
    fmap = TaylorFeatures(gamma=1.0, degree=2).fit(x)
    exact_remainder = np.exp(-2 * 0.01) * (np.exp(0.02) - 1 - 0.02 - 0.02 ** 2 / 2)
    np.testing.assert_allclose(1.0 - fmap.transform(x) @ fmap.transform(x).T,
                               exact_remainder, rtol=1e-6)


def test_gamma_rules_parameters_and_input_checks():
    X = np.random.default_rng(1).normal(size=(30, 4)) * 3.0
    fmap = TaylorFeatures().fit(X)
    assert fmap.gamma_ == SVC(gamma="scale").fit(X, np.arange(30) % 2)._gamma
    assert TaylorFeatures(gamma="auto").fit(X).gamma_ == 0.25
    with pytest.raises(InvalidParameterError, match="degree"):
        TaylorFeatures(degree=-1).fit(X)
    with pytest.raises(InvalidParameterError, match="gamma"):
        TaylorFeatures(gamma=0.0).fit(X)
    with pytest.raises(ValueError, match="expecting 4 features"):
        fmap.transform(X[:, :3])
    # inputs of huge norm: the Gaussian factor underflows to 0, nothing overflows to NaN
    Z = fmap.transform(np.full((2, 4), 1e150))
    assert np.isfinite(Z).all()


def test_too_many_features_for_the_memory_budget_is_a_clear_error():
    X = np.random.default_rng(2).normal(size=(5, 60))
    with kernelkit.config_context(memory="16MB"):
        with pytest.raises(MemoryBudgetError, match=rf"C\(60 \+ 6, 6\) = {math.comb(66, 6):,}"):
            TaylorFeatures(gamma=0.1, degree=6).fit(X)
        fmap = TaylorFeatures(gamma=0.1, degree=3).fit(X)  # D = 39,711 fits as a table
        with pytest.raises(MemoryBudgetError, match=rf"\(200, {math.comb(63, 3):,}\) features"):
            fmap.transform(np.zeros((200, 60)))


@parametrize_with_checks([TaylorFeatures(gamma=0.5, degree=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("check", [check_transformer_get_feature_names_out,
                                   check_set_output_transform,
                                   check_set_output_transform_pandas],
                         ids=lambda c: c.__name__)
def test_feature_names_and_set_output(check):
    check("TaylorFeatures", TaylorFeatures(gamma=0.5, degree=2))


def test_names_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.random.default_rng(3).normal(size=(6, 2)), columns=["u", "v"])
    fmap = TaylorFeatures(gamma=0.5, degree=2).set_output(transform="pandas")
    Z = fmap.fit_transform(X)
    assert list(Z.columns) == [f"taylorfeatures{i}" for i in range(6)]
    np.testing.assert_array_equal(Z.to_numpy(), TaylorFeatures(gamma=0.5, degree=2)
                                  .fit(X.to_numpy()).transform(X.to_numpy()))


def test_model_files_alone_and_in_a_pipeline(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(scale=0.5, size=(50, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2
    fmap = TaylorFeatures(gamma=0.7, degree=4).fit(X)
    kernelkit.save(fmap, tmp_path / "t.kk")
    back = kernelkit.load(tmp_path / "t.kk")
    assert back.gamma_ == fmap.gamma_ and back.n_components_ == fmap.n_components_
    np.testing.assert_array_equal(back.transform(X), fmap.transform(X))
    model = make_pipeline(TaylorFeatures(gamma=0.7, degree=4),
                          kernelkit.KernelRidge(kernel="linear", alpha=1e-3)).fit(X, y)
    kernelkit.save(model, tmp_path / "p.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "p.kk").predict(X), model.predict(X))


@pytest.mark.parametrize("attr, value", [("gamma_", -1.0), ("n_components_", 7),
                                         ("n_features_in_", 0)])
def test_edited_model_files_are_refused(tmp_path, attr, value):
    import json
    import zipfile

    kernelkit.save(TaylorFeatures(gamma=0.5, degree=2).fit(np.zeros((3, 2))), tmp_path / "t.kk")
    with zipfile.ZipFile(tmp_path / "t.kk") as zin, \
            zipfile.ZipFile(tmp_path / "e.kk", "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "metadata.json":
                meta = json.loads(data)
                meta["attributes"][attr] = {"value": value}
                data = json.dumps(meta).encode()
            zout.writestr(info.filename, data)
    with pytest.raises(kernelkit.ModelFormatError):
        kernelkit.load(tmp_path / "e.kk")
