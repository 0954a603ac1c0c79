"""Kernels on trees: the subset-tree kernel of Collins and Duffy (2001).

A sample is an ordered, labelled tree (a parse tree), given in bracket
notation ``"(S (NP (D the) (N dog)) (VP barks))"`` or as nested tuples
``("S", ("NP", ("D", "the"), ("N", "dog")), ("VP", "barks"))`` (a tuple is a
node: its label, then its children; a plain string child is a leaf). Both
become a :class:`Tree` (the ``"tree"`` kind of
:mod:`kernelkit.kernels.objects`), stored in model files as its bracket text.
"""

from __future__ import annotations

import itertools

import re
from numbers import Real

import numpy as np

from .._budget import BLOCK_SHARE, require
from .._validation import Interval
from .objects import ObjectCodec, ObjectKernel, normalize_block, register_object_kind

__all__ = ["Tree", "SubsetTree", "parse_tree"]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_BAD_LABEL = re.compile(r"[\s()]")

# Production (label, child labels) -> int id, shared by every tree of the process:
# equal productions get equal ids, so a block only concatenates its trees' arrays.
# (Ids never leave the process: model files hold the bracket text.)
_PRODUCTIONS: dict = {}
_NEXT_ID = itertools.count()  # ids from a counter: two threads never share one


def _production_id(key):
    pid = _PRODUCTIONS.get(key)
    if pid is None:
        pid = _PRODUCTIONS.setdefault(key, next(_NEXT_ID))
    return pid


class Tree:
    """An ordered labelled tree, immutable: nodes in preorder (parents before children).

    Build it with :func:`parse_tree` (bracket text or nested tuples); the
    kernels' ``check_input`` does so for every sample.

    Attributes
    ----------
    labels : tuple of str
        Node labels in preorder (``labels[0]`` is the root).
    children : tuple of tuple of int
        Preorder indices of each node's children, in order (empty for a leaf).
    text : str
        The canonical bracket notation (one space between parts); equal trees
        have equal text.
    """

    __slots__ = ("labels", "children", "text", "_arrays")

    def __init__(self, labels, children):
        self.labels = tuple(labels)
        self.children = tuple(tuple(c) for c in children)
        self.text = self._render()
        prod = np.array([_production_id((self.labels[g],
                                          tuple(self.labels[c] for c in kids)))
                         if kids else -1 for g, kids in enumerate(self.children)],
                        dtype=np.int64)
        cptr = np.zeros(len(self.labels) + 1, dtype=np.int64)
        cptr[1:] = np.cumsum([len(k) for k in self.children])
        cidx = np.array([c for kids in self.children for c in kids], dtype=np.int64)
        self._arrays = (prod, cptr, cidx)

    def _render(self):
        if not self.children[0]:
            return f"({self.labels[0]})"
        parts, stack = [], [(0, False)]
        while stack:  # iterative: deep trees do not hit the recursion limit
            g, closing = stack.pop()
            if closing:
                parts.append(")")
                continue
            kids = self.children[g]
            if not kids:
                parts.append(self.labels[g])
                continue
            parts.append("(" + self.labels[g])
            stack.append((g, True))
            stack.extend((c, False) for c in reversed(kids))
        out = []
        for p in parts:  # one space before every part but a closing one
            out.append(p if p == ")" or not out else " " + p)
        return "".join(out)

    @property
    def n_nodes(self):
        return len(self.labels)

    def __len__(self):
        return len(self.labels)

    def __eq__(self, other):
        return isinstance(other, Tree) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"Tree({self.text!r})"


def _check_label(label, where):
    if not isinstance(label, (str, np.str_)):
        raise TypeError(f"{where}: a node label must be a str, got {label!r} "
                        f"({type(label).__name__})")
    if not label or _BAD_LABEL.search(label):
        raise ValueError(f"{where}: node label {label!r} must be non-empty, without spaces "
                         "or parentheses")
    return str(label)


def _from_text(text, where):
    tokens = _TOKEN.findall(text)
    if not tokens or tokens[0] != "(":
        raise ValueError(f"{where}: a tree in bracket notation starts with '(' as in "
                         f"'(S (NP a) (VP b))', got {text[:40]!r}")
    labels, children, stack = [], [], []
    i, done = 0, False
    while i < len(tokens):
        tok = tokens[i]
        if done:
            raise ValueError(f"{where}: text after the end of the tree: "
                             f"{' '.join(tokens[i:i + 5])!r}")
        if tok == "(":
            if i + 1 >= len(tokens) or tokens[i + 1] in "()":
                raise ValueError(f"{where}: '(' must be followed by a node label (token "
                                 f"{i + 1}); empty outer brackets '( (S ...))' are not "
                                 "read: remove them")
            g = len(labels)
            labels.append(tokens[i + 1])
            children.append([])
            if stack:
                children[stack[-1]].append(g)
            stack.append(g)
            i += 2
            continue
        if tok == ")":
            if not stack:
                raise ValueError(f"{where}: unbalanced parentheses: a ')' closes nothing "
                                 f"(token {i})")
            stack.pop()
            done = not stack
        else:  # a leaf
            if not stack:  # pragma: no cover - caught as text after the tree
                raise ValueError(f"{where}: leaf {tok!r} outside the tree")
            children[stack[-1]].append(len(labels))
            labels.append(tok)
            children.append([])
        i += 1
    if stack:
        raise ValueError(f"{where}: unbalanced parentheses: {len(stack)} '(' not closed")
    return Tree(labels, children)


def _from_nested(obj, where):
    labels, children = [], []
    stack = [(obj, None)]
    while stack:  # iterative preorder
        node, parent = stack.pop()
        g = len(labels)
        if isinstance(node, (tuple, list)):
            if not node:
                raise ValueError(f"{where}: an empty tuple is not a node; a node is "
                                 "(label, child, ...)")
            label, kids = node[0], node[1:]
        else:
            label, kids = node, ()
        labels.append(_check_label(label, where))
        children.append([])
        if parent is not None:
            children[parent].append(g)
        stack.extend((k, g) for k in reversed(kids))
    return Tree(labels, children)


def parse_tree(obj, where="tree"):
    """A :class:`Tree` from bracket text, nested tuples or lists, or a Tree.

    Parameters
    ----------
    obj : str, tuple, list or Tree
        ``"(S (NP a) (VP b))"`` or ``("S", ("NP", "a"), ("VP", "b"))``.
    where : str
        Named in error messages (``"X[3]"``).

    Returns
    -------
    Tree

    Raises
    ------
    ValueError, TypeError
        Unbalanced brackets, empty or malformed labels, text after the tree.

    Examples
    --------
    >>> from kernelkit.kernels.trees import parse_tree
    >>> parse_tree(("S", ("NP", "a"), ("VP", "b")))
    Tree('(S (NP a) (VP b))')
    """
    if isinstance(obj, Tree):
        return obj
    if isinstance(obj, (str, np.str_)):
        return _from_text(str(obj), where)
    if isinstance(obj, (tuple, list)):
        return _from_nested(obj, where)
    raise TypeError(f"{where} is {type(obj).__name__}; a tree is bracket text such as "
                    "'(S (NP a) (VP b))' or nested tuples ('S', ('NP', 'a'), ('VP', 'b'))")


class TreeCodec(ObjectCodec):
    """Trees: checked by :func:`parse_tree`; in model files as the code points of
    their bracket texts (``codes`` int64) and ``offsets`` (n + 1,) int64."""

    kind, noun, plural = "tree", "tree", "trees"
    parts = {"codes": ("int64", 1), "offsets": ("int64", 1)}

    def _is_canonical(self, X):
        return len(X) > 0 and all(isinstance(t, Tree) for t in X)

    def check_item(self, item, where):
        return parse_tree(item, where)

    def encode(self, objects):
        texts = [t.text for t in objects]
        codes = [np.frombuffer(s.encode("utf-32-le"), dtype="<u4") for s in texts]
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(c) for c in codes])
        flat = np.concatenate(codes).astype(np.int64) if codes else np.zeros(0, np.int64)
        return {"codes": flat, "offsets": offsets}, {}

    def decode(self, arrays, info, n):
        codes, offsets = arrays["codes"], arrays["offsets"]
        if offsets.shape != (n + 1,) or offsets[0] != 0 or offsets[-1] != codes.shape[0] \
                or (np.diff(offsets) <= 0).any():
            raise ValueError(f"offsets must rise strictly from 0 to {codes.shape[0]} in "
                             f"{n + 1} steps")
        if codes.size and (codes.min() < 0 or codes.max() > 0x10FFFF or
                           ((codes >= 0xD800) & (codes < 0xE000)).any()):
            raise ValueError("codes outside the Unicode code points")
        text = codes.astype("<u4").tobytes().decode("utf-32-le")
        return [parse_tree(text[offsets[i]:offsets[i + 1]], f"tree {i}") for i in range(n)]


register_object_kind(TreeCodec())


def _flatten(trees):
    """The node arrays of a sequence of Trees (see :mod:`kernelkit._compiled.trees`)."""
    prods, cptrs, cidxs = [], [], []
    off = np.zeros(len(trees) + 1, dtype=np.int64)
    base = 0
    for i, t in enumerate(trees):
        prod, cptr, cidx = t._arrays
        prods.append(prod)
        cptrs.append(cptr[:-1] + base)
        cidxs.append(cidx)
        base += cptr[-1]
        off[i + 1] = off[i] + len(prod)
    cptrs.append(np.array([base], dtype=np.int64))
    cat = (lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64))
    return cat(prods), cat(cptrs), cat(cidxs), off


class SubsetTree(ObjectKernel):
    """The subset-tree kernel of Collins and Duffy (2001): common tree fragments.

    A *subset tree* (fragment) of a tree is a node with all its children
    (its production, e.g. ``NP -> D N``), each child either left as a
    frontier label or expanded by a fragment of its own, down to any depth;
    words (leaves) root no fragment. k(T1, T2) = sum over fragments f of
    ``decay ** size(f) * count_f(T1) * count_f(T2)``, size = number of
    productions in f, so the kernel is an inner product (positive
    semi-definite) in the space of all fragments, computed without listing
    them by the recursion over pairs of nodes n1, n2::

        C(n1, n2) = 0                                 different productions
        C(n1, n2) = decay                             same preterminal production
        C(n1, n2) = decay * prod_j (1 + C(ch_j(n1), ch_j(n2)))   otherwise

    k(T1, T2) = sum_{n1, n2} C(n1, n2), in ``O(|T1| |T2|)`` per pair (compiled,
    parallel over rows).

    Parameters
    ----------
    decay : float, default=0.5
        lambda in (0, 1]: large fragments count ``decay ** size`` (1: the
        plain count of common fragments, dominated by the largest ones).
    normalize : bool, default=True
        k(T1, T2) / sqrt(k(T1, T1) k(T2, T2)), so k(T, T) = 1 (0 for a tree
        without productions, a lone leaf).

    Examples
    --------
    The paper's example: "(NP (D the) (N apple))" has 6 fragments, so with
    decay 1 its kernel with itself is 6:

    >>> from kernelkit.kernels import SubsetTree
    >>> float(SubsetTree(decay=1.0, normalize=False)(["(NP (D the) (N apple))"])[0, 0])
    6.0

    References
    ----------
    Collins, M. and Duffy, N. (2001). Convolution kernels for natural language.
    Advances in Neural Information Processing Systems 14, 625-632.
    """

    input_kind = "tree"
    _param_constraints = {
        "decay": [Interval(Real, 0, 1, closed="right")],
        "normalize": ["boolean"],
    }

    def __init__(self, decay=0.5, *, normalize=True):
        self.decay = decay
        self.normalize = normalize
        self._check_params()

    @staticmethod
    def _require_scratch(x_sizes, y_sizes):
        """MemoryBudgetError unless one ``|T1| x |T2|`` table per thread fits a block's share."""
        import numba

        if not len(x_sizes) or not len(y_sizes):
            return
        threads = min(numba.get_num_threads(), len(x_sizes))  # the loops' own threads
        nbytes = 8.0 * threads * max(x_sizes) * max(y_sizes)
        require(nbytes, f"the subset-tree kernel's table of node pairs (trees of up to "
                f"{max(max(x_sizes), max(y_sizes))} nodes; |T1| x |T2| floats per thread)",
                hint="split very large trees, or use fewer of them per block",
                share=BLOCK_SHARE)

    def _self_values(self, X):
        from .._compiled import subset_tree_self

        flat = _flatten(X)
        sizes = np.diff(flat[3])
        if len(sizes):  # parallel over the trees: one |T| x |T| table per thread
            self._require_scratch(sizes, sizes)
        return subset_tree_self(*flat, float(self.decay))

    def _block_into(self, X, Y, diag_offset, out):
        from .._compiled import subset_tree_block

        if len(X) == 0 or len(Y) == 0:
            return
        target = out if out.dtype == np.float64 else np.empty(out.shape)
        fx, fy = _flatten(X), _flatten(Y)
        self._require_scratch(np.diff(fx[3]), np.diff(fy[3]))
        subset_tree_block(*fx, *fy, float(self.decay), int(diag_offset), target)
        if self.normalize:
            dy = self._self_values(Y)
            dx = (dy[diag_offset:diag_offset + len(X)] if diag_offset >= 0
                  else self._self_values(X))
            normalize_block(target, dx, dy, diag_offset)
        if target is not out:
            out[...] = target

    def _diag(self, X):
        d = self._self_values(X)
        return (d > 0).astype(np.float64) if self.normalize else d
