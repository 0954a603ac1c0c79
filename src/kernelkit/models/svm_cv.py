"""Support vector machines with C (and kernel parameters) chosen by cross-validation.

One squared-distance matrix of all rows for a grid of RBF-like kernels (else one
Gram matrix per kernel candidate); each (candidate, fold) training and held-out
block by one compiled exp pass into buffers reused across the search
(:class:`~kernelkit.tuning.distance_blocks.DistanceGram`), the (candidate, fold) paths on
one thread per core, and SMO warm-started along increasing C
(:func:`kernelkit.solvers.smo.smo_gram_path`), where scikit-learn's
``GridSearchCV(SVC(...))`` recomputes kernel rows and starts SMO from zero for
every (candidate, C, fold). The search itself is
:class:`~kernelkit.models._cv_path.PathSearchCV`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import column_or_1d

from .._validation import Interval, Options
from ..solvers.smo import seed_alpha, smo_gram_path
from ..solvers.svr import svr_gram
from ._base import (KernelParamsMixin, check_class_weights, check_sample_weight,
                    validate_fit_data)
from ._cv_path import PATH_CONSTRAINTS, ClassifierOutputs, PathSearchCV
from .svm import KernelSVC
from .svr import KernelSVR

__all__ = ["KernelSVCCV", "KernelSVRCV"]

_SHARED_DOC = """
    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        The base kernel; ``param_grid`` varies its parameters.
    Cs : int or array-like of float, default=7
        The values of C: a list, or k for ``np.logspace(-2, 4, k)``.
    param_grid : dict of str to list, optional
        Kernel parameters to try, e.g. ``{"gamma": [0.01, 0.1, 1.0]}`` (for a
        composite kernel ``{"k1__gamma": [...]}``): every combination with every C.
    cv : int, cross-validation splitter or iterable of (train, test), optional
        As scikit-learn's ``GridSearchCV`` (``check_cv``): default 5 folds,
        stratified for classifiers.
    scoring : str or callable, optional
        A scikit-learn scorer name or ``scorer(estimator, X, y)``; default the
        estimator's ``score`` ({default_score}).
"""

_SHARED_ATTRIBUTES = """
    Attributes
    ----------
    C_ : float
        The chosen C.
    best_params_ : dict
        The chosen ``{"C": ..., **kernel parameters}``.
    best_score_ : float
        Its mean cross-validated score.
    best_index_ : int
        Its position in ``cv_results_``.
    cv_results_ : dict of arrays
        As ``GridSearchCV``'s: ``params``, ``param_<name>``,
        ``split<k>_test_score``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, one entry per candidate in ``ParameterGrid`` order.
    best_estimator_ : {estimator}
        Refitted on all the data with the chosen parameters; ``predict`` and
        ``decision_function`` are its own.
    kernel_ : Kernel or "precomputed"
        The chosen kernel.
    n_splits_ : int
    plan_ : Plan
        Whether the Gram matrix of all rows was stored (then warm starts) or
        each fold fitted cold, whether each choice sits at its grid's edge
        (warned with :class:`~kernelkit.tuning.GridEdgeWarning`), where the
        kernel blocks came from (one squared-distance matrix or a Gram matrix
        per candidate) and how many threads ran the (candidate, fold) paths.
    n_features_in_ : int

    Notes
    -----
    Data-dependent kernel parameters (``gamma="scale"``) are fixed once from
    all the training rows, where ``GridSearchCV`` fixes them per fold. Scores
    equal ``GridSearchCV``'s over ``{"C": Cs, **param_grid}`` with the same
    folds up to the solver's tolerance ``tol`` (a warm-started SMO stops at a
    different point within ``tol`` of the same optimum).

    References
    ----------
    DeCoste, D. and Wagstaff, K. (2000). Alpha seeding for support vector
    machines. Proceedings of KDD 2000, 345-349.
"""


class KernelSVCCV(ClassifierOutputs, KernelParamsMixin, ClassifierMixin, PathSearchCV):
    __doc__ = ("""Kernel SVM classifier with C and kernel parameters chosen by cross-validation.

    The search of ``GridSearchCV(KernelSVC(kernel), {"C": Cs, **param_grid})``
    at a fraction of its cost: the Gram matrix of all rows once per kernel
    candidate, each fold's blocks by indexing, and SMO along increasing C,
    each solve started from the previous one scaled by C_new / C_old
    (DeCoste & Wagstaff's alpha seeding).
""" + _SHARED_DOC.replace("{default_score}", "accuracy")
               + """    class_weight : dict or "balanced", optional
    tol : float, default=1e-3
    max_iter : int, optional
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
    multiclass : {"ovo", "ovr"}, default="ovo"
    cache : {"auto", True, False}, default="auto"
    break_ties : bool, default=False
        As :class:`KernelSVC` (for every fit of the search and the refit).
    verbose : int, default=0
        >= 1 prints ``plan_``.
""" + _SHARED_ATTRIBUTES.replace("{estimator}", "KernelSVC") + """
    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernelkit.models import KernelSVCCV
    >>> X, y = make_classification(200, 5, random_state=0)
    >>> search = KernelSVCCV("rbf", Cs=[0.1, 1, 10, 100], param_grid={"gamma": [0.02, 0.2, 2]},
    ...                      cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['C', 'gamma']
    """)

    _is_classifier = True
    _reuses_blocks = True  # the fold's blocks live only while the fold is solved
    _param_constraints = {
        "kernel": ["kernel"],
        **PATH_CONSTRAINTS,
        "class_weight": [Options(str, ("balanced",)), dict, None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None), None],
        "decision_function_shape": [Options(str, ("ovr", "ovo"))],
        "multiclass": [Options(str, ("ovo", "ovr"))],
        "cache": ["boolean", Options(str, ("auto",))],
        "break_ties": ["boolean"],
        "verbose": ["boolean", Interval(Integral, 0, None)],
    }

    def __init__(self, kernel="rbf", Cs=7, *, param_grid=None, cv=None, scoring=None,
                 class_weight=None, tol=1e-3, max_iter=None, decision_function_shape="ovr",
                 multiclass="ovo", cache="auto", break_ties=False, verbose=0):
        self.kernel = kernel
        self.Cs = Cs
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.multiclass = multiclass
        self.cache = cache
        self.break_ties = break_ties
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Choose C (and the kernel parameters) by cross-validation and refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            for ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies C per sample in every fit (each fold's own weights), as
            ``GridSearchCV(...).fit(X, y, sample_weight=...)``, which weights the scores too.

        Returns
        -------
        self
        """
        base = self._check_params()
        X, y, sw = self._classifier_data(X, y, base, sample_weight)
        return self._search(X, y, base, sw)

    def _make_estimator(self, kernel, C):
        return KernelSVC(kernel, C=float(C), tol=self.tol, max_iter=self.max_iter,
                         class_weight=self.class_weight,
                         decision_function_shape=self.decision_function_shape,
                         multiclass=self.multiclass, cache=self.cache,
                         break_ties=self.break_ties)

    def _fold_path(self, K, train, y_train, Cs, sw_train=None):
        """KernelSVC's problems on one fold's rows of K, solved along increasing C."""
        classes, y_idx = np.unique(y_train, return_inverse=True)
        weights = check_class_weights(compute_class_weight(self.class_weight, classes=classes,
                                                           y=y_train), classes)[y_idx]
        if sw_train is not None:
            weights = weights * sw_train
        keep = np.flatnonzero(weights > 0)
        order = keep[np.argsort(y_idx[keep], kind="stable")]  # by class, as KernelSVC
        yk = y_idx[order]
        n_classes = len(classes)
        counts = np.bincount(yk, minlength=n_classes)
        if (counts > 0).sum() < 2:
            raise ValueError("a training fold has samples of one class only: use fewer folds "
                             "or a stratified splitter")
        Ks = K[np.ix_(train[order], train[order])]
        problems = []
        if n_classes == 2 or self.multiclass == "ovr":
            rows = np.arange(len(order))
            for a in range(1 if n_classes == 2 else n_classes):
                problems.append((rows, np.where(yk == a, 1.0, -1.0), Ks))
        else:
            starts = np.concatenate([[0], np.cumsum(counts)])
            for a in range(n_classes):
                for b in range(a + 1, n_classes):
                    rows = np.r_[starts[a]:starts[a + 1], starts[b]:starts[b + 1]]
                    problems.append((rows, np.where(yk[rows] == a, 1.0, -1.0),
                                     np.ascontiguousarray(Ks[np.ix_(rows, rows)])))
        w = weights[order]
        paths = [smo_gram_path(Kp, ys, Cs, w[rows], tol=self.tol, max_iter=self.max_iter)
                 for rows, ys, Kp in problems]  # each C warm from the previous one
        for C in Cs:
            coefs, results, stopped = [], [], False
            for (rows, ys, Kp), path in zip(problems, paths):
                r = next(path)
                stopped |= not r.converged
                coef = np.zeros(len(order))
                coef[rows] = r.alpha * ys
                coefs.append(coef)
                results.append({"alpha": r.alpha, "bias": r.bias, "n_iter": r.n_iter,
                                "dual": r.dual_objective, "gap": r.duality_gap,
                                "converged": r.converged, "violation": r.max_violation})
            yield float(C), self._fold_model(C, classes, len(train), order, yk, coefs,
                                             results), stopped

    def _fold_model(self, C, classes, n_train, order, yk, coefs, results):
        """A KernelSVC on the precomputed fold Gram matrix with this fold's solution: it
        predicts from K[test, train] exactly as the fold's own KernelSVC would."""
        model = _FoldSVC(**self._make_estimator("precomputed", C).get_params())
        model.classes_ = classes
        model.kernel_ = "precomputed"
        model.n_features_in_ = n_train
        model._store(None, order, yk, np.array(coefs), results, "precomputed", len(classes))
        model._full_coef = np.zeros((n_train, len(results)))
        model._full_coef[model.support_] = model._coef_matrix()
        return model


class _FoldSVC(KernelSVC):
    """A fold's :class:`KernelSVC` in a search, scored on the held-out block K[test, train]
    that the search computed itself (a finite float64 array, never user input): its
    decision values are one matrix-vector product with the coefficients spread over all
    training columns (zeros off the support vectors), without the copy of the support
    vectors' columns and the checks of user data (measured 25 + 30 ms of a 55 ms score
    on a 2,000 x 8,000 block, 125 times per 5 x 5 grid)."""

    def _raw_decision(self, X):
        return X @ self._full_coef + np.asarray(self.intercept_, dtype=np.float64)


class KernelSVRCV(KernelParamsMixin, RegressorMixin, PathSearchCV):
    __doc__ = ("""Epsilon-SVR with C and kernel parameters chosen by cross-validation.

    The search of ``GridSearchCV(KernelSVR(kernel, epsilon=epsilon),
    {"C": Cs, **param_grid})``: the Gram matrix of all rows once per kernel
    candidate, folds by indexing, SMO on the 2n variables (a, a*) along
    increasing C, each solve started from the previous one scaled by C_new / C_old.
""" + _SHARED_DOC.replace("{default_score}", "R^2") + """    epsilon : float, default=0.1
    tol : float, default=1e-3
    max_iter : int, optional
    shrinking : bool, default=True
    cache : {"auto", True, False}, default="auto"
        As :class:`KernelSVR`.
    verbose : int, default=0
        >= 1 prints ``plan_``.
""" + _SHARED_ATTRIBUTES.replace("{estimator}", "KernelSVR") + """
    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelSVRCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 2)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=120)
    >>> search = KernelSVRCV("rbf(gamma=0.5)", Cs=[0.1, 1, 10, 100], epsilon=0.05, cv=3)
    >>> float(search.fit(X, y).best_score_) > 0.8
    True
    """)

    _reuses_blocks = True
    _param_constraints = {
        "kernel": ["kernel"],
        **PATH_CONSTRAINTS,
        "epsilon": [Interval(Real, 0, None, closed="left", note="the tube's half width")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None), None],
        "shrinking": ["boolean"],
        "cache": ["boolean", Options(str, ("auto",))],
        "verbose": ["boolean", Interval(Integral, 0, None)],
    }

    def __init__(self, kernel="rbf", Cs=7, *, param_grid=None, cv=None, scoring=None,
                 epsilon=0.1, tol=1e-3, max_iter=None, shrinking=True, cache="auto", verbose=0):
        self.kernel = kernel
        self.Cs = Cs
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.cache = cache
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None):
        """Choose C (and the kernel parameters) by cross-validation and refit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            for ``kernel="precomputed"``.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies C per sample in every fit, as :class:`KernelSVCCV`'s.

        Returns
        -------
        self
        """
        base = self._check_params()
        X, y = validate_fit_data(self, base, X, y)
        y = column_or_1d(y, warn=True).astype(np.float64)
        return self._search(X, y, base, check_sample_weight(sample_weight, X.shape[0]))

    def _make_estimator(self, kernel, C):
        return KernelSVR(kernel, C=float(C), epsilon=self.epsilon, tol=self.tol,
                         max_iter=self.max_iter, shrinking=self.shrinking, cache=self.cache)

    def _fold_path(self, K, train, y_train, Cs, sw_train=None):
        """The epsilon-SVR dual on one fold's rows of K along increasing C (samples of
        weight 0 left out, as KernelSVR)."""
        weights = np.ones(len(train)) if sw_train is None else sw_train
        keep = np.flatnonzero(weights > 0)
        K_train = K[np.ix_(train[keep], train[keep])]
        previous = None
        for C in Cs:
            bounds = float(C) * weights[keep]
            start = None if previous is None else seed_alpha(previous[0],
                                                             np.r_[previous[1], previous[1]],
                                                             np.r_[bounds, bounds])
            r = svr_gram(K_train, y_train[keep], bounds, float(self.epsilon), tol=self.tol,
                         max_iter=self.max_iter, shrinking=self.shrinking, alpha0=start)
            previous = (r.alpha, bounds)
            model = self._make_estimator("precomputed", C)
            sv = np.flatnonzero(r.coef != 0)
            model.kernel_ = "precomputed"
            model.n_features_in_ = len(train)
            model.support_ = keep[sv].astype(np.int64)
            model.support_vectors_ = None
            model.dual_coef_ = r.coef[sv][None, :]
            model.intercept_ = np.array([r.bias])
            yield float(C), model, not r.converged
