"""Falkon's CG resumes from a checkpoint file with the iterates of an uninterrupted run."""

import numpy as np
import pytest

from kernelkit.kernels import RBF
from kernelkit.linalg import PCGState, pcg
from kernelkit.solvers.cg_checkpoint import load_state
from kernelkit.solvers.falkon import falkon


def _problem(n=400, M=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2]) + 0.1 * rng.normal(size=(n, 2))
    return X, X[rng.choice(n, M, replace=False)], Y


def test_pcg_continues_bit_for_bit_from_a_state():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(30, 30))
    A = A @ A.T + 0.1 * np.eye(30)
    b = rng.normal(size=(30, 2))
    full = pcg(A, b, rtol=1e-14, maxiter=12)
    states = []
    pcg(A, b, rtol=1e-14, maxiter=5,
        on_state=lambda st: states.append(PCGState(*(np.copy(a) for a in
                                                     (st.X, st.R, st.P, st.rz, st.active)),
                                                   st.n_iter)))
    resumed = pcg(A, b, rtol=1e-14, maxiter=12, state=states[-1])
    assert states[-1].n_iter == 5 and resumed.n_iter == 12
    np.testing.assert_array_equal(resumed.x, full.x)


def test_falkon_interrupted_then_resumed_equals_one_run(tmp_path):
    X, C, Y = _problem()
    kw = dict(tol=1e-14, maxiter=15)
    full = falkon(RBF(gamma=0.5), X, C, Y, 1e-3, **kw)
    path = tmp_path / "cg.npz"

    def stop_at_7(i):
        if i == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        falkon(RBF(gamma=0.5), X, C, Y, 1e-3, checkpoint=path, callback=stop_at_7, **kw)
    assert load_state(path, _fingerprint_of(path), (40, 2)).n_iter == 7
    seen = []
    resumed = falkon(RBF(gamma=0.5), X, C, Y, 1e-3, checkpoint=path, callback=seen.append, **kw)
    assert seen[0] == 8 and resumed.n_iter == full.n_iter == 15
    np.testing.assert_allclose(resumed.coef, full.coef, rtol=1e-12, atol=1e-12)


def _fingerprint_of(path):
    with np.load(path, allow_pickle=False) as f:
        return str(f["fingerprint"])


def test_checkpoint_of_another_problem_is_ignored_with_a_warning(tmp_path):
    X, C, Y = _problem()
    path = tmp_path / "cg.npz"
    falkon(RBF(gamma=0.5), X, C, Y, 1e-3, tol=1e-14, maxiter=3, checkpoint=path)
    with pytest.warns(UserWarning, match="another problem"):
        res = falkon(RBF(gamma=0.5), X, C, Y, 1e-2, tol=1e-14, maxiter=3, checkpoint=path)
    ref = falkon(RBF(gamma=0.5), X, C, Y, 1e-2, tol=1e-14, maxiter=3)
    np.testing.assert_allclose(res.coef, ref.coef, rtol=1e-12)


def test_a_file_that_is_not_a_checkpoint_is_refused(tmp_path):
    X, C, Y = _problem()
    path = tmp_path / "cg.npz"
    path.write_bytes(b"not an npz")
    with pytest.raises(ValueError, match="not a kernelkit CG checkpoint"):
        falkon(RBF(gamma=0.5), X, C, Y, 1e-3, maxiter=3, checkpoint=path)
    np.savez(path, fingerprint=np.array("x"), X=np.zeros(1))
    with pytest.raises(ValueError, match="not a kernelkit CG checkpoint"):
        falkon(RBF(gamma=0.5), X, C, Y, 1e-3, maxiter=3, checkpoint=path)
