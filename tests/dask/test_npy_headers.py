"""from_npy reads only a .npy header before building the graph: other files, object
arrays and truncated files get a clear ValueError (no cluster needed)."""

import numpy as np
import pytest

pytest.importorskip("dask")
from kernelkit.dask import from_npy  # noqa: E402


def test_a_text_file_is_not_a_npy_file(tmp_path):
    path = tmp_path / "X.npy"
    path.write_text("1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match="is not a .npy file") as info:
        from_npy(path, 10)
    assert "allow_pickle" not in str(info.value)


def test_a_truncated_file_says_so(tmp_path):
    path = tmp_path / "X.npy"
    np.save(path, np.arange(600.0).reshape(200, 3))
    raw = path.read_bytes()
    path.write_bytes(raw[:len(raw) - 100])
    with pytest.raises(ValueError, match=r"is truncated: .*shape \(200, 3\)"):
        from_npy(path, 50)


def test_object_arrays_are_refused(tmp_path):
    path = tmp_path / "X.npy"
    np.save(path, np.array([[1, "a"], [2, "b"]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="Python objects"):
        from_npy(path, 1)


def test_good_files_read_as_before(tmp_path):
    X = np.arange(600.0).reshape(200, 3)
    np.save(tmp_path / "c.npy", X)
    np.save(tmp_path / "f.npy", np.asfortranarray(X))
    for name in ("c.npy", "f.npy"):
        Xd = from_npy(tmp_path / name, 64)
        assert Xd.chunks == ((64, 64, 64, 8), (3,))
        np.testing.assert_array_equal(Xd.compute(scheduler="synchronous"), X)
