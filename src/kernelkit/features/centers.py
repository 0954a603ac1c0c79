"""Choosing centers (landmarks) among the training rows, and the feature-space distance.

Nystroem features, Falkon and kernel k-means all pick some training rows as
centers; the rules live here, once:

* :func:`uniform_centers`: M rows without replacement (Williams & Seeger 2001).
* :func:`kmeanspp_centers`: kernel k-means++ seeding, D^2 sampling in feature
  space, optionally weighted and greedy (Arthur & Vassilvitskii 2007; Oglic &
  Gaertner 2017 for its use with Nystroem; the greedy variant is
  scikit-learn's).
* :func:`leverage_centers`: sampling by approximate ridge leverage scores
  (Alaoui & Mahoney 2015; Musco & Musco 2017), estimated from a uniform pilot.

:func:`sq_dist_from_inner` is the one formula of squared feature-space
distances, ``||phi(x) - z||^2 = k(x, x) - 2 <phi(x), z> + ||z||^2``; it lives
here (the lowest room that needs it) and :mod:`kernelkit.solvers.distances`
builds the blocked nearest-neighbour search on it.

Only ``kernel.diag``, ``len`` and row indexing touch X, so kernels on
non-vector inputs (strings) work too.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._budget import require, row_blocks, rows_per_block
from .._compiled import sqdist_from_inner
from ..gram import KernelRows, gram
from ..linalg import robust_cholesky

__all__ = ["CENTER_METHODS", "select_centers", "uniform_centers", "kmeanspp_centers",
           "leverage_centers", "leverage_scores", "sq_dist_from_inner", "take_rows",
           "distinct_centers"]

CENTER_METHODS = ("uniform", "kmeans++", "leverage")


def _n(X):
    """Rows of an array, a scipy.sparse matrix (no len) or a list of strings."""
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, indices):
    """Rows of X (an array, CSR rows, or a list such as strings) at ``indices``."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return X[indices]
    return [X[i] for i in indices]


def sq_dist_from_inner(inner, diag_x, sq_norms_z, out=None):
    """Squared feature-space distances from inner products, clamped at 0.

    ``out[i, j] = max(k(x_i, x_i) + ||z_j||^2 - 2 <phi(x_i), z_j>, 0)``, where
    ``z_j`` is a point phi(c_j) (then ``inner = K(X, C)``) or any element of the
    feature space such as a cluster mean. Round-off can make the expansion
    slightly negative, hence the clamp. One compiled pass (rows in parallel).

    Parameters
    ----------
    inner : ndarray of shape (n, m) or (n,)
        ``<phi(x_i), z_j>``; a 1-D array is one column.
    diag_x : ndarray of shape (n,)
        ``k(x_i, x_i)``.
    sq_norms_z : ndarray of shape (m,), or a float for 1-D ``inner``
        ``||z_j||^2``.
    out : ndarray of shape (n, m), optional
        Where to write (may be ``inner`` itself, if float64 and C-contiguous);
        default a new float64 array.

    Returns
    -------
    ndarray of the shape of ``inner``, float64 unless ``out`` says otherwise
    """
    inner = np.asarray(inner)
    vector = inner.ndim == 1
    G = np.ascontiguousarray(inner.reshape(-1, 1) if vector else inner)
    if G.dtype not in (np.float64, np.float32):
        G = G.astype(np.float64)
    if out is None:
        out = np.empty(G.shape)
    sqdist_from_inner(G, diag_x, np.atleast_1d(sq_norms_z), -1, out)
    return out[:, 0] if vector else out


def uniform_centers(n, n_centers, rng):
    """``n_centers`` sorted row indices drawn uniformly without replacement."""
    return np.sort(rng.choice(n, size=n_centers, replace=False))


def kmeanspp_centers(kernel, X, n_centers, rng, *, sample_weight=None, n_local_trials=1,
                     diag=None):
    """Row indices of centers chosen by (weighted, optionally greedy) kernel k-means++.

    Each new center is drawn with probability proportional to ``w_i d^2(x_i)``,
    the weighted squared feature-space distance to the nearest center chosen
    so far (Arthur & Vassilvitskii 2007). With ``n_local_trials`` > 1 it is the
    best (lowest potential ``sum_i w_i min d^2``) of that many such draws
    (scikit-learn's greedy variant). Costs ``n * n_local_trials`` kernel
    values per center.

    Parameters
    ----------
    kernel : Kernel
    X : validated input of ``kernel``, n rows
    n_centers : int, <= n
    rng : numpy.random.RandomState
    sample_weight : ndarray of shape (n,), optional
        Weights of the draws (and of the greedy potential); the first center
        is drawn with probability ``w_i / sum(w)``, or uniformly when None.
    n_local_trials : int or None, default=1
        Candidates per center; None: ``2 + int(log(n_centers))`` (scikit-learn).
    diag : ndarray of shape (n,), optional
        ``kernel.diag(X)``, if already computed.

    Returns
    -------
    ndarray of shape (n_centers,), int
        Distinct row indices, in the order drawn.
    """
    n = _n(X)
    if diag is None:
        diag = kernel.diag(X)
    if n_local_trials is None:
        n_local_trials = 2 + int(np.log(n_centers))
    chosen = np.empty(n_centers, dtype=np.intp)
    chosen[0] = (rng.randint(n) if sample_weight is None
                 else rng.choice(n, p=sample_weight / sample_weight.sum()))

    if isinstance(X, np.ndarray) or sp.issparse(X):
        # Arrays are validated and prepared once (RBF centres them, float32 input is
        # widened): preparing X again for each center cost 3-4 times the kernel values.
        Xv = kernel.check_input(X, "X")
        rows = KernelRows(kernel.resolve(Xv), Xv)

        def inner(idx):
            return rows.rows(np.asarray(idx)).T
    else:  # lists (strings): a Gram block per center
        def inner(idx):
            return gram(kernel, X, take_rows(X, idx))

    def d2_to(idx):
        return sq_dist_from_inner(inner(idx), diag, diag[idx])

    closest = d2_to(chosen[:1])[:, 0]
    closest[chosen[0]] = 0.0  # a chosen row is at distance 0 (round-off aside)
    for c in range(1, n_centers):
        pot = closest if sample_weight is None else sample_weight * closest
        total = pot.sum()
        if total > 0:
            cand = np.searchsorted(np.cumsum(pot), rng.uniform(size=n_local_trials) * total)
            cand = np.minimum(cand, n - 1)
        else:  # every point coincides with a center: any unchosen row
            free = np.setdiff1d(np.arange(n), chosen[:c])
            cand = free[rng.randint(len(free), size=1)]
        trial = np.minimum(closest[:, None], d2_to(cand))
        trial[cand, np.arange(len(cand))] = 0.0
        if trial.shape[1] == 1:
            best = 0
        elif sample_weight is None:
            best = int(np.argmin(trial.sum(axis=0)))
        else:
            best = int(np.argmin(sample_weight @ trial))
        chosen[c] = cand[best]
        closest = trial[:, best]
    return chosen


def leverage_scores(kernel, X, ridge, pilot):
    """Nystroem estimate of the ridge leverage scores of K, from pilot centers.

    ``l_i = (k(x_i, x_i) - K_iP (K_PP + ridge I)^-1 K_Pi) / ridge``, the
    estimate of ``[K (K + ridge I)^-1]_ii`` of Alaoui & Mahoney (2015) and
    Musco & Musco (2017), with P the pilot rows. With the Cholesky factor
    ``K_PP + ridge I = L L'``, the quadratic form is ``||L^-1 K_Pi||^2``: one
    P x P factorisation (P^3 / 3 flops, a third of an eigendecomposition's
    memory and a fraction of its time), then triangular solves in row blocks.
    """
    P = len(pilot)  # K_PP, factored in place
    require(8.0 * P * P, f"ridge-leverage centers (a pilot of {P} rows, a {P} x {P} matrix)",
            hint="use fewer centers")
    XP = take_rows(X, pilot)
    KPP = np.array(gram(kernel, XP), dtype=np.float64, order="C")
    KPP.flat[:: P + 1] += ridge
    chol = robust_cholesky(KPP, overwrite_a=True)
    diag = kernel.diag(X)
    scores = np.empty(_n(X))
    for r0, r1 in row_blocks(_n(X), rows_per_block(len(pilot))):
        G = scipy.linalg.solve_triangular(
            chol.L, np.asarray(gram(kernel, XP, take_rows(X, range(r0, r1))), dtype=np.float64),
            lower=True, check_finite=False)
        scores[r0:r1] = (diag[r0:r1] - np.einsum("ij,ij->j", G, G)) / ridge
    return np.maximum(scores, 0.0)


def leverage_centers(kernel, X, n_centers, rng, regularization=0.0):
    """Indices of ``n_centers`` rows sampled (without replacement) by ridge leverage.

    The scores are estimated with :func:`leverage_scores` from a uniform pilot
    of ``min(n, 2 * n_centers)`` rows. The ridge is ``regularization`` if it is
    positive, else ``trace(K) / n_centers``: then the effective dimension
    ``sum_i s_i / (s_i + ridge) <= trace(K) / ridge = n_centers``, so the scores
    describe about as many directions as there are centers to draw. (A much
    smaller ridge, such as ``1e-3 * trace(K) / n``, makes the estimate from a
    pilot of 2M rows little more than the pilot's residual, which favours
    outliers: on clustered data it did worse than uniform sampling.)
    """
    n = _n(X)
    ridge = float(regularization) if regularization > 0 else \
        max(float(kernel.diag(X).sum()), np.finfo(float).tiny) / n_centers
    pilot = np.sort(rng.choice(n, size=min(n, 2 * n_centers), replace=False))
    scores = leverage_scores(kernel, X, ridge, pilot)
    top = scores.max()
    if not top > 0:
        return rng.choice(n, size=n_centers, replace=False)
    # A floor keeps every row drawable, so sampling M of n without replacement is possible.
    p = np.maximum(scores, 1e-12 * top)
    return rng.choice(n, size=n_centers, replace=False, p=p / p.sum())


def select_centers(kernel, X, n_centers, method, rng, regularization=0.0):
    """Row indices of ``n_centers`` centers chosen by ``method`` (see :data:`CENTER_METHODS`).

    ``"uniform"`` (sorted), ``"kmeans++"`` (plain D^2 sampling) or
    ``"leverage"`` (``regularization`` as in :func:`leverage_centers`).
    """
    if method == "uniform":
        return uniform_centers(_n(X), n_centers, rng)
    if method == "kmeans++":
        return kmeanspp_centers(kernel, X, n_centers, rng)
    if method == "leverage":
        return leverage_centers(kernel, X, n_centers, rng, regularization)
    raise ValueError(f"center selection must be one of {CENTER_METHODS}, got {method!r}")


def distinct_centers(X, indices):
    """Drop repeated rows among the centers ``X[indices]``; count the repeats.

    Data with many identical rows (KDD Cup 99: 121k distinct among 400k) gives
    uniformly drawn centers that repeat (886 distinct of 2000 drawn there).
    Repeated centers add nothing to the span of f = sum_j c_j k(., C_j) but
    make K_MM exactly singular. Keeping each distinct row once, with its
    count, leaves the model unchanged, and the counts keep the sample that
    Falkon's preconditioner stands on (K_nM' K_nM / n ~ K_MM diag(counts)
    K_MM / sum(counts)).

    Parameters
    ----------
    X : validated input, an array or a list (strings), or an object array
        (sets, trees, ...: hashable objects, or arrays compared by their bytes)
    indices : ndarray of shape (m,), int
        Row indices of the drawn centers.

    Returns
    -------
    kept : ndarray of shape (k,), int
        The first index of each distinct row, in the order of ``indices``.
    counts : ndarray of shape (k,), int
        How many of ``indices`` hold that row.
    """
    indices = np.asarray(indices, dtype=np.intp)
    if len(indices) == 0:
        return indices, np.zeros(0, dtype=np.intp)
    if isinstance(X, np.ndarray) and X.dtype != object:
        rows = np.ascontiguousarray(X[indices]).reshape(len(indices), -1)
        # Equal rows have equal bytes (-0.0 and 0.0 aside, which only split a pair).
        keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1])))[:, 0] \
            if rows.shape[1] else np.zeros(len(indices))
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    else:
        if sp.issparse(X):  # canonical CSR rows: equal rows have equal indices and values
            R = X[indices]
            X = [R.indices[R.indptr[i]:R.indptr[i + 1]].tobytes() + b"|"
                 + R.data[R.indptr[i]:R.indptr[i + 1]].tobytes() for i in range(len(indices))]
            indices_in_x = np.arange(len(indices))
        elif isinstance(X, np.ndarray):  # objects: arrays (sets, series) by shape and bytes
            X = [(x.shape, x.tobytes()) if isinstance(x, np.ndarray) else x
                 for x in X[indices]]
            indices_in_x = np.arange(len(indices))
        else:
            indices_in_x = indices
        seen = {}
        inverse = np.array([seen.setdefault(X[i], len(seen)) for i in indices_in_x],
                           dtype=np.intp)
        first = np.zeros(len(seen), dtype=np.intp)
        first[inverse[::-1]] = np.arange(len(indices))[::-1]
    counts = np.bincount(np.ravel(inverse), minlength=len(first))
    order = np.argsort(first, kind="stable")
    return indices[first[order]], counts[order]
