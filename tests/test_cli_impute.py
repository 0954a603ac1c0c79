"""kernelkit fit --impute mean|median fills gaps of numeric columns (the imputer is
stored, so predict fills them the same way); without it a gap is refused with the
fix; a Python pipeline that selects columns by name predicts from a CSV."""

import numpy as np
import pytest

from kernelkit import KernelRidge, load, save
from kernelkit.cli import main


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def gappy(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = X[:, 0] - X[:, 1]
    Xg = X.copy()
    Xg[3::17, 1] = np.nan
    Xg[5::29, 2] = np.nan
    lines = ["a,b,c,y"]
    for i, (row, t) in enumerate(zip(Xg, y)):
        cells = ["" if np.isnan(v) else f"{v:.6f}" for v in row]
        if i == 5:
            cells[2] = "NA"  # a spelled-out gap
        lines.append(",".join(cells) + f",{t:.6f}")
    path = tmp_path / "gaps.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, np.round(Xg, 6), y


def test_a_gap_is_refused_with_the_fix(capsys, tmp_path, gappy):
    path, _, _ = gappy
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--out", tmp_path / "m.kk")
    assert code != 0
    assert "line 5, column 'b' is empty" in err and "--impute mean|median" in err


@pytest.mark.parametrize("strategy", ["mean", "median"])
def test_impute_stores_the_training_statistics_and_predict_fills_gaps(capsys, tmp_path, gappy,
                                                                      strategy):
    path, Xg, _ = gappy
    out = tmp_path / "m.kk"
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--impute", strategy,
                        "--holdout", "0", "--out", out)
    assert code == 0, err
    nb, nc = np.isnan(Xg[:, 1]).sum(), np.isnan(Xg[:, 2]).sum()
    assert f"gaps filled by --impute {strategy}: b {nb}, c {nc}" in err
    model = load(out)
    imputer = model.steps[0][1]
    reference = np.nanmean(Xg, axis=0) if strategy == "mean" else np.nanmedian(Xg, axis=0)
    np.testing.assert_allclose(imputer.statistics_, reference, rtol=1e-12)
    query = tmp_path / "q.csv"
    query.write_text("a,b,c\n0.5,,1\n1,2,NA\n")
    code, text, err = _run(capsys, "predict", out, query)
    assert code == 0, err
    got = [float(v) for v in text.split()[1:]]
    filled = np.array([[0.5, reference[1], 1.0], [1.0, 2.0, reference[2]]])
    np.testing.assert_allclose(got, model[1:].predict(filled), rtol=1e-12)
    assert "gaps filled by the model's imputer: b 1, c 1" in err


def test_predict_refuses_gaps_when_the_model_does_not_fill_them(capsys, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    path = tmp_path / "m.kk"
    save(KernelRidge().fit(X, X[:, 0]), path)
    query = tmp_path / "q.csv"
    query.write_text("a,b\n1,\n")
    code, _, err = _run(capsys, "predict", path, query)
    assert code != 0 and "this model does not fill gaps" in err


def test_impute_fills_numbers_only(capsys, tmp_path):
    path = tmp_path / "t.csv"
    rows = [f"{i / 10},{'red' if i % 2 else ''},{i % 2}" for i in range(40)]
    path.write_text("a,color,y\n" + "\n".join(rows) + "\n")
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--onehot", "--impute", "mean",
                        "--out", tmp_path / "m.kk")
    assert code != 0 and "--impute fills numeric columns only" in err


def test_impute_with_onehot_fills_the_numeric_columns(capsys, tmp_path):
    path = tmp_path / "t.csv"
    rows = [f"{'' if i % 7 == 2 else i / 10},{'red' if i % 2 else 'blue'},{i % 2}"
            for i in range(60)]
    path.write_text("a,color,y\n" + "\n".join(rows) + "\n")
    out = tmp_path / "m.kk"
    code, _, err = _run(capsys, "fit", path, "--target", "y", "--onehot", "--impute", "mean",
                        "--out", out)
    assert code == 0, err
    values = np.array([i / 10 for i in range(60) if i % 7 != 2])
    imputer = load(out).steps[0][1].named_transformers_["scale"].steps[0][1]
    np.testing.assert_allclose(imputer.statistics_, [values.mean()], rtol=1e-12)


def test_a_pipeline_selecting_columns_by_name_predicts_from_a_csv(capsys, tmp_path):
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    model = make_pipeline(ColumnTransformer([("s", StandardScaler(), ["a", "c"])]),
                          KernelRidge()).fit(frame, frame["a"] - frame["c"])
    path = tmp_path / "m.kk"
    save(model, path)
    query = tmp_path / "q.csv"
    query.write_text("c,b,a\n1,2,3\n4,5,6\n")
    code, text, err = _run(capsys, "predict", path, query)
    assert code == 0, err
    want = model.predict(pd.DataFrame({"a": [3.0, 6.0], "b": [2.0, 5.0], "c": [1.0, 4.0]}))
    np.testing.assert_allclose([float(v) for v in text.split()[1:]], want, rtol=1e-12)


def test_na_and_none_are_categories_in_a_text_column(tmp_path):
    """"NA" or "None" in a text column is a category (--onehot encodes it); only in a
    numeric column does it mark a gap."""
    from kernelkit.cli.tables import read_columns

    path = tmp_path / "t.csv"
    path.write_text("a,alley,y\n1,Pave,1\n2,NA,0\nNA,Grvl,1\n4,None,0\n")
    table = read_columns(path, target="y", allow_missing=True)
    assert table.text == ["alley"]
    assert list(table.columns[1]) == ["Pave", "NA", "Grvl", "None"]
    np.testing.assert_array_equal(np.isnan(table.columns[0]), [False, False, True, False])
    assert table.missing == {"a": 1}
