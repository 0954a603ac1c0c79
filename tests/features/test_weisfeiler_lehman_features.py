"""WeisfeilerLehmanFeatures: its inner products are the WL kernel (training graphs, and new
graphs with labels never seen in fit), the paper's feature vectors, model files alone and in
a pipeline, and edited files refused."""

import json
import zipfile

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

import kernelkit
from kernelkit.features import WeisfeilerLehmanFeatures
from kernelkit.kernels import WeisfeilerLehman


def _random_graphs(n, seed, n_labels=3):
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(n):
        m = int(rng.integers(1, 9))
        pairs = [(u, v) for u in range(m) for v in range(u + 1, m) if rng.random() < 0.35]
        graphs.append((pairs, [int(c) for c in rng.integers(0, n_labels, m)]))
    return graphs


@pytest.mark.parametrize("h", [0, 1, 2, 3])
def test_inner_products_are_the_kernel(h):
    train = _random_graphs(30, seed=h)
    new = _random_graphs(10, seed=10 + h, n_labels=5)  # labels 3 and 4 never seen in fit
    fmap = WeisfeilerLehmanFeatures(n_iter=h).fit(train)
    Z, Zn = fmap.transform(train), fmap.transform(new)
    assert Z.shape == (30, fmap.n_components_) and fmap.n_components_ == fmap.level_sizes_.sum()
    k = WeisfeilerLehman(n_iter=h)
    np.testing.assert_array_equal((Z @ Z.T).toarray(), k(train))
    np.testing.assert_array_equal((Zn @ Z.T).toarray(), k(new, train))
    # a new graph's own patterns outside the vocabulary are dropped: its norm can only shrink
    assert ((Zn.multiply(Zn)).sum(axis=1).A.ravel() <= k.diag(new)).all()


def test_the_papers_feature_vectors():
    G = ([(0, 2), (1, 2), (2, 3), (2, 4), (3, 4), (3, 5), (4, 5)], [1, 1, 4, 3, 5, 2])
    H = ([(0, 1), (1, 2), (1, 3), (1, 4), (2, 3), (3, 4), (4, 5)], [1, 4, 2, 5, 3, 2])
    Z = WeisfeilerLehmanFeatures(n_iter=1).fit_transform([G, H]).toarray()
    np.testing.assert_array_equal(Z, [[2, 1, 1, 1, 1, 2, 0, 1, 0, 1, 1, 0, 1],
                                      [1, 2, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1]])
    assert list(WeisfeilerLehmanFeatures(1).fit([G]).get_feature_names_out()[:2]) == \
        ["weisfeilerlehmanfeatures0", "weisfeilerlehmanfeatures1"]


def test_model_files_alone_and_in_a_pipeline(tmp_path):
    train, new = _random_graphs(24, seed=1), _random_graphs(8, seed=2, n_labels=4)
    fmap = WeisfeilerLehmanFeatures(n_iter=2).fit(train)
    kernelkit.save(fmap, tmp_path / "f.kk")
    back = kernelkit.load(tmp_path / "f.kk")
    assert back.vocabulary_ == fmap.vocabulary_
    assert (back.transform(new) != fmap.transform(new)).nnz == 0
    y = np.array([len(labels) for _, labels in train], dtype=float)
    model = make_pipeline(WeisfeilerLehmanFeatures(n_iter=2),
                          kernelkit.KernelRidge(kernel="linear", alpha=1.0)).fit(train, y)
    kernelkit.save(model, tmp_path / "p.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "p.kk").predict(new),
                                  model.predict(new))


@pytest.mark.parametrize("member, edit", [
    ("signature_values_", lambda a: a + 100),  # labels outside the previous iteration's
    ("label_offsets_", lambda a: a[::-1].copy()),
])
def test_edited_vocabularies_are_refused(tmp_path, member, edit):
    fmap = WeisfeilerLehmanFeatures(n_iter=2).fit(_random_graphs(10, seed=3))
    kernelkit.save(fmap, tmp_path / "f.kk")
    with zipfile.ZipFile(tmp_path / "f.kk") as zin:
        meta = json.loads(zin.read("metadata.json"))
        names = [i.filename for i in zin.infolist()]
        target = next(n for n in names if member in n)
        arr = np.load(zin.open(target))
        contents = {n: zin.read(n) for n in names}
    import io

    buf = io.BytesIO()
    np.save(buf, edit(arr))
    contents[target] = buf.getvalue()
    with zipfile.ZipFile(tmp_path / "e.kk", "w") as zout:
        for n in names:
            zout.writestr(n, contents[n] if n != "metadata.json" else json.dumps(meta))
    with pytest.raises(kernelkit.ModelFormatError, match="vocabulary"):
        kernelkit.load(tmp_path / "e.kk")


@pytest.mark.parametrize("bad", [np.zeros((4, 3)), np.array([[np.nan, 1.0]]), None, "abc", [],
                                 np.array([["a", "b"]]), [3, 4]])
def test_bad_inputs_are_clear_errors(bad):
    """Numeric arrays, NaN, strings, nothing: a TypeError/ValueError naming what to pass."""
    fitted = WeisfeilerLehmanFeatures(n_iter=1).fit(_random_graphs(5, seed=4))
    for call in (lambda: WeisfeilerLehmanFeatures().fit(bad), lambda: fitted.transform(bad)):
        with pytest.raises((TypeError, ValueError), match=r"graph|X is|empty|one sample"):
            call()
    with pytest.raises(ValueError, match="n_iter"):
        WeisfeilerLehmanFeatures(n_iter=-1).fit(_random_graphs(3, seed=5))
