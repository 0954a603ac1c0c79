"""What every kernelkit estimator shares: kernel resolution, input checks, class
labels, the machine rates the planner uses, and printing the plan.

Inputs follow the kernel: numeric 2-D arrays for vector kernels (through
scikit-learn's ``validate_data``, which sets ``n_features_in_``), a 1-D
``"<U"`` array of strings for string kernels (``kernel.input_kind ==
"string"``), a 1-D object array for kernels on objects (sets, trees, graphs,
series: :mod:`kernelkit.kernels.objects`). Such input is not tabular, so -- as scikit-learn does for
text -- ``n_features_in_`` is not set; the strings are validated by
:func:`kernelkit._validation.check_strings` and y as usual.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, column_or_1d, validate_data

from .. import config
from .._validation import check_sparse_vectors, check_vectors
from ..exceptions import InvalidParameterError
from ..kernels import Kernel, KernelParamsMixin, resolve_kernel
from ..kernels.base import check_sparse_support
from ..kernels.objects import takes_objects
from ..kernels.data_dependent import InputScale, feature_scale_spread

__all__ = ["warn_smo_stopped", "kernel_for_data", "feature_scale_choice", "KernelParamsMixin", "sparse_formats", "as_float64_rows", "tag_sparse", "resolve_estimator_kernel", "validate_fit_data", "validate_predict_data",
           "check_sample_weight", "check_alpha", "takes_strings", "takes_objects", "input_dim",
           "validate_fit_X", "validate_classifier_data", "predict_labels",
           "reject_precomputed", "report_plan", "check_class_weights", "check_symmetric_gram", "SYMMETRY_RTOL"]


def resolve_estimator_kernel(kernel):
    """``"precomputed"`` stays a string; anything else becomes a Kernel."""
    if isinstance(kernel, str) and kernel.strip().lower() == "precomputed":
        return "precomputed"
    return resolve_kernel(kernel)


#: Columns whose standard deviations differ by more than this factor, under a
#: distance kernel, are named in ``plan_`` (the narrow ones hardly count).
SCALE_SPREAD_LIMIT = 100.0


def kernel_for_data(kernel, X, est=None):
    """The kernel to fit with: data-dependent parameters (``gamma="scale"``) fixed from X.

    Every estimator calls this once in ``fit``, on its validated training X,
    and stores the result as ``kernel_`` (the user's ``kernel`` is left as
    given). ``"precomputed"`` and kernels without such parameters come back
    unchanged. See :meth:`kernelkit.kernels.Kernel.resolve`.

    With ``est``, it also looks at the spread of the column scales under a
    distance kernel (:func:`feature_scale_choice`, from the same one pass over
    X as the rules) and keeps the finding for :func:`report_plan`, which puts
    it into ``est.plan_`` and prints it at verbosity >= 1.
    """
    if not isinstance(kernel, Kernel):
        return kernel
    if takes_objects(kernel):  # strings (always resolved), or objects: resolved on them
        return kernel.resolve(X)
    check = est is not None and _distance_kernel(kernel) is not None
    if kernel.is_resolved and not check:
        return kernel
    scale = InputScale.of(X)
    if check:
        est._input_scale_choice = feature_scale_choice(kernel, scale, type(est).__name__)
    return kernel.resolve(scale)


def _distance_kernel(kernel):
    """The first kernel in ``kernel``'s tree whose values depend on distances between
    rows (RBF, Laplacian, Cauchy, Matern, Chi2; not an RBF with per-feature scales), or None."""
    from ..kernels import RBF, Cauchy, Chi2, Composed, Laplacian, Matern

    stack = [kernel]
    while stack:
        k = stack.pop()
        if isinstance(k, (Laplacian, Cauchy, Matern, Chi2)) or \
                (isinstance(k, RBF) and not getattr(k, "is_ard", False)):
            return k
        if isinstance(k, Composed):  # its kernel sees f(x), not the columns of X
            continue
        stack.extend(v for v in vars(k).values() if isinstance(v, Kernel))
    return None


def feature_scale_choice(kernel, X, estimator_name="the estimator"):
    """A :class:`~kernelkit.planning.Choice` naming columns of very different scales, or None.

    Under a distance kernel (RBF, Laplacian, ...) every column counts in
    proportion to its scale: when the standard deviations of the columns
    differ by more than ``SCALE_SPREAD_LIMIT`` (constant columns ignored), the
    wide columns decide every distance and the narrow ones are all but
    ignored, whatever gamma. The fix is to standardise the columns.

    Parameters
    ----------
    kernel : Kernel
    X : array-like of shape (n_samples, n_features), or InputScale
        The training inputs (one pass of column variances, shared with the
        kernel's data-dependent rules).
    estimator_name : str
        Named in the suggested pipeline.

    Returns
    -------
    Choice or None
    """
    from ..planning import Choice

    found = _distance_kernel(kernel)
    if found is None:
        return None
    ratio, wide, narrow = feature_scale_spread(InputScale.of(X))
    if ratio <= SCALE_SPREAD_LIMIT:
        return None
    return Choice(
        "input scales", f"column {wide} spreads {ratio:.3g} times as wide as column {narrow}",
        f"under the distance kernel {type(found).__name__} the widest columns decide every "
        f"distance and the narrow ones are all but ignored; standardise the columns, e.g. "
        f"make_pipeline(StandardScaler(), {estimator_name}(...))")


def takes_strings(kernel):
    """True when ``kernel`` takes a list of non-vector inputs: strings, or objects of
    any kind (sets, trees, graphs, series; :func:`kernelkit.kernels.objects.takes_objects`).

    Those inputs are validated by ``kernel.check_input`` into a 1-D array (``"<U"``
    strings or an object array), not by scikit-learn's ``validate_data``.
    """
    return takes_objects(kernel)


def input_dim(X):
    """Input dimension d for cost models: features of a 2-D array, 1 for strings."""
    return X.shape[1] if X.ndim == 2 else 1


def _precheck(kernel, X):
    # Our own messages first (strings, 1-D, NaN with its location ...), then
    # scikit-learn's bookkeeping (n_features_in_, feature_names_in_).
    if kernel == "precomputed" or kernel.input_kind in ("vector", "any"):
        if sparse_formats(kernel):
            check_vectors(X, "X", accept_sparse=True)
            return
        if kernel != "precomputed":
            check_sparse_support(kernel, X, "X")
        check_vectors(X, "X")


def sparse_formats(kernel):
    """The scipy.sparse formats an estimator with this kernel takes (False: none).

    CSR and CSC (and sparse arrays) for kernels whose blocks compute on
    sparse rows (``kernel.accepts_sparse``); other formats are converted by
    scikit-learn's ``validate_data``. Validated sparse input is canonical CSR.
    """
    if kernel is None or kernel == "precomputed" or not kernel.accepts_sparse:
        return False
    return ("csr", "csc")


def as_float64_rows(A):
    """Stored training rows (support vectors, centers) in float64, sparse kept sparse.

    A dense array becomes a float64 ndarray; scipy.sparse rows stay CSR with
    float64 values (never densified).
    """
    if hasattr(A, "tocsr") and hasattr(A, "nnz"):
        A = A.tocsr()
        return A if A.dtype == np.float64 else A.astype(np.float64)
    return np.asarray(A, np.float64)


def _canonical(X):
    """Validated sparse input as canonical CSR (sorted unique indices, float64/32)."""
    return check_sparse_vectors(X, "X") if hasattr(X, "tocsr") and hasattr(X, "nnz") else X


#: The classifier to name when labels reach a regressor.
_CLASSIFIER_OF = {"KernelRidge": "KernelRidgeClassifier",
                  "KernelRidgeCV": "KernelRidgeClassifierCV", "KernelSVR": "KernelSVC", "KernelSVRCV": "KernelSVCCV",
                  "KernelMachine": "KernelMachineClassifier",
                  "KernelMachineCV": "KernelMachineClassifierCV",
                  "KitchenSinksRegressor": "KitchenSinksClassifier",
                  "KernelKNeighborsRegressor": "KernelKNeighborsClassifier"}


def _refuse_labels(est, y):
    """Text labels given to a regressor: say it is one and name the classifier."""
    arr = np.asarray(y) if not hasattr(y, "dtype") else y
    if getattr(arr, "dtype", None) is None or arr.dtype.kind not in "USO":
        return
    try:
        np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        first = next((v for v in np.ravel(np.asarray(arr, dtype=object)) if isinstance(v, str)),
                     None)
        name = type(est).__name__
        other = _CLASSIFIER_OF.get(name, "a classifier")
        raise ValueError(f"{name} is a regressor: y must hold numbers, got labels such as "
                         f"{first!r}. To predict classes, use {other}") from None


def validate_fit_data(est, kernel, X, y, *, y_numeric=True, check_symmetry=True):
    """Validate training data; sets ``n_features_in_`` (and feature names).

    A precomputed Gram matrix must be square and (``check_symmetry``)
    symmetric; an estimator that checks its labels first calls
    :func:`check_symmetric_gram` itself."""
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
    if y_numeric:
        _refuse_labels(est, y)
    if takes_strings(kernel):
        check_sparse_support(kernel, X, "X")
        X = kernel.check_input(X, "X")
        y = validate_data(est, y=y, multi_output=True, y_numeric=y_numeric)
        check_consistent_length(X, y)
        for attr in ("n_features_in_", "feature_names_in_"):  # left over from a numeric fit
            if attr in vars(est):
                delattr(est, attr)
        return X, y
    _precheck(kernel, X)
    X, y = validate_data(est, X, y, dtype=[np.float64, np.float32], multi_output=True,
                         y_numeric=y_numeric, accept_sparse=sparse_formats(kernel))
    X = _canonical(X)
    if kernel == "precomputed" and X.shape[0] != X.shape[1]:
        raise ValueError(f"with kernel='precomputed', X must be the square Gram matrix of the "
                         f"training samples, got shape {X.shape}")
    if kernel == "precomputed" and check_symmetry:
        check_symmetric_gram(X)
    return X, y


# Round-off allowed between K[i, j] and K[j, i] of a precomputed Gram matrix,
# relative to max |K| (products computed in two orders differ by ~1e-16 n).
SYMMETRY_RTOL = 1e-10


def check_symmetric_gram(K):
    """Refuse a precomputed Gram matrix that is not symmetric (beyond round-off).

    A kernel matrix is symmetric; the solvers read one triangle or assume it,
    so a non-symmetric one would be fitted silently as something else. Checked
    in row blocks within the memory budget (no n x n temporary).

    Raises
    ------
    ValueError
        Naming the worst pair (i, j) and how to symmetrise, ``(K + K.T) / 2``.
    """
    from .._budget import row_blocks, rows_per_block

    n = K.shape[0]
    scale = max(float(K.max()), -float(K.min())) if K.size else 0.0
    worst, where = 0.0, None
    for r0, r1 in row_blocks(n, rows_per_block(n, n_temporaries=1)):
        diff = np.subtract(K[r0:r1], K[:, r0:r1].T, dtype=np.float64)
        np.abs(diff, out=diff)
        k = int(np.argmax(diff))
        if diff.flat[k] > worst:
            worst, where = float(diff.flat[k]), (r0 + k // n, k % n)
    if worst > SYMMETRY_RTOL * scale:
        i, j = where
        raise ValueError(
            f"with kernel='precomputed', X must be a symmetric Gram matrix K(X_train, X_train), "
            f"but X[{i}, {j}] = {float(K[i, j])!r} and X[{j}, {i}] = {float(K[j, i])!r} differ "
            f"by {worst:.3g} (more than {SYMMETRY_RTOL:g} x max |X| = {SYMMETRY_RTOL * scale:.3g}). If X is a "
            "kernel matrix made non-symmetric by round-off, symmetrise it: X = (X + X.T) / 2")


def validate_predict_data(est, kernel, X):
    """Validate data for predict; checks the number of features against the fit."""
    if takes_strings(kernel):
        check_sparse_support(kernel, X, "X")
        return kernel.check_input(X, "X")
    _precheck(kernel, X)
    return _canonical(validate_data(est, X, dtype=[np.float64, np.float32], reset=False,
                                    accept_sparse=sparse_formats(kernel)))


def check_sample_weight(sample_weight, n):
    """float64 weights of shape (n,), finite, >= 0, not all 0; None stays None."""
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        sample_weight = np.full(n, sample_weight, dtype=np.float64)
    sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.ndim != 1 or sw.shape[0] != n:
        raise ValueError(f"sample_weight.shape == {sw.shape}, expected ({n},): one weight "
                         "per sample")
    if not np.isfinite(sw).all() or (sw < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    if not sw.any():
        raise ValueError("sample_weight is zero for every sample; at least one must be positive")
    if not np.isfinite(sw.sum() * 1e6):  # sums and products with the weights must not overflow
        raise ValueError(f"sample_weight is too large (largest {sw.max():.3g}; their sum "
                         "overflows float64 arithmetic); rescale the weights, e.g. divide "
                         "them by their mean (only their ratios matter, with C or alpha "
                         "scaled to match)")
    return sw


def check_class_weights(weights, classes, owner="class_weight"):
    """The per-class weights ``class_weight`` gave (sklearn's ``compute_class_weight``),
    checked by the one rule of every weight: finite, >= 0, not all 0; returned unchanged."""
    weights = np.asarray(weights, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    if bad.size:
        label = classes[bad[0]]
        label = label.item() if hasattr(label, "item") else label  # 0, not np.int64(0)
        raise ValueError(f"{owner} gives class {label!r} the weight "
                         f"{float(weights[bad[0]])!r}; class weights must be finite and >= 0 "
                         "(0 drops the class, 1 keeps it as it is)")
    if not weights.any():
        raise ValueError(f"{owner} gives every class the weight 0; at least one must be "
                         "positive")
    return weights


def check_alpha(alpha, n_targets):
    """alpha as float64 array of shape (n_targets,) or a scalar; >= 0."""
    a = np.asarray(alpha, dtype=np.float64) if not isinstance(alpha, str) else None
    if a is None or a.ndim > 1:
        raise ValueError(f"alpha must be a number or one number per target, got {alpha!r}")
    if a.ndim == 1 and a.shape[0] not in (1, n_targets):
        raise ValueError(f"alpha has {a.shape[0]} values but y has {n_targets} targets; give "
                         "one alpha or one per target")
    if not np.isfinite(a).all() or (a < 0).any():
        raise ValueError(f"alpha must be >= 0 and finite (the ridge penalty), got {alpha!r}")
    return a


def validate_fit_X(est, kernel, X):
    """Validate unsupervised training data (no y); sets ``n_features_in_`` for vectors."""
    if takes_strings(kernel):
        check_sparse_support(kernel, X, "X")
        X = kernel.check_input(X, "X")
        for attr in ("n_features_in_", "feature_names_in_"):  # left over from a numeric fit
            if attr in vars(est):
                delattr(est, attr)
        return X
    _precheck(kernel, X)
    return _canonical(validate_data(est, X, dtype=[np.float64, np.float32],
                                    accept_sparse=sparse_formats(kernel)))


def validate_classifier_data(est, X, y, kernel=None):
    """Validate (X, labels); set ``classes_``; return X and the -1/+1 targets (n, k).

    ``kernel`` is the estimator's resolved kernel (strings take the string path);
    None for estimators without one (random kitchen sinks), which take vectors.
    """
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
    if kernel is not None and takes_strings(kernel):
        X, y = validate_fit_data(est, kernel, X, y, y_numeric=False)
        y = column_or_1d(y, warn=True)
    else:
        if kernel is not None:
            _precheck(kernel, X)
        else:
            check_vectors(X, "X")
        X, y = validate_data(est, X, y, dtype=[np.float64, np.float32],
                             accept_sparse=sparse_formats(kernel))
        X = _canonical(X)
    check_classification_targets(y)
    est.classes_, yi = np.unique(y, return_inverse=True)
    if len(est.classes_) < 2:
        raise ValueError(f"{type(est).__name__} needs samples of at least 2 classes in the "
                         f"data, but the data contain only one class: {est.classes_[0]!r}")
    if len(est.classes_) == 2:
        return X, np.where(yi == 1, 1.0, -1.0)[:, None]
    return X, np.where(yi[:, None] == np.arange(len(est.classes_))[None, :], 1.0, -1.0)


def predict_labels(classes, scores):
    """Labels from binary scores (n,) or one score per class (n, n_classes)."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def tag_precomputed(tags, kernel):
    """scikit-learn's tags: ``pairwise`` when X is a precomputed Gram matrix (and
    ``sparse`` when the kernel takes sparse input, :func:`tag_sparse`)."""
    tags.input_tags.pairwise = isinstance(kernel, str) and \
        kernel.strip().lower() == "precomputed"
    return tag_sparse(tags, kernel)


def tag_sparse(tags, kernel):
    """scikit-learn's ``input_tags.sparse``: True when the kernel parameter takes sparse input.

    ``kernel`` is the estimator's parameter (a Kernel, an expression or
    ``"precomputed"``); one that cannot be parsed says False (fit reports it).
    """
    try:
        resolved = resolve_estimator_kernel(kernel)
    except (TypeError, ValueError):
        resolved = "precomputed"
    tags.input_tags.sparse = bool(sparse_formats(resolved))
    return tags


def reject_precomputed(kernel, est_name):
    """Distances need k(x, x) of every query, which a precomputed K(X, X_fit) lacks."""
    if kernel == "precomputed":
        raise InvalidParameterError(f"{est_name} does not accept kernel='precomputed': feature-space "
                         "distances need k(x, x) of every query point, which K(X, X_fit) does "
                         "not contain. Pass the kernel object or expression instead")
    return kernel


def report_plan(est, verbose=0):
    """Print ``est.plan_.explain()`` when ``verbose`` or kernelkit's verbosity is >= 1.

    Called once at the end of planning in ``fit``; the numerics never print.
    A finding of :func:`kernel_for_data` about the input scales is added to
    ``plan_`` first.
    """
    found = est.__dict__.pop("_input_scale_choice", None)
    if found is not None and getattr(est, "plan_", None) is not None:
        est.plan_ = est.plan_.with_choices(found)
    if max(int(verbose or 0), int(config.get_config()["verbosity"])) >= 1:
        print(est.plan_.explain())


def report_choices(choices, verbose=0):
    """Print automatic choices made during the fit itself (after :func:`report_plan`
    printed the plan), one per line, when ``verbose`` or kernelkit's verbosity is >= 1."""
    if max(int(verbose or 0), int(config.get_config()["verbosity"])) >= 1:
        for c in choices:
            if c is not None:
                print(f"  {c}")


def warn_smo_stopped(est, max_violation):
    """ConvergenceWarning of an SMO fit stopped at ``max_iter`` short of ``tol``."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.warn(f"SMO stopped at max_iter={est.max_iter} before reaching tol={est.tol} "
                  f"(max violation {max_violation:.3g}); raise max_iter or tol",
                  ConvergenceWarning, stacklevel=3)
