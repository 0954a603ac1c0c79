"""Epsilon-insensitive support vector regression, solved as libsvm does."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._progress import is_verbose, progress
from .._validation import Interval, Options, validate_params
from ..gram import GramOperator, gram
from ..planning import Plan, decide_store, row_cache_bytes, row_cache_choice
from ..solvers.svr import svr_gram, svr_kernel
from ._hard_margin import hard_tube_choice, is_hard, solve_hard_tube
from ._base import KernelParamsMixin, kernel_for_data, warn_smo_stopped
from ._svm_tail import store_smo_fit
from ._base import (check_sample_weight, tag_precomputed, resolve_estimator_kernel,
                    validate_fit_data, validate_predict_data)

__all__ = ["KernelSVR"]


class KernelSVR(KernelParamsMixin, RegressorMixin, BaseEstimator):
    """Epsilon-support vector regression with any kernel, by SMO (as libsvm).

    Minimises ``1/2 ||w||^2 + C sum_i s_i max(0, |y_i - f(x_i)| - epsilon)`` with
    f(x) = w'phi(x) + b. The dual has 2n variables (a, a*) and is solved by the
    same second-order SMO as :class:`KernelSVC` (working-set selection, shrinking,
    stopping rule and row cache), with libsvm's linear term p = (epsilon - y,
    epsilon + y); f(x) = sum_i (a_i - a*_i) k(x_i, x) + b.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
    C : float, default=1.0
        Penalty of the deviations outside the tube, > 0. ``C=np.inf`` is the
        hard epsilon-tube: ``min 1/2 ||w||^2 s.t. |f(x_i) - y_i| <= epsilon`` for
        every i, the kernel form of the minimax (L-infinity, Chebyshev) fit --
        the "brittle" regression of the notes, whose largest residual is
        bounded, so a single outlier moves the whole fit (or, further than
        2 epsilon from what the kernel can reach, leaves no feasible f).
        Solved by SMO with an unbounded box; when no function of the kernel's
        space fits the tube, ``fit`` raises a ValueError saying so
        (:mod:`kernelkit.solvers.hard_margin`).
    epsilon : float, default=0.1
        Half width of the tube inside which errors cost nothing, >= 0.
    tol : float, default=1e-3
        Stop when the maximal KKT violation is below ``tol`` (libsvm's eps).
    max_iter : int or None, default=None
        Cap on SMO steps (default libsvm's max(10^7, 100 * 2n)).
    shrinking : bool, default=True
    cache : {"auto", True, False}, default="auto"
        Store the (2n x 2n) Gram matrix of the doubled variables (``"auto"``:
        when it fits half the memory budget), else kernel rows on demand in a
        cache; the choice is in ``plan_``.
    verbose : int or bool, default=0
        >= 1: show SMO's progress (steps and violation) and print ``plan_``.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (samples with a_i != a*_i).
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        a_i - a*_i of the support vectors.
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
    dual_objective_, duality_gap_ : float
    max_violation_ : float
        SMO's final maximal KKT violation (below ``tol`` unless it stopped at
        ``max_iter``, which warns).
    plan_ : Plan
    kernel_ : Kernel or "precomputed"

    References
    ----------
    Chang, C.-C. and Lin, C.-J. (2011). LIBSVM: a library for support vector
    machines. ACM Transactions on Intelligent Systems and Technology 2(3), 27.
    Smola, A. J. and Schoelkopf, B. (2004). A tutorial on support vector
    regression. Statistics and Computing 14, 199-222.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelSVR
    >>> X = np.linspace(0, 3, 30)[:, None]
    >>> svr = KernelSVR("rbf(gamma=1)", C=10.0, epsilon=0.05).fit(X, np.sin(X[:, 0]))
    >>> bool(np.abs(svr.predict(X) - np.sin(X[:, 0])).max() < 0.1)
    True
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "C": [Interval(Real, 0, None, closed="neither", note="the penalty; C=inf is the hard epsilon-tube"),
              Options(float, (np.inf,))],
        "epsilon": [Interval(Real, 0, None, closed="left", note="the tube's half width")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None), None],
        "shrinking": ["boolean"],
        "cache": ["boolean", Options(str, ("auto",))],
        "verbose": ["boolean", Interval(Integral, 0, None)],
    }

    def __init__(self, kernel="rbf", C=1.0, epsilon=0.1, *, tol=1e-3, max_iter=None,
                 shrinking=True, cache="auto", verbose=0):
        self.kernel = kernel
        self.C = C
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.cache = cache
        self.verbose = verbose

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        return resolve_estimator_kernel(self.kernel)

    def fit(self, X, y, sample_weight=None):
        """Fit on X of shape (n_samples, n_features) (or the Gram matrix for
        ``kernel="precomputed"``) and real targets y of shape (n_samples,)."""
        kernel = self._check_params()
        X, y = validate_fit_data(self, kernel, X, y)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        y = column_or_1d(y, warn=True).astype(np.float64)
        n = len(y)
        sw = check_sample_weight(sample_weight, n)
        weight = np.ones(n) if sw is None else sw
        Cs = np.where(weight > 0, float(self.C) * np.where(weight > 0, weight, 1.0),
                      0.0)  # C = inf: inf or 0 (never inf * 0)
        keep = np.flatnonzero(Cs > 0)  # as libsvm: samples of weight 0 take no part
        bar = progress(None, "SMO (epsilon-SVR)", self.verbose)
        opts = dict(tol=float(self.tol), max_iter=self.max_iter, shrinking=self.shrinking,
                    callback=(lambda steps, gap: bar.update(steps, violation=gap))
                    if is_verbose(self.verbose) else None)
        eps = float(self.epsilon)
        m = len(keep)
        with bar:
            if is_hard(self.C):
                res, choices = self._fit_hard(kernel, X, y, keep, eps, opts)
            elif kernel == "precomputed":
                K = np.asarray(X, dtype=np.float64)[np.ix_(keep, keep)]
                choices = ()
                res = svr_gram(K, y[keep], Cs[keep], eps, **opts)
            else:
                store = decide_store(f"the {2 * m} x {2 * m} Gram matrix of the 2n variables",
                                     32.0 * m * m, self.cache)
                choices = (store,)
                Xk = X[keep]
                if store.value:
                    res = svr_gram(gram(kernel, Xk), y[keep], Cs[keep], eps, **opts)
                else:
                    choices += (row_cache_choice(2 * m),)
                    res = svr_kernel(kernel, Xk, y[keep], Cs[keep], eps,
                                     cache_bytes=row_cache_bytes(), **opts)
        self.intercept_ = np.array([res.bias])
        self.dual_objective_ = float(res.dual_objective)
        self.duality_gap_ = float(res.duality_gap)
        plan = Plan("smo", reason="the epsilon-SVR dual (2n variables) by SMO",
                    problem={"n": int(m)}, choices=choices)
        store_smo_fit(self, kernel, X, keep, res.coef[None, :], plan, n_iter=int(res.n_iter),
                      max_violation=float(res.max_violation), float64_rows=False)
        if not res.converged:
            warn_smo_stopped(self, res.max_violation)
        return self

    def _fit_hard(self, kernel, X, y, keep, eps, opts):
        """C = inf: the hard tube (stored K when it fits, else kernel rows on demand)."""
        m = len(keep)
        Xk = None if kernel == "precomputed" else X[keep]
        if kernel == "precomputed":
            K, choices = np.asarray(X, dtype=np.float64)[np.ix_(keep, keep)], ()
        else:
            store = decide_store(f"the {2 * m} x {2 * m} Gram matrix of the 2n variables",
                                 32.0 * m * m, self.cache)
            K = gram(kernel, Xk) if store.value else None
            choices = (store,) if store.value else (store, row_cache_choice(2 * m))
        res = solve_hard_tube(type(self).__name__, K, kernel, Xk, y[keep], eps,
                              tol=opts["tol"], max_iter=opts["max_iter"],
                              callback=opts["callback"], cache_bytes=row_cache_bytes())
        return res, choices + (hard_tube_choice(),)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        return tag_precomputed(tags, self.kernel)

    @property
    def n_support_(self):
        """Number of support vectors, as scikit-learn's: ndarray of shape (1,), int32."""
        check_is_fitted(self, "support_")
        return np.array([len(self.support_)], dtype=np.int32)

    def predict(self, X):
        """Predicted values, shape (n_queries,).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_predict_data(self, self.kernel_, X)
        coef = self.dual_coef_[0]
        if self.kernel_ == "precomputed":
            out = np.asarray(X, dtype=np.float64)[:, self.support_] @ coef
        elif coef.size == 0:
            out = np.zeros(X.shape[0])  # len() is ambiguous for scipy.sparse
        else:
            out = GramOperator(self.kernel_, X, self.support_vectors_).matvec(coef)
        return out + float(self.intercept_[0])
