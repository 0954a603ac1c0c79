"""A fit that raises leaves no half-fitted estimator (issue 23; the rule in
``kernelkit._fit_state``): Ctrl-C (KeyboardInterrupt) or any error during ``fit``
leaves every attribute as before the call -- an unfitted estimator stays unfitted,
a fitted one keeps its model and predictions.

The interrupts arrive from a kernel callable, from a monkeypatched solver, and --
for every public estimator -- at arbitrary points of its fit through a trace
function that raises KeyboardInterrupt at the k-th Python call (k a fraction of
the calls a whole fit makes).
"""

import inspect
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import kernelkit
from kernelkit import KernelOneClassSVM, KernelSVC, KernelSVR
from kernelkit._fit_state import restores_on_failure

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
Y_CLASS = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
Y_REAL = X[:, 0] + X[:, 1] ** 2


def _graphs(n=12, seed=0):
    rng = np.random.default_rng(seed)
    out = np.empty(n, dtype=object)
    for i in range(n):
        m = 4 + i % 3
        edges = np.array([[j, (j + 1) % m] for j in range(m)], dtype=np.int64)
        out[i] = (edges, rng.integers(0, 2, m))
    return out


def _public_estimators():
    for name in kernelkit.__all__:
        obj = getattr(kernelkit, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            yield name, obj


def _fit_args(est):
    if type(est).__name__ == "WeisfeilerLehmanFeatures":
        return (_graphs(),)
    if is_classifier(est):
        return X, Y_CLASS
    if is_regressor(est):
        return X, Y_REAL
    return (X,)


_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class _InterruptAt:
    """A trace function raising KeyboardInterrupt at the ``at``-th Python call (or
    the first one after it that is not a generator resuming or closing, where
    Python would swallow it as an "exception ignored")."""

    def __init__(self, at):
        self.at, self.calls, self.fired = at, 0, False

    def __call__(self, frame, event, arg):
        if event == "call":
            self.calls += 1
            if 0 < self.at <= self.calls and not self.fired and \
                    not frame.f_code.co_flags & _RESUMABLE:
                self.fired = True
                raise KeyboardInterrupt
        return None


def _traced_fit(est, at):
    tracer = _InterruptAt(at)
    sys.settrace(tracer)
    try:
        est.fit(*_fit_args(est))
    finally:
        sys.settrace(None)
    return tracer.calls


def _assert_unchanged(est, before):
    after = vars(est)
    assert after.keys() == before.keys(), sorted(after.keys() ^ before.keys())
    assert all(after[k] is before[k] for k in before)


def test_the_wrapper_restores_the_instance_on_any_exception():
    class Half:
        @restores_on_failure
        def fit(self, fail_with):
            self.n_features_in_, self.kernel = 3, "changed"
            raise fail_with

    est = Half()
    est.kernel = "rbf"
    for exc in (KeyboardInterrupt, ValueError("bad"), MemoryError):
        with pytest.raises(type(exc) if isinstance(exc, Exception) else exc):
            est.fit(exc)
        assert vars(est) == {"kernel": "rbf"}


def test_signatures_are_the_fits_own():
    from sklearn.utils.validation import has_fit_parameter

    assert has_fit_parameter(KernelSVC(), "sample_weight")
    assert list(inspect.signature(KernelSVR.fit).parameters)[:3] == ["self", "X", "y"]


def _interrupting_kernel(after_calls=0):
    calls = []

    def kernel(A, B):
        calls.append(1)
        if len(calls) > after_calls:
            raise KeyboardInterrupt
        return A @ B.T

    return kernel


@pytest.mark.parametrize("make", [
    lambda k: KernelSVR(kernel=k), lambda k: KernelOneClassSVM(kernel=k),
    lambda k: KernelSVC(kernel=k, probability=True, random_state=0),
], ids=["svr", "one-class", "svc-probability"])
def test_ctrl_c_from_the_kernel_leaves_the_first_fit_unfitted(make):
    est = make(_interrupting_kernel())
    before = dict(vars(est))
    with pytest.raises(KeyboardInterrupt):
        est.fit(*_fit_args(est))
    _assert_unchanged(est, before)
    for attr in ("n_features_in_", "classes_", "kernel_"):
        assert not hasattr(est, attr)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_ctrl_c_in_platt_scaling_keeps_the_previous_model(monkeypatch):
    import kernelkit.models._svm_probability as probability

    est = KernelSVC("rbf(gamma=0.5)", probability=True, random_state=0).fit(X, Y_CLASS)
    proba, before = est.predict_proba(X), dict(vars(est))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(probability, "sigmoid_fit", interrupted)  # Platt's sigmoid fits
    with pytest.raises(KeyboardInterrupt):
        est.fit(X[:30], 1 - Y_CLASS[:30])
    _assert_unchanged(est, before)
    monkeypatch.undo()
    np.testing.assert_array_equal(est.predict_proba(X), proba)


def test_a_failed_refit_keeps_the_previous_model():
    est = KernelSVR("rbf(gamma=0.5)", C=2.0).fit(X, Y_REAL)
    pred, before = est.predict(X), dict(vars(est))
    with pytest.raises(ValueError):
        est.fit(np.c_[X, np.full(len(X), np.nan)], Y_REAL)  # NaN: refused after n_features_in_
    _assert_unchanged(est, before)
    np.testing.assert_array_equal(est.predict(X), pred)


@pytest.mark.parametrize("name, cls", list(_public_estimators()), ids=lambda v: str(v)[:40])
def test_every_public_estimator_interrupted_anywhere_is_unchanged(name, cls):
    seeded = cls
    if "random_state" in cls().get_params():  # the same calls in every fit (e.g. the
        def seeded():                          # kitchen sinks' draws decide its iterations)
            return cls(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = seeded().fit(*_fit_args(seeded()))  # compiles and caches what a fit uses
        # -1: never interrupts, counts the calls (the first traced fit may do one-off work)
        total = min(_traced_fit(seeded(), at=-1) for _ in range(2))
        assert total > 10
        for fraction in (0.2, 0.6, 0.9):
            est = seeded()
            before = dict(vars(est))
            with pytest.raises(KeyboardInterrupt):
                _traced_fit(est, at=max(2, int(fraction * total)))
            _assert_unchanged(est, before)
            with pytest.raises(NotFittedError):
                check_is_fitted(est)
        # and a fitted one interrupted while refitting keeps its model
        est = clone(reference).fit(*_fit_args(reference))
        before = dict(vars(est))
        with pytest.raises(KeyboardInterrupt):
            _traced_fit(est, at=int(0.8 * total))
        _assert_unchanged(est, before)
        check_is_fitted(est)
