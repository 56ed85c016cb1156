"""The command line's tables and messages (issue 30, item 5): the poses reached before a failure
are written and said so, warnings are one plain line, the declared length unit reaches table
and CSV headers and the ``--plot`` axes (with a title), and a misspelled joint type gets a
"did you mean"."""

import os
import pathlib
import subprocess
import sys
import warnings

import matplotlib.figure
import numpy as np

from mechsolve.cli import main

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "models"
FOURBAR = (EXAMPLES / "fourbar.toml").read_text()


def _file(tmp_path, text: str, name: str = "model.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _mm(text: str = FOURBAR) -> str:
    return text.replace('[units]\nangle = "deg"', '[units]\nlength = "mm"\nangle = "deg"')


def test_sweep_table_csv_and_solve_carry_the_declared_length_unit(tmp_path, capsys):
    path = _file(tmp_path, _mm())
    csv = tmp_path / "out.csv"
    assert main(["sweep", path, "--rows", "3", "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "motor [deg]" in out and "coupler x [mm]" in out and "coupler angle [deg]" in out
    header = csv.read_text().splitlines()[0].split(",")
    assert header == ["motor [deg]", "coupler x [mm]", "coupler y [mm]", "coupler angle [deg]",
                      "residual", "iterations"]
    assert main(["solve", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["body", "x", "[mm]", "y", "[mm]", "angle", "[deg]"]


def test_a_sweep_that_stops_writes_the_poses_it_reached_and_says_so(tmp_path, capsys):
    # the rocker pivot moved out to 6: crank 1, coupler 3, rocker 3.5 stretch out in line
    # where |A - O4| = 6.5, at cos t = (1 + 36 - 42.25) / 12: t = 115.94 degrees
    path = _file(tmp_path, FOURBAR.replace("point2 = [4.0, 0.0]", "point2 = [6.0, 0.0]"))
    csv, js = tmp_path / "part.csv", tmp_path / "part.json"
    assert main(["sweep", path, "--values", "0:360:10", "--csv", str(csv),
                 "--json", str(js)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mechsolve: ") and "cannot reach value" in err
    assert "wrote 12 rows (the 12 poses reached before the sweep stopped) to " in err
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(data[:, 0], np.arange(0.0, 120.0, 10.0))
    # the rows are poses: the crank's centre (columns crank x, y: no output named, so every
    # body) on its circle of radius 0.5 at the driver's angle
    t = np.radians(data[:, 0])
    np.testing.assert_allclose(data[:, 1:3], 0.5 * np.column_stack([np.cos(t), np.sin(t)]),
                               rtol=0, atol=1e-12)
    assert '"complete": false' in js.read_text()
    limit = np.degrees(np.arccos((1 + 36 - 6.5**2) / 12))
    assert data[-1, 0] < limit < data[-1, 0] + 10


def test_a_sweep_that_cannot_start_writes_nothing_and_says_so(tmp_path, capsys):
    path = _file(tmp_path, FOURBAR.replace("point2 = [4.0, 0.0]", "point2 = [6.0, 0.0]"))
    csv = tmp_path / "none.csv"
    assert main(["sweep", path, "--values", "150:200:10", "--csv", str(csv)]) == 1
    err = capsys.readouterr().err
    assert "no pose was reached: nothing written" in err and not csv.exists()


def _dangling() -> str:
    """The four-bar with a flap pinned to its coupler: one motion no driver fixes."""
    body = '[[bodies]]\nname = "flap"\nposition = [2.0, 2.5]\n\n'
    joint = ('[[joints]]\ntype = "Revolute"\nbodies = ["coupler", "flap"]\n'
             'point1 = [0.0, 1.0]\npoint2 = [-0.5, 0.0]\n\n')
    text = FOURBAR.replace("[[joints]]", body + "[[joints]]", 1)
    return text.replace("[[sweeps]]", joint + "[[sweeps]]", 1)


def test_warnings_are_one_plain_line_with_the_commands_words(tmp_path, capsys):
    path = _file(tmp_path, _dangling(), "flap.toml")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["sweep", path, "--values", "0:20:10"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("mechsolve: warning: the sweep runs with 1 degree of freedom that "
                           "no driver fixes (flap turns about (")
    assert "at its joint with coupler): " in line and f"(mechsolve dof {path} lists them)" in line
    assert "FreeMotionWarning" not in err and "mech.dof()" not in err and ".py:" not in err


def test_the_installed_command_prints_no_python_source_line(tmp_path):
    # the issue: "mechsolve:8: FreeMotionWarning ... sys.exit(main())"
    path = _file(tmp_path, _dangling(), "flap.toml")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "mechsolve.cli", "sweep", path, "--values",
                          "0:20:10"], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("mechsolve: warning: the sweep runs with 1 degree")
    assert len(run.stderr.strip().splitlines()) == 1
    assert "sys.exit" not in run.stderr and "FreeMotionWarning" not in run.stderr


def test_plot_axes_carry_the_unit_and_a_title(tmp_path, capsys, monkeypatch):
    path = _file(tmp_path, _mm())
    saved = []
    original = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kwargs):
        saved.append(fig)
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    png = tmp_path / "out.png"
    assert main(["sweep", path, "--values", "0:90:10", "--plot", str(png)]) == 0
    assert png.stat().st_size > 0
    (fig,) = saved
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x [mm]", "y [mm]")
    assert ax.get_title() == "four-bar: 10 poses of motor, shown at motor = 10 deg"


def test_a_misspelled_joint_type_gets_did_you_mean(tmp_path, capsys):
    path = _file(tmp_path, FOURBAR.replace('type = "Revolute"\nname = "B"',
                                           'type = "Revolut"\nname = "B"'))
    assert main(["check", path]) == 1
    err = capsys.readouterr().err
    assert "joints[2].type: unknown joint type 'Revolut'; did you mean 'Revolute'" in err
    assert "AngleDriver" not in err   # no list of every type
    path = _file(tmp_path, FOURBAR.replace('type = "Revolute"\nname = "B"',
                                           'type = "hinge"\nname = "B"'), "hinge.toml")
    assert main(["check", path]) == 1
    assert "unknown joint type 'hinge'; did you mean 'Revolute'?" in capsys.readouterr().err
