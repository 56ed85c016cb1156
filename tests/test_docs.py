"""The documentation's code blocks run: docs/architecture.md."""

import doctest
import pathlib

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def test_architecture_map_runs_as_a_doctest(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))   # the symbolic joint's cache
    result = doctest.testfile(str(DOCS / "architecture.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 30
    assert result.failed == 0
