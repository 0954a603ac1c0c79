"""The end of the single-problem SMO estimators' fits (KernelSVR, KernelOneClassSVM).

Both keep the same fitted state from one SMO result: the support vectors (the
samples with a nonzero coefficient), their coefficients as one row of
``dual_coef_``, the steps and final violation, and ``plan_`` (printed at
verbosity >= 1). What differs (the intercept, the objective's name) stays in
each estimator.
"""

from __future__ import annotations

import numpy as np

from ._base import as_float64_rows, report_plan, takes_strings

__all__ = ["store_smo_fit"]


def store_smo_fit(est, res, kernel, X, keep, coef, plan, *, float64_rows):
    """Set the shared fitted attributes of ``est`` from one SMO solution.

    Parameters
    ----------
    est : estimator
        Gets ``kernel_``, ``support_``, ``support_vectors_``, ``dual_coef_``,
        ``n_iter_``, ``max_violation_`` and ``plan_``.
    res : SMOResult or OneClassResult
    kernel : Kernel or "precomputed"
    X : array-like of shape (n_samples, n_features)
        The validated training inputs.
    keep : ndarray of shape (m,)
        Indices of the samples the solver saw (weight > 0).
    coef : ndarray of shape (m,)
        Their coefficients; nonzero ones make the support vectors.
    plan : Plan
    float64_rows : bool
        Keep support vectors as float64 rows (strings stay strings), else as
        indexed from X.

    Returns
    -------
    bool
        Whether SMO converged (the caller warns otherwise, from its ``fit``).
    """
    est.kernel_ = kernel
    sv = np.flatnonzero(coef != 0)
    est.support_ = keep[sv].astype(np.int64)
    if kernel == "precomputed":
        est.support_vectors_ = None
    else:
        rows = X[est.support_]
        est.support_vectors_ = (as_float64_rows(rows) if float64_rows and
                                not takes_strings(kernel) else rows)
    est.dual_coef_ = coef[sv][None, :]
    est.n_iter_ = int(res.n_iter)
    est.max_violation_ = float(res.max_violation)
    est.plan_ = plan
    report_plan(est, est.verbose)
    return bool(res.converged)
