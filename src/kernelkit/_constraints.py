"""Declared hyperparameter constraints: one check and one wording for every parameter.

Every public estimator, transformer and kernel declares ``_param_constraints``
(:class:`Interval`, :class:`Options`, :class:`HasMethods`, types and named
specs such as ``"random_state"``; a list means "any of"), and
:func:`validate_params` checks them, raising
:class:`~kernelkit.exceptions.InvalidParameterError` with one wording.
scikit-learn's declarative validator (``sklearn.utils._param_validation``) is
private API, so kernelkit keeps its own: a few constraint kinds, one check, one
error class. The attribute is not scikit-learn's ``_parameter_constraints``: its
estimator checks read that name and expect scikit-learn's private classes.

Ground floor beside :mod:`kernelkit._validation` (which re-exports every name
here, the one place that checks inputs and declared parameters): imports only
:mod:`kernelkit.exceptions`.
"""

from __future__ import annotations

import numbers

import numpy as np

from .exceptions import InvalidParameterError

__all__ = ["Interval", "Options", "HasMethods", "validate_params", "check_params",
           "describe_constraints"]


def _is_number(value):
    """Real numbers, numpy scalars included; booleans are never numbers."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _format_bound(x):
    return repr(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


class Interval:
    """A range of integers or real numbers (NaN never; infinity only as a closed bound).

    Parameters
    ----------
    kind : numbers.Integral or numbers.Real
        Integers only, or any real number (integers included; booleans never).
    low, high : float or None
        Bounds; None means unbounded on that side.
    closed : {"both", "left", "right", "neither"}, default="both"
        Which finite bounds belong to the interval.
    note : str, optional
        Why the range is what it is, appended to the error message.

    Examples
    --------
    >>> from numbers import Integral
    >>> Interval(Integral, 1, None).describe()
    'an integer >= 1'
    >>> Interval(float, 0, 1, closed="right").is_satisfied_by(1)
    True
    """

    def __init__(self, kind, low, high, *, closed="both", note=None):
        if kind in (int, numbers.Integral):
            kind = numbers.Integral
        elif kind in (float, numbers.Real):
            kind = numbers.Real
        else:
            raise TypeError(f"Interval kind must be numbers.Integral or numbers.Real, got {kind!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        if low is not None and high is not None and low > high:
            raise ValueError(f"empty interval: low={low!r} > high={high!r}")
        self.kind, self.low, self.high, self.closed, self.note = kind, low, high, closed, note

    def is_satisfied_by(self, value):
        if not _is_number(value) or not isinstance(value, self.kind):
            return False
        if value != value:  # NaN (np.isnan fails on ints beyond int64)
            return False
        low_ok = (value > -np.inf if self.low is None else
                  value >= self.low if self.closed in ("both", "left") else value > self.low)
        high_ok = (value < np.inf if self.high is None else
                   value <= self.high if self.closed in ("both", "right") else value < self.high)
        return bool(low_ok and high_ok)

    def describe(self, finite=False):
        """The words for the range: ``'a number > 0'``; ``finite=True`` says
        ``'a finite number > 0'`` (the wording for an infinite value)."""
        what = ("an integer" if self.kind is numbers.Integral else
                "a finite number" if finite else "a number")
        lo_closed = self.closed in ("both", "left")
        hi_closed = self.closed in ("both", "right")
        if self.low is None and self.high is None:
            return what if self.kind is numbers.Integral else "a finite number"
        if self.high is None:
            return f"{what} {'>=' if lo_closed else '>'} {_format_bound(self.low)}"
        if self.low is None:
            return f"{what} {'<=' if hi_closed else '<'} {_format_bound(self.high)}"
        return (f"{what} in {'[' if lo_closed else '('}{_format_bound(self.low)}, "
                f"{_format_bound(self.high)}{']' if hi_closed else ')'}")

    def __repr__(self):
        return (f"Interval({self.kind.__name__}, {self.low!r}, {self.high!r}, "
                f"closed={self.closed!r})")


class Options:
    """A finite set of allowed values of one type, e.g. ``Options(str, {"smo", "pegasos"})``.

    Values are compared with ``==`` after an ``isinstance`` check, so ``1``
    is not the option ``True`` and ``"SMO"`` is not ``"smo"``. A set is listed
    sorted in messages; a tuple or list keeps its order. ``note`` is appended
    to the error message, as for :class:`Interval`.
    """

    def __init__(self, type, options, *, note=None):
        self.type = type
        self.note = note
        opts = sorted(options) if isinstance(options, (set, frozenset)) else list(options)
        if not opts:
            raise ValueError("Options needs at least one allowed value")
        self.options = tuple(opts)

    def is_satisfied_by(self, value):
        if not isinstance(value, self.type):
            return False
        if self.type is not bool and isinstance(value, (bool, np.bool_)):
            return False
        return any(value == o for o in self.options)

    def describe(self):
        if len(self.options) == 1:
            return repr(self.options[0])
        return "one of {" + ", ".join(repr(o) for o in self.options) + "}"

    def __repr__(self):
        return f"Options({self.type.__name__}, {self.options!r})"


class HasMethods:
    """Any object with the named methods, e.g. ``HasMethods(["fit", "transform"])``."""

    def __init__(self, methods):
        self.methods = (methods,) if isinstance(methods, str) else tuple(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def describe(self):
        names = [f"{m}()" for m in self.methods]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"an object with {listed}"

    def __repr__(self):
        return f"HasMethods({list(self.methods)!r})"


def _is_kernel(value):
    # kernels import this module, so the class is recognised by name, not imported.
    return any(c.__module__ == "kernelkit.kernels.base" and c.__qualname__ == "Kernel"
               for c in type(value).__mro__)


def _is_random_state(value):
    if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
        return True
    return (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
            and 0 <= value <= 2**32 - 1)


def _is_array_like(value):
    if isinstance(value, (str, bytes)) or value is None:
        return False
    return hasattr(value, "__array__") or hasattr(value, "__len__") and hasattr(value, "__getitem__")


# Named specs: (predicate, description).
_NAMED = {
    "boolean": (lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
    "random_state": (_is_random_state,
                     "an int in [0, 2**32 - 1], a RandomState or Generator, or None"),
    "array-like": (_is_array_like, "an array-like"),
    "callable": (callable, "a callable"),
    "kernel": (lambda v: isinstance(v, str) or _is_kernel(v)
               or (callable(v) and not isinstance(v, type)),
               "a Kernel, a kernel expression string or a function k(X, Y) -> Gram matrix"),
}


def _article(name):
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _check_constraint(c):
    if c is None or isinstance(c, (Interval, Options, HasMethods, type)):
        return c
    if isinstance(c, str) and c in _NAMED:
        return c
    raise TypeError(f"unknown parameter constraint {c!r}: use an Interval, Options, "
                    f"HasMethods, a type, None or one of {sorted(_NAMED)}")


def _satisfies(c, value):
    if c is None:
        return value is None
    if isinstance(c, str):
        return bool(_NAMED[c][0](value))
    if isinstance(c, type):
        if c is not bool and isinstance(value, (bool, np.bool_)) and issubclass(c, numbers.Number):
            return False
        return isinstance(value, c)
    return c.is_satisfied_by(value)


def _describe(c, finite=False):
    if c is None:
        return "None"
    if isinstance(c, str):
        return _NAMED[c][1]
    if isinstance(c, type):
        return _article(c.__name__)
    if isinstance(c, Interval):
        return c.describe(finite=finite)
    return c.describe()


def describe_constraints(constraints, *, finite=False):
    """The words for a list of constraints: ``'an integer >= 1 or None'``.

    ``finite=True`` words real ranges as ``'a finite number > 0'``: the
    message for an infinite value, which such a range excludes.
    """
    if not isinstance(constraints, (list, tuple)):
        constraints = [constraints]
    parts = [_describe(_check_constraint(c), finite) for c in constraints]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _format_got(value):
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def check_params(obj):
    """Check the declared parameters of a kernelkit estimator, transformer or kernel.

    Every such object declares ``_param_constraints`` and checks them (plus its
    cross-parameter rules) in ``_check_params()``, the protocol this module
    defines; this is the public way to run that check from another room (e.g.
    on a model read from a file). Returns what ``_check_params`` returns.

    Raises
    ------
    InvalidParameterError
    """
    return obj._check_params()


def validate_params(params, constraints, owner):
    """Check hyperparameters against their declared constraints.

    Parameters
    ----------
    params : object or dict
        An estimator, transformer or kernel (its attribute of each declared
        name is checked), or a dict name -> value (the declared names it
        holds are checked).
    constraints : dict
        Name -> a constraint or a list of constraints, any of which may hold:
        :class:`Interval`, :class:`Options`, :class:`HasMethods`, a type
        (``dict``, a Kernel class), ``None``, or a named spec: ``"boolean"``,
        ``"random_state"``, ``"array-like"``, ``"callable"``, ``"kernel"``
        (a Kernel or an expression string).
    owner : str
        Who owns the parameters (a class name), first in the message.

    Raises
    ------
    InvalidParameterError
        For the first parameter, in declaration order, that satisfies none of
        its constraints: ``"KernelSVC: max_iter must be an integer >= 1 or
        None, got 1.5 (float)"``.

    Examples
    --------
    >>> from numbers import Integral
    >>> validate_params({"degree": 2}, {"degree": [Interval(Integral, 1, None)]}, "Polynomial")
    >>> validate_params({"degree": 0}, {"degree": [Interval(Integral, 1, None)]}, "Polynomial")
    Traceback (most recent call last):
    ...
    kernelkit.exceptions.InvalidParameterError: Polynomial: degree must be an integer >= 1, got 0 (int)
    """
    is_dict = isinstance(params, dict)
    for name, allowed in constraints.items():
        if is_dict:
            if name not in params:
                continue
            value = params[name]
        else:
            value = getattr(params, name)
        allowed = allowed if isinstance(allowed, (list, tuple)) else [allowed]
        if any(_satisfies(_check_constraint(c), value) for c in allowed):
            continue
        notes = [c.note for c in allowed if getattr(c, "note", None)]
        infinite = _is_number(value) and value in (np.inf, -np.inf)
        raise InvalidParameterError(
            f"{owner}: {name} must be {describe_constraints(allowed, finite=infinite)}, "
            f"got {_format_got(value)}"
            + (f" ({'; '.join(notes)})" if notes else ""))
