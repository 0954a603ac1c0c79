"""The estimator plumbing kernelkit.dask's estimators share: the client as a
property (not a parameter: clone and pickle drop it), feature maps drawn on
the client, and one pass of feature normal equations."""

from __future__ import annotations

import numpy as np

from .._budget import row_blocks, rows_per_block
from ..features import Nystroem, RandomFourierFeatures
from ..kernels import resolve_kernel
from ..solvers.normal_equations import NormalEquations, normal_block
from ._runtime import compute, in_task, resolve_client, tree_sum

__all__ = ["ClientMixin", "fit_feature_map", "normal_equations_pass", "kernel_for_rows",
           "resolve_on_moments"]

# Rows per sub-block inside a task: the in-memory default of
# kernelkit.solvers.normal_equations, and below the feature maps' own threading;
# fewer when the task's budget (the worker's room, see _runtime.in_task) asks.
SUB_BLOCK_ROWS = 4096


class ClientMixin:
    """``client`` as a property, dropped by pickling and by ``sklearn.clone``
    (it is not a constructor parameter, as in ``xgboost.dask``)."""

    _client = None

    @property
    def client(self):
        """The ``distributed.Client`` to fit on (None: the default client if there is
        one, else dask's local scheduler)."""
        return self._client

    @client.setter
    def client(self, value):
        self._client = value

    def _get_client(self):
        return resolve_client(self._client)

    def __getstate__(self):
        state = dict(super().__getstate__() if hasattr(super(), "__getstate__")
                     else self.__dict__)
        state.pop("_client", None)
        return state


def resolve_on_moments(kernel, column_mean, column_var):
    """``kernel`` with its data-dependent widths fixed from column moments (a dask task)."""
    from ..kernels.data_dependent import InputScale

    return kernel.resolve(InputScale.from_moments(column_mean, column_var))


def kernel_for_rows(kernel, X, client, timeout=None):
    """The kernel to fit with: ``gamma="scale"`` (and the other data rules) fixed
    from the whole dask X by one pass of column means and variances, as the
    in-memory estimators fix it from their X; a resolved kernel comes back as is.

    The variance of all entries is mean(var_j) + var(mean_j) (exact; it differs
    from ``X.var()`` of the in-memory array by round-off only).
    """
    if kernel == "precomputed" or kernel.is_resolved:
        return kernel
    import dask.array as da

    mean, var = compute(da.stack([X.mean(axis=0), X.var(axis=0)]), client, timeout,
                        "the pass of column variances (gamma='scale')")
    return resolve_on_moments(kernel, mean, var)


def fit_feature_map(kernel, X_rows, features, n_components, rng):
    """A feature map fitted on the client: Nystroem on the given center rows,
    or random Fourier features (frequencies drawn from ``rng``)."""
    kernel = resolve_kernel(kernel)
    if features == "nystroem":
        return Nystroem(kernel, n_components=len(X_rows), centers=X_rows).fit(X_rows)
    return RandomFourierFeatures(kernel, n_components=n_components,
                                 random_state=rng).fit(X_rows[:1])


def _normal_chunk(fmap, Xc, Yc, swc):
    """One chunk's normal equations (upper Z'SZ, Z'SY, sums), in sub-blocks of rows."""
    Xc = np.asarray(Xc)
    Yc = np.asarray(Yc, dtype=np.float64)
    Yc = Yc[:, None] if Yc.ndim == 1 else Yc
    if not np.all(np.isfinite(Yc)):
        raise ValueError("y contains NaN or infinity")
    total = None
    width = int(getattr(fmap, "n_components_", None) or getattr(fmap, "n_components", 256))
    step = min(SUB_BLOCK_ROWS, rows_per_block(width + Xc.shape[1], n_temporaries=3))
    for r0, r1 in row_blocks(len(Xc), step):  # sub-blocks within the task's budget
        Z = fmap.transform(Xc[r0:r1])
        Y = Yc[r0:r1]
        if swc is not None:  # rows scaled by sqrt(s): Z'SZ and Z'SY
            s = np.sqrt(swc[r0:r1])
            Z = Z * s[:, None].astype(Z.dtype)
            Y = Y * s[:, None]
        part = normal_block(Z, Y)
        total = part if total is None else total.__iadd__(part)
    return total.ZtZ, total.ZtY, total.z_sum, total.y_sum, total.n


def normal_equations_pass(fmap, X, Y, sw, client, timeout):
    """One pass over the chunks: the tree-summed normal equations, symmetric, numpy."""
    from dask import delayed

    # Unoptimised graphs: X and Y made from the same reads (one table on disk, y a
    # column of it) keep the same read keys, so a chunk is read once and its X and y
    # meet on one worker; optimised apart, each graph fuses its own copy of the reads
    # (the file read twice, two chunks in memory, y sent between workers).
    xs = X.to_delayed(optimize_graph=False)[:, 0]
    ys = Y.to_delayed(optimize_graph=False)
    ys = ys[:, 0] if Y.ndim == 2 else ys
    ss = sw.to_delayed(optimize_graph=False) if sw is not None else [None] * len(xs)
    key = delayed(fmap, pure=True)
    task = delayed(in_task(_normal_chunk), pure=True)
    parts = [task(key, xc, yc, sc) for xc, yc, sc in zip(xs, ys, ss)]
    ZtZ, ZtY, z_sum, y_sum, n = compute(tree_sum(parts), client, timeout,
                                        what="the normal equations pass")
    upper = np.triu(ZtZ)
    ZtZ = upper + np.triu(upper, 1).T
    return NormalEquations(ZtZ=ZtZ, ZtY=ZtY, z_sum=z_sum, y_sum=y_sum, n=int(n))
