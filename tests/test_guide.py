"""Every Python block of the user guide (docs/guide/*.md) runs, in order, page by page;
so does every ``sh`` block made only of ``kernelkit ...`` commands (run through
``kernelkit.cli.main`` in the same directory, each must exit 0). Other shell blocks
(``pip install ...``) are shown, not run."""

import os
import re
import shlex
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
BLOCK = re.compile(r"```(python|sh)\n(.*?)```", re.S)


def _commands(code):
    """The argv of each line of a shell block, or None if a line is not a kernelkit
    command (such a block is not run)."""
    lines = [shlex.split(line, comments=True) for line in code.splitlines()]
    lines = [argv for argv in lines if argv]
    return lines if lines and all(argv[0] == "kernelkit" for argv in lines) else None


def _runnable(page):
    return [(kind, code) for kind, code in BLOCK.findall(page.read_text())
            if kind == "python" or _commands(code)]


def test_the_guide_is_there():
    assert len(PAGES) >= 7, PAGES
    index = (GUIDE / "README.md").read_text()
    for page in PAGES:
        if page.name != "README.md":
            assert f"({page.name})" in index, f"{page.name} is not linked from the index"


def test_shell_blocks_are_parsed():
    assert _commands("kernelkit info m.kk   # describe\n\nkernelkit plan --n 1e6\n") == \
        [["kernelkit", "info", "m.kk"], ["kernelkit", "plan", "--n", "1e6"]]
    assert _commands("pip install .\nkernelkit demo\n") is None


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: p.name)
def test_page_code_runs(page, tmp_path, capsys):
    from kernelkit.cli import main

    namespace = {"__name__": f"guide_{page.stem}"}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for i, (kind, code) in enumerate(_runnable(page)):
            if kind == "python":
                exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
                continue
            for argv in _commands(code):
                status = main(argv[1:])
                captured = capsys.readouterr()
                assert status == 0, (f"{page.name}[block {i}]: {shlex.join(argv)} exited "
                                     f"{status}:\n{captured.err}")
    finally:
        os.chdir(cwd)
