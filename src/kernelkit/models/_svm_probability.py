"""KernelSVC's class probabilities, as libsvm: Platt sigmoids fitted on 5-fold
cross-validated decision values of each binary problem, then pairwise coupling."""

from __future__ import annotations

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..gram import GramOperator
from ..kernels import Linear
from ..solvers.platt import MIN_PROBABILITY, pairwise_coupling, sigmoid_fit, sigmoid_predict

__all__ = ["N_FOLDS", "cross_validated_sigmoid", "svc_probabilities",
           "ProbabilitiesAndWeightsMixin"]

#: libsvm's folds for the sigmoid's decision values.
N_FOLDS = 5


def cross_validated_sigmoid(solve, Ksub, rows, ysub, Csub, kernel, X, order, rng):
    """(A, B) of one binary problem, as libsvm's ``svm_binary_svc_probability``.

    The problem's samples are shuffled by ``rng`` and cut into 5 folds; each fold's
    decision values come from the SVM trained on the other four (same C_i), with
    libsvm's +1/-1 fallbacks when the other folds hold one class only; the sigmoid
    is fitted to all of them. ``solve(K, rows, y, C)`` trains one SVM and returns
    the estimator's result dict (``alpha``, ``bias``); ``Ksub`` is the problem's
    Gram matrix or None (rows on demand, through ``kernel`` and ``X[order[rows]]``).
    """
    m = len(rows)
    perm = rng.permutation(m)
    dec = np.empty(m)
    for f in range(N_FOLDS):
        begin, end = f * m // N_FOLDS, (f + 1) * m // N_FOLDS
        test = perm[begin:end]
        train = np.concatenate([perm[:begin], perm[end:]])
        ytr = ysub[train]
        n_pos = int((ytr > 0).sum())
        if n_pos == 0 or n_pos == len(train):  # libsvm: 0 if empty, else the one class
            dec[test] = 0.0 if len(train) == 0 else (1.0 if n_pos else -1.0)
            continue
        Ktr = None if Ksub is None else np.ascontiguousarray(Ksub[np.ix_(train, train)])
        res = solve(Ktr, rows[train], ytr, Csub[train])
        coef = res["alpha"] * ytr
        sv = np.flatnonzero(coef)
        if not sv.size or not test.size:
            dec[test] = res["bias"]
        elif Ksub is not None:
            dec[test] = Ksub[np.ix_(test, train[sv])] @ coef[sv] + res["bias"]
        else:
            op = GramOperator(kernel, X[order[rows[test]]], X[order[rows[train[sv]]]])
            dec[test] = op.matvec(coef[sv]) + res["bias"]
    return sigmoid_fit(dec, ysub)


def svc_probabilities(dec, probA, probB, n_classes):
    """Class probabilities from one-vs-one decision values (libsvm's orientation:
    positive for the first class of each pair), shape (n_queries, n_classes)."""
    if n_classes == 2:
        r = np.clip(sigmoid_predict(dec[:, 0], probA[0], probB[0]),
                    MIN_PROBABILITY, 1 - MIN_PROBABILITY)
        return np.column_stack([r, 1.0 - r])
    r = np.zeros((dec.shape[0], n_classes, n_classes))
    p = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            r[:, a, b] = np.clip(sigmoid_predict(dec[:, p], probA[p], probB[p]),
                                 MIN_PROBABILITY, 1 - MIN_PROBABILITY)
            r[:, b, a] = 1.0 - r[:, a, b]
            p += 1
    return pairwise_coupling(r)


class ProbabilitiesAndWeightsMixin:
    """KernelSVC's ``predict_proba``, ``predict_log_proba`` (only with
    ``probability=True``, scikit-learn's ``available_if``) and ``coef_`` (only for
    the linear kernel). Uses the estimator's ``_raw_decision`` and ``_coef_matrix``."""

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False; "
                                 "fit with probability=True (Platt scaling, as libsvm)")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities: Platt sigmoids and pairwise coupling, as libsvm.

        As libsvm's, the most probable class can differ from ``predict`` near the
        boundary (see ``probability``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_queries, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self, "dual_coef_")
        if not hasattr(self, "probA_"):
            raise NotFittedError("predict_proba is not available: this KernelSVC was fitted "
                                 "with probability=False; fit it again with probability=True")
        dec = self._raw_decision(X)
        if len(self.classes_) == 2:
            dec = -dec  # libsvm's orientation: positive for classes_[0]
        return svc_probabilities(dec, self.probA_, self.probB_, len(self.classes_))

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, shape (n_queries, n_classes)."""
        return np.log(self.predict_proba(X))

    @property
    def coef_(self):
        """w of each binary problem (linear kernel only), shape (n_problems, n_features).

        Raises
        ------
        AttributeError
            For any kernel other than the linear one (w lives in a feature space
            with no explicit coordinates), or before ``fit``.
        """
        check_is_fitted(self, "dual_coef_")
        if type(self.kernel_) is not Linear:
            raise AttributeError(f"coef_ is only available with the linear kernel, not "
                                 f"{self.kernel_!r}; the dual form is dual_coef_ and "
                                 "support_vectors_")
        sv = self.support_vectors_
        if hasattr(sv, "toarray"):  # sparse support vectors: a dense w of n_features
            return np.asarray((sv.T @ self._coef_matrix()).T, dtype=np.float64)
        return self._coef_matrix().T @ np.asarray(sv, dtype=np.float64)

