"""The end of the SMO estimators' fits (KernelSVC, KernelSVR, KernelOneClassSVM).

All three keep the same fitted state from their SMO solutions: the support
vectors (the samples with a nonzero coefficient in some problem), their
coefficients as the rows of ``dual_coef_``, the steps and final violations,
and ``plan_`` (printed at verbosity >= 1), set by :func:`store_smo_fit`. What
differs (the intercepts, the objectives, KernelSVC's classes and sigmoids)
stays in each estimator. KernelSVC's one-vs-one problems keep libsvm's layout
of ``dual_coef_`` (:func:`to_libsvm_layout`), read back for prediction by
:func:`from_libsvm_layout`.
"""

from __future__ import annotations

import numpy as np

from ._base import as_float64_rows, report_plan, takes_strings

__all__ = ["class_pairs", "from_libsvm_layout", "store_smo_fit", "to_libsvm_layout"]


def store_smo_fit(est, kernel, X, keep, coefs, plan, *, n_iter, max_violation, float64_rows,
                  no_rows=None):
    """Set the fitted state shared by the SMO estimators; return the support vectors.

    Parameters
    ----------
    est : estimator
        Gets ``kernel_``, ``support_``, ``support_vectors_``, ``dual_coef_``,
        ``n_iter_``, ``max_violation_`` and ``plan_``.
    kernel : Kernel or "precomputed"
    X : array-like of shape (n_samples, n_features) or None
        The validated training inputs (None: only with ``kernel="precomputed"``).
    keep : ndarray of shape (m,)
        Indices in X of the samples the solver saw (weight > 0).
    coefs : ndarray of shape (n_rows, m)
        The rows of ``dual_coef_`` over those samples; a sample nonzero in some
        row is a support vector.
    plan : Plan or None
        None: ``plan_`` is left as it is (a search's fold model).
    n_iter : int or ndarray of shape (n_problems,)
        SMO steps (of each binary problem).
    max_violation : float, ndarray of shape (n_problems,) or None
        The final maximal KKT violations; None (Pegasos) leaves no
        ``max_violation_``.
    float64_rows : bool
        Keep support vectors as float64 rows (strings stay strings), else as
        indexed from X.
    no_rows : None or ndarray, default=None
        ``support_vectors_`` for ``kernel="precomputed"``.

    Returns
    -------
    ndarray of shape (n_SV,)
        The support vectors' positions in ``keep``.
    """
    est.kernel_ = kernel
    used = np.flatnonzero((coefs != 0).any(axis=0))
    est.support_ = keep[used].astype(np.int64)
    if kernel == "precomputed":
        est.support_vectors_ = no_rows
    else:
        rows = X[est.support_]
        est.support_vectors_ = (as_float64_rows(rows) if float64_rows and
                                not takes_strings(kernel) else rows)
    est.dual_coef_ = coefs[:, used]
    est.n_iter_ = n_iter
    est.__dict__.pop("max_violation_", None)  # left over from an earlier fit
    if max_violation is not None:
        est.max_violation_ = max_violation
    if plan is not None:
        est.plan_ = plan
        report_plan(est, est.verbose)
    return used


def class_pairs(n_classes):
    """(p, a, b) for the one-vs-one problems p of classes a < b, in libsvm's order."""
    pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
    return [(p, a, b) for p, (a, b) in enumerate(pairs)]


def to_libsvm_layout(coefs, labels, n_classes):
    """One-vs-one coefficients in libsvm's layout of ``dual_coef_``.

    Parameters
    ----------
    coefs : ndarray of shape (n_pairs, m)
        Row p: y_i a_i of pair p's problem (0 outside the pair).
    labels : ndarray of shape (m,)
        The samples' class indices.
    n_classes : int

    Returns
    -------
    ndarray of shape (n_classes - 1, m)
        The coefficient of a sample of class c in the pair (a, b) lives in row
        b - 1 if c == a, in row a if c == b (each of c's n_classes - 1 pairs has
        its own row).
    """
    dual = np.zeros((n_classes - 1, coefs.shape[1]))
    for p, a, b in class_pairs(n_classes):
        dual[b - 1, labels == a] = coefs[p, labels == a]
        dual[a, labels == b] = coefs[p, labels == b]
    return dual


def from_libsvm_layout(dual, labels, n_classes):
    """The inverse of :func:`to_libsvm_layout`: shape (n_SV, n_pairs), column p the
    coefficients of pair p's problem (one matrix product predicts every pair).

    ``dual`` is ``dual_coef_`` (n_classes - 1, n_SV), ``labels`` the support
    vectors' class indices.
    """
    W = np.zeros((dual.shape[1], n_classes * (n_classes - 1) // 2))
    for p, a, b in class_pairs(n_classes):
        W[labels == a, p] = dual[b - 1, labels == a]
        W[labels == b, p] = dual[a, labels == b]
    return W
