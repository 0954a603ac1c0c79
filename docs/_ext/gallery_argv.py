"""The command line each gallery example gets when sphinx-gallery runs it.

Every example's ``main(argv=None)`` parses ``--quick`` and ``--out PATH`` (the gallery
convention), so the site runs each in its quick mode (<= 2 s) and sends the PNG the
script saves to a scratch folder, not into ``examples/``; sphinx-gallery takes the
figure from matplotlib itself (``plot`` returns it unclosed).
"""

import tempfile
from pathlib import Path


class QuickArgv:
    """``sys.argv[1:]`` for an example: ``--quick --out <scratch>/<topic>.png``.

    sphinx-gallery needs a picklable callable, hence a class named by its import path
    in ``conf.py`` rather than a function defined there.
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
        scratch = Path(tempfile.gettempdir()) / "kernelkit-gallery"
        scratch.mkdir(exist_ok=True)
        topic = Path(script_vars["src_file"]).stem
        return ["--quick", "--out", str(scratch / f"{topic}.png")]


#: The instance ``conf.py`` names (sphinx-gallery wants a callable, not a class).
quick_argv = QuickArgv()
