"""One place that checks inputs and hyperparameters.

Input arrays: shapes, dtypes, NaN/inf, strings. Every error names the
argument, says what is wrong and how to fix it. Nothing is coerced silently:
integers and booleans become float64 (exact for the values kernels see),
float32 stays float32, anything else is an error.

Hyperparameters: every public estimator, transformer and kernel declares
``_param_constraints`` (:class:`Interval`, :class:`Options`, types and
named specs; a list means "any of") and :func:`validate_params` checks them,
raising :class:`~kernelkit.exceptions.InvalidParameterError` with one wording.
The attribute is not scikit-learn's ``_parameter_constraints``: its estimator
checks read that name and expect scikit-learn's private constraint classes.
"""

from __future__ import annotations

import numbers

import numpy as np

from .exceptions import InvalidParameterError, NonFiniteKernelError

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


# ---- declared hyperparameter constraints ------------------------------------------------
# scikit-learn's declarative validator (sklearn.utils._param_validation) is private API,
# so kernelkit keeps its own: a few constraint kinds, one check, one error class.
# It lives beside the input checks (ARCHITECTURE.md: one place that checks inputs and
# declared parameters), which takes this module past 500 lines (about 640, with the
# finiteness checks of kernel values).

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
