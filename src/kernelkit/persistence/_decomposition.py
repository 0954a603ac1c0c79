"""Model files of kernel PCA: the check that a restored state is one consistent
fitted model (its entry, with the attributes stored, is in the allow-list
:mod:`kernelkit.persistence._allowlist`).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_inputs, check_shape
from ._format import fail as _fail

__all__ = ["check_kernel_pca_state"]


def check_kernel_pca_state(path, model):
    """Kernel PCA: eigenpairs, and the training inputs (dense) or the Nystroem
    projection (centers, projection, offset) that ``transform`` needs, agree in shape."""
    solver = getattr(model, "eigen_solver_", None)
    if solver not in ("dense", "arpack", "nystroem"):
        _fail(path, f"invalid eigen_solver_ {solver!r}")
    lam = getattr(model, "eigenvalues_", None)
    if lam is None or lam.ndim != 1 or lam.dtype.kind != "f" or (lam < 0).any():
        _fail(path, "eigenvalues_ must be a 1-D array of numbers >= 0")
    k = lam.shape[0]
    n = getattr(model, "n_samples_fit_", None)
    if not isinstance(n, int):
        _fail(path, "n_samples_fit_ is missing")
    check_shape(path, model, "eigenvectors_", (n, k))
    if solver == "nystroem":
        M = check_inputs(path, model, "centers_")
        check_shape(path, model, "projection_", (M, k))
        check_shape(path, model, "projection_offset_", (k,))
    elif model.kernel_ == "precomputed":
        model.X_fit_ = None
        if model.n_features_in_ != n:
            _fail(path, f"n_features_in_ is {model.n_features_in_}, expected n_samples_fit_ "
                        f"= {n} for kernel='precomputed'")
    else:
        check_inputs(path, model, "X_fit_", n)
    if solver != "nystroem" and model.center_kernel:
        check_shape(path, model, "K_fit_rows_", (n,))
        if not isinstance(getattr(model, "K_fit_all_", None), float):
            _fail(path, "K_fit_all_ is missing or not a number")
    if model.fit_inverse_transform:
        check_shape(path, model, "X_transformed_fit_", (n, k))
        check_shape(path, model, "dual_coef_", (n, model.n_features_in_))
    elif getattr(model, "dual_coef_", None) is not None:
        _fail(path, "dual_coef_ given but fit_inverse_transform is False")
    if not np.isfinite(lam).all():
        _fail(path, "invalid eigenvalues_: NaN or infinity")
