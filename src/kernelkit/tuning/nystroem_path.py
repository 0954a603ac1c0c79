"""Regularisation paths of Nystroem and random-feature ridge from one pass over the rows.

The Nystroem model f(x) = sum_j c_j k(x, C_j) on M centers C solves
``(K_nM' K_nM + alpha K_MM) c = K_nM' (y - m)`` (``m`` the target mean with an
intercept, as :class:`~kernelkit.models.KernelRidge` with ``solver="falkon"``).
One pass over the rows accumulates the moments ``K_nM' K_nM``, ``K_nM' y``,
``K_nM' 1``, ``y'y``, ``1'y`` and n (per fold for k-fold, :class:`Moments`).
Then, with ``T`` whitening K_MM on its numerical range (``T' K_MM T = I``,
rank-deficient K_MM handled by dropping its null directions, where
``K_nM v = 0`` too), the eigendecomposition ``T' K_nM' K_nM T = V diag(mu) V'``
turns every alpha into O(M^2) arithmetic (:class:`NystroemPath`):

- coefficients ``c = T V (q / (mu + alpha))``, ``q = V' T' K_nM' (y - m)``;
- the residual sum of squares ``||y - m||^2 - sum q^2 (mu + 2 alpha) / (mu + alpha)^2``;
- the hat matrix's trace ``sum mu / (mu + alpha)`` (plus ``1 - h'(mu + alpha)^-1 h / n``
  for the intercept, ``h = V' T' K_nM' 1``), hence GCV;
- the held-out error of a fold from its own moments (``K_vM' K_vM``, ...) and the
  path of the other folds (their moments are the total minus the fold's).

Random features are the same with ``Z`` for ``K_nM`` and ``T = I``.

References
----------
Golub, G. H., Heath, M. & Wahba, G. (1979). Generalized cross-validation as a
method for choosing a good ridge parameter. Technometrics 21(2), 215-223.
Rudi, A., Carratino, L. & Rosasco, L. (2017). FALKON: An optimal large scale
kernel method. NeurIPS.
Meanti, G., Carratino, L., De Vito, E. & Rosasco, L. (2022). Efficient
hyperparameter tuning for large scale kernel ridge regression. AISTATS.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import eigh_psd
from .paths import blas_threads_for

__all__ = ["Moments", "accumulate_moments", "whitening", "NystroemPath", "WHITENING_RTOL"]

#: Eigenvalues of K_MM below this fraction of the largest are its null space.
#: Whitening scales a direction by 1/sqrt(s), so rounding in T' K_nM'K_nM T grows
#: as 1/rtol: at 1e-10 the path's M x M matrix had eigenvalues of -2e-8 relative
#: (n = 300, M = 100, RBF), at 1e-8 none below -1e-10. Directions this weak carry
#: no signal a ridge with alpha > 1e-8 ||K_nM||^2 keeps.
WHITENING_RTOL = 1e-8


@dataclass
class Moments:
    """The sums over rows that determine the path: Z'Z, Z'y, Z'1, y'y, 1'y and n.

    ``Z`` is K_nM (Nystroem) or the feature matrix (random features) of the
    rows summed over; ``y`` of shape (rows, t). Moments of disjoint row sets
    add, so a fold's complement is ``total - fold``.
    """

    gram: np.ndarray
    cross: np.ndarray
    colsum: np.ndarray
    yy: np.ndarray
    ysum: np.ndarray
    n: int

    @classmethod
    def zeros(cls, M, t):
        return cls(np.zeros((M, M)), np.zeros((M, t)), np.zeros(M), np.zeros(t), np.zeros(t), 0)

    def add(self, Z, y):
        """Add the rows ``Z`` (b, M) with targets ``y`` (b, t), in float64."""
        Z = np.asarray(Z, dtype=np.float64)
        self.gram += Z.T @ Z
        self.cross += Z.T @ y
        self.colsum += Z.sum(axis=0)
        self.yy += np.einsum("ij,ij->j", y, y)
        self.ysum += y.sum(axis=0)
        self.n += Z.shape[0]

    def __add__(self, other):
        return Moments(self.gram + other.gram, self.cross + other.cross,
                       self.colsum + other.colsum, self.yy + other.yy,
                       self.ysum + other.ysum, self.n + other.n)

    def __sub__(self, other):
        return Moments(self.gram - other.gram, self.cross - other.cross,
                       self.colsum - other.colsum, self.yy - other.yy,
                       self.ysum - other.ysum, self.n - other.n)


def accumulate_moments(blocks, y0, folds=None, n_folds=1):
    """One pass over row blocks: the :class:`Moments` of each candidate and fold.

    Parameters
    ----------
    blocks : iterable of (r0, r1, list of ndarray)
        For rows ``r0:r1``, one block ``Z_b`` of shape (r1 - r0, M_k) per
        candidate k (e.g. K(X_b, C) for each gamma of a grid).
    y0 : ndarray of shape (n, t)
        Targets (shifted by their mean with an intercept; see
        :func:`kernelkit.tuning.paths.centre_targets`).
    folds : ndarray of shape (n,) of int in [0, n_folds), optional
        The fold of each row; None: one fold.
    n_folds : int, default=1

    Returns
    -------
    list of list of Moments
        ``moments[k][f]``: candidate k, fold f.
    """
    moments = None
    for r0, r1, Zs in blocks:
        if moments is None:
            moments = [[Moments.zeros(Z.shape[1], y0.shape[1]) for _ in range(n_folds)]
                       for Z in Zs]
        yb = y0[r0:r1]
        if folds is None:
            for k, Z in enumerate(Zs):
                moments[k][0].add(Z, yb)
            continue
        fb = folds[r0:r1]
        masks = [fb == f for f in range(n_folds)]
        for k, Z in enumerate(Zs):
            for f, mask in enumerate(masks):
                if mask.any():
                    moments[k][f].add(Z[mask], yb[mask])
    return moments


def whitening(K_MM, rtol=WHITENING_RTOL):
    """``T`` of shape (M, r) with ``T' K_MM T = I_r`` on K_MM's numerical range.

    Parameters
    ----------
    K_MM : ndarray of shape (M, M)
        The centers' Gram matrix.
    rtol : float, default=WHITENING_RTOL
        Eigenvalues at most ``rtol`` times the largest are dropped.

    Returns
    -------
    T : ndarray of shape (M, r)
    rank : int
        r, the directions kept (M when K_MM is well conditioned).
    """
    with blas_threads_for(len(K_MM)):
        s, U = eigh_psd(np.array(K_MM, dtype=np.float64))
    keep = s > rtol * max(float(s[-1]), np.finfo(np.float64).tiny)
    return U[:, keep] / np.sqrt(s[keep]), int(keep.sum())


class NystroemPath:
    """The ridge path of one training set's :class:`Moments`, every alpha at O(M r).

    Parameters
    ----------
    train : Moments
        Moments of the training rows (``Z = K_nM`` or features).
    T : ndarray of shape (M, r), optional
        Whitening of K_MM (:func:`whitening`); None: the identity (random
        features, whose penalty is ``alpha ||w||^2``).
    fit_intercept : bool, default=True
        Centre the targets by the training rows' mean (its value is
        ``mean``), as :class:`~kernelkit.models.KernelRidge`.

    Attributes
    ----------
    mean : ndarray of shape (t,)
        The training targets' mean (0 without intercept).
    eigenvalues : ndarray of shape (r,)
        ``mu``, of ``T' Z'Z T``.
    """

    def __init__(self, train, T=None, fit_intercept=True):
        with blas_threads_for(len(train.gram)):
            self._factor(train, T, fit_intercept)

    def _factor(self, train, T, fit_intercept):
        n = train.n
        self.n = n
        self.fit_intercept = fit_intercept
        self.mean = train.ysum / n if fit_intercept else np.zeros_like(train.ysum)
        whitened = train.gram if T is None else T.T @ train.gram @ T
        self.eigenvalues, V = eigh_psd(whitened, overwrite_a=True)
        self.basis = V if T is None else T @ V  # (M, r): c = basis @ beta
        self.q = self.basis.T @ (train.cross - np.outer(train.colsum, self.mean))
        self.h = self.basis.T @ train.colsum
        self.centred_yy = train.yy - 2.0 * self.mean * train.ysum + n * self.mean ** 2

    def _beta(self, alpha):
        return self.q / (self.eigenvalues + alpha)[:, None]

    def coef(self, alpha):
        """Coefficients of the centers (or weights of the features), shape (M, t)."""
        return self.basis @ self._beta(alpha)

    def training_rss(self, alpha):
        """``||y - m - Z c||^2`` per target, shape (t,), clamped at 0."""
        mu = self.eigenvalues[:, None]
        shrink = (mu + 2.0 * alpha) / (mu + alpha) ** 2
        return np.maximum(self.centred_yy - np.sum(self.q ** 2 * shrink, axis=0), 0.0)

    def hat_trace(self, alpha):
        """Trace of the hat matrix (the model's degrees of freedom), intercept included."""
        mu = self.eigenvalues
        trace = float(np.sum(mu / (mu + alpha)))
        if self.fit_intercept:
            trace += 1.0 - float(np.sum(self.h ** 2 / (mu + alpha))) / self.n
        return trace

    def gcv(self, alphas):
        """Generalised cross-validation ``(RSS / n) / (1 - tr(H) / n)^2``, shape (A, t)."""
        out = []
        for alpha in alphas:
            denominator = max(1.0 - self.hat_trace(alpha) / self.n, np.finfo(np.float64).eps)
            out.append(self.training_rss(alpha) / self.n / denominator ** 2)
        return np.array(out)

    def heldout_sse(self, alphas, held):
        """Sum of squared errors on held-out rows from their :class:`Moments`, shape (A, t).

        ``||y_v - m - Z_v c||^2 = ||y_v - m||^2 - 2 c'Z_v'(y_v - m) + c' Z_v'Z_v c``
        with the coefficients of this (training) path.
        """
        m = self.mean
        with blas_threads_for(len(held.gram)):
            W = self.basis.T @ held.gram @ self.basis
        qv = self.basis.T @ (held.cross - np.outer(held.colsum, m))
        yv = held.yy - 2.0 * m * held.ysum + held.n * m ** 2
        out = []
        for alpha in alphas:
            beta = self._beta(alpha)
            quad = np.einsum("it,it->t", beta, W @ beta)
            out.append(np.maximum(yv - 2.0 * np.sum(beta * qv, axis=0) + quad, 0.0))
        return np.array(out)
