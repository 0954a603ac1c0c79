"""The algebra of kernels: the lectures' "constructing kernels" table as nodes.

If k1, k2 are kernels, so are k1 + k2, k1 * k2, c * k (c >= 0), k ** p
(p a positive integer), exp(k), f(x) k(x, y) f(y), k(phi(x), phi(y)) and
x'Ay (A positive semi-definite). Each node keeps its children as parameters
(``k1``, ``k2``, ..., ``k``), so nested parameters such as ``k1__gamma`` reach a
grid search, and knows whether it is shift-invariant and guaranteed PSD.

Sums and products are flat n-ary nodes (a sum of 3,000 kernels is one node with
3,000 terms, walked by loops); other nodes may nest at most :data:`MAX_DEPTH`
deep, so no walk over a kernel can exhaust Python's recursion limit.

Why this module is long: it holds one node class per row of the lectures'
table (sum, product, scaling, power, exp, warping, composition, bilinear form),
each short, and they share the depth rule, the term naming and the PSD and
shift-invariance bookkeeping defined at the top; split, the n-ary nodes would
sit apart from the rule that keeps every walk over them non-recursive.

The operators of :class:`~kernelkit.kernels.base.Kernel` (``k1 + k2``, ``c * k``,
``k / c``, ``k ** p``, ``k + c``) build the nodes of this module, which subclass
``Kernel``: so ``base`` does not import them (that was a circle); this module
registers them, with ``Constant`` for ``k + c``, through
:func:`~kernelkit.kernels.base.register_algebra_nodes` at its last line, and
``kernels/__init__`` imports it first (see ``base``'s docstring).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import Interval, check_vectors, looks_like_strings, validate_params
from ..exceptions import InvalidParameterError, KernelSpecError
from .base import Kernel, check_sparse_support, register_algebra_nodes
from . import spectral
from .vector import Constant

__all__ = ["Sum", "Product", "Scaled", "Power", "Exp", "Warped", "Composed", "Bilinear",
           "MAX_DEPTH", "term_names"]


#: Deepest nesting of kernel nodes accepted (Scaled of Scaled of ..., Power of Power):
#: every walk over a kernel (evaluation, repr, equality, clone, model files) may
#: recurse this deep. Sums and products do not nest (they are flat n-ary nodes), so
#: only chains of unary nodes or parentheses reach it.
MAX_DEPTH = 100


def _check_depth(node, children):
    """Set ``node._depth`` (1 + its deepest child); refuse nesting beyond MAX_DEPTH."""
    depth = 1 + max((getattr(k, "_depth", 1) for k in children), default=0)
    if depth > MAX_DEPTH:
        raise KernelSpecError(
            f"kernel expression nested too deeply ({depth} levels of nested nodes at "
            f"{type(node).__name__}, at most {MAX_DEPTH}): write a chain of scales as one "
            "factor (2 * 2 * k as 4 * k) and powers of powers as one power")
    node._depth = depth


def _combined_kind(terms):
    kinds = {k.input_kind for k in terms} - {"any"}
    if len(kinds) > 1:
        k1 = next(k for k in terms if k.input_kind != "any")
        k2 = next(k for k in terms if k.input_kind not in ("any", k1.input_kind))
        raise InvalidParameterError(f"cannot combine {k1!r} (on {k1.input_kind}s) with {k2!r} "
                                    f"(on {k2.input_kind}s): both kernels must take the same "
                                    "kind of input")
    return kinds.pop() if kinds else "any"


_TERM_NAMES = ["k1", "k2"]


def term_names(n):
    """Parameter names of an n-term sum or product: ``k1, ..., kn``."""
    while len(_TERM_NAMES) < n:  # grown once, sliced after: building sums stays cheap
        _TERM_NAMES.append(f"k{len(_TERM_NAMES) + 1}")
    return _TERM_NAMES[:n]


class _TermNames:
    """``_param_names`` of an n-ary node: k1..kN of the instance; k1, k2 on the class."""

    def __get__(self, node, cls=None):
        names = term_names(2 if node is None else node.n_terms)
        return lambda: names


class _Nary(Kernel):
    """A flat node over n >= 2 terms, held as parameters ``k1``, ``k2``, ..., ``kn``.

    A term of the same type is spliced in at construction, so ``(a + b) + c``
    and ``sum([a, b, c])`` are one node with k1=a, k2=b, k3=c (as GPyTorch does):
    nothing walks a deep tree, however many terms. Two-term nodes keep their
    ``k1``/``k2`` parameters; ``type(node)(**node.get_params(deep=False))``
    rebuilds any node, so scikit-learn's ``clone`` and grid search (``k3__gamma``)
    work as for two terms.
    """

    _symbol = "?"
    sparse_blocks = True  # elementwise over the terms' blocks: sparse when they all are
    _param_names = _TermNames()
    _param_constraints = {"k1": [Kernel], "k2": [Kernel]}

    def __init__(self, k1, k2, **more):
        if not more and type(k1) is type(self) and type(k2) is not type(self) and \
                isinstance(k2, Kernel):
            # a + b + c + ... built left to right: k1's terms are checked already, so
            # copy them (one dict copy) and check the new term only.
            self.__dict__.update(k1.__dict__)
            self.n_terms += 1
            setattr(self, term_names(self.n_terms)[-1], k2)
            _combined_kind([k1, k2])
            _check_depth(self, [k2])
            self._depth = max(self._depth, k1._depth)
            return
        terms = [k1, k2]
        names = term_names(len(more) + 2)
        if set(more) != set(names[2:]):
            raise TypeError(f"{type(self).__name__}() takes terms k1, k2, k3, ... numbered "
                            f"from 1 without gaps, got {['k1', 'k2'] + sorted(more)}")
        terms += [more[name] for name in names[2:]]
        flat = []
        for k in terms:
            flat.extend(k.terms if type(k) is type(self) else [k])
        self.n_terms = len(flat)
        for name, k in zip(term_names(len(flat)), flat):
            setattr(self, name, k)
        self._check_params()

    @classmethod
    def _accepted_param_names(cls, given):
        """Names a description with the parameters ``given`` may use (model files)."""
        return term_names(max(2, len(given)))

    @property
    def terms(self):
        """The terms, in order."""
        return [getattr(self, name) for name in term_names(self.n_terms)]

    def _check_params(self):
        # Cheap checks (a sum built term by term checks O(n) terms n times); the
        # declared constraint gives the message for a term that is not a kernel.
        terms = self.terms
        for name, k in zip(term_names(len(terms)), terms):
            if not isinstance(k, Kernel):
                validate_params(self, {name: [Kernel]}, type(self).__name__)
        _combined_kind(terms)
        _check_depth(self, terms)

    def __eq__(self, other):
        if type(self) is type(other) and self.n_terms != other.n_terms:
            return False
        return super().__eq__(other)

    __hash__ = Kernel.__hash__

    @property
    def input_kind(self):
        return _combined_kind(self.terms)

    def check_input(self, X, name="X"):
        check_sparse_support(self, X, name)
        terms = self.terms
        child = next((k for k in terms if k.input_kind != "any"), terms[-1])
        return child.check_input(X, name)

    @property
    def is_shift_invariant(self):
        return all(k.is_shift_invariant for k in self.terms)

    @property
    def is_psd(self):
        return all(k.is_psd for k in self.terms)

    def _child_repr(self, k):
        return f"({k!r})" if type(k) is type(self) else repr(k)

    def __repr__(self):
        return f" {self._symbol} ".join(self._child_repr(k) for k in self.terms)


class Sum(_Nary):
    """k1(x, y) + k2(x, y) (+ k3(x, y) + ...). Random features: a mixture of the densities.

    Sums of sums are one flat node (``(a + b) + c`` has the terms k1=a, k2=b,
    k3=c), evaluated left to right.

    Examples
    --------
    ``+`` builds it; the Gram matrix is the sum of the two (RBF: exp(-1) off the
    diagonal; Linear: x'y).

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Linear
    >>> k = RBF(gamma=0.5) + Linear()
    >>> k
    RBF(gamma=0.5) + Linear()
    >>> np.round(k(np.array([[0.0, 0.0], [1.0, 1.0]])), 4)
    array([[1.    , 0.3679],
           [0.3679, 3.    ]])
    >>> (k + RBF()).get_params(deep=False)["k3"]
    RBF()
    """

    _symbol = "+"

    def _block(self, X, Y, diag_offset):
        terms = self.terms
        out = terms[0]._block(X, Y, diag_offset)
        for k in terms[1:]:
            out += k._block(X, Y, diag_offset)
        return out

    def _diag(self, X):
        terms = self.terms
        out = terms[0]._diag(X)
        for k in terms[1:]:
            out = out + k._diag(X)
        return out

    def spectral_density(self):
        return spectral.Mixture(*[k.spectral_density() for k in self.terms])

    def sq_euclidean_profile(self):
        return _combined_profile(self.terms, np.add)


def _combined_profile(terms, combine):
    """The profile of a sum or product of kernels that all have one (else None)."""
    fs = [t.sq_euclidean_profile() for t in terms]
    if any(f is None for f in fs):
        return None

    def f(s):
        out = fs[0](s)
        for g in fs[1:]:
            out = combine(out, g(s))
        return out
    return f


class Product(_Nary):
    """k1(x, y) * k2(x, y) (* k3(x, y) ...) (the Schur product theorem keeps it PSD).

    Products of products are one flat node, evaluated left to right.

    Examples
    --------
    ``*`` builds it; the Gram matrix is the elementwise product of the two
    (RBF: exp(-1) off the diagonal; Polynomial: (x'y + 1)^2).

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Polynomial
    >>> k = RBF(gamma=0.5) * Polynomial(degree=2, gamma=1.0)
    >>> k
    RBF(gamma=0.5) * Polynomial(degree=2, gamma=1.0)
    >>> np.round(k(np.array([[0.0, 0.0], [1.0, 1.0]])), 4)
    array([[1.    , 0.3679],
           [0.3679, 9.    ]])
    """

    _symbol = "*"

    def _child_repr(self, k):
        return f"({k!r})" if isinstance(k, (Sum, Scaled, Product)) else repr(k)

    def _block(self, X, Y, diag_offset):
        terms = self.terms
        out = terms[0]._block(X, Y, diag_offset)
        for k in terms[1:]:
            out *= k._block(X, Y, diag_offset)
        return out

    def _diag(self, X):
        terms = self.terms
        out = terms[0]._diag(X)
        for k in terms[1:]:
            out = out * k._diag(X)
        return out

    def sq_euclidean_profile(self):
        return _combined_profile(self.terms, np.multiply)  # positive factors: decreasing

    def spectral_density(self):
        return spectral.Convolution(*[k.spectral_density() for k in self.terms])


class _Unary(Kernel):
    """A node with one child kernel ``k``."""

    def _check_params(self):
        super()._check_params()
        _check_depth(self, [self.k])

    @property
    def input_kind(self):
        return self.k.input_kind

    def check_input(self, X, name="X"):
        check_sparse_support(self, X, name)
        return self.k.check_input(X, name)

    @property
    def is_shift_invariant(self):
        return self.k.is_shift_invariant

    @property
    def is_psd(self):
        return self.k.is_psd


class Scaled(_Unary):
    """scale * k(x, y) with scale >= 0.

    Parameters
    ----------
    k : Kernel
    scale : float
        Non-negative factor (a negative one would break positive semi-definiteness).

    Examples
    --------
    A number times a kernel builds it:

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Scaled
    >>> k = 2 * RBF(gamma=0.5)
    >>> k, isinstance(k, Scaled)
    (2.0 * RBF(gamma=0.5), True)
    >>> np.round(k(np.array([[0.0, 0.0], [1.0, 1.0]])), 4)
    array([[2.    , 0.7358],
           [0.7358, 2.    ]])
    """

    sparse_blocks = True  # elementwise over the child's block
    _param_constraints = {
        "k": [Kernel],
        "scale": [Interval(Real, 0, None, note="a kernel can only be scaled by c >= 0: a "
                                               "negative scale breaks positive "
                                               "semi-definiteness")],
    }

    def __init__(self, k, scale):
        self.k = k
        self.scale = scale
        self._check_params()

    def __repr__(self):
        inner = f"({self.k!r})" if isinstance(self.k, (Sum, Product, Scaled)) else repr(self.k)
        return f"{self.scale!r} * {inner}"

    def _block(self, X, Y, diag_offset):
        out = self.k._block(X, Y, diag_offset)
        out *= self.scale
        return out

    def sq_euclidean_profile(self):
        f = self.k.sq_euclidean_profile()
        scale = float(self.scale)
        if f is None or scale <= 0:
            return None
        return lambda s: scale * f(s)

    def feature_distance_scale(self):
        c = self.k.feature_distance_scale()
        scale = float(self.scale)
        return None if c is None or scale <= 0 else scale * c

    def _diag(self, X):
        return self.scale * self.k._diag(X)

    def spectral_density(self):
        return spectral.ScaledDensity(self.k.spectral_density(), float(self.scale))


class Power(_Unary):
    """k(x, y) ** exponent, elementwise.

    A positive integer exponent keeps a PSD kernel PSD (repeated Schur
    products). A non-integer exponent is allowed but not guaranteed PSD, and
    needs non-negative kernel values.

    Parameters
    ----------
    k : Kernel
    exponent : int or float
        Positive exponent.

    Examples
    --------
    ``**`` builds it:

    >>> import numpy as np
    >>> from kernelkit.kernels import Linear
    >>> k = Linear() ** 2
    >>> k
    (Linear()) ** 2
    >>> k(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]))  # (1*3 + 2*4)^2
    array([[121.]])
    """

    sparse_blocks = True  # elementwise over the child's block
    _param_constraints = {
        "k": [Kernel],
        "exponent": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, k, exponent):
        self.k = k
        self.exponent = exponent
        self._check_params()

    @property
    def _integer(self):
        return float(self.exponent).is_integer()

    @property
    def is_psd(self):
        return self.k.is_psd and self._integer

    def __repr__(self):
        return f"({self.k!r}) ** {self.exponent!r}"

    def _block(self, X, Y, diag_offset):
        out = self.k._block(X, Y, diag_offset)
        if self._integer:
            return out ** int(self.exponent)
        if (out < 0).any():
            raise ValueError(f"{self!r}: a non-integer power of negative kernel values is "
                             "undefined; use an integer exponent")
        return out ** float(self.exponent)

    def _diag(self, X):
        d = self.k._diag(X)
        return d ** (int(self.exponent) if self._integer else float(self.exponent))

    def spectral_density(self):
        if not self._integer:
            raise ValueError(f"{self!r}: a non-integer power has no spectral density "
                             "available; use Nystroem features")
        dens = self.k.spectral_density()
        return dens if int(self.exponent) == 1 else \
            spectral.Convolution(*[dens] * int(self.exponent))


class Exp(_Unary):
    """exp(k(x, y)): PSD when k is (a limit of sums of its Schur powers).

    Example: ``Warped(Exp(2*gamma*Linear()), f)`` with f(x) = exp(-gamma ||x||^2)
    is the Gaussian kernel.

    Parameters
    ----------
    k : Kernel

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Exp, Linear
    >>> np.round(Exp(Linear())(np.array([[0.0, 0.0], [1.0, 1.0]])), 4)  # exp(x'y)
    array([[1.    , 1.    ],
           [1.    , 7.3891]])
    """

    sparse_blocks = True  # elementwise over the child's block
    _param_constraints = {"k": [Kernel]}

    def __init__(self, k):
        self.k = k
        self._check_params()

    def spectral_density(self):
        raise ValueError(f"{self!r}: the spectral density of exp(k) is not available; "
                         "use Nystroem features")

    def _block(self, X, Y, diag_offset):
        from .._compiled import exp_scaled

        out = self.k._block(X, Y, diag_offset)
        exp_scaled(out, 1.0, out)
        return out

    def _diag(self, X):
        return np.exp(self.k._diag(X))


def _call_map(fn, X, what):
    try:
        v = fn(X)
    except Exception as exc:
        raise ValueError(f"the {what} function {getattr(fn, '__name__', fn)!r} failed: {exc}") \
            from exc
    return v


class Warped(_Unary):
    """f(x) k(x, y) f(y) for a real function f: PSD whenever k is.

    Parameters
    ----------
    k : Kernel
    f : callable
        Maps an (n, d) array (or a list of n objects) to n real numbers.
        Kernels with a Python callable cannot be written to model files.

    Examples
    --------
    Warping exp(x'y) by f(x) = exp(-||x||^2 / 2) gives the Gaussian kernel
    exp(-||x - y||^2 / 2):

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Exp, Linear, Warped
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> k = Warped(Exp(Linear()), lambda Z: np.exp(-0.5 * (Z ** 2).sum(axis=1)))
    >>> bool(np.allclose(k(X), RBF(gamma=0.5)(X)))
    True
    """

    _param_constraints = {"k": [Kernel], "f": ["callable"]}

    def __init__(self, k, f):
        self.k = k
        self.f = f
        self._check_params()

    @property
    def is_shift_invariant(self):
        return False

    def _weights(self, X):
        w = np.asarray(_call_map(self.f, X, "warping"), dtype=np.float64)
        if w.shape != (len(X),):
            raise ValueError(f"the warping function must return one number per sample, "
                             f"shape ({len(X)},); got shape {w.shape}")
        if not np.isfinite(w).all():
            raise ValueError("the warping function returned NaN or infinity")
        return w

    def _block(self, X, Y, diag_offset):
        from .._compiled import scale_add_rows_cols

        out = self.k._block(X, Y, diag_offset)
        scale_add_rows_cols(out, self._weights(X), self._weights(Y), out)
        return out

    def _diag(self, X):
        return self._weights(X) ** 2 * self.k._diag(X)


class Composed(Kernel):
    """k(phi(x), phi(y)) for a map phi: PSD whenever k is.

    Parameters
    ----------
    k : Kernel
        Kernel on the mapped inputs.
    phi : callable
        Maps a batch of inputs (an (n, d) array, or a list of n objects) to a
        batch that ``k`` accepts. Kernels with a Python callable cannot be
        written to model files.

    Examples
    --------
    An RBF kernel on the inputs scaled by 2 (squared distance 8 between the two
    points: exp(-0.5 * 8) = exp(-4)):

    >>> import numpy as np
    >>> from kernelkit.kernels import RBF, Composed
    >>> k = Composed(RBF(gamma=0.5), lambda Z: 2 * Z)
    >>> np.round(k(np.array([[0.0, 0.0], [1.0, 1.0]])), 4)
    array([[1.    , 0.0183],
           [0.0183, 1.    ]])
    """

    input_kind = "any"

    _param_constraints = {"k": [Kernel], "phi": ["callable"]}

    def __init__(self, k, phi):
        self.k = k
        self.phi = phi
        self._check_params()

    def _check_params(self):
        super()._check_params()
        _check_depth(self, [self.k])

    @property
    def is_psd(self):
        return self.k.is_psd

    def check_input(self, X, name="X"):
        return X if looks_like_strings(X) else check_vectors(X, name)

    def _mapped(self, X, name):
        return self.k.check_input(_call_map(self.phi, X, "phi"), f"phi({name})")

    def _block(self, X, Y, diag_offset):
        Xp, Yp = self._mapped(X, "X"), self._mapped(Y, "Y")
        Xp, Yp = self.k.prepare(Xp, Yp)
        return self.k.block(Xp, Yp, diag_offset)

    def _diag(self, X):
        Xp, _ = self.k.prepare(self._mapped(X, "X"))
        return self.k.diag_prepared(Xp)


class Bilinear(Kernel):
    """k(x, y) = x' A y for a symmetric positive semi-definite matrix A.

    Parameters
    ----------
    A : array-like of shape (n_features, n_features)
        Checked symmetric and PSD (smallest eigenvalue >= -1e-10 * largest).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import Bilinear
    >>> k = Bilinear(np.diag([1.0, 2.0]))
    >>> k
    Bilinear(A=[[1.0, 0.0], [0.0, 2.0]])
    >>> k(np.array([[1.0, 1.0]]), np.array([[3.0, 4.0]]))  # 1*3 + 2*1*4
    array([[11.]])
    """

    _param_constraints = {"A": ["array-like"]}

    def __init__(self, A):
        self.A = A
        self._check_params()

    def _check_params(self):
        super()._check_params()
        try:
            A = np.asarray(self.A, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"Bilinear: A must be a numeric matrix ({exc})") from None
        if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
            raise InvalidParameterError(f"Bilinear: A must be a square matrix, got shape "
                                        f"{A.shape}")
        if not np.isfinite(A).all():
            raise InvalidParameterError("Bilinear: A contains NaN or infinity")
        if not np.allclose(A, A.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(A).max())):
            raise InvalidParameterError("Bilinear: A must be symmetric for x'Ay to be a kernel; "
                                        "use (A + A.T) / 2")
        w = np.linalg.eigvalsh(A)
        if w[0] < -1e-10 * max(abs(w[-1]), 1e-300):
            raise InvalidParameterError(f"Bilinear: A must be positive semi-definite for x'Ay to "
                                        f"be a kernel; its smallest eigenvalue is {w[0]:.3g}")
        self.A = np.asarray(self.A, dtype=np.float64)  # same object when already float64

    def check_input(self, X, name="X"):
        X = check_vectors(X, name)
        if X.shape[1] != self.A.shape[0]:
            raise ValueError(f"{name} has {X.shape[1]} features but A is "
                             f"{self.A.shape[0]} x {self.A.shape[0]}")
        return X

    def _block(self, X, Y, diag_offset):
        return (X @ self.A) @ Y.T

    def _diag(self, X):
        return np.einsum("ij,ij->i", X @ self.A, X)


# The operators of Kernel build these (kernels/base.py cannot import them: they subclass it).
register_algebra_nodes(Sum=Sum, Product=Product, Scaled=Scaled, Power=Power, Constant=Constant)
