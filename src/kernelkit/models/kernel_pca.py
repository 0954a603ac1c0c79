"""Kernel PCA and the eigenfunctions of a kernel (Mercer's theorem on a sample).

Mercer: a continuous PSD kernel on a probability space (X, p) expands as
``k(x, y) = sum_i mu_i phi_i(x) phi_i(y)`` with the eigenpairs of the integral
operator ``(T f)(x) = int k(x, y) f(y) p(y) dy``, ``int phi_i phi_j p = delta_ij``.
On a sample x_1..x_n (p replaced by the empirical measure) the operator's
eigenpairs come from the Gram matrix ``K = V diag(lambda) V'``:
``mu_i = lambda_i / n`` and ``phi_i(x_j) = sqrt(n) v_ij``, extended to any x by
the operator equation itself (the Nystroem extension, Williams & Seeger 2001)::

    phi_i(x) = sqrt(n) / lambda_i * sum_j k(x, x_j) v_ij

Kernel PCA (Schoelkopf, Smola & Mueller 1998) is the same decomposition of the
kernel centred in feature space; its ``transform`` is ``sqrt(mu_i) phi_i(x)``.

Two eigen-solvers: ``"dense"`` (the exact n x n Gram matrix, LAPACK) and
``"nystroem"`` (M centers; the eigenpairs of the Nystroem approximation
``K(., C) K_CC^+ K(C, .)`` from its M x M feature covariance, K never formed:
O(n M d + M^3) time, O(M^2) memory). ``"auto"`` picks by size and budget and
records the choice in ``plan_``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted

from .._budget import require
from .._validation import Interval, Options, validate_params
from ..exceptions import InvalidParameterError
from ..features.centers import CENTER_METHODS, select_centers, take_rows
from ..features.nystroem import EIGH_BYTES_PER_ENTRY
from ..gram import GramOperator, gram
from ..planning.decomposition import (DENSE_BYTES_PER_ENTRY as _DENSE_BYTES_PER_ENTRY,
                                      DENSE_MAX_N, plan_kernel_pca)
from ..solvers.kernel_eigen import (center_gram, gram_eigenpairs, nystroem_eigenpairs,
                                    nystroem_project, sign_rule)
from ._base import (KernelParamsMixin, kernel_for_data, report_plan, resolve_estimator_kernel,
                    tag_precomputed, takes_strings, validate_fit_X, validate_predict_data)

__all__ = ["KernelPCA", "DENSE_MAX_N"]

# DENSE_MAX_N (the size above which eigen_solver="auto" takes the Nystroem path) and
# the dense path's bytes per entry live with the decision, in kernelkit.planning.decomposition.


class KernelPCA(KernelParamsMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                BaseEstimator):
    """Kernel principal component analysis, exact or Nystroem-backed.

    The parameters shared with scikit-learn's ``KernelPCA`` mean the same:
    the kernel is centred in feature space, ``eigenvalues_`` and
    ``eigenvectors_`` are those of the centred n x n kernel matrix,
    ``transform`` projects onto the unit principal axes in feature space, and
    ``inverse_transform`` is a learned pre-image (kernel ridge from the
    projections back to the inputs, Bakir et al. 2004).

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components; None keeps every non-zero one.
    kernel : Kernel, str or "precomputed", default="rbf"
        A kernel object or expression (``gamma="scale"`` is fixed from the
        training X at fit, ``kernel_`` holds the numbers), or
        ``"precomputed"``: ``fit`` takes K(X, X), ``transform`` K(X_new, X).
    center_kernel : bool, default=True
        Centre the kernel in feature space (kernel PCA). False decomposes k
        itself: the truncated Mercer expansion, see ``transform`` and
        :meth:`eigenfunctions`.
    eigen_solver : {"auto", "dense", "arpack", "nystroem"}, default="auto"
        ``"dense"``: the exact Gram matrix and LAPACK (O(n^2) memory, O(n^3)
        time). ``"arpack"``: the exact Gram matrix and ARPACK's Lanczos
        iterations for the leading ``n_components`` (``scipy.sparse.linalg.
        eigsh``; O(n^2) per iteration). ``"nystroem"``: the eigenpairs of the
        Nystroem approximation with ``n_centers`` centers (exact when every
        sample is a center). ``"auto"``: the exact Gram matrix up to
        ``DENSE_MAX_N`` samples when it and its eigendecomposition fit the
        memory budget (ARPACK when n > 200 and fewer than 10 components, as
        scikit-learn, else LAPACK), else Nystroem (always exact for
        ``"precomputed"``); recorded in ``plan_``.
    n_centers : int or "auto", default="auto"
        Nystroem centers M (at most n): ``"auto"`` is sqrt(n) log n (at
        least 100 and at least ``n_components``).
    center_selection : {"uniform", "kmeans++", "leverage"}, default="uniform"
        How the Nystroem centers are drawn
        (:func:`kernelkit.features.centers.select_centers`).
    fit_inverse_transform : bool, default=False
        Learn the pre-image map for :meth:`inverse_transform` (not with
        ``"precomputed"`` or string kernels).
    alpha : float, default=1.0
        Ridge penalty of that pre-image regression: ``(K_Z + alpha I)^-1 X``
        with ``K_Z = kernel_(Z, Z)`` on the training projections Z.
    remove_zero_eig : bool, default=False
        Drop components with zero eigenvalue (always done when
        ``n_components`` is None), so fewer than ``n_components`` may remain.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nystroem centers and ARPACK's start vector.
    verbose : int, default=0
        >= 1 prints ``plan_`` at fit (as kernelkit's ``verbosity`` does).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues lambda_i of the (centred) kernel matrix, decreasing (of its
        Nystroem approximation on the Nystroem path); the operator eigenvalues
        of Mercer's theorem are ``eigenvalues_ / n``. Fewer than
        ``n_components`` when zero eigenvalues are dropped.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        Its unit eigenvectors v_i; each column's entry of largest magnitude is
        positive (scikit-learn's sign rule).
    kernel_ : Kernel or "precomputed"
    eigen_solver_ : str
        ``"dense"``, ``"arpack"`` (both exact, same state) or ``"nystroem"``.
    X_fit_ : ndarray of shape (n_samples, n_features)
        Training inputs (dense path; None for "precomputed").
    K_fit_rows_ : ndarray of shape (n_samples,)
        Column means of the training K (dense path with centring).
    K_fit_all_ : float
        Mean of the training K (dense path with centring).
    centers_ : ndarray of shape (M, n_features)
        Nystroem centers (Nystroem path).
    projection_ : ndarray of shape (M, n_components)
        ``transform(x) = K(x, centers_) @ projection_ - projection_offset_``
        (Nystroem path).
    projection_offset_ : ndarray of shape (n_components,)
    dual_coef_ : ndarray of shape (n_samples, n_features)
        Pre-image coefficients (``fit_inverse_transform=True``).
    X_transformed_fit_ : ndarray of shape (n_samples, n_components)
        Projections of the training data (``fit_inverse_transform=True``).
    n_samples_fit_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
    plan_ : Plan
        The eigen-solver chosen and why (and the centers' count).

    References
    ----------
    Schoelkopf, B., Smola, A. and Mueller, K.-R. (1998). Nonlinear component
    analysis as a kernel eigenvalue problem. Neural Computation 10, 1299-1319.
    Williams, C. and Seeger, M. (2001). Using the Nystroem method to speed up
    kernel machines. NIPS 13.
    Bakir, G., Weston, J. and Schoelkopf, B. (2004). Learning to find
    pre-images. NIPS 16.
    Rasmussen, C. E. and Williams, C. K. I. (2006). Gaussian Processes for
    Machine Learning, section 4.3 (eigenfunction analysis of kernels).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelkit.models import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> Z = KernelPCA(kernel="rbf(gamma=0.5)", center_kernel=False).fit_transform(X)
    >>> K = np.exp(-0.5 * ((X[:, None] - X) ** 2).sum(-1))
    >>> bool(np.allclose(Z @ Z.T, K))   # the Mercer expansion on the sample
    True
    """

    _param_constraints = {
        "n_components": [Interval(Integral, 1, None), None],
        "kernel": ["kernel"],
        "center_kernel": ["boolean"],
        "eigen_solver": [Options(str, ("auto", "dense", "arpack", "nystroem"))],
        "n_centers": [Interval(Integral, 1, None), Options(str, ("auto",))],
        "center_selection": [Options(str, CENTER_METHODS)],
        "fit_inverse_transform": ["boolean"],
        "alpha": [Interval(Real, 0, None)],
        "remove_zero_eig": ["boolean"],
        "random_state": ["random_state"],
        "verbose": [Interval(Real, 0, None)],
    }

    def __init__(self, n_components=None, *, kernel="rbf", center_kernel=True,
                 eigen_solver="auto", n_centers="auto", center_selection="uniform",
                 fit_inverse_transform=False, alpha=1.0, remove_zero_eig=False,
                 random_state=None, verbose=0):
        self.n_components = n_components
        self.kernel = kernel
        self.center_kernel = center_kernel
        self.eigen_solver = eigen_solver
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha
        self.remove_zero_eig = remove_zero_eig
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = tag_precomputed(super().__sklearn_tags__(), self.kernel)
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    def _check_params(self):
        validate_params(self, self._param_constraints, type(self).__name__)
        kernel = resolve_estimator_kernel(self.kernel)
        if self.fit_inverse_transform and (kernel == "precomputed" or takes_strings(kernel)):
            what = "a precomputed kernel" if kernel == "precomputed" else "a string kernel"
            raise InvalidParameterError(
                f"Cannot fit_inverse_transform with {what}: the pre-image is learned by "
                "kernel ridge from the projections back to the inputs, which needs the kernel "
                "itself and numeric inputs. Set fit_inverse_transform=False")
        if kernel == "precomputed" and self.eigen_solver == "nystroem":
            raise InvalidParameterError(
                "eigen_solver='nystroem' needs the kernel itself (to evaluate K(X, centers)); "
                "with kernel='precomputed' use eigen_solver='dense' (or 'auto')")
        return kernel

    def fit(self, X, y=None):
        """Fit the principal components of the kernel on X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs, or K(X, X) of shape (n_samples, n_samples) for
            ``kernel="precomputed"``.
        y : ignored

        Returns
        -------
        self
        """
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit on X and return its projections ``eigenvectors_ * sqrt(eigenvalues_)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return self._fit(X)

    def _fit(self, X):
        kernel = self._check_params()
        X = validate_fit_X(self, kernel, X)
        if kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"with kernel='precomputed', X must be the square Gram matrix of "
                             f"the training samples, got shape {X.shape}")
        kernel = kernel_for_data(kernel, X, self)  # gamma="scale" fixed from the training X
        n = X.shape[0]
        k = n if self.n_components is None else min(n, self.n_components)
        solver, M = self._plan(kernel, X, n, k)
        report_plan(self, self.verbose)
        for attr in _FITTED_STATE:  # of an earlier fit on the other path
            vars(self).pop(attr, None)
        self.kernel_, self.eigen_solver_, self.n_samples_fit_ = kernel, solver, n
        if solver in ("dense", "arpack"):
            lam, V = self._fit_dense(kernel, X, n, k, solver)
        else:
            lam, V = self._fit_nystroem(kernel, X, n, k, M)
        self.eigenvalues_, self.eigenvectors_ = lam, V
        Z = V * np.sqrt(lam)
        if self.fit_inverse_transform:
            self._fit_inverse(Z, X)
        return Z

    def _plan(self, kernel, X, n, k):
        """The eigen-solver and the number of centers (:func:`plan_kernel_pca`), in ``plan_``."""
        self.plan_ = plan_kernel_pca(n, k, precomputed=kernel == "precomputed",
                                     eigen_solver=self.eigen_solver, n_centers=self.n_centers,
                                     n_components=self.n_components)
        return self.plan_.choice, self.plan_.problem.get("M")

    # ---- the eigen-solvers (numerics in kernelkit.solvers.kernel_eigen) ----------------
    def _fit_dense(self, kernel, X, n, k, solver):
        require(_DENSE_BYTES_PER_ENTRY * n * n, f"KernelPCA's dense eigen-solver on n={n} "
                f"samples (the {n} x {n} kernel matrix and LAPACK's copy)",
                hint="use eigen_solver='nystroem' (or 'auto')")
        if solver == "arpack" and k >= n:
            raise InvalidParameterError(f"eigen_solver='arpack' needs n_components < "
                                        f"n_samples ({k} >= {n}); use eigen_solver='dense'")
        if kernel == "precomputed":
            K = np.array(X, dtype=np.float64, order="C")
            self.X_fit_ = None
        else:
            K = np.asarray(gram(kernel, X), dtype=np.float64)
            self.X_fit_ = X
        if self.center_kernel:
            self.K_fit_rows_, self.K_fit_all_ = center_gram(K)
        lam, V = gram_eigenpairs(K, k, solver=solver,
                                 rng=check_random_state(self.random_state))
        keep = self._kept(lam)
        return lam[keep], np.ascontiguousarray(V[:, keep])

    def _fit_nystroem(self, kernel, X, n, k, M):
        require(EIGH_BYTES_PER_ENTRY * M * M, f"KernelPCA's Nystroem eigen-solver with {M} "
                "centers (their kernel matrix and its eigendecomposition)",
                hint="use fewer centers (n_centers)")
        rng = check_random_state(self.random_state)
        C = take_rows(X, select_centers(kernel, X, M, self.center_selection, rng))
        lam, P, offset = nystroem_eigenpairs(kernel, X, C, k, center=self.center_kernel)
        keep = self._kept(lam)
        lam, P, offset = lam[keep], P[:, keep], offset[keep]
        proj = nystroem_project(kernel, X, C, P, offset)  # = V sqrt(lam), a second pass
        V = np.zeros_like(proj)
        nz = lam > 0
        V[:, nz] = proj[:, nz] / np.sqrt(lam[nz])
        signs = sign_rule(V)
        self.centers_, self.projection_, self.projection_offset_ = C, P * signs, offset * signs
        return lam, V * signs

    def _kept(self, lam):
        if self.remove_zero_eig or self.n_components is None:
            return lam > 0
        return np.ones(lam.shape, dtype=bool)

    def _fit_inverse(self, Z, X):
        n = Z.shape[0]
        require(8.0 * n * (n + X.shape[1]), f"KernelPCA's pre-image regression on n={n} "
                f"samples (the {n} x {n} kernel matrix of the projections and the dense "
                f"{n} x {X.shape[1]} coefficients)", hint="set fit_inverse_transform=False")
        if hasattr(X, "toarray"):  # the coefficients are dense (n, n_features) anyway
            X = X.toarray()
        K = np.asarray(gram(self.kernel_, Z), dtype=np.float64)
        K.flat[:: n + 1] += self.alpha
        try:
            self.dual_coef_ = scipy.linalg.solve(K, np.asarray(X, dtype=np.float64),
                                                 assume_a="pos", overwrite_a=True)
        except np.linalg.LinAlgError:
            raise ValueError(f"the pre-image regression is singular at alpha={self.alpha!r} "
                             "(K(Z, Z) + alpha I is not positive definite); use alpha > 0"
                             ) from None
        self.X_transformed_fit_ = Z

    # ---- projections, eigenfunctions, pre-images ----------------------------------------
    def transform(self, X):
        """Project X onto the principal axes in feature space.

        ``transform(x)_i = sum_j k_c(x, x_j) v_ij / sqrt(lambda_i)`` (k_c: the
        centred kernel, or k itself with ``center_kernel=False``), 0 for zero
        eigenvalues. In Mercer's terms it is ``sqrt(mu_i) phi_i(x)`` with
        ``mu_i = lambda_i / n``: the **eigen-features**, whose inner products
        ``transform(x) @ transform(y)`` approximate k_c(x, y) (k(x, y) without
        centring) by the truncated expansion ``sum_i mu_i phi_i(x) phi_i(y)``,
        exactly on the training points when all components are kept.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Or K(X, X_fit) of shape (n_queries, n_samples) for "precomputed".

        Returns
        -------
        ndarray of shape (n_queries, n_components)
        """
        check_is_fitted(self, "eigenvalues_")
        X = validate_predict_data(self, self.kernel_, X)
        if self.eigen_solver_ == "nystroem":
            return self._project_nystroem(X)  # else the exact path (dense or arpack)
        lam, V = self.eigenvalues_, self.eigenvectors_
        A = np.zeros_like(V)
        nz = lam > 0
        A[:, nz] = V[:, nz] / np.sqrt(lam[nz])
        n = V.shape[0]
        if self.center_kernel:  # one pass: K A and the row means K 1/n together
            A = np.c_[A, np.full(n, 1.0 / n)]
        if self.kernel_ == "precomputed":
            KA = np.asarray(X, dtype=np.float64) @ A
        else:
            KA = GramOperator(self.kernel_, X, self.X_fit_).matmat(A)
        if not self.center_kernel:
            return KA
        # (K - 1 K_fit_rows' - r 1' + K_fit_all 11') A, with r the row means of K(X, X_fit)
        A, KA, r = A[:, :-1], KA[:, :-1], KA[:, -1]
        ones_A = A.sum(axis=0)
        return KA - r[:, None] * ones_A - (self.K_fit_rows_ @ A - self.K_fit_all_ * ones_A)

    def _project_nystroem(self, X):
        return nystroem_project(self.kernel_, X, self.centers_, self.projection_,
                                self.projection_offset_)

    def eigenfunctions(self, X):
        """The eigenfunctions phi_i of the kernel on the training sample, at X.

        The Nystroem extension (Williams & Seeger 2001) of the eigenvectors:
        ``phi_i(x) = sqrt(n) / lambda_i * sum_j k(x, x_j) v_ij`` with
        (lambda_i, v_i) = (``eigenvalues_``, ``eigenvectors_``) and n the
        number of training samples; k is the centred kernel unless
        ``center_kernel=False`` (then k itself: Mercer's eigenfunctions).
        Normalisation: ``(1/n) sum_j phi_i(x_j) phi_l(x_j) = delta_il`` and
        ``phi_i(x_j) = sqrt(n) v_ij`` at the training points; with the
        operator eigenvalues ``mu_i = lambda_i / n``,
        ``k(x, y) ~= sum_i mu_i phi_i(x) phi_i(y)``. Equals
        ``transform(X) / sqrt(mu_i)`` (0 for zero eigenvalues). On the
        Nystroem path, these are the eigenfunctions of the Nystroem
        approximation of k.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        ndarray of shape (n_queries, n_components)
        """
        Z = self.transform(X)
        mu = self.eigenvalues_ / self.n_samples_fit_
        out = np.zeros_like(Z)
        nz = mu > 0
        out[:, nz] = Z[:, nz] / np.sqrt(mu[nz])
        return out

    def inverse_transform(self, X):
        """Map projections back to input space by the learned pre-image.

        ``kernel_(X, X_transformed_fit_) @ dual_coef_`` (as scikit-learn: the
        centred kernel forgets the mean of the features, so the linear kernel
        does not reconstruct the mean of the data).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_components)

        Returns
        -------
        ndarray of shape (n_queries, n_features)
        """
        if not self.fit_inverse_transform:
            raise NotFittedError("The fit_inverse_transform parameter was not set to True when "
                                 "instantiating and hence the inverse transform is not "
                                 "available.")
        check_is_fitted(self, "dual_coef_")
        Z = check_array(X, dtype=np.float64, input_name="X")  # 2-D, finite
        k = self.X_transformed_fit_.shape[1]
        if Z.shape[1] != k:
            raise ValueError(f"X has shape {Z.shape}; inverse_transform expects projections of "
                             f"shape (n_queries, {k}) from transform")
        return GramOperator(self.kernel_, Z, self.X_transformed_fit_).matmat(self.dual_coef_)

    @property
    def _n_features_out(self):
        if "eigenvalues_" not in vars(self):
            raise AttributeError("_n_features_out")
        return self.eigenvalues_.shape[0]


# Attributes one path sets and the other does not: cleared at each fit.
_FITTED_STATE = ("X_fit_", "K_fit_rows_", "K_fit_all_", "centers_", "projection_",
                 "projection_offset_", "dual_coef_", "X_transformed_fit_")
