"""Model files of the normalised kernel similarity index: the check that a restored
state is one consistent fitted index (its entry, with the attributes stored, is in
the allow-list :mod:`kernelkit.persistence._allowlist`).
"""

from __future__ import annotations

from ._checks import check_fit_inputs
from ._format import fail as _fail

__all__ = ["check_similarity_state"]


def check_similarity_state(path, model):
    """Similarity index: the items, their k(y, y) >= 0, and their count agree."""
    n = check_fit_inputs(path, model)
    if getattr(model, "n_samples_fit_", None) != n:
        _fail(path, f"n_samples_fit_ is {getattr(model, 'n_samples_fit_', None)!r} but "
                    f"X_fit_ has {n} items")
    if (model.diag_fit_ < 0).any():
        _fail(path, "diag_fit_ holds k(y, y) < 0; a kernel's diagonal is >= 0")

