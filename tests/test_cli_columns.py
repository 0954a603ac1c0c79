"""kernelkit fit/predict with an ID column, text columns through string kernels,
and text columns one-hot encoded (--onehot); each checked against the model built
in Python."""

import json

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from kernelkit.cli import main
from kernelkit.datasets import load_dna_splice
from kernelkit.models import KernelRidge, KernelRidgeClassifier


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _write(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(map(str, r)) for r in rows]) + "\n")
    return path


def _ridge(cls, kernel, alpha):
    model = cls(kernel=kernel, alpha=alpha)
    if "fit_intercept" in model.get_params():
        model.set_params(fit_intercept=True)
    return model


@pytest.fixture
def with_ids(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = np.sin(X[:, 0]) + X[:, 1]
    ids = [f"r{i:03d}" for i in range(50)]
    rows = [(i, repr(a), repr(b), repr(t))
            for i, (a, b), t in zip(ids, X.tolist(), y.tolist())]
    train = _write(tmp_path / "train.csv", ["rid", "a", "b", "y"], rows[:40])
    test = _write(tmp_path / "test.csv", ["rid", "a", "b", "y"], rows[40:])
    return tmp_path, X, y, ids, train, test


def test_id_column_is_not_a_feature_and_is_passed_through(with_ids, capsys):
    tmp, X, y, ids, train, test = with_ids
    model_path = tmp / "m.kk"
    code, out, err = _run(capsys, "fit", train, "--target", "y", "--id", "rid", "--kernel",
                          "rbf(gamma=0.5)", "--alpha", "0.01", "--out", model_path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["d"] == 2 and doc["feature_names"] == ["a", "b"] and doc["id"] == "rid"
    code, out, err = _run(capsys, "predict", model_path, test, "--out", tmp / "p.csv")
    assert code == 0, err
    assert "RMSE against column 'y'" in out
    lines = (tmp / "p.csv").read_text().splitlines()
    assert lines[0] == "rid,prediction"
    assert [ln.split(",")[0] for ln in lines[1:]] == ids[40:]
    expected = make_pipeline(StandardScaler(), _ridge(KernelRidge, "rbf(gamma=0.5)", 0.01))
    expected = expected.fit(X[:40], y[:40]).predict(X[40:])
    np.testing.assert_allclose([float(ln.split(",")[1]) for ln in lines[1:]], expected,
                               rtol=1e-10, atol=1e-12)
    code, out, _ = _run(capsys, "info", model_path)
    assert code == 0 and "id column:" in out and "rid" in out


def test_predict_never_scores_against_an_id_column(with_ids, capsys):
    tmp, X, y, ids, train, _ = with_ids
    model_path = tmp / "m.kk"
    assert _run(capsys, "fit", train, "--target", "y", "--id", "rid", "--alpha", "0.1",
                "--out", model_path)[0] == 0
    # A file without the target but with an ID column (named otherwise than at fit):
    # before, the one non-feature column was taken as the target and an RMSE printed.
    new = _write(tmp / "new.csv", ["id", "a", "b"],
                 [(i, repr(a), repr(b)) for i, (a, b) in zip(ids[40:], X[40:].tolist())])
    code, out, err = _run(capsys, "predict", model_path, new, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["target"] is None and doc["rmse"] is None and doc["id"] == "id"
    assert doc["ids"] == ids[40:] and len(doc["predictions"]) == 10
    code, out, err = _run(capsys, "predict", model_path, new)
    assert code == 0 and "looks like an identifier" in err and "RMSE" not in err
    assert out.splitlines()[0] == "id,prediction"
    code, _, err = _run(capsys, "predict", model_path, new, "--id", "a")
    assert code == 1 and "feature columns" in err


def test_a_model_fitted_without_id_still_passes_an_id_column_through(with_ids, capsys):
    tmp, X, y, ids, _, test = with_ids
    plain = _write(tmp / "plain.csv", ["a", "b", "y"],
                   [(repr(a), repr(b), repr(t))
                    for (a, b), t in zip(X[:40].tolist(), y.tolist())])
    assert _run(capsys, "fit", plain, "--target", "y", "--alpha", "0.1",
                "--out", tmp / "m.kk")[0] == 0
    code, out, err = _run(capsys, "predict", tmp / "m.kk", test, "--id", "rid")
    assert code == 0, err
    assert out.splitlines()[0] == "rid,prediction" and "RMSE against column 'y'" in err


@pytest.fixture(scope="module")
def dna():
    X, y = load_dna_splice(return_X_y=True)
    return X[:300], y[:300]


def test_string_kernel_on_a_text_column(dna, tmp_path, capsys):
    X, y = dna
    rows = [(f"s{i}", s, lab) for i, (s, lab) in enumerate(zip(X, y))]
    train = _write(tmp_path / "train.csv", ["name", "sequence", "label"], rows[:200])
    test = _write(tmp_path / "test.csv", ["name", "sequence", "label"], rows[200:])
    code, out, err = _run(capsys, "fit", train, "--target", "label", "--id", "name",
                          "--kernel", "spectrum(k=3)", "--alpha", "0.1", "--out",
                          tmp_path / "dna.kk")
    assert code == 0, err
    assert "train accuracy" in out and "valid. accuracy" in out
    assert "classify" in err and "'sequence' read as strings" in err
    code, out, err = _run(capsys, "predict", tmp_path / "dna.kk", test, "--json")
    assert code == 0, err
    doc = json.loads(out)
    clf = _ridge(KernelRidgeClassifier, "spectrum(k=3)", 0.1).fit(list(X[:200]), y[:200])
    expected = clf.predict(list(X[200:]))
    assert doc["predictions"] == expected.tolist() and doc["ids"][0] == "s200"
    assert doc["accuracy"] == pytest.approx(np.mean(expected == y[200:]))
    code, out, _ = _run(capsys, "info", tmp_path / "dna.kk")
    assert code == 0 and "text column:" in out and "Spectrum" in out


def test_string_kernel_with_several_columns_and_vector_kernel_with_text(dna, tmp_path, capsys):
    X, y = dna
    two = _write(tmp_path / "two.csv", ["sequence", "gc", "label"],
                 [(s, s.count("G"), lab) for s, lab in zip(X[:50], y[:50])])
    code, _, err = _run(capsys, "fit", two, "--target", "label", "--kernel", "spectrum(k=3)",
                        "--out", tmp_path / "m.kk")
    assert code == 1 and "reads one text column" in err and "['sequence', 'gc']" in err
    code, _, err = _run(capsys, "fit", two, "--target", "label", "--kernel", "rbf",
                        "--out", tmp_path / "m.kk")
    assert code == 1 and "encode categorical columns first" in err and "--onehot" in err
    assert "['sequence']" in err


def test_onehot_encodes_text_columns(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 120
    color = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n) * 5 + 10
    y = np.where(color == "red", 3.0, 0.0) + 0.2 * size + 0.1 * rng.normal(size=n)
    rows = [(c, repr(s), repr(t)) for c, s, t in zip(color, size.tolist(), y.tolist())]
    train = _write(tmp_path / "train.csv", ["color", "size", "y"], rows[:100])
    test_rows = rows[100:]
    test_rows[0] = ("purple",) + test_rows[0][1:]  # a category unseen at fit
    test = _write(tmp_path / "test.csv", ["color", "size", "y"], test_rows)
    code, out, err = _run(capsys, "fit", train, "--target", "y", "--onehot", "--kernel",
                          "rbf(gamma=0.3)", "--alpha", "0.01", "--out", tmp_path / "m.kk")
    assert code == 0, err
    assert "1 text column(s) one-hot encoded" in err and "4 columns in all" in err
    code, out, err = _run(capsys, "predict", tmp_path / "m.kk", test, "--json")
    assert code == 0, err
    got = json.loads(out)["predictions"]
    Xm = np.empty((n, 2), dtype=object)
    Xm[:, 0], Xm[:, 1] = color, size
    Xm[100, 0] = "purple"
    ct = ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore",
                                                     sparse_output=False), [0]),
                            ("scale", StandardScaler(), [1])])
    expected = Pipeline([("columns", ct), ("model", _ridge(KernelRidge, "rbf(gamma=0.3)",
                                                           0.01))])
    expected = expected.fit(Xm[:100], y[:100]).predict(Xm[100:])
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    code, out, _ = _run(capsys, "info", tmp_path / "m.kk")
    assert code == 0 and "one-hot:" in out and "color" in out
    assert "ColumnTransformer(onehot: OneHotEncoder, scale: StandardScaler)" in out


def test_line_endings_and_column_mistakes_get_one_line_answers(tmp_path, capsys):
    rows = [("a", "b", "y")] + [(i, (i * 7) % 5, i % 3 + 0.5 * i) for i in range(12)]
    text = "\n".join(",".join(map(str, r)) for r in rows) + "\n"
    (tmp_path / "cr.csv").write_bytes(text.replace("\n", "\r").encode())  # old-Mac endings
    (tmp_path / "lf.csv").write_text(text)
    out = str(tmp_path / "m.kk")
    for name in ("cr.csv", "lf.csv"):
        code, _, err = _run(capsys, "fit", str(tmp_path / name), "--target", "y",
                            "--holdout", "0", "--out", out + name)
        assert code == 0, err
    # the CR-only file is the same table as the LF one: the same model
    same = [_run(capsys, "predict", out + name, str(tmp_path / "lf.csv"))[1]
            for name in ("cr.csv", "lf.csv")]
    assert same[0] == same[1]
    code, _, err = _run(capsys, "fit", str(tmp_path / "lf.csv"), "--target", "y", "--id", "y",
                        "--out", out)
    assert code != 0 and "--id 'y' names the --target column" in err
    code, _, err = _run(capsys, "fit", str(tmp_path / "lf.csv"), "--target", "zz",
                        "--out", out)
    assert code != 0 and "--target on the command line" in err and "Traceback" not in err
