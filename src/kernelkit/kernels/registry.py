"""One registry of kernel names, one safe parser of kernel expressions.

``parse_kernel("rbf(gamma=0.5) + 0.1*poly(degree=3)")`` builds the same value
as ``RBF(gamma=0.5) + 0.1 * Polynomial(degree=3)``, and ``parse_kernel(repr(k))
== k`` for every kernel without Python callables. The parser is a small
recursive-descent reader of numbers, names and operators: it never calls
``eval`` and never imports anything.

Grammar::

    expr   := term ("+" term)*
    term   := factor ("*" factor)*
    factor := atom ("**" NUMBER)?
    atom   := NUMBER | NAME ["(" args ")"] | "(" expr ")"
    args   := [value ("," value)*] ["," NAME "=" value ...]
    value  := expr | STRING | "scale" | "auto" | "[" value ("," value)* "]"

STRING is text in single or double quotes without quotes or backslashes
inside (``gamma='scale'``, ``gamma="scale"``), as Python writes it in a
``repr``; the bare words ``scale`` and ``auto`` are read as those strings.
The kernel's constructor then checks the value (``gamma='wide'`` is refused
there, with the allowed values).
"""

from __future__ import annotations

import re

from ..exceptions import KernelSpecError
from .base import Kernel
from . import algebra, strings, vector
from .callable import CallableKernel
from .chi2 import AdditiveChi2, Chi2
from .matern import Matern
from .spline import Spline
from .graphs import WeisfeilerLehman
from .alignment import GlobalAlignment
from .sets import MeanEmbedding
from .trees import SubsetTree

__all__ = ["KERNELS", "resolve_kernel", "parse_kernel", "kernel_from_dict", "register_kernel"]

#: Public kernel classes by class name (the allow-list of model files).
KERNELS: dict = {}
_ALIASES: dict = {}


def register_kernel(cls, *aliases):
    """Add a kernel class to the registry under its class name and lower-case aliases."""
    KERNELS[cls.__name__] = cls
    for name in (cls.__name__.lower(), *aliases):
        _ALIASES[name.lower()] = cls
    return cls


for _cls, _aliases in [
    (vector.Linear, ()), (vector.Polynomial, ("poly",)), (vector.RBF, ("gaussian",)),
    (vector.Laplacian, ()), (vector.Cauchy, ()), (vector.Sigmoid, ("tanh",)),
    (vector.KroneckerDelta, ("delta", "kronecker")), (vector.Constant, ()),
    (Matern, ()), (Chi2, ()), (AdditiveChi2, ("additive_chi2",)),
    (Spline, ("linear_spline",)), (WeisfeilerLehman, ("wl", "weisfeiler_lehman")),
    (GlobalAlignment, ("gak", "global_alignment")),
    (algebra.Sum, ()), (algebra.Product, ()), (algebra.Scaled, ()), (algebra.Power, ()),
    (algebra.Exp, ()), (algebra.Bilinear, ()),
    (strings.Subsequence, ("ssk",)), (strings.Spectrum, ("kmer",)),
    (strings.WeightedDegree, ("wd",)),
    (MeanEmbedding, ("mean_embedding", "set_kernel")),
    (SubsetTree, ("sst", "subset_tree", "collins_duffy")),
]:
    register_kernel(_cls, *_aliases)
# Warped, Composed and CallableKernel hold Python callables: not in the registry on purpose.

# Bare words accepted as string values: rbf(gamma=scale) means rbf(gamma='scale').
_WORDS = ("scale", "auto")

_TOKEN = re.compile(r"\s*(?:(?P<str>'[^'\\\n]*'|\"[^\"\\\n]*\")|(?P<num>\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/(),=\[\]]))")


def _tokenize(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m and text[pos:].lstrip()[:1] in ("'", '"'):
            raise KernelSpecError(f"a quoted string without its closing quote, or with a "
                                  f"backslash or line break inside, at position {pos} in "
                                  f"kernel expression {text!r}")
        if not m:
            raise KernelSpecError(f"unexpected character {text[pos:].lstrip()[:1]!r} at position "
                                  f"{pos} in kernel expression {text!r}")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text):
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    def peek(self):
        return self.tokens[self.i]

    def take(self, value=None):
        tok = self.tokens[self.i]
        if value is not None and tok[1] != value:
            self.fail(f"expected {value!r}")
        self.i += 1
        return tok

    def fail(self, msg):
        kind, value, pos = self.peek()
        found = "end of input" if kind == "end" else repr(value)
        raise KernelSpecError(f"{msg} at position {pos} (found {found}) in kernel expression "
                              f"{self.text!r}\n  {self.text}\n  {' ' * pos}^")

    def parse(self):
        if self.peek()[0] == "end":
            raise KernelSpecError("empty kernel expression; write e.g. 'rbf(gamma=0.5)'")
        value = self.expr()
        if self.peek()[0] != "end":
            self.fail("unexpected token")
        if not isinstance(value, Kernel):
            raise KernelSpecError(f"kernel expression {self.text!r} is a number, not a kernel")
        return value

    def expr(self):
        values = [self.term()]
        while self.peek()[1] == "+":
            self.take()
            values.append(self.term())
        if len(values) > 2 and all(isinstance(v, Kernel) for v in values):
            # one flat Sum at once: a text of 20,000 terms stays linear in its length
            return _combine_all(values, self, algebra.Sum)
        value = values[0]
        for term in values[1:]:
            value = _combine(value, term, "+", self)
        return value

    def term(self):
        values, ops = [self.factor()], []
        while self.peek()[1] in ("*", "/"):
            ops.append(self.take()[1])
            values.append(self.factor())
        if len(values) > 2 and set(ops) == {"*"} and all(isinstance(v, Kernel) for v in values):
            return _combine_all(values, self, algebra.Product)
        value = values[0]
        for op, factor in zip(ops, values[1:]):
            value = _combine(value, factor, op, self)
        return value

    def factor(self):
        value = self.atom()
        if self.peek()[1] == "**":
            self.take()
            exponent = self.number()
            if not isinstance(value, Kernel):
                self.fail("'**' needs a kernel on its left")
            try:
                value = algebra.Power(value, exponent)
            except KernelSpecError:
                raise
            except (ValueError, TypeError) as exc:
                raise KernelSpecError(f"in kernel expression {self.text!r}: {exc}") from None
        return value

    def number(self):
        sign = 1
        if self.peek()[1] == "-":
            self.take()
            sign = -1
        kind, text, _ = self.peek()
        if kind != "num":
            self.fail("expected a number")
        self.take()
        value = float(text)
        if re.fullmatch(r"\d+", text):
            value = int(text)
        return sign * value

    def atom(self):
        kind, text, pos = self.peek()
        if kind == "num" or text == "-":
            return self.number()
        if text == "(":
            self.take()
            value = self.expr()
            self.take(")")
            return value
        if kind != "name":
            self.fail("expected a kernel name, a number or '('")
        self.take()
        cls = _ALIASES.get(text.lower())
        if cls is None:
            raise KernelSpecError(f"unknown kernel {text!r} at position {pos} in {self.text!r}; "
                                  "known kernels: "
                                  f"{', '.join(sorted(k.__name__ for k in set(_ALIASES.values())))}")
        args, kwargs = [], {}
        if self.peek()[1] == "(":
            self.take()
            while self.peek()[1] != ")":
                if self.peek()[0] == "name" and self.tokens[self.i + 1][1] == "=":
                    name = self.take()[1]
                    self.take("=")
                    if name in kwargs:
                        self.fail(f"argument {name!r} given twice")
                    kwargs[name] = self.value()
                else:
                    if kwargs:
                        self.fail("positional argument after keyword argument")
                    args.append(self.value())
                if self.peek()[1] == ",":
                    self.take()
                elif self.peek()[1] != ")":
                    self.fail("expected ',' or ')'")
            self.take(")")
        return _build(cls, args, kwargs, f"{self.text!r} at position {pos}")

    def value(self):
        kind, text, _ = self.peek()
        if text == "[":
            self.take()
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.take()
            self.take("]")
            return items
        if kind == "name" and text in ("None", "True", "False") and \
                self.tokens[self.i + 1][1] != "(":
            self.take()
            return {"None": None, "True": True, "False": False}[text]
        if kind == "str":  # gamma='scale' (Python's repr) or gamma="scale"
            self.take()
            return text[1:-1]
        if kind == "name" and text in _WORDS and self.tokens[self.i + 1][1] != "(":
            self.take()  # gamma=scale, gamma=auto (scikit-learn's data-dependent values)
            return text
        if kind == "name" and text == "np":  # repr of arrays: np.array([...])
            self.fail("arrays are not accepted in kernel expressions")
        return self.expr()


def _combine(a, b, op, parser):
    kb = isinstance(b, Kernel)
    try:
        if op == "+":
            return a + b
        if op == "*":
            return a * b
        if op == "/":
            if kb:
                parser.fail("cannot divide by a kernel")
            return a / b
    except KernelSpecError:
        raise  # the algebra's own message (nesting too deep), without the whole text again
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise KernelSpecError(f"in kernel expression {parser.text!r}: {exc}") from None
    raise AssertionError(op)


def _combine_all(kernels, parser, node):
    """One flat ``node`` (Sum or Product) of three or more kernels."""
    try:
        return node(**dict(zip(algebra.term_names(len(kernels)), kernels)))
    except KernelSpecError:
        raise
    except (ValueError, TypeError) as exc:
        raise KernelSpecError(f"in kernel expression {parser.text!r}: {exc}") from None


def _build(cls, args, kwargs, text):
    names = cls._param_names()
    if len(args) > len(names):
        raise KernelSpecError(f"{cls.__name__} takes at most {len(names)} positional arguments "
                              f"({', '.join(names)}), got {len(args)} in {text}")
    params = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise KernelSpecError(f"{cls.__name__} has no parameter {key!r} (parameters: "
                                  f"{', '.join(names) or 'none'}) in {text}")
        if key in params:
            raise KernelSpecError(f"{cls.__name__}: {key!r} given twice in {text}")
        params[key] = value
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise KernelSpecError(f"{cls.__name__}: {exc} (in {text})") from None


def parse_kernel(text):
    """Build a kernel from an expression such as ``"rbf(gamma=0.5) + 0.1*poly(degree=3)"``.

    Parameters
    ----------
    text : str
        Names (case-insensitive: ``rbf``/``gaussian``, ``poly``/``polynomial``,
        ``linear``, ``laplacian``, ``cauchy``, ``sigmoid``, ``delta``, ...),
        call arguments (numbers, positional or by name; quoted strings, and
        ``gamma='scale'`` / ``gamma='auto'`` -- quotes optional -- for the
        data-dependent width, fixed at fit by :meth:`Kernel.resolve`), ``+``, ``*``, ``/``
        by a number, ``**`` a number, parentheses and ``exp(...)``.

    Returns
    -------
    Kernel

    Raises
    ------
    KernelSpecError
        With the position of the problem.
    """
    if not isinstance(text, str):
        raise TypeError(f"a kernel expression must be a str, got {type(text).__name__}")
    try:
        return _Parser(text).parse()
    except RecursionError:
        raise KernelSpecError(f"kernel expression nested too deeply ({len(text)} characters)") \
            from None


def resolve_kernel(kernel):
    """A Kernel from a Kernel (returned as is), an expression string or a function.

    A function ``k(X, Y) -> Gram matrix`` (scikit-learn's convention) is
    wrapped in a :class:`~kernelkit.kernels.CallableKernel`.
    """
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, str):
        return parse_kernel(kernel)
    if callable(kernel) and not isinstance(kernel, type):
        return CallableKernel(kernel)
    raise TypeError(f"kernel must be a kernelkit Kernel, an expression string such as "
                    f"'rbf(gamma=0.5)' or a function k(X, Y) -> Gram matrix, got "
                    f"{type(kernel).__name__}")


def kernel_from_dict(spec):
    """Rebuild a kernel from :meth:`Kernel.to_dict` output, accepting only registered names.

    Raises
    ------
    ValueError
        For unknown kernel names, unknown parameters or malformed values.
    """
    import numpy as np

    if not isinstance(spec, dict) or set(spec) != {"kernel", "params"} or \
            not isinstance(spec["params"], dict):
        raise ValueError(f"malformed kernel description {spec!r}")
    cls = KERNELS.get(spec["kernel"])
    if cls is None:
        raise ValueError(f"unknown kernel {spec['kernel']!r}; known: {sorted(KERNELS)}")
    accepted = getattr(cls, "_accepted_param_names", None)  # n-ary sums and products
    names = cls._param_names() if accepted is None else accepted(spec["params"])
    params = {}
    for key, value in spec["params"].items():
        if key not in names:
            raise ValueError(f"kernel {cls.__name__} has no parameter {key!r}")
        if isinstance(value, dict) and "kernel" in value:
            value = kernel_from_dict(value)
        elif isinstance(value, dict) and set(value) == {"ndarray", "dtype"}:
            if value["dtype"] not in ("float64", "float32", "int64", "int32", "bool"):
                raise ValueError(f"unsupported array dtype {value['dtype']!r}")
            value = np.asarray(value["ndarray"], dtype=value["dtype"])
        elif not (value is None or isinstance(value, (bool, int, float, str))):
            raise ValueError(f"malformed value for {cls.__name__}.{key}: {value!r}")
        params[key] = value
    if cls is vector.RBF and "gamma" in params and params["gamma"] is None:
        # written before RBF's default became gamma="scale": None meant 1.0 then
        del params["gamma"]
        if params.get("length_scale") is None:
            params["gamma"] = 1.0
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid kernel description for {cls.__name__}: {exc}") from None
