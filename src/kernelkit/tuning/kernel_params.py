"""The learnable parameters of a kernel expression, in log space, and their gradients.

:func:`kernel_parameters` walks a kernel (RBF, Laplacian, Cauchy, Matern, Polynomial,
Constant, sums, products, scalings ``c * k`` and any other node) and collects its free
positive numbers -- ``gamma``, ``length_scale`` (one per feature for ARD RBF),
``scale``, ``value``, a positive ``coef0`` -- as one vector ``theta`` of their
logarithms, with bounds, as scikit-learn's Gaussian-process kernels expose ``theta`` and
``bounds``. ``with_theta(theta)`` builds the kernel with new values, and
``derivatives(X, Y)`` gives ``K`` and ``dK/dtheta`` (shape (n, m, n_params), like
scikit-learn's ``eval_gradient``).

Gradients are analytic for RBF (isotropic and ARD), Laplacian, Matern 0.5/1.5/2.5,
Polynomial, Constant, scalings, sums and products (product rule). For any other node
holding parameters (``Power``, ``Exp``, ``Cauchy``, ``Sigmoid``, ...), the derivative of
that node is a central finite difference in log space with step ``FD_STEP`` (1e-5:
truncation and round-off both near 1e-10 relative), documented as such in
``KernelParameters.exact_gradient``.

:func:`contract_derivatives` gives ``sum_ij W_ij dK_ij/dtheta`` over row blocks
(one block of ``dK`` in memory at a time): every objective of this room reduces to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._budget import row_blocks
from ..exceptions import InvalidParameterError
from ..kernels import Kernel
from ..kernels.algebra import Product, Scaled, Sum
from ..kernels.matern import Matern
from ..kernels.vector import RBF, Constant, Laplacian, Polynomial

__all__ = ["KernelParameters", "kernel_parameters", "contract_derivatives",
           "DEFAULT_BOUNDS", "FD_STEP"]

#: Default bounds of every parameter (scikit-learn's GP kernels use the same).
DEFAULT_BOUNDS = (1e-5, 1e5)
#: Step (in log space) of the central finite differences of nodes without analytic gradients.
FD_STEP = 1e-5
# Parameter names that hold a positive number worth learning; integers such as
# ``degree`` and shapes such as ``nu`` or ``exponent`` stay fixed.
_LEARNABLE = ("gamma", "length_scale", "scale", "value", "coef0")
# Memory for one block of dK (rows x columns x parameters), in float64 entries.
_BLOCK_ENTRIES = 1 << 22


@dataclass(frozen=True)
class _Slot:
    path: str          # "k1__length_scale", as in set_params
    size: int          # 1, or the number of per-feature length scales
    is_array: bool


def _own_slots(kernel, prefix):
    slots = []
    for name, value in kernel.get_params(deep=False).items():
        if name not in _LEARNABLE or isinstance(value, Kernel):
            continue
        if isinstance(kernel, RBF) and name == "gamma" and kernel.length_scale is not None:
            continue  # the length scale sets the width; gamma is unused
        if isinstance(value, str):
            raise InvalidParameterError(
                f"{kernel!r}: {name}={value!r} depends on the data; resolve the kernel first "
                "(kernel.resolve(X_train)) before learning its parameters")
        if isinstance(value, np.ndarray):
            slots.append(_Slot(prefix + name, value.size, True))
        elif isinstance(value, Real) and not isinstance(value, bool) and value > 0:
            slots.append(_Slot(prefix + name, 1, False))
    return slots


def _children(kernel):
    return [(name, v) for name, v in kernel.get_params(deep=False).items()
            if isinstance(v, Kernel)]


def _walk(kernel, prefix=""):
    """Slots in theta order: a node's own parameters, then its children's, depth first."""
    slots = _own_slots(kernel, prefix)
    for name, child in _children(kernel):
        slots.extend(_walk(child, f"{prefix}{name}__"))
    return slots


def _value(kernel, path):
    head, _, rest = path.partition("__")
    if rest:
        return _value(getattr(kernel, head), rest)
    return getattr(kernel, head)


def _rebuild(kernel, updates, prefix=""):
    """A new kernel with the parameters at the paths of ``updates`` replaced."""
    params = kernel.get_params(deep=False)
    for name, value in params.items():
        if isinstance(value, Kernel):
            params[name] = _rebuild(value, updates, f"{prefix}{name}__")
        elif prefix + name in updates:
            params[name] = updates[prefix + name]
    return type(kernel)(**params)


def _check_bounds(pair, what):
    try:
        lo, hi = (float(v) for v in pair)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what} must be a pair (low, high) of numbers > 0 or "
                                    f"'fixed', got {pair!r}") from None
    if not (0 < lo <= hi < np.inf):
        raise InvalidParameterError(f"{what} must satisfy 0 < low <= high < inf, got {pair!r}")
    return lo, hi


class KernelParameters:
    """The free positive parameters of a kernel, as log values with bounds.

    Parameters
    ----------
    kernel : Kernel
        A resolved kernel (no ``gamma="scale"`` left).
    bounds : (float, float) or dict, default=(1e-5, 1e5)
        Bounds of every parameter (in its own units), or a dict from parameter
        paths (``"gamma"``, ``"k1__length_scale"``, as in ``set_params``) to a pair
        or ``"fixed"``; paths not in the dict get the pair under the key
        ``"default"``, else :data:`DEFAULT_BOUNDS`.

    Attributes
    ----------
    names : list of str
        One name per entry of theta: ``"scale"``, ``"k__length_scale[3]"``.
    theta : ndarray of shape (n_params,)
        Logarithms of the current values.
    bounds : ndarray of shape (n_params, 2)
        Logarithms of the bounds.
    exact_gradient : bool
        False when some node's derivative is a finite difference.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> p = kernel_parameters(2.0 * RBF(length_scale=[1.0, 3.0]))
    >>> p.names
    ['scale', 'k__length_scale[0]', 'k__length_scale[1]']
    >>> p.with_theta(np.log([4.0, 1.0, 2.0]))
    4.0 * RBF(length_scale=[1.0, 2.0])
    """

    def __init__(self, kernel, bounds=DEFAULT_BOUNDS):
        if not isinstance(kernel, Kernel):
            raise InvalidParameterError(f"kernel_parameters needs a Kernel, got {kernel!r}")
        self.kernel = kernel
        per_path = dict(bounds) if isinstance(bounds, dict) else {}
        default = _check_bounds(per_path.pop("default", DEFAULT_BOUNDS)
                                if isinstance(bounds, dict) else bounds, "bounds")
        all_slots = _walk(kernel)
        unknown = set(per_path) - {s.path for s in all_slots}
        if unknown:
            raise InvalidParameterError(
                f"bounds names unknown parameters {sorted(unknown)}; the learnable parameters "
                f"of {kernel!r} are {[s.path for s in all_slots]}")
        self._slots, names, theta, lows, highs = [], [], [], [], []
        for slot in all_slots:
            spec = per_path.get(slot.path, default)
            if isinstance(spec, str):
                if spec != "fixed":
                    raise InvalidParameterError(f"bounds[{slot.path!r}] must be a pair or "
                                                f"'fixed', got {spec!r}")
                continue
            lo, hi = _check_bounds(spec, f"bounds[{slot.path!r}]")
            self._slots.append(slot)
            values = np.atleast_1d(np.asarray(_value(kernel, slot.path), dtype=np.float64))
            theta.extend(np.log(values))
            lows.extend([np.log(lo)] * slot.size)
            highs.extend([np.log(hi)] * slot.size)
            names.extend([slot.path] if not slot.is_array else
                         [f"{slot.path}[{i}]" for i in range(slot.size)])
        self.names = names
        self.theta = np.array(theta, dtype=np.float64)
        self.bounds = np.column_stack([lows, highs]) if names else np.empty((0, 2))
        self.exact_gradient = _is_analytic(kernel)

    @property
    def n_params(self):
        return len(self.names)

    def with_theta(self, theta):
        """The kernel with the parameters ``exp(theta)`` (the others unchanged).

        Parameters
        ----------
        theta : array-like of shape (n_params,)

        Returns
        -------
        Kernel
        """
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must have shape ({self.n_params},), got {theta.shape}")
        updates, i = {}, 0
        for slot in self._slots:
            values = np.exp(theta[i:i + slot.size])
            updates[slot.path] = values.copy() if slot.is_array else float(values[0])
            i += slot.size
        return _rebuild(self.kernel, updates)

    def derivatives(self, X, Y=None, theta=None):
        """``K(X, Y)`` and ``dK/dtheta`` at ``theta`` (default: the current values).

        Parameters
        ----------
        X : ndarray of shape (n, n_features)
        Y : ndarray of shape (m, n_features), optional (default X)
        theta : array-like of shape (n_params,), optional

        Returns
        -------
        K : ndarray of shape (n, m)
        dK : ndarray of shape (n, m, n_params)
            Derivatives with respect to the log parameters, in ``names`` order
            (fixed parameters left out).
        """
        kernel = self.kernel if theta is None else self.with_theta(theta)
        X = np.asarray(X, dtype=np.float64)
        Y = X if Y is None else np.asarray(Y, dtype=np.float64)
        K, dK, paths = _derivatives(kernel, X, Y, "")
        return K, self._select(dK, paths)

    def _select_vector(self, slots):
        """Indices of the free parameters (theta order) in a gradient over all ``slots``."""
        where, i = {}, 0
        for slot in slots:
            where[slot.path] = (i, slot.size)
            i += slot.size
        cols = []
        for slot in self._slots:
            start, size = where[slot.path]
            cols.extend(range(start, start + size))
        return np.array(cols, dtype=np.intp)

    def _select(self, dK, paths):
        """Keep the columns of free parameters, in theta order."""
        where = {}
        i = 0
        for path, size in paths:
            where[path] = (i, size)
            i += size
        cols = []
        for slot in self._slots:
            start, size = where[slot.path]
            cols.extend(range(start, start + size))
        return dK[:, :, cols]


def kernel_parameters(kernel, bounds=DEFAULT_BOUNDS):
    """The learnable parameters of ``kernel``: a :class:`KernelParameters`."""
    return KernelParameters(kernel, bounds)


def contract_derivatives(params, X, Y, W, theta=None, block_entries=_BLOCK_ENTRIES):
    """``sum_ij W_ij dK_ij/dtheta`` for ``K = K(X, Y)``, over row blocks of X.

    Parameters
    ----------
    params : KernelParameters
    X : ndarray of shape (n, n_features)
    Y : ndarray of shape (m, n_features) or None (Y = X)
    W : ndarray of shape (n, m), or a callable ``W(r0, r1, K_block) -> (r1 - r0, m)``
        block that may use the kernel values of the block (objectives whose
        weights depend on K_nM, such as the Nystroem ones).
    theta : array-like, optional
    block_entries : int
        Entries of one block of dK (rows x m x n_params) held at a time.

    Returns
    -------
    ndarray of shape (n_params,)
    """
    kernel = params.kernel if theta is None else params.with_theta(theta)
    X = np.asarray(X, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    n, m = X.shape[0], Y.shape[0]
    rows = max(1, block_entries // max(1, m * (params.n_params + 2)))
    total = np.zeros(params.n_params)
    select = params._select_vector(_walk(kernel))
    for r0, r1 in row_blocks(n, rows):
        Xb = X[r0:r1]
        Wb = W(r0, r1, kernel(Xb, Y)) if callable(W) else W[r0:r1]
        total += _contract(kernel, Xb, Y, Wb, "")[1][select]
    return total


def _contract(kernel, X, Y, W, prefix):
    """(K, sum_ij W_ij dK_ij/dtheta over every slot of the subtree), without the
    (n, m, n_params) tensor where the structure allows: sums and scalings pass W
    on, products pass W times the other factors, RBF contracts in one matrix
    product (ARD: sum_ij (W K)_ij (x_ik - y_jk)^2 from row and column sums and
    (W K) Y); other leaves and nodes contract their derivative blocks."""
    kind = type(kernel)
    if kind is Sum:
        parts = [_contract(child, X, Y, W, f"{prefix}{name}__")
                 for name, child in _children(kernel)]
        return sum(p[0] for p in parts), np.concatenate([p[1] for p in parts])
    if kind is Product:
        children = _children(kernel)
        values = [child(X, Y) for _, child in children]
        grads = []
        for i, (name, child) in enumerate(children):
            others = W * np.prod([v for j, v in enumerate(values) if j != i], axis=0)
            grads.append(_contract(child, X, Y, others, f"{prefix}{name}__")[1])
        return np.prod(values, axis=0), np.concatenate(grads)
    if kind is Scaled:
        scale = float(kernel.scale)
        K, grad = _contract(kernel.k, X, Y, scale * W, prefix + "k__")
        own = [float(np.einsum("ij,ij->", W, K)) * scale] if scale > 0 else []
        return scale * K, np.concatenate([own, grad])
    if kind is RBF and _walk(kernel, prefix):
        K = kernel(X, Y)
        WK = W * K
        shift = Y.mean(axis=0)
        Xc, Yc = X - shift, Y - shift
        # sum_ij WK_ij (x_ik - y_jk)^2 for every feature k, from one product
        per_feature = (np.einsum("i,ik->k", WK.sum(axis=1), Xc * Xc)
                       + np.einsum("j,jk->k", WK.sum(axis=0), Yc * Yc)
                       - 2.0 * np.einsum("ik,ik->k", Xc, WK @ Yc))
        if kernel.is_ard:  # dK/dlog l_k = K (x_k - y_k)^2 / l_k^2
            return K, per_feature / kernel.length_scale ** 2
        gamma = kernel.gamma_value
        sign = 2.0 if kernel.length_scale is not None else -1.0
        return K, np.array([sign * gamma * per_feature.sum()])
    K, dK, _ = _derivatives(kernel, X, Y, prefix)
    return K, np.einsum("ijp,ij->p", dK, W)


# ---- derivatives of one block (recursive over the expression; depth <= MAX_DEPTH) ----

_ANALYTIC = (RBF, Laplacian, Matern, Polynomial, Constant, Scaled, Sum, Product)


def _is_analytic(kernel):
    if not _walk(kernel):
        return True
    if type(kernel) not in _ANALYTIC:
        return False
    return all(_is_analytic(child) for _, child in _children(kernel))


def _sq_dist(X, Y):
    shift = Y.mean(axis=0)
    Xc, Yc = X - shift, Y - shift
    d2 = np.einsum("ij,ij->i", Xc, Xc)[:, None] + np.einsum("ij,ij->i", Yc, Yc)[None, :] \
        - 2.0 * (Xc @ Yc.T)
    return np.maximum(d2, 0.0, out=d2)


def _derivatives(kernel, X, Y, prefix):
    """(K, dK with one column per entry of every slot of the subtree, [(path, size)])."""
    slots = _walk(kernel, prefix)
    paths = [(s.path, s.size) for s in slots]
    if not slots:
        return kernel(X, Y), np.empty((X.shape[0], Y.shape[0], 0)), paths
    kind = type(kernel)
    if kind is Sum:
        return _sum_derivatives(kernel, X, Y, prefix, paths)
    if kind is Product:
        return _product_derivatives(kernel, X, Y, prefix, paths)
    if kind is Scaled:
        K, dK, sub = _derivatives(kernel.k, X, Y, prefix + "k__")
        scale = float(kernel.scale)
        own = [scale * K[:, :, None]] if paths and paths[0][0] == prefix + "scale" else []
        return scale * K, np.concatenate(own + [scale * dK], axis=2), paths
    if kind in (RBF, Laplacian, Matern, Polynomial, Constant):
        return _leaf_derivatives(kernel, X, Y, paths)
    return _finite_difference(kernel, X, Y, slots, paths)


def _sum_derivatives(kernel, X, Y, prefix, paths):
    K, parts = None, []
    for name, child in _children(kernel):
        Kc, dKc, _ = _derivatives(child, X, Y, f"{prefix}{name}__")
        K = Kc if K is None else K + Kc
        parts.append(dKc)
    return K, np.concatenate(parts, axis=2), paths


def _product_derivatives(kernel, X, Y, prefix, paths):
    values, grads = [], []
    for name, child in _children(kernel):
        Kc, dKc, _ = _derivatives(child, X, Y, f"{prefix}{name}__")
        values.append(Kc)
        grads.append(dKc)
    K = np.prod(values, axis=0)
    parts = []
    for i, dKc in enumerate(grads):  # product rule: d(prod) = dK_i * prod of the others
        others = np.prod([v for j, v in enumerate(values) if j != i], axis=0)
        parts.append(dKc * others[:, :, None])
    return K, np.concatenate(parts, axis=2), paths


def _leaf_derivatives(kernel, X, Y, paths):
    K = kernel(X, Y)
    names = [p.rpartition("__")[2] for p, _ in paths]
    cols = []
    if isinstance(kernel, RBF):
        if kernel.is_ard:  # dK/dlog l_j = K (x_j - y_j)^2 / l_j^2
            for j, scale in enumerate(kernel.length_scale):
                diff = (X[:, j, None] - Y[None, :, j]) / scale
                cols.append(K * diff * diff)
        else:
            gamma = kernel.gamma_value
            d2 = _sq_dist(X, Y)
            # gamma: dK/dlog gamma = -gamma d2 K; length_scale: +2 gamma d2 K
            sign = -1.0 if names[0] == "gamma" else 2.0
            cols.append(sign * gamma * d2 * K)
    elif isinstance(kernel, Laplacian):
        d1 = np.zeros((X.shape[0], Y.shape[0]))
        for j in range(X.shape[1]):
            d1 += np.abs(X[:, j, None] - Y[None, :, j])
        cols.append(-float(kernel.gamma) * d1 * K)
    elif isinstance(kernel, Matern):
        s = np.sqrt(_sq_dist(X, Y)) / float(kernel.length_scale)
        nu = float(kernel.nu)
        if nu == 0.5:
            cols.append(s * np.exp(-s))
        elif nu == 1.5:
            s = np.sqrt(3.0) * s
            cols.append(s * s * np.exp(-s))
        else:
            s = np.sqrt(5.0) * s
            cols.append(s * s * (1.0 + s) / 3.0 * np.exp(-s))
    elif isinstance(kernel, Polynomial):
        gamma, coef0, degree = float(kernel.gamma), float(kernel.coef0), int(kernel.degree)
        G = X @ Y.T
        base = gamma * G + coef0
        outer = degree * base ** (degree - 1)
        for name in names:
            cols.append(outer * (gamma * G if name == "gamma" else coef0))
    else:  # Constant: dK/dlog value = K
        cols.append(K)
    return K, np.stack(cols, axis=2), paths


def _finite_difference(kernel, X, Y, slots, paths):
    """Central differences in log space of a node without an analytic gradient."""
    params = KernelParameters(kernel, bounds={})
    # _walk with prefix "" inside the node: same order as ``slots``
    theta = params.theta
    cols = []
    for i in range(theta.size):
        step = np.zeros_like(theta)
        step[i] = FD_STEP
        up = params.with_theta(theta + step)(X, Y)
        down = params.with_theta(theta - step)(X, Y)
        cols.append((up - down) / (2.0 * FD_STEP))
    return kernel(X, Y), np.stack(cols, axis=2), paths
