"""kernelkit's tables are split into records by the csv module over the whole text:
a quoted field may hold line breaks; every refusal names the line; a missing
target is refused; a column nobody named is never scored against as the target
unless it can be one; a model without column names says it takes them by position."""

import numpy as np
import pytest

from kernelkit import KernelRidge, KernelRidgeClassifier, save
from kernelkit.cli import main
from kernelkit.datasets import read_table
from kernelkit.datasets.readers import csv_records


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def model(tmp_path):
    """A model fitted in Python on a DataFrame with columns a, b, c."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    m = KernelRidge(alpha=0.1).fit(X, X["a"] - X["c"])
    path = tmp_path / "m.kk"
    save(m, path)
    return m, path


def test_records_may_span_lines_and_keep_their_line_breaks():
    text = 'a,b\n1,"x\ny"\n\n2,"p,q"\n3,"r\n\ns"\n'
    records = csv_records(text, ",")
    assert [r for _, r in records] == [["a", "b"], ["1", "x\ny"], ["2", "p,q"], ["3", "r\n\ns"]]
    assert [ln for ln, _ in records] == [1, 2, 5, 6]  # the line where each record starts


def test_quoted_line_breaks_do_not_make_rows(tmp_path, capsys, model):
    import csv
    import io

    m, path = model
    data = tmp_path / "q.csv"
    data.write_text('a,b,c,note\n1,2,3,"hello\nworld"\n4,5,6,x\n7,8,9,"a\nb\nc"\n')
    code, out, err = _run(capsys, "predict", path, data, "--id", "note")
    assert code == 0, err
    assert "predicted 3 rows" in err
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows[0] == ["note", "prediction"]
    assert [r[0] for r in rows[1:]] == ["hello\nworld", "x", "a\nb\nc"]  # kept, quoted back
    X = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype=float)
    expect = m.predict(__import__("pandas").DataFrame(X, columns=list("abc")))
    np.testing.assert_allclose([float(r[1]) for r in rows[1:]], expect, rtol=1e-12)


def test_read_table_quoted_records_name_their_first_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('a,b,y\n1,"2",0\n"3\n",4,1\n5,six,0\n')
    with pytest.raises(ValueError, match=r"line 5, column 'b': 'six' is not a number"):
        read_table(path, target="y")
    path.write_text('a,b,y\n1,"2",0\n3,"4\n,1\n')
    with pytest.raises(ValueError, match="quoted field is opened and never closed"):
        read_table(path, target="y")


def test_a_huge_cell_is_a_clear_error(tmp_path, capsys, model):
    _, path = model
    data = tmp_path / "big.csv"
    data.write_text("a,b,c\n1,2," + "x" * 200_000 + "\n")
    code, _, err = _run(capsys, "predict", path, data)
    assert code != 0 and "Traceback" not in err
    assert "line 2" in err and "field limit" in err


@pytest.mark.parametrize("token", ["nan", "NA", "null", "?", "NaN", "inf"])
def test_a_missing_target_is_not_a_class(tmp_path, capsys, token):
    rows = [f"{i / 10},{'red' if i % 2 else 'blue'},{'yes' if i % 3 else 'no'}"
            for i in range(40)]
    rows[6] = rows[6].rsplit(",", 1)[0] + f",{token}"
    data = tmp_path / "c.csv"
    data.write_text("a,color,label\n" + "\n".join(rows) + "\n")
    code, _, err = _run(capsys, "fit", data, "--target", "label", "--onehot", "--out",
                        tmp_path / "c.kk")
    assert code != 0
    assert f"line 8, column 'label' (the target) is {token!r}, a missing value" in err


def test_an_unnamed_text_column_is_not_taken_as_the_target(tmp_path, capsys, model):
    _, path = model
    data = tmp_path / "q.csv"
    data.write_text("a,b,c,note\n1,2,3,first\n4,5,6,second\n")
    code, _, err = _run(capsys, "predict", path, data)
    assert code != 0
    assert "column 'note' is not a feature of the model, and it is not its target" in err
    assert "--id note" in err
    data.write_text("a,b,c,y\n1,2,3,0.5\n4,5,6,1.5\n")  # a numeric column may be the target
    code, _, err = _run(capsys, "predict", path, data)
    assert code == 0 and "RMSE against column 'y'" in err


def test_a_classifier_scores_only_against_its_own_labels(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    clf = KernelRidgeClassifier().fit(X, np.where(X["a"] > 0, "up", "down"))
    path = tmp_path / "c.kk"
    save(clf, path)
    data = tmp_path / "q.csv"
    data.write_text("a,b,comment\n1,2,fine\n-1,0,bad\n")
    code, _, err = _run(capsys, "predict", path, data)
    assert code != 0 and "not one of the classes" in err
    data.write_text("a,b,truth\n1,2,up\n-1,0,down\n")
    code, _, err = _run(capsys, "predict", path, data)
    assert code == 0 and "accuracy against column 'truth'" in err


def test_columns_by_position_are_said(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    path = tmp_path / "arr.kk"
    save(KernelRidge().fit(X, X[:, 0]), path)
    data = tmp_path / "q.csv"
    data.write_text("c,a,b\n3,1,2\n")
    code, out, err = _run(capsys, "predict", path, data)
    assert code == 0
    assert "taken by position, in the file's order (['c', 'a', 'b'])" in err


def test_progress_option_shows_the_fits_progress(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # plain lines
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    data = tmp_path / "t.csv"
    data.write_text("a,b,y\n" + "\n".join(f"{a},{b},{a - b}" for a, b in X) + "\n")
    argv = ["fit", data, "--target", "y", "--solver", "falkon", "--out", tmp_path / "m.kk"]
    code, _, quiet = _run(capsys, *argv)
    assert code == 0 and "Falkon CG" not in quiet
    code, _, err = _run(capsys, *argv, "--progress")
    assert code == 0 and "kernelkit Falkon CG" in err


def test_help_imports_no_numerical_library():
    """kernelkit --help and import kernelkit load neither scikit-learn nor numba."""
    import subprocess
    import sys

    code = ("import sys, kernelkit.cli\n"
            "try:\n    kernelkit.cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('sklearn', 'numba', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_quote_inside_an_unquoted_cell_is_a_character(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text('name,height\nbob,5 ft 10"\nann,6 ft\n')
    from kernelkit.cli.tables import read_columns

    table = read_columns(data)
    assert list(table.columns[1]) == ['5 ft 10"', "6 ft"]


@pytest.mark.parametrize("value", ["inf", "1e300", "nan", "2.5", "0"])
def test_counts_on_the_command_line_are_checked(tmp_path, capsys, value):
    data = tmp_path / "t.csv"
    data.write_text("a,y\n" + "\n".join(f"{i},{i}" for i in range(30)) + "\n")
    code, _, err = _run(capsys, "fit", data, "--target", "y", "--solver", "falkon",
                        "--centers", value, "--out", tmp_path / "m.kk")
    assert code == 2 and "--centers must be a whole number >= 1" in err
    code, _, err = _run(capsys, "plan", "--n", value, "--d", "3")
    assert code == 2 and "--n must be a whole number >= 1" in err
