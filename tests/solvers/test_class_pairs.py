"""One-vs-one pair matrices equal the sub-matrices of the full Gram matrix."""

import numpy as np
import pytest

from kernelkit import gram
from kernelkit.kernels import RBF, Polynomial
from kernelkit.solvers.class_pairs import pair_grams, pair_grams_bytes, sub_gram


@pytest.mark.parametrize("counts", [[5, 7, 3], [1, 200, 70, 2], [0, 4, 4]])
@pytest.mark.parametrize("kernel", [RBF(gamma=0.3), Polynomial(degree=2, gamma=1.0)])
def test_pair_grams_equal_the_full_matrix_blocks(counts, kernel):
    rng = np.random.default_rng(sum(counts))
    starts = np.concatenate([[0], np.cumsum(counts)])
    X = rng.normal(size=(starts[-1], 3))
    K = gram(kernel, X)
    seen = []
    for a, b, Kab in pair_grams(kernel, X, starts):
        rows = np.r_[starts[a]:starts[a + 1], starts[b]:starts[b + 1]]
        np.testing.assert_allclose(Kab, K[np.ix_(rows, rows)], rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(Kab, Kab.T)
        np.testing.assert_array_equal(sub_gram(K, starts, a, b), K[np.ix_(rows, rows)])
        seen.append((a, b))
    n = len(counts)
    assert seen == [(a, b) for a in range(n) for b in range(a + 1, n)]
    top = sorted(counts)[-2:]
    assert pair_grams_bytes(counts) == 8.0 * (sum(c * c for c in counts) + sum(top) ** 2)
