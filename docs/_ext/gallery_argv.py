"""How sphinx-gallery runs each gallery example and where it finds the figure.

Every example's ``main(argv=None)`` parses ``--quick`` and ``--out PATH`` and saves
its one figure to ``--out`` (the gallery convention). The site runs each example
as ``<topic>.py --quick --out <scratch>/<topic>.png`` (:class:`QuickArgv`) and shows
the PNG it saved (:class:`SavedFigureScraper`): the examples draw on
``matplotlib.figure.Figure`` objects that pyplot never sees, so sphinx-gallery's
own matplotlib scraper would find no figure.
"""

import shutil
import sys
import tempfile
from pathlib import Path


def _scratch_png(src_file):
    scratch = Path(tempfile.gettempdir()) / "kernelkit-gallery"
    scratch.mkdir(exist_ok=True)
    return scratch / f"{Path(src_file).stem}.png"


class QuickArgv:
    """``sys.argv[1:]`` for an example: ``--quick --out <scratch>/<topic>.png``.

    sphinx-gallery needs a picklable callable, hence an instance named by its import
    path in ``conf.py`` rather than a function defined there.
    """

    def __repr__(self):
        return "QuickArgv"

    def __call__(self, gallery_conf, script_vars):
        """Return the arguments for the example ``script_vars["src_file"]``.

        Parameters
        ----------
        gallery_conf : dict
            sphinx-gallery's configuration (unused).
        script_vars : dict
            sphinx-gallery's variables of the running script; ``"src_file"`` is its path.

        Returns
        -------
        argv : list of str
            The arguments after the script's name.
        """
        out = _scratch_png(script_vars["src_file"])
        out.unlink(missing_ok=True)  # a picture left by an earlier build is not this one
        return ["--quick", "--out", str(out)]


class SavedFigureScraper:
    """sphinx-gallery image scraper: the PNG the example saved to ``--out``."""

    def __repr__(self):
        return "SavedFigureScraper"

    def __call__(self, block, block_vars, gallery_conf, **kwargs):
        """Move the example's saved PNG into the gallery and return its reST.

        Parameters
        ----------
        block : tuple
            The code block just run (unused).
        block_vars : dict
            sphinx-gallery's variables of the block: ``"src_file"`` and
            ``"image_path_iterator"``.
        gallery_conf : dict
            sphinx-gallery's configuration (``"src_dir"``).
        **kwargs
            Ignored.

        Returns
        -------
        rst : str
            The image directive, or "" when the block saved no picture.
        """
        from sphinx_gallery.scrapers import figure_rst

        if "matplotlib.pyplot" in sys.modules:  # figures drawn with pyplot: not kept open
            sys.modules["matplotlib.pyplot"].close("all")
        saved = _scratch_png(block_vars["src_file"])
        if not saved.exists():
            return ""
        image_path = Path(next(iter(block_vars["image_path_iterator"])))
        shutil.move(saved, image_path)
        return figure_rst([image_path], gallery_conf["src_dir"])


#: The instances ``conf.py`` names (sphinx-gallery wants callables, not classes).
quick_argv = QuickArgv()
saved_figure = SavedFigureScraper()
