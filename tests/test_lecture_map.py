"""The lecture map (docs/lecture-map.md) says the truth about every row.

Each row names an item of the lecture notes, the kernelkit function or class that
implements it, the test file that checks it and the gallery page that shows it.
For every row: the function imports; the test file exists and names the function
(a gallery test instead loads the row's example); the gallery file exists and
uses the function (a row may still lack a gallery page: ``—``). The test prints
the audit's three counts (implemented, tested, demonstrated).
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAP = ROOT / "docs" / "lecture-map.md"
HEADER = ["item", "kind", "function", "test", "gallery"]
KINDS = {"concept", "algorithm", "formula", "worked example", "exercise"}
NONE = {"—", "-", ""}


def _cells(line):
    """The cells of a table line; ``\\|`` is a bar inside a cell (|x|, ||w||)."""
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def parse_map(text):
    """Rows of every table whose header is HEADER: dicts with the item, its kind, the
    function's dotted name, the test file and the gallery file (None where absent)."""
    rows, in_table = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if [c.lower() for c in cells] == HEADER:
            in_table = True
            continue
        if not in_table or set(line.replace("|", "").strip()) <= set("-: "):
            continue
        assert len(cells) == len(HEADER), f"line {number}: {len(cells)} cells: {line}"
        item, kind, function, test, gallery = cells
        name = re.fullmatch(r"(?:\{py:\w+\})?`(?:[\w.]+ <)?~?([\w.]+)>?`", function)
        test_path = re.fullmatch(r"`(tests/[\w/]+\.py)`", test)
        page = re.fullmatch(r"\{doc\}`[^<`]*<auto_examples/(\w+)>`", gallery)
        assert name or function in NONE, f"line {number}: function {function!r}"
        assert test_path or test in NONE, f"line {number}: test {test!r}"
        assert page or gallery in NONE, f"line {number}: gallery {gallery!r}"
        rows.append(dict(line=number, item=item, kind=kind,
                         function=name.group(1) if name else None,
                         test=test_path.group(1) if test_path else None,
                         gallery=f"examples/{page.group(1)}.py" if page else None))
    return rows


ROWS = parse_map(MAP.read_text())


def _import(dotted):
    """The object named by a dotted path: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_the_parser_reads_a_row():
    text = ("| item | kind | function | test | gallery |\n|---|---|---|---|---|\n"
            "| Circle | worked example | {py:obj}`kernels.Polynomial <kernelkit.kernels.Polynomial>` | "
            "`tests/kernels/test_vector.py` | {doc}`circle <auto_examples/circle>` |\n"
            "| Later \\|x\\| | concept | — | — | — |\n\nprose | with a bar\n")
    first, second = parse_map(text)
    assert first["function"] == "kernelkit.kernels.Polynomial"
    assert first["test"] == "tests/kernels/test_vector.py"
    assert first["gallery"] == "examples/circle.py"
    assert second["function"] is second["test"] is second["gallery"] is None
    assert second["item"] == "Later |x|"


def test_the_map_is_substantial_and_counts_the_audit(capsys):
    assert len(ROWS) >= 60
    implemented = sum(r["function"] is not None for r in ROWS)
    tested = sum(r["function"] is not None and r["test"] is not None for r in ROWS)
    shown = sum(r["function"] is not None and r["gallery"] is not None for r in ROWS)
    with capsys.disabled():
        print(f"\nlecture map: {len(ROWS)} items, {implemented} implemented, "
              f"{tested} tested, {shown} demonstrated in the gallery")
    assert tested <= implemented and shown <= implemented


def test_items_are_unique_and_of_a_known_kind():
    items = [r["item"] for r in ROWS]
    assert len(items) == len(set(items)), [i for i in items if items.count(i) > 1]
    for row in ROWS:
        assert row["kind"] in KINDS, f"line {row['line']}: kind {row['kind']!r}"


@pytest.mark.parametrize("row", [r for r in ROWS if r["function"]],
                         ids=lambda r: r["function"])
def test_row_function_imports_and_is_tested(row):
    obj = _import(row["function"])
    assert obj is not None
    short = row["function"].rsplit(".", 1)[-1]
    if row["test"] is not None:
        path = ROOT / row["test"]
        assert path.is_file(), f"line {row['line']}: {row['test']} does not exist"
        text = path.read_text()
        if row["test"].startswith("tests/gallery/"):
            # a gallery test checks the example's numbers; the example uses the function
            topic = Path(row["gallery"] or "-").stem
            assert f'load_example("{topic}")' in text, \
                f"line {row['line']}: {row['test']} does not load the row's example {topic!r}"
        else:
            assert re.search(rf"\b{re.escape(short)}\b", text), \
                f"line {row['line']}: {row['test']} never mentions {short}"
    if row["gallery"] is not None:
        page = ROOT / row["gallery"]
        assert page.is_file(), f"line {row['line']}: {row['gallery']} does not exist"
        assert re.search(rf"\b{re.escape(short)}\b", page.read_text()), \
            f"line {row['line']}: {row['gallery']} never uses {short}"


def test_a_row_without_function_has_neither_test_nor_page():
    for row in ROWS:
        if row["function"] is None:
            assert row["test"] is None and row["gallery"] is None, f"line {row['line']}"
