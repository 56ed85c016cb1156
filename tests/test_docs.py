"""The documentation's code blocks run: docs/architecture.md and the pages of the Sphinx site.

The site itself (``python -m sphinx -b html docs OUT``) is built by CI (``.ci/run``); these
tests need no Sphinx: the pages' ``>>>`` examples run as doctests, output checked.
"""

import doctest
import gc
import importlib
import inspect
import pathlib
import re
import types
import warnings

import pytest

import mechsolve as ms

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_architecture_map_runs_as_a_doctest(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))   # the symbolic joint's cache
    result = doctest.testfile(str(DOCS / "architecture.md"), module_relative=False,
                              optionflags=FLAGS)
    assert result.attempted > 30
    assert result.failed == 0


# page -> fewest examples it holds (a page that lost its examples fails too)
PAGES = {"getting_started.rst": 40, "conventions.rst": 20, "troubleshooting.rst": 40,
         "model_files.rst": 15, "cli.rst": 5, "design.rst": 25,
         "robots.rst": 10, "motion.rst": 20, "interact.rst": 15,
         "sketches.rst": 12, "sdf.rst": 12, "formats.rst": 5, "loops.rst": 15}


@pytest.mark.parametrize("page", list(PAGES) + ["mjcf.rst", "design_cluster.rst"])
def test_site_page_runs_as_a_doctest(page, tmp_path, monkeypatch):
    """Every example of the page runs and prints what the page says; mechsolve's warnings are
    errors unless the page catches them (as the test suite's filter makes them)."""
    import matplotlib.pyplot as plt

    if page == "mjcf.rst":
        pytest.importorskip("mujoco", reason="the MJCF page needs MuJoCo (the mjcf extra)")
    if page == "design_cluster.rst":
        pytest.importorskip("dask.distributed", reason="the cluster page needs dask (the "
                                                        "dask extra)")
    monkeypatch.chdir(DOCS.parent)         # cli.rst names examples/models/... from the top
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ms.MechsolveWarning)
        # the pages' animations are drawn by the docs build, not here: matplotlib warns when
        # one is collected unrendered (the page's globals are cleared at its end)
        warnings.filterwarnings("ignore", "Animation was deleted without rendering",
                                UserWarning)
        result = doctest.testfile(str(DOCS / page), module_relative=False, optionflags=FLAGS,
                                  raise_on_error=False, verbose=False)
        gc.collect()
    plt.close("all")
    assert result.failed == 0
    assert result.attempted >= PAGES.get(page, 10)


API_MODULES = ["mechsolve", "mechsolve.joints", "mechsolve.models", "mechsolve.models.spatial",
               "mechsolve.robots", "mechsolve.plot", "mechsolve.profiles", "mechsolve.symbolic",
               "mechsolve.files", "mechsolve.io.urdf", "mechsolve.design", "mechsolve.diff"]


def test_api_reference_lists_every_public_class_and_function():
    """docs/api.rst names, under each module, every class and function of its ``__all__``."""
    text = (DOCS / "api.rst").read_text()
    missing = []
    for name in API_MODULES:
        module = importlib.import_module(name)
        block = text.split(f".. currentmodule:: {name}\n", 1)
        assert len(block) == 2, f"api.rst has no section for {name}"
        listed = set(re.findall(r"^   (\w+)$", block[1].split(".. currentmodule::")[0], re.M))
        for attr in module.__all__:
            obj = getattr(module, attr)
            if isinstance(obj, types.ModuleType) or not (inspect.isclass(obj) or callable(obj)):
                continue
            if attr not in listed:
                missing.append(f"{name}.{attr}")
    assert not missing, f"add to docs/api.rst: {', '.join(missing)}"


def _plain_code():
    import importlib.util

    spec = importlib.util.spec_from_file_location("plain_code", DOCS / "_ext" / "plain_code.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_narrative_doctests_are_shown_as_plain_python_that_runs():
    """The site shows a page's doctests as plain Python (docs/_ext/plain_code.py): what it shows
    runs, line for line, and prints what its comments say."""
    import contextlib
    import io

    plain = _plain_code().plain
    text = (">>> import numpy as np\n>>> x = np.arange(3)\n>>> for k in x:\n...     print(k)\n"
            "0\n1\n2\n>>> print('a\\n\\nb')\na\n<BLANKLINE>\nb\n")
    shown = plain(text.replace("<BLANKLINE>", ""))
    assert ">>>" not in shown and "..." not in shown
    code = "\n".join(line for line in shown.split("\n") if not line.startswith("#"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "<shown>", "exec"), {})
    said = [line[2:] if line.startswith("# ") else "" for line in shown.split("\n")
            if line.startswith("#")]
    assert printed.getvalue().rstrip("\n").split("\n") == said
    # the transform on a page: doctest blocks and prompted code blocks become plain Python; the
    # API reference keeps its prompts
    from types import SimpleNamespace

    pytest.importorskip("docutils", reason="the page transform needs docutils (the docs extra)")
    from docutils import nodes
    from docutils.core import publish_doctree

    rst = "Text.\n\n>>> 1 + 1\n2\n\n.. code-block:: pycon\n\n   >>> 2 + 2\n   4\n\n::\n\n   x = 1\n"
    module = _plain_code()
    for docname, kept in [("motion", False), ("generated/mechsolve.sweep", True)]:
        tree = publish_doctree(rst, settings_overrides={"report_level": 5})
        module._rewrite(SimpleNamespace(env=SimpleNamespace(docname=docname)), tree)
        blocks = [n.astext() for n in tree.findall(nodes.literal_block)]
        blocks += [n.astext() for n in tree.findall(nodes.doctest_block)]
        if kept:
            assert sorted(blocks) == sorted([">>> 1 + 1\n2", ">>> 2 + 2\n4", "x = 1"])
        else:
            assert sorted(blocks) == ["1 + 1\n# 2", "2 + 2\n# 4", "x = 1"]
