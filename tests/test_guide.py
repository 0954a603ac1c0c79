"""Every Python block of the user guide (docs/guide/*.md) runs, in order, page by page."""

import os
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_the_guide_is_there():
    assert len(PAGES) >= 6, PAGES
    index = (GUIDE / "README.md").read_text()
    for page in PAGES:
        if page.name != "README.md":
            assert f"({page.name})" in index, f"{page.name} is not linked from the index"


@pytest.mark.parametrize("page", [p for p in PAGES if BLOCK.search(p.read_text())],
                         ids=lambda p: p.name)
def test_page_code_runs(page, tmp_path, capsys):
    namespace = {"__name__": f"guide_{page.stem}"}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for i, code in enumerate(BLOCK.findall(page.read_text())):
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
    finally:
        os.chdir(cwd)
