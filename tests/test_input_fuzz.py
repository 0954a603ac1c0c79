"""Adversarial inputs against every public estimator and transformer.

Every class in ``kernelkit.models.__all__`` and ``kernelkit.features.__all__``
(so new ones are covered) meets bad inputs at fit and at predict/transform:
NaN, +-inf, rows scaled by 1e200, float64's largest number, 0 rows, 0
features, one sample, one class (classifiers), 3-D arrays, strings where
numbers go, object arrays, and a wrong number of features at predict. Each
must either raise a ValueError/TypeError (kernelkit's or scikit-learn's, with
a message) -- never a bare numpy error, RecursionError, SystemError, or a
silent NaN -- or return a finite result of the right shape.

Small data and one fit per case keep the whole file a few seconds.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import kernelkit.features as features_module
import kernelkit.models as models_module
from kernelkit.exceptions import NonFiniteKernelError

N, D = 12, 3
TOP = np.finfo(np.float64).max

# Keep fits tiny: fewer components, iterations and neighbours than the defaults.
_SMALL = {"n_components": 8, "n_neighbors": 3, "n_clusters": 2, "max_iter": 20,
          "n_epochs": 2, "n_centers": 6, "alphas": (0.1, 1.0), "Cs": (0.1, 1.0),
          "random_state": 0}
# Functions and helpers exported next to the classes: not estimators.
_NOT_ESTIMATORS = {"select_centers", "explicit_feature_dim", "most_similar",
                   "taylor_error_bound", "taylor_feature_dim"}
# Feature maps of objects (graphs), fitted on objects, never on these arrays: their bad
# inputs are tested with them (tests/features/test_weisfeiler_lehman_features.py).
_OBJECT_MAPS = {"WeisfeilerLehmanFeatures"}


def _public_classes():
    out = []
    for module in (models_module, features_module):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and name not in _NOT_ESTIMATORS | _OBJECT_MAPS:
                out.append(obj)
    return out


CLASSES = _public_classes()


def _make(cls):
    params = inspect.signature(cls.__init__).parameters
    return cls(**{k: v for k, v in _SMALL.items() if k in params})


def _kind(cls):
    name = cls.__name__
    if "Classifier" in name or name.removesuffix("CV") in ("KernelSVC",
                                                         "KernelLogisticRegression"):
        return "classifier"
    if name in ("KernelKMeans", "KernelOutlierDetector", "KernelDBSCAN",
                "KernelAgglomerativeClustering", "KernelSimilarity") or cls.__module__.startswith(
            "kernelkit.features"):
        return "unsupervised"
    return "regressor"


def _data(rng=None):
    rng = np.random.default_rng(0) if rng is None else rng
    X = rng.normal(size=(N, D))
    y_reg = X[:, 0] + 0.1 * rng.normal(size=N)
    y_cls = np.where(X[:, 0] > 0, 1, 0)
    y_cls[:2] = [0, 1]
    return X, y_reg, y_cls


def _target(cls, y_reg, y_cls):
    kind = _kind(cls)
    return None if kind == "unsupervised" else y_cls if kind == "classifier" else y_reg


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X) if y is None else est.fit(X, y)


def _output(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(est, "predict"):
            return est.predict(X)
        if hasattr(est, "kneighbors"):  # a similarity index: its nearest items
            return est.kneighbors(X)[0]
        if not hasattr(est, "transform"):  # clusterers without predict (DBSCAN) label
            return est.fit_predict(X)      # the data they are fitted on
        return est.transform(X)


def _applies_to_new_data(cls):
    return any(hasattr(cls, m) for m in ("predict", "transform", "kneighbors"))


# Errors a user may see: ValueError/TypeError with a message (kernelkit's own
# subclasses included). numpy's LinAlgError is a ValueError too, but it names no
# cause a user can act on for these inputs, so it does not count as clear.
def _assert_clear_error(exc):
    assert isinstance(exc, (ValueError, TypeError)), f"{type(exc).__name__}: {exc}"
    assert not isinstance(exc, np.linalg.LinAlgError), f"bare LinAlgError: {exc}"
    assert str(exc).strip(), f"{type(exc).__name__} without a message"
    # numpy's and scipy's own words, raised from deep inside, are not clear messages
    # (kernelkit may quote them after its own, e.g. "X cannot be read as ...: <numpy's>").
    for bare in ("array must not contain infs or NaNs", "could not convert string to float",
                 "operands could not be broadcast", "setting an array element with a sequence"):
        assert not str(exc).startswith(bare), f"bare numpy/scipy error: {exc}"


def _assert_finite_output(out, n_rows):
    out = np.asarray(out)
    assert out.shape[0] == n_rows
    if out.dtype.kind in "fc":
        assert np.isfinite(out).all(), "silent NaN/inf in the output"


def _check(call):
    """Run ``call``; it must raise a clear error or return (what it returns)."""
    try:
        return True, call()
    except (RecursionError, SystemError, MemoryError, FloatingPointError) as exc:
        pytest.fail(f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 -- the assertion says what is allowed
        _assert_clear_error(exc)
        return False, exc


def _bad_fit_inputs():
    X, _, _ = _data()
    nan = X.copy()
    nan[3, 1] = np.nan
    pinf = X.copy()
    pinf[0, 0] = np.inf
    ninf = X.copy()
    ninf[5, 2] = -np.inf
    strings = X.astype(str)
    objects = X.astype(object)
    objects[2, 2] = "x"
    return {
        "nan": nan, "+inf": pinf, "-inf": ninf,
        "empty": np.empty((0, D)), "no_features": np.empty((N, 0)),
        "3d": X.reshape(N, D, 1), "1d": X[:, 0], "strings": strings,
        "object_with_str": objects, "object_numbers": X.astype(object),
        "none": None, "ragged": [[1.0, 2.0], [3.0]],
    }


FIT_CASES = sorted(_bad_fit_inputs())


@pytest.mark.parametrize("case", FIT_CASES)
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_bad_inputs_at_fit(cls, case):
    X = _bad_fit_inputs()[case]
    _, y_reg, y_cls = _data()
    y = _target(cls, y_reg, y_cls)
    n = len(X) if hasattr(X, "__len__") else 0
    if y is not None and n not in (0, N):
        y = y[:n]
    ok, result = _check(lambda: _fit(_make(cls), X, y))
    if ok:  # accepted (object arrays of numbers): predictions must be sound
        _assert_finite_output(_output(result, np.asarray(X, dtype=np.float64)), N)


# Scaled inputs: a correct finite answer (the scaled RBF path) or the one clear
# kernelkit error naming the overflow; never NaN, never numpy's own words.
SCALES = {"1e200": lambda X: X * 1e200,
          "float64_max_uniform": lambda X: TOP * np.random.default_rng(1).uniform(size=X.shape),
          "float64_max_signed": lambda X: TOP * np.random.default_rng(2).uniform(-1, 1, X.shape)}


@pytest.mark.parametrize("scale", sorted(SCALES))
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_overflowing_inputs(cls, scale):
    X, y_reg, y_cls = _data()
    Xs = SCALES[scale](X)
    y = _target(cls, y_reg, y_cls)
    with np.errstate(all="ignore"):
        ok, result = _check(lambda: _output(_fit(_make(cls), Xs, y), Xs))
    if ok:
        _assert_finite_output(result, N)
    elif "inf or NaN" in str(result) or "non-finite" in str(result):
        # the one message for overflow: names the cause and the fix
        assert isinstance(result, NonFiniteKernelError), result
        assert "StandardScaler" in str(result) or "parameters" in str(result)


def _predict_cases(X):
    return {"nan": np.where(np.arange(X.size).reshape(X.shape) == 4, np.nan, X),
            "inf": np.where(np.arange(X.size).reshape(X.shape) == 4, np.inf, X),
            "wrong_n_features": X[:, :2], "extra_feature": np.hstack([X, X[:, :1]]),
            "empty": X[:0], "3d": X[:, :, None], "strings": X.astype(str),
            "1e200": X * 1e200, "float64_max": np.full_like(X, TOP)}


PREDICT_CASES = sorted(_predict_cases(np.zeros((2, 2))))


@pytest.fixture(scope="module")
def fitted():
    """One fitted model per class on good data, shared by the predict cases."""
    X, y_reg, y_cls = _data()
    return {cls: _fit(_make(cls), X, _target(cls, y_reg, y_cls)) for cls in CLASSES}


@pytest.mark.parametrize("case", PREDICT_CASES)
@pytest.mark.parametrize("cls", [c for c in CLASSES if _applies_to_new_data(c)],
                         ids=lambda c: c.__name__)
def test_bad_inputs_at_predict(fitted, cls, case):
    est = fitted[cls]
    X, _, _ = _data(np.random.default_rng(5))
    Xq = _predict_cases(X)[case]
    with np.errstate(all="ignore"):
        ok, result = _check(lambda: _output(est, Xq))
    if ok:
        assert case in ("1e200", "float64_max", "empty"), f"{case} accepted"
        _assert_finite_output(result, len(Xq))


@pytest.mark.parametrize("cls", [c for c in CLASSES if _kind(c) != "unsupervised"],
                         ids=lambda c: c.__name__)
def test_one_sample_and_one_class(cls):
    X, y_reg, y_cls = _data()
    y = _target(cls, y_reg, y_cls)
    ok, result = _check(lambda: _output(_fit(_make(cls), X[:1], y[:1]), X))
    if ok:
        _assert_finite_output(result, N)
    if _kind(cls) == "classifier":  # refused with a message, or (like k-NN) that class
        ok, result = _check(lambda: _output(_fit(_make(cls), X, np.zeros(N, dtype=int)), X))
        assert ("class" in str(result)) if not ok else (np.asarray(result) == 0).all()


@pytest.mark.parametrize("cls", [c for c in CLASSES if _kind(c) == "unsupervised"],
                         ids=lambda c: c.__name__)
def test_one_sample_unsupervised(cls):
    X, _, _ = _data()
    ok, result = _check(lambda: _output(_fit(_make(cls), X[:1], None), X))
    if ok:
        _assert_finite_output(result, N)


def test_every_public_class_is_covered():
    names = {c.__name__ for c in CLASSES}
    assert {"KernelRidge", "KernelSVC", "Nystroem", "RandomFourierFeatures"} <= names
    assert len(CLASSES) == len(models_module.__all__) + len(features_module.__all__) - len(
        (_NOT_ESTIMATORS | _OBJECT_MAPS) & (set(features_module.__all__)
                                            | set(models_module.__all__)))
