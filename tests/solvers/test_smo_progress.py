"""SMO's progress callback: reports every PROGRESS_CHUNK steps and changes no step."""

import numpy as np

from kernelkit.kernels import RBF
from kernelkit.solvers import smo
from kernelkit.solvers.one_class import one_class_gram
from kernelkit.solvers.smo import smo_gram, smo_kernel
from kernelkit.solvers.svr import svr_gram


def _problem(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_chunked_runs_take_the_same_steps(monkeypatch):
    monkeypatch.setattr(smo, "PROGRESS_CHUNK", 7)  # many chunks, ends mid-way through shrinking
    X, y = _problem()
    K = RBF(gamma=0.5)(X)
    calls = []
    plain = smo_gram(K, y, 10.0, tol=1e-6)
    chunked = smo_gram(K, y, 10.0, tol=1e-6, callback=lambda s, g: calls.append((s, g)))
    np.testing.assert_array_equal(chunked.alpha, plain.alpha)
    assert chunked.bias == plain.bias and chunked.n_iter == plain.n_iter
    assert sum(s for s, _ in calls) == plain.n_iter
    assert all(s == 7 for s, _ in calls[:-1]) and calls[-1][1] < 1e-6
    rows = smo_kernel(RBF(gamma=0.5), X, y, 10.0, tol=1e-6, cache_bytes=8 * 400 * 80,
                      callback=lambda s, g: None)
    np.testing.assert_array_equal(rows.alpha, smo_kernel(RBF(gamma=0.5), X, y, 10.0, tol=1e-6,
                                                         cache_bytes=8 * 400 * 80).alpha)
    a = svr_gram(K, X[:, 0], 1.0, 0.1, callback=lambda s, g: None)
    np.testing.assert_array_equal(a.coef, svr_gram(K, X[:, 0], 1.0, 0.1).coef)
    b = one_class_gram(K, 0.3, callback=lambda s, g: None)
    np.testing.assert_array_equal(b.alpha, one_class_gram(K, 0.3).alpha)


def test_max_iter_reports_not_converged_with_the_violation():
    X, y = _problem()
    K = RBF(gamma=0.5)(X)
    for res in (smo_gram(K, y, 10.0, max_iter=5), svr_gram(K, X[:, 0], 1.0, 0.1, max_iter=5),
                one_class_gram(K, 0.3, max_iter=5)):
        assert not res.converged and res.n_iter == 5 and res.max_violation > 1e-3


def test_pegasos_svc_reports_progress_and_fits_the_same(capsys):
    import numpy as np

    from kernelkit import KernelSVC

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] + 0.3 * X[:, 1] > 0
    kw = dict(solver="pegasos", random_state=0, n_iter=30000)
    quiet = KernelSVC(**kw).fit(X, y)
    capsys.readouterr()
    loud = KernelSVC(verbose=1, **kw).fit(X, y)
    assert "kernelkit Pegasos" in capsys.readouterr().err
    np.testing.assert_array_equal(loud.dual_coef_, quiet.dual_coef_)
