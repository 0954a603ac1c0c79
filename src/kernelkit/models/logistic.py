"""Kernel logistic regression: binary, one-vs-rest or multinomial (softmax)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import log_expit, log_softmax

from .._progress import progress
from .._validation import Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..planning import Plan, choose_logistic_solver
from ..planning.machines import gram_store_choice
from ..solvers.newton import lbfgs_multinomial
from ._base import KernelParamsMixin, kernel_for_data
from ._base import report_plan, resolve_estimator_kernel, validate_classifier_data
from ._base import as_float64_rows  # sparse rows stay sparse
from ._columns import _ScoreClassifier, fit_columns, gram_or_operator, warn_not_converged
from .kernel_machine import ITERATION_CONSTRAINTS, class_sample_weight

__all__ = ["KernelLogisticRegression"]

_SOLVERS = ("auto", "lbfgs", "newton", "sgd")
_MULTI = ("multinomial", "ovr")


class KernelLogisticRegression(KernelParamsMixin, _ScoreClassifier):
    """Kernel logistic regression, penalised as scikit-learn's LogisticRegression.

    Minimises (1/2)||f||_H^2 + C sum_i log(1 + exp(-y_i f(x_i))) (binary), or
    the softmax cross-entropy with one function f_c per class (multinomial).
    By the representer theorem f(x) = sum_j u_j k(x, x_j). With a linear
    kernel this is ``LogisticRegression(C=C, fit_intercept=False)`` with
    w = X'u. In the solvers' scaling, lam = 1 / (n C). No intercept: add a
    constant to the kernel (``"rbf + 1"``) for one.

    Parameters
    ----------
    kernel : Kernel or str, default="rbf"
    C : float, default=1.0
        Inverse regularisation strength, > 0.
    solver : {"auto", "lbfgs", "newton", "sgd"}, default="auto"
        ``"lbfgs"``: products with K only (K cached if it takes at most half
        the memory budget); ``"newton"``: IRLS on the cached Gram matrix
        (binary and one-vs-rest; a Cholesky per step up to n = 500, then
        preconditioned CG: no n^3 step); ``"sgd"``: the SGD strategies of
        :class:`KernelMachineClassifier` (binary and one-vs-rest). ``"auto"``
        (:func:`kernelkit.planning.choose_logistic_solver`, recorded in
        ``plan_``): L-BFGS for the multinomial model and up to n = 1000, Newton
        above (same optimum; n = 10,000 in seconds rather than minutes).
    multi_class : {"multinomial", "ovr"}, default="multinomial"
        For more than two classes: one softmax model, or one binary model per class.
    strategy : str, default="auto"
        SGD strategy (see :func:`kernelkit.planning.plan_sgd`).
    n_epochs : int, default=5
        SGD passes.
    max_iter : int, default=1000
        Newton / L-BFGS iterations.
    tol : float, default=1e-8
        Newton decrement / L-BFGS gradient tolerance; stopping at ``max_iter``
        short of it warns (:class:`~sklearn.exceptions.ConvergenceWarning`).
    random_state : int, RandomState or None
        Seeds the SGD sample order.
    class_weight : dict or "balanced", optional
        Weight of each class's losses, as scikit-learn's LogisticRegression
        (``"balanced"``: n / (n_classes * count)); multiplies ``sample_weight``.
    verbose : int, default=0
        Progress of the solver's steps (with the gradient norm) and the plan;
        ``config_context(verbosity=1)`` does the same.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) (two classes) or (n_samples, n_classes)
    X_fit_ : ndarray of shape (n_samples, n_features)
    coef_, feature_map_
        Instead of ``dual_coef_``/``X_fit_`` when SGD ran on explicit features.
    multi_class_ : {"binary", "ovr", "multinomial"}
    representation_, solver_, n_iter_, objective_, plan_, gradient_norm_
        As in :class:`KernelMachine` (``gradient_norm_`` for Newton / L-BFGS,
        ``last_epoch_change_`` for SGD).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2)); y = np.where(X[:, 0] > 0, "yes", "no")
    >>> clf = KernelLogisticRegression("rbf(gamma=0.5)", C=10.0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "C": [Interval(Real, 0, None, closed="neither", note="the inverse penalty")],
        "solver": [Options(str, _SOLVERS)],
        "multi_class": [Options(str, _MULTI)],
        "class_weight": [Options(str, ("balanced",)), dict, None],
        "verbose": [Interval(Real, 0, None)],
        **ITERATION_CONSTRAINTS,
    }

    def __init__(self, kernel="rbf", C=1.0, *, solver="auto", multi_class="multinomial",
                 strategy="auto", n_epochs=5, max_iter=1000, tol=1e-8, random_state=None,
                 class_weight=None, verbose=0):
        self.kernel = kernel
        self.C = C
        self.solver = solver
        self.multi_class = multi_class
        self.strategy = strategy
        self.n_epochs = n_epochs
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.class_weight = class_weight
        self.verbose = verbose

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        kernel = resolve_estimator_kernel(self.kernel)
        if kernel == "precomputed":
            raise InvalidParameterError("KernelLogisticRegression does not take "
                                        "kernel='precomputed'; pass a kernel object or expression")
        return kernel

    def fit(self, X, y, sample_weight=None):
        """Fit on X of shape (n_samples, n_features), labels y of shape (n_samples,).

        ``sample_weight`` (shape (n_samples,), >= 0) multiplies each sample's
        loss, as in scikit-learn's LogisticRegression (an integer weight is the
        same model as that many copies of the row).
        """
        kernel = self._check_params()
        X, Y = validate_classifier_data(self, X, y, kernel)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        n = X.shape[0]
        sw = class_sample_weight(self.class_weight, self.classes_, Y, sample_weight)
        binary = Y.shape[1] == 1 or self.multi_class == "ovr"
        solver_choice = choose_logistic_solver(n, not binary, self.solver, C=self.C)
        if binary:
            self.multi_class_ = "binary" if Y.shape[1] == 1 else "ovr"
            fit = fit_columns(kernel, X, Y, "logistic", 1.0 / self.C, solver=self.solver,
                              strategy=self.strategy, features=None, n_epochs=self.n_epochs,
                              eta0="auto", average=False, max_iter=self.max_iter,
                              tol=self.tol, random_state=self.random_state,
                              sample_weight=sw, verbose=self.verbose,
                              solver_choice=solver_choice)
            self._store_fit(kernel, fit)
            report_plan(self, self.verbose)
            return self
        if solver_choice.value != "lbfgs":
            raise ValueError(f"solver={self.solver!r} solves binary problems (two classes, or "
                             "multi_class='ovr'); the multinomial model with "
                             f"{len(self.classes_)} classes needs solver='lbfgs'")
        self.multi_class_ = "multinomial"
        if kernel.input_kind in ("vector", "any"):
            X = as_float64_rows(X)  # sparse rows stay sparse
        store = gram_store_choice(n)  # planned before the Gram matrix is computed
        K = gram_or_operator(kernel, X, store.value)
        with progress(self.max_iter, "L-BFGS (multinomial)", self.verbose, unit="steps") as bar:
            res = lbfgs_multinomial(K, (Y > 0).astype(np.float64), 1.0 / (n * self.C),
                                    tol=self.tol, max_iter=self.max_iter, sample_weight=sw,
                                    callback=lambda it, grad: bar.update(1, grad=grad))
        self.kernel_ = kernel
        self.solver_ = "lbfgs"
        self.representation_ = "dual"
        self.plan_ = Plan("lbfgs", reason=solver_choice.reason,
                          problem={"n": n, "classes": len(self.classes_)},
                          choices=(solver_choice, store))
        self.X_fit_ = X
        self.dual_coef_ = res.coef
        self.n_iter_ = res.n_iter
        self.objective_ = np.array([res.objective])
        self.gradient_norm_ = np.array([res.grad_norm])
        if hasattr(self, "last_epoch_change_"):  # from an earlier SGD fit
            del self.last_epoch_change_
        warn_not_converged("lbfgs", [res.converged], self.gradient_norm_, self.max_iter,
                           self.tol)
        report_plan(self, self.verbose)
        return self

    def predict_log_proba(self, X):
        """Log-probabilities, shape (n_queries, n_classes); exact for large margins."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return np.column_stack([log_expit(-F), log_expit(F)])
        if self.multi_class_ == "multinomial":
            return log_softmax(F, axis=1)
        L = log_expit(F)  # one-vs-rest: normalised per-class probabilities
        return L - np.logaddexp.reduce(L, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Class probabilities, shape (n_queries, n_classes); rows sum to 1."""
        return np.exp(self.predict_log_proba(X))
