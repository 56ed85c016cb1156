"""The declared floors are the tested ones (issue 26): .ci/run runs the tests once on the
versions pinned in .ci/minimum.txt, so every runtime and test dependency in pyproject.toml
must be pinned there at exactly its floor, and nothing else."""

from __future__ import annotations

import pathlib
import re
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
MINIMUM = ROOT / ".ci" / "minimum.txt"

# name, operator, version, environment marker: "numpy>=1.24", "tomli>=1.1; python_version < '3.11'"
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(>=|==)\s*"
                          r"([0-9][0-9.]*)\s*(?:;\s*(.+?))?\s*$")

def _parse(line: str, operator: str, where: str) -> tuple[str, tuple[int, ...], str]:
    """``(normalized name, version as a tuple without trailing zeros, normalized marker)``."""
    m = _REQUIREMENT.match(line)
    assert m is not None and m.group(3) == operator, \
        f"{where}: {line!r} is not of the form 'name{operator}version[; marker]'"
    name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
    version = tuple(int(p) for p in m.group(4).split("."))
    while len(version) > 1 and version[-1] == 0:
        version = version[:-1]
    marker = re.sub(r"\s+", " ", (m.group(5) or "").replace("'", '"')).strip()
    return name, version, marker


def _floors() -> dict:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["test"]
    out = {}
    for line in lines:
        name, version, marker = _parse(line, ">=", "pyproject.toml")
        out[name] = (version, marker)
    return out


def _pins() -> tuple[dict, dict]:
    """The pins of .ci/minimum.txt: ``(mechsolve's dependencies, theirs)``, theirs after the
    comment line that begins ``# not mechsolve's``."""
    own, theirs = {}, {}
    out = own
    for raw in MINIMUM.read_text(encoding="utf-8").splitlines():
        if raw.startswith("# not mechsolve's"):
            out = theirs
        line = raw.split("#", 1)[0].strip()
        if line:
            name, version, marker = _parse(line, "==", ".ci/minimum.txt")
            assert name not in own and name not in theirs, \
                f".ci/minimum.txt pins {name} twice"
            out[name] = (version, marker)
    return own, theirs


def test_every_floor_is_pinned_in_the_minimum_constraints():
    floors, (pins, theirs) = _floors(), _pins()
    assert sorted(floors) == sorted(pins), \
        "pyproject.toml's runtime and test dependencies and .ci/minimum.txt's pins differ"
    assert not set(theirs) & set(floors)
    for name, (version, marker) in floors.items():
        assert pins[name] == (version, marker), \
            f"{name}: floor {version} ({marker or 'always'}) in pyproject.toml, pinned at " \
            f"{pins[name][0]} ({pins[name][1] or 'always'}) in .ci/minimum.txt"


def test_the_parser_reads_the_forms_used():
    assert _parse("tomli>=1.1; python_version < '3.11'", ">=", "x") == \
        ("tomli", (1, 1), 'python_version < "3.11"')
    assert _parse("numpy==1.24.0", "==", "x") == ("numpy", (1, 24), "")
    assert _parse("Py_Thing>=3", ">=", "x") == ("py-thing", (3,), "")
    with pytest.raises(AssertionError, match="not of the form"):
        _parse("numpy>1.24", ">=", "pyproject.toml")
