"""The infrastructure of kernels on objects (kernels/objects.py): checking, canonical
form, codecs, and every estimator taking a list of objects."""

import numpy as np
import pytest

from kernelkit.kernels import Linear, MeanEmbedding, RBF, takes_objects
from kernelkit.kernels.objects import (ObjectKernel, RaggedArrays, normalize_block,
                                       object_codec, object_kinds, pairwise_loop)


def _sets(n=12, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(1, 5)), d)) + (i % 2) for i in range(n)]


def test_kinds_registered_and_predicate():
    assert {"set", "series"} <= set(object_kinds())
    assert takes_objects(MeanEmbedding())
    assert not takes_objects(RBF()) and not takes_objects("precomputed")
    assert object_codec("set").kind == "set"
    with pytest.raises(ValueError, match="no kind of objects 'nope'"):
        object_codec("nope")


def test_check_input_canonical_form():
    k = MeanEmbedding(Linear())
    X = [[1, 2], np.array([[1.0], [3.0], [4.0]])]
    C = k.check_input(X)
    assert C.dtype == object and C.shape == (2,)
    assert C[0].shape == (2, 1) and C[1].shape == (3, 1)  # a 1-D item is one column
    X2 = [np.ones((3, 2)), np.zeros((1, 2))]
    C2 = k.check_input(X2)
    assert all(a.dtype == np.float64 and not a.flags.writeable for a in C2)
    X2[0][0, 0] = 7.0  # the caller's arrays may change: the canonical copy does not
    assert C2[0][0, 0] == 1.0
    assert k.check_input(C2) is C2  # canonical input is taken as it is
    # a 3-D array is n sets of equal size; a 2-D array n sets of scalars
    assert k.check_input(np.zeros((4, 3, 2))).shape == (4,)
    assert k.check_input(np.zeros((4, 3)))[0].shape == (3, 1)


@pytest.mark.parametrize("bad, error, words", [
    (None, TypeError, "X is None"),
    ("abc", TypeError, "single string"),
    ([], ValueError, "empty"),
    (np.zeros(3), ValueError, "1-D array"),
    ([np.ones((2, 2)), np.zeros((0, 2))], ValueError, r"X\[1\] is an empty set"),
    ([np.ones((2, 2)), np.ones((2, 3))], ValueError, r"X\[1\] has 3 features but X\[0\] has 2"),
    ([np.ones((2, 2)), np.array([[1.0, np.inf]])], ValueError, r"X\[1\] holds inf"),
    ([np.ones((2, 2)), [["a", "b"]]], TypeError, r"X\[1\] holds <U1 values, not numbers"),
    ([np.ones((2, 2)), None], TypeError, r"X\[1\] is NoneType"),
    ([np.ones((2, 2)), np.ones((2, 2, 2))], ValueError, r"X\[1\] has shape \(2, 2, 2\)"),
    ([[[1.0, 2.0], [3.0]]], ValueError, r"X\[0\] is ragged"),
])
def test_check_input_names_the_bad_item(bad, error, words):
    with pytest.raises(error, match=words):
        MeanEmbedding(Linear()).check_input(bad)


def test_tables_and_untrusted_read_only_arrays():
    pd = pytest.importorskip("pandas")
    k = MeanEmbedding(Linear())
    with pytest.raises(TypeError, match="table"):
        k.check_input(pd.DataFrame({"a": [1.0, 2.0]}))
    bad = np.array([[1.0, np.nan]])
    bad.flags.writeable = False  # looks canonical, is not finite: checked all the same
    X = np.empty(2, dtype=object)
    X[0], X[1] = np.ones((1, 2)), bad
    X[0].flags.writeable = False
    with pytest.raises(ValueError, match=r"X\[1\] holds nan"):
        k.check_input(X)


def test_x_and_y_of_different_dimension_refused():
    k = MeanEmbedding(Linear())
    with pytest.raises(ValueError, match="same number"):
        k([np.ones((2, 2))], [np.ones((2, 3))])


def test_ragged_codec_round_trip_and_corruption():
    codec = object_codec("series")
    X = codec.check(_sets(7, d=3))
    arrays, info = codec.encode(X)
    assert set(arrays) == set(codec.parts) and info == {"n_features": 3}
    back = codec.decode(arrays, info, len(X))
    assert all(np.array_equal(a, b) for a, b in zip(X, back))
    bad = dict(arrays, offsets=arrays["offsets"][::-1].copy())
    with pytest.raises(ValueError, match="offsets"):
        codec.decode(bad, info, len(X))
    with pytest.raises(ValueError, match="columns"):
        codec.decode(arrays, {"n_features": 2}, len(X))


def test_resolve_on_objects_fixes_the_base_width():
    X = _sets(10)
    k = MeanEmbedding().resolve(X)
    points = np.concatenate(X)
    assert k == MeanEmbedding(RBF().resolve(points))
    assert MeanEmbedding(RBF(gamma=0.5)).resolve(X) == MeanEmbedding(RBF(gamma=0.5))
    # inside sums and products too (the default base is seen by the deep walks), in a fit
    from kernelkit import KernelRidge

    assert not (2.0 * MeanEmbedding() + 1.0).is_resolved
    fitted = KernelRidge(kernel=2.0 * MeanEmbedding() + 1.0).fit(X, np.arange(10) % 2.0)
    assert fitted.kernel_ == 2.0 * MeanEmbedding(RBF().resolve(points)) + 1.0


def test_normalize_block_and_pairwise_loop():
    rng = np.random.default_rng(1)
    F = rng.normal(size=(6, 3))
    K = F @ F.T
    d = np.diag(K).copy()
    ref = K / np.sqrt(np.outer(d, d))
    got = normalize_block(K[2:].copy(), d[2:], d, 2)
    np.testing.assert_allclose(got, ref[2:], rtol=1e-12)
    assert np.all(got[np.arange(4), np.arange(2, 6)] == 1.0)
    X = np.empty(6, dtype=object)
    X[:] = list(F)
    np.testing.assert_allclose(pairwise_loop(np.dot, X[2:], X, 2), F[2:] @ F.T, rtol=1e-12)
    np.testing.assert_allclose(pairwise_loop(np.dot, X[:3], X[1:]), F[:3] @ F[1:].T,
                               rtol=1e-12)


def test_object_kernels_refuse_random_fourier_features():
    from kernelkit.features import RandomFourierFeatures

    with pytest.raises(ValueError, match="Nystroem"):
        RandomFourierFeatures(kernel=MeanEmbedding(RBF(gamma=1.0))).fit(_sets())


def test_a_new_kind_plugs_in():
    """A kernel of an unregistered-by-default kind: subclass ObjectKernel, register a codec."""
    from kernelkit.kernels.objects import _CODECS, register_object_kind

    class Bags(RaggedArrays):
        pass

    class CountKernel(ObjectKernel):
        input_kind = "bag_test"

        def __init__(self):
            self._check_params()

        def _block(self, X, Y, diag_offset):
            return np.array([[float(len(a) * len(b)) for b in Y] for a in X])

        def _diag(self, X):
            return np.array([float(len(a)) ** 2 for a in X])

    register_object_kind(Bags("bag_test", "bag", "bags", "item"))
    try:
        k = CountKernel()
        K = k([np.ones((2, 1)), np.ones((3, 1))])
        np.testing.assert_array_equal(K, [[4.0, 6.0], [6.0, 9.0]])
        assert takes_objects(k)
        with pytest.raises(TypeError, match=r"X\[0\] is str"):
            k.check_input(["x"])
    finally:
        del _CODECS["bag_test"]


def test_estimators_take_lists_of_objects():
    """Every kind of estimator fits on objects; the linear base kernel is a check: its
    models equal the same models on the mean points with a linear kernel."""
    from kernelkit import (KernelKMeans, KernelKNeighborsClassifier, KernelLogisticRegression,
                           KernelRidge, KernelSVC)
    from kernelkit.features import Nystroem

    X = _sets(30)
    y = np.arange(30) % 2
    means = np.array([a.mean(axis=0) for a in X])
    k = MeanEmbedding(Linear())
    for est, on_means in [
        (KernelRidge(kernel=k, alpha=0.1), KernelRidge(kernel=Linear(), alpha=0.1)),
        (KernelSVC(kernel=k, C=1.0), KernelSVC(kernel=Linear(), C=1.0)),
        (KernelKNeighborsClassifier(kernel=k, n_neighbors=3),
         KernelKNeighborsClassifier(kernel=Linear(), n_neighbors=3)),
        (KernelLogisticRegression(kernel=k), KernelLogisticRegression(kernel=Linear())),
    ]:
        a = est.fit(X, y).predict(X[:8])
        b = on_means.fit(means, y).predict(means[:8])
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, err_msg=type(est).__name__)
        assert not hasattr(est, "n_features_in_")
    labels = KernelKMeans(kernel=k, n_clusters=2, random_state=0).fit(X).labels_
    assert labels.shape == (30,)
    Z = Nystroem(kernel=k, n_components=2, random_state=0).fit(X).transform(X)
    np.testing.assert_allclose(Z @ Z.T, means @ means.T, atol=1e-9)  # rank 2: exact


def test_cv_learners_take_strings_and_objects():
    """The *CV searches fit on non-vector inputs (they copied n_features_in_, which such
    fits do not set) and choose what GridSearchCV chooses."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from kernelkit import KernelSVC, KernelSVCCV
    from kernelkit.kernels import Spectrum

    X = _sets(30)
    y = np.arange(30) % 2
    k = MeanEmbedding(RBF(gamma=0.5))
    folds = StratifiedKFold(3)
    cv = KernelSVCCV(kernel=k, Cs=[0.1, 1.0, 10.0], cv=folds).fit(X, y)
    ref = GridSearchCV(KernelSVC(kernel=k), {"C": [0.1, 1.0, 10.0]}, cv=folds).fit(X, y)
    assert cv.C_ == ref.best_params_["C"]
    assert not hasattr(cv, "n_features_in_")
    np.testing.assert_array_equal(cv.predict(X[:6]), ref.predict(X[:6]))
    strings = ["acgt", "ggta", "ttag", "acga"] * 5
    KernelSVCCV(kernel=Spectrum(k=2)).fit(strings, np.arange(20) % 2).predict(strings[:3])
