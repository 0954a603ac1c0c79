"""The Weisfeiler-Lehman subtree kernel: the worked example of Shervashidze et al. (2011,
Fig. 2), a brute-force relabelling loop (the paper's Algorithm 1 with string signatures),
invariance under node renumbering, the kernel contract, input forms and errors, learners
and model files."""

import numpy as np
import pytest

import kernelkit
from kernelkit.kernels import LabelledGraph, WeisfeilerLehman, parse_kernel
from kernelkit.kernels.graphs import wl_label_counts
from kernelkit.kernels.objects import object_codec
from kernelkit.testing import check_kernel

# Fig. 2 of the paper: G and G' with labels 1..5 (node i has label LABELS[i])
PAPER_G = ([(0, 2), (1, 2), (2, 3), (2, 4), (3, 4), (3, 5), (4, 5)], [1, 1, 4, 3, 5, 2])
PAPER_H = ([(0, 1), (1, 2), (1, 3), (1, 4), (2, 3), (3, 4), (4, 5)], [1, 4, 2, 5, 3, 2])


def _random_graphs(n, seed, n_labels=3):
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(n):
        m = int(rng.integers(1, 9))
        pairs = [(u, v) for u in range(m) for v in range(u + 1, m) if rng.random() < 0.35]
        graphs.append((pairs, [int(c) for c in rng.integers(0, n_labels, m)]))
    return graphs


def _brute_force_wl(graphs, h):
    """The paper's Algorithm 1: string signatures 'label,sorted neighbour labels', one shared
    compression dictionary per iteration, then dot products of the label histograms."""
    adjacency, labels = [], []
    for edges, lab in graphs:
        nbrs = [set() for _ in lab]
        for u, v in edges:
            nbrs[u].add(v)
            nbrs[v].add(u)
        adjacency.append(nbrs)
        labels.append([str(x) for x in lab])
    histograms = [{} for _ in graphs]
    for it in range(h + 1):
        if it:
            table, new = {}, []
            for nbrs, lab in zip(adjacency, labels):
                sig = [lab[v] + "," + "|".join(sorted(lab[u] for u in nbrs[v]))
                       for v in range(len(lab))]
                new.append([table.setdefault(s, f"L{it}_{len(table)}") for s in sig])
            labels = new
        for hist, lab in zip(histograms, labels):
            for x in lab:
                hist[(it, x)] = hist.get((it, x), 0) + 1
    K = np.zeros((len(graphs), len(graphs)))
    for i, a in enumerate(histograms):
        for j, b in enumerate(histograms):
            K[i, j] = sum(c * b.get(key, 0) for key, c in a.items())
    return K


def test_the_papers_worked_example():
    """Fig. 2: h = 1, compressed labels 6..13 in the order of their signatures
    (1,4 < 2,3 < 2,35 < 2,45 < 3,245 < 4,1135 < 4,1235 < 5,234); k(G, G') = 11."""
    X = WeisfeilerLehman().check_input([PAPER_G, PAPER_H])
    phi = wl_label_counts(list(X), 1).toarray()
    np.testing.assert_array_equal(phi[0], [2, 1, 1, 1, 1, 2, 0, 1, 0, 1, 1, 0, 1])
    np.testing.assert_array_equal(phi[1], [1, 2, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1])
    np.testing.assert_array_equal(WeisfeilerLehman(n_iter=1)([PAPER_G, PAPER_H]),
                                  [[16.0, 11.0], [11.0, 14.0]])
    np.testing.assert_array_equal(WeisfeilerLehman(n_iter=0)([PAPER_G], [PAPER_H]), [[7.0]])


@pytest.mark.parametrize("h", [0, 1, 2, 4])
def test_equals_the_brute_force_relabelling_loop(h):
    graphs = _random_graphs(25, seed=h)
    np.testing.assert_array_equal(WeisfeilerLehman(n_iter=h)(graphs), _brute_force_wl(graphs, h))
    # a cross block relabels its rows and columns together: the same numbers
    np.testing.assert_array_equal(WeisfeilerLehman(n_iter=h)(graphs[:7], graphs[7:]),
                                  _brute_force_wl(graphs, h)[:7, 7:])


def test_isomorphic_graphs_give_equal_rows():
    rng = np.random.default_rng(5)
    graphs = _random_graphs(12, seed=5)
    edges, labels = graphs[3]
    perm = rng.permutation(len(labels))  # node v becomes perm[v]
    relabelled = ([(int(perm[u]), int(perm[v])) for u, v in edges],
                  [labels[int(np.flatnonzero(perm == w)[0])] for w in range(len(labels))])
    K = WeisfeilerLehman(n_iter=3)(graphs + [relabelled])
    np.testing.assert_array_equal(K[3], K[-1])
    assert K[3, -1] == K[3, 3] == K[-1, -1]


@pytest.mark.parametrize("kernel", [WeisfeilerLehman(), WeisfeilerLehman(n_iter=1),
                                    WeisfeilerLehman(n_iter=2, normalize=True),
                                    WeisfeilerLehman(n_iter=1) + 0.5 * WeisfeilerLehman(n_iter=0)])
def test_contract(kernel):
    check_kernel(kernel, _random_graphs(20, seed=7))


def test_normalized_is_the_cosine():
    graphs = _random_graphs(10, seed=8)
    K = WeisfeilerLehman(n_iter=2)(graphs)
    d = np.sqrt(np.diagonal(K))
    np.testing.assert_allclose(WeisfeilerLehman(n_iter=2, normalize=True)(graphs),
                               K / np.outer(d, d), rtol=1e-14)


class _NetworkxLike:
    """The part of networkx's Graph API the codec reads: nodes (with attributes), edges."""

    def __init__(self, edges, labels, directed=False, node_names=None):
        names = node_names or list(range(len(labels)))
        self.nodes = {name: ({} if lab is None else {"label": lab})
                      for name, lab in zip(names, labels)}
        self.edges = [(names[u], names[v]) for u, v in edges]
        self._directed = directed

    def is_directed(self):
        return self._directed


def test_input_forms_agree():
    edges, labels = PAPER_G
    adjacency = [[] for _ in labels]
    for u, v in edges:
        adjacency[u].append(v)
        adjacency[v].append(u)
    G = _NetworkxLike(edges, labels, node_names=list("abcdef"))
    forms = [PAPER_G, {"edges": np.array(edges), "labels": labels},
             {"adjacency": adjacency, "labels": [str(v) for v in labels]},
             (edges + [(2, 0), (0, 2)], tuple(labels)), G]
    K = WeisfeilerLehman(n_iter=2)(forms + [PAPER_H])
    assert (K[:5, :5] == K[0, 0]).all() and (K[:5, 5] == K[0, 5]).all()
    canonical = WeisfeilerLehman().check_input(forms)
    assert all(isinstance(g, LabelledGraph) and g == canonical[0] for g in canonical)
    assert canonical[0].n_edges == 7 and canonical[0].labels[2] == "4"


@pytest.mark.parametrize("bad, error, words", [
    ([([(0, 0)], [1])], ValueError, r"X\[0\]: self-loop at node 0"),
    ([([(0, 3)], [1, 2])], ValueError, r"edge \(0, 3\) names a node outside 0..1"),
    ([([(0, 1)], [1.5, 2])], TypeError, "node labels must be ints or strings"),
    ([([], [])], ValueError, "no nodes"),
    ([{"adjacency": [[1], []], "labels": [0, 0]}], ValueError, "node 0 lists 1 as a neighbour"),
    ([{"edges": [], "adjacency": [], "labels": [0]}], ValueError, "one of 'edges'"),
    ([([(0, 1, 2)], [0, 0, 0])], ValueError, r"shape \(n_edges, 2\)"),
    ([3], TypeError, r"X\[0\] is int; each sample must be a graph"),
])
def test_bad_graphs_are_refused_naming_the_item(bad, error, words):
    with pytest.raises(error, match=words):
        WeisfeilerLehman()(bad)


def test_networkx_errors():
    with pytest.raises(ValueError, match="directed"):
        WeisfeilerLehman()([_NetworkxLike([(0, 1)], [0, 0], directed=True)])
    with pytest.raises(ValueError, match="node 'c' has no 'label' attribute"):
        WeisfeilerLehman()([_NetworkxLike([(0, 1)], [0, 0, None], node_names=list("abc"))])


def test_registry_and_repr():
    assert parse_kernel("wl") == WeisfeilerLehman()
    assert parse_kernel("weisfeiler_lehman(n_iter=2, normalize=True)") == \
        WeisfeilerLehman(n_iter=2, normalize=True)
    assert parse_kernel(repr(WeisfeilerLehman(n_iter=5))) == WeisfeilerLehman(n_iter=5)


def _cycles_and_paths(n, seed):
    """Unlabelled cycles (class 1) and paths (class 0) of 5..12 nodes, every label 0."""
    rng = np.random.default_rng(seed)
    graphs, y = [], []
    for i in range(n):
        m = int(rng.integers(5, 13))
        edges = [(v, v + 1) for v in range(m - 1)] + ([(m - 1, 0)] if i % 2 else [])
        graphs.append((edges, [0] * m))
        y.append(i % 2)
    return graphs, np.array(y)


def test_learners_and_model_files(tmp_path):
    from sklearn.svm import SVC

    X, y = _cycles_and_paths(40, seed=0)
    X_test, y_test = _cycles_and_paths(20, seed=1)
    k = WeisfeilerLehman(n_iter=2, normalize=True)
    svc = kernelkit.KernelSVC(kernel=k, C=10.0).fit(X, y)
    ref = SVC(kernel="precomputed", C=10.0).fit(k(X), y)
    np.testing.assert_array_equal(svc.predict(X_test), ref.predict(k(X_test, X)))
    assert svc.score(X_test, y_test) == 1.0  # cycles have no degree-1 nodes: one iteration tells
    ridge = kernelkit.KernelRidge(kernel="wl(n_iter=2)", alpha=0.1).fit(X, y.astype(float))
    for model, name in ((svc, "svc.kk"), (ridge, "ridge.kk")):
        kernelkit.save(model, tmp_path / name)
        back = kernelkit.load(tmp_path / name)
        np.testing.assert_array_equal(back.predict(X_test), model.predict(X_test))


def test_codec_round_trip_and_corruption():
    codec = object_codec("graph")
    graphs = WeisfeilerLehman().check_input(_random_graphs(6, seed=3) + [([], ["é", "b"])])
    arrays, info = codec.encode(graphs)
    back = codec.check(codec.decode(arrays, info, len(graphs)))
    assert all(a == b for a, b in zip(graphs, back))
    broken = dict(arrays, node_offsets=arrays["node_offsets"][::-1].copy())
    with pytest.raises(ValueError, match="node_offsets"):
        codec.decode(broken, info, len(graphs))
    shifted = dict(arrays, edges=arrays["edges"] + 50)
    with pytest.raises(ValueError, match="names a node outside"):
        codec.check(codec.decode(shifted, info, len(graphs)))


def test_high_degree_graphs_take_the_dictionary_path_with_the_same_values():
    """Stars of 700 nodes: the padded signature matrix (nodes x largest degree) exceeds the
    block share of a 16 MB budget, so signatures are compared through a dictionary."""
    rng = np.random.default_rng(9)
    stars = [([(0, v) for v in range(1, m)] + [(1, 2)], [int(c) for c in rng.integers(0, 2, m)])
             for m in (700, 650, 699)]
    with kernelkit.config_context(memory="16MB"):
        K = WeisfeilerLehman(n_iter=2)(stars)
    np.testing.assert_array_equal(K, _brute_force_wl(stars, 2))
    np.testing.assert_array_equal(K, WeisfeilerLehman(n_iter=2)(stars))  # the padded path


@pytest.mark.filterwarnings("ignore:.*eigenvalues of the centers:kernelkit.exceptions.NumericalWarning")
def test_nystroem_features_of_graphs_and_their_model_file(tmp_path):
    # (small random graphs repeat: the repeated centers' directions are dropped, with a warning)
    from kernelkit.features import Nystroem

    graphs = _random_graphs(30, seed=11)
    k = WeisfeilerLehman(n_iter=2, normalize=True)
    fmap = Nystroem(kernel=k, n_components=30, random_state=0).fit(graphs)
    Z = fmap.transform(graphs)
    np.testing.assert_allclose(Z @ Z.T, k(graphs), atol=1e-8)  # all centers: exact
    kernelkit.save(fmap, tmp_path / "n.kk")
    np.testing.assert_array_equal(kernelkit.load(tmp_path / "n.kk").transform(graphs), Z)
