"""KernelRidgeCV: exact leave-one-out against a brute-force loop."""

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.models import KernelRidge, KernelRidgeCV


def _brute_loo_mse(kernel, X, y, alpha):
    errs = []
    for i in range(len(X)):
        keep = np.arange(len(X)) != i
        m = KernelRidge(kernel=kernel, alpha=alpha, solver="dual", fit_intercept=False).fit(X[keep], y[keep])
        errs.append(m.predict(X[i:i + 1])[0] - y[i])
    return float(np.mean(np.square(errs)))


def test_loo_scores_equal_brute_force():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=30)
    cv = KernelRidgeCV(kernel="rbf", alphas=(0.01, 0.1, 1.0),
                       param_grid={"gamma": [0.2, 2.0]}).fit(X, y)
    for params, alpha, mse in zip(cv.cv_results_["params"], cv.cv_results_["alpha"],
                                  cv.cv_results_["loo_mse"]):
        ref = _brute_loo_mse(RBF(**params), X, y, alpha)
        assert mse == pytest.approx(ref, rel=1e-7)
    best = int(np.argmin(cv.cv_results_["loo_mse"]))
    assert cv.alpha_ == cv.cv_results_["alpha"][best]
    assert cv.kernel_ == RBF(**cv.cv_results_["params"][best])


def test_refit_equals_kernel_ridge_with_selected_parameters():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    y = X[:, 0] * X[:, 1]
    cv = KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=(0.05, 0.5)).fit(X, y)
    ref = KernelRidge(kernel=cv.kernel_, alpha=cv.alpha_, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(cv.predict(X), ref.predict(X), rtol=1e-7, atol=1e-9)


def test_bad_alphas():
    with pytest.raises(ValueError, match="alphas"):
        KernelRidgeCV(alphas=(0.0, 1.0)).fit(np.eye(3), np.ones(3))
    with pytest.raises(ValueError, match="alphas"):
        KernelRidgeCV(alphas=()).fit(np.eye(3), np.ones(3))
