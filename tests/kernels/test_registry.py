"""The registry and the safe parser of kernel expressions."""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelkit import KernelSpecError
from kernelkit.kernels import (KERNELS, RBF, Bilinear, Cauchy, Composed, Constant, Exp,
                               KroneckerDelta, Laplacian, Linear, Matern, Polynomial, Power, Product,
                               Scaled, Sigmoid, Sum, Warped, kernel_from_dict, parse_kernel,
                               resolve_kernel)


def test_headline_expression():
    assert parse_kernel("rbf(gamma=0.5) + 0.1*poly(degree=3)") == \
        RBF(gamma=0.5) + 0.1 * Polynomial(degree=3)


@pytest.mark.parametrize("text, expected", [
    ("rbf + linear * cauchy", Sum(RBF(), Product(Linear(), Cauchy()))),
    ("rbf * linear + cauchy", Sum(Product(RBF(), Linear()), Cauchy())),
    ("(rbf + linear) * cauchy", Product(Sum(RBF(), Linear()), Cauchy())),
    ("2 * (rbf + linear)", Scaled(Sum(RBF(), Linear()), 2.0)),
    ("rbf ** 2", Power(RBF(), 2)),
    ("0.5 * rbf ** 2", Scaled(Power(RBF(), 2), 0.5)),
    ("rbf * linear ** 3", Product(RBF(), Power(Linear(), 3))),
    ("(rbf + linear) ** 2", Power(Sum(RBF(), Linear()), 2)),
    ("poly(3) / 4", Scaled(Polynomial(3), 0.25)),
    ("rbf() + 1.5", Sum(RBF(), Constant(1.5))),
    ("poly(2, 0.5, 0)", Polynomial(degree=2, gamma=0.5, coef0=0)),
    ("poly(2, coef0=0)", Polynomial(degree=2, coef0=0)),
    ("rbf(0.25)", RBF(gamma=0.25)),
    ("rbf(length_scale=2)", RBF(length_scale=2)),
    ("exp(0.1 * linear)", Exp(Scaled(Linear(), 0.1))),
    ("sigmoid(gamma=0.1, coef0=-1)", Sigmoid(gamma=0.1, coef0=-1)),
    ("tanh(0.1)", Sigmoid(0.1)),
    ("gaussian(gamma=1e-3)", RBF(gamma=1e-3)),
    ("delta + kronecker", KroneckerDelta() + KroneckerDelta()),
    ("RBF(gamma=.5)", RBF(gamma=0.5)),
    ("GAUSSIAN(0.5)", RBF(0.5)),
    ("rBf(gamma=2)", RBF(2)),
    ("Polynomial(degree=3)", Polynomial(3)),
    ("  Laplacian ( gamma = 2 )  ", Laplacian(2)),
    ("bilinear(A=[[1, 0], [0, 2]])", Bilinear(np.diag([1.0, 2.0]))),
    ("rbf(gamma='scale')", RBF()),                 # quoted strings, as Python's repr writes them
    ('rbf(gamma="auto")', RBF(gamma="auto")),
    ("rbf(gamma=scale)", RBF(gamma="scale")),       # the bare word still reads
    ("matern(length_scale='scale', nu=2.5)", Matern(nu=2.5)),
])
def test_parse(text, expected):
    assert parse_kernel(text) == expected


def test_resolve_kernel():
    k = RBF()
    assert resolve_kernel(k) is k
    assert resolve_kernel("rbf") == k
    with pytest.raises(TypeError, match="expression string"):
        resolve_kernel(3)
    with pytest.raises(TypeError):
        parse_kernel(b"rbf")


CORPUS = [
    RBF(), RBF(gamma=0.5), RBF(length_scale=3.0), Linear(), Polynomial(degree=2, coef0=0.0),
    Polynomial(degree=4, gamma=0.25, coef0=-1.5), Laplacian(1e-5), Cauchy(2.0),
    Sigmoid(gamma=0.01, coef0=-0.5), KroneckerDelta(), Constant(0.0), Constant(3.0),
    RBF(0.5) + 0.1 * Polynomial(degree=3), (RBF() + Linear()) * Cauchy(), 2.0 * (RBF() * Linear()),
    (RBF() + Linear()) ** 2, RBF() ** 2.5, Exp(0.2 * Linear()), Exp(RBF() + Linear()),
    0.5 * RBF() ** 3, Laplacian() * (0.5 * Linear()), (0.5 * Linear()) * Laplacian(),
    RBF() + 1e-3, RBF() * Linear() * Cauchy(), RBF() + Linear() + Cauchy(),
    Scaled(Exp(Linear()), 0.0),
]


@pytest.mark.parametrize("kernel", CORPUS, ids=repr)
def test_repr_round_trip(kernel):
    assert parse_kernel(repr(kernel)) == kernel
    assert kernel_from_dict(kernel.to_dict()) == kernel


@pytest.mark.parametrize("kernel", [
    Sum(RBF(), Sum(Linear(), Cauchy())),
    Product(RBF(), Product(Linear(), Cauchy())),
    Scaled(Scaled(RBF(), 0.5), 2.0),
    RBF(gamma=np.float64(0.5)),
    Polynomial(degree=np.int64(2)),
    Bilinear(np.diag([1.0, 2.0])),
], ids=repr)
def test_repr_round_trip_hard_cases(kernel):
    # the module promises parse_kernel(repr(k)) == k for every kernel without callables
    assert parse_kernel(repr(kernel)) == kernel


def _position(message):
    m = re.search(r"position (\d+)", str(message))
    return None if m is None else int(m.group(1))


@pytest.mark.parametrize("text, positions", [
    # acceptable positions: the offending token, or (for a bad call) its name or argument
    ("rbf(gamma=0.5) + foo(1)", {17}),          # unknown name
    ("rbf(gama=0.5)", {0, 4}),                  # unknown parameter
    ("rbf(gamma=1.2.3)", {13}),                 # bad number
    ("rbf(gamma=0.5", {13}),                    # unbalanced
    ("(rbf + linear", {13}),
    ("rbf + linear)", {12}),
    ("rbf(gamma=0.5) linear", {15}),            # trailing garbage
    ("rbf(gamma=0.5) + ", {16, 17}),
    ("__import__('os')", {0}),                  # 'os' is a string now: the name is refused
    ("rbf(gamma=-1)", {0, 4, 10}),              # invalid value
    ("poly(degree=0)", {0, 5, 12}),
])
def test_errors_have_positions(text, positions):
    with pytest.raises(KernelSpecError) as info:
        parse_kernel(text)
    assert _position(info.value) in positions, str(info.value)


@pytest.mark.parametrize("text, match", [
    ("", "empty"), ("   ", "empty"), ("2.5", "number, not a kernel"), ("3 * 4", "number"),
    ("rbf() - linear", "position"), ("rbf() / linear", "divide"), ("rbf(1, 2, 3)", "positional"),
    ("rbf(gamma=1, gamma=2)", "twice"), ("poly(3, degree=2)", "twice"),
    ("rbf(gamma=1, 2)", "positional argument after keyword"),
    ("warped(rbf)", "unknown kernel"), ("composed(rbf)", "unknown kernel"),
    ("os.system('ls')", "unexpected character"), ("rbf(gamma=np.float64(1))", "position"),
    ("exp(k=1)", "Kernel"), ("rbf() ** linear", "number"), ("2 ** rbf", "number"),
    ("-rbf", "number"),
    ("rbf(gamma=None)", "gamma='scale'"), ("rbf(gamma='wide')", "scale"),
    ("rbf(gamma='scale)", "closing quote"), ("'rbf'", "kernel name"),
    ("rbf(gamma='sc\\'ale')", "backslash"),
])
def test_errors(text, match):
    with pytest.raises(KernelSpecError, match=match):
        parse_kernel(text)


@pytest.mark.parametrize("text", [
    "rbf() ** 0", "rbf() ** -1", "rbf(gamma=1/0)", "rbf() * (1/0)", "rbf() ** 1e999",
])
def test_arithmetic_errors_are_kernel_spec_errors(text):
    with pytest.raises(KernelSpecError):
        parse_kernel(text)


def test_deeply_nested_expression_is_a_kernel_spec_error():
    text = "(" * 3000 + "rbf" + ")" * 3000
    with pytest.raises(KernelSpecError):
        parse_kernel(text)


def test_kernel_spec_error_is_value_error():
    assert issubclass(KernelSpecError, ValueError)


# ----------------------------------------------------------------- kernel_from_dict
def test_kernel_from_dict_rejects():
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel_from_dict({"kernel": "Evil", "params": {}})
    with pytest.raises(ValueError, match="no parameter"):
        kernel_from_dict({"kernel": "RBF", "params": {"sigma": 1.0}})
    with pytest.raises(ValueError, match="malformed"):
        kernel_from_dict({"kernel": "RBF"})
    with pytest.raises(ValueError, match="malformed"):
        kernel_from_dict({"kernel": "RBF", "params": {"gamma": [1.0]}})
    with pytest.raises(ValueError, match="unsupported array dtype"):
        kernel_from_dict({"kernel": "Bilinear", "params": {"A": {"ndarray": [[1]],
                                                                "dtype": "object"}}})
    with pytest.raises(ValueError, match="gamma"):
        kernel_from_dict({"kernel": "RBF", "params": {"gamma": -1.0}})
    for name in ("Warped", "Composed"):
        assert name not in KERNELS
        with pytest.raises(ValueError, match="unknown kernel"):
            kernel_from_dict({"kernel": name, "params": {"k": RBF().to_dict(), "f": "print"}})
    nested = {"kernel": "Sum", "params": {"k1": RBF().to_dict(),
                                          "k2": {"kernel": "Warped", "params": {}}}}
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel_from_dict(nested)


def test_kernel_from_dict_bilinear():
    k = Bilinear(np.array([[2.0, 0.5], [0.5, 1.0]]))
    assert kernel_from_dict(k.to_dict()) == k


def test_registry_contents():
    assert set(KERNELS) >= {"Linear", "Polynomial", "RBF", "Laplacian", "Cauchy", "Sigmoid",
                            "KroneckerDelta", "Constant", "Sum", "Product", "Scaled", "Power",
                            "Exp", "Bilinear"}
    assert Warped.__name__ not in KERNELS and Composed.__name__ not in KERNELS


# ----------------------------------------------------------------- fuzz
_PIECES = ["rbf", "poly", "linear", "exp", "delta", "bilinear", "gamma", "degree", "coef0",
           "A", "k", "None", "True", "np", "(", ")", "[", "]", ",", "=", "+", "*", "**", "/",
           "-", "0", "1", "2", "-1", ".5", "1e999", "1e-400", "9" * 30, " ", ".", "'", "x",
           "é", "\n"]


def _check_fuzz(text):
    try:
        k = parse_kernel(text)
    except (KernelSpecError, TypeError):
        return
    # whatever parses reads back from its repr
    assert parse_kernel(repr(k)) == k


@settings(max_examples=400, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40))
def test_fuzz_random_text(text):
    _check_fuzz(text)


@settings(max_examples=1500, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_fuzz_token_soup(text):
    _check_fuzz(text)
