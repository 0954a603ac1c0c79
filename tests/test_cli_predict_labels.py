"""kernelkit predict with a classifier whose labels are strings ("yes"/"no")."""

import json

import numpy as np

import kernelkit
from kernelkit.cli.main import main
from kernelkit.models import KernelSVC


def _setup(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, "yes", "no")
    model = KernelSVC().fit(X, y)
    kernelkit.save(model, tmp_path / "svc.kk")
    feats = tmp_path / "feat.csv"
    feats.write_text("a,b\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in X))
    labelled = tmp_path / "lab.csv"
    labelled.write_text("a,b,label\n" + "".join(f"{float(a)!r},{float(b)!r},{c}\n"
                                                for (a, b), c in zip(X, y)))
    return model, X, y, feats, labelled


def test_predict_writes_string_labels(tmp_path, capsys):
    model, X, _, feats, _ = _setup(tmp_path)
    assert main(["predict", str(tmp_path / "svc.kk"), str(feats)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "prediction" and lines[1:] == list(model.predict(X))


def test_predict_scores_accuracy_against_a_label_column(tmp_path, capsys):
    model, X, y, _, labelled = _setup(tmp_path)
    code = main(["predict", str(tmp_path / "svc.kk"), str(labelled), "--target", "label",
                 "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rmse"] is None
    assert summary["accuracy"] == float(np.mean(model.predict(X) == y))
    assert summary["predictions"] == list(model.predict(X))


def test_unnamed_label_column_says_use_target(tmp_path, capsys):
    _, _, _, _, labelled = _setup(tmp_path)
    assert main(["predict", str(tmp_path / "svc.kk"), str(labelled)]) != 0
    err = capsys.readouterr().err
    assert "'yes' is not a number" in err and "--target" in err
    assert "could not convert string to float" not in err
