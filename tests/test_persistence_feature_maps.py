"""The random-feature recipe in model files: kernel machines that learnt w on a
feature map of their own, and a feature map followed by a scikit-learn linear model.
Loaded models predict exactly as the saved ones; crafted files are refused."""

import io
import json
import zipfile

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import (LinearRegression, LogisticRegression, Ridge, RidgeClassifier,
                                  SGDClassifier, SGDRegressor)
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC, LinearSVR

import kernelkit
from kernelkit import ModelFormatError
from kernelkit.features import ExplicitFeatures, Nystroem, RandomFourierFeatures, RandomKitchenSinks
from kernelkit.models import KernelMachine, KernelMachineClassifier

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

MAPS = [RandomFourierFeatures("rbf(gamma=0.5)", n_components=40, random_state=0),
        RandomFourierFeatures("laplacian", n_components=40, variant="paired", random_state=1),
        Nystroem("rbf(gamma=0.5)", n_components=15, random_state=0),
        RandomKitchenSinks(30, random_state=0),
        ExplicitFeatures("poly(degree=2)")]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    labels = np.array(["a", "b", "c"])[np.digitize(X[:, 1], [-0.5, 0.5])]
    return X, y, labels


def _round_trip(model, tmp_path, name="m.kk"):
    path = tmp_path / name
    kernelkit.save(model, path)
    return kernelkit.load(path), path


@pytest.mark.parametrize("fmap", MAPS, ids=lambda m: type(m).__name__)
def test_kernel_machines_with_features_round_trip(fmap, data, tmp_path):
    X, y, labels = data
    reg = KernelMachine("rbf(gamma=0.5)", solver="sgd", strategy="features_cached",
                        features=fmap, eta0=0.01, random_state=0).fit(X, y)
    clf = KernelMachineClassifier("rbf", loss="logistic", solver="sgd", eta0=0.01,
                                  strategy="features_on_the_fly", features=fmap,
                                  random_state=0).fit(X, labels)
    for model, method in ((reg, "predict"), (clf, "decision_function")):
        assert model.representation_ == "primal"
        again, path = _round_trip(model, tmp_path)
        np.testing.assert_array_equal(getattr(again, method)(X), getattr(model, method)(X))
        assert type(again.features) is type(fmap) and again.features.get_params() == \
            fmap.get_params()
        assert not hasattr(again.features, "n_features_in_")  # the parameter stays unfitted
        assert kernelkit.persistence.read_metadata(path)["format_version"] == 2
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_a_dual_fit_with_features_keeps_the_parameter(data, tmp_path):
    X, y, _ = data
    model = KernelMachine("rbf", features=RandomFourierFeatures(n_components=10)).fit(X, y)
    assert model.representation_ == "dual"  # Newton: the features are not used
    again, path = _round_trip(model, tmp_path)
    X = X.copy()  # not the fitted array itself (whose Gram takes the symmetric path)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.features.get_params() == model.features.get_params()
    assert "feature_map" not in kernelkit.persistence.read_metadata(path)


def test_random_features_drawn_by_the_strategy_round_trip(data, tmp_path):
    X, y, _ = data
    model = KernelMachine("rbf(gamma=0.5)", solver="sgd", strategy="features_cached",
                          random_state=0).fit(X, y)
    assert isinstance(model.feature_map_, RandomFourierFeatures) and model.features is None
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_kernel_logistic_regression_on_random_features_round_trips(data, tmp_path):
    from kernelkit.models import KernelLogisticRegression

    X, _, labels = data
    model = KernelLogisticRegression("rbf(gamma=0.5)", solver="sgd", strategy="features_cached",
                                     random_state=0).fit(X, labels == "a")
    assert model.representation_ == "primal"
    assert isinstance(model.feature_map_, RandomFourierFeatures)
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


def test_random_feature_ridge_searches_round_trip(data, tmp_path):
    from kernelkit.models import KernelRidgeClassifierCV, KernelRidgeCV

    X, y, labels = data
    for model, target in ((KernelRidgeCV("rbf(gamma=0.5)", alphas=[0.1, 1.0], solver="features",
                                         n_components=30, random_state=0), y),
                          (KernelRidgeClassifierCV("rbf(gamma=0.5)", alphas=[0.1, 1.0],
                                                   solver="features", n_components=30,
                                                   random_state=0), labels)):
        model.fit(X, target)
        assert model.solver_ == "primal"
        again, path = _round_trip(model, tmp_path)
        np.testing.assert_array_equal(again.predict(X), model.predict(X))
        with pytest.raises(ModelFormatError, match="coef_ has shape"):
            kernelkit.load(_edited(path, tmp_path, arrays={"coef_": np.zeros((29, 3))}))


LINEAR = [(Ridge(alpha=0.1), "y"), (LinearRegression(), "y"), (SGDRegressor(random_state=0), "y"),
          (LinearSVR(random_state=0), "y"), (Ridge(fit_intercept=False), "y"),
          (RidgeClassifier(), "labels"), (RidgeClassifier(), "binary"),
          (LogisticRegression(), "labels"), (LogisticRegression(C=10.0), "binary"),
          (SGDClassifier(loss="log_loss", random_state=0), "labels"),
          (SGDClassifier(random_state=0), "binary"), (LinearSVC(random_state=0), "labels"),
          (LinearSVC(random_state=0), "binary")]


@pytest.mark.parametrize("linear, target", LINEAR,
                         ids=[f"{type(m).__name__}-{t}" for m, t in LINEAR])
def test_feature_map_then_linear_model_round_trips(linear, target, data, tmp_path):
    X, y, labels = data
    Y = {"y": y, "labels": labels, "binary": labels == "a"}[target]
    model = make_pipeline(RandomFourierFeatures("rbf(gamma=0.5)", n_components=30,
                                                random_state=0), linear).fit(X, Y)
    again, _ = _round_trip(model, tmp_path)
    for method in ("predict", "decision_function", "predict_proba"):
        if hasattr(model, method) and (method != "predict_proba" or
                                       getattr(linear, "loss", "log_loss") == "log_loss"):
            np.testing.assert_array_equal(getattr(again, method)(X), getattr(model, method)(X))
    fitted = again[-1]
    for attr in ("coef_", "intercept_", "classes_"):
        if hasattr(model[-1], attr):
            np.testing.assert_array_equal(getattr(fitted, attr), getattr(model[-1], attr))
    assert np.ndim(fitted.intercept_) == np.ndim(model[-1].intercept_)  # a number stays one


def test_multi_target_ridge_round_trips(data, tmp_path):
    X, y, _ = data
    Y = np.column_stack([y, -y])
    model = make_pipeline(Nystroem("rbf", n_components=10, random_state=0), Ridge()).fit(X, Y)
    again, _ = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_what_a_file_cannot_hold_is_refused_at_save(data, tmp_path):
    X, y, labels = data
    multilabel = RidgeClassifier().fit(X, np.column_stack([labels == "a", labels == "b"]))
    with pytest.raises(ValueError, match="multi-label"):
        kernelkit.save(multilabel, tmp_path / "x.kk")
    sparse = SGDClassifier(random_state=0).fit(X, labels).sparsify()
    with pytest.raises(ValueError, match="densify"):
        kernelkit.save(sparse, tmp_path / "x.kk")
    odd = KernelMachine(solver="sgd", strategy="features_cached", eta0=0.01,
                        features=_Squares()).fit(X, y)
    with pytest.raises(ValueError, match="not one of kernelkit's feature maps"):
        kernelkit.save(odd, tmp_path / "x.kk")


class _Squares:
    """A user's transformer: usable as features=, not storable."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X) ** 2

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


# ---- crafted files ---------------------------------------------------------------
def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i.filename) for i in zf.infolist()}


def _write(path, members):
    with zipfile.ZipFile(path, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return path


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _edited(src, tmp_path, edit_meta=None, arrays=None):
    members = _members(src)
    meta = json.loads(members["metadata.json"])
    if edit_meta:
        edit_meta(meta)
    members["metadata.json"] = json.dumps(meta).encode()
    for key, arr in (arrays or {}).items():
        members[f"{key}.npy"] = _npy(arr)
        node = meta
        *where, attr = key.split("/")
        for part in where:
            node = node[int(part)] if part.isdigit() else node[part]
        node["arrays"][attr] = {"dtype": arr.dtype.name, "shape": list(arr.shape)}
    members["metadata.json"] = json.dumps(meta).encode()
    return _write(tmp_path / "edited.kk", members)


@pytest.fixture(scope="module")
def files(data, tmp_path_factory):
    X, y, labels = data
    where = tmp_path_factory.mktemp("feature_maps")
    machine = KernelMachineClassifier("rbf", loss="logistic", solver="sgd", eta0=0.01,
                                      strategy="features_cached", random_state=0,
                                      features=RandomFourierFeatures(n_components=20,
                                                                     random_state=0))
    pipe = make_pipeline(RandomFourierFeatures(n_components=20, random_state=0),
                         LogisticRegression())
    out = {}
    for name, model, target in (("machine", machine, labels), ("pipe", pipe, labels)):
        kernelkit.save(model.fit(X, target), where / f"{name}.kk")
        out[name] = where / f"{name}.kk"
    return out


def _set(path_keys, value):
    def edit(meta):
        node = meta
        for key in path_keys[:-1]:
            node = node[key]
        node[path_keys[-1]] = value
    return edit


@pytest.mark.parametrize("edit, arrays, match", [
    (None, {"coef_": np.zeros((19, 3))}, "coef_ has shape .* 20 features"),
    (None, {"coef_": np.full((20, 3), np.nan)}, "NaN|non-finite|finite"),
    (_set(["feature_map", "attributes", "n_features_in_"], {"value": 4}), None,
     "n_features_in_|random_weights_"),
    (_set(["params", "features"], {"estimator": {"name": "PCA", "params": {}}}), None,
     "features must be one of"),
    (_set(["params", "features", "estimator", "params", "n_components"], {"value": 21}), None,
     "is not the features parameter"),
    (_set(["params", "features", "estimator", "params", "n_components"], {"value": -1}), None,
     "invalid parameters of the features"),
    (_set(["feature_map", "estimator"], "StandardScaler"), None, "only a kernel machine holds"),
    (lambda m: m.pop("feature_map"), None, "does not match its contents"),
    (lambda m: m.pop("feature_map") and m.update(format_version=1), None,
     "unexpected contents"),
    (_set(["attributes", "classes_"], {"strings": ["a", "a", "b"]}), None, "repeated|classes"),
], ids=["coef rows", "coef nan", "map inputs", "features class", "map params differ",
        "bad param", "map class", "map missing", "map missing v1", "classes"])
def test_crafted_machine_files_are_refused(files, tmp_path, edit, arrays, match):
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(_edited(files["machine"], tmp_path, edit, arrays))


def test_a_feature_map_on_another_estimator_is_refused(files, tmp_path):
    def move(meta):
        meta["steps"][1]["feature_map"] = meta["steps"][0]
    with pytest.raises(ModelFormatError, match="only a kernel machine holds"):
        kernelkit.load(_edited(files["pipe"], tmp_path, move))


@pytest.mark.parametrize("edit, arrays, match", [
    (None, {"steps/1/coef_": np.zeros((3, 19))}, "coef_ has shape"),
    (None, {"steps/1/intercept_": np.zeros(2)}, "intercept_ has shape"),
    (None, {"steps/1/coef_": np.full((3, 20), np.inf)}, "NaN|finite"),
    (None, {"steps/1/coef_": np.zeros((2, 20)), "steps/1/intercept_": np.zeros(2)},
     "2 row"),
    (_set(["steps", 1, "attributes", "classes_"], {"strings": ["a"]}), None,
     "at least two distinct"),
    (_set(["steps", 1, "params", "C"], {"value": -1.0}), None, "invalid parameters of "
                                                               "LogisticRegression"),
    (_set(["steps", 1, "params", "solver"], {"value": "pickle"}), None, "invalid parameters"),
    (_set(["steps", 1, "attributes", "n_features_in_"], {"value": 0}), None,
     "n_features_in_"),
], ids=["coef cols", "intercept", "coef inf", "rows vs classes", "one class", "C", "solver",
        "n_features_in_"])
def test_crafted_linear_model_files_are_refused(files, tmp_path, edit, arrays, match):
    with pytest.raises(ModelFormatError, match=match):
        kernelkit.load(_edited(files["pipe"], tmp_path, edit, arrays))
