"""The kernelkit command: fit -> predict -> info round trip, JSON output, errors."""

import json
import subprocess
import sys

import numpy as np
import pytest

import kernelkit
from kernelkit.cli import main
from kernelkit.datasets import read_table
from kernelkit.models import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def _write_csv(path, X, y=None, names=None, target="y"):
    names = names or [f"x{j}" for j in range(X.shape[1])]
    cols = names + ([target] if y is not None else [])
    rows = [",".join(cols)]
    for i in range(X.shape[0]):
        vals = [repr(float(v)) for v in X[i]] + ([repr(float(y[i]))] if y is not None else [])
        rows.append(",".join(vals))
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.05 * rng.normal(size=60)
    train = _write_csv(tmp_path / "train.csv", X[:40], y[:40])
    test = _write_csv(tmp_path / "test.csv", X[40:], y[40:])
    return tmp_path, train, test


def _ridge(kernel, alpha):
    """KernelRidge as kernelkit fit builds it (with an intercept where the class has one)."""
    model = KernelRidge(kernel=kernel, alpha=alpha)
    if "fit_intercept" in model.get_params():
        model.set_params(fit_intercept=True)
    return model


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_error(code, err, *fragments):
    assert code != 0
    assert "kernelkit: error:" in err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_version_subprocess():
    proc = subprocess.run([sys.executable, "-m", "kernelkit", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"kernelkit {kernelkit.__version__}"


def test_fit_predict_info_round_trip(data, capsys):
    tmp, train, test = data
    model_path = tmp / "model.kk"
    code, out, err = _run(capsys, "fit", train, "--target", "y", "--kernel", "rbf(gamma=0.5)",
                          "--alpha", "1e-2", "--out", model_path)
    assert code == 0, err
    assert "train RMSE" in out and str(model_path) in out

    preds_path = tmp / "preds.csv"
    code, out, err = _run(capsys, "predict", model_path, test, "--out", preds_path)
    assert code == 0, err
    assert "RMSE against column 'y'" in out  # the non-feature column is taken as the target
    lines = preds_path.read_text().splitlines()
    assert lines[0] == "prediction"
    pred_cli = np.array([float(v) for v in lines[1:]])

    X, y, _ = read_table(train, target="y")
    X_test, y_test, _ = read_table(test, target="y")
    # what the command promises: standardised columns, a centred target, the given kernel
    expected = make_pipeline(StandardScaler(), _ridge("rbf(gamma=0.5)", 1e-2)).fit(X, y)
    np.testing.assert_allclose(pred_cli, expected.predict(X_test), rtol=1e-10, atol=1e-10)

    code, out, err = _run(capsys, "info", model_path)
    assert code == 0, err
    for fragment in ("Pipeline(scale: StandardScaler, model: KernelRidge)", "RBF(gamma=0.5)",
                     "dual", "n_features: 3", "kernelkit-model version 2", "x0, x1, x2"):
        assert fragment in out


def test_predict_to_stdout_and_by_name(data, capsys):
    tmp, train, test = data
    model_path = tmp / "m.kk"
    assert _run(capsys, "fit", train, "--target", "y", "--kernel", "poly(degree=2)",
                "--out", model_path)[0] == 0
    # Same columns in another order and without the target: matched by name.
    X, y, _ = read_table(test, target="y")
    shuffled = _write_csv(tmp / "shuffled.csv", X[:, [2, 0, 1]], names=["x2", "x0", "x1"])
    code, out, err = _run(capsys, "predict", model_path, shuffled)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "prediction" and len(lines) == 1 + len(X)
    code, out2, _ = _run(capsys, "predict", model_path, test)
    assert out2.splitlines()[1:] == lines[1:]


def test_json_outputs_parse(data, capsys):
    tmp, train, test = data
    model_path = tmp / "cv.kk"
    code, out, err = _run(capsys, "fit", train, "--target", "y", "--kernel", "rbf(gamma=0.5)",
                          "--cv-alphas", "1e-3,1e-2,0.1", "--out", model_path, "--json")
    assert code == 0, err
    fit = json.loads(out)
    assert fit["estimator"].startswith("Pipeline") and fit["alpha"] in (1e-3, 1e-2, 0.1)
    assert fit["n"] == 40 and fit["d"] == 3 and fit["train_rmse"] >= 0
    assert "leave-one-out" in " ".join(fit["notes"]) and fit["validation_score"] > 0

    code, out, err = _run(capsys, "predict", model_path, test, "--json")
    assert code == 0, err
    pred = json.loads(out)
    assert pred["n"] == 20 and len(pred["predictions"]) == 20 and pred["rmse"] > 0
    assert pred["target"] == "y"

    code, out, err = _run(capsys, "info", model_path, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["estimator"].endswith("model: KernelRidge)") and info["n_train"] == 40
    assert info["format_version"] == 2 and info["kernelkit_version"] == kernelkit.__version__


def test_fit_primal_solver(data, capsys):
    tmp, train, _ = data
    code, out, err = _run(capsys, "fit", train, "--target", "y", "--kernel", "linear",
                          "--solver", "primal", "--out", tmp / "lin.kk", "--json")
    assert code == 0, err
    assert json.loads(out)["solver"] == "primal"
    code, out, err = _run(capsys, "info", tmp / "lin.kk")
    assert code == 0 and "n training: 40" in out and "target:" in out and " y\n" in out


# ---------------------------------------------------------------- errors

def test_missing_data_file(tmp_path, capsys):
    code, _, err = _run(capsys, "fit", tmp_path / "nope.csv", "--target", "y",
                        "--out", tmp_path / "m.kk")
    _assert_error(code, err, "nope.csv")
    assert code == 1


def test_unknown_target_column(data, capsys):
    tmp, train, _ = data
    code, _, err = _run(capsys, "fit", train, "--target", "price", "--out", tmp / "m.kk")
    _assert_error(code, err, "'price'", "x0")


def test_bad_kernel_expression_shows_position(data, capsys):
    tmp, train, _ = data
    code, _, err = _run(capsys, "fit", train, "--target", "y", "--kernel", "rbf(gamma=)",
                        "--out", tmp / "m.kk")
    _assert_error(code, err, "position 10")
    assert code == 2
    assert not (tmp / "m.kk").exists()


def test_negative_alpha(data, capsys):
    tmp, train, _ = data
    code, _, err = _run(capsys, "fit", train, "--target", "y", "--alpha", "-1",
                        "--out", tmp / "m.kk")
    _assert_error(code, err, "alpha", ">= 0")
    assert code == 2
    code, _, err = _run(capsys, "fit", train, "--target", "y", "--cv-alphas", "0.1,-2",
                        "--out", tmp / "m.kk")
    _assert_error(code, err, "-2")


def test_argparse_usage_error(capsys):
    code, _, err = _run(capsys, "fit")
    assert code == 2 and "kernelkit" in err and "error:" in err and "Traceback" not in err


@pytest.mark.parametrize("corruption", ["garbage", "truncated"])
def test_corrupt_model_file(data, capsys, corruption):
    tmp, train, test = data
    model_path = tmp / "m.kk"
    assert _run(capsys, "fit", train, "--target", "y", "--out", model_path)[0] == 0
    raw = model_path.read_bytes()
    if corruption == "garbage":
        model_path.write_bytes(b"\x00not a model\xff" * 50)
    else:
        model_path.write_bytes(raw[: len(raw) // 2])
    for argv in (("info", model_path), ("predict", model_path, test)):
        code, out, err = _run(capsys, *argv)
        _assert_error(code, err, str(model_path))
        assert code == 1 and out == ""


def test_missing_model_file(data, capsys):
    tmp, _, test = data
    code, _, err = _run(capsys, "predict", tmp / "absent.kk", test)
    _assert_error(code, err, "absent.kk")


def test_predict_wrong_number_of_columns(data, capsys):
    tmp, train, _ = data
    model_path = tmp / "m.kk"
    assert _run(capsys, "fit", train, "--target", "y", "--out", model_path)[0] == 0
    X = np.random.default_rng(1).normal(size=(5, 2))
    narrow = _write_csv(tmp / "narrow.csv", X)  # x0, x1: x2 is missing
    code, _, err = _run(capsys, "predict", model_path, narrow)
    _assert_error(code, err, "'x2'", "missing")
    wide = _write_csv(tmp / "wide.csv", np.hstack([X, X, X[:, :1]]),
                      names=["x0", "x1", "x2", "a", "b"])
    code, _, err = _run(capsys, "predict", model_path, wide)
    _assert_error(code, err, "expects 3 features")


def test_predict_wrong_number_of_columns_model_without_names(tmp_path, capsys):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(30, 3)), rng.normal(size=30)
    kernelkit.save(KernelRidge(kernel="linear").fit(X, y), tmp_path / "py.kk")
    bad = _write_csv(tmp_path / "bad.csv", X[:, :2])
    code, _, err = _run(capsys, "predict", tmp_path / "py.kk", bad)
    _assert_error(code, err, "expects 3 feature columns but the file has 2")
    good = _write_csv(tmp_path / "good.csv", X, y, target="t")
    code, out, err = _run(capsys, "predict", tmp_path / "py.kk", good, "--target", "t", "--json")
    assert code == 0, err
    np.testing.assert_allclose(json.loads(out)["predictions"],
                               KernelRidge(kernel="linear").fit(X, y).predict(X), rtol=1e-12)


def test_non_numeric_target_is_a_classification(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("a,b,label\n1,2,cat\n3,4,dog\n")
    code, _, err = _run(capsys, "fit", path, "--target", "label", "--task", "regress",
                        "--out", tmp_path / "m.kk")
    _assert_error(code, err, "not numeric", "--task classify")
    many = tmp_path / "many.csv"
    many.write_text("a,label\n" + "".join(f"{i},v{i}\n" for i in range(60)))
    code, _, err = _run(capsys, "fit", many, "--target", "label", "--out", tmp_path / "m.kk")
    _assert_error(code, err, "too many classes", "--task regress")


def test_classification_with_text_labels_end_to_end(tmp_path, capsys):
    from kernelkit.datasets import load_banana
    from kernelkit.models import KernelRidgeClassifier

    X, y = load_banana(return_X_y=True)
    X, y = X[:300] * 50.0 + 3.0, np.where(y[:300] > 0, "yes", "no")
    for name, rows in (("train.csv", slice(0, 200)), ("test.csv", slice(200, 300))):
        lines = ["u,v,label"] + [f"{a!r},{b!r},{c}" for (a, b), c in zip(X[rows].tolist(),
                                                                          y[rows])]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    code, out, err = _run(capsys, "fit", tmp_path / "train.csv", "--target", "label",
                          "--kernel", "rbf(gamma=1)", "--alpha", "0.01", "--out",
                          tmp_path / "clf.kk")
    assert code == 0, err
    assert "classify (the target holds text labels)" in err and "train accuracy" in out
    assert "valid. accuracy" in out
    code, out, err = _run(capsys, "predict", tmp_path / "clf.kk", tmp_path / "test.csv",
                          "--json")
    assert code == 0, err
    doc = json.loads(out)
    clf = make_pipeline(StandardScaler(), KernelRidgeClassifier("rbf(gamma=1)", alpha=0.01))
    if "fit_intercept" in clf[-1].get_params():
        clf[-1].set_params(fit_intercept=True)
    expected = clf.fit(X[:200], y[:200]).predict(X[200:])
    assert doc["predictions"] == expected.tolist()
    assert doc["accuracy"] == pytest.approx(np.mean(expected == y[200:])) and doc["accuracy"] > 0.8


def test_debug_shows_traceback(tmp_path):
    with pytest.raises(FileNotFoundError):
        main(["fit", str(tmp_path / "nope.csv"), "--target", "y", "--out",
              str(tmp_path / "m.kk"), "--debug"])


@pytest.mark.parametrize("name", ["KernelSVC", "KernelKMeans", "KernelKNeighborsClassifier",
                                  "KernelOutlierDetector", "RandomKitchenSinks",
                                  "KernelLogisticRegression", "KitchenSinksRegressor"])
def test_info_describes_every_kind_of_model_file(name, tmp_path, capsys):
    import kernelkit.features
    import kernelkit.models

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    cls = getattr(kernelkit.models, name, None) or getattr(kernelkit.features, name)
    kwargs = {"n_clusters": 2} if name == "KernelKMeans" else {}
    if "random_state" in cls().get_params():
        kwargs["random_state"] = 0
    model = cls(**kwargs)
    model.fit(X, y if name != "KitchenSinksRegressor" else X[:, 0])
    path = tmp_path / "m.kk"
    kernelkit.save(model, path)
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "estimator:" in text and name in text and "n_features:" in text
    assert main(["info", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["estimator"] == name and doc["n_features"] == 3
    assert doc["can_predict"] == hasattr(model, "predict")
    if not hasattr(model, "predict"):
        data = tmp_path / "d.csv"
        data.write_text("a,b,c\n" + "\n".join(",".join(map(str, r)) for r in X[:3]) + "\n")
        assert main(["predict", str(path), str(data)]) == 1
        assert "does not predict" in capsys.readouterr().err


def test_info_on_a_named_pipe_says_so_without_blocking(tmp_path, capsys):
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    fifo = tmp_path / "pipe.kk"
    os.mkfifo(fifo)
    assert main(["info", str(fifo)]) == 1
    assert "not a regular file" in capsys.readouterr().err


def test_alpha_beyond_the_loo_size_is_chosen_without_the_hold_out_rows(monkeypatch):
    # above LOO_MAX_N rows: leave-one-out on a random LOO_MAX_N of the training rows,
    # the same alpha as KernelRidgeCV on exactly those rows
    from kernelkit.cli import fitting, search
    from kernelkit.kernels import RBF
    from kernelkit.models import KernelRidgeCV

    monkeypatch.setattr(search, "LOO_MAX_N", 60)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=200)
    settings = fitting.FitSettings(kernel=RBF(gamma=0.5))
    model, report = fitting.build_and_fit(X, y, settings)
    assert "a random 60 of the 160 training rows" in report["alpha_choice"]
    train_idx, val_idx = fitting._split(200, settings.holdout, settings.seed)
    rows = np.random.default_rng(settings.seed).choice(train_idx, 60, replace=False)
    assert not set(rows) & set(val_idx)
    cv = KernelRidgeCV(kernel=RBF(gamma=0.5), alphas=fitting.ALPHA_GRID)
    target = y[rows]
    if "fit_intercept" in cv.get_params():
        cv.set_params(fit_intercept=True, solver="exact", cv="loo")
    else:
        target = target - target.mean()
    make_pipeline(StandardScaler(), cv).fit(X[rows], target)
    assert report["alpha"] == cv.alpha_
    assert report["validation_score"] > 0 and "not seen by the search" in report["validation"]
