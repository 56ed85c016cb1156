"""The command line on model files: solve, sweep, dof, check, convert."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.cli import main

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "models"
FOURBAR = str(EXAMPLES / "fourbar.toml")


def test_sweep_prints_a_table_in_the_files_units(capsys):
    assert main(["sweep", FOURBAR, "--rows", "5"]) == 0
    out = capsys.readouterr().out
    assert "motor [deg]" in out and "coupler angle [deg]" in out
    assert "361 poses" in out


def test_sweep_writes_csv_and_json_checked_from_the_poses(tmp_path, capsys):
    csv = tmp_path / "out.csv"
    js = tmp_path / "out.json"
    assert main(["sweep", FOURBAR, "--driver", "motor", "--values", "0:90:30",
                 "--csv", str(csv), "--json", str(js)]) == 0
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(data[:, 0], [0.0, 30.0, 60.0, 90.0])
    # the crank pin (columns crank x, y) on the circle of radius 0.5 at the driver's angle
    t = np.radians(data[:, 0])
    np.testing.assert_allclose(data[:, 1:3], 0.5 * np.column_stack([np.cos(t), np.sin(t)]),
                               rtol=0, atol=1e-12)
    payload = json.loads(js.read_text())
    assert payload["driver"] == "motor" and len(payload["states"]) == 4
    header = csv.read_text().splitlines()[0].split(",")
    assert header[0] == "motor [deg]" and header[-2:] == ["residual", "iterations"]


def test_solve_dof_and_check(capsys):
    assert main(["solve", str(EXAMPLES / "stewart.toml")]) == 0
    assert "platform" in capsys.readouterr().out
    assert main(["dof", str(EXAMPLES / "gear-train.toml")]) == 0
    assert "Gruebler" in capsys.readouterr().out
    assert main(["check", str(EXAMPLES / "rssr.toml")]) == 0
    assert ": ok:" in capsys.readouterr().out


def test_check_fails_with_the_reason(tmp_path, capsys):
    bad = tmp_path / "long.toml"
    text = (EXAMPLES / "fourbar.toml").read_text()
    # a coupler too long to assemble: the rocker pivot moved far away
    bad.write_text(text.replace("point2 = [4.0, 0.0]", "point2 = [40.0, 0.0]"))
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mechsolve: ") and "long.toml" in err


@pytest.mark.parametrize("argv, message", [
    (["sweep", "missing.toml"], "cannot be read"),
    (["sweep", FOURBAR, "--values", "0:10"], "expected START:STOP:STEP"),
    (["sweep", FOURBAR, "--values", "0:10:-1"], "expected START:STOP:STEP"),
    (["sweep", FOURBAR, "--driver", "nope", "--values", "0:10:1"], "no driver named 'nope'"),
    (["sweep", FOURBAR, "--sweep", "nope"], "no sweep named 'nope' (sweeps: demo)"),
    (["convert", "robot.stl"], "convert reads a URDF file (.urdf), an SDFormat model"),
    (["convert", FOURBAR, "out.svg"], "convert writes model files (.toml)"),
])
def test_errors_speak_to_command_line_users(argv, message, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("mechsolve = 1\n[[bodies]]\nname = 3\n")
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "bodies[0].name: expected a non-empty string, found integer 3" in err


URDF = """<robot name="two">
  <link name="base"/><link name="l1"/><link name="l2"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/><limit lower="-3" upper="3"/></joint>
  <joint name="elbow" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3"/></joint>
</robot>"""


def test_convert_a_urdf_and_sweep_it(tmp_path, capsys):
    src = tmp_path / "two.urdf"
    src.write_text(URDF)
    out = tmp_path / "two.toml"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    mech = ms.load(out)
    arm = ms.robots.load_urdf(src)
    q = [0.3, -0.7]
    mech.joint("shoulder_drive").value = q[0]
    mech.joint("elbow_drive").value = q[1]
    mech.solve()
    # the last link's frame against the arm's forward kinematics (no tool in this URDF)
    M = arm.forward_matrix(q)
    np.testing.assert_allclose(mech.bodies[-1].position, M[:3, 3], rtol=0, atol=1e-12)
    assert main(["sweep", str(out), "--rows", "3"]) == 0
    assert "shoulder_drive [deg]" in capsys.readouterr().out
    # the sweep spans the first joint's URDF limits (-3, 3), which sweeps keep
    assert math.isclose(mech.sweeps["first-joint"].values[0], -3.0)
    assert np.allclose(mech.joint("shoulder").limits, (-3.0, 3.0), rtol=1e-15)
