"""Input checks added for issue 13: lone surrogates, the kernel-value check, wording."""

import numbers

import numpy as np
import pytest

from kernelkit._validation import (Interval, all_finite, check_kernel_values, check_strings,
                                   validate_params)
from kernelkit.exceptions import InvalidParameterError, NonFiniteKernelError


@pytest.mark.parametrize("strings, index, position, code", [
    (["abc", "x\ud800y"], 1, 1, "D800"),
    (np.array(["ok", "fine", "\udfff"]), 2, 0, "DFFF"),
    (np.array(["ok", "\udc80", "a\udfff"])[::2], 1, 1, "DFFF"),  # strided array
])
def test_lone_surrogates_are_refused_with_string_and_position(strings, index, position, code):
    with pytest.raises(ValueError, match=rf"X\[{index}\] holds a lone surrogate "
                                         rf"\(U\+{code}\) at position {position}"):
        check_strings(strings)


def test_paired_characters_and_astral_planes_are_fine():
    assert list(check_strings(["cd\U0001F600", "\ud7ff\ue000"])) == ["cd\U0001F600",
                                                                     "\ud7ff\ue000"]


def test_string_kernel_estimator_refuses_a_surrogate_before_encoding():
    from kernelkit.models import KernelRidge

    with pytest.raises(ValueError, match="lone surrogate"):
        KernelRidge(kernel="spectrum(k=2)").fit(["abc", "a\ud800c"], [1.0, 2.0])


@pytest.mark.parametrize("A, expected", [
    (np.ones((3, 4)), True), (np.empty((0, 2)), True),
    (np.array([[1.0, np.nan]]), False), (np.array([np.inf, -np.inf]), False),
    (np.full(4, np.finfo(np.float64).max), True),  # the sum overflows; entries are finite
    (np.full(3, np.finfo(np.float32).max, dtype=np.float32), True),
])
def test_all_finite(A, expected):
    assert all_finite(A) is expected


def test_check_kernel_values_message():
    with pytest.raises(NonFiniteKernelError, match="RBF.*overflows float64.*1e\\+250.*"
                                                   "StandardScaler"):
        check_kernel_values(np.array([[1.0, np.nan]]), "RBF()", (np.array([[1e250]]),))
    with pytest.raises(NonFiniteKernelError, match="float32"):
        check_kernel_values(np.array([np.inf], dtype=np.float32), "X", (np.array([1e30]),))
    check_kernel_values(np.zeros((2, 2)), "ok")


def test_infinite_values_are_worded_finite():
    spec = {"C": [Interval(numbers.Real, 0, None, closed="neither")]}
    for value in (float("inf"), -np.inf):
        with pytest.raises(InvalidParameterError, match="C must be a finite number > 0"):
            validate_params({"C": value}, spec, "Est")
    with pytest.raises(InvalidParameterError, match="C must be a number > 0, got 0"):
        validate_params({"C": 0}, spec, "Est")
    # an interval closed at infinity accepts it
    validate_params({"C": np.inf}, {"C": [Interval(numbers.Real, 0, np.inf)]}, "Est")
