"""Malformed sparse structure (scipy builds CSR/CSC without a full check) ends in a clear
ValueError before any compiled loop can read past the arrays (it crashed the process)."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelkit.kernels import RBF
from kernelkit.models import KernelOneClassSVM, KernelRidge, KernelSVC, KernelSVR


def _bad_csr(column, rows=6):
    """``rows`` x 3 CSR, two stored values per row, the second of row 1 in ``column``."""
    indices = np.tile([0, 2], rows)
    indices[3] = column  # scipy accepts it: no full check at construction
    indptr = np.arange(0, 2 * rows + 1, 2)
    return sp.csr_matrix((np.ones(2 * rows), indices, indptr), shape=(rows, 3))


@pytest.mark.parametrize("make", [lambda: KernelSVC(RBF(gamma=0.5)),
                                  lambda: KernelSVR(RBF(gamma=0.5)),
                                  lambda: KernelRidge(RBF(gamma=0.5))])
@pytest.mark.parametrize("column", [3, 1000, -1])
def test_out_of_range_column_index_is_refused_at_fit(make, column):
    with pytest.raises(ValueError, match="malformed sparse CSR"):
        make().fit(_bad_csr(column), np.arange(6) % 2)


def test_one_class_fit_and_predict_refuse_it():
    good = sp.random(20, 3, density=0.5, format="csr", random_state=0)
    model = KernelOneClassSVM(RBF(gamma=0.5)).fit(good)
    with pytest.raises(ValueError, match="malformed sparse CSR"):
        model.predict(_bad_csr(7))
    with pytest.raises(ValueError, match="malformed sparse CSR"):
        KernelOneClassSVM(RBF(gamma=0.5)).fit(_bad_csr(7))


def test_a_well_formed_matrix_still_fits():
    X = sp.random(30, 4, density=0.4, format="csr", random_state=1)
    y = np.arange(30) % 2
    assert KernelSVC(RBF(gamma=0.5)).fit(X, y).score(X, y) > 0.5


def test_svr_without_support_vectors_predicts_sparse_rows():
    from kernelkit.models import KernelSVR

    X = sp.random(20, 3, density=0.5, format="csr", random_state=0)
    model = KernelSVR(RBF(gamma=0.5), epsilon=0.5).fit(X, np.zeros(20))  # all inside the tube
    assert model.support_.size == 0
    np.testing.assert_array_equal(model.predict(X[:3]), model.intercept_ * np.ones(3))
