"""Sphinx configuration of kernelkit's documentation site.

Build (from the repository's root, see docs/guide/install.md)::

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Three parts: the API reference, generated at every build from each public module's
``__all__`` (``_ext/apipages.py``) with numpydoc; the user guide, Markdown read by
myst-parser; the gallery of ``examples/*.py``, run in quick mode by sphinx-gallery
(``-D plot_gallery=0`` renders the pages without running the examples).
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import apipages  # noqa: E402  (after the path above)
import guidepages  # noqa: E402

import kernelkit  # noqa: E402

project = "kernelkit"
author = "kernelkit developers"
copyright = "kernelkit developers"
release = kernelkit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_ext", "_templates", "_generated", "README.md", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.json"]
html_theme = "alabaster"
html_title = f"kernelkit {release}"
# wide enough for the lecture map's five columns and the API signatures
html_theme_options = {"page_width": "1240px", "body_max_width": "none"}
html_static_path = []

# -- API reference: the pages are written here, from __all__, before Sphinx reads.
apipages.write_api_pages(DOCS / "api")
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"          # the numpydoc sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

# -- User guide (Markdown), in the order of guide/README.md's links.
guidepages.write_guide_toc(DOCS / "guide", DOCS / "_generated" / "guide_toc.rst")

# -- User guide (Markdown): "page.md#a-heading" links resolve to the heading.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# -- Gallery: every examples/*.py except files starting with "_", run with
#    "--quick --out <scratch>" (the convention's main(argv) reads both); the page
#    shows the PNG the example saved there.
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"^_",
    "reset_argv": "gallery_argv.quick_argv",
    # the figure each example saved to --out (they draw on Figure objects, not pyplot)
    "image_scrapers": ("gallery_argv.saved_figure",),
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "abort_on_example_error": False,
}
os.environ.setdefault("MPLBACKEND", "Agg")


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """Methods an estimator inherits from scikit-learn (get_params, score, set_output,
    the metadata-routing setters) are scikit-learn's to document: their docstrings
    point into scikit-learn's own site (glossary terms, labels) that is not this one."""
    if getattr(obj, "__module__", None) and obj.__module__.startswith("sklearn."):
        return True
    return None


def _numpydoc_with_one_template():
    """numpydoc's ``get_doc_object`` compiles its Jinja template anew for each of the
    ~3,000 docstrings and signatures (a fifth of the build); this one compiles it
    once per builder and hands it over as numpydoc's ``config["template"]``."""
    import numpydoc.numpydoc
    from jinja2 import FileSystemLoader
    from jinja2.sandbox import SandboxedEnvironment
    from numpydoc.docscrape import get_doc_object as plain_get_doc_object
    from numpydoc.docscrape_sphinx import SphinxClassDoc, SphinxFunctionDoc, SphinxObjDoc
    from sphinx.jinja2glue import BuiltinTemplateLoader

    template_dirs = [str(Path(numpydoc.__file__).parent / "templates")]
    templates = {}

    def template(builder):
        key = None if builder is None else id(builder)
        if key not in templates:
            if builder is None:
                loader = FileSystemLoader(template_dirs)
            else:
                loader = BuiltinTemplateLoader()
                loader.init(builder, dirs=template_dirs)
            env = SandboxedEnvironment(loader=loader)
            templates[key] = env.get_template("numpydoc_docstring.rst")
        return templates[key]

    def get_doc_object_once(obj, what=None, doc=None, config=None, builder=None):
        config = dict(config or {}, template=template(builder))
        return plain_get_doc_object(obj, what=what, doc=doc, config=config,
                                    class_doc=SphinxClassDoc, func_doc=SphinxFunctionDoc,
                                    obj_doc=SphinxObjDoc)

    numpydoc.numpydoc.get_doc_object = get_doc_object_once


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
    _numpydoc_with_one_template()
