"""``mechsolve convert IN OUT`` (issue 31, item 5): every format mechsolve reads written as a
model file (TOML) that moves exactly like the model read from the original."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.cli import main
from mechsolve.robots import load_sdf_mechanism

HERE = pathlib.Path(__file__).resolve().parent
SLVS = HERE / "data" / "slvs"
SDF = HERE / "data" / "sdf"
MODELS = HERE.parent / "examples" / "models"


def _same_sweep(a, drive_a, b, drive_b, values):
    """The two mechanisms' sweeps give the same states (to round-off)."""
    ma, mb = a.sweep(drive_a, values), b.sweep(drive_b, values)
    assert [x.name for x in a.bodies] == [x.name for x in b.bodies]
    assert np.max(np.abs(ma.states - mb.states)) <= 1e-12 * max(1.0, a.length_scale)


def test_a_sketch_converts_and_moves_alike(tmp_path, capsys):
    out = tmp_path / "fourbar.toml"
    assert main(["convert", str(SLVS / "fourbar.slvs"), str(out)]) == 0
    assert "wrote 3-body mechanism" in capsys.readouterr().out
    a, b = ms.load(SLVS / "fourbar.slvs"), ms.load(out)
    assert b.units == {"length": "mm", "angle": "deg"}
    assert dict(b.body("r006").points) .keys() == dict(a.body("r006").points).keys()
    _same_sweep(a, a.joint("c010"), b, b.joint("c010"), np.radians(np.arange(0, 361, 10.0)))
    # and a model file converts to itself
    again = tmp_path / "again.toml"
    assert main(["convert", str(out), "-o", str(again)]) == 0
    assert again.read_text() == out.read_text()


def test_an_sdf_model_with_loops_converts_with_its_actuated_joint(tmp_path):
    out = tmp_path / "fourbar.toml"
    assert main(["convert", str(SDF / "fourbar.sdf"), str(out), "--actuated", "motor"]) == 0
    robot = load_sdf_mechanism(SDF / "fourbar.sdf", ["motor"])
    b = ms.load(out)
    _same_sweep(robot.mechanism, robot.actuated["motor"], b, b.joint("motor_drive"),
                np.linspace(0.0, 2 * np.pi, 19))


def test_an_sdf_tree_gets_a_driver_per_joint(tmp_path):
    out = tmp_path / "arm.toml"
    assert main(["convert", str(SDF / "arm.sdf"), str(out)]) == 0
    mech = ms.load(out)
    arm = ms.robots.load_urdf(SDF / "arm.urdf")
    q = [0.5, -0.8, 0.25]
    for name, v in zip(("turn", "tilt", "reach"), q):
        mech.joint(f"{name}_drive").value = v
    mech.solve()
    got = mech.body("tool").to_global((0.0, 0.0, 0.0))
    assert np.max(np.abs(got - arm.forward(q).translation)) <= 1e-12


def test_an_mjcf_model_converts(tmp_path):
    pytest.importorskip("mujoco", reason="MJCF needs MuJoCo (the mjcf extra)")
    leg = ms.robots.load_mjcf(MODELS / "fivebar_leg.xml")
    out = tmp_path / "leg.toml"
    assert main(["convert", str(MODELS / "fivebar_leg.xml"), str(out)]) == 0
    b = ms.load(out)
    name = sorted(leg.actuated)[0]
    drive = leg.actuated[name]
    values = np.linspace(drive.value, drive.value + 0.3, 7)
    _same_sweep(leg.mechanism, drive, b, b.joint(drive.name), values)


def test_convert_faults_are_one_line(tmp_path, capsys):
    assert main(["convert", str(SDF / "fourbar.sdf"), str(tmp_path / "x.toml"),
                 "--actuated", "nothing"]) == 1
    assert "actuated names 'nothing'" in capsys.readouterr().err
    assert main(["convert", str(SLVS / "fourbar.slvs"), str(tmp_path / "x.toml"),
                 "--actuated", "c010"]) == 1
    assert "--actuated names joints of an SDF or URDF model" in capsys.readouterr().err
    assert main(["convert", str(SLVS / "fourbar.slvs"), "a.toml", "-o", "b.toml"]) == 1
    assert "give the output file once" in capsys.readouterr().err
