"""Every example follows the gallery convention (issue 21): an rST title underlined by '=',
a 'Lecture:' line, a 'Run:' line; and the gallery examples (those with a test here) have
run(quick=False) -> dict, plot(results) and main(argv=None)."""

import ast
from pathlib import Path

import pytest

from gallery._load import EXAMPLES

FILES = sorted(EXAMPLES.glob("*.py"))
GALLERY = sorted(p.stem for p in FILES
                 if (Path(__file__).parent / f"test_{p.stem}.py").exists())


def _docstring(path):
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=True) or ""


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_header(path):
    assert path.stem == path.stem.lower() and not path.stem.startswith("plot_")
    lines = _docstring(path).splitlines()
    assert len(lines) > 3, f"{path.name}: no module docstring"
    title, underline = lines[0], lines[1]
    assert title.strip() and set(underline) == {"="} and len(underline) >= len(title), (
        f"{path.name}: the docstring must start with a title underlined by '='")
    assert lines[2] == "" and lines[3].startswith("Lecture: ") and " -- " in " ".join(
        lines[3:6]), f"{path.name}: the line after the title is 'Lecture: <topic> -- <item>'"
    run_lines = [ln for ln in lines if ln.startswith("Run: ``python examples/")]
    assert run_lines and f"examples/{path.name}" in run_lines[-1], (
        f"{path.name}: a 'Run: ``python examples/{path.name}``' line")


@pytest.mark.parametrize("topic", GALLERY)
def test_run_plot_main(topic):
    """Read from the source (no import: the example's own test runs it)."""
    source = (EXAMPLES / f"{topic}.py").read_text(encoding="utf-8")
    functions = {node.name: node for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef)}
    for name in ("run", "plot", "main"):
        assert name in functions, f"{topic}.py: no top-level {name}()"

    def params(name):
        a = functions[name].args
        return [p.arg for p in a.args], [ast.literal_eval(d) for d in a.defaults]

    assert params("run") == (["quick"], [False])
    assert params("plot")[0] == ["results"]
    assert params("main") == (["argv"], [None])
    assert 'if __name__ == "__main__":' in source
