"""The documentation site keeps building (docs/conf.py, docs/README.md's command).

Without Sphinx: the API pages' generation rule (docs/_ext/apipages.py) reaches every
public name of every documented module's ``__all__``, every guide page is in a
toctree, every ``examples/*.py`` opens with the gallery convention's title and
``Lecture:`` line. With Sphinx: the real ``sphinx-build -W`` (every warning an
error), the gallery rendered but not run (``plot_gallery=0``; the examples' quick
modes are run by tests/gallery/), about 25 s on two quiet cores.
"""

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(DOCS / "_ext"))

import apipages  # noqa: E402  (docs/_ext, put on the path above)
import gallery_argv  # noqa: E402
import guidepages  # noqa: E402

GALLERY = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def _toctree_entries(rst):
    """Document names listed in the ``.. toctree::`` directives of a reST text."""
    entries = []
    for block in re.findall(r"^\.\. toctree::\n((?:[ \t]+.*\n|\n)*)", rst, re.M):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.append(line)
    return entries


# --- the API reference -------------------------------------------------------------

def test_the_documented_modules_are_the_public_ones():
    assert apipages.MODULES[-1] == "kernelkit"
    assert set(apipages.PAGE_ORDER) == set(apipages.MODULES)
    for sub in ("models", "features", "kernels", "diagnostics", "tuning", "dask",
                "persistence", "datasets", "plotting", "testing", "config"):
        assert f"kernelkit.{sub}" in apipages.MODULES


def test_every_public_name_has_one_page():
    entries = apipages.api_entries()
    homes = {}
    for modname in apipages.MODULES:
        module = importlib.import_module(modname)
        rows = entries[modname]
        assert [name for name, _, _ in rows] == list(module.__all__), modname
        for name, full, is_home in rows:
            # the page's name imports to the very object the module exports
            home_module, _, attr = full.rpartition(".")
            obj = getattr(importlib.import_module(home_module), attr)
            assert obj is getattr(module, name), (modname, name, full)
            if is_home:
                assert full == f"{modname}.{name}"
                assert full not in homes, f"{full} documented twice"
                homes[full] = modname
    linked = {full for rows in entries.values() for _, full, home in rows if not home}
    assert linked <= set(homes), linked - set(homes)
    # re-exports are documented in their subpackage, not again at the top level
    assert entries["kernelkit"][[n for n, _, _ in entries["kernelkit"]].index("KernelRidge")] \
        == ("KernelRidge", "kernelkit.models.KernelRidge", False)


def test_a_new_name_in_all_gets_a_page(tmp_path, monkeypatch):
    """The rule reads __all__ at build time: a name added there is documented without
    editing the docs, and a name removed loses its stub."""
    import kernelkit.testing as testing_module

    def shiny_new_helper():
        """A helper added after the docs were written."""

    monkeypatch.setattr(testing_module, "shiny_new_helper", shiny_new_helper, raising=False)
    monkeypatch.setattr(testing_module, "__all__", [*testing_module.__all__, "shiny_new_helper"])
    out = tmp_path / "api"
    (out / apipages.STUB_DIR).mkdir(parents=True)
    stale = out / apipages.STUB_DIR / "kernelkit.testing.gone_helper.rst"
    stale.write_text("old")
    apipages.write_api_pages(out, ["kernelkit.testing"])
    page = (out / "kernelkit.testing.rst").read_text()
    assert ":toctree: generated/" in page
    assert re.search(r"^   shiny_new_helper$", page, re.M)
    assert re.search(r"^   check_kernel$", page, re.M)
    assert "kernelkit.testing" in _toctree_entries((out / "index.rst").read_text())
    assert not stale.exists()


def test_the_api_pages_list_every_name(tmp_path):
    entries = apipages.write_api_pages(tmp_path)
    for modname, rows in entries.items():
        page = (tmp_path / f"{modname}.rst").read_text()
        for name, full, is_home in rows:
            line = f"   {name}" if is_home else f"   ~{full}"
            assert re.search(rf"^{re.escape(line)}$", page, re.M), (modname, name)
    assert set(_toctree_entries((tmp_path / "index.rst").read_text())) == set(entries)


# --- the guide and the other pages ---------------------------------------------------

def test_every_guide_page_is_in_the_toctree():
    pages = guidepages.guide_pages(DOCS / "guide")
    on_disk = {f"guide/{p.stem}" for p in (DOCS / "guide").glob("*.md")}
    assert set(pages) == on_disk and len(pages) == len(on_disk)
    assert pages[0] == "guide/README"
    # the reading order of the guide's index: install before kernels
    assert pages.index("guide/install") < pages.index("guide/kernels")
    index = (DOCS / "index.rst").read_text()
    assert ".. include:: _generated/guide_toc.rst" in index


def test_guide_toc_file(tmp_path):
    path = tmp_path / "toc.rst"
    pages = guidepages.write_guide_toc(DOCS / "guide", path)
    assert _toctree_entries(path.read_text()) == pages


def test_every_page_of_docs_is_in_a_toctree():
    entries = set(_toctree_entries((DOCS / "index.rst").read_text()))
    for page in DOCS.glob("*.md"):
        if page.name != "README.md":  # docs/README.md says how to build; not a page
            assert page.stem in entries, f"docs/{page.name} is in no toctree of index.rst"
    assert {"auto_examples/index", "api/index", "lecture-map"} <= entries


# --- the gallery ---------------------------------------------------------------------

def test_the_gallery_has_a_header_and_examples():
    header = (EXAMPLES / "README.txt").read_text().splitlines()
    assert header[1] == "=" * len(header[0])
    assert len(GALLERY) >= 5


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.name)
def test_example_follows_the_gallery_convention(path):
    """Title underlined by '=', then 'Lecture: <lecture> -- <slide>', a 'Run:' line
    with the script's command; run/plot/main functions and the __main__ guard."""
    tree = ast.parse(path.read_text())
    doc = ast.get_docstring(tree, clean=True)
    assert doc, f"{path.name} has no module docstring"
    lines = doc.splitlines()
    title = lines[0].strip()
    assert title and len(lines) > 1 and re.fullmatch(r"=+", lines[1].strip()) \
        and len(lines[1].strip()) >= len(title), \
        f"{path.name}: the docstring must start with a title underlined by '=' signs"
    rest = "\n".join(lines[2:]).strip()
    lecture = rest.split("\n\n")[0].replace("\n", " ")  # its paragraph, on one line
    assert lecture.startswith("Lecture: ") and " -- " in lecture, \
        f"{path.name}: the paragraph after the title must be 'Lecture: <lecture> -- <slide>'"
    assert re.search(rf"Run: ``python examples/{re.escape(path.name)}( [^`]*)?``", doc), \
        f"{path.name}: the docstring must say 'Run: ``python examples/{path.name}``'"
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for name in ("run", "plot", "main"):
        assert name in functions, f"{path.name} has no {name}()"
    assert [a.arg for a in functions["main"].args.args] == ["argv"], \
        f"{path.name}: main(argv=None) parses --quick and --out"
    assert "--quick" in path.read_text() and "--out" in path.read_text()
    guard = tree.body[-1]
    assert isinstance(guard, ast.If) and "__main__" in ast.unparse(guard.test), \
        f"{path.name} must end with: if __name__ == '__main__': main()"


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.name)
def test_example_runs_the_way_sphinx_gallery_runs_it(path, capsys):
    """sphinx-gallery runs an example's code without its docstring (``__doc__`` is
    "") and without ``__file__``: main must build its parser all the same (checked
    with ``--help``, which stops before any computation)."""
    tree = ast.parse(path.read_text())
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert "__file__" not in names, f"{path.name} uses __file__ (undefined in the gallery)"
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    code = compile(ast.Module(body=body, type_ignores=[]), str(path), "exec")
    namespace = {"__name__": f"gallery_check_{path.stem}", "__doc__": ""}
    exec(code, namespace)
    with pytest.raises(SystemExit) as stop:
        namespace["main"](["--help"])
    assert stop.value.code in (0, None), f"{path.name}: main(['--help']) failed"
    assert "--quick" in capsys.readouterr().out


def test_gallery_runs_quick_and_shows_the_saved_figure(tmp_path):
    """The site runs an example as ``--quick --out <scratch>/<topic>.png`` and puts
    the PNG it saved on the page (the examples draw without pyplot)."""
    src = str(EXAMPLES / "circle.py")
    argv = gallery_argv.quick_argv({}, {"src_file": src})
    assert argv[:2] == ["--quick", "--out"] and argv[2].endswith("circle.png")
    out = Path(argv[2])
    assert not out.exists()  # a stale picture is removed before the run
    images = tmp_path / "images"
    images.mkdir()
    block_vars = {"src_file": src, "image_path_iterator": [images / "sphx_glr_circle_001.png"]}
    assert gallery_argv.saved_figure(None, block_vars, {"src_dir": str(tmp_path)}) == ""
    out.write_bytes(b"\x89PNG picture")
    rst = gallery_argv.saved_figure(None, block_vars, {"src_dir": str(tmp_path)})
    assert "sphx_glr_circle_001.png" in rst and ".. image" in rst
    assert (images / "sphx_glr_circle_001.png").read_bytes() == b"\x89PNG picture"
    assert not out.exists()


# --- the real build ------------------------------------------------------------------

def test_the_site_builds_without_warnings(tmp_path):
    """``sphinx-build -W --keep-going`` (docs/README.md's command) with the gallery
    rendered but not executed. A failure prints Sphinx's warnings."""
    # a copy of docs/ next to a link to examples/: the build writes its generated
    # pages (api/, auto_examples/) into the copy, never into the working tree
    generated = ("_build", "_generated", "api", "auto_examples", "sg_execution_times.rst")
    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns(*generated))
    (tmp_path / "examples").symlink_to(EXAMPLES, target_is_directory=True)
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-D", "plot_gallery=0", "-d", str(tmp_path / "doctrees"), str(tmp_path / "docs"),
         str(tmp_path / "html")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    warnings = "\n".join(line for line in proc.stderr.splitlines()
                         if "WARNING" in line or "ERROR" in line) or proc.stderr[-3000:]
    hint = ("" if "Undefined substitution" not in warnings and "Unknown target name" not in
            warnings else "\n(reST reads |x| as a substitution and name_ as a link: write "
            "them inside double backticks, ``|x|``, ``n_components_``)")
    assert proc.returncode == 0, f"sphinx-build failed:\n{warnings}{hint}"
    html = tmp_path / "html"
    for page in ("index.html", "api/index.html", "api/kernelkit.models.html",
                 "api/generated/kernelkit.models.KernelRidge.html",
                 "auto_examples/index.html", "guide/install.html", "lecture-map.html"):
        assert (html / page).is_file(), page
    for path in GALLERY:
        assert (html / "auto_examples" / f"{path.stem}.html").is_file(), path.name
    ridge = (html / "api/generated/kernelkit.models.KernelRidge.html").read_text()
    assert "Parameters" in ridge and "alpha" in ridge
