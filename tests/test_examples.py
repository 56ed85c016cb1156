"""Every example script runs, and every demo runs from the command line."""

import pathlib
import runpy

import pytest

from mechsolve import cli
from mechsolve.models import DEMOS

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out


@pytest.mark.parametrize("name", list(DEMOS))
def test_cli_demo(name, capsys):
    assert cli.main(["demo", name, "--rows", "5"]) == 0
    out = capsys.readouterr().out
    assert "poses solved in" in out and "residual" in out
    assert "Gruebler count" in out


def test_cli_list_help_and_errors(capsys):
    assert cli.main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in DEMOS)
    assert cli.main([]) == 0
    assert "demo" in capsys.readouterr().out
    assert cli.main(["demo", "nonesuch"]) == 2
    assert "unknown demo 'nonesuch'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--help"])
