"""No circle of imports between the modules of kernelkit, inside a room or across rooms.

``tests/test_architecture_map.py`` holds the rooms to one direction; this test
holds the modules inside them to one too (issue 22: "no circle"). The imports
of every module are read with :mod:`ast`, at module level and inside functions
alike (a lazy import hides a circle from Python's import machinery, not from a
reader), and resolved to module files: ``from .base import Kernel`` is an arrow
to ``kernels/base.py``, ``from . import spectral`` one to ``kernels/spectral.py``,
``from ..kernels import RBF`` one to ``kernels/__init__.py``. The circles are the
strongly connected components of that graph with more than one module (scipy's
``connected_components(connection="strong")``; ``tests/test_architecture_map.py``
uses the same function for rooms). Nothing of kernelkit is imported or run.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

SRC = Path(__file__).resolve().parents[1] / "src" / "kernelkit"


def _module_of(path):
    parts = ["kernelkit", *path.relative_to(SRC).with_suffix("").parts]
    return tuple(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module_of(path): path for path in sorted(SRC.rglob("*.py"))}


def _arrows(path, own, modules):
    """The kernelkit modules that ``path`` (module ``own``) imports, anywhere in it."""
    package = own if path.name == "__init__.py" else own[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(tuple(alias.name.split(".")) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                parts = base + (tuple(node.module.split(".")) if node.module else ())
            else:
                parts = tuple(node.module.split("."))
            for alias in node.names:
                sub = parts + (alias.name,)
                out.add(sub if sub in modules else parts)
    return {m for m in out if m in modules and m != own}


def strongly_connected(graph):
    """The strongly connected components of more than one node of ``graph``
    ({node: iterable of nodes it points to}), each a sorted list, by scipy's
    ``connected_components(connection="strong")``."""
    nodes = sorted(set(graph) | {w for targets in graph.values() for w in targets})
    at = {v: i for i, v in enumerate(nodes)}
    edges = [(at[v], at[w]) for v, targets in graph.items() for w in targets]
    rows, cols = (np.array(side, dtype=np.int64) for side in zip(*edges)) if edges else (
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    arrows = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(nodes), len(nodes)))
    _, labels = connected_components(arrows, directed=True, connection="strong")
    groups = {}
    for v, label in zip(nodes, labels):
        groups.setdefault(label, []).append(v)
    return sorted(g for g in groups.values() if len(g) > 1)


def _circles(graph):
    """The circles of modules, each as sorted dotted names."""
    return [sorted(".".join(m) if isinstance(m, tuple) else m for m in g)
            for g in strongly_connected(graph)]


@functools.lru_cache(maxsize=1)
def _graph():
    modules = _modules()
    return {m: _arrows(path, m, modules) for m, path in modules.items()}


def test_the_circle_finder_finds_a_circle_and_only_circles():
    # a -> b -> c -> a is one circle; d -> a and the chain e -> f are none
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": set()}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"x": {"y"}, "y": set()}) == []


def test_imports_are_read_to_module_files():
    graph = _graph()
    kernels = ("kernelkit", "kernels")
    assert kernels + ("base",) in graph[kernels + ("algebra",)]  # from .base import Kernel
    assert kernels + ("spectral",) in graph[kernels + ("algebra",)]  # from . import spectral
    assert kernels + ("algebra",) in graph[kernels]  # the package's __init__
    # an import inside a function counts: kernels/base.py's tiled Gram engine
    assert kernels + ("tiled",) in graph[kernels + ("base",)]


def test_no_circle_between_modules():
    circles = _circles(_graph())
    assert circles == [], "modules that import each other (lazily or not): " + "; ".join(
        " <-> ".join(c) for c in circles)
