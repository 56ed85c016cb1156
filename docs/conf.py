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
]

source_suffix = {".rst": "restructuredtext"}
master_doc = root_doc = "index"
# The Markdown pages (architecture.md, the tutorial) stay Markdown: they are linked on the
# repository, not parsed (no MyST dependency); the gallery's own bookkeeping is not a page.
exclude_patterns = ["_build", "**.ipynb_checkpoints", "*.md", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "sg_execution_times.rst",
                    "auto_examples/sg_execution_times.rst"]
templates_path = []

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
html_static_path: list = []
# The Markdown pages are copied as they are, next to the HTML (further.rst links to them).
html_extra_path = ["architecture.md", "tutorial_symbolic_joint.md"]


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


def setup(app) -> None:
    app.connect("builder-inited", _write_cli_help)
