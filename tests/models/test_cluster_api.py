"""KernelKMeans's scikit-learn API: transform, score, cluster_centers_, verbose, warnings,
callable init; against scikit-learn's KMeans (linear kernel) and brute force."""

import os
import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

import kernelkit
from kernelkit.features import ExplicitFeatures
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import KernelKMeans


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(n_samples=200, centers=4, cluster_std=2.0, n_features=3, random_state=0)
    return X


def _pair(X, sw=None, **kw):
    init = X[[0, 50, 100, 150]]
    ref = KMeans(4, init=init, n_init=1, algorithm="lloyd", tol=0.0).fit(X, sample_weight=sw)
    ours = KernelKMeans(4, kernel="linear", init=init, tol=0.0, **kw).fit(X, sample_weight=sw)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    return ref, ours


@pytest.mark.parametrize("weighted", [False, True])
def test_linear_transform_score_and_centers_equal_sklearn(blobs, weighted):
    X = blobs
    rng = np.random.default_rng(0)
    sw = rng.uniform(0.5, 2.0, size=len(X)) if weighted else None
    ref, ours = _pair(X, sw)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-10,
                               atol=1e-10)
    Xq = rng.normal(scale=4.0, size=(30, 3))
    np.testing.assert_allclose(ours.transform(Xq), ref.transform(Xq), rtol=1e-8, atol=1e-8)
    wq = rng.uniform(0.5, 2.0, size=len(Xq))
    assert ours.score(Xq) == pytest.approx(ref.score(Xq), rel=1e-9)
    assert ours.score(Xq, sample_weight=wq) == pytest.approx(
        ref.score(Xq, sample_weight=wq), rel=1e-9)
    assert ours.score(X, sample_weight=sw) == pytest.approx(-ours.inertia_, rel=1e-9)
    np.testing.assert_allclose(ours.fit_transform(X, sample_weight=sw), ref.transform(X),
                               rtol=1e-8, atol=1e-8)
    assert list(ours.get_feature_names_out()) == [f"kernelkmeans{i}" for i in range(4)]


def test_polynomial_centers_in_explicit_feature_space_and_brute_force_distances():
    X, _ = make_blobs(n_samples=40, centers=3, n_features=2, random_state=3)
    X = X / 5.0
    kernel = Polynomial(degree=2, gamma=1.0, coef0=1.0)
    model = KernelKMeans(3, kernel=kernel, random_state=0, tol=0.0).fit(X)
    Z = ExplicitFeatures(kernel).fit_transform(X)
    means = np.array([Z[model.labels_ == c].mean(axis=0) for c in range(3)])
    np.testing.assert_allclose(model.cluster_centers_, means, atol=1e-10)
    Xq = np.random.default_rng(0).normal(size=(10, 2))
    Zq = ExplicitFeatures(kernel).fit_transform(Xq)
    brute = np.sqrt(((Zq[:, None, :] - means[None]) ** 2).sum(-1))
    np.testing.assert_allclose(model.transform(Xq), brute, atol=1e-8)
    np.testing.assert_array_equal(model.predict(Xq), brute.argmin(axis=1))


def test_rbf_has_no_explicit_centers_but_transforms(blobs):
    model = KernelKMeans(3, kernel=RBF(gamma=0.1), random_state=0).fit(blobs)
    assert not hasattr(model, "cluster_centers_")
    with pytest.raises(AttributeError, match="no finite explicit basis"):
        model.cluster_centers_
    D = model.transform(blobs[:20])
    # RBF: k(x, x) = 1, so d^2 = 1 - 2 <phi(x), m_c> + ||m_c||^2, brute force from the members
    K = np.exp(-0.1 * ((blobs[:20, None] - blobs[None]) ** 2).sum(-1))
    Kxx = np.exp(-0.1 * ((blobs[:, None] - blobs[None]) ** 2).sum(-1))
    for c in range(3):
        m = model.labels_ == c
        ref = 1.0 - 2.0 * K[:, m].mean(axis=1) + Kxx[np.ix_(m, m)].mean()
        np.testing.assert_allclose(D[:, c] ** 2, ref, atol=1e-10)
    np.testing.assert_array_equal(D.argmin(axis=1), model.predict(blobs[:20]))
    with pytest.raises(AttributeError, match="no attribute 'something_'"):
        model.something_


def test_nystroem_transform_and_score_in_feature_space(blobs):
    model = KernelKMeans(3, kernel=RBF(gamma=0.1), approximation="nystroem", n_components=30,
                         random_state=0).fit(blobs)
    D = model.transform(blobs)
    np.testing.assert_array_equal(D.argmin(axis=1), model.labels_)
    assert model.score(blobs) == pytest.approx(-model.inertia_, rel=1e-6)
    # refit in exact mode: the Nystroem state goes
    model.set_params(approximation=None).fit(blobs)
    assert not hasattr(model, "components_")
    np.testing.assert_array_equal(model.transform(blobs).argmin(axis=1), model.labels_)


def test_verbose_reports_one_update_per_iteration_with_the_inertia(blobs, capsys, monkeypatch):
    import kernelkit._progress as progress_module

    updates = []

    class Recorder(progress_module.Progress):
        def update(self, n=1, **status):
            updates.append(status)

    monkeypatch.setattr(progress_module, "is_verbose", lambda verbose=0: True)
    monkeypatch.setattr("kernelkit.models.cluster.progress",
                        lambda total, desc, verbose=0: Recorder())
    model = KernelKMeans(4, kernel="linear", init=blobs[[0, 50, 100, 150]], tol=0.0,
                         verbose=1).fit(blobs)
    assert len(updates) == model.n_iter_
    inertia = [u["inertia"] for u in updates]
    assert all(a >= b - 1e-9 for a, b in zip(inertia, inertia[1:]))  # Lloyd never increases it
    assert inertia[-1] == pytest.approx(model.inertia_, rel=1e-12)


def test_verbose_prints_on_stderr(blobs, capsys):
    KernelKMeans(4, kernel="linear", random_state=0, verbose=1).fit(blobs)
    assert "kernel k-means" in capsys.readouterr().err
    KernelKMeans(4, kernel="linear", random_state=0).fit(blobs)
    assert capsys.readouterr().err == ""


def test_convergence_warnings():
    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [10.0, 10.0]], 5, axis=0)
    with pytest.warns(ConvergenceWarning, match=r"distinct clusters \(3\) found smaller than "
                                                r"n_clusters \(4\)"):
        KernelKMeans(4, kernel="linear", random_state=0).fit(X)
    X, _ = make_blobs(n_samples=300, centers=6, cluster_std=3.0, random_state=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        KernelKMeans(6, kernel="linear", max_iter=1, tol=0.0, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelKMeans(6, kernel="linear", random_state=0).fit(X)


def test_array_init_with_n_init_warns_and_callable_init_is_called(blobs):
    init = blobs[[0, 50, 100, 150]]
    with pytest.warns(RuntimeWarning, match="performing only one init .* n_init=3"):
        a = KernelKMeans(4, kernel="linear", init=init, n_init=3, tol=0.0).fit(blobs)
    calls = []

    def chooser(X, n_clusters, random_state):
        calls.append(random_state)
        return X[[0, 50, 100, 150]]

    b = KernelKMeans(4, kernel="linear", init=chooser, n_init=2, tol=0.0).fit(blobs)
    assert len(calls) == 2
    np.testing.assert_array_equal(a.labels_, b.labels_)
    ref = KMeans(4, init=chooser, n_init=2, algorithm="lloyd", tol=0.0,
                 random_state=0).fit(blobs)
    np.testing.assert_array_equal(b.labels_, ref.labels_)
    with pytest.raises(ValueError, match=r"returned 2 centers but n_clusters=4"):
        KernelKMeans(4, kernel="linear", init=lambda X, k, random_state: X[:2]).fit(blobs)
    c = KernelKMeans(4, kernel=RBF(gamma=0.1), approximation="nystroem", n_components=20,
                     init=chooser, n_init=1, random_state=0).fit(blobs)
    assert c.cluster_centers_.shape[0] == 4


@pytest.mark.parametrize("approximation", [None, "nystroem"])
def test_model_file_round_trip(blobs, tmp_path, approximation):
    model = KernelKMeans(4, kernel="linear", approximation=approximation, n_components=20,
                         random_state=0).fit(blobs)
    path = os.path.join(tmp_path, "km.kkm")
    kernelkit.save(model, path)
    back = kernelkit.load(path)
    new = blobs.copy()  # not the fitted array itself (which takes the symmetric Gram path)
    np.testing.assert_array_equal(back.predict(new), model.predict(new))
    np.testing.assert_array_equal(back.transform(new), model.transform(new))
    np.testing.assert_array_equal(back.cluster_centers_, model.cluster_centers_)
