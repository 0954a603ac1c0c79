"""Model files of the distance-based estimators: round trips and refused bad state."""

import zipfile

import numpy as np
import pytest

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.kernels import RBF, Polynomial
from kernelkit.models import (KernelKMeans, KernelKNeighborsClassifier,
                              KernelKNeighborsRegressor, KernelOutlierDetector)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] > 0).astype(int), rng.normal(size=(20, 3))


@pytest.mark.parametrize("model, method", [
    (KernelKNeighborsClassifier(3, weights="distance", kernel=RBF(gamma=0.5)), "predict_proba"),
    (KernelKNeighborsRegressor(4, kernel=Polynomial(degree=2)), "predict"),
    (KernelKMeans(3, kernel="rbf(gamma=0.3)", random_state=0), "predict"),
    (KernelKMeans(3, kernel=RBF(gamma=0.3), approximation="nystroem", n_components=15,
                  random_state=0), "predict"),
    (KernelKMeans(2, kernel="linear", init=np.array([[0.0, 0, 0], [1, 1, 1]])), "predict"),
    (KernelOutlierDetector(kernel=RBF(gamma=0.5)), "decision_function"),
    (KernelOutlierDetector(kernel=RBF(gamma=0.5), method="mean", contamination=0.1),
     "decision_function"),
])
def test_round_trip(model, method, data, tmp_path):
    X, y, Xq = data
    model.fit(X, y) if "Neighbors" in type(model).__name__ else model.fit(X)
    kernelkit.save(model, tmp_path / "m.kk")
    again = kernelkit.load(tmp_path / "m.kk")
    assert type(again) is type(model)
    np.testing.assert_array_equal(getattr(again, method)(Xq), getattr(model, method)(Xq))
    if hasattr(model, "labels_"):
        np.testing.assert_array_equal(again.labels_, model.labels_)
        assert again.inertia_ == model.inertia_


def _rewrite(path, member, array):
    """Replace one .npy member of a model file by ``array`` (same dtype and shape)."""
    import io
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    members[member] = buf.getvalue()
    with zipfile.ZipFile(path, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)


def test_inconsistent_state_is_refused(data, tmp_path):
    X, y, _ = data
    path = tmp_path / "k.kk"
    kernelkit.save(KernelKMeans(3, kernel=RBF(gamma=0.3), random_state=0).fit(X), path)
    labels = kernelkit.load(path).labels_.copy()
    labels[0] = 7  # not a cluster of n_clusters=3
    _rewrite(path, "labels_.npy", labels)
    with pytest.raises(ModelFormatError, match="labels_"):
        kernelkit.load(path)
    path = tmp_path / "n.kk"
    kernelkit.save(KernelKNeighborsClassifier(3).fit(X, y), path)
    y_fit = kernelkit.load(path).y_fit_.copy()
    y_fit[0] = 5  # there are two classes
    _rewrite(path, "y_fit_.npy", y_fit)
    with pytest.raises(ModelFormatError, match="class indices"):
        kernelkit.load(path)
