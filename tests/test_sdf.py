"""SDFormat models (issue 31, item 2): loop joints (a joint whose child is already reached)
closed exactly, checked against the four-bar's closed form; a serial arm read from SDF moves
and solves like the same arm read from URDF; faults named; fuzzed like the URDF reader."""

from __future__ import annotations

import math
import pathlib
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from _urdf_cases import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve.io.sdf import read_sdf_graph
from mechsolve.robots import (
    load_sdf,
    load_sdf_mechanism,
    load_urdf,
    load_urdf_mechanism,
    urdf_joint_values,
)

DATA = pathlib.Path(__file__).parent / "data" / "sdf"
FOURBAR = (DATA / "fourbar.sdf").read_text()
ARM = (DATA / "arm.sdf").read_text()
O4 = np.array([6.4, -2.2])


def _circles(c1, r1, c2, r2):
    """The intersection of two circles left of the line from ``c1`` to ``c2``."""
    d = np.linalg.norm(c2 - c1)
    a = (r1**2 - r2**2 + d**2) / (2 * d)
    e = (c2 - c1) / d
    return c1 + a * e + np.sqrt(r1**2 - a**2) * np.array([-e[1], e[0]])


def test_the_loop_joint_is_the_one_whose_child_is_reached():
    graph = read_sdf_graph(FOURBAR)
    assert graph.root == "base"
    assert [j.name for j in graph.joints] == ["motor", "pivot", "knee"]
    assert [j.name for j in graph.loops] == ["pin"]
    pin = graph.loops[0]
    assert (pin.parent, pin.child, pin.kind) == ("coupler", "rocker", "revolute")
    np.testing.assert_allclose(pin.frame_parent[:3, 3], (4.0, 0.0, 0.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(pin.frame_child[:3, 3], (4.0, 0.0, 0.0), rtol=0, atol=1e-14)
    # SDFormat's default limit (1e16) is no limit
    assert graph.joints[2].limits is None


def test_fourbar_closes_exactly_over_a_turn():
    robot = load_sdf_mechanism(DATA / "fourbar.sdf", ["motor"])
    mech = robot.mechanism
    assert mech.dof().free == 0
    s = np.linspace(0.0, 2 * np.pi, 25)
    motion = mech.sweep(robot.actuated["motor"], s)
    crank, coupler, rocker = (robot.links[k] for k in ("crank", "coupler", "rocker"))
    theta = np.pi / 2 + s                              # the crank is drawn at 90 degrees
    A = np.column_stack([np.cos(theta), np.sin(theta)])
    B = np.array([_circles(a, 4.0, O4, 4.0) for a in A])
    for got, want in ((motion.point(crank, (1.0, 0.0, 0.0))[:, :2], A),
                      (motion.point(coupler, (0.0, 0.0, 0.0))[:, :2], A),
                      (motion.point(coupler, (4.0, 0.0, 0.0))[:, :2], B),
                      (motion.point(rocker, (4.0, 0.0, 0.0))[:, :2], B),
                      (motion.point(rocker, (0.0, 0.0, 0.0))[:, :2], np.tile(O4, (len(s), 1)))):
        assert np.max(np.abs(got - want)) <= 1e-12 * 6.8
    z = motion.point(rocker, (4.0, 0.0, 0.0))[:, 2]
    assert np.max(np.abs(z)) <= 1e-12


def test_ms_load_reads_sdf_without_drivers():
    mech = ms.load(DATA / "fourbar.sdf")
    assert mech.name == "fourbar" and mech.units["length"] == "m"
    assert sorted(b.name for b in mech.bodies) == ["coupler", "crank", "rocker"]
    assert mech.dof().free == 1
    mech.add(joints.CoordinateDriver(mech.joint("motor"), np.pi / 2))   # the crank at 180
    mech.solve()
    np.testing.assert_allclose(mech.body("rocker").to_global((4.0, 0.0, 0.0))[:2],
                               _circles(np.array([-1.0, 0.0]), 4.0, O4, 4.0), rtol=0,
                               atol=1e-12)


def test_sdf_arm_moves_like_the_urdf_arm():
    sdf, urdf = load_sdf(DATA / "arm.sdf"), load_urdf(DATA / "arm.urdf")
    assert sdf.joint_names == urdf.joint_names == ["turn", "tilt", "reach"]
    assert [j.limits for j in sdf.joints] == [j.limits for j in urdf.joints]
    rng = np.random.default_rng(7)
    q = rng.uniform([-2.0, -1.5, 0.0], [2.0, 1.5, 0.3], size=(50, 3))
    for qi in q:
        a, b = sdf.forward(qi).as_matrix(), urdf.forward(qi).as_matrix()
        assert np.max(np.abs(a - b)) <= 1e-12
        np.testing.assert_allclose(sdf.jacobian(qi), urdf.jacobian(qi), rtol=0, atol=1e-12)
    # inverse kinematics from the SDF arm reaches a pose of the URDF arm
    target = urdf.forward(q[3])
    result = sdf.ik(target, q[3] + 0.1)
    assert result.success
    got = urdf.forward(result.q).as_matrix()
    assert np.max(np.abs(got - target.as_matrix())) <= 1e-10


def test_sdf_arm_mechanism_matches_the_urdf_one():
    a = load_sdf_mechanism(DATA / "arm.sdf", ["turn", "tilt", "reach"])
    b = load_urdf_mechanism(DATA / "arm.urdf", ["turn", "tilt", "reach"])
    for robot in (a, b):
        robot.set_actuated({"turn": 0.7, "tilt": -0.4, "reach": 0.2})
        robot.mechanism.solve()
    pa, pb = a.links["tool"].to_global((0.0, 0.0, 0.0)), b.links["tool"].to_global((0, 0, 0))
    assert np.max(np.abs(pa - pb)) <= 1e-12
    assert urdf_joint_values(a.mechanism) == pytest.approx({"turn": 0.7, "tilt": -0.4,
                                                            "reach": 0.2}, abs=1e-12)


def _edit(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("old, new, message", [
    ('type="revolute">\n      <parent>crank', 'type="universal">\n      <parent>crank',
     "joint 'knee' has type 'universal'"),
    ("<child>rocker</child>\n      <pose relative_to",
     "<child>nothing</child>\n      <pose relative_to", "names child 'nothing'"),
    ('<pose relative_to="coupler">', '<pose relative_to="elsewhere">',
     "names frame 'elsewhere'"),
    ("<pose>6.4 -2.2 0", "<pose>nan -2.2 0", "must be 6 finite numbers"),
    ("<pose>6.4 -2.2 0", "<pose>6.4e7 -2.2 0", "beyond the bound of 1e+06"),
    ("<xyz>0 0 1</xyz></axis>\n    </joint>\n    <joint name=\"knee\"",
     "<xyz>0 0 0</xyz></axis>\n    </joint>\n    <joint name=\"knee\"", "has a zero axis"),
    ("<lower>-1e16</lower><upper>1e16</upper>", "<lower>1</lower><upper>-1</upper>",
     "has lower 1.0 > upper -1.0"),
    ("<parent>crank</parent>\n      <child>coupler</child>",
     "<parent>coupler</parent>\n      <child>crank</child>",
     "link 'coupler' is not reached from the root link 'base'"),
    ("<model name=\"fourbar\">", "<model name=\"fourbar\"><include><uri>x</uri></include>",
     "nests a <model> or <include>"),
    ("<link name=\"coupler\">", "<link name=\"crank\">", "the name of another link"),
])
def test_faults_are_named(old, new, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        read_sdf_graph(_edit(FOURBAR, old, new))
    assert str(info.value).startswith("SDF: ")


def test_other_faults(tmp_path):
    with pytest.raises(ValueError, match=r"SDF: the root element must be <sdf>, got <robot>"):
        read_sdf_graph("<robot/>")
    with pytest.raises(ValueError, match="expected one <model>, found 0"):
        read_sdf_graph("<sdf version='1.7'/>")
    with pytest.raises(ValueError, match="not well-formed XML"):
        read_sdf_graph(FOURBAR[:300])
    cycle = _edit(_edit(FOURBAR, "<link name=\"crank\">\n      <pose>",
                        "<link name=\"crank\">\n      <pose relative_to=\"coupler\">"),
                  "<link name=\"coupler\">\n      <pose>",
                  "<link name=\"coupler\">\n      <pose relative_to=\"crank\">")
    with pytest.raises(ValueError, match="relative to each other in a cycle"):
        read_sdf_graph(cycle)
    entity = ('<?xml version="1.0"?><!DOCTYPE sdf [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
              '<sdf version="1.7"><model name="m"><link name="&x;"/></model></sdf>')
    with pytest.raises(ValueError, match="SDF"):
        read_sdf_graph(entity)
    (tmp_path / "bad.sdf").write_text(_edit(FOURBAR, 'type="continuous"', 'type="screw"'))
    with pytest.raises(ms.ModelFileError, match=r"SDF file '.*bad.sdf': joint 'motor' has "
                                                r"type 'screw'"):
        ms.load(tmp_path / "bad.sdf")
    with pytest.raises(ms.ModelFileError, match="more than 100 bytes"):
        ms.load(DATA / "fourbar.sdf", max_bytes=100)
    with pytest.raises(ValueError, match="closes a loop; a serial arm is a chain"):
        load_sdf(DATA / "fourbar.sdf")


def test_pose_forms_agree():
    """``degrees="true"`` and ``quat_xyzw`` give the pose of radians and roll-pitch-yaw."""
    base = _edit(FOURBAR, "<pose>6.4 -2.2 0 0 0 2.214297435588181</pose>",
                 "<pose degrees=\"true\">6.4 -2.2 0 0 0 126.86989764584402</pose>")
    yaw = 2.214297435588181
    quat = _edit(FOURBAR, "<pose>6.4 -2.2 0 0 0 2.214297435588181</pose>",
                 f"<pose rotation_format=\"quat_xyzw\">6.4 -2.2 0 0 0 {math.sin(yaw / 2)!r} "
                 f"{math.cos(yaw / 2)!r}</pose>")
    want = read_sdf_graph(FOURBAR).poses["rocker"]
    for text in (base, quat):
        np.testing.assert_allclose(read_sdf_graph(text).poses["rocker"], want, rtol=0,
                                   atol=1e-15)


# -- fuzzed, as tests/test_urdf_fuzz.py fuzzes the URDF reader ----------------------------------
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                    st.sampled_from(["1e308", "1e16", "-1e16", "1e6", "0x10", "nan", "", " ",
                                     "1 2", "0 0 0", "0 0 1", "1e-320"]))
TEXTS = st.one_of(NUMBERS, st.sampled_from(["base", "crank", "coupler", "rocker", "world",
                                            "__model__", "revolute", "ball", "fixed",
                                            "prismatic", "continuous", "universal", "true",
                                            "quat_xyzw", "euler_rpy", "motor", "pin", "x"]),
                  st.text(max_size=5))


@st.composite
def _mutated(draw):
    root = ET.fromstring(draw(st.sampled_from([FOURBAR, ARM])))
    for _ in range(draw(st.integers(1, 4))):
        elements = list(root.iter())
        el = draw(st.sampled_from(elements))
        op = draw(st.sampled_from(["text", "text", "attr", "remove", "duplicate", "retag"]))
        if op == "text":
            el.text = draw(TEXTS)
        elif op == "attr":
            el.set(draw(st.sampled_from(["name", "type", "relative_to", "expressed_in",
                                         "degrees", "rotation_format", "canonical_link"])),
                   draw(TEXTS))
        elif op in ("remove", "duplicate"):
            parents = {c: p for p in root.iter() for c in p}
            if el in parents:
                if op == "remove":
                    parents[el].remove(el)
                else:
                    parents[el].append(el)
        else:
            el.tag = draw(st.sampled_from(["link", "joint", "pose", "axis", "xyz", "limit",
                                           "frame", "model", "include", "parent", "child"]))
    text = ET.tostring(root, encoding="unicode")
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(derandomize=True, max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_sdf_loads_or_is_refused_by_name(text):
    with time_limit(10.0):
        try:
            robot = load_sdf_mechanism(text)
        except ValueError as exc:
            assert str(exc).startswith(("SDF: ", "SDF model "))
            return
        for body in robot.mechanism.bodies:
            assert np.all(np.isfinite(body.position))


def test_a_moving_joint_to_the_world_moves_its_child():
    text = '''<sdf version="1.7"><model name="pendulum">
      <link name="bob"><pose>0 0 -1 0 0 0</pose></link>
      <joint name="swing" type="revolute"><parent>world</parent><child>bob</child>
        <pose>0 0 1 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>
    </model></sdf>'''
    assert read_sdf_graph(text).root == "world"
    robot = load_sdf_mechanism(text, ["swing"])
    for t in (0.4, np.pi / 2, -2.0):
        robot.actuated["swing"].value = t
        robot.mechanism.solve()
        want = (-math.sin(t), 0.0, -math.cos(t))        # (0, 0, -1) turned about +y
        assert np.max(np.abs(robot.links["bob"].position - want)) <= 1e-12
        assert np.max(np.abs(load_sdf(text).forward([t]).translation - want)) <= 1e-12
