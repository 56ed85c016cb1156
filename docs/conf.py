"""Sphinx configuration of mechsolve's documentation.

Build: ``pip install ".[docs]" && python -m sphinx -b html docs docs/_build/html``. The build
needs no network: intersphinx has no mappings (set ``MECHSOLVE_DOCS_INTERSPHINX=1`` to link to
the Python, NumPy, SciPy and matplotlib documentation, which downloads their inventories).
Generated files (never committed): ``docs/generated`` (autosummary), ``docs/auto_examples``
(the gallery, from ``examples/*.py``, every script run), ``docs/_cli`` (the command's
``--help`` texts), ``docs/_build``.
"""

from __future__ import annotations

import os
import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
# The mechsolve of this source tree, not whichever one is installed.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))     # plain_code: the narrative pages' code as plain Python
os.environ.setdefault("MPLBACKEND", "Agg")

import mechsolve  # noqa: E402

project = "mechsolve"
author = "the mechsolve authors"
copyright = "mechsolve authors"
version = release = mechsolve.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "myst_parser",
    "sphinx_copybutton",
    "plain_code",
]

# The Markdown pages (architecture.md, the symbolic-joint tutorial) are pages of the site,
# parsed by MyST; their ```pycon blocks stay doctests (tests/test_docs.py, test_symbolic.py).
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
master_doc = root_doc = "index"
# the gallery's own bookkeeping is not a page
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "sg_execution_times.rst",
                    "auto_examples/sg_execution_times.rst"]
templates_path = []
# MyST: "## Layers" becomes a target (architecture.md#layers) and ```pycon a highlighted block
myst_heading_anchors = 3

# -- the copy button: copies the code without its prompts (>>> , ... , $ ) and without the
# output lines of a doctest, so that what is pasted runs (the narrative pages' blocks are plain
# Python already, docs/_ext/plain_code.py: the API reference's Examples keep their prompts)
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_exclude = ".linenos, .gp, .go"

# -- API reference ------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": True}
autodoc_typehints = "none"         # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set = set()
nitpicky = False
suppress_warnings = ["autosummary.import_cycle"]

# -- intersphinx: off unless asked for (no downloads during a build) ------------------------------
intersphinx_mapping: dict = {}
if os.environ.get("MECHSOLVE_DOCS_INTERSPHINX"):
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "matplotlib": ("https://matplotlib.org/stable", None),
    }

# -- the gallery: every script of examples/ run -------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": str(DOCS / "auto_examples"),
    "filename_pattern": r"\.py$",          # run every example, not only plot_*.py
    "ignore_pattern": r"(__init__|update)\.py$",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "write_computation_times": False,
    "show_signature": False,
    "min_reported_time": 10,
    # an example whose last block leaves an animation shows it (frames embedded as
    # JavaScript: no ffmpeg needed), its thumbnail a GIF
    "matplotlib_animations": (True, "jshtml"),
}

# -- the plot directive (getting started): sources shown, pictures at one size --------------------
plot_include_source = True
# the pages' examples name files from the top of the repository (examples/models/...)
plot_working_directory = str(pathlib.Path(__file__).resolve().parent.parent)
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]

# -- HTML ---------------------------------------------------------------------------------------
try:
    import pydata_sphinx_theme  # noqa: F401

    html_theme = "pydata_sphinx_theme"
    html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
except ImportError:      # pragma: no cover - the docs extra installs it
    html_theme = "alabaster"
html_title = f"mechsolve {release}"
html_static_path = ["_static"]
# long code lines and doctest outputs wrap instead of running past the page
html_css_files = ["mechsolve.css"]


# -- the command line's --help texts, written at build time --------------------------------------
def _write_cli_help(app) -> None:
    """Write ``docs/_cli/<command>.txt``: the ``--help`` text of ``mechsolve`` and of each
    subcommand, as ``mechsolve.cli.build_parser()`` prints it (included by cli.rst)."""
    import argparse

    from mechsolve.cli import build_parser

    out = DOCS / "_cli"
    out.mkdir(exist_ok=True)
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "90"          # argparse wraps to the terminal's width
    try:
        parser = build_parser()
        (out / "mechsolve.txt").write_text(parser.format_help())
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for name, p in sub.choices.items():
            (out / f"{name}.txt").write_text(p.format_help())
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns


# What the gallery's matplotlib scraper writes on a page for a still, a set of stills, or an
# animation.
_GALLERY_PICTURES = ("sphx-glr-single-img", "sphx-glr-multi-img", "sphx-glr-animation")


def _check_gallery_pictures(app, exception) -> None:
    """Every example's page shows a picture: a page without one is a warning (an error under
    ``-W``), naming the example."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    gallery = pathlib.Path(app.outdir) / "auto_examples"
    pages = sorted(p for p in gallery.glob("*.html") if p.name != "index.html")
    if not pages:
        logger.warning("the gallery has no example pages under %s", gallery)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        if not any(mark in html for mark in _GALLERY_PICTURES):
            logger.warning("gallery page %s shows no figure or animation: examples/%s.py "
                           "must leave one", page.name, page.stem)


def setup(app) -> None:
    app.connect("builder-inited", _write_cli_help)
    app.connect("build-finished", _check_gallery_pictures)
