"""Tests of kernelkit.datasets: bundled data, read_table, IDX, libsvm, shared-data helpers.

Everything here runs in a fresh clone: bundled files or small files written to
tmp_path, never ../shared/data.
"""

import csv
import doctest
import gzip
import io
import struct
from importlib import resources

import numpy as np
import pytest

from kernelkit import datasets
from kernelkit.datasets import (
    Dataset,
    load_banana,
    load_california_housing,
    load_cpu_act,
    load_dna_splice,
    load_fashion_mnist,
    load_idx,
    load_libsvm,
    load_shared_table,
    read_table,
    shared_data_dir,
)


# ---------------------------------------------------------------- bundled data

def _independent_parse(filename):
    """Header and rows of a bundled file via gzip + csv only (no kernelkit code)."""
    raw = resources.files("kernelkit").joinpath("data", filename).read_bytes()
    rows = list(csv.reader(io.StringIO(gzip.decompress(raw).decode("utf-8")), delimiter="\t"))
    return rows[0], rows[1:]


def test_cpu_act_shapes_dtypes_and_values():
    ds = load_cpu_act()
    assert isinstance(ds, Dataset)
    assert ds.data.shape == (8192, 21) and ds.data.dtype == np.float64
    assert ds.target.shape == (8192,) and ds.target.dtype == np.float64
    assert ds.target_name == "target" and len(ds.feature_names) == 21
    assert "Rahimi" in ds.description

    header, rows = _independent_parse("197_cpu_act.tsv.gz")
    assert list(ds.feature_names) == header[:-1] and header[-1] == "target"
    assert len(rows) == 8192
    for i in (0, 1, 4095, 8191):
        np.testing.assert_array_equal(ds.data[i], [float(v) for v in rows[i][:-1]])
        assert ds.target[i] == float(rows[i][-1])
    assert np.isfinite(ds.data).all()


def test_bundled_return_X_y_matches_dataset():
    X, y = load_cpu_act(return_X_y=True)
    ds = load_cpu_act()
    np.testing.assert_array_equal(X, ds.data)
    np.testing.assert_array_equal(y, ds.target)


def test_dataset_is_frozen():
    ds = load_banana()
    with pytest.raises(AttributeError):
        ds.data = None


def test_california_housing():
    ds = load_california_housing()
    assert ds.data.shape == (20640, 8) and ds.data.dtype == np.float64
    assert ds.target.shape == (20640,) and ds.target.dtype == np.float64
    assert "Pace" in ds.description
    header, rows = _independent_parse("537_houses.tsv.gz")
    assert list(ds.feature_names) == header[:-1] and header[-1] == "target"
    assert len(rows) == 20640
    for i in (0, 10000, 20639):
        np.testing.assert_array_equal(ds.data[i], [float(v) for v in rows[i][:-1]])
        assert ds.target[i] == float(rows[i][-1])


def test_banana():
    ds = load_banana()
    assert ds.data.shape == (5300, 2) and ds.data.dtype == np.float64
    assert ds.target.dtype.kind == "i" and set(np.unique(ds.target)) == {-1, 1}
    assert ds.feature_names == ("At1", "At2")
    _, rows = _independent_parse("banana.tsv.gz")
    np.testing.assert_array_equal(ds.data[0], [float(v) for v in rows[0][:2]])
    assert ds.target[0] == int(float(rows[0][2]))


def test_dna_splice():
    X, y = load_dna_splice(return_X_y=True)
    assert X.shape == (3186,) and X.dtype == object
    assert all(isinstance(s, str) and len(s) == 60 and set(s) <= set("ACGT") for s in X)
    assert set(y.tolist()) == {"EI", "IE", "N"}
    _, rows = _independent_parse("dna_splice.tsv.gz")
    assert X[5] == rows[5][0] and y[5] == rows[5][1]
    ds = load_dna_splice()
    assert ds.feature_names == ("sequence",) and ds.target_name == "label"


def test_bundled_readme_is_packaged():
    text = resources.files("kernelkit").joinpath("data", "README.md").read_text(encoding="utf-8")
    assert "PMLB" in text and "DELVE" in text


def test_docstring_examples():
    result = doctest.testmod(datasets.readers, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


# ---------------------------------------------------------------- read_table round trips

def _write(path, text):
    data = text.encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.csv.gz", "t.tsv.gz", "t.txt"])
def test_read_table_round_trip(tmp_path, name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = rng.normal(size=50)
    sep = "\t" if ".tsv" in name else ","
    lines = [sep.join(["a", "b", "target", "c"])]
    lines += [sep.join(repr(float(v)) for v in (x[0], x[1], t, x[2])) for x, t in zip(X, y)]
    path = _write(tmp_path / name, "\n".join(lines) + "\n")

    X2, y2, names = read_table(path)
    assert names == ["a", "b", "c"]
    assert X2.dtype == np.float64 and X2.shape == (50, 3) and X2.flags.c_contiguous
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)


def test_read_table_string_labels_and_no_target(tmp_path):
    path = _write(tmp_path / "t.csv", "x,y,label\n1,2,cat\n3,4,dog\n5,6,cat\n")
    X, y, names = read_table(path, target="label")
    assert y.tolist() == ["cat", "dog", "cat"] and names == ["x", "y"]
    path = _write(tmp_path / "p.csv", "x,y\n1,2\n3,4\n")
    X, y, names = read_table(path, target=None)
    assert y is None and names == ["x", "y"]
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])


def test_read_table_integer_labels_mixed_with_strings(tmp_path):
    # First row looks numeric, a later one is not: kept as string labels.
    path = _write(tmp_path / "t.csv", "x,target\n1,1\n2,2\n3,other\n")
    _, y, _ = read_table(path)
    assert y.tolist() == ["1", "2", "other"]


def test_read_table_tolerates_crlf_bom_blank_lines_and_quotes(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("\ufeffa,\"b\",target\r\n1,2,3\r\n\r\n4,5,6\r\n\r\n".encode("utf-8"))
    X, y, names = read_table(path)
    assert names == ["a", "b"]
    np.testing.assert_array_equal(X, [[1, 2], [4, 5]])
    np.testing.assert_array_equal(y, [3, 6])
    path = _write(tmp_path / "q.csv", 'a,target\n1,"big, red"\n2,"small"\n')
    _, y, _ = read_table(path)
    assert y.tolist() == ["big, red", "small"]


def test_read_table_explicit_delimiter(tmp_path):
    path = _write(tmp_path / "t.dat", "a;b;target\n1;2;3\n")
    X, y, _ = read_table(path, delimiter=";")
    np.testing.assert_array_equal(X, [[1, 2]])
    assert y.tolist() == [3.0]


# ---------------------------------------------------------------- read_table errors

def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_table(tmp_path / "nope.csv")


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file(tmp_path, text):
    with pytest.raises(ValueError, match="empty"):
        read_table(_write(tmp_path / "t.csv", text))


def test_no_header(tmp_path):
    with pytest.raises(ValueError, match="header row"):
        read_table(_write(tmp_path / "t.csv", "1,2,3\n4,5,6\n"))


def test_header_but_no_rows(tmp_path):
    with pytest.raises(ValueError, match="no data rows"):
        read_table(_write(tmp_path / "t.csv", "a,target\n"))


def test_duplicate_column_names(tmp_path):
    with pytest.raises(ValueError, match="'a' appears more than once"):
        read_table(_write(tmp_path / "t.csv", "a,a,target\n1,2,3\n"))


def test_unknown_target_lists_columns(tmp_path):
    with pytest.raises(ValueError, match=r"no target column 'y'.*\['a', 'b', 'label'\]"):
        read_table(_write(tmp_path / "t.csv", "a,b,label\n1,2,3\n"), target="y")


@pytest.mark.parametrize("bad_row", ["4,5", "4,5,6,7"])
def test_ragged_row_names_line(tmp_path, bad_row):
    path = _write(tmp_path / "t.csv", f"a,b,target\n1,2,3\n{bad_row}\n7,8,9\n")
    with pytest.raises(ValueError, match=r"line 3 has \d fields but the header has 3"):
        read_table(path)


def test_non_numeric_cell(tmp_path):
    path = _write(tmp_path / "t.tsv", "a\tcolour\ttarget\n1\t2\t3\n4\tred\t6\n")
    with pytest.raises(ValueError) as info:
        read_table(path)
    msg = str(info.value)
    assert "line 3" in msg and "'colour'" in msg and "'red'" in msg
    assert "encode categorical columns first" in msg and "t.tsv" in msg


@pytest.mark.parametrize("cell, what", [("", "empty"), ("nan", "not finite"), ("NaN", "not finite"), ("inf", "not finite")])
def test_missing_feature_cell(tmp_path, cell, what):
    path = _write(tmp_path / "t.csv", f"a,b,target\n1,2,3\n4,5,6\n7,{cell},9\n")
    with pytest.raises(ValueError, match=rf"line 4, column 'b' .*{what}"):
        read_table(path)


@pytest.mark.parametrize("cell", ["", "nan"])
def test_missing_target_cell(tmp_path, cell):
    path = _write(tmp_path / "t.csv", f"a,target\n1,2\n3,{cell}\n")
    with pytest.raises(ValueError, match=r"line 3, column 'target' \(the target\)"):
        read_table(path)


def test_error_in_quoted_file_names_line(tmp_path):
    path = _write(tmp_path / "t.csv", 'a,b,target\n1,2,"x"\n3,"oops",y\n')
    with pytest.raises(ValueError, match=r"line 3, column 'b': 'oops' is not a number"):
        read_table(path)


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(b"a,target\n1,2\n" * 100)[:40])
    with pytest.raises(ValueError, match="gzip"):
        read_table(path)


# ---------------------------------------------------------------- IDX

def _idx_bytes(array, code=0x08, fmt=">u1"):
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + np.asarray(array, dtype=fmt).tobytes()


@pytest.fixture
def mnist_like():
    rng = np.random.default_rng(1)
    return rng.integers(0, 256, size=(7, 28, 28), dtype=np.uint8), rng.integers(0, 10, size=7, dtype=np.uint8)


@pytest.mark.parametrize("compress", [False, True])
def test_load_idx_images_and_labels(tmp_path, mnist_like, compress):
    images, labels = mnist_like
    for name, arr in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels)):
        data = _idx_bytes(arr)
        path = tmp_path / (name + (".gz" if compress else ""))
        path.write_bytes(gzip.compress(data) if compress else data)
        out = load_idx(path)
        assert out.dtype == np.uint8 and out.shape == arr.shape
        np.testing.assert_array_equal(out, arr)


def test_load_idx_big_endian_int32(tmp_path):
    arr = np.array([[1, -2, 70000], [3, 4, -5]], dtype=np.int32)
    path = tmp_path / "x.idx"
    path.write_bytes(_idx_bytes(arr, code=0x0C, fmt=">i4"))
    out = load_idx(path)
    assert out.dtype == np.int32 and out.dtype.isnative
    np.testing.assert_array_equal(out, arr)


def test_load_idx_truncated(tmp_path, mnist_like):
    path = tmp_path / "t.idx"
    path.write_bytes(_idx_bytes(mnist_like[0])[:-100])
    with pytest.raises(ValueError, match="truncated"):
        load_idx(path)
    path.write_bytes(bytes([0, 0, 8, 3, 0, 0]))
    with pytest.raises(ValueError, match="truncated IDX header"):
        load_idx(path)


def test_load_idx_trailing_bytes(tmp_path, mnist_like):
    path = tmp_path / "t.idx"
    path.write_bytes(_idx_bytes(mnist_like[1]) + b"\0")
    with pytest.raises(ValueError, match="trailing bytes"):
        load_idx(path)


def test_load_idx_bad_magic_and_type(tmp_path, mnist_like):
    path = tmp_path / "t.idx"
    path.write_bytes(b"\x01\x02" + _idx_bytes(mnist_like[1])[2:])
    with pytest.raises(ValueError, match="not an IDX file"):
        load_idx(path)
    path.write_bytes(bytes([0, 0, 0x42, 1]) + _idx_bytes(mnist_like[1])[4:])
    with pytest.raises(ValueError, match="unknown IDX type code 0x42"):
        load_idx(path)


def test_load_fashion_mnist_from_root(tmp_path, mnist_like):
    images, labels = mnist_like
    (tmp_path / "t10k-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx_bytes(images)))
    (tmp_path / "t10k-labels-idx1-ubyte").write_bytes(_idx_bytes(labels))
    ds = load_fashion_mnist(tmp_path, subset="test")
    assert ds.data.shape == (7, 784) and ds.data.dtype == np.float64
    np.testing.assert_allclose(ds.data, images.reshape(7, -1) / 255.0)
    assert ds.target.dtype == np.int64 and ds.target.tolist() == labels.tolist()
    X, _ = load_fashion_mnist(tmp_path, subset="test", return_X_y=True, dtype=np.float32)
    assert X.dtype == np.float32
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte"):
        load_fashion_mnist(tmp_path, subset="train")
    with pytest.raises(ValueError, match="subset"):
        load_fashion_mnist(tmp_path, subset="validation")


# ---------------------------------------------------------------- shared data helpers

def test_shared_data_dir_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELKIT_SHARED_DATA", str(tmp_path))
    assert shared_data_dir() == tmp_path
    _write(tmp_path / "toy.tsv.gz", "a\tb\ttarget\n1\t2\t3\n")
    X, y, names = load_shared_table("toy")
    np.testing.assert_array_equal(X, [[1, 2]])
    with pytest.raises(FileNotFoundError, match=r"available: \['toy'\]"):
        load_shared_table("missing")


def test_shared_data_dir_relative_to_cwd(tmp_path, monkeypatch):
    monkeypatch.delenv("KERNELKIT_SHARED_DATA", raising=False)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "main").mkdir()
    monkeypatch.chdir(tmp_path / "main")
    assert shared_data_dir() == tmp_path / "shared" / "data"


def test_shared_data_absent(tmp_path, monkeypatch):
    monkeypatch.delenv("KERNELKIT_SHARED_DATA", raising=False)
    (tmp_path / "main").mkdir()
    monkeypatch.chdir(tmp_path / "main")
    assert shared_data_dir() is None
    with pytest.raises(FileNotFoundError, match="KERNELKIT_SHARED_DATA"):
        load_shared_table("kddcup")
    with pytest.raises(FileNotFoundError, match="KERNELKIT_SHARED_DATA"):
        load_fashion_mnist()


# ---------------------------------------------------------------- libsvm

def test_libsvm_round_trip(tmp_path):
    from scipy import sparse
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(2)
    X = sparse.random(20, 6, density=0.3, format="csr", random_state=3)
    y = rng.integers(0, 3, size=20).astype(np.float64)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path))
    X2, y2 = load_libsvm(path, n_features=8)
    assert sparse.isspmatrix_csr(X2) or isinstance(X2, sparse.csr_array)
    assert X2.shape == (20, 8)
    np.testing.assert_allclose(X2[:, :6].toarray(), X.toarray())
    np.testing.assert_array_equal(y2, y)


def test_libsvm_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.svm"):
        load_libsvm(tmp_path / "nope.svm")
    path = tmp_path / "bad.svm"
    path.write_text("1 3:abc\n")
    with pytest.raises(ValueError, match="bad.svm"):
        load_libsvm(path)


def test_read_table_refuses_pipes_and_directories(tmp_path):
    import os

    with pytest.raises(IsADirectoryError, match="is a directory"):
        read_table(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_table(tmp_path / "absent.csv")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.csv")
        with pytest.raises(ValueError, match="not a regular file"):
            read_table(tmp_path / "pipe.csv")
