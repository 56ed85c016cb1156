"""MJCF models read through MuJoCo's compiler (issue 17, items 2 and 4): loops closed exactly,
closed forms, MuJoCo's own loop-closure error beside mechsolve's, and ``qpos`` written back and
checked by MuJoCo's forward kinematics. Skipped without the optional ``mujoco`` package."""

from __future__ import annotations

import os
import pathlib
import re

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="the optional mujoco package (pip install "
                             "'mechsolve[mjcf]') reads MJCF")

from test_loops import circle_intersection, delta_platform, fourbar_rocker  # noqa: E402

from mechsolve.robots import load_mjcf  # noqa: E402

DATA = pathlib.Path(__file__).parent / "data"


def mujoco_poses(model, qpos):
    d = mujoco.MjData(model)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(model, d)
    return d


def connect_gap(model, d, e):
    """Distance between the two anchors of connect equality ``e`` in MuJoCo's poses."""
    b1, b2 = model.eq_obj1id[e], model.eq_obj2id[e]
    p1 = d.xpos[b1] + d.xmat[b1].reshape(3, 3) @ model.eq_data[e][0:3]
    p2 = d.xpos[b2] + d.xmat[b2].reshape(3, 3) @ model.eq_data[e][3:6]
    return float(np.linalg.norm(p1 - p2))


def test_fourbar_gripper_mjcf_matches_the_closed_form_and_writes_qpos_back():
    robot = load_mjcf(DATA / "fourbar_gripper.xml")
    mech = robot.mechanism
    assert list(robot.actuated) == ["motor_servo"]
    assert set(robot.joint_map) == {"motor", "knee", "pivot"}
    for q in np.linspace(0.0, 2 * np.pi, 25):
        robot.actuated["motor_servo"].value = q
        mech.solve()
        psi, _, B = fourbar_rocker(q)
        np.testing.assert_allclose(robot.bodies["rocker"].to_global((-3, 4, 0))[:2], B,
                                   atol=1e-10)
        qpos = robot.qpos()
        d = mujoco_poses(robot.model, qpos)
        for i in range(1, robot.model.nbody):
            name = robot.model.body(i).name
            np.testing.assert_allclose(robot.bodies[name].position, d.xpos[i], atol=1e-10)
        assert connect_gap(robot.model, d, 0) < 1e-12


def test_fivebar_leg_mjcf_matches_the_circle_intersection():
    robot = load_mjcf(DATA / "fivebar_leg.xml")
    mech = robot.mechanism
    rng = np.random.default_rng(3)
    for _ in range(10):
        q = rng.uniform(-0.4, 0.4, 2)
        robot.actuated["hip_front_servo"].value = q[0]
        robot.actuated["hip_back_servo"].value = q[1]
        mech.solve()
        knees = [0.1 * np.array([np.cos(a), np.sin(a)])
                 for a in (-np.pi / 4 + q[0], -3 * np.pi / 4 + q[1])]
        np.testing.assert_allclose(robot.bodies["foot"].position[:2],
                                   circle_intersection(knees[0], knees[1], 0.2, 0.2),
                                   atol=1e-10)


def loop_closure_errors(path, actuator_values, settle_steps=2000):
    """The anchor gap of the first connect equality: mechsolve's solved pose; MuJoCo's
    ``mj_forward`` at the actuated joints' values and the passive ones left at ``qpos0`` (the
    naive qpos); and MuJoCo after ``settle_steps`` of ``mj_step`` with position servos holding
    the actuated values (its soft equality constraint pulling the loop shut)."""
    robot = load_mjcf(path)
    for k, v in actuator_values.items():
        robot.actuated[k].value = v
    robot.mechanism.solve()
    m = robot.model
    d = mujoco.MjData(m)
    ours = connect_gap(m, mujoco_poses(m, robot.qpos()), 0)
    naive = m.qpos0.copy()
    for k, v in actuator_values.items():
        naive[m.jnt_qposadr[m.actuator_trnid[m.actuator(k).id][0]]] = v
    d.qpos[:] = naive
    mujoco.mj_forward(m, d)
    forward = connect_gap(m, d, 0)
    d.ctrl[:] = [actuator_values[m.actuator(a).name] for a in range(m.nu)]
    for _ in range(settle_steps):
        mujoco.mj_step(m, d)
    stepped = connect_gap(m, d, 0)
    return ours, forward, stepped


@pytest.mark.parametrize("path, values", [
    ("fourbar_gripper.xml", {"motor_servo": 0.5}),
    ("fivebar_leg.xml", {"hip_front_servo": 0.3, "hip_back_servo": -0.2}),
])
def test_loop_closure_error_against_mujoco(path, values):
    ours, forward, stepped = loop_closure_errors(DATA / path, values)
    print(f"{path}: mechsolve {ours:.3g}, mj_forward (naive qpos) {forward:.3g}, "
          f"after mj_step settling {stepped:.3g}")
    assert ours < 1e-12
    assert forward > 1e-3          # MuJoCo does not close loops kinematically
    assert stepped > ours


WELD_AND_JOINT = """<mujoco><compiler angle="radian"/><worldbody>
  <body name="a" pos="0 0 0"><joint name="ja" type="hinge" axis="0 0 1" range="-1 1"
      limited="true"/><geom size=".05"/>
    <body name="b" pos="1 0 0" euler="0 0 0.4"><joint name="jb" type="slide" axis="1 0 0"
        ref="0.2"/><geom size=".05"/></body></body>
  <body name="c" pos="2 0.5 0" euler="0.1 0.2 0.3"><joint name="jd" type="hinge"
      axis="0 1 0" pos="0.1 0 0"/><joint name="jc" type="ball" pos="0 0.1 0"/>
    <geom size=".05"/></body>
  <body name="f" pos="0 0 3"><freejoint name="free"/><geom size=".05"/></body>
</worldbody><equality>
  <weld body1="b" body2="f"/>
  <joint joint1="jb" joint2="ja" polycoef="0.1 0.5 0.3 0 0"/>
</equality></mujoco>"""


def test_weld_joint_equality_ball_slide_free_and_limits():
    robot = load_mjcf(WELD_AND_JOINT, actuated=["ja", "jd"])
    mech = robot.mechanism
    assert robot.joint_map["ja"].limits == (-1.0, 1.0)
    assert "c/jd" in robot.bodies                  # the intermediate body between jd and jc
    robot.actuated["ja"].value = 0.3
    mech.solve()
    qpos = robot.qpos()
    assert qpos.shape == (robot.model.nq,)
    m = robot.model
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    # MuJoCo's own equality residuals vanish at mechsolve's pose
    assert np.abs(d.efc_pos[:d.ne]).max() < 1e-10
    for i in range(1, m.nbody):
        np.testing.assert_allclose(robot.bodies[m.body(i).name].position, d.xpos[i],
                                   atol=1e-10)
        np.testing.assert_allclose(np.abs(robot.bodies[m.body(i).name].orientation.quaternion
                                          @ d.xquat[i]), 1.0, atol=1e-10)
    # the joint equality: jb - 0.2 = 0.1 + 0.5 ja + 0.3 ja^2
    assert qpos[1] - 0.2 == pytest.approx(0.1 + 0.5 * 0.3 + 0.3 * 0.09, abs=1e-12)
    # from_qpos places every body where MuJoCo has it
    other = qpos.copy()
    other[3:7] = [np.cos(0.2), 0.0, np.sin(0.2), 0.0]
    robot.from_qpos(other)
    d.qpos[:] = other
    mujoco.mj_kinematics(m, d)
    for i in range(1, m.nbody):
        np.testing.assert_allclose(robot.bodies[m.body(i).name].position, d.xpos[i],
                                   atol=1e-12)
    np.testing.assert_allclose(robot.qpos(), other, atol=1e-12)


def test_mjcf_faults():
    with pytest.raises(ValueError, match="^MJCF: XML Error"):
        load_mjcf("<mujoco><worldbody><body><joint type='bad'/></body></worldbody></mujoco>")
    sites = ("<mujoco><worldbody><body name='a'><joint/><geom size='.1'/><site name='s'/>"
             "</body><site name='t'/></worldbody><equality><connect site1='s' site2='t'/>"
             "</equality></mujoco>")
    with pytest.raises(ValueError, match="joins sites"):
        load_mjcf(sites)
    with pytest.raises(ValueError, match="actuated names 'x'"):
        load_mjcf(DATA / "fourbar_gripper.xml", actuated=["x"])
    with pytest.raises(FileNotFoundError, match="MJCF file"):
        load_mjcf(DATA / "missing.xml")
    with pytest.raises(ValueError, match="qpos must be 3 finite numbers"):
        load_mjcf(DATA / "fourbar_gripper.xml").from_qpos([0.0, 1.0])


def test_delta_mjcf_hinges_closed_by_two_connects_match_the_closed_form():
    """The delta robot in MJCF: each hinge closing a loop on the platform is two connect
    equalities along its axis (MJCF has no hinge equality), one of their equations redundant;
    mechsolve names the redundancy, and the platform is where the closed form puts it."""
    robot = load_mjcf(DATA / "delta.xml")
    mech = robot.mechanism
    report = mech.dof()
    assert report.free == 0 and len(report.redundant) == 2
    rng = np.random.default_rng(5)
    platform = robot.bodies["platform"]
    for _ in range(5):
        theta = rng.uniform(-0.3, 0.5, 3)
        for k, t in zip(("motor1_servo", "motor2_servo", "motor3_servo"), theta):
            robot.actuated[k].value = t
        mech.solve()
        np.testing.assert_allclose(platform.position, delta_platform(theta), atol=1e-10)
    # written back and placed by MuJoCo's own forward kinematics
    d = mujoco_poses(robot.model, robot.qpos())
    np.testing.assert_allclose(d.xpos[robot.model.body("platform").id], platform.position,
                               atol=1e-10)


# -- bounded and confined reading (issue 26) ----------------------------------------------------
PENDULUM = """<mujoco model="pendulum">
  {head}
  <worldbody>
    <body name="arm" pos="{pos}">
      <joint name="swing" type="hinge" axis="{axis}" range="{range}" limited="true"/>
      <geom type="sphere" size="0.01" mass="0.1"/>
    </body>
  </worldbody>
</mujoco>
"""


def pendulum(head="", pos="0 0 1", axis="0 1 0", range="-1 1"):
    return PENDULUM.format(head=head, pos=pos, axis=axis, range=range)


@pytest.fixture
def model_dir(tmp_path):
    """A model folder, and beside it a secret MJCF, a non-XML file and a mesh."""
    d = tmp_path / "model"
    (d / "sub").mkdir(parents=True)
    (tmp_path / "secret.xml").write_text('<mujoco><worldbody><body name="hidden_treasure"/>'
                                         '</worldbody></mujoco>')
    (tmp_path / "notxml.txt").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (d / "sub" / "part.xml").write_text('<mujoco><worldbody><body name="inside"/></worldbody>'
                                        '</mujoco>')
    return d


def _refused(path, **kw) -> str:
    with pytest.raises(ValueError) as info:
        load_mjcf(path, **kw)
    return str(info.value)


@pytest.mark.parametrize("name", ["../secret.xml", "../missing.xml", "../notxml.txt",
                                  "sub/../../secret.xml", "/etc/passwd", "/nonexistent.xml"])
def test_an_include_outside_the_models_folder_is_refused_alike(model_dir, name):
    path = model_dir / "model.xml"
    path.write_text(pendulum(head=f'<include file="{name}"/>'))
    msg = _refused(path)
    assert f"MJCF file {str(path)!r}: line 2: <include> file={name!r}: outside the model's " \
           "folder" in msg and "allow_paths" in msg
    path.write_text(pendulum(head='<include file="../never-there.xml"/>'))
    assert msg.replace(repr(name), "NAME") == _refused(path).replace(
        repr("../never-there.xml"), "NAME")
    for word in ("hidden_treasure", "root:", "Error opening", "XML Error", "parse error"):
        assert word not in msg


def test_includes_and_assets_inside_or_allowed(model_dir, monkeypatch):
    path = model_dir / "model.xml"
    path.write_text(pendulum(head='<include file="sub/part.xml"/>'))
    assert "inside" in load_mjcf(path).bodies
    path.write_text(pendulum(head='<include file="../secret.xml"/>'))
    assert "hidden_treasure" in load_mjcf(path, allow_paths=[model_dir.parent]).bodies
    # meshes, textures and the compiler's folders are confined the same way
    for head in ('<asset><mesh name="m" file="../secret.stl"/></asset>',
                 '<asset><texture name="t" type="2d" file="/etc/hostname"/></asset>',
                 '<compiler meshdir="/etc"/>', '<compiler assetdir="../"/>',
                 '<compiler meshdir="sub"/><asset><mesh name="m" file="../../x.stl"/></asset>'):
        path.write_text(pendulum(head=head))
        assert "outside the model's folder" in _refused(path)
    # XML text: names are taken from the current folder
    monkeypatch.chdir(model_dir)
    assert "outside the model's folder" in _refused(pendulum(head='<include '
                                                                  'file="../secret.xml"/>'))
    assert "inside" in load_mjcf(pendulum(head='<include file="sub/part.xml"/>')).bodies


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_an_include_through_a_link_out_of_the_folder_is_refused(model_dir):
    try:
        (model_dir / "link.xml").symlink_to(model_dir.parent / "secret.xml")
    except OSError:                                     # pragma: no cover
        pytest.skip("symbolic links not allowed here")
    path = model_dir / "model.xml"
    path.write_text(pendulum(head='<include file="link.xml"/>'))
    assert "<include> file='link.xml': outside the model's folder" in _refused(path)


def test_mjcf_reading_is_bounded(model_dir):
    path = model_dir / "model.xml"
    path.write_text(pendulum())
    size = path.stat().st_size
    assert "more than 100 bytes" in _refused(path, max_bytes=100)
    assert load_mjcf(path, max_bytes=size).bodies["arm"]
    (model_dir / "loop.xml").write_text('<mujoco><include file="loop.xml"/></mujoco>')
    path.write_text(pendulum(head='<include file="loop.xml"/>'))
    assert "includes nested more than 16 deep" in _refused(path)
    path.write_text('<?xml version="1.0"?><!DOCTYPE mujoco [<!ENTITY x "../secret.xml">]>'
                    '<mujoco><include file="&x;"/></mujoco>')
    assert "a document type declaration" in _refused(path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="MJCF file '/dev/zero': more than 16777216 bytes"):
            load_mjcf("/dev/zero")


@pytest.mark.parametrize("kw, message", [
    ({"pos": "nan 0 0"}, r"line 4: <body> pos='nan 0 0': a number that is not finite"),
    ({"axis": "0 inf 0"}, r"line 5: <joint> axis='0 inf 0': a number that is not finite"),
    ({"pos": "1e300 0 0"}, r"body 'arm': placed at \[1e\+300, 0, 0\]"),
    ({"axis": "1e300 0 0"}, r"joint 'swing': axis compiles to \[0, 0, 0\], not a unit vector"),
    ({"range": "-1e300 1e300", "head": '<compiler angle="radian"/>'},
     r"joint 'swing': range \[-1e\+300, 1e\+300\]"),
    ({"pos": "2e6 0 0"}, r"body 'arm': placed at \[2e\+06, 0, 0\].*at most 1e\+06"),
])
def test_nan_and_huge_numbers_name_the_file_and_the_element(tmp_path, monkeypatch, kw,
                                                           message):
    monkeypatch.chdir(tmp_path)                 # MuJoCo logs its warnings in MUJOCO_LOG.TXT
    path = tmp_path / "pendulum.xml"
    path.write_text(pendulum(**kw))
    with pytest.raises(ValueError, match=rf"^MJCF file {re.escape(repr(str(path)))}: {message}"):
        load_mjcf(path)
