"""The map kept true: ``docs/architecture.md``'s rooms table against the real imports.

A *room* is a top-level module (``config.py``) or subpackage (``kernels/``) of
``src/kernelkit``; the package root (``__init__.py``, ``__main__.py``) is above
every room. The imports of every module are read with :mod:`ast` -- at module
level and inside functions -- and resolved to rooms (``from kernelkit import
gram`` is the room ``gram``; a name the root itself defines is the root). The
test then holds the page to the code, both ways:

- every room has a row, and every room a row names exists;
- a room imports only the rooms its "imports" cell lists, and every listed room
  is imported somewhere in it (a stale entry fails as well as a missing one);
- no room imports the package root (that would be an arrow back up);
- no circle between rooms, and no private name (``_x``, an object or a module
  below a room) taken across rooms, except those the page lists under
  "Accepted exceptions".

Nothing of kernelkit is imported or run: the page and the sources are read as text.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest
from test_module_circles import strongly_connected

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kernelkit"
MAP = ROOT / "docs" / "architecture.md"
PACKAGE_ROOT = "kernelkit"  # the room name given to __init__.py and __main__.py


# ------------------------------------------------------------------ the code

def _rooms_on_disk():
    rooms = set()
    for path in SRC.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            rooms.add(path.name)
        elif path.suffix == ".py" and path.name not in ("__init__.py", "__main__.py"):
            rooms.add(path.stem)
    return rooms


def _room_of_file(path):
    rel = path.relative_to(SRC)
    if len(rel.parts) == 1:
        return PACKAGE_ROOT if rel.name in ("__init__.py", "__main__.py") else rel.stem
    return rel.parts[0]


def _module_parts(path):
    parts = ["kernelkit", *path.relative_to(SRC).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported(path):
    """(module parts, imported name or None, line) of every kernelkit import in ``path``."""
    own = _module_parts(path)
    package = own if path.name == "__init__.py" else own[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name.split("."), None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                parts = base + (node.module.split(".") if node.module else [])
            else:
                parts = node.module.split(".")
            for alias in node.names:
                if parts == ["kernelkit"] and alias.name in _rooms_on_disk():
                    # ``from kernelkit import gram``: the module, not a name of the root
                    found.append((parts + [alias.name], None, node.lineno))
                else:
                    found.append((parts, alias.name, node.lineno))
    return [(parts, name, line) for parts, name, line in found if parts[0] == "kernelkit"]


def _room_of_module(parts):
    if len(parts) == 1 or parts[1] not in _rooms_on_disk():
        return PACKAGE_ROOT
    return parts[1]


def _is_private(name):
    return name.startswith("_") and not name.startswith("__")


def _import_graph():
    """room -> {imported room: [where]}, and the private names taken across rooms."""
    graph = defaultdict(lambda: defaultdict(list))
    private = []
    for path in sorted(SRC.rglob("*.py")):
        room = _room_of_file(path)
        for parts, name, line in _imported(path):
            target = _room_of_module(parts)
            if target == room:
                continue
            where = f"{path.relative_to(SRC)}:{line}"
            graph[room][target].append(where)
            below_room = parts[2:]  # modules inside the target room
            names = [p for p in below_room if p != "__init__"] + ([name] if name else [])
            for n in names:
                if _is_private(n) and n != target:
                    private.append((room, target, n, where))
    return graph, private


# ------------------------------------------------------------------ the page

def _map_text():
    return MAP.read_text(encoding="utf-8")


def _section(text, heading):
    start = text.index(heading)
    rest = text[start + len(heading):]
    end = re.search(r"^#{1,3} ", rest, flags=re.M)
    return rest if end is None else rest[:end.start()]


def _cells(line):
    # split a Markdown table row on | not escaped as \|
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _room_token(token):
    return token[:-3] if token.endswith(".py") else token.rstrip("/")


def _rooms_table():
    """{room: set of rooms its imports cell lists}, in the page's order."""
    section = _section(_map_text(), "## Rooms (src/kernelkit/)")
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = _cells(rows[0])
    assert header[0] == "room" and header[-1] == "imports", header
    table = {}
    for line in rows[2:]:
        cells = _cells(line)
        rooms = [_room_token(t) for t in re.findall(r"`([^`]+)`", cells[0])
                 if t.endswith(".py") or t.endswith("/")]
        assert rooms, f"a row of the rooms table names no room: {cells[0]!r}"
        listed = re.sub(r"\([^)]*\)", "", cells[-1])  # notes like (`Choice`) name no room
        imports = {_room_token(t) for t in re.findall(r"`([^`]+)`", listed)}
        for room in rooms:
            assert room not in table, f"the room {room} has two rows"
            table[room] = (imports, tuple(rooms))
    return table


def _accepted():
    """The circles (frozensets of rooms) and private names the page accepts."""
    section = _section(_map_text(), "### Accepted exceptions")
    circles, private = set(), set()
    for line in section.splitlines():
        names = re.findall(r"`([^`]+)`", line)
        if line.startswith("- circle:"):
            circles.add(frozenset(_room_token(n) for n in names))
        elif line.startswith("- private:"):
            room, name, target = names[:3]
            private.add((_room_token(room), _room_token(target), name))
    return circles, private


# ------------------------------------------------------------------ the tests

def test_every_room_has_a_row_and_every_row_a_room():
    table = _rooms_table()
    on_disk = _rooms_on_disk()
    assert not on_disk - set(table), (
        f"rooms without a row in docs/architecture.md: {sorted(on_disk - set(table))}")
    assert not set(table) - on_disk, (
        f"rows of docs/architecture.md for rooms that do not exist: {sorted(set(table) - on_disk)}")


def test_imports_cells_name_rooms():
    table = _rooms_table()
    for room, (imports, _) in table.items():
        unknown = imports - set(table)
        assert not unknown, f"the imports cell of {room} names no room: {sorted(unknown)}"


def test_each_room_imports_what_its_row_lists():
    table = _rooms_table()
    graph, _ = _import_graph()
    problems = []
    rows = defaultdict(set)  # one row may hold several rooms: its cell is their union
    for room, (_, row) in table.items():
        rows[row].add(room)
    for row, rooms in rows.items():
        listed = table[next(iter(rooms))][0]
        imported = {t: w for room in rooms for t, w in graph.get(room, {}).items()
                    if t != PACKAGE_ROOT and t not in rooms}
        for target in sorted(set(imported) - listed):
            problems.append(f"{'/'.join(sorted(rooms))} imports {target} "
                            f"({', '.join(imported[target][:3])}) but its row does not list it")
        for target in sorted(listed - set(imported)):
            problems.append(f"the row of {'/'.join(sorted(rooms))} lists {target}, "
                            "which it no longer imports")
    assert not problems, "docs/architecture.md's imports column is wrong:\n" + "\n".join(problems)


def test_no_room_imports_the_package_root():
    graph, _ = _import_graph()
    up = {room: targets[PACKAGE_ROOT] for room, targets in graph.items()
          if PACKAGE_ROOT in targets and room != PACKAGE_ROOT}
    assert not up, (f"arrows back up to kernelkit/__init__.py: {up}; import the name from the "
                    "module that defines it (e.g. kernelkit._version)")


def _circles(graph):
    """The strongly connected components of more than one room."""
    return [frozenset(c) for c in strongly_connected(graph)]


def test_no_circle_between_rooms_except_accepted():
    graph, _ = _import_graph()
    accepted, _ = _accepted()
    circles = [c for c in _circles(graph) if c not in accepted]
    assert not circles, "circles between rooms: " + "; ".join(
        " <-> ".join(sorted(c)) + " (" + ", ".join(
            f"{a}->{b} at {graph[a][b][0]}" for a in sorted(c) for b in sorted(c)
            if b in graph.get(a, {})) + ")" for c in circles)


def test_accepted_circles_still_exist():
    graph, _ = _import_graph()
    accepted, _ = _accepted()
    stale = accepted - set(_circles(graph))
    assert not stale, f"accepted circles that are gone (remove them from the page): {stale}"


def test_no_private_name_crosses_rooms_except_accepted():
    _, private = _import_graph()
    _, accepted = _accepted()
    crossing = [p for p in private if p[:3] not in accepted]
    assert not crossing, "private names imported across rooms: " + "; ".join(
        f"{room} takes {name} from {target} ({where})" for room, target, name, where in crossing)
    stale = accepted - {p[:3] for p in private}
    assert not stale, f"accepted private names no longer imported (remove them): {stale}"


def test_the_reader_sees_imports_inside_functions():
    # the graph must see a function-level relative import and a module-level absolute one
    graph, _ = _import_graph()
    assert "planning" in graph["cli"]  # cli/commands.py imports planning inside cmd_plan
    assert "config" in graph["_budget"]  # _budget.py: module level


@pytest.mark.parametrize("line, expected", [
    ("| `a.py` | x | y \\| z |", ["`a.py`", "x", "y \\| z"]),
])
def test_cells_keep_escaped_bars(line, expected):
    assert _cells(line) == expected


def test_every_long_module_says_why():
    """No module over 500 lines without the reason in its docstring."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "src" / "kernelkit"
    silent = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        if text.count("\n") <= 500:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if "Why this module is long" not in doc:
            silent.append(f"{path.relative_to(root)} ({text.count(chr(10))} lines)")
    assert not silent, f"over 500 lines without a 'Why this module is long' note: {silent}"
