"""The kernel abstraction: parameters, validation, blocking and the algebra's operators.

A kernel is a small value object. Its hyperparameters are constructor
arguments stored unchanged, so ``get_params``, ``set_params``, equality, the
``repr`` and the JSON form all derive from the constructor signature (as in
scikit-learn's estimators and Gaussian-process kernels). The public
``__call__`` validates and blocks once; a subclass implements only
``_block(X, Y, diag_offset)`` and ``_diag(X)`` on validated float64 arrays.

Everything inside kernelkit that needs kernel values (``gram``, the Gram
operator, the solvers) goes through the public **block API** of
:class:`Kernel` -- :meth:`Kernel.prepare`, :meth:`Kernel.block`,
:meth:`Kernel.diag_prepared` -- or the :class:`~kernelkit.kernels.KernelRows`
object built on it, never through the private hooks. The block API is also
the one place where kernel values are checked finite: a block with inf or NaN
raises :class:`~kernelkit.exceptions.NonFiniteKernelError`, unless the
kernel's :meth:`Kernel.value_bound` proves every value finite beforehand (then
no pass over the block is spent on it).

Why this module is long: the :class:`Kernel` base class is the one contract
that every kernel and every consumer shares -- declared parameters and
``set_params``, the block API (``prepare``, ``block``, ``diag_prepared``) with
its single finiteness check, data-dependent widths fixed by ``resolve``, the
operators of the algebra and the JSON form -- and a subclass author reads it
top to bottom to learn which hooks to write. Its methods are short; cutting the
class into mixins over several files would scatter that contract without making
any part simpler.

The operators (``k1 + k2``, ``2 * k``, ``k / 2``, ``k ** 2``, ``k + 1.0``) build
nodes -- ``Sum``, ``Product``, ``Scaled``, ``Power`` and ``Constant`` -- that are
themselves subclasses of :class:`Kernel`, so they live above this module
(:mod:`.algebra`, :mod:`.vector`) and cannot be imported from here without a
circle. Instead :mod:`.algebra` hands those classes to
:func:`register_algebra_nodes` when it is imported, and the operators look them up
there. ``kernels/__init__`` imports :mod:`.algebra` first, and Python runs that
``__init__`` before any module of the package (this one included), so the table is
full before any kernel exists; if it ever were not, the operator raises a
RuntimeError naming the missing import instead of failing obscurely. The imports
run one way (nodes -> base), and :class:`Kernel` stays one class defined here, with
its operators as plain methods: subclasses, ``isinstance`` checks, ``repr``,
``get_params``, pickles and model files are unchanged. (A mixin of operators defined
in :mod:`.algebra`, with the public ``Kernel`` assembled there, would also break the
circle, but every kernel module would then import ``Kernel`` from the module of the
composite nodes, and ``Kernel``'s contract would be read in two files.)
"""

from __future__ import annotations

import inspect
import math
import numbers

import numpy as np

from .. import config
from .._budget import row_blocks, rows_per_block
from .._validation import (check_kernel_values, check_same_n_features, check_vectors,
                           validate_params)
from ._sparse import as_float64_csr, is_sparse, n_rows, sparse_max_abs
from .data_dependent import InputScale, rule_value
from .rows import KernelRows, certainly_finite

__all__ = ["Kernel", "KernelRows", "pairwise_blocked", "certainly_finite", "max_abs",
           "bounded_power", "check_sparse_support", "check_resolved", "register_algebra_nodes"]

#: What the operators of :class:`Kernel` build, by name: filled once by
#: :mod:`kernelkit.kernels.algebra` at import (see the module docstring).
_ALGEBRA_NODES: dict = {}
#: The names :func:`register_algebra_nodes` takes, all of them at once.
ALGEBRA_NODE_NAMES = ("Sum", "Product", "Scaled", "Power", "Constant")

def register_algebra_nodes(**nodes):
    """Give the operators of :class:`Kernel` the node classes they build.

    Called once by :mod:`kernelkit.kernels.algebra` when it is imported (the
    operators' classes subclass :class:`Kernel`, so this module cannot import them).

    Parameters
    ----------
    **nodes : type
        Exactly the names of :data:`ALGEBRA_NODE_NAMES`: ``Sum`` (``k1 + k2``),
        ``Product`` (``k1 * k2``), ``Scaled`` (``c * k``, ``k / c``), ``Power``
        (``k ** p``) and ``Constant`` (``k + c`` is ``Sum(k, Constant(value=c))``).

    Raises
    ------
    TypeError
        If a name is missing or unknown, or a value is not a subclass of Kernel.
    """
    missing = [name for name in ALGEBRA_NODE_NAMES if name not in nodes]
    unknown = sorted(set(nodes) - set(ALGEBRA_NODE_NAMES))
    if missing or unknown:
        raise TypeError(f"register_algebra_nodes takes exactly {list(ALGEBRA_NODE_NAMES)}; "
                        f"missing {missing}, unknown {unknown}")
    for name, cls in nodes.items():
        if not (isinstance(cls, type) and issubclass(cls, Kernel)):
            raise TypeError(f"register_algebra_nodes: {name} must be a subclass of Kernel, "
                            f"got {cls!r}")
    _ALGEBRA_NODES.update(nodes)


def _algebra_node(name):
    try:
        return _ALGEBRA_NODES[name]
    except KeyError:
        raise RuntimeError(
            f"the kernel algebra is not loaded, so the operator has no {name} to build: "
            "import kernelkit.kernels (its __init__ imports kernelkit.kernels.algebra, "
            "which registers the nodes)") from None


def check_resolved(kernel, *, deep=False):
    """Raise ValueError if ``kernel`` (and with ``deep`` its sub-kernels) holds a gamma rule.

    The deep walk is iterative (sums of thousands of terms, no recursion) and
    runs once per :meth:`Kernel.prepare`; :meth:`Kernel.block` checks the
    kernel's own parameters only. The rules themselves are
    :mod:`kernelkit.kernels.data_dependent`'s.
    """
    stack = [kernel]
    while stack:
        k = stack.pop()
        names = list(k._rule_params())
        if names:
            name = names[0]
            raise ValueError(
                f"{k!r}: {name}={getattr(k, name)!r} depends on the training data, so this "
                "kernel cannot compute values here yet. Estimators resolve it in fit (the fitted "
                "kernel is their kernel_) and k(X, Y) resolves it on X; for the block API, "
                f"spectral densities and K(X_test, X_train), call kernel.resolve(X_train) "
                f"first, or pass a number ({name}=0.5)")
        if deep:
            stack.extend(v for v in vars(k).values() if isinstance(v, Kernel))


def max_abs(X):
    """The largest |value| of a numeric array (0 for an empty one), without a temporary."""
    if is_sparse(X):
        return sparse_max_abs(X)
    if X.size == 0:
        return 0.0
    return max(float(X.max()), -float(X.min()))


def bounded_power(base, exponent):
    """``base ** exponent`` for base >= 0, inf instead of OverflowError."""
    if base <= 1.0:
        return float(base) ** exponent
    if exponent * math.log(base) > 700.0:  # beyond float64's range (exp(709.8))
        return math.inf
    return float(base) ** exponent


def check_sparse_support(kernel, X, name="X"):
    """Refuse a scipy.sparse input for a kernel whose blocks cannot take it.

    Raises
    ------
    TypeError
        ``"kernel ... does not take sparse input; ..."`` with what to do.
    """
    if is_sparse(X) and not kernel.accepts_sparse:
        raise TypeError(
            f"kernel {kernel!r} does not take sparse input; {name} is a scipy.sparse "
            f"{getattr(X, 'format', '')} matrix of shape {X.shape}. Sparse input is taken by "
            "the linear, polynomial, RBF, Laplacian, Cauchy, sigmoid and constant kernels "
            "and their sums, products, scalings and powers; use one of those, or pass "
            f"{name}.toarray() if the dense array fits in memory")


def pairwise_blocked(kernel, X, Y=None, on_block=None, out=None):
    """Kernel matrix ``K[i, j] = k(X[i], Y[j])`` computed in row blocks.

    ``X`` and ``Y`` must already be validated for ``kernel``. Numbers are
    computed in float64; the result is float64 unless the dtype policy is
    ``"float32"`` and both inputs are float32. Each block is written straight
    into the result (no block-sized copy). When ``Y is None`` only the lower
    triangle is computed -- half the matrix products and elementwise work --
    and mirrored; the kernel is told which entries are diagonal, so distance
    kernels make them exact. ``on_block(rows_done, n_rows)``, if given, is
    called after each block (the caller's progress; numerics never print).
    ``out``, if given, is a C-contiguous array of the result's shape and dtype
    written into (a warm buffer reused across fits: no fresh-page faults).
    """
    symmetric = Y is None
    # Decide the output dtype from the inputs as given: prepare makes them float64.
    out_dtype = (config.matrix_dtype(X, X if symmetric else Y) if kernel.input_kind == "vector"
                 else np.float64)
    rows = KernelRows(kernel, X, Y)
    n, m = rows.shape
    if out is None:
        out = np.empty((n, m), dtype=out_dtype)
    elif out.shape != (n, m) or out.dtype != out_dtype or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous {np.dtype(out_dtype)} array of shape "
                         f"{(n, m)}, got {out.dtype} {out.shape}")
    from .tiled import tiled_gram

    check = None if rows.proven_finite(out) else (
        lambda tile: check_kernel_values(tile, repr(kernel), (X, Y)))
    if tiled_gram(kernel, rows.X, rows.Y, out, symmetric=symmetric, check=check,
                  on_block=on_block):
        return out
    for r0, r1 in row_blocks(n, rows_per_block(m)):
        if symmetric:  # columns [0, r1): the block's part of the lower triangle
            rows.block(r0, r1, out=out[r0:r1, :r1], lower=True)
        else:
            rows.block(r0, r1, out=out[r0:r1])
        if on_block is not None:
            on_block(r1, n)
    if symmetric and n > 1:
        from .._compiled import mirror_lower

        mirror_lower(out)
    return out


class Kernel:
    """Base class of every kernel.

    Subclasses store each constructor argument under its own name and
    implement ``_block`` and ``_diag``; they may override the properties
    ``is_shift_invariant`` and ``is_psd`` and the method ``spectral_density``.

    **The block API** is the internal contract between kernels and
    everything that needs kernel values (``gram``, ``GramOperator``, Falkon,
    SMO, Pegasos, SGD). Callers use three public methods, on inputs already
    validated by :meth:`check_input`:

    - :meth:`prepare` ``(X, Y=None, dtype=float64)`` canonicalises whole
      inputs once per call (vectors become float64, RBF centres them);
    - :meth:`block` ``(Xp, Yp, diag_offset=-1, out=None)`` gives the kernel
      values between rows of prepared inputs, allocated or written into
      ``out``: a pure function of one block of rows, so a loop, a thread pool
      or a Dask task can call it on any split of the rows;
    - :meth:`diag_prepared` ``(Xp)`` gives ``k(x_i, x_i)``;
    - :meth:`value_bound` ``(Xp, Yp)`` bounds ``|k|`` on prepared rows, so
      that blocks proven finite skip the finiteness check every other block
      gets (:class:`~kernelkit.exceptions.NonFiniteKernelError`).

    :class:`~kernelkit.kernels.KernelRows` wraps the three for one (X, Y)
    pair (blocks of rows, rows by index, the diagonal). Subclasses implement
    the contract through private hooks, which only the block API calls:

    - ``_block(X, Y, diag_offset)`` or ``_block_into(X, Y, diag_offset,
      out)`` (one of the two; the other follows). ``diag_offset >= 0`` says
      that row i is column ``i + diag_offset`` of a symmetric Gram matrix, so
      distance kernels make those entries exact; ``-1`` says nothing is
      known. ``out`` may be float32: the block is computed in float64 and
      rounded, unless the kernel has a float32 fast path;
    - ``_diag(X)``;
    - optionally ``_prepare(X, Y)`` (default: vectors as float64 arrays,
      ``Y is X`` kept for a symmetric call) and ``_prepare_float32(X, Y)``,
      a kernel's float32 fast path (default: ``_prepare``, i.e. none). RBF
      is the one kernel with such a path: float32 inputs centred on Y's mean,
      a float32 matrix product and float64 norms.

    Attributes
    ----------
    input_kind : {"vector", "string", "any"} or a kind of objects
        What the kernel's inputs are: numeric rows, strings, anything
        (``Constant``), or a list of objects of a registered kind ("set",
        "series", "tree", "graph": :mod:`kernelkit.kernels.objects`).
    """

    input_kind = "vector"
    # Whether this kernel's own blocks compute on scipy.sparse CSR rows (kernels/_sparse.py);
    # a node of the algebra also needs every child to (see accepts_sparse).
    sparse_blocks = False
    # Declared constraints of the constructor's parameters (see _validation.validate_params).
    _param_constraints: dict = {}
    # Parameters that may hold a data-dependent rule ("scale", "auto"), fixed by
    # resolve(X): {name: kind}, the kinds of kernels/data_dependent.py's table.
    _data_dependent_params: dict = {}

    # ---- parameters (scikit-learn conventions) --------------------------------
    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    @classmethod
    def _param_defaults(cls):
        sig = inspect.signature(cls.__init__)
        return {p.name: p.default for p in sig.parameters.values() if p.name != "self"}

    def get_params(self, deep=True):
        """Parameters of this kernel; with ``deep``, also ``k1__gamma`` style nested ones."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and isinstance(value, Kernel):
                for sub, v in value.get_params(deep=True).items():
                    out[f"{name}__{sub}"] = v
        return out

    def set_params(self, **params):
        """Set parameters, including nested ones (``k1__gamma=0.5``); returns self."""
        valid = self._param_names()
        nested = {}
        for key, value in params.items():
            head, _, rest = key.partition("__")
            if head not in valid:
                raise ValueError(f"invalid parameter {head!r} for kernel {type(self).__name__}; "
                                 f"valid parameters: {valid}")
            if rest:
                nested.setdefault(head, {})[rest] = value
            else:
                setattr(self, head, value)
        for head, sub in nested.items():
            getattr(self, head).set_params(**sub)
        self._check_params()
        return self

    def _check_params(self):
        """Validate hyperparameters against ``_param_constraints``.

        Raises :class:`~kernelkit.exceptions.InvalidParameterError`; a subclass
        with a rule that cannot be declared calls this first, then checks it.
        """
        validate_params(self, type(self)._param_constraints, type(self).__name__)

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        a, b = self.get_params(deep=False), other.get_params(deep=False)
        for key in a:
            x, y = a[key], b[key]
            if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
                if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
                        and x.shape == y.shape and np.array_equal(x, y)):
                    return False
            elif x != y:
                return False
        return True

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        defaults = self._param_defaults()
        parts = []
        for name in self._param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            if isinstance(value, np.ndarray) or default is inspect.Parameter.empty or value != default:
                parts.append(f"{name}={_format_value(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def accepts_sparse(self) -> bool:
        """Whether scipy.sparse input (CSR/CSC matrices and arrays) is taken.

        True when the kernel computes its blocks from sparse rows
        (``sparse_blocks``) and so do all its child kernels.
        """
        children = [v for v in self.get_params(deep=False).values() if isinstance(v, Kernel)]
        return bool(type(self).sparse_blocks) and all(k.accepts_sparse for k in children)

    # ---- data-dependent parameters (gamma="scale" / "auto") ------------------------
    def resolve(self, X):
        """This kernel with its data-dependent parameters fixed from training inputs X.

        ``gamma="scale"`` becomes ``1 / (n_features * X.var())`` (1.0 when the
        variance is 0) and ``gamma="auto"`` becomes ``1 / n_features``, as in
        scikit-learn's SVC, for RBF, Polynomial and Sigmoid; Laplacian, Cauchy,
        Matern (``length_scale``) and Chi2 have rules of the same spirit (the
        table of :mod:`kernelkit.kernels.data_dependent`). Sub-kernels of sums,
        products and other nodes are resolved alike, from one look at X.
        Every estimator calls this once in ``fit`` and stores the result as
        ``kernel_``; ``k(X, Y)`` calls it on X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or InputScale
            The training inputs (validated), or their summary
            (:class:`~kernelkit.kernels.data_dependent.InputScale`).

        Returns
        -------
        Kernel
            ``self`` when nothing depends on the data, else a new kernel with
            numbers in place of the rules (``self`` is left unchanged).

        Examples
        --------
        >>> import numpy as np
        >>> from kernelkit.kernels import RBF
        >>> RBF(gamma="auto").resolve(np.zeros((5, 4)))
        RBF(gamma=0.25)
        """
        if self.is_resolved:
            return self
        if self.input_kind not in ("vector", "any"):  # objects: the kernel reads them itself
            return self._resolve_with(self.check_input(X, "X"))
        return self._resolve_with(InputScale.of(X))

    def _rule_params(self):
        """{name: kind} of this kernel's own parameters that hold a rule now."""
        return {name: kind for name, kind in type(self)._data_dependent_params.items()
                if isinstance(getattr(self, name, None), str)}

    def _resolve_with(self, scale):
        params = self.get_params(deep=False)
        rules = self._rule_params()
        changed = False
        for name, value in params.items():
            if isinstance(value, Kernel):
                new = value._resolve_with(scale)
                changed = changed or new is not value
                params[name] = new
            elif name in rules:
                params[name] = rule_value(rules[name], value, scale)
                changed = True
        return type(self)(**params) if changed else self

    @property
    def is_resolved(self) -> bool:
        """False while a parameter (of this kernel or a sub-kernel) is a data rule such as "scale"."""
        try:
            check_resolved(self, deep=True)
        except ValueError:
            return False
        return True

    # ---- evaluation --------------------------------------------------------------
    def check_input(self, X, name="X"):
        """Validate an input for this kernel and return it in canonical form.

        scipy.sparse input becomes canonical CSR (kernels that take it), or
        is refused with a TypeError that says what to do.
        """
        if is_sparse(X):
            check_sparse_support(self, X, name)
            return check_vectors(X, name, accept_sparse=True)
        return check_vectors(X, name)

    def __call__(self, X, Y=None):
        """Kernel matrix between the rows of ``X`` and ``Y`` (or ``X`` itself).

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
        Y : array-like of shape (n_samples_Y, n_features), optional
            Defaults to ``X`` (a symmetric Gram matrix with exact diagonal).

        Returns
        -------
        ndarray of shape (n_samples_X, n_samples_Y)

        Notes
        -----
        A data-dependent parameter (``gamma="scale"``, the default of the
        distance kernels) is resolved on ``X``, the first argument, as
        scikit-learn's ``rbf_kernel(X, Y, gamma=None)`` takes its default from
        X. For a kernel between new points and training points that matches a
        fit, resolve on the training inputs first:
        ``k = RBF().resolve(X_train); k(X_test, X_train)`` (an estimator's
        ``kernel_`` is resolved already).
        """
        check_sparse_support(self, X, "X")
        X = self.check_input(X, "X")
        if Y is not None:
            check_sparse_support(self, Y, "Y")
            Y = self.check_input(Y, "Y")
            if self.input_kind == "vector":
                check_same_n_features(X, Y)
        return pairwise_blocked(self.resolve(X), X, Y)

    def diag(self, X):
        """The diagonal ``k(x_i, x_i)`` without computing the Gram matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self.check_input(X, "X")
        kernel = self.resolve(X)
        X, _ = kernel.prepare(X)
        return np.asarray(kernel.diag_prepared(X), dtype=np.float64)

    # ---- the block API (see the class docstring) ---------------------------------
    def prepare(self, X, Y=None, *, dtype=np.float64):
        """Canonicalise validated inputs once, for many calls of :meth:`block`.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features), or strings
            Inputs already validated by :meth:`check_input`.
        Y : same kind as X, optional
            Column inputs. ``None`` means K(X, X): the prepared ``Y`` is then
            the prepared ``X`` (the same object).
        dtype : {np.float64, np.float32}, default=np.float64
            Precision of the blocks to come. ``float32`` lets a kernel with a
            float32 fast path (RBF) prepare float32 inputs whose blocks run as
            float32 matrix products (use a float32 ``out`` in :meth:`block`);
            other kernels prepare as for float64 and compute in float64.

        Returns
        -------
        Xp, Yp : prepared inputs
            Sliceable by rows (``Xp[r0:r1]``, ``Xp[indices]``); pass row
            blocks of them to :meth:`block` and :meth:`diag_prepared`.
            When either input is scipy.sparse (kernels with
            :attr:`accepts_sparse`), both are float64 CSR rows and blocks are
            computed in float64 from sparse products.
        """
        check_resolved(self, deep=True)  # gamma="scale" left unresolved: say what to do
        Y = X if Y is None else Y
        if is_sparse(X) or is_sparse(Y):
            return self._prepare_sparse(X, Y)
        if np.dtype(dtype) == np.float32:
            return self._prepare_float32(X, Y)
        return self._prepare(X, Y)

    def block(self, X, Y, diag_offset=-1, *, out=None, assume_finite=False):
        """Kernel values ``k(X[i], Y[j])`` of prepared rows: one block of a kernel matrix.

        A pure function of its arguments: any split of the rows gives the
        same values, so a loop, a thread pool or a Dask task can call it.

        Parameters
        ----------
        X : prepared rows of shape (n_rows, ...)
            Rows of the first output of :meth:`prepare` (any slice or index).
        Y : prepared columns of shape (n_cols, ...)
            Rows of the second output of :meth:`prepare`.
        diag_offset : int, default=-1
            ``>= 0``: row i of the block is column ``i + diag_offset`` of a
            symmetric Gram matrix (those entries are made exact, e.g. RBF's are
            exactly 1). ``-1``: no such knowledge.
        out : ndarray of shape (n_rows, n_cols), optional
            C-ordered rows, float64 or float32: the block is written into it.
            A float32 ``out`` holds values computed in float64 and rounded,
            or, for inputs prepared with ``dtype=np.float32`` by a kernel with
            a float32 fast path, computed in float32.
        assume_finite : bool, default=False
            Skip the finiteness check: the caller has proven every value
            finite (:class:`KernelRows` does, once for its whole inputs, with
            :func:`certainly_finite`).

        Returns
        -------
        ndarray of shape (n_rows, n_cols)
            ``out``, or a new float64 array.

        Raises
        ------
        NonFiniteKernelError
            If the block holds inf or NaN (inputs whose scale overflows
            float64 in the kernel; standardise them).
        """
        if self._data_dependent_params:
            check_resolved(self)
        dtype = np.float64 if out is None else out.dtype
        if assume_finite or certainly_finite(self.value_bound(X, Y), dtype):
            return self._compute_block(X, Y, diag_offset, out)
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the fix
            out = self._compute_block(X, Y, diag_offset, out)
        check_kernel_values(out, repr(self), (X, Y))
        return out

    def _compute_block(self, X, Y, diag_offset, out):
        if out is None:
            return self._block(X, Y, diag_offset)
        self._block_into(X, Y, diag_offset, out)
        return out

    def value_bound(self, X, Y):
        """An upper bound of ``|k(x, y)|`` over prepared rows X and Y (inf when unknown).

        A cheap bound (O(1), or O((n + m) d) from the inputs' largest
        magnitude) that lets the block API skip the finiteness check of
        blocks whose values are proven finite: RBF, Laplacian and Cauchy are
        bounded by 1 whatever the inputs, a linear kernel by
        ``d max|x| max|y|``. Composite and string kernels say inf (unknown),
        so their blocks are checked after they are computed.

        Parameters
        ----------
        X, Y : prepared rows, as for :meth:`block`

        Returns
        -------
        float
            A bound such that no value or intermediate sum of the block
            exceeds it, or ``inf``.
        """
        return math.inf

    def diag_prepared(self, X):
        """The diagonal ``k(x_i, x_i)`` of prepared rows.

        Parameters
        ----------
        X : prepared rows of shape (n_rows, ...)
            Rows of the first output of :meth:`prepare`.

        Returns
        -------
        ndarray of shape (n_rows,)

        Raises
        ------
        NonFiniteKernelError
            If a value is inf or NaN (checked: O(n_rows)).
        """
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the fix
            values = self._diag(X)
        check_kernel_values(np.asarray(values), repr(self), (X,))
        return values

    def _prepare(self, X, Y):
        """Canonicalise validated inputs once per call (vectors become float64)."""
        if self.input_kind != "vector":
            return X, Y
        same = X is Y
        X = np.asarray(X, dtype=np.float64)
        return X, (X if same else np.asarray(Y, dtype=np.float64))

    def _prepare_sparse(self, X, Y):
        """Prepare inputs of which one or both are scipy.sparse: float64 CSR rows.

        A dense side becomes CSR too (its CSR form is at most 1.5 times its
        own size; nothing sparse is densified). No centring (it would
        densify): the blocks of a sparse input use the plain expansions.
        Blocks are float64 whatever ``dtype`` (no float32 fast path here).
        """
        check_sparse_support(self, X if is_sparse(X) else Y)
        same = X is Y
        X = as_float64_csr(X) if is_sparse(X) else as_float64_csr(
            _csr_of(np.asarray(X, dtype=np.float64)))
        if same:
            return X, X
        Y = as_float64_csr(Y) if is_sparse(Y) else as_float64_csr(
            _csr_of(np.asarray(Y, dtype=np.float64)))
        return X, Y

    def _prepare_float32(self, X, Y):
        """Prepare for float32 blocks; a kernel with a float32 fast path overrides it."""
        return self._prepare(X, Y)

    def _block(self, X, Y, diag_offset):
        """Kernel values of one block of rows. ``diag_offset >= 0`` means row i is
        column ``i + diag_offset`` of a symmetric Gram matrix (exact diagonal).

        A kernel implements this or :meth:`_block_into` (then this allocates)."""
        if type(self)._block_into is Kernel._block_into:
            raise NotImplementedError(f"{type(self).__name__} implements neither _block "
                                      "nor _block_into")
        out = np.empty((n_rows(X), n_rows(Y)))
        self._block_into(X, Y, diag_offset, out)
        return out

    def _block_into(self, X, Y, diag_offset, out):
        """Write the block into ``out`` (a view of the result, rows contiguous).

        The default copies :meth:`_block`; kernels whose block is a matrix
        product plus an elementwise pass override it to write in place.
        """
        out[...] = self._block(X, Y, diag_offset)

    def _tile_values(self, X, Y):
        """The tiled Gram engine's hook (:mod:`kernelkit.kernels.tiled`).

        Return ``values(G, r0, r1, c0, c1, diag_offset, out)``, which turns the
        float64 products ``G = X[r0:r1] @ Y[c0:c1].T`` into kernel values in
        ``out`` single-threaded (two threads call it at once), or None (the
        default): this kernel, or these prepared rows, keep the row-block path.
        """
        return None

    def _has_tiles(self, X, Y):
        """Whether :meth:`_tile_values` gives tiles for every row block of these
        prepared rows, answered without its work (no copy of the rows); False (the
        default) says nothing either way, only that no caller may count on tiles."""
        return False

    def _diag(self, X):
        raise NotImplementedError

    # ---- properties used by features, planner and checks -----------------------
    @property
    def is_shift_invariant(self) -> bool:
        """Whether ``k(x, y)`` depends on ``x - y`` only (then Bochner's theorem applies)."""
        return False

    @property
    def is_psd(self) -> bool:
        """Whether the kernel is guaranteed positive semi-definite for every input."""
        return True

    def sq_euclidean_profile(self):
        """``f`` with ``k(x, z) = f(||x - z||^2)``, f strictly decreasing and positive, or None.

        For such a kernel the feature-space distance
        ``k(x,x) - 2k(x,z) + k(z,z) = 2 (f(0) - f(||x - z||^2))`` increases with
        the Euclidean distance, so nearest neighbours in feature space are the
        Euclidean ones (k-NN selects them from one matrix product, with no
        kernel value over the whole block). None (the default) when the kernel
        is not declared such a function: RBF and Matern are, and sums,
        products and positive multiples of them.

        Returns
        -------
        callable or None
            ``f(s)`` on an ndarray of squared distances (>= 0).
        """
        return None

    def feature_distance_scale(self):
        """``c > 0`` with ``||phi(x) - phi(z)||^2 = c ||x - z||^2`` for all x, z, or None.

        The linear kernel's feature space is the input space (c = 1), and a
        positive multiple ``c * Linear()`` scales it: k-NN then selects
        neighbours on Euclidean distances from one matrix product, as for a
        kernel with a :meth:`sq_euclidean_profile`. None (the default) for
        every other kernel.

        Returns
        -------
        float or None
        """
        return None

    def spectral_density(self):
        """The spectral density of a shift-invariant kernel (see ``kernels.spectral``).

        Raises
        ------
        ValueError
            If the kernel is not shift-invariant: use Nystroem features instead.
        """
        raise ValueError(
            f"{self!r} has no spectral density (it is not shift-invariant), so random Fourier "
            "features cannot be derived from it; use Nystroem features instead")

    # ---- the algebra (node classes from register_algebra_nodes) ----------------------
    def __add__(self, other):
        if isinstance(other, Kernel):
            return _algebra_node("Sum")(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _algebra_node("Sum")(self, _algebra_node("Constant")(value=float(other)))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, numbers.Real) and not isinstance(other, bool) and other == 0:
            return self  # so that sum([k1, k2]) works
        return self.__add__(other)

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return _algebra_node("Product")(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _algebra_node("Scaled")(self, float(other))
        return NotImplemented

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            if other <= 0:
                raise ValueError(f"a kernel can only be divided by a positive number, got {other!r}")
            return _algebra_node("Scaled")(self, 1.0 / float(other))
        return NotImplemented

    def __pow__(self, exponent):
        return _algebra_node("Power")(self, exponent)

    # ---- structured form (model files, CLI) --------------------------------------
    def to_dict(self):
        """JSON-ready description ``{"kernel": name, "params": {...}}``, nested for nodes.

        Raises
        ------
        TypeError
            If a parameter is a Python callable (``Warped``, ``Composed``):
            such kernels cannot be stored safely.
        """
        params = {}
        for name in self._param_names():
            params[name] = _to_json_value(getattr(self, name), f"{type(self).__name__}.{name}")
        return {"kernel": type(self).__name__, "params": params}


def _csr_of(A):
    import scipy.sparse as sp

    return sp.csr_matrix(A)


def _to_json_value(value, where):
    if isinstance(value, Kernel):
        return value.to_dict()
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{where}: only numeric arrays can be stored, got dtype {value.dtype}")
        return {"ndarray": value.tolist(), "dtype": str(value.dtype)}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"{where} is {type(value).__name__}; kernels holding Python callables or "
                    "objects cannot be written to a safe model file (only numbers, arrays, "
                    "strings and kernels can)")


def _format_value(value):
    if isinstance(value, np.ndarray):
        return repr(value.tolist())  # a nested list: parse_kernel reads it back
    if isinstance(value, np.generic):
        return repr(value.item())  # np.float64(0.5) -> 0.5
    if callable(value) and not isinstance(value, Kernel):
        return getattr(value, "__name__", repr(value))
    return repr(value)
