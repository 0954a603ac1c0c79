"""One place that checks inputs and hyperparameters.

Input arrays: shapes, dtypes, NaN/inf, strings. Every error names the
argument, says what is wrong and how to fix it. Nothing is coerced silently:
integers and booleans become float64 (exact for the values kernels see),
float32 stays float32, anything else is an error.

Hyperparameters: every public estimator, transformer and kernel declares
``_param_constraints`` (:class:`Interval`, :class:`Options`, types and
named specs; a list means "any of") and :func:`validate_params` checks them,
raising :class:`~kernelkit.exceptions.InvalidParameterError` with one wording.
Those constraints live in :mod:`kernelkit._constraints` and are re-exported here,
so ``from kernelkit._validation import Interval, validate_params`` keeps working.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._constraints import (HasMethods, Interval, Options, check_params, describe_constraints,
                           validate_params)
from .exceptions import NonFiniteKernelError

__all__ = [
    "Interval",
    "Options",
    "HasMethods",
    "validate_params",
    "check_params",
    "describe_constraints",
    "check_vectors",
    "check_sparse_vectors",
    "check_same_n_features",
    "check_scalar",
    "check_finite",
    "all_finite",
    "check_kernel_values",
    "looks_like_strings",
    "n_rows",
    "check_strings",
]


def n_rows(X) -> int:
    """Number of rows (samples) of an array, a scipy.sparse matrix or a list of strings.

    scipy.sparse refuses ``len``; this is the one spelling that takes all three.
    """
    return X.shape[0] if hasattr(X, "shape") else len(X)


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


def all_finite(A) -> bool:
    """Whether every entry of the float array ``A`` is finite, without a temporary.

    One summing pass (no boolean array the size of ``A``): a finite sum
    proves every entry finite, since inf and NaN propagate through sums; only
    a non-finite sum (a non-finite entry, or finite ones whose sum overflows)
    pays for the elementwise test.
    """
    if A.size == 0:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(A, axis=None)
    return bool(np.isfinite(total) or np.isfinite(A).all())


def _largest_magnitude(inputs):
    """The largest |value| among numeric input arrays, or None if there is none."""
    largest = None
    for A in inputs:
        if isinstance(A, np.ndarray) and A.dtype.kind in "biuf" and A.size:
            m = float(np.abs(A).max())
            largest = m if largest is None else max(largest, m)
    return largest


def check_kernel_values(values, source, inputs=()):
    """Raise :class:`~kernelkit.exceptions.NonFiniteKernelError` if ``values`` hold NaN or inf.

    The one check of kernel blocks (``Kernel.block``) and feature-map outputs:
    inputs are validated finite, so a non-finite value means that the inputs'
    scale overflowed float64 in the computation, and the message says so and
    how to fix it.

    Parameters
    ----------
    values : ndarray
        Kernel values or features.
    source : str
        What computed them, e.g. ``"RBF(gamma=0.5)"`` or
        ``"RandomFourierFeatures.transform"``.
    inputs : sequence of ndarray, default=()
        The arrays they were computed from (their largest magnitude is
        reported; only read when raising).
    """
    if all_finite(values):
        return
    largest = _largest_magnitude(inputs)
    dtype = np.dtype(np.float32 if values.dtype == np.float32 else np.float64)
    top = float(np.finfo(dtype).max)
    if largest is None:
        cause = (f"its values overflow {dtype} for these inputs and parameters (e.g. very "
                 "long strings or a large scale)")
        fix = "Use smaller kernel parameters, or normalise the kernel"
    elif largest >= top ** (1 / 3):
        cause = (f"the inputs' scale overflows {dtype} in the kernel (the largest |value| in "
                 f"the inputs is {largest:.3g}; squared norms and inner products of rows that "
                 f"large exceed {dtype}'s largest number, about {top:.2g})")
        fix = ("Standardise the columns first, e.g. with sklearn.preprocessing.StandardScaler "
               "(or divide the data by a constant)")
    else:
        cause = (f"its values exceed {dtype}'s range at these inputs' scale (largest |value| "
                 f"{largest:.3g}) with these parameters")
        fix = ("Standardise the columns first, e.g. with sklearn.preprocessing.StandardScaler, "
               "or use smaller kernel parameters (gamma, degree, scale)")
    raise NonFiniteKernelError(f"{source} gave non-finite values (inf or NaN): {cause}. {fix}.")


def check_vectors(X, name="X", *, allow_empty=False, accept_sparse=False):
    """Validate a 2-D array of numeric feature vectors.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input. Lists, numpy arrays and objects with ``__array__`` are accepted.
    name : str, default="X"
        Name used in error messages.
    allow_empty : bool, default=False
        Accept ``n_samples == 0``.
    accept_sparse : bool, default=False
        Accept scipy.sparse matrices and arrays (any format); they are
        returned as canonical CSR (see :func:`check_sparse_vectors`).

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        C-contiguous float64 array, or float32 if the input was float32
        (CSR of the same dtypes for accepted sparse input).

    Raises
    ------
    TypeError
        For strings, sparse matrices (unless accepted) or non-numeric objects.
    ValueError
        For complex numbers, a wrong number of dimensions, empty input or NaN/inf.
    """
    if X is None:
        raise TypeError(f"{name} is None; pass an array of shape (n_samples, n_features)")
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        if accept_sparse:
            return check_sparse_vectors(X, name, allow_empty=allow_empty)
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


def check_sparse_vectors(X, name="X", *, allow_empty=False):
    """Validate a scipy.sparse matrix of feature vectors; return canonical CSR.

    Canonical: CSR (``csr_matrix`` or ``csr_array``, the kind given), values
    float64 (float32 kept), sorted column indices without duplicates (summed,
    as scipy does), finite stored values. The input is not modified: a copy
    is made when anything changes. Nothing is densified.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    name : str, default="X"
    allow_empty : bool, default=False

    Returns
    -------
    scipy.sparse CSR matrix or array

    Raises
    ------
    TypeError
        For non-numeric values.
    ValueError
        For complex values, a wrong shape, empty input or NaN/inf.
    """
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got a sparse "
                         f"array of shape {X.shape}")
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported in {name}; pass the real part or "
                         "split real and imaginary parts into separate features.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {X.dtype}; kernelkit expects numbers")
    if X.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty (0 samples); at least one sample is required")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                         "required.")
    given = X
    if hasattr(X, "check_format"):  # CSR / CSC / BSR: scipy builds them without full checks
        try:  # indices past shape[1] would make compiled loops read out of bounds
            X.check_format(full_check=True)
        except ValueError as exc:
            raise ValueError(
                f"{name} is a malformed sparse {X.format.upper()} matrix ({exc}); build it "
                "from valid (data, indices, indptr) for its shape, e.g. check it with "
                "X.check_format(full_check=True)") from None
    A = X.tocsr() if X.format != "csr" else X
    dtype = np.float32 if A.dtype == np.float32 else np.float64
    if A.dtype != dtype:
        A = A.astype(dtype)
    if not A.has_canonical_format:
        A = A.copy() if A is given else A
        A.sum_duplicates()  # sorts the indices too
    if not np.isfinite(A.data).all():
        bad = np.flatnonzero(~np.isfinite(A.data))
        row = int(np.searchsorted(A.indptr, bad[0], side="right") - 1)
        col = int(A.indices[bad[0]])
        kind = "NaN" if np.isnan(A.data[bad[0]]) else "infinity"
        raise ValueError(
            f"{name} contains NaN or infinity ({len(bad)} stored values; first is {kind} at "
            f"row={row}, column={col}). Remove or impute them first.")
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
        For a 2-D array, empty input, or a lone surrogate (``"\\ud800"``), which
        is not a character and cannot be encoded.
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
    _check_no_surrogates(A, name)
    return A


_NOTHING = object()
_SURROGATES = (0xD800, 0xE000)  # U+D800..U+DFFF: halves of UTF-16 pairs, not characters


def _check_no_surrogates(A, name):
    """Refuse lone surrogates: no codec (the string kernels', model files') can encode them."""
    width = A.dtype.itemsize // 4
    if A.size == 0 or width == 0:
        return
    codes = np.ascontiguousarray(A).view(np.uint32).reshape(len(A), width)
    step = max(1, (1 << 20) // width)  # rows per pass: about 4 MiB of codes
    for r0 in range(0, len(A), step):
        block = codes[r0:r0 + step]
        bad = (block - np.uint32(_SURROGATES[0])) < np.uint32(_SURROGATES[1] - _SURROGATES[0])
        if bad.any():
            i, pos = (int(v) for v in np.argwhere(bad)[0])
            i += r0
            raise ValueError(
                f"{name}[{i}] holds a lone surrogate (U+{int(codes[i, pos]):04X}) at position "
                f"{pos}: it is half of a UTF-16 pair, not a character, and cannot be encoded "
                "(it usually comes from decoding bytes with errors='surrogateescape'). Fix the "
                "decoding, or replace such characters, e.g. "
                "s.encode('utf-8', 'replace').decode('utf-8')")
