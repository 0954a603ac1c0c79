"""smo_gram_path: SMO along C with seeded alphas and the gradient scaled, not rebuilt."""

import numpy as np
import pytest

from kernelkit.datasets import load_banana
from kernelkit.kernels import RBF
from kernelkit.solvers.smo import _violation, smo_gram, smo_gram_path

TOL = 1e-3


@pytest.fixture(scope="module")
def banana():
    X, y = load_banana(return_X_y=True)
    X, y = X[:500], y[:500].astype(np.float64)
    return y, RBF(gamma=1.0)(X)


@pytest.mark.parametrize("weighted", [False, True])
def test_each_solution_is_optimal_to_tol_as_a_cold_solve(banana, weighted):
    y, K = banana
    w = np.where(y > 0, 1.0, 1.7) if weighted else np.ones_like(y)
    Cs = [0.1, 1.0, 10.0, 100.0]
    for C, r in zip(Cs, smo_gram_path(K, y, Cs, w, tol=TOL)):
        Cb = C * w
        assert r.converged
        assert np.all(r.alpha >= 0) and np.all(r.alpha <= Cb)
        assert abs(r.alpha @ y) <= 1e-9 * C * len(y)
        exact_G = y * (K @ (r.alpha * y)) - 1.0  # the gradient from scratch
        assert _violation(r.alpha, exact_G, y, Cb) < TOL * 1.01
        cold = smo_gram(K, y, Cb, tol=TOL)
        # the same optimum to tol: dual objectives within tol x (sum of the bounds)
        assert abs(r.dual_objective - cold.dual_objective) <= TOL * Cb.sum() * 1e-2
        np.testing.assert_allclose(r.bias, cold.bias, atol=5 * TOL)


def test_first_value_equals_smo_gram_exactly(banana):
    y, K = banana
    first = next(smo_gram_path(K, y, [3.0]))
    cold = smo_gram(K, y, 3.0)
    np.testing.assert_array_equal(first.alpha, cold.alpha)
    assert first.n_iter == cold.n_iter


@pytest.mark.parametrize("bad", [dict(Cs=[1.0, 0.0]), dict(Cs=[np.inf]), dict(weights=0.0),
                                 dict(y="zeros")])
def test_smo_gram_path_refuses_what_it_cannot_solve(bad):
    from kernelkit.solvers.smo import smo_gram_path

    K = np.eye(4) + 0.5
    y = np.array([1.0, -1.0, 1.0, -1.0])
    args = dict(Cs=[1.0, 10.0], weights=1.0)
    args.update({k: v for k, v in bad.items() if k != "y"})
    if "y" in bad:
        y = np.zeros(4)
    with pytest.raises(ValueError, match="smo_gram_path"):
        list(smo_gram_path(K, y, args["Cs"], args["weights"]))
