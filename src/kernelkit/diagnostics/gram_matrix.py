"""Diagnostics of a kernel's Gram matrix on one sample.

PSD check, Rademacher complexity bound, effective dimension and spectrum.
These functions look at one sample of data; they answer "is this kernel PSD
on my points?" or "how many directions does ridge regression really fit?",
not questions about the kernel on every input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PSDReport", "psd_check", "rademacher_bound", "effective_dimension", "spectrum"]


@dataclass(frozen=True)
class PSDReport:
    """Result of :func:`psd_check`.

    Attributes
    ----------
    min_eigenvalue : float
        Smallest eigenvalue of the Gram matrix.
    max_eigenvalue : float
        Largest eigenvalue of the Gram matrix.
    is_psd : bool
        ``min_eigenvalue >= -tol * max(|max_eigenvalue|, 1)``.
    n_negative : int
        Number of eigenvalues below that threshold.
    tol : float
        The relative tolerance used.
    """

    min_eigenvalue: float
    max_eigenvalue: float
    is_psd: bool
    n_negative: int
    tol: float = 1e-8

    def __str__(self):
        if self.is_psd:
            return (f"PSD on this sample: smallest eigenvalue {self.min_eigenvalue:.3g} "
                    f"(>= -{self.tol:g} x largest {self.max_eigenvalue:.3g})")
        plural = "" if self.n_negative == 1 else "s"
        return (f"NOT PSD on this sample: smallest eigenvalue {self.min_eigenvalue:.3g} "
                f"(< -{self.tol:g} x largest {self.max_eigenvalue:.3g}; "
                f"{self.n_negative} negative eigenvalue{plural})")


def _square_matrix(K, name="K"):
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {K.shape}")
    if not np.isfinite(K).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return K


def _eigenvalues(K):
    import scipy.linalg

    return scipy.linalg.eigvalsh(K)


def psd_check(kernel, X, *, tol=1e-8):
    """Check whether a kernel's Gram matrix on a sample is positive semi-definite.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed"
        A kernel, an expression such as ``"sigmoid(gamma=0.5)"``, or
        ``"precomputed"`` when ``X`` is already a Gram matrix.
    X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
        The sample; with ``"precomputed"``, a symmetric square matrix.
    tol : float, default=1e-8
        Eigenvalues down to ``-tol * max(|largest|, 1)`` count as round-off.

    Returns
    -------
    PSDReport
        ``str(report)`` is a one-line verdict.

    Raises
    ------
    ValueError
        If a precomputed matrix is not square, not finite or not symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.diagnostics import psd_check
    >>> X = np.random.default_rng(0).standard_normal((30, 2))
    >>> psd_check("rbf(gamma=0.5)", X).is_psd
    True
    """
    if not (isinstance(tol, (int, float)) and tol >= 0):
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    if isinstance(kernel, str) and kernel == "precomputed":
        K = _square_matrix(X, "X")
        scale = max(np.abs(K).max(), np.finfo(np.float64).tiny)
        if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * scale):
            raise ValueError("the precomputed Gram matrix is not symmetric, so it is not a "
                             "kernel matrix; symmetrise it with (K + K.T) / 2 if that is "
                             "round-off")
    else:
        from ..kernels import resolve_kernel

        K = resolve_kernel(kernel)(X)
    w = _eigenvalues((K + K.T) / 2)
    lo, hi = float(w[0]), float(w[-1])
    threshold = -tol * max(abs(hi), 1.0)
    n_negative = int((w < threshold).sum())
    return PSDReport(min_eigenvalue=lo, max_eigenvalue=hi, is_psd=lo >= threshold,
                     n_negative=n_negative, tol=float(tol))


def rademacher_bound(K, c=1.0):
    """Upper bound on the empirical Rademacher complexity of a norm-bounded kernel class.

    For the class F = {x -> <w, phi(x)> : ||w|| <= c} of linear functions in
    the feature space of a kernel k, the lectures' bound on the empirical
    Rademacher complexity on a sample x_1, ..., x_n is::

        R_S(F) <= c * sqrt(sum_i k(x_i, x_i)) / n = c * sqrt(trace K) / n

    (by Cauchy-Schwarz and Jensen: E_sigma ||sum_i sigma_i phi(x_i)|| <=
    sqrt(E_sigma ||sum_i sigma_i phi(x_i)||^2) = sqrt(trace K)).

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        Gram matrix of the sample.
    c : float, default=1.0
        Bound on the RKHS norm of the weight vector, > 0.

    Returns
    -------
    float
        ``c * sqrt(trace K) / n``.

    Examples
    --------
    >>> import numpy as np
    >>> rademacher_bound(np.eye(4), c=2.0)
    1.0
    """
    K = _square_matrix(K)
    if not (isinstance(c, (int, float)) and not isinstance(c, bool) and c > 0
            and np.isfinite(c)):
        raise ValueError(f"c must be a finite number > 0, got {c!r}")
    tr = float(np.trace(K))
    if tr < 0:
        raise ValueError(f"trace of K is negative ({tr:.3g}); K is not a Gram matrix")
    return float(c) * float(np.sqrt(tr)) / K.shape[0]


def effective_dimension(K, lam):
    """Effective dimension (degrees of freedom) of kernel ridge regression.

    ``d_eff = trace(K (K + n lam I)^-1) = sum_i mu_i / (mu_i + n lam)`` over the
    eigenvalues mu_i of K (negative round-off eigenvalues are clipped at 0).
    It is between 0 and n and counts the directions the ridge fit resolves.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        Symmetric PSD Gram matrix.
    lam : float
        Regularisation, > 0 (the objective ``(1/n) ||y - K a||^2 + lam a'Ka``).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> round(effective_dimension(np.eye(4), 0.25), 6)
    2.0
    """
    K = _square_matrix(K)
    if not (isinstance(lam, (int, float)) and not isinstance(lam, bool) and lam > 0
            and np.isfinite(lam)):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    mu = np.clip(_eigenvalues((K + K.T) / 2), 0.0, None)
    n = K.shape[0]
    return float(np.sum(mu / (mu + n * lam)))


def spectrum(K_or_kernel, X=None, k=None):
    """Eigenvalues, largest first and clipped at 0, of K or of a feature approximation Z Z'.

    Parameters
    ----------
    K_or_kernel : array-like of shape (n, n), Kernel, str, or fitted transformer
        A symmetric Gram matrix (with ``X=None``); a kernel (``K = kernel(X)``);
        or a fitted feature map (``Z = transform(X)``, the spectrum of Z Z').
        For Z of shape (n, D) with D < n the nonzero eigenvalues of Z Z' are
        those of the D x D matrix Z'Z (the rest are 0), so only that is
        decomposed.
    X : array-like of shape (n, n_features), optional
        The sample, with a kernel or a feature map.
    k : int, optional
        Return only the k largest (1 <= k <= n); default all n.

    Returns
    -------
    ndarray of shape (k,) or (n,)
        Descending, negative round-off clipped to 0.

    Examples
    --------
    >>> import numpy as np
    >>> spectrum(np.diag([1.0, 3.0, -1e-17]))
    array([3., 1., 0.])
    """
    import scipy.linalg

    if X is None:
        if hasattr(K_or_kernel, "transform") or isinstance(K_or_kernel, str) \
                or hasattr(K_or_kernel, "spectral_density"):
            raise ValueError("a kernel or a feature map needs the sample X: spectrum(kernel, X)")
        K = _square_matrix(K_or_kernel)
        n, Z = len(K), None
    elif hasattr(K_or_kernel, "transform"):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(K_or_kernel)
        Z = np.asarray(K_or_kernel.transform(X), dtype=np.float64)
        n = len(Z)
        if n == 0:
            raise ValueError("X is empty")
        if not np.isfinite(Z).all():
            raise ValueError("the features of X contain NaN or infinity")
    else:
        from ..kernels import resolve_kernel

        K = _square_matrix(resolve_kernel(K_or_kernel)(X))
        n, Z = len(K), None
    if k is None:
        k = n
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer in [1, {n}], got {k!r}")
    if Z is not None:
        small = Z.T @ Z if Z.shape[1] < n else Z @ Z.T
        w = np.zeros(n)
        vals = scipy.linalg.eigvalsh(small)[::-1]
        w[:len(vals)] = vals
        w = w[:k]
    else:
        w = scipy.linalg.eigvalsh((K + K.T) / 2, subset_by_index=[n - k, n - 1])[::-1]
    return np.clip(w, 0.0, None)
