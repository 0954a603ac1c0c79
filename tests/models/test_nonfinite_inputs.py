"""Issue 13's silent wrong answers end in a clear error or a correct result.

Huge inputs: RBF on X * 2^500 with gamma / 2^1000 is mathematically the model
on X (the reference: the same estimator on X, and scikit-learn where it has
one); a linear kernel on float64's largest numbers raises the one kernelkit
error. Diverging SGD, non-symmetric precomputed Gram matrices, solver="auto"
under a small budget and the wording of infinite parameters are here too.
"""

import numpy as np
import pytest
from sklearn.svm import SVC

from kernelkit import config_context
from kernelkit.exceptions import DivergenceError, InvalidParameterError, NonFiniteKernelError
from kernelkit.features import Nystroem
from kernelkit.kernels import RBF
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier, KernelKNeighborsRegressor,
                              KernelLogisticRegression, KernelMachine, KernelMachineClassifier,
                              KernelOutlierDetector, KernelRidge, KernelRidgeCV, KernelSVC)

TOP = np.finfo(np.float64).max
S = 2.0 ** 500  # X * S has squared norms ~1e301: the expansion would overflow


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, X[:, 0] + 0.1 * rng.normal(size=40), (X[:, 0] > 0).astype(int)


def _scaled_pair(make, gamma=0.5):
    return make(RBF(gamma=gamma)), make(RBF(gamma=gamma / S ** 2))


ESTIMATORS = {
    "svc_smo": (lambda k: KernelSVC(kernel=k), "cls"),
    "svc_pegasos": (lambda k: KernelSVC(kernel=k, solver="pegasos", random_state=0), "cls"),
    "knn_classifier": (lambda k: KernelKNeighborsClassifier(kernel=k, n_neighbors=3), "cls"),
    "knn_regressor": (lambda k: KernelKNeighborsRegressor(kernel=k, n_neighbors=3), "reg"),
    "machine": (lambda k: KernelMachine(kernel=k), "reg"),
    "machine_sgd": (lambda k: KernelMachine(kernel=k, solver="sgd", random_state=0), "reg"),
    "machine_classifier": (lambda k: KernelMachineClassifier(kernel=k, random_state=0), "cls"),
    "logistic": (lambda k: KernelLogisticRegression(kernel=k), "cls"),
    "ridge_cv": (lambda k: KernelRidgeCV(kernel=k), "reg"),
    "ridge_falkon": (lambda k: KernelRidge(kernel=k, solver="falkon", n_centers=20,
                                           random_state=0), "reg"),
    "kmeans": (lambda k: KernelKMeans(n_clusters=3, kernel=k, random_state=0), None),
    "outliers": (lambda k: KernelOutlierDetector(kernel=k), None),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_huge_inputs_give_the_model_of_the_unscaled_problem(data, name):
    X, y_reg, y_cls = data
    make, kind = ESTIMATORS[name]
    plain, scaled = _scaled_pair(make)
    y = {"cls": y_cls, "reg": y_reg, None: None}[kind]
    fit = (lambda m, Z: m.fit(Z)) if y is None else (lambda m, Z: m.fit(Z, y))
    ref = fit(plain, X).predict(X)
    got = fit(scaled, X * S).predict(X * S)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)


def test_svc_on_1e200_rows_is_the_identity_kernel_svm(data):
    # Rows 1e200 apart: K = I exactly; scikit-learn's SVC on the precomputed I is the reference.
    X, _, y = data
    model = KernelSVC().fit(X * 1e200, y)
    ref = SVC(kernel="precomputed").fit(np.eye(len(X)), y)
    np.testing.assert_allclose(model.decision_function(X * 1e200),
                               ref.decision_function(np.eye(len(X))), atol=1e-3)
    assert (model.predict(X * 1e200) == y).all()


def test_kmeans_on_1e200_rows_has_a_finite_inertia(data):
    X, _, _ = data
    model = KernelKMeans(n_clusters=3, random_state=0).fit(X * 1e200)
    # K = I: every point is at squared distance 1 - 1/|cluster| from its centre.
    sizes = np.bincount(model.labels_, minlength=3)
    assert model.inertia_ == pytest.approx(sum(s - 1 for s in sizes if s))


LINEAR_CASES = {
    "svc_smo": lambda: KernelSVC(kernel="linear"),
    "svc_pegasos": lambda: KernelSVC(kernel="linear", solver="pegasos", random_state=0),
    "knn_classifier": lambda: KernelKNeighborsClassifier(n_neighbors=3),
    "knn_regressor": lambda: KernelKNeighborsRegressor(n_neighbors=3),
    "kmeans": lambda: KernelKMeans(n_clusters=2, kernel="linear", random_state=0),
    "outliers": lambda: KernelOutlierDetector(kernel="linear"),
    "machine": lambda: KernelMachine(kernel="linear", solver="lbfgs"),
    "machine_classifier": lambda: KernelMachineClassifier(kernel="linear", random_state=0),
    "logistic": lambda: KernelLogisticRegression(kernel="linear"),
    "ridge": lambda: KernelRidge(kernel="linear", solver="dual"),
    "ridge_cv": lambda: KernelRidgeCV(kernel="linear"),
    "nystroem": lambda: Nystroem(kernel="linear", n_components=3, random_state=0),
}


@pytest.mark.parametrize("name", sorted(LINEAR_CASES))
@pytest.mark.parametrize("scale", ["1e200", "float64_max"])
def test_overflowing_linear_kernel_raises_the_kernelkit_error(data, name, scale):
    X, y_reg, y_cls = data
    Xs = X * 1e200 if scale == "1e200" else TOP * np.random.default_rng(1).uniform(size=X.shape)
    est = LINEAR_CASES[name]()
    y = y_cls if "classifier" in name or name in ("svc_smo", "svc_pegasos", "logistic") else (
        None if name in ("kmeans", "outliers", "nystroem") else y_reg)
    with np.errstate(all="ignore"), pytest.raises(NonFiniteKernelError) as info:
        fitted = est.fit(Xs) if y is None else est.fit(Xs, y)
        (fitted.transform if name == "nystroem" else fitted.predict)(Xs)
    assert "StandardScaler" in str(info.value)
    assert "array must not contain infs or NaNs" not in str(info.value)


@pytest.mark.parametrize("strategy", ["kernel_on_the_fly", "gram_cached", "features_cached"])
def test_diverging_sgd_raises_and_suggests_a_smaller_eta0(data, strategy):
    X, y, _ = data
    kernel = "poly(degree=2)" if strategy == "features_cached" else "rbf"
    model = KernelMachine(kernel=kernel, solver="sgd", strategy=strategy, eta0=1e300,
                          random_state=0)
    with np.errstate(all="ignore"), pytest.raises(DivergenceError,
                                                  match="smaller eta0") as info:
        model.fit(X, y)
    assert "non-finite" in str(info.value) or "exploded" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_stable_sgd_is_not_flagged(data):
    X, y, _ = data
    model = KernelMachine(solver="sgd", eta0=1.0, random_state=0).fit(X, y)
    assert np.isfinite(model.predict(X)).all()


@pytest.mark.parametrize("make", [lambda: KernelRidge(kernel="precomputed"),
                                  lambda: KernelRidgeCV(kernel="precomputed"),
                                  lambda: KernelSVC(kernel="precomputed")])
def test_non_symmetric_precomputed_gram_is_refused(data, make):
    X, _, y = data
    K = X @ X.T
    bad = K.copy()
    bad[3, 7] += 0.5
    with pytest.raises(ValueError, match=r"symmetric.*X\[(3, 7|7, 3)\].*\(X \+ X\.T\) / 2"):
        make().fit(bad, y)
    # round-off (1e-13 relative) is accepted
    noisy = K + 1e-13 * np.abs(K).max() * np.random.default_rng(0).normal(size=K.shape)
    make().fit(noisy, y)
    make().fit((bad + bad.T) / 2, y)


def test_auto_solver_picks_falkon_with_fewer_centers_under_a_small_budget():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 2))
    y = np.sin(X[:, 0])
    with config_context(memory="16MB"):
        model = KernelRidge(kernel="rbf", max_iter=2, random_state=0).fit(X, y)
    assert model.solver_ == "falkon"
    choice = next(c for c in model.plan_.choices if c.what.startswith("Nystroem centers"))
    assert choice.value == len(model.centers_) < 1401  # the default sqrt(n) log n
    assert "memory budget" in choice.reason and "fewer centers" in choice.reason
    assert "Nystroem centers" in model.plan_.explain()


def test_infinite_penalty_message_says_finite():
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    # (KernelSVC takes C=inf since issue 21, item 9: the hard margin; logistic
    # regression's C has no infinite meaning and keeps the finite wording)
    with pytest.raises(InvalidParameterError, match="C must be a finite number > 0, got inf"):
        KernelLogisticRegression(C=float("inf")).fit(X, y)
    with pytest.raises(InvalidParameterError, match="C must be a finite number > 0 or inf, "
                                                    "got -inf"):
        KernelSVC(C=-float("inf")).fit(X, y)
    with pytest.raises(InvalidParameterError, match="C must be a number > 0 or inf, got -1"):
        KernelSVC(C=-1).fit(X, y)  # finite values keep the plain wording
