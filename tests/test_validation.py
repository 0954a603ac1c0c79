"""The bad-input corpus of check_vectors and the other checks of _validation."""

import numpy as np
import pytest
import scipy.sparse

from kernelkit._validation import (check_finite, check_same_n_features, check_scalar,
                                   check_vectors, looks_like_strings)


@pytest.mark.parametrize("X, exc, match", [
    ([[1.0, np.nan]], ValueError, "NaN"),
    (np.array([[1.0, 2.0], [3.0, np.inf]]), ValueError, r"infinity at row=1, column=1"),
    (np.array([[1.0, 2.0], [np.nan, 0.0]], dtype=np.float32), ValueError, r"row=1, column=0"),
    (np.array([1.0, 2.0, 3.0]), ValueError, r"reshape\(-1, 1\)"),
    (np.ones((2, 2, 2)), ValueError, "2-D"),
    (np.float64(3.0), ValueError, "2-D"),
    (np.empty((0, 3)), ValueError, "empty"),
    ([], ValueError, "reshape"),
    (np.empty((3, 0)), ValueError, "0 feature"),
    ([[]], ValueError, "0 feature"),
    (["abc", "de"], TypeError, "strings"),
    ([["a", "b"]], TypeError, "strings"),
    (np.array([["a", "b"]]), TypeError, "strings"),
    (np.array([[b"a"]]), TypeError, "strings"),
    ("abc", TypeError, "strings"),
    (np.array([[1, "x"]], dtype=object), TypeError, "non-numeric"),
    (np.array([[1.0, None]], dtype=object), (TypeError, ValueError), "non-numeric|NaN"),
    (np.array([[1.0, {}]], dtype=object), TypeError, "non-numeric"),
    (np.array([[1 + 2j, 3]]), ValueError, "Complex"),
    (scipy.sparse.csr_matrix(np.eye(3)), TypeError, "sparse"),
    (scipy.sparse.csr_array(np.eye(3)), TypeError, "sparse"),
    (None, TypeError, "None"),
    ([[1.0, 2.0], [3.0]], ValueError, "cannot be read"),
    (np.array([["2020-01-01"]], dtype="datetime64[D]"), TypeError, "dtype"),
    ([[1.0, 2.0], ["a", "b"]], TypeError, "dtype|strings"),
])
def test_bad_inputs(X, exc, match):
    with pytest.raises(exc, match=match):
        check_vectors(X, "X")


def test_error_names_the_argument():
    with pytest.raises(ValueError, match="^Y"):
        check_vectors(np.array([1.0]), "Y")
    with pytest.raises(ValueError, match="Xtest contains NaN"):
        check_vectors([[np.nan]], "Xtest")


def test_nan_count_and_kind():
    X = np.zeros((4, 3))
    X[2, 1] = np.nan
    X[3, 0] = np.inf
    with pytest.raises(ValueError, match=r"2 values; first is NaN at row=2, column=1"):
        check_vectors(X)


@pytest.mark.parametrize("X, dtype", [
    (np.array([[True, False]]), np.float64),
    (np.array([[1, 2]], dtype=np.int32), np.float64),
    (np.array([[1, 2]], dtype=np.uint8), np.float64),
    ([[1, 2], [3, 4]], np.float64),
    (np.array([[1.5]], dtype=np.float16), np.float64),
    (np.array([[1.5]], dtype=np.float32), np.float32),
    (np.array([[1.5]]), np.float64),
    (np.array([[1, 2.5]], dtype=object), np.float64),
    (np.array([[np.float32(1), 2]], dtype=object), np.float64),
])
def test_dtypes(X, dtype):
    A = check_vectors(X)
    assert A.dtype == dtype
    assert A.flags.c_contiguous
    np.testing.assert_array_equal(A, np.asarray(X, dtype=np.float64))


def test_float64_and_contiguity():
    X = np.arange(12.0).reshape(3, 4)
    assert check_vectors(X) is X or np.shares_memory(check_vectors(X), X)
    F = np.asfortranarray(X)
    A = check_vectors(F)
    assert A.flags.c_contiguous
    np.testing.assert_array_equal(A, X)
    np.testing.assert_array_equal(check_vectors(X[:, ::2]), X[:, ::2])


def test_array_like_objects():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]})
    np.testing.assert_array_equal(check_vectors(df), df.to_numpy(dtype=float))


def test_allow_empty():
    assert check_vectors(np.empty((0, 2)), allow_empty=True).shape == (0, 2)


def test_looks_like_strings():
    assert looks_like_strings("a") and looks_like_strings(b"a")
    assert looks_like_strings(["a", "b"]) and looks_like_strings([["a"]])
    assert looks_like_strings(np.array(["a"])) and looks_like_strings(np.array([], dtype="U1"))
    assert looks_like_strings(np.array(["a", 1], dtype=object))
    assert not looks_like_strings([[1.0]]) and not looks_like_strings(np.ones((2, 2)))
    assert not looks_like_strings([]) and not looks_like_strings(np.array([1], dtype=object))


def test_check_finite_ignores_integers():
    check_finite(np.array([[1, 2]]))


def test_check_same_n_features():
    check_same_n_features(np.ones((2, 3)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="A has 3 features but B has 2"):
        check_same_n_features(np.ones((2, 3)), np.ones((2, 2)), names=("A", "B"))


@pytest.mark.parametrize("value, kwargs, exc, match", [
    (True, {}, TypeError, "real number"),
    ("1", {}, TypeError, "real number"),
    (None, {}, TypeError, "real number"),
    (2.0, {"integer": True}, TypeError, "integer"),
    (float("nan"), {}, ValueError, "finite"),
    (float("inf"), {}, ValueError, "finite"),
    (0, {"low": 0, "low_inclusive": False}, ValueError, "> 0"),
    (-1, {"low": 0}, ValueError, ">= 0"),
    (3, {"high": 2}, ValueError, "<= 2"),
])
def test_check_scalar_errors(value, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        check_scalar(value, "gamma", **kwargs)


def test_check_scalar_accepts():
    assert check_scalar(None, "g", allow_none=True) is None
    assert check_scalar(0, "g", low=0) == 0
    assert check_scalar(np.float64(0.5), "g", low=0, low_inclusive=False) == 0.5
    assert check_scalar(np.int64(3), "d", integer=True, low=1) == 3


def test_numeric_strings_in_object_arrays_are_not_coerced_silently():
    with pytest.raises(TypeError, match="strings"):
        check_vectors(np.array([[1, "2"]], dtype=object))
