"""Kernel support vector classification: SMO (as libsvm) or kernelised Pegasos.

Why this module is long: it is one estimator, :class:`KernelSVC`, whose public
docstring (every parameter and fitted attribute, the solvers' differences, the
references) is a fifth of it, and whose fit trains several binary problems (two
classes, one-vs-rest or one-vs-one): their Gram matrices stored whole, cut per
class pair from class blocks, filled row by row or replaced by kernel rows on
demand, each choice recorded in ``plan_``; SMO, the hard margin or Pegasos on
each; and the sigmoids of ``probability=True``. Its fitted state is kept as
KernelSVR's and KernelOneClassSVM's are (:mod:`._svm_tail`, with libsvm's layout
of ``dual_coef_``).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._progress import is_verbose, progress
from .._validation import Interval, Options, validate_params
from .. import config
from ..kernels import RBF
from ..gram import GramOperator, gram, pairwise_blocked, recorded_product_choice
from ..planning import Plan, decide_store, row_cache_bytes, row_cache_choice
from ..planning.storage import warm_buffer_choice
from ..solvers.pegasos import pegasos_gram, pegasos_kernel, pegasos_objectives
from ..solvers.class_pairs import pair_grams, pair_grams_bytes, sub_gram
from ..solvers.buffers import RowPages, borrow, can_map_ahead, give_back
from ..planning.machines import rows_ahead_choice, rows_on_demand_choice
from ..solvers.smo import LazyGram, smo_gram, smo_kernel, smo_lazy_gram
from ._base import KernelParamsMixin, kernel_for_data
from ._base import (check_sample_weight, check_symmetric_gram, resolve_estimator_kernel,
                    validate_fit_data, validate_predict_data)
from ._base import check_class_weights, tag_precomputed
from ._svm_probability import ProbabilitiesAndWeightsMixin, cross_validated_sigmoid
from ._hard_margin import hard_margin_choice, is_hard, refuse_hard_pegasos, solve_hard_margin
from ._svm_tail import class_pairs, from_libsvm_layout, store_smo_fit, to_libsvm_layout

__all__ = ["KernelSVC"]

_SOLVERS = ("smo", "pegasos")


def _ovr_decision(dec, n_classes):
    """libsvm's one-vs-one values turned into one-vs-rest scores (as scikit-learn):
    votes plus confidences squashed into (-1/3, 1/3), so ties break by confidence."""
    votes = np.zeros((dec.shape[0], n_classes))
    conf = np.zeros((dec.shape[0], n_classes))
    for p, a, b in class_pairs(n_classes):
        conf[:, a] += dec[:, p]
        conf[:, b] -= dec[:, p]
        votes[:, a] += dec[:, p] >= 0
        votes[:, b] += dec[:, p] < 0
    return votes + conf / (3 * (np.abs(conf) + 1))


def _float32_policy(X):
    """Whether the dtype policy keeps K in float32 (float32 inputs under
    ``config_context(dtype="float32")``): then no pooled float64 buffer."""
    return config.get_config()["dtype"] == "float32" and getattr(X, "dtype", None) == np.float32


def one_pass_rbf_gamma(kernel, X):
    """The gamma of an isotropic RBF ``kernel`` on dense float64 rows ``X`` (whose rows
    SMO can compute in one compiled pass each), else ``None``."""
    if (type(kernel) is RBF and not kernel.is_ard and isinstance(X, np.ndarray)
            and X.dtype == np.float64 and X.ndim == 2):
        return kernel.gamma_value
    return None


class KernelSVC(KernelParamsMixin, ProbabilitiesAndWeightsMixin, ClassifierMixin, BaseEstimator):
    """Soft-margin kernel support vector classifier.

    Solves, for each binary problem, the dual
    max_a sum_i a_i - 1/2 sum_ij a_i a_j y_i y_j k(x_i, x_j) with
    0 <= a_i <= C_i and sum_i a_i y_i = 0, by SMO with libsvm's second-order
    working-set selection and shrinking (:func:`kernelkit.solvers.smo.smo_gram`),
    or approximately by kernelised Pegasos (no bias). Several classes are
    handled one-vs-one (as libsvm) or one-vs-rest.

    Parameters
    ----------
    kernel : Kernel, str or "precomputed", default="rbf"
        A kernel object or expression (``"rbf(gamma=0.1)"``). ``"rbf"`` is
        scikit-learn's default, gamma='scale' (1 / (n_features X.var()),
        fixed at fit and kept in ``kernel_``), so ``KernelSVC()`` and ``SVC()``
        fit the same kernel. ``"precomputed"``: X is K(X_train, X_train) in ``fit``
        and K(X_test, X_train) in ``predict``.
    C : float, default=1.0
        Penalty of margin violations, > 0. ``C=np.inf`` is the hard-margin SVM
        of the notes' normalised form, min 1/2 ||w||^2 s.t. y_i f(x_i) >= 1
        (margin 1/||w||, ||w||^2 = sum_i alpha_i): SMO with an unbounded box
        (:mod:`kernelkit.solvers.hard_margin`). On classes that are not
        separable in the kernel's feature space no hard margin exists and
        ``fit`` raises a ValueError saying so (checked every 20,000 SMO steps
        from the distance between the classes' convex hulls), never running
        on. Class and sample weights then only drop samples of weight 0.
    solver : {"smo", "pegasos"}, default="smo"
    tol : float, default=1e-3
        SMO stops when the maximal KKT violation m(a) - M(a) < tol (libsvm's eps).
    max_iter : int, optional
        Cap on SMO steps per binary problem (default libsvm's max(10^7, 100 n)).
    class_weight : dict or "balanced", optional
        C_i = C * class_weight[y_i] * sample_weight_i.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of ``decision_function`` for one-vs-one models: libsvm's
        (n_samples, n_classes (n_classes - 1) / 2) values, or scikit-learn's
        one-vs-rest transform of them.
    multiclass : {"ovo", "ovr"}, default="ovo"
        One-vs-one (n_classes (n_classes - 1) / 2 problems on pairs of
        classes, prediction by voting) or one-vs-rest (n_classes problems on
        all samples, prediction by the largest score).
    n_iter : int, optional
        Pegasos steps T per binary problem; default 10 n.
    cache : {"auto", True, False}, default="auto"
        True: store the Gram matrix (of all samples, or of each binary
        problem); False: compute kernel rows on demand with an LRU cache of
        a quarter of the memory budget; "auto": store whenever it fits in
        half the memory budget. A stored Gram matrix is written into a buffer
        of :mod:`kernelkit.solvers.buffers`, kept after the fit (within a
        quarter of the budget) so the next fit of the same size or smaller
        skips the fresh-page faults; ``plan_`` says whether a fit reused one,
        and ``kernelkit.solvers.buffers.release()`` frees it. With the
        isotropic RBF kernel on at most
        :data:`~kernelkit.planning.machines.ROWS_ON_DEMAND_MAX_FEATURES`
        features (dense rows, soft margin, SMO, two classes or one-vs-rest,
        no probabilities) the stored matrix is filled row by row as SMO first
        asks for each row (:class:`kernelkit.solvers.smo.LazyGram`): the same
        steps and solution, but only the rows SMO uses (about 40% on adult
        10k) are computed and their pages faulted; ``plan_`` records it
        ("Gram matrix filled"). When that buffer is new memory and a core is
        free, the fit starts a background thread that maps the pages of the
        next rows while SMO computes (joined before ``fit`` returns; the
        solution is the same), recorded in ``plan_`` as "pages of the new
        Gram buffer mapped ahead".
    probability : bool, default=False
        Fit class probabilities as libsvm does (``predict_proba``): for each
        binary problem, Platt's sigmoid 1 / (1 + exp(A f + B)) fitted (Newton
        method of Lin, Lin & Weng) to decision values from an internal 5-fold
        cross-validation (five more SVM fits per problem, folds drawn from
        ``random_state``); several classes by pairwise coupling (Wu, Lin & Weng
        2004, method 2). Needs ``multiclass="ovo"`` for more than two classes.
        Two classes: the sigmoid itself, as libsvm >= 3.25 (scikit-learn's older
        libsvm iterates the coupling, within 0.0025 of it).
        As in libsvm, ``predict_proba``'s most probable class may differ from
        ``predict`` (the sigmoids are fitted on cross-validated values, and the
        coupling differs from voting), mostly for points near the boundary.
        (scikit-learn 1.9 deprecates ``SVC(probability=True)`` for
        ``CalibratedClassifierCV(SVC(), ensemble=False)``, which takes a
        KernelSVC as well.)
    break_ties : bool, default=False
        With ``decision_function_shape="ovr"`` and more than two classes,
        ``predict`` returns the argmax of ``decision_function`` (ties between
        votes broken by the confidences) instead of libsvm's vote, whose ties go
        to the lower class. As scikit-learn.
    verbose : int or bool, default=0
        >= 1: show SMO's progress (steps and violation per binary problem) and
        print ``plan_``; kernelkit's ``verbosity`` setting does the same.
    random_state : int, Generator or None
        Pegasos's draws, and the folds of ``probability=True``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        (empty for ``kernel="precomputed"``).
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV) or (n_classes, n_SV)
        y_i a_i per binary problem in libsvm's layout (one-vs-one); one row per
        class for one-vs-rest; one row for two classes, positive for
        ``classes_[1]`` (as scikit-learn).
    intercept_ : ndarray of shape (n_problems,)
        b of each binary problem (-rho in libsvm's terms; +rho for two classes).
    dual_objective_ : ndarray of shape (n_problems,)
        sum(a) - 1/2 a'Qa of each binary problem.
    duality_gap_ : ndarray of shape (n_problems,)
        Primal minus dual objective of each binary problem.
    n_iter_ : ndarray of shape (n_problems,)
        SMO steps (or Pegasos steps T) per binary problem.
    max_violation_ : ndarray of shape (n_problems,)
        SMO's final maximal KKT violation m(a) - M(a) per binary problem (below
        ``tol`` unless it stopped at ``max_iter``); SMO only.
    probA_, probB_ : ndarray of shape (n_problems,)
        The sigmoids P = 1 / (1 + exp(A f + B)) of ``probability=True``, in
        libsvm's orientation (f positive for the first class of each pair, also
        for two classes, where f = -decision_function), as scikit-learn's.
    coef_ : ndarray of shape (n_problems, n_features)
        w of each binary problem, for the linear kernel only (an AttributeError
        otherwise): ``dual_coef_ @ support_vectors_`` for two classes, one row per
        class pair (libsvm's order) for one-vs-one.
    kernel_ : Kernel or "precomputed"
    plan_ : Plan
        The solver and whether each Gram matrix was stored or its rows
        computed on demand, and why; printed by ``fit`` at verbosity >= 1.
    n_features_in_ : int

    Examples
    --------
    >>> from kernelkit.datasets import load_banana
    >>> from kernelkit.kernels import RBF
    >>> from kernelkit.models import KernelSVC
    >>> X, y = load_banana(return_X_y=True)
    >>> clf = KernelSVC(RBF(gamma=1.0), C=1.0).fit(X[:500], y[:500])
    >>> float(clf.score(X[500:1500], y[500:1500])) > 0.85
    True
    """

    _param_constraints = {
        "kernel": ["kernel"],
        "C": [Interval(Real, 0, None, closed="neither", note="C=inf is the hard margin"),
              Options(float, (np.inf,))],
        "solver": [Options(str, _SOLVERS)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None), None],
        "class_weight": [Options(str, ("balanced",)), dict, None],
        "decision_function_shape": [Options(str, ("ovr", "ovo"))],
        "multiclass": [Options(str, ("ovo", "ovr"))],
        "n_iter": [Interval(Integral, 1, None), None],
        "cache": ["boolean", Options(str, ("auto",))],
        "probability": ["boolean"],
        "break_ties": ["boolean"],
        "verbose": ["boolean", Interval(Integral, 0, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel="rbf", C=1.0, *, solver="smo", tol=1e-3, max_iter=None,
                 class_weight=None, decision_function_shape="ovr", multiclass="ovo",
                 n_iter=None, cache="auto", probability=False, break_ties=False, verbose=0,
                 random_state=None):
        self.kernel = kernel
        self.C = C
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.decision_function_shape = decision_function_shape
        self.multiclass = multiclass
        self.n_iter = n_iter
        self.cache = cache
        self.probability = probability
        self.break_ties = break_ties
        self.verbose = verbose
        self.random_state = random_state

    def _check_params(self):
        """Check the hyperparameters that do not depend on data; return the kernel."""
        validate_params(self, self._param_constraints, type(self).__name__)
        refuse_hard_pegasos(self)
        return resolve_estimator_kernel(self.kernel)

    # ---- fit ------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
            Training inputs (the Gram matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings, not mixed).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies C per sample; samples of weight 0 are left out (as libsvm).

        Returns
        -------
        self
        """
        kernel = self._check_params()
        # Labels first (a one-class problem says so), then the Gram matrix's symmetry.
        X, y = validate_fit_data(self, kernel, X, y, y_numeric=False, check_symmetry=False)
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        y = column_or_1d(y, warn=True)
        if y.dtype == object and len({isinstance(v, str) for v in y}) > 1:
            example = (next(v for v in y if isinstance(v, str)),
                       next(v for v in y if not isinstance(v, str)))
            raise ValueError(f"y mixes strings and numbers (e.g. {example[0]!r} and "
                             f"{example[1]!r}); class labels must be all strings or all numbers")
        check_classification_targets(y)
        unique_labels(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"KernelSVC needs samples of at least 2 classes; the data has only "
                             f"one class: {classes[0]!r}")
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        cw = check_class_weights(compute_class_weight(self.class_weight, classes=classes, y=y),
                                 classes)
        weight = cw[y_idx] * (1.0 if sw is None else sw)
        Cs = np.where(weight > 0, float(self.C) * np.where(weight > 0, weight, 1.0),
                      0.0)  # C = inf: inf or 0 (never inf * 0)
        # libsvm (as patched by scikit-learn) drops samples of weight 0; the
        # training set is sorted by class so each class is a contiguous block.
        keep = np.flatnonzero(Cs > 0)
        order = keep[np.argsort(y_idx[keep], kind="stable")]
        yk = y_idx[order]
        n_classes = len(classes)
        counts = np.bincount(yk, minlength=n_classes)
        if (counts > 0).sum() < 2:
            raise ValueError("KernelSVC needs samples of at least 2 classes with positive weight")
        if self.probability and n_classes > 2 and self.multiclass == "ovr":
            raise ValueError("probability=True couples the one-vs-one problems' probabilities "
                             "(as libsvm); use multiclass='ovo' with more than two classes")
        if kernel == "precomputed":
            check_symmetric_gram(X)
        starts = np.concatenate([[0], np.cumsum(counts)])
        self.classes_ = classes
        coefs, results, choices, sigmoids, fold_stops = [], [], [], [], []
        Csorted = Cs[order]
        rng = check_random_state(self.random_state) if self.probability else None
        with progress(None, "SMO" if self.solver == "smo" else "Pegasos", self.verbose) as bar:
            for p, (rows, ysub, Ksub) in enumerate(self._problems(X, order, yk, starts, kernel,
                                                                   n_classes, choices)):
                def report(steps, gap, p=p):
                    if gap is None:  # Pegasos: steps, no violation
                        bar.update(steps, problem=p)
                    else:
                        bar.update(steps, problem=p, violation=gap)
                res = self._solve(Ksub, rows, ysub, Csorted[rows], kernel, X, order, choices,
                                  report if is_verbose(self.verbose) else None)
                if self.probability:
                    def solve(K, r, ys, Cs_):
                        fold = self._solve(K, r, ys, Cs_, kernel, X, order, [])
                        fold_stops.append(not fold.get("converged", True))
                        return fold
                    sigmoids.append(cross_validated_sigmoid(solve, Ksub, rows, ysub,
                                                            Csorted[rows], kernel, X, order, rng))
                coef = np.zeros(len(order))
                coef[rows] = res["alpha"] * ysub
                coefs.append(coef)
                results.append(res)
        for attr in ("probA_", "probB_"):  # left over from an earlier fit
            self.__dict__.pop(attr, None)
        if self.probability:
            self.probA_, self.probB_ = (np.array(v, dtype=np.float64) for v in zip(*sigmoids))
        plan = self._plan(len(order), n_classes, len(results), choices)
        if any(c.what.startswith("store ") and c.value is True for c in choices) \
                and not any(c.value == "rows on demand" for c in choices):
            # the stored Gram matrices' products (RBF's grid route), recorded last
            plan = plan.with_choices(recorded_product_choice(kernel, X))
        self._store(X, order, yk, np.array(coefs), results, kernel, n_classes, plan)
        stopped = [p for p, r in enumerate(results) if not r.get("converged", True)]
        if stopped:
            warnings.warn(f"SMO stopped at max_iter={self.max_iter} before reaching tol="
                          f"{self.tol} in {len(stopped)} of {len(results)} binary problems "
                          f"(e.g. problem {stopped[0]}); raise max_iter or tol",
                          ConvergenceWarning, stacklevel=2)
        if any(fold_stops):
            warnings.warn(f"SMO stopped at max_iter={self.max_iter} before reaching tol="
                          f"{self.tol} in {sum(fold_stops)} of the {len(fold_stops)} "
                          "cross-validation fits of "
                          "probability=True; raise max_iter or tol", ConvergenceWarning,
                          stacklevel=2)
        return self

    def _store_choice(self, n, choices):
        """Whether to store an n x n Gram matrix (``cache``; "auto": if it fits in half
        the memory budget), recorded in ``choices``; else rows on demand."""
        choice = decide_store(f"the {n} x {n} Gram matrix", 8.0 * n * n, self.cache)
        choices.append(choice)
        return choice.value

    def _plan(self, n, n_classes, n_problems, choices):
        """``plan_``: the solver and the storage choices (each distinct one once)."""
        unique = tuple(dict.fromkeys(choices))
        if not unique:
            why = "kernel='precomputed': the Gram matrix is given"
        else:
            kept = sum(bool(c.value) for c in unique)
            why = ("Gram matrices stored" if kept == len(unique) else
                   "kernel rows computed on demand with an LRU cache" if kept == 0 else
                   "Gram matrices stored where they fit, else rows on demand")
        problem = {"n": n, "classes": n_classes, "problems": n_problems}
        if is_hard(self.C):
            unique += (hard_margin_choice(),)
        return Plan(self.solver, reason=why, problem=problem, choices=unique)

    def _problems(self, X, order, yk, starts, kernel, n_classes, choices):
        """Yield (rows, y, K or None) per binary problem; rows index the sorted data.

        Gram matrices, when they fit: for several problems on all samples (two
        classes, one-vs-rest) one symmetric n x n matrix; for one-vs-one the
        pairs' matrices built from class blocks (``pair_grams``), never n x n.
        Storage decisions are appended to ``choices``.
        """
        n = len(order)
        if n_classes == 2 or self.multiclass == "ovr":
            pooled = None
            if kernel == "precomputed":
                K = np.ascontiguousarray(np.asarray(X, np.float64)[np.ix_(order, order)])
            elif not self._store_choice(n, choices):
                K = None
            elif _float32_policy(X):
                K = gram(kernel, X[order])
            else:  # into a warm pooled buffer (given back when the problems are solved)
                lazy = self._lazy_choice(kernel, X, choices)
                pooled, warm = borrow((n, n))
                choices.append(warm_buffer_choice(f"the {n} x {n} Gram matrix", pooled.nbytes,
                                                  warm))
                ahead = False  # new memory whose pages are mapped by row: ahead of SMO?
                if lazy is not False and RowPages(pooled).active:
                    ahead = rows_ahead_choice(can_map_ahead())
                    choices.append(ahead)
                K = (LazyGram(kernel, X[order], buffer=pooled, rbf_gamma=lazy,
                              map_ahead=ahead)
                     if lazy is not False else
                     pairwise_blocked(kernel, X[order], out=pooled))
            try:
                rows = np.arange(n)
                for a in range(1 if n_classes == 2 else n_classes):
                    yield rows, np.where(yk == a, 1.0, -1.0), K
            finally:
                if pooled is not None:
                    give_back(pooled)
            return
        pair_rows = {}
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                rows = np.r_[starts[a]:starts[a + 1], starts[b]:starts[b + 1]]
                pair_rows[a, b] = rows, np.where(yk[rows] == a, 1.0, -1.0)
        if kernel == "precomputed":
            K = np.ascontiguousarray(np.asarray(X, np.float64)[np.ix_(order, order)])
            for (a, b), (rows, ys) in pair_rows.items():
                yield rows, ys, sub_gram(K, starts, a, b)
        elif self._store_pairs(starts, choices):
            size = int(pair_grams_bytes(np.diff(starts)) // 8)
            pooled, warm = borrow((size,))
            choices.append(warm_buffer_choice("the class pairs' Gram matrices", pooled.nbytes,
                                              warm))
            try:
                for a, b, K in pair_grams(kernel, X[order], starts, out=pooled):
                    yield (*pair_rows[a, b], K)
            finally:
                give_back(pooled)
        else:
            for rows, ys in pair_rows.values():
                yield rows, ys, None

    def _lazy_choice(self, kernel, X, choices):
        """Whether the stored Gram matrix is filled row by row as SMO asks (small d, the
        isotropic RBF; soft-margin SMO without probability estimates, which read whole
        blocks), recorded in ``choices``: the RBF's gamma if so, else False."""
        if (self.solver != "smo" or is_hard(self.C) or self.probability
                or not isinstance(X, np.ndarray) or X.ndim != 2):
            return False  # dense rows only (sparse and string inputs: whole blocks)
        gamma = one_pass_rbf_gamma(kernel, X)
        choice = rows_on_demand_choice(X.shape[0], X.shape[1], gamma is not None)
        choices.append(choice)
        return gamma if choice.value == "rows on demand" else False

    def _store_pairs(self, starts, choices):
        """Whether to store the Gram matrices of every class pair (one-vs-one)."""
        choice = decide_store("the Gram matrices of the class pairs",
                              pair_grams_bytes(np.diff(starts)), self.cache)
        choices.append(choice)
        return choice.value

    def _solve(self, Ksub, rows, ysub, Csub, kernel, X, order, choices, callback=None):
        m = len(rows)
        Xsub = None if Ksub is not None else X[order[rows]]
        if Ksub is None and self._store_choice(m, choices):
            Ksub = gram(kernel, Xsub)
        if self.solver == "pegasos":
            T = 10 * m if self.n_iter is None else int(self.n_iter)
            weights = Csub / float(self.C)
            # Pegasos runs its T steps (no tolerance to miss): progress in steps only
            steps = None if callback is None else (lambda t: callback(t, None))
            if Ksub is not None:
                r = pegasos_gram(Ksub, ysub, self.C, T, sample_weight=weights,
                                 random_state=self.random_state, callback=steps)
            else:
                r = pegasos_kernel(kernel, Xsub, ysub, self.C, T, sample_weight=weights,
                                   random_state=self.random_state, callback=steps)
            return {"alpha": r.alpha, "bias": 0.0, "n_iter": r.n_iter,
                    **pegasos_objectives(Ksub, kernel, Xsub, r.alpha, ysub, Csub)}
        cache_bytes = row_cache_bytes()
        if is_hard(self.C):
            if Ksub is None:
                choices.append(row_cache_choice(m))
            r = solve_hard_margin(type(self).__name__, Ksub, kernel, Xsub, ysub,
                                  tol=self.tol, max_iter=self.max_iter, callback=callback,
                                  cache_bytes=cache_bytes)
        elif isinstance(Ksub, LazyGram):
            r = smo_lazy_gram(Ksub, ysub, Csub, tol=self.tol, max_iter=self.max_iter,
                              callback=callback)
        elif Ksub is not None:
            r = smo_gram(Ksub, ysub, Csub, tol=self.tol, max_iter=self.max_iter,
                         callback=callback)
        else:
            choices.append(row_cache_choice(m))
            r = smo_kernel(kernel, Xsub, ysub, Csub, tol=self.tol, max_iter=self.max_iter,
                           cache_bytes=cache_bytes, callback=callback)
        return {"alpha": r.alpha, "bias": r.bias, "n_iter": r.n_iter,
                "dual": r.dual_objective, "gap": r.duality_gap, "converged": r.converged,
                "violation": r.max_violation}

    def _store(self, X, order, yk, coefs, results, kernel, n_classes, plan=None):
        """The fitted state of the binary problems: ``coefs`` (n_problems, len(order)) their
        y_i a_i over the samples ``order`` (of classes ``yk``), ``results`` their records
        (``_solve``'s dicts); ``plan`` None leaves ``plan_`` (a search's fold model)."""
        intercept = np.array([r["bias"] for r in results])
        if n_classes == 2:  # scikit-learn's convention: positive values mean classes_[1]
            coefs, intercept = -coefs, -intercept
        elif self.multiclass == "ovo":
            coefs = to_libsvm_layout(coefs, yk, n_classes)
        violation = (np.array([r["violation"] for r in results], dtype=np.float64)
                     if self.solver == "smo" else None)
        used = store_smo_fit(self, kernel, X, order, coefs, plan,
                             n_iter=np.array([r["n_iter"] for r in results], dtype=np.int64),
                             max_violation=violation, float64_rows=True,
                             no_rows=np.empty((0, 0)))
        self.n_support_ = np.bincount(yk[used], minlength=n_classes).astype(np.int64)
        self.intercept_ = intercept
        self.dual_objective_ = np.array([r["dual"] for r in results])
        self.duality_gap_ = np.array([r["gap"] for r in results])

    # ---- prediction -----------------------------------------------------------------
    def _coef_matrix(self):
        """(n_SV, n_problems) coefficients: one matrix product predicts every problem."""
        dual = np.asarray(self.dual_coef_, dtype=np.float64)
        n_classes = len(self.classes_)
        if n_classes == 2 or self.multiclass == "ovr":
            return dual.T
        labels = np.repeat(np.arange(n_classes), np.asarray(self.n_support_, dtype=np.int64))
        return from_libsvm_layout(dual, labels, n_classes)

    def _raw_decision(self, X):
        check_is_fitted(self, "dual_coef_")
        X = validate_predict_data(self, self.kernel_, X)
        W = self._coef_matrix()
        if self.kernel_ == "precomputed":
            sv = np.asarray(self.support_, dtype=np.int64)
            dec = np.asarray(X, dtype=np.float64)[:, sv] @ W
        elif W.shape[0] == 0:
            dec = np.zeros((X.shape[0], W.shape[1]))
        else:
            dec = GramOperator(self.kernel_, X, self.support_vectors_).matmat(W)
        return dec + np.asarray(self.intercept_, dtype=np.float64)

    def decision_function(self, X):
        """Scores of X.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or (n_queries, n_samples_fit)
            for ``kernel="precomputed"``.

        Returns
        -------
        ndarray of shape (n_queries,) for two classes (positive: ``classes_[1]``),
        (n_queries, n_classes) for one-vs-rest output, or
        (n_queries, n_classes (n_classes - 1) / 2) for ``decision_function_shape="ovo"``
        of a one-vs-one model (positive: the first class of the pair).
        """
        dec = self._raw_decision(X)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return dec[:, 0]
        if self.multiclass == "ovo" and self.decision_function_shape == "ovr":
            return _ovr_decision(dec, n_classes)
        return dec

    def predict(self, X):
        """Class labels: sign for two classes, libsvm's vote (ties: the lower class)
        for one-vs-one, the largest score for one-vs-rest.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        check_is_fitted(self, "dual_coef_")
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo' "
                             "(ties are broken by the one-vs-rest scores)")
        classes = np.asarray(self.classes_)
        n_classes = len(classes)
        if self.break_ties and n_classes > 2:  # decision_function_shape == "ovr"
            return classes[np.argmax(self.decision_function(X), axis=1)]
        dec = self._raw_decision(X)
        if n_classes == 2:
            return classes[(dec[:, 0] >= 0).astype(int)]  # libsvm: dec == 0 -> classes_[1]
        if self.multiclass == "ovr":
            return classes[np.argmax(dec, axis=1)]
        votes = np.zeros((dec.shape[0], n_classes), dtype=np.int64)
        for p, a, b in class_pairs(n_classes):
            pos = dec[:, p] > 0
            votes[:, a] += pos
            votes[:, b] += ~pos
        return classes[np.argmax(votes, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        return tag_precomputed(tags, self.kernel)
