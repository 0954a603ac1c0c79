"""Kernels on graphs with node labels: the Weisfeiler-Lehman subtree kernel.

A sample is an undirected graph whose nodes carry discrete labels (ints or
strings, compared as text). It is given as one of

- ``(edges, labels)``: ``edges`` an (m, 2) array-like of node-index pairs
  (0-based; (u, v) and (v, u) are the same edge, repeats are merged) and
  ``labels`` one label per node -- the labels define the nodes, so isolated
  nodes need no edge;
- ``{"edges": ..., "labels": ...}`` or ``{"adjacency": ..., "labels": ...}``,
  ``adjacency`` a list of neighbour lists, one per node (symmetric: v lists u
  when u lists v);
- a networkx ``Graph`` whose nodes have a ``"label"`` attribute (nodes taken
  in its iteration order).

Self-loops and directed graphs are refused. The canonical form is a
:class:`LabelledGraph` (labels as a tuple of str, neighbours as read-only CSR
arrays); model files store all graphs of a model as five plain arrays (the
``"graph"`` kind of :mod:`kernelkit.kernels.objects`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._budget import fits
from .._validation import Interval
from .objects import ObjectCodec, ObjectKernel, normalize_block, register_object_kind

__all__ = ["LabelledGraph", "WeisfeilerLehman", "wl_label_counts", "node_arrays",
           "wl_signatures"]


class LabelledGraph:
    """An undirected graph with one text label per node (read-only).

    Attributes
    ----------
    labels : tuple of str, length n_nodes
    indptr : ndarray of shape (n_nodes + 1,), int64
    indices : ndarray of shape (2 n_edges,), int64
        The neighbours of node v are ``indices[indptr[v]:indptr[v + 1]]``, sorted.
    """

    __slots__ = ("labels", "indptr", "indices")

    def __init__(self, labels, indptr, indices):
        self.labels = tuple(labels)
        self.indptr, self.indices = indptr, indices
        for a in (indptr, indices):
            a.flags.writeable = False

    @property
    def n_nodes(self):
        return len(self.labels)

    @property
    def n_edges(self):
        return len(self.indices) // 2

    def edges(self):
        """The (n_edges, 2) array of edges (u, v) with u < v."""
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(self.indptr))
        keep = rows < self.indices
        return np.column_stack([rows[keep], self.indices[keep]])

    def __eq__(self, other):
        return (isinstance(other, LabelledGraph) and self.labels == other.labels
                and np.array_equal(self.indptr, other.indptr)
                and np.array_equal(self.indices, other.indices))

    def __hash__(self):
        return hash((self.labels, self.indices.tobytes()))

    def __repr__(self):
        return f"LabelledGraph(n_nodes={self.n_nodes}, n_edges={self.n_edges})"


def _label_text(label, where):
    if isinstance(label, str):
        return label
    if isinstance(label, (Integral, np.integer)) and not isinstance(label, (bool, np.bool_)):
        return str(int(label))
    raise TypeError(f"{where} is {label!r} ({type(label).__name__}); node labels must be "
                    "ints or strings (discretise continuous node attributes first)")


def _from_edges(edges, labels, where):
    n = len(labels)
    try:
        E = np.asarray(edges if len(edges) else np.zeros((0, 2)), dtype=object)
        E = E.astype(np.int64) if E.size else np.zeros((0, 2), dtype=np.int64)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: edges must be pairs of node indices (ints), got "
                        f"{edges!r:.80}") from None
    if E.ndim != 2 or E.shape[1] != 2:
        raise ValueError(f"{where}: edges must have shape (n_edges, 2), got {E.shape}")
    if E.size and (E.min() < 0 or E.max() >= n):
        bad = E[np.flatnonzero(((E < 0) | (E >= n)).any(axis=1))[0]]
        raise ValueError(f"{where}: edge ({bad[0]}, {bad[1]}) names a node outside 0..{n - 1} "
                         f"(the graph has {n} nodes, one per label)")
    loops = E[:, 0] == E[:, 1]
    if loops.any():
        raise ValueError(f"{where}: self-loop at node {E[loops][0, 0]}; the Weisfeiler-Lehman "
                         "kernel takes simple undirected graphs (drop self-loops)")
    both = np.concatenate([E, E[:, ::-1]]) if E.size else E
    both = np.unique(both, axis=0) if both.size else both
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(both[:, 0], minlength=n) if both.size else np.zeros(n, np.int64),
              out=indptr[1:])
    indices = np.ascontiguousarray(both[:, 1] if both.size else np.zeros(0), dtype=np.int64)
    return LabelledGraph([_label_text(v, f"{where} label {i}") for i, v in enumerate(labels)],
                         indptr, indices)


def _from_adjacency(adjacency, labels, where):
    if len(adjacency) != len(labels):
        raise ValueError(f"{where}: the adjacency list has {len(adjacency)} entries but there "
                         f"are {len(labels)} labels; give one neighbour list per node")
    edges = [(u, v) for u, nbrs in enumerate(adjacency) for v in nbrs]
    pairs = {(u, int(v)) for u, v in edges}
    for u, v in pairs:
        if (v, u) not in pairs and 0 <= v < len(labels):
            raise ValueError(f"{where}: node {u} lists {v} as a neighbour but node {v} does not "
                             f"list {u}; graphs are undirected (list each edge both ways, or "
                             "give an edge list)")
    return _from_edges(edges, labels, where)


class GraphCodec(ObjectCodec):
    """The ``"graph"`` kind: checks graphs, writes them as arrays (see the module)."""

    kind, noun, plural = "graph", "graph", "graphs"
    parts = {"node_offsets": ("int64", 1), "edge_offsets": ("int64", 1),
             "edges": ("int64", 2), "label_codes": ("int64", 1), "label_offsets": ("int64", 1)}

    def _is_canonical(self, X):
        return len(X) > 0 and all(isinstance(g, LabelledGraph) for g in X)

    def check_item(self, item, where):
        if isinstance(item, LabelledGraph):
            return item
        if hasattr(item, "nodes") and hasattr(item, "edges") and hasattr(item, "is_directed"):
            return self._from_networkx(item, where)
        if isinstance(item, dict):
            if "labels" not in item or ("edges" in item) == ("adjacency" in item):
                raise ValueError(f"{where} is a dict with keys {sorted(item)}; a graph as a dict "
                                 "needs 'labels' and one of 'edges' or 'adjacency'")
            labels = self._labels(item["labels"], where)
            if "edges" in item:
                return _from_edges(item["edges"], labels, where)
            return _from_adjacency(item["adjacency"], labels, where)
        if isinstance(item, (tuple, list)) and len(item) == 2:
            return _from_edges(item[0], self._labels(item[1], where), where)
        raise TypeError(f"{where} is {type(item).__name__}; each sample must be a graph: "
                        "(edges, labels) with edges an (m, 2) array of node-index pairs and one "
                        "label per node, a dict {'edges' or 'adjacency': ..., 'labels': ...}, "
                        "or a networkx Graph with a 'label' attribute on every node")

    @staticmethod
    def _labels(labels, where):
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
            raise TypeError(f"{where}: labels must be a list with one label per node, got "
                            f"{type(labels).__name__}")
        labels = list(labels)
        if not labels:
            raise ValueError(f"{where} has no nodes (0 labels); every graph needs one node")
        return labels

    def _from_networkx(self, G, where):
        if G.is_directed():
            raise ValueError(f"{where} is a directed networkx graph; the Weisfeiler-Lehman kernel "
                             "takes undirected graphs (G.to_undirected())")
        nodes = list(G.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        missing = [v for v in nodes if "label" not in G.nodes[v]]
        if missing:
            raise ValueError(f"{where}: networkx node {missing[0]!r} has no 'label' attribute; "
                             "set one on every node (nx.set_node_attributes(G, values, 'label'))")
        labels = self._labels([G.nodes[v]["label"] for v in nodes], where)
        return _from_edges([(index[u], index[v]) for u, v in G.edges], labels, where)

    def encode(self, objects):
        sizes = [g.n_nodes for g in objects]
        edges = [g.edges() for g in objects]
        texts = [s for g in objects for s in g.labels]  # as Unicode code points
        label_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in texts], out=label_offsets[1:])
        return ({"node_offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                 "edge_offsets": np.concatenate([[0], np.cumsum([len(e) for e in edges])])
                 .astype(np.int64),
                 "edges": (np.concatenate(edges) if edges else np.zeros((0, 2))).astype(np.int64),
                 "label_codes": np.frombuffer("".join(texts).encode("utf-32-le"),
                                              dtype="<u4").astype(np.int64),
                 "label_offsets": label_offsets}, {})

    def decode(self, arrays, info, n):
        nodes, eoff = arrays["node_offsets"], arrays["edge_offsets"]
        edges, codes, loff = arrays["edges"], arrays["label_codes"], arrays["label_offsets"]
        for name, offs, length, total in (
                ("node_offsets", nodes, n + 1, len(loff) - 1),
                ("edge_offsets", eoff, n + 1, len(edges)),
                ("label_offsets", loff, len(loff), len(codes))):
            if len(offs) != length or len(offs) == 0 or offs[0] != 0 or offs[-1] != total \
                    or (np.diff(offs) < 0).any():
                raise ValueError(f"{name} must rise from 0 to {total} in {length - 1} steps")
        if edges.shape[1] != 2:
            raise ValueError(f"edges must have 2 columns, got {edges.shape}")
        if codes.size and (codes.min() < 0 or codes.max() > 0x10FFFF):
            raise ValueError("label_codes must be Unicode code points")
        raw = codes.astype("<u4").tobytes()
        texts = [raw[4 * loff[i]:4 * loff[i + 1]].decode("utf-32-le", errors="strict")
                 for i in range(len(loff) - 1)]
        return [(edges[eoff[i]:eoff[i + 1]], texts[nodes[i]:nodes[i + 1]]) for i in range(n)]


GRAPHS = register_object_kind(GraphCodec())


def node_arrays(graphs):
    """All nodes of ``graphs`` as one graph: (label texts, CSR ``indptr`` and
    ``indices`` over all nodes, the graph each node belongs to)."""
    sizes = np.array([g.n_nodes for g in graphs], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    degrees = np.concatenate([np.diff(g.indptr) for g in graphs]) if graphs else np.zeros(0)
    indptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    indices = np.concatenate([g.indices + s for g, s in zip(graphs, starts[:-1])]) \
        if graphs else np.zeros(0, dtype=np.int64)
    texts = [s for g in graphs for s in g.labels]
    return texts, indptr, indices, np.repeat(np.arange(len(graphs)), sizes)


def _sorted_neighbours(labels, indptr, indices):
    """The neighbours' labels of every node, sorted within each node's CSR row."""
    degrees = np.diff(indptr)
    rows = np.repeat(np.arange(len(labels)), degrees)
    neighbour = labels[indices]
    order = np.lexsort((neighbour, rows))  # by node, then by neighbour label
    return rows, neighbour[order]


def wl_signatures(labels, indptr, indices):
    """Each node's Weisfeiler-Lehman signature: (label, *sorted neighbour labels),
    a tuple of ints (labels may be any integers, -1 included)."""
    _, neighbours = _sorted_neighbours(labels, indptr, indices)
    return [(int(labels[v]), *neighbours[indptr[v]:indptr[v + 1]].tolist())
            for v in range(len(labels))]


def _refine(labels, indptr, indices):
    """One Weisfeiler-Lehman step: a new label per node for (label, sorted neighbour labels).

    Exact (no hashing): equal signatures get equal new labels, ids 0..k-1 in
    sorted order of the signatures (padded rows compared by ``np.unique``),
    or by a dictionary when the padded matrix would not fit the budget.
    """
    N = len(labels)
    width = 1 + int(np.diff(indptr).max(initial=0))
    if fits(8.0 * N * width * 3, share=1 / 8):
        rows, neighbours = _sorted_neighbours(labels, indptr, indices)
        M = np.full((N, width), -1, dtype=np.int64)
        M[:, 0] = labels
        M[rows, 1 + np.arange(len(rows)) - indptr[rows]] = neighbours
        return np.unique(M, axis=0, return_inverse=True)[1].ravel()
    table, out = {}, np.empty(N, dtype=np.int64)
    for v, key in enumerate(wl_signatures(labels, indptr, indices)):
        out[v] = table.setdefault(key, len(table))
    return out


def wl_label_counts(graphs, n_iter):
    """The Weisfeiler-Lehman subtree features of graphs: label counts per iteration.

    Parameters
    ----------
    graphs : sequence of LabelledGraph
    n_iter : int
        Number h of relabelling iterations.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (len(graphs), n_labels)
        Entry (i, c) counts the nodes of graph i with compressed label c; the
        columns are the labels of iteration 0 (the original ones), then of
        iteration 1, ..., h, each in sorted order of its signatures. Labels
        are compressed across these graphs only: compare graphs whose
        features were computed together.
    """
    import scipy.sparse as sp

    texts, indptr, indices, owner = node_arrays(graphs)
    labels = np.unique(np.array(texts, dtype=str), return_inverse=True)[1].ravel() \
        if texts else np.zeros(0, dtype=np.int64)
    blocks = []
    for it in range(int(n_iter) + 1):
        if it:
            labels = _refine(labels, indptr, indices)
        n_labels = int(labels.max(initial=-1)) + 1
        blocks.append(sp.csr_matrix((np.ones(len(labels)), (owner, labels)),
                                    shape=(len(graphs), n_labels)))
    counts = sp.hstack(blocks, format="csr")
    counts.sum_duplicates()
    return counts


class WeisfeilerLehman(ObjectKernel):
    """The Weisfeiler-Lehman subtree kernel on graphs with node labels.

    Each of h iterations relabels every node by its label and the sorted
    multiset of its neighbours' labels (compressed to a new label), so the
    label of iteration i names the node's subtree pattern of depth i. The
    kernel counts the common patterns:
    ``k(G, G') = sum_{i=0}^{h} sum_c c_i(G) c_i(G')``, the inner product of
    the label counts of every iteration (Shervashidze et al. 2011, Definition
    4 with the subtree base kernel), hence positive semi-definite. One block
    relabels its graphs together (exact signatures, no hashing), in
    O(h (sum of edges) log) time, and is one sparse product.

    Parameters
    ----------
    n_iter : int, default=3
        Number h of relabelling iterations (0: the label histogram kernel).
    normalize : bool, default=False
        k(G, G') / sqrt(k(G, G) k(G', G')) (so k(G, G) = 1); graphs of very
        different sizes then compare on their label distributions.

    Examples
    --------
    A path a-b-a against a triangle a-b-a, one iteration: the labels of
    iteration 0 give 2 * 2 + 1 * 1 = 5, iteration 1 shares only the middle
    node's pattern (b with neighbours a, a): 5 + 1.

    >>> from kernelkit.kernels import WeisfeilerLehman
    >>> path = ([(0, 1), (1, 2)], ["a", "b", "a"])
    >>> triangle = ([(0, 1), (1, 2), (0, 2)], ["a", "b", "a"])
    >>> WeisfeilerLehman(n_iter=1)([path], [triangle])
    array([[6.]])

    References
    ----------
    Shervashidze, N., Schweitzer, P., van Leeuwen, E. J., Mehlhorn, K. and
    Borgwardt, K. M. (2011). Weisfeiler-Lehman graph kernels. JMLR 12, 2539-2561.
    """

    input_kind = "graph"
    _param_constraints = {"n_iter": [Interval(Integral, 0, None)], "normalize": ["boolean"]}

    def __init__(self, n_iter=3, *, normalize=False):
        self.n_iter = n_iter
        self.normalize = normalize
        self._check_params()

    def _block(self, X, Y, diag_offset):
        if X is Y:
            A = B = wl_label_counts(list(X), self.n_iter)
        else:
            F = wl_label_counts(list(X) + list(Y), self.n_iter)
            A, B = F[:len(X)], F[len(X):]
        out = np.asarray((A @ B.T).todense(), dtype=np.float64)
        if self.normalize:
            dx = np.asarray(A.multiply(A).sum(axis=1), dtype=np.float64).ravel()
            dy = np.asarray(B.multiply(B).sum(axis=1), dtype=np.float64).ravel()
            normalize_block(out, dx, dy, diag_offset)
        return out

    def _diag(self, X):
        F = wl_label_counts(list(X), self.n_iter)
        d = np.asarray(F.multiply(F).sum(axis=1), dtype=np.float64).ravel()
        return np.ones(len(X)) if self.normalize else d
