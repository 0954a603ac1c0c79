"""KernelRidge with 1 and with the default number of BLAS threads (issue 13).

OpenBLAS's threaded ``dpotrf`` rounds differently with another thread count,
so predictions agree to round-off (documented in KernelRidge's Notes), and
refits with the same thread count are bit-identical.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kernelkit.models import KernelRidge

_RTOL = 1e-9  # the documented tolerance (measured: 2e-13 at most)


def _problems():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=600)
    S = ["".join(rng.choice(list("acgt"), size=30)) for _ in range(120)]
    return {
        "falkon_uniform": (dict(solver="falkon", n_centers=80), X, y),
        "falkon_leverage": (dict(solver="falkon", n_centers=80, center_selection="leverage"),
                            X, y),
        "spectrum": (dict(kernel="spectrum(k=3)"), S, rng.normal(size=120)),
    }


@pytest.mark.parametrize("name", ["falkon_uniform", "falkon_leverage", "spectrum"])
def test_one_and_default_blas_threads_agree_to_round_off(name):
    params, X, y = _problems()[name]

    def predict():
        return KernelRidge(random_state=0, **params).fit(X, y).predict(X)

    default = predict()
    np.testing.assert_array_equal(predict(), default)  # same threads: bit-identical
    with threadpool_limits(1):
        single = predict()
    scale = np.abs(default).max()
    np.testing.assert_allclose(single, default, rtol=0, atol=_RTOL * scale)
