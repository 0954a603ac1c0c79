"""The user guide's table of contents, in the reading order of ``docs/guide/README.md``.

``conf.py`` writes it at every build into ``_generated/guide_toc.rst``, which
``index.rst`` includes: the pages the guide's index links, in its order, then any
other page of ``docs/guide/`` (alphabetically), so a new page is never left out.
"""

import re
from pathlib import Path

LINK = re.compile(r"\]\(([A-Za-z0-9_.-]+)\.md\)")


def guide_pages(guide_dir):
    """The guide's pages, as document names relative to ``docs/`` (``guide/install``).

    Parameters
    ----------
    guide_dir : path-like
        The folder ``docs/guide``; its ``README.md`` is the guide's index.

    Returns
    -------
    pages : list of str
        ``guide/README`` first, then the pages in the order the index links them,
        then the pages it does not link, sorted.
    """
    guide_dir = Path(guide_dir)
    present = {p.stem for p in guide_dir.glob("*.md")}
    order = ["README"]
    for stem in LINK.findall((guide_dir / "README.md").read_text()):
        if stem in present and stem not in order:
            order.append(stem)
    order += sorted(present - set(order))
    return [f"guide/{stem}" for stem in order]


def write_guide_toc(guide_dir, path):
    """Write the toctree of :func:`guide_pages` to ``path`` (only when it changes).

    Parameters
    ----------
    guide_dir : path-like
        The folder ``docs/guide``.
    path : path-like
        The reStructuredText file ``index.rst`` includes.

    Returns
    -------
    pages : list of str
        What :func:`guide_pages` returned.
    """
    pages = guide_pages(guide_dir)
    text = "\n".join([".. toctree::", "   :maxdepth: 1", "   :caption: User guide", ""]
                     + [f"   {page}" for page in pages] + [""])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return pages
