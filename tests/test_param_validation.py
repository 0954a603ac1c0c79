"""Declared parameter constraints: the machinery, and every public class wired to it.

The classes are enumerated from ``kernelkit.models.__all__``,
``kernelkit.features.__all__`` and ``kernelkit.kernels.__all__``, so a new
public class is covered (and must declare ``_param_constraints``) without
editing this file. The invalid values are derived from each declaration:
a wrong type, values outside every interval, a non-integer for an integer,
True for a number, NaN, an unknown option.
"""

from __future__ import annotations

import inspect
import numbers
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier, is_regressor

import kernelkit
import kernelkit.features
import kernelkit.kernels
import kernelkit.models
from kernelkit._validation import (HasMethods, Interval, Options, describe_constraints,
                                   validate_params)
from kernelkit.exceptions import InvalidParameterError
from kernelkit.kernels import RBF, Kernel, Linear


def _public_classes(module, base):
    """Public subclasses of ``base`` (kernels, or estimators with get_params); helpers
    such as ``KernelRows`` have no hyper-parameters to declare."""
    out = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) and issubclass(obj, base) and obj is not Kernel:
            out.append(obj)
    return out


ESTIMATORS = (_public_classes(kernelkit.models, BaseEstimator)
              + _public_classes(kernelkit.features, BaseEstimator))
KERNELS = _public_classes(kernelkit.kernels, Kernel)
ALL = ESTIMATORS + KERNELS


def _square(X):
    return np.asarray(X, dtype=float) ** 2


# Valid values for constructor parameters without a default (the algebra's nodes),
# by parameter name: a new required name must be added here.
REQUIRED = {"k": RBF(gamma=0.5), "k1": RBF(gamma=0.5), "k2": Linear(), "f": np.tanh,
            "phi": _square, "A": np.eye(3), "scale": 2.0, "exponent": 2,
            "function": lambda X, Y: X @ Y.T}


def _constructor_params(cls):
    sig = inspect.signature(cls.__init__)
    return {p.name: p for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _required_args(cls):
    return {name: REQUIRED[name] for name, p in _constructor_params(cls).items()
            if p.default is inspect.Parameter.empty}


def _allowed(constraints, value):
    try:
        validate_params({"p": value}, {"p": constraints}, "probe")
    except InvalidParameterError:
        return False
    return True


def _probes(constraints):
    """(kind, value) pairs that ``constraints`` rules out, one per kind of mistake."""
    cons = constraints if isinstance(constraints, (list, tuple)) else [constraints]
    probes = [("wrong type", object())]
    for c in cons:
        if isinstance(c, Interval):
            integral = c.kind is numbers.Integral
            probes += [("bool for a number", True), ("NaN", float("nan"))]
            if integral:
                probes.append(("not an integer", (1 if c.low is None else c.low) + 0.5))
            else:
                probes.append(("infinity", np.inf if c.high is None else -np.inf))
            if c.low is not None:
                open_low = c.closed in ("right", "neither")
                probes.append(("below the range",
                               c.low if open_low else c.low - (1 if integral else 0.5)))
            if c.high is not None:
                open_high = c.closed in ("left", "neither")
                probes.append(("above the range",
                               c.high if open_high else c.high + (1 if integral else 0.5)))
        elif isinstance(c, Options):
            probes.append(("unknown option", "not-an-option" if c.type is str else -12345))
        elif c == "boolean":
            probes.append(("not a boolean", "yes"))
        elif c == "random_state":
            probes += [("negative seed", -1), ("seed as string", "seed")]
    seen, out = set(), []
    for kind, value in probes:
        if kind not in seen and not _allowed(cons, value):
            seen.add(kind)
            out.append((kind, value))
    return out


def _cases(classes):
    for cls in classes:
        for name, constraints in getattr(cls, "_param_constraints", {}).items():
            for kind, value in _probes(constraints):
                yield pytest.param(cls, name, value, id=f"{cls.__name__}-{name}-{kind}")


def _fit_data(est):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    if is_classifier(est):
        return X, np.r_[np.zeros(10), np.ones(10)]
    if is_regressor(est):
        return X, X[:, 0]
    return X, None


def _expect_named(exc_info, cls, name):
    assert str(exc_info.value).startswith(f"{cls.__name__}: {name} must be "), \
        str(exc_info.value)


# ---- every public class -------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_every_public_class_declares_all_its_constructor_parameters(cls):
    assert "_param_constraints" in dir(cls), f"{cls.__name__} declares no constraints"
    # scikit-learn's estimator checks read _parameter_constraints with its own classes
    assert not hasattr(cls, "_parameter_constraints")
    declared = set(cls._param_constraints)
    assert declared == set(_constructor_params(cls)), \
        (f"{cls.__name__}: declared {sorted(declared)}, constructor takes "
         f"{sorted(_constructor_params(cls))}")
    for constraints in cls._param_constraints.values():
        describe_constraints(constraints)  # every constraint is a known kind


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_defaults_satisfy_the_declarations(cls):
    obj = cls(**_required_args(cls))
    validate_params(obj, cls._param_constraints, cls.__name__)
    obj._check_params()


def test_the_enumeration_finds_the_public_classes():
    names = {c.__name__ for c in ALL}
    assert {"KernelSVC", "KernelRidge", "Nystroem", "RBF", "Sum", "Spectrum"} <= names
    assert "Kernel" not in names


@pytest.mark.parametrize("cls, name, value", list(_cases(ESTIMATORS)))
def test_estimator_fit_rejects_invalid_parameter(cls, name, value):
    est = cls(**{name: value})
    X, y = _fit_data(est)
    with pytest.raises(InvalidParameterError) as exc_info:
        est.fit(X) if y is None else est.fit(X, y)
    _expect_named(exc_info, cls, name)
    # set_params stores it unchanged (scikit-learn's contract); fit checks it
    est = cls().set_params(**{name: value})
    with pytest.raises(InvalidParameterError):
        est.fit(X) if y is None else est.fit(X, y)


@pytest.mark.parametrize("cls, name, value", list(_cases(KERNELS)))
def test_kernel_construction_and_set_params_reject_invalid_parameter(cls, name, value):
    args = _required_args(cls)
    with pytest.raises(InvalidParameterError) as exc_info:
        cls(**{**args, name: value})
    _expect_named(exc_info, cls, name)
    kernel = cls(**args)
    with pytest.raises(InvalidParameterError) as exc_info:
        kernel.set_params(**{name: value})
    _expect_named(exc_info, cls, name)


def test_every_parameter_has_at_least_one_probe():
    for cls in ALL:
        for name, constraints in cls._param_constraints.items():
            assert _probes(constraints), f"{cls.__name__}.{name}: nothing is ruled out"


def test_the_same_mistake_gets_the_same_error_everywhere():
    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.r_[np.zeros(10), np.ones(10)]
    errors = []
    for est in (kernelkit.KernelSVC(max_iter=1.5), kernelkit.KernelRidge(max_iter=1.5)):
        with pytest.raises(InvalidParameterError) as exc_info:
            est.fit(X, y)
        errors.append(str(exc_info.value))
    assert errors == ["KernelSVC: max_iter must be an integer >= 1 or None, got 1.5 (float)",
                      "KernelRidge: max_iter must be an integer >= 1, got 1.5 (float)"]


def test_cross_parameter_rules_raise_the_same_class():
    with pytest.raises(InvalidParameterError, match="RBF: give gamma or length_scale"):
        RBF(gamma=1.0, length_scale=1.0)
    with pytest.raises(InvalidParameterError, match="must be even"):
        kernelkit.RandomFourierFeatures(n_components=5, variant="paired").fit(np.ones((3, 2)))
    with pytest.raises(InvalidParameterError, match="the hinge loss has none"):
        kernelkit.KernelMachineClassifier(loss="hinge", solver="newton").fit(
            np.ones((4, 2)), [0, 1, 0, 1])
    with pytest.raises(InvalidParameterError, match="cannot combine"):
        kernelkit.kernels.Spectrum() + RBF()


def test_the_algebra_operators_check_through_the_declarations():
    with pytest.raises(InvalidParameterError, match="Scaled: scale must be a number >= 0"):
        -1.0 * RBF()
    with pytest.raises(InvalidParameterError, match="Power: exponent must be a number > 0"):
        RBF() ** 0


# ---- the machinery ------------------------------------------------------------------------
def test_invalid_parameter_error_is_both_value_and_type_error_and_exported():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    assert kernelkit.exceptions.InvalidParameterError is InvalidParameterError
    assert "InvalidParameterError" in kernelkit.exceptions.__all__
    assert kernelkit.InvalidParameterError is InvalidParameterError
    assert "InvalidParameterError" in kernelkit.__all__


@pytest.mark.parametrize("interval, inside, outside", [
    (Interval(Integral, 1, None), [1, 2, np.int64(7), 10**20], [0, -1, 1.0, 2.5, True,
                                                                np.bool_(True), "3", None]),
    (Interval(Real, 0, None, closed="neither"), [1e-300, 1, np.float32(0.5), np.int8(3)],
     [0, 0.0, -1e-300, np.inf, np.nan, False, "1"]),
    (Interval(Real, 0, 1, closed="right"), [1, 1.0, 0.5], [0, 1.0000001, -0.5]),
    (Interval(Real, 0, 1, closed="left"), [0, 0.999], [1, 1.0]),
    (Interval(Real, 0, 1, closed="both"), [0, 1], [-0.0001, 1.0001]),
    (Interval(Real, None, None), [-1e300, 0, 1e300], [np.inf, -np.inf, np.nan]),
    (Interval(Real, None, 1, closed="both"), [-5, 1], [1.5, -np.inf]),
])
def test_interval_membership(interval, inside, outside):
    for value in inside:
        assert interval.is_satisfied_by(value), value
    for value in outside:
        assert not interval.is_satisfied_by(value), value


@pytest.mark.parametrize("interval, words", [
    (Interval(Integral, 1, None), "an integer >= 1"),
    (Interval(Integral, 1, None, closed="neither"), "an integer > 1"),
    (Interval(Real, 0, None, closed="neither"), "a number > 0"),
    (Interval(Real, 0, 1, closed="right"), "a number in (0, 1]"),
    (Interval(Real, 0, 0.5, closed="left"), "a number in [0, 0.5)"),
    (Interval(Real, None, 1), "a number <= 1"),
    (Interval(Real, None, None), "a finite number"),
    (Interval(int, None, None), "an integer"),
])
def test_interval_describes_itself(interval, words):
    assert interval.describe() == words


def test_interval_refuses_bad_declarations():
    with pytest.raises(TypeError, match="kind"):
        Interval(str, 0, 1)
    with pytest.raises(ValueError, match="closed"):
        Interval(Real, 0, 1, closed="open")
    with pytest.raises(ValueError, match="empty interval"):
        Interval(Real, 2, 1)


def test_options():
    opts = Options(str, ("smo", "pegasos"))
    assert opts.is_satisfied_by("smo") and opts.is_satisfied_by(np.str_("pegasos"))
    assert not opts.is_satisfied_by("SMO") and not opts.is_satisfied_by(None)
    assert opts.describe() == "one of {'smo', 'pegasos'}"  # a tuple keeps its order
    assert Options(str, {"b", "a"}).describe() == "one of {'a', 'b'}"  # a set is sorted
    assert Options(str, ("auto",)).describe() == "'auto'"
    ints = Options(Integral, (0, 1))
    assert ints.is_satisfied_by(1) and not ints.is_satisfied_by(True)
    with pytest.raises(ValueError, match="at least one"):
        Options(str, ())


def test_has_methods():
    spec = HasMethods(["fit", "transform"])
    assert spec.is_satisfied_by(kernelkit.Nystroem())
    assert not spec.is_satisfied_by(RBF()) and not spec.is_satisfied_by("fit")
    assert spec.describe() == "an object with fit() and transform()"


@pytest.mark.parametrize("spec, good, bad", [
    ("boolean", [True, False, np.bool_(False)], [1, 0, "True", None]),
    ("random_state", [None, 0, 2**32 - 1, np.int64(3), np.random.RandomState(0),
                      np.random.default_rng(0)], [-1, 2**32, 1.5, True, "0"]),
    ("array-like", [[1, 2], (1,), np.zeros(2), np.float64(1.0)], ["abc", None, 3, object()]),
    ("callable", [len, np.tanh, lambda: 0], [1, "len", None]),
    ("kernel", [RBF(), "rbf + linear", "precomputed"], [1, None, RBF, object()]),
    (None, [None], [0, "", False]),
    (dict, [{}, {"a": 1}], [[], None]),
    (Real, [1, 1.5, np.float32(2)], [True, np.bool_(False), "1"]),
    (Kernel, [RBF(), Linear() + RBF()], [RBF, "rbf"]),
])
def test_type_and_named_specs(spec, good, bad):
    for value in good:
        assert _allowed([spec], value), value
    for value in bad:
        assert not _allowed([spec], value), value


def test_validate_params_wording():
    constraints = {"max_iter": [Interval(Integral, 1, None), None],
                   "solver": [Options(str, ("smo", "pegasos"))],
                   "C": [Interval(Real, 0, None, closed="neither", note="the penalty")]}
    with pytest.raises(InvalidParameterError) as exc_info:
        validate_params({"max_iter": 1.5}, constraints, "KernelSVC")
    assert str(exc_info.value) == ("KernelSVC: max_iter must be an integer >= 1 or None, "
                                   "got 1.5 (float)")
    with pytest.raises(InvalidParameterError) as exc_info:
        validate_params({"solver": "newton"}, constraints, "KernelSVC")
    assert str(exc_info.value) == ("KernelSVC: solver must be one of {'smo', 'pegasos'}, "
                                   "got 'newton' (str)")
    with pytest.raises(InvalidParameterError) as exc_info:
        validate_params({"C": -1}, constraints, "KernelSVC")
    assert str(exc_info.value) == "KernelSVC: C must be a number > 0, got -1 (int) (the penalty)"
    with pytest.raises(InvalidParameterError, match=r"got 'xxxx.*\.\.\. \(str\)$"):
        validate_params({"solver": "x" * 200}, constraints, "KernelSVC")


def test_validate_params_reads_objects_and_dicts():
    class Holder:
        degree = 0

    constraints = {"degree": [Interval(Integral, 1, None)]}
    with pytest.raises(InvalidParameterError, match="^Holder: degree must be"):
        validate_params(Holder(), constraints, "Holder")
    validate_params({}, constraints, "Holder")  # a dict: only the names it holds
    validate_params({"degree": 3, "other": "anything"}, constraints, "Holder")
    # the first failing parameter in declaration order is reported
    two = {"a": [Interval(Integral, 0, None)], "b": [Interval(Integral, 0, None)]}
    with pytest.raises(InvalidParameterError, match="^X: a must be"):
        validate_params({"b": -1, "a": -1}, two, "X")


def test_a_single_constraint_needs_no_list():
    with pytest.raises(InvalidParameterError, match="^X: p must be True or False"):
        validate_params({"p": 1}, {"p": "boolean"}, "X")


def test_unknown_constraints_are_a_declaration_error():
    with pytest.raises(TypeError, match="unknown parameter constraint"):
        validate_params({"p": 1}, {"p": ["auto"]}, "X")
    with pytest.raises(TypeError, match="unknown parameter constraint"):
        describe_constraints([3])


def test_describe_constraints_joins_with_or():
    assert describe_constraints([Interval(Integral, 1, None), Options(str, ("auto",)), None]) \
        == "an integer >= 1, 'auto' or None"
    assert describe_constraints("kernel") == \
        "a Kernel, a kernel expression string or a function k(X, Y) -> Gram matrix"


def test_scikit_learn_spellings_of_kernel_parameters_get_the_kernelkit_one():
    """KernelRidge(kernel="rbf", gamma=0.1) is scikit-learn's spelling: the TypeError
    says how kernelkit writes it, for every estimator with a kernel."""
    import inspect

    import kernelkit
    from sklearn.base import clone

    with pytest.raises(TypeError, match=r'write kernel="rbf\(gamma=0.1\)" or kernel=RBF\('
                                        r'gamma=0.1\)'):
        kernelkit.KernelRidge(kernel="rbf", gamma=0.1)
    with pytest.raises(TypeError, match=r'kernel="poly\(degree=3, coef0=1\)"'):
        kernelkit.KernelSVC(kernel="poly", degree=3, coef0=1)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) colour=1; its "
                                        r"parameters are: kernel, C"):
        kernelkit.KernelSVC(colour=1)
    seen = 0
    for name in kernelkit.__all__:
        cls = getattr(kernelkit, name)
        from sklearn.base import BaseEstimator

        if not isinstance(cls, type) or not issubclass(cls, BaseEstimator) or \
                "kernel" not in inspect.signature(cls).parameters:
            continue
        seen += 1
        with pytest.raises(TypeError, match="keeps kernel parameters in the kernel"):
            cls(gamma=0.5)
        est = cls()
        assert clone(est).get_params() == est.get_params()  # the signature is the original
    assert seen >= 20


def test_the_hint_reads_a_kernel_given_by_position():
    import kernelkit

    with pytest.raises(TypeError, match=r'kernel="poly\(degree=3\)" or kernel=Polynomial\('):
        kernelkit.KernelRidge("poly", degree=3)
