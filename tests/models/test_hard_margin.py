"""The hard-margin SVM (KernelSVC(C=inf)) and the hard epsilon-tube (KernelSVR(C=inf)),
issue 21, items 3 and 9.

References: brute-force QPs by scipy's SLSQP (the notes' normalised primal
min ||w||^2/2 s.t. y_i f(x_i) >= 1 on linear features; the dual on an RBF
kernel; the tube's primal), scikit-learn's SVC/SVR with C=1e10.
"""

import json
import time
import zipfile

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC, SVR

import kernelkit
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF, Linear
from kernelkit.models import KernelSVC, KernelSVR


def _separable(n=40, seed=0, gap=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    X[:, 0] += gap * y  # pull the classes apart along x0
    return X, y


def _overlapping(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1, -1)


def _primal_hard_margin(X, y):
    """min ||w||^2 / 2 s.t. y_i (w'x_i + b) >= 1, by SLSQP."""
    d = X.shape[1]
    cons = {"type": "ineq", "fun": lambda t: y * (X @ t[:d] + t[d]) - 1.0,
            "jac": lambda t: np.column_stack([y[:, None] * X, y])}
    res = minimize(lambda t: 0.5 * t[:d] @ t[:d], np.zeros(d + 1),
                   jac=lambda t: np.r_[t[:d], 0.0], constraints=[cons], method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert res.success
    return res.x[:d], res.x[d]


def test_linear_hard_margin_is_the_brute_force_qp_and_sklearns(tmp_path):
    X, y = _separable()
    model = KernelSVC(Linear(), C=np.inf, tol=1e-8).fit(X, y)
    w, b = _primal_hard_margin(X, y)
    np.testing.assert_allclose(model.decision_function(X), X @ w + b, atol=1e-5)
    # margin 1/||w||, with ||w||^2 = sum_i alpha_i = 2 x the dual objective
    w_ours = model.dual_coef_[0] @ model.support_vectors_
    assert 1 / np.linalg.norm(w_ours) == pytest.approx(1 / np.linalg.norm(w), rel=1e-5)
    assert np.abs(model.dual_coef_).sum() == pytest.approx(w @ w, rel=1e-5)
    assert model.dual_objective_[0] == pytest.approx(0.5 * w @ w, rel=1e-5)
    margins = y * model.decision_function(X)
    assert margins.min() == pytest.approx(1.0, abs=1e-6)
    sk = SVC(kernel="linear", C=1e10, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), sk.decision_function(X), atol=1e-4)


def test_rbf_hard_margin_is_the_brute_force_dual():
    X, y = _separable(n=30, seed=1, gap=0.3)
    kernel = RBF(gamma=0.5)
    model = KernelSVC(kernel, C=np.inf, tol=1e-8).fit(X, y)
    Q = (y[:, None] * y[None, :]) * kernel(X, X)
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(len(y)),
                   jac=lambda a: Q @ a - 1.0, bounds=[(0, None)] * len(y),
                   constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 2000})
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    assert model.dual_objective_[0] == pytest.approx(-res.fun, rel=1e-6)
    np.testing.assert_allclose(alpha, res.x, atol=1e-4 * max(1.0, res.x.max()))
    assert (y * model.decision_function(X)).min() > 1 - 1e-6


def test_not_separable_is_a_clear_error_in_bounded_time():
    X, y = _overlapping()
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"KernelSVC\(C=inf\).*not separable.*finite C"):
        KernelSVC(Linear(), C=np.inf).fit(X, y)
    assert time.perf_counter() - start < 5.0
    # one x with both labels: no kernel separates it
    X2, y2 = _separable(n=20)
    X2 = np.vstack([X2, X2[:1]])
    y2 = np.r_[y2, -y2[0]]
    with pytest.raises(ValueError, match="not separable"):
        KernelSVC(RBF(gamma=1.0), C=np.inf).fit(X2, y2)
    # ... unless the contradicting sample weighs 0 (left out, as libsvm)
    weights = np.r_[np.ones(20), 0.0]
    fitted = KernelSVC(RBF(gamma=1.0), C=np.inf).fit(X2, y2, sample_weight=weights)
    assert (y2[:20] * fitted.decision_function(X2[:20])).min() > 1 - 1e-3


def test_hard_margin_plan_probability_multiclass_and_model_files(tmp_path):
    X, y = _separable(n=40, seed=2)
    model = KernelSVC(Linear(), C=np.inf, probability=True, random_state=0).fit(X, y)
    assert "margin: hard" in model.plan_.explain()
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (model.predict(X) == y).all()
    path = tmp_path / "hard.kk"
    kernelkit.save(model, path)
    with zipfile.ZipFile(path) as zf:  # strict JSON has no Infinity: C is tagged
        meta = json.loads(zf.read("metadata.json"))
    assert '{"float": "inf"}' in json.dumps(meta)
    loaded = kernelkit.load(path)
    assert loaded.C == np.inf
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), proba)
    # three separable blobs, one-vs-one: every pair's training margins >= 1
    rng = np.random.default_rng(3)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    X3 = np.vstack([c + rng.normal(size=(15, 2)) for c in centres])
    y3 = np.repeat([0, 1, 2], 15)
    multi = KernelSVC(Linear(), C=np.inf, decision_function_shape="ovo").fit(X3, y3)
    dec = multi.decision_function(X3)
    for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        mask = (y3 == a) | (y3 == b)
        assert (np.where(y3[mask] == a, 1, -1) * dec[mask, p]).min() > 1 - 1e-3
    with pytest.raises(InvalidParameterError, match="C=inf.*solver='smo'"):
        KernelSVC(C=np.inf, solver="pegasos").fit(X, y)


def _tube_primal(X, y, eps):
    """min ||w||^2 / 2 s.t. |w'x_i + b - y_i| <= eps, by SLSQP."""
    d = X.shape[1]
    cons = [{"type": "ineq", "fun": lambda t: eps - (X @ t[:d] + t[d] - y)},
            {"type": "ineq", "fun": lambda t: eps + (X @ t[:d] + t[d] - y)}]
    res = minimize(lambda t: 0.5 * t[:d] @ t[:d], np.r_[np.zeros(d), y.mean()],
                   constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 1000})
    assert res.success
    return res.x[:d], res.x[d]


def test_hard_tube_is_the_brute_force_qp_and_infeasible_tubes_are_refused(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    y = X @ np.array([1.5, -0.5]) + 0.2 + rng.uniform(-0.2, 0.2, size=30)
    eps = 0.25
    model = KernelSVR(Linear(), C=np.inf, epsilon=eps, tol=1e-8).fit(X, y)
    w, b = _tube_primal(X, y, eps)
    np.testing.assert_allclose(model.predict(X), X @ w + b, atol=1e-5)
    assert np.abs(model.predict(X) - y).max() <= eps + 1e-6
    assert "tube: hard" in model.plan_.explain()
    sk = SVR(kernel="linear", C=1e10, epsilon=eps, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(model.predict(X), sk.predict(X), atol=1e-4)
    kernelkit.save(model, tmp_path / "tube.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "tube.kk").predict(X),
                                  model.predict(X))
    # the brittle fit: one outlier moves it (the largest residual is what is bounded)
    y_out = y.copy()
    y_out[0] += 2.0
    with pytest.raises(ValueError, match=r"KernelSVR\(C=inf\).*hard epsilon-tube.*larger "
                                         "epsilon"):
        KernelSVR(Linear(), C=np.inf, epsilon=eps).fit(X, y_out)
    # an RBF kernel fits any tube on distinct points
    rich = KernelSVR(RBF(gamma=1.0), C=np.inf, epsilon=eps, tol=1e-6).fit(X, y_out)
    assert np.abs(rich.predict(X) - y_out).max() <= eps + 1e-4
