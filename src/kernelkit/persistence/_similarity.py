"""Model files of the normalised kernel similarity index: which attributes it
stores, and the check that a restored state is one consistent fitted index (one
entry of the allow-list in :mod:`kernelkit.persistence._allowlist`).

KernelDBSCAN and KernelAgglomerativeClustering have no entry: as scikit-learn's
DBSCAN and AgglomerativeClustering they have no ``predict``, so a model file
would hold nothing to apply to new points; ``save`` refuses them.
"""

from __future__ import annotations

from ..models import KernelSimilarity
from ._format import fail as _fail

__all__ = ["KERNEL_SIMILARITY_ENTRY"]


def _check_similarity_state(path, model):
    """Similarity index: the items, their k(y, y) >= 0, and their count agree."""
    from ._allowlist import _check_fit_inputs  # (imported by _allowlist)

    n = _check_fit_inputs(path, model)
    if getattr(model, "n_samples_fit_", None) != n:
        _fail(path, f"n_samples_fit_ is {getattr(model, 'n_samples_fit_', None)!r} but "
                    f"X_fit_ has {n} items")
    if (model.diag_fit_ < 0).any():
        _fail(path, "diag_fit_ holds k(y, y) < 0; a kernel's diagonal is >= 0")


KERNEL_SIMILARITY_ENTRY = (KernelSimilarity, ("X_fit_", "diag_fit_"),
                           ("n_samples_fit_", "n_features_in_", "feature_names_in_"),
                           _check_similarity_state)
