"""Kernels on objects that are not vectors: sets, trees, graphs, time series.

Strings have their own kind (``input_kind == "string"``, :mod:`.strings`);
every other non-vector input is a list of *objects* of one **kind** (``"set"``,
``"series"``, ``"tree"``, ``"graph"``, ...). The kind's :class:`ObjectCodec`
checks a user's list and turns it into its canonical form -- a 1-D numpy
object array holding one canonical object per sample -- and writes and reads
those objects in model files as plain arrays and strict JSON (never pickle).
A 1-D object array is what every consumer already handles for strings: it
has ``len``, ``shape[0]`` and ``ndim == 1``, and slices and integer indexing
(``X[r0:r1]``, ``X[support]``) give object arrays again, so the block API,
the solvers, Nystroem and every estimator take these inputs unchanged
(:func:`takes_objects` is the one predicate they ask).

How to add a kernel on objects
------------------------------
1. **The kind.** Use a registered one -- ``"set"`` and ``"series"`` are
   ragged 2-D float arrays (:class:`RaggedArrays`: item i of shape
   (m_i, d), one d for all; a 1-D item is one column), ``"tree"`` is
   :mod:`.trees` -- or register a new one: subclass :class:`ObjectCodec`
   (``check_item``, ``encode``, ``decode``, ``parts``; optionally
   ``check_pair``) and call :func:`register_object_kind` at import of your
   module. Canonical objects must be immutable in practice (read-only arrays,
   tuples): the same object is shared by ``X_fit_`` and the caller's slices.
2. **The kernel.** Subclass :class:`ObjectKernel` with ``input_kind =
   "<kind>"``; store every constructor argument unchanged, declare
   ``_param_constraints`` and call ``self._check_params()`` (as every
   kernel). Implement ``_block(X, Y, diag_offset)`` -> float64 array of shape
   (len(X), len(Y)) and ``_diag(X)`` -> shape (len(X),) on 1-D object arrays
   of canonical objects (any slice of the checked input: a pure function of
   one block). :func:`normalize_block` does the cosine normalisation with an
   exact diagonal, :func:`pairwise_loop` is the plain double loop of a
   function of two objects. A kernel with a kernel parameter on the items
   (``MeanEmbedding(base_kernel)``) overrides ``_resolve_with(objects)`` so
   ``gamma="scale"`` is fixed from the training objects.
3. **Registration.** Add the class to ``kernels/registry.py`` (its name
   and aliases: the repr then reads back) and to ``kernels/__init__.py``.
4. **Tests.** ``kernelkit.testing.check_kernel(kernel, list_of_objects)``
   (symmetry, PSD, diagonal, block API, repr/to_dict round trips), an
   independent brute-force reference, and a KernelSVC / KernelRidge fit saved
   and loaded with ``kernelkit.save`` / ``load`` (model files store the
   training objects through the kind's codec).
"""

from __future__ import annotations

import numpy as np

from .base import Kernel

__all__ = ["ObjectKernel", "ObjectCodec", "RaggedArrays", "register_object_kind",
           "object_codec", "object_kinds", "takes_objects", "object_array", "object_items",
           "normalize_block", "pairwise_loop"]

#: input kinds that are not objects: numeric rows, and kernels taking anything
_NOT_OBJECTS = ("vector", "any")


def takes_objects(kernel):
    """Whether ``kernel`` takes a list of non-vector inputs (strings, sets, trees, ...).

    True for a :class:`Kernel` whose ``input_kind`` is neither ``"vector"``
    nor ``"any"``; False for vector kernels, ``"precomputed"`` and anything
    that is not a Kernel.
    """
    return isinstance(kernel, Kernel) and kernel.input_kind not in _NOT_OBJECTS


def object_array(items):
    """A 1-D numpy object array holding ``items`` (never split into a 2-D array)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):  # element by element: numpy must not broadcast
        out[i] = item
    return out


def object_items(X, name, plural, *, allow_empty=False):
    """The samples of a user's collection as a Python list (not yet checked one by one).

    Takes a list, tuple, 1-D object array, pandas Series, or a numeric array
    of 2 or more dimensions (its first axis indexes the samples: a 3-D array
    (n, m, d) is n items of shape (m, d)).

    Raises
    ------
    TypeError
        For None, a single string, a scipy.sparse matrix or a non-iterable.
    ValueError
        For a 1-D numeric array (one sample, not a list of them) or an empty
        collection.
    """
    if X is None:
        raise TypeError(f"{name} is None; pass a list of {plural} (one per sample)")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} is a single string; this kernel takes a list of {plural}")
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):
        raise TypeError(f"{name} is a scipy.sparse matrix, but this kernel takes a list of "
                        f"{plural} (one per sample)")
    if isinstance(X, dict):
        raise TypeError(f"{name} is a dict; pass a list of {plural} (one per sample)")
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame: rows are not objects
        raise TypeError(f"{name} is a table (DataFrame of shape {X.shape}); pass a list of "
                        f"{plural}, e.g. a column: {name}['col'].tolist()")
    if isinstance(X, np.ndarray):
        if X.dtype != object and X.ndim < 2:
            raise ValueError(f"{name} is a {X.ndim}-D array of shape {X.shape}: that is one "
                             f"sample at most; pass a list of {plural}, e.g. [{name}]")
        if X.dtype == object and X.ndim != 1:
            raise ValueError(f"{name} is an object array of shape {X.shape}; pass a 1-D "
                             f"list of {plural}")
        items = list(X)
    elif hasattr(X, "tolist") and not isinstance(X, (list, tuple)):  # pandas Series
        items = list(X.tolist())
    else:
        try:
            items = list(X)
        except TypeError:
            raise TypeError(f"{name} must be a list of {plural}, got "
                            f"{type(X).__name__}") from None
    if not items and not allow_empty:
        raise ValueError(f"{name} is empty (0 {plural}); at least one sample is required")
    return items


class ObjectCodec:
    """What one kind of objects needs: checking, canonical form, and model-file form.

    Subclasses set ``kind`` (the ``input_kind`` of their kernels),
    ``noun`` and ``plural`` (for messages), and implement:

    - ``check_item(item, where)``: the canonical object of one sample, or a
      ``TypeError``/``ValueError`` whose message starts with ``where``
      (``"X[3]"``) and says what is wrong and what to pass instead;
    - ``parts``: ``{part: (dtype name, ndim)}`` of the arrays ``encode`` writes;
    - ``encode(objects) -> (arrays, info)``: ``{part: ndarray}`` and a small
      JSON-ready dict (numbers, strings, lists);
    - ``decode(arrays, info, n) -> list``: the n canonical objects back,
      raising ``ValueError`` when the arrays are inconsistent (model files
      report it as a corrupt file; their sizes were checked before reading);
    - optionally ``check_items(items, name)`` (checks across samples, e.g. one
      dimension for all) and ``check_pair(X, Y)`` (X and Y compatible).
    """

    kind = None
    noun, plural = "object", "objects"
    parts: dict = {}

    def check(self, X, name="X", *, allow_empty=False):
        """Validate a user's collection: the canonical 1-D object array."""
        if isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 1 and \
                getattr(self, "_is_canonical", None) is not None and self._is_canonical(X):
            return X
        items = object_items(X, name, self.plural, allow_empty=allow_empty)
        items = [self.check_item(item, f"{name}[{i}]") for i, item in enumerate(items)]
        self.check_items(items, name)
        return object_array(items)

    def check_item(self, item, where):
        raise NotImplementedError

    def check_items(self, items, name):
        """Checks across the samples of one collection (default: none)."""

    def check_pair(self, X, Y):
        """Refuse an X and Y that cannot be compared (default: any two are fine)."""

    def encode(self, objects):
        raise NotImplementedError

    def decode(self, arrays, info, n):
        raise NotImplementedError


_CODECS: dict = {}


def register_object_kind(codec):
    """Register an :class:`ObjectCodec` instance under its ``kind``; returns it."""
    if not isinstance(codec, ObjectCodec) or not isinstance(codec.kind, str) or \
            codec.kind in _NOT_OBJECTS + ("string",):
        raise ValueError(f"cannot register {codec!r} as a kind of objects")
    _CODECS[codec.kind] = codec
    return codec


def object_codec(kind):
    """The codec of a registered kind of objects.

    Raises
    ------
    ValueError
        For a kind nobody registered.
    """
    try:
        return _CODECS[kind]
    except KeyError:
        raise ValueError(f"no kind of objects {kind!r} is registered (known: "
                         f"{', '.join(sorted(_CODECS))})") from None


def object_kinds():
    """The registered kinds of objects, sorted."""
    return sorted(_CODECS)


class RaggedArrays(ObjectCodec):
    """Objects that are 2-D float arrays of one width and any number of rows.

    Sets of points (``kind="set"``: row = point) and multivariate time series
    (``kind="series"``: row = time step). An item may be a 2-D array-like
    (m_i, d) or a 1-D one (m_i scalars: one column); a 2-D numeric array X of
    shape (n, m) is n items of m scalars, a 3-D one (n, m, d) n items of
    shape (m, d). Canonical items are read-only C-contiguous float64 arrays
    with at least one row, all with the same d, all finite.

    In model files: ``values`` (sum m_i, d) float64 and ``offsets`` (n + 1,)
    int64, item i being ``values[offsets[i]:offsets[i + 1]]``.
    """

    parts = {"values": ("float64", 2), "offsets": ("int64", 1)}

    def __init__(self, kind, noun, plural, row_noun):
        self.kind, self.noun, self.plural, self.row_noun = kind, noun, plural, row_noun

    def __repr__(self):
        return f"RaggedArrays(kind={self.kind!r})"

    def _is_canonical(self, X):
        """Already checked: read-only 2-D float64 items (what check_item makes), one width,
        non-empty and finite (a user's read-only arrays are checked, never trusted)."""
        return len(X) > 0 and all(
            isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 2
            and not a.flags.writeable and a.shape[0] > 0 and a.flags.c_contiguous
            for a in X) and len({a.shape[1] for a in X}) == 1 and \
            all(np.isfinite(a).all() for a in X)

    def check_item(self, item, where):
        if isinstance(item, (str, bytes)) or item is None or isinstance(item, dict):
            raise TypeError(f"{where} is {type(item).__name__}; each sample must be a "
                            f"{self.noun}: a 2-D array of numbers (n_{self.row_noun}s, "
                            "n_features), or a 1-D array of scalars")
        if hasattr(item, "tocsr") and hasattr(item, "nnz"):
            item = item.toarray()
        try:
            a = np.asarray(item)
        except ValueError:
            raise ValueError(f"{where} is ragged (its rows differ in length); each "
                             f"{self.row_noun} of a {self.noun} needs the same number of "
                             "features") from None
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{where} holds {a.dtype} values, not numbers; each "
                            f"{self.row_noun} of a {self.noun} is a row of numbers")
        if a.ndim == 1:
            a = a[:, None]
        if a.ndim != 2:
            raise ValueError(f"{where} has shape {a.shape}; a {self.noun} is a 2-D array "
                             f"(n_{self.row_noun}s, n_features) or 1-D (scalars)")
        if a.shape[0] == 0:
            raise ValueError(f"{where} is an empty {self.noun} (0 {self.row_noun}s); every "
                             f"sample needs at least one {self.row_noun}")
        if a.shape[1] == 0:
            raise ValueError(f"{where} has 0 features")
        a = np.array(a, dtype=np.float64, order="C")  # a copy: the caller's array may change
        if not np.isfinite(a).all():
            r, c = np.argwhere(~np.isfinite(a))[0]
            raise ValueError(f"{where} holds {a[r, c]} at {self.row_noun} {r}, feature {c}; "
                             "values must be finite (impute or drop them first)")
        a.flags.writeable = False
        return a

    def check_items(self, items, name):
        if not items:
            return
        d = items[0].shape[1]
        bad = next((i for i, a in enumerate(items) if a.shape[1] != d), None)
        if bad is not None:
            raise ValueError(f"{name}[{bad}] has {items[bad].shape[1]} features but "
                             f"{name}[0] has {d}; every {self.row_noun} of every {self.noun} "
                             "needs the same number of features")

    def check_pair(self, X, Y):
        if len(X) and len(Y) and X[0].shape[1] != Y[0].shape[1]:
            raise ValueError(f"X's {self.plural} have {X[0].shape[1]} features per "
                             f"{self.row_noun} and Y's {Y[0].shape[1]}; both must have the "
                             "same number (the one the model was fitted on)")

    def encode(self, objects):
        d = objects[0].shape[1] if len(objects) else 0
        offsets = np.zeros(len(objects) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([a.shape[0] for a in objects])
        values = (np.concatenate(list(objects), axis=0) if len(objects)
                  else np.zeros((0, d)))
        return ({"values": np.ascontiguousarray(values, dtype=np.float64),
                 "offsets": offsets}, {"n_features": int(d)})

    def decode(self, arrays, info, n):
        values, offsets = arrays["values"], arrays["offsets"]
        d = info.get("n_features") if isinstance(info, dict) else None
        if not isinstance(d, int) or isinstance(d, bool) or values.shape[1] != d:
            raise ValueError(f"values have {values.shape[1]} columns, info says {d!r}")
        if offsets.shape != (n + 1,) or offsets[0] != 0 or offsets[-1] != values.shape[0] \
                or (np.diff(offsets) <= 0).any():
            raise ValueError(f"offsets must rise strictly from 0 to {values.shape[0]} in "
                             f"{n + 1} steps (every {self.noun} non-empty)")
        items = []
        for i in range(n):
            a = np.array(values[offsets[i]:offsets[i + 1]], dtype=np.float64, order="C")
            a.flags.writeable = False
            items.append(a)
        return items


SETS = register_object_kind(RaggedArrays("set", "set of points", "sets of points", "point"))
SERIES = register_object_kind(RaggedArrays("series", "time series", "time series",
                                           "time step"))


class ObjectKernel(Kernel):
    """Base class of kernels on objects (sets, trees, graphs, series); see the module.

    Subclasses set ``input_kind`` to a registered kind and implement
    ``_block(X, Y, diag_offset)`` and ``_diag(X)`` on 1-D object arrays of
    canonical objects. Checking, the block API, estimators and model files
    come from here and from the kind's :class:`ObjectCodec`.

    Examples
    --------
    A (toy) kernel on sets of points, ``k(A, B) = |A| |B|``: the sets arrive
    checked, as read-only float64 arrays of shape (m_i, d).

    >>> import numpy as np
    >>> from kernelkit.kernels import ObjectKernel
    >>> class SetSizes(ObjectKernel):
    ...     input_kind = "set"
    ...     def _block(self, X, Y, diag_offset):
    ...         return np.array([[float(len(a) * len(b)) for b in Y] for a in X])
    ...     def _diag(self, X):
    ...         return np.array([float(len(a)) ** 2 for a in X])
    >>> SetSizes()([np.zeros((2, 3)), [[1.0, 2.0, 3.0]]])
    array([[4., 2.],
           [2., 1.]])
    """

    input_kind = None  # a registered kind: "set", "series", "tree", "graph", ...

    @property
    def codec(self):
        """The :class:`ObjectCodec` of this kernel's kind."""
        return object_codec(self.input_kind)

    def check_input(self, X, name="X"):
        """Validate a list of objects: their canonical 1-D object array.

        Raises
        ------
        TypeError, ValueError
            Naming the first bad item (``X[3] ...``) and what to pass instead.
        """
        return self.codec.check(X, name)

    def _prepare(self, X, Y):
        if Y is not X:
            self.codec.check_pair(X, Y)
        return X, Y

    def spectral_density(self):
        raise ValueError(
            f"{self!r} is a kernel on {self.codec.plural}: random Fourier features need a "
            "shift-invariant kernel on numeric vectors; approximate it with "
            "kernelkit.features.Nystroem instead")


def normalize_block(out, dx, dy, diag_offset=-1):
    """``out[i, j] /= sqrt(dx_i dy_j)`` in place: the cosine normalisation of a block.

    0 where an object has the zero feature vector (``dx_i == 0``); with
    ``diag_offset >= 0`` the diagonal entries of a symmetric Gram matrix are
    set to exactly 1 (or 0 for a zero feature vector).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        sx = np.where(dx > 0, 1.0 / np.sqrt(np.maximum(dx, 0)), 0.0)
        sy = np.where(dy > 0, 1.0 / np.sqrt(np.maximum(dy, 0)), 0.0)
    out *= sx[:, None]
    out *= sy[None, :]
    if diag_offset >= 0:
        i = np.arange(max(0, min(len(dx), out.shape[1] - diag_offset)))
        out[i, i + diag_offset] = (dx[i] > 0).astype(np.float64)
    return out


def pairwise_loop(pair, X, Y, diag_offset=-1):
    """The block ``[pair(x, y) for y in Y] for x in X`` as float64, by a plain double loop.

    With ``diag_offset >= 0`` (X is ``Y[diag_offset:diag_offset + len(X)]``)
    the entries of the mirrored part are computed once.
    """
    out = np.empty((len(X), len(Y)))
    for i, x in enumerate(X):
        for j, y in enumerate(Y):
            jj = j - diag_offset if diag_offset >= 0 else -1
            if 0 <= jj < i:  # symmetric Gram matrix: already computed at (jj, i + off)
                out[i, j] = out[jj, i + diag_offset]
            else:
                out[i, j] = float(pair(x, y))
    return out

