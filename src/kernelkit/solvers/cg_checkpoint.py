"""A checkpoint file of a conjugate-gradient run, to resume it after a crash.

Falkon's iterations on a cluster can run for hours; the state the recurrence
carries (:class:`kernelkit.linalg.PCGState`: iterate, residual, direction, r'z)
is small (M x t numbers), so it is written after every iteration and a fit
started again with the same ``checkpoint`` continues where the last one
stopped, with the iterates an uninterrupted run gives.

The file holds arrays and a fingerprint only (``numpy.savez``, loaded with
``allow_pickle=False``): the fingerprint is a SHA-256 of the problem (centers,
right-hand side, penalty, precision, preconditioner), so a file left by another
problem is ignored with a warning, never resumed. Writes are atomic (a
temporary file in the same folder, then ``os.replace``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

from ..linalg import PCGState

__all__ = ["problem_fingerprint", "load_state", "save_state"]

_KEYS = {"fingerprint", "X", "R", "P", "rz", "active", "n_iter"}


def problem_fingerprint(*arrays, **scalars):
    """SHA-256 (hex) of the arrays' dtypes, shapes and bytes and of the scalars."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    for key in sorted(scalars):
        h.update(f"{key}={scalars[key]!r};".encode())
    return h.hexdigest()


def load_state(path, fingerprint, shape):
    """The state saved at ``path`` for this problem, or None (no file, or another
    problem's: then a ``UserWarning`` says it is ignored).

    Parameters
    ----------
    path : str or Path
    fingerprint : str
    shape : tuple (n, k)
        The shape of the CG unknowns.

    Raises
    ------
    ValueError
        When the file is not a checkpoint (not an npz of the expected arrays).
    """
    path = Path(path)
    if not path.exists():
        return None
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r} is not a regular file")
    try:
        with np.load(path, allow_pickle=False) as f:
            if set(f.files) != _KEYS:
                raise ValueError(f"holds {sorted(f.files)}")
            saved = str(f["fingerprint"])
            if saved != fingerprint:
                warnings.warn(f"checkpoint {str(path)!r} belongs to another problem (other "
                              "data, centers or parameters); starting from zero and "
                              "overwriting it", UserWarning, stacklevel=3)
                return None
            state = PCGState(f["X"], f["R"], f["P"], f["rz"], f["active"], int(f["n_iter"]))
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{str(path)!r} is not a kernelkit CG checkpoint ({exc}); remove it "
                         "or pass another checkpoint path") from exc
    n, k = shape
    if state.X.shape != (n, k) or state.R.shape != (n, k) or state.P.shape != (n, k) or \
            state.rz.shape != (k,) or state.active.shape != (k,) or state.active.dtype != bool \
            or state.n_iter < 0:
        raise ValueError(f"checkpoint {str(path)!r} has the right fingerprint but malformed "
                         "arrays; remove it")
    return state


def save_state(path, fingerprint, state):
    """Write ``state`` to ``path`` atomically (temporary file, then rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, fingerprint=np.array(fingerprint), X=state.X, R=state.R, P=state.P,
                     rz=state.rz, active=state.active, n_iter=np.array(state.n_iter))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
