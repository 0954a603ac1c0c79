"""The API reference's generation rule: one page per public module, built from its ``__all__``.

``conf.py`` calls :func:`write_api_pages` at every build, so a name added to a
module's ``__all__`` gets its page without editing the docs. Each public object is
documented once, under its *canonical* module: the first module of :data:`MODULES`
whose ``__all__`` holds it (subpackages before the top-level ``kernelkit``, which
re-exports them). The other modules list it in a table that links to that page.
``tests/test_docs_site.py`` checks the rule reaches every name, without Sphinx.
"""

import importlib
import inspect
from pathlib import Path

#: The documented modules, in the order a name's canonical home is chosen.
MODULES = (
    "kernelkit.models",
    "kernelkit.features",
    "kernelkit.kernels",
    "kernelkit.diagnostics",
    "kernelkit.tuning",
    "kernelkit.dask",
    "kernelkit.persistence",
    "kernelkit.datasets",
    "kernelkit.plotting",
    "kernelkit.testing",
    "kernelkit.config",
    "kernelkit",
)

#: The order of the pages in the API index (the top-level package first).
PAGE_ORDER = ("kernelkit",) + MODULES[:-1]

STUB_DIR = "generated"


def _shared(obj):
    """Classes and functions are the same object wherever re-exported; data are not."""
    return inspect.isclass(obj) or inspect.isroutine(obj)


def api_entries(modules=MODULES):
    """Map each module to its entries ``(name, canonical_full_name, is_home)``.

    Parameters
    ----------
    modules : sequence of str, default=MODULES
        Importable module names, in the order a shared object's home is chosen.

    Returns
    -------
    entries : dict of str to list of tuple
        For each module, one entry per name of its ``__all__``, in that order:
        the name, the full name under which the object is documented, and
        whether this module's page documents it (``False``: it links there).

    Raises
    ------
    AttributeError
        If a module has no ``__all__`` or ``__all__`` names a missing attribute.
    """
    home = {}
    entries = {}
    for modname in modules:
        module = importlib.import_module(modname)
        rows = []
        for name in module.__all__:
            obj = getattr(module, name)
            key = id(obj) if _shared(obj) else (modname, name)
            is_home = key not in home
            if is_home:
                home[key] = f"{modname}.{name}"
            rows.append((name, home[key], is_home))
        entries[modname] = rows
    return entries


def _page(modname, rows):
    title = f"``{modname}``"
    lines = [f".. _api-{modname}:", "", title, "=" * len(title), "",
             f".. automodule:: {modname}", "   :no-members:", "",
             f".. currentmodule:: {modname}", ""]
    documented = [name for name, _, is_home in rows if is_home]
    linked = [full for _, full, is_home in rows if not is_home]
    if documented:
        lines += [".. autosummary::", f"   :toctree: {STUB_DIR}/", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in documented] + [""]
    if linked:
        # no current module here: autosummary refuses full names under the current one
        lines += ["Also available here (documented in their own module):", "",
                  ".. currentmodule:: None", "",
                  ".. autosummary::", "   :nosignatures:", ""]
        lines += [f"   ~{full}" for full in linked] + [""]
    return "\n".join(lines)


def _write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_api_pages(outdir, modules=MODULES):
    """Write ``index.rst`` and one page per module into ``outdir`` (rewritten files only
    when their text changes), and remove stubs of names no longer public.

    Parameters
    ----------
    outdir : path-like
        The folder of the generated API pages (inside the Sphinx source folder).
    modules : sequence of str, default=MODULES
        The documented modules.

    Returns
    -------
    entries : dict of str to list of tuple
        What :func:`api_entries` returned.
    """
    outdir = Path(outdir)
    (outdir / STUB_DIR).mkdir(parents=True, exist_ok=True)
    entries = api_entries(modules)
    order = [m for m in PAGE_ORDER if m in entries] + [m for m in entries if m not in PAGE_ORDER]
    index = ["API reference", "=============", "",
             "One page per public module, generated from its ``__all__``: every public",
             "class and function, with the docstring's parameters, shapes and references.",
             "Methods the estimators inherit from scikit-learn (``get_params``,",
             "``set_params``, ``score``, ``set_output``, metadata routing) are documented",
             "by scikit-learn.",
             "", ".. toctree::", "   :maxdepth: 1", ""]
    index += [f"   {modname}" for modname in order] + [""]
    _write_if_changed(outdir / "index.rst", "\n".join(index))
    for modname in order:
        _write_if_changed(outdir / f"{modname}.rst", _page(modname, entries[modname]))
    wanted = {f"{full}.rst" for rows in entries.values() for _, full, home in rows if home}
    for stub in (outdir / STUB_DIR).glob("*.rst"):
        if stub.name not in wanted:
            stub.unlink()
    for page in outdir.glob("*.rst"):
        if page.stem != "index" and page.stem not in entries:
            page.unlink()
    return entries
