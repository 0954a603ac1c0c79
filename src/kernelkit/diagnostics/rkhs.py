"""The RKHS norm of a fitted model: the ||f||_H that the regulariser penalises.

A dual model f(x) = sum_i u_i k(x_i, x) (the representer theorem) has
||f||_H^2 = sum_ij u_i u_j k(x_i, x_j) = u'K u; a primal model
f(x) = w'psi(x) on a feature map has ||w||^2 = w'w, the norm of the same
function in the RKHS of the feature map's kernel psi(x)'psi(y) (for an exact
map such as the polynomial features, the RKHS of the kernel itself: u'K u =
w'w with w = Psi'u). This is the B of the generalisation bounds
(:func:`kernelkit.diagnostics.generalization_bound`): the class
{f : ||f||_H <= B} that a fitted model belongs to.

An unpenalised intercept b is not part of f's RKHS norm and is left out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rkhs_norm"]


def _columns_norm(W):
    """Euclidean norm of each column of W (D,) or (D, k); float for one column."""
    W = np.asarray(W, dtype=np.float64)
    norms = np.sqrt(np.einsum("i...,i...->...", W, W))
    return float(norms) if norms.ndim == 0 else norms


def _quadratic_form(kernel, X, U, K=None):
    """sqrt(u'K u) per column of U (n,) or (n, k), K = kernel(X, X) by blocks (or given)."""
    from ..gram import GramOperator

    U = np.asarray(U, dtype=np.float64)
    one = U.ndim == 1
    U2 = U[:, None] if one else U
    if K is not None:
        KU = np.asarray(K, dtype=np.float64) @ U2
    elif U2.shape[0] == 0:
        KU = np.zeros_like(U2)
    else:
        KU = GramOperator(kernel, X).matmat(U2)  # blocks within the memory budget
    sq = np.einsum("ik,ik->k", U2, KU)
    norms = np.sqrt(np.maximum(sq, 0.0))  # round-off can leave -1e-17
    return float(norms[0]) if one else norms


def _representation(model):
    rep = getattr(model, "representation_", None)
    if rep is not None:
        return rep
    solver = getattr(model, "solver_", None)
    if solver in ("primal", "falkon"):
        return solver
    if getattr(model, "dual_coef_", None) is None and getattr(model, "coef_", None) is not None:
        return "primal"
    return "dual"


def rkhs_norm(model, K=None):
    """||f||_H of a fitted kernel model: sqrt(u'K u) (dual) or ||w|| (primal).

    Parameters
    ----------
    model : fitted estimator
        Any kernelkit model whose function is a kernel expansion or a linear
        function of features: KernelRidge (dual, primal, Falkon), the kernel
        ridge classifiers and ``*CV`` learners, KernelMachine,
        KernelMachineClassifier, KernelLogisticRegression, KernelSVC (one norm
        per binary problem), KernelSVR, KernelOneClassSVM, the kitchen-sink
        models (the norm of beta in the sinks' feature space).
    K : array-like of shape (n, n), optional
        The training Gram matrix, for a model fitted with
        ``kernel="precomputed"`` (rows and columns of its ``X_fit_``, or of
        its support vectors for the SVMs); otherwise computed block by block
        from the model's kernel.

    Returns
    -------
    float or ndarray of shape (n_targets,) / (n_problems,)
        One norm per target column, per class (one-vs-rest) or per binary
        problem (KernelSVC's one-vs-one pairs, in ``(0, 1), (0, 2), ...`` order);
        a float when there is one.

    Raises
    ------
    ValueError
        If the model is not fitted, or is precomputed and ``K`` is missing.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0]
    >>> dual = KernelRidge("linear", alpha=0.1, solver="dual").fit(X, y)
    >>> w = X.T @ dual.dual_coef_  # the explicit weights of the linear kernel
    >>> bool(np.isclose(rkhs_norm(dual), np.linalg.norm(w)))
    True
    """
    rep = _representation(model)
    kernel = getattr(model, "kernel_", None)
    if rep == "primal":
        coef = getattr(model, "coef_", None)
        if coef is None:
            raise ValueError(f"this {type(model).__name__} is not fitted (no coef_); call fit "
                             "first")
        return _columns_norm(coef)
    if rep == "falkon":
        return _quadratic_form(kernel, model.centers_, model.dual_coef_, K)
    if getattr(model, "X_fit_", None) is not None or (
            isinstance(kernel, str) and getattr(model, "dual_coef_", None) is not None
            and getattr(model, "support_vectors_", None) is None):
        X, U = getattr(model, "X_fit_", None), model.dual_coef_
    elif getattr(model, "support_vectors_", None) is not None:
        X = model.support_vectors_
        U = model._coef_matrix() if hasattr(model, "_coef_matrix") else \
            np.asarray(model.dual_coef_, dtype=np.float64).T
        if U.ndim == 2 and U.shape[1] == 1:
            U = U[:, 0]
    else:
        raise ValueError(f"this {type(model).__name__} is not fitted, or is not a kernel "
                         "expansion (no dual_coef_ with X_fit_ or support_vectors_, no coef_)")
    if isinstance(kernel, str):  # "precomputed": the training Gram matrix is needed
        if K is None:
            raise ValueError(f"this {type(model).__name__} was fitted on a precomputed kernel: "
                             "pass K, the Gram matrix of its training rows (support vectors "
                             "for an SVM), as rkhs_norm(model, K=...)")
        K = np.asarray(K, dtype=np.float64)
        n = np.shape(U)[0]
        if K.shape != (n, n):
            raise ValueError(f"K has shape {K.shape}; the model's coefficients need ({n}, {n})")
    return _quadratic_form(kernel, X, U, K)
