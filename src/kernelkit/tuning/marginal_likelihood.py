"""The Gaussian-process view of kernel ridge: log marginal likelihood, gradient, optimum.

Kernel ridge with kernel k and penalty alpha predicts the posterior mean of a
Gaussian process f ~ GP(0, k) observed with Gaussian noise of variance alpha:
(K + alpha I) u = y is the same linear system. The log marginal likelihood of
the targets,

    log p(y | theta, alpha) = -1/2 y'(K + alpha I)^{-1} y - 1/2 log det(K + alpha I)
                              - n/2 log(2 pi),

is a smooth function of the kernel's log parameters theta
(:mod:`kernelkit.tuning.kernel_params`) and of log alpha, with gradient
1/2 tr((a a' - (K + alpha I)^{-1}) dK/dtheta_j), a = (K + alpha I)^{-1} y,
and 1/2 alpha tr(a a' - (K + alpha I)^{-1}) for log alpha: one Cholesky
factorisation of K + alpha I per evaluation (O(n^3)), then the derivative
blocks contracted with that n x n matrix (O(n^2 p)).

**The amplitude.** Kernel ridge predictions depend on alpha / amplitude only
(scaling k and alpha by the same c changes nothing), but the likelihood does
not: the signal variance is a parameter of its own. It is carried by a
scaling ``c * k`` in the expression (``Scaled``), whose ``scale`` is learnt like
any other parameter; ``LearnedKernelRidge(learn_amplitude=True)`` adds it.
``c * RBF(length_scale=l)`` with noise alpha is scikit-learn's
``ConstantKernel(c) * RBF(l)`` with ``GaussianProcessRegressor(alpha=alpha)``.

**Multiple targets** are independent GPs sharing the kernel: the likelihoods add
(as in scikit-learn).

References
----------
Rasmussen, C. E. and Williams, C. K. I. (2006). Gaussian Processes for Machine
Learning, MIT Press, ch. 2 (algorithm 2.1) and ch. 5.4.1 (eq. 5.9).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve, lapack

from .kernel_params import contract_derivatives
from ._optimize import minimize_with_restarts

__all__ = ["log_marginal_likelihood", "optimize_marginal_likelihood"]

_LOG_2PI = np.log(2.0 * np.pi)


def log_marginal_likelihood(params, X, y, alpha, theta=None, *, eval_gradient=False):
    """The GP log marginal likelihood of y under the kernel and noise variance alpha.

    Parameters
    ----------
    params : KernelParameters
        The kernel and which of its parameters are free (see
        :func:`~kernelkit.tuning.kernel_params.kernel_parameters`).
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,) or (n_samples, n_targets)
        Targets as the GP sees them (centre them first for an intercept).
    alpha : float
        Noise variance (kernel ridge's penalty), > 0.
    theta : ndarray of shape (n_params,), optional
        Log kernel parameters (default: the kernel's own).
    eval_gradient : bool, default=False
        Also return the gradient with respect to ``(theta, log alpha)``.

    Returns
    -------
    lml : float
        ``-inf`` when K + alpha I is not positive definite (as scikit-learn).
    gradient : ndarray of shape (n_params + 1,)
        Only with ``eval_gradient``; its last entry is d lml / d log alpha.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.tuning import kernel_parameters
    >>> X = np.array([[0.0], [1.0]]); y = np.array([1.0, -1.0])
    >>> round(log_marginal_likelihood(kernel_parameters(RBF(gamma=0.5)), X, y, 0.1), 6)
    -3.778429
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    Y = y[:, None] if y.ndim == 1 else y
    n = X.shape[0]
    kernel = params.kernel if theta is None else params.with_theta(theta)
    K = np.array(kernel(X), dtype=np.float64)
    K[np.diag_indices_from(K)] += alpha
    try:
        factor = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
    except LinAlgError:
        return (-np.inf, np.zeros(params.n_params + 1)) if eval_gradient else -np.inf
    A = cho_solve(factor, Y, check_finite=False)
    log_det = 2.0 * np.log(np.diag(factor[0])).sum()
    t = Y.shape[1]
    lml = float(-0.5 * np.einsum("ij,ij->", Y, A) - 0.5 * t * log_det - 0.5 * t * n * _LOG_2PI)
    if not eval_gradient:
        return lml
    inverse, info = lapack.dpotri(factor[0], lower=1)  # (K + alpha I)^{-1} from the factor
    if info != 0:
        return -np.inf, np.zeros(params.n_params + 1)
    inverse = np.tril(inverse)
    inverse += np.tril(inverse, -1).T
    W = A @ A.T
    W -= t * inverse
    W *= 0.5
    grad_theta = contract_derivatives(params, X, None, W, theta)
    grad_alpha = alpha * np.trace(W)
    return lml, np.append(grad_theta, grad_alpha)


def optimize_marginal_likelihood(params, X, y, alpha, *, alpha_bounds=(1e-8, 1e5),
                                 n_restarts=0, random_state=None, max_iter=200,
                                 callback=None):
    """Maximise the log marginal likelihood over theta and log alpha by L-BFGS-B.

    Parameters
    ----------
    params : KernelParameters
        Start (the kernel's values) and bounds of the kernel parameters.
    X, y : as in :func:`log_marginal_likelihood`
    alpha : float
        Start of the noise variance (or its value, with ``alpha_bounds="fixed"``).
    alpha_bounds : (float, float) or "fixed", default=(1e-8, 1e5)
    n_restarts : int, default=0
        Further starts drawn uniformly within the log bounds.
    random_state : numpy Generator or RandomState
    max_iter : int, default=200
    callback : callable, optional
        ``callback(start, iteration, lml, x)`` after every iteration.

    Returns
    -------
    kernel : Kernel
        The kernel at the optimum.
    alpha : float
    lml : float
    result : :class:`~kernelkit.tuning.OptimizationResult`
        Its ``fun`` is ``-lml``; its ``x`` is (theta, log alpha), or theta alone
        when alpha is fixed.
    """
    learn_alpha = not isinstance(alpha_bounds, str)
    bounds = params.bounds
    x0 = params.theta
    if learn_alpha:
        lo, hi = alpha_bounds
        bounds = np.vstack([bounds, [np.log(lo), np.log(hi)]])
        x0 = np.append(x0, np.log(alpha))

    def objective(x):
        theta, a = (x[:-1], np.exp(x[-1])) if learn_alpha else (x, alpha)
        lml, grad = log_marginal_likelihood(params, X, y, a, theta, eval_gradient=True)
        return -lml, -(grad if learn_alpha else grad[:-1])

    def report(start, it, value, x):
        if callback is not None:
            callback(start, it, -value, x)

    result = minimize_with_restarts(objective, x0, bounds, n_restarts=n_restarts,
                                    random_state=random_state, max_iter=max_iter,
                                    callback=report)
    theta, best_alpha = (result.x[:-1], float(np.exp(result.x[-1]))) if learn_alpha \
        else (result.x, float(alpha))
    return params.with_theta(theta), best_alpha, -result.fun, result

