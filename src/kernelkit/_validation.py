"""One place that checks input arrays: shapes, dtypes, NaN/inf, strings.

Every error names the argument, says what is wrong and how to fix it.
Nothing is coerced silently: integers and booleans become float64 (exact for
the values kernels see), float32 stays float32, anything else is an error.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_vectors",
    "check_same_n_features",
    "check_scalar",
    "check_finite",
    "looks_like_strings",
    "check_strings",
]


def looks_like_strings(X) -> bool:
    """True when ``X`` is a str, a sequence whose first element is a str, or a str array."""
    if isinstance(X, (str, bytes)):
        return True
    if isinstance(X, np.ndarray):
        if X.dtype.kind in "USO" and X.size:
            first = X.flat[0]
            return isinstance(first, (str, bytes, np.str_))
        return X.dtype.kind in "US"
    if isinstance(X, (list, tuple)) and len(X):
        first = X[0]
        if isinstance(first, (list, tuple)) and len(first):
            first = first[0]
        return isinstance(first, (str, bytes, np.str_))
    return False


def check_finite(A, name="X") -> None:
    """Raise ``ValueError`` naming the first NaN/inf entry of ``A``, if any."""
    if A.dtype.kind == "f" and not np.isfinite(A).all():
        bad = ~np.isfinite(A)
        idx = np.argwhere(bad)[0]
        kind = "NaN" if np.isnan(A[tuple(idx)]) else "infinity"
        where = ", ".join(f"{ax}={i}" for ax, i in zip(("row", "column"), idx))
        raise ValueError(
            f"{name} contains NaN or infinity ({int(bad.sum())} values; first is {kind} at {where}). "
            "Remove or impute them first, e.g. with sklearn.impute.SimpleImputer.")


def check_vectors(X, name="X", *, allow_empty=False):
    """Validate a 2-D array of numeric feature vectors.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input. Lists, numpy arrays and objects with ``__array__`` are accepted.
    name : str, default="X"
        Name used in error messages.
    allow_empty : bool, default=False
        Accept ``n_samples == 0``.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        C-contiguous float64 array, or float32 if the input was float32.

    Raises
    ------
    TypeError
        For strings, sparse matrices or non-numeric objects.
    ValueError
        For complex numbers, a wrong number of dimensions, empty input or NaN/inf.
    """
    if X is None:
        raise TypeError(f"{name} is None; pass an array of shape (n_samples, n_features)")
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        raise TypeError(
            f"{name} is a sparse matrix; kernelkit's vector kernels need a dense array. "
            f"Use {name}.toarray() if it fits in memory, or an explicit feature map.")
    if looks_like_strings(X):
        raise TypeError(
            f"{name} contains strings; this kernel works on numeric vectors. "
            "For text or sequences use a string kernel, or encode the strings as numbers first.")
    try:
        A = np.asarray(X)
    except Exception as exc:  # ragged lists and similar
        raise ValueError(f"{name} cannot be read as a 2-D numeric array: {exc}") from None
    if A.dtype.kind == "c":
        raise ValueError(f"Complex data not supported in {name}; pass the real part or "
                         "split real and imaginary parts into separate features.")
    if A.dtype.kind == "O":
        if any(isinstance(v, (str, bytes)) for v in A.flat):
            raise TypeError(f"{name} has non-numeric entries: it mixes strings and numbers "
                            "(dtype object); kernelkit does not convert strings to numbers "
                            "silently: convert them first")
        try:
            A = A.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} has non-numeric entries (dtype object): {exc}; "
                            "kernelkit expects numbers") from None
    elif A.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {A.dtype}; kernelkit expects numbers")
    if A.ndim != 2:
        if A.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got 1-D of shape {A.shape}. "
                f"Reshape your data: {name}.reshape(-1, 1) for one feature, "
                f"{name}.reshape(1, -1) for one sample.")
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got shape {A.shape}")
    if A.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty (0 samples); at least one sample is required")
    if A.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={A.shape}) while a minimum of 1 is "
                         "required.")
    dtype = np.float32 if A.dtype == np.float32 else np.float64
    A = np.ascontiguousarray(A, dtype=dtype)
    check_finite(A, name)
    return A


def check_same_n_features(X, Y, names=("X", "Y")) -> None:
    """Raise ``ValueError`` when two arrays have different numbers of features."""
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{names[0]} has {X.shape[1]} features but {names[1]} has {Y.shape[1]}; "
            "both must describe samples with the same features")


def check_scalar(value, name, *, low=None, high=None, low_inclusive=True, integer=False,
                 allow_none=False):
    """Check a numeric hyperparameter and return it unchanged.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Its name, for the message.
    low, high : float, optional
        Bounds.
    low_inclusive : bool, default=True
        Whether ``value == low`` is allowed.
    integer : bool, default=False
        Require an integer.
    allow_none : bool, default=False
        Accept ``None``.
    """
    if value is None and allow_none:
        return value
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(f"{name} must be {'an integer' if integer else 'a real number'}, "
                        f"got {value!r} of type {type(value).__name__}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and (value < low or (value == low and not low_inclusive)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {op} {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value!r}")
    return value


def check_strings(X, name="X", *, allow_empty=False):
    """Validate a collection of strings (the input of string kernels).

    Parameters
    ----------
    X : list, tuple or 1-D array of str
        Also a pandas Series or an object array holding only ``str``.
    name : str, default="X"
        Name used in error messages.
    allow_empty : bool, default=False
        Accept 0 strings.

    Returns
    -------
    ndarray of shape (n_samples,)
        A fixed-width unicode (``"<U"``) array: compact, sliceable, and what model
        files store (never an object array). Like every ``"<U"`` array it
        drops trailing NUL characters (``"ab\\x00"`` becomes ``"ab"``).

    Raises
    ------
    TypeError
        For numbers, bytes, None or a mix of strings and other objects.
    ValueError
        For a 2-D array or empty input.
    """
    if X is None:
        raise TypeError(f"{name} is None; pass a list or 1-D array of strings")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} is a single string; pass a list of strings, e.g. [{name}]")
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        raise TypeError(f"{name} is a sparse matrix, but this kernel works on strings; pass a "
                        "list or 1-D array of str")
    if isinstance(X, np.ndarray) and X.dtype.kind == "U":
        A = items = X
    else:
        items = X.tolist() if isinstance(X, np.ndarray) else X
        try:
            items = list(items)
        except TypeError:
            raise TypeError(f"{name} must be a list or 1-D array of strings, got "
                            f"{type(X).__name__}") from None
        if isinstance(X, np.ndarray) and X.ndim != 1:
            items = None
        else:
            bad = next((v for v in items if not isinstance(v, (str, np.str_))), _NOTHING)
            if isinstance(bad, (list, tuple, np.ndarray)):
                items = None  # rows of a table: reported with the shape below
            elif bad is not _NOTHING:
                if isinstance(bad, (bytes, np.bytes_)):
                    raise TypeError(f"{name} holds bytes ({bad[:20]!r}); decode them to str "
                                    f"first, e.g. [b.decode('utf-8') for b in {name}]")
                kind = ("numbers" if isinstance(bad, numbers.Number) and not isinstance(bad, bool)
                        else type(bad).__name__)
                mixed = any(isinstance(v, (str, np.str_)) for v in items)
                what = f"mixes strings and {kind}" if mixed else f"holds {kind}, not strings"
                raise TypeError(
                    f"{name} {what} (e.g. {bad!r}); this kernel works on strings. "
                    + ("Convert every entry to str, or drop the others." if mixed else
                       "Use a vector kernel (e.g. 'rbf') for numeric data."))
            if items is not None:
                A = np.array(items, dtype=str) if items else np.array([], dtype="<U1")
    if items is None or A.ndim != 1:
        shape = np.shape(X)
        raise ValueError(
            f"{name} must be a 1-D collection of strings (one string per sample), got shape "
            f"{shape}. This kernel works on strings: numeric feature arrays need a vector "
            "kernel, and a column of strings can be flattened with .ravel()")
    if A.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty (0 strings); at least one sample is required")
    return A


_NOTHING = object()
