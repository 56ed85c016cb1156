"""Robot models with loops (issue 17, items 2 and 4): URDF with mechsolve's ``<loop_joint>``,
MJCF through MuJoCo's compiler, each against its closed form, and the joint values written
back (URDF by name, MJCF as ``qpos``, checked by MuJoCo's own forward kinematics).

The models are written by ``tests/data/make_loop_models.py``.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.robots import load_urdf_mechanism, urdf_joint_values

DATA = pathlib.Path(__file__).parent / "data"


# -- closed forms ------------------------------------------------------------------------------
def circle_intersection(c1, c2, r1, r2, lower=True):
    """The intersection of two circles in the plane (the one with the smaller y if lower)."""
    d = np.linalg.norm(c2 - c1)
    a = (r1 ** 2 - r2 ** 2 + d ** 2) / (2 * d)
    h = np.sqrt(r1 ** 2 - a ** 2)
    e = (c2 - c1) / d
    n = np.array([-e[1], e[0]])
    p = c1 + a * e
    cands = [p + h * n, p - h * n]
    return min(cands, key=lambda q: q[1]) if lower else cands


def fourbar_rocker(q_motor):
    """The gripper's rocker angle (absolute) for a motor value, by the law of cosines: crank 1
    from (0, 0) starting along +y, coupler 5, rocker 5 from O4 = (6, 1), branch of the home
    pose (B = (3, 5))."""
    phi = np.pi / 2 + q_motor
    A = np.array([np.cos(phi), np.sin(phi)])
    O4 = np.array([6.0, 1.0])
    D = A - O4
    r = np.linalg.norm(D)
    gamma = np.arccos((5.0 ** 2 + r ** 2 - 5.0 ** 2) / (2 * 5.0 * r))
    psi = np.arctan2(D[1], D[0]) - gamma           # the home branch: B above the ground line
    B = O4 + 5.0 * np.array([np.cos(psi), np.sin(psi)])
    return psi, A, B


def trilaterate(c, r):
    """The lower intersection point of three spheres (centres ``c (3, 3)``, radii ``r``)."""
    ex = (c[1] - c[0]) / np.linalg.norm(c[1] - c[0])
    i = ex @ (c[2] - c[0])
    ey = c[2] - c[0] - i * ex
    ey /= np.linalg.norm(ey)
    ez = np.cross(ex, ey)
    d = np.linalg.norm(c[1] - c[0])
    j = ey @ (c[2] - c[0])
    x = (r[0] ** 2 - r[1] ** 2 + d ** 2) / (2 * d)
    y = (r[0] ** 2 - r[2] ** 2 + i ** 2 + j ** 2) / (2 * j) - i / j * x
    z = np.sqrt(r[0] ** 2 - x ** 2 - y ** 2)
    p1, p2 = c[0] + x * ex + y * ey + z * ez, c[0] + x * ex + y * ey - z * ez
    return p1 if p1[2] < p2[2] else p2


def delta_platform(theta, R=0.15, La=0.2, Lb=0.5, r=0.05):
    """Closed-form forward kinematics of the delta: the elbows ``E_i = R u_i + La (cos t u_i -
    sin t z)``; the platform centre is ``Lb`` from each ``E_i - r u_i`` (the wrist offset
    moved to the elbow, as the platform only translates)."""
    c = []
    for i, t in enumerate(theta):
        a = 2 * np.pi * i / 3
        u = np.array([np.cos(a), np.sin(a), 0.0])
        c.append(R * u + La * (np.cos(t) * u - np.sin(t) * np.array([0, 0, 1.0])) - r * u)
    return trilaterate(np.array(c), np.full(3, Lb))


# -- URDF with loops ---------------------------------------------------------------------------
def test_fourbar_gripper_urdf_sweep_and_velocity_match_the_closed_form():
    robot = load_urdf_mechanism(DATA / "fourbar_gripper.urdf", ["motor"])
    mech = robot.mechanism
    assert mech.dof().dof == 1 and mech.dof().free == 0
    angles = np.linspace(0.0, 2 * np.pi, 73)
    motion = mech.sweep(robot.actuated["motor"], angles)
    rocker = robot.links["rocker"]
    worst = 0.0
    for k, q in enumerate(angles):
        psi, _, B = fourbar_rocker(q)
        mech.state = motion.states[k]
        pivot = robot.joints["pivot"].value
        worst = max(worst, abs(np.angle(np.exp(1j * (pivot - (psi - np.arctan2(4, -3)))))),
                    np.linalg.norm(rocker.to_global((-3, 4, 0))[:2] - B))
    assert worst < 1e-10
    # velocity: omega4 / omega2 = a sin(theta3 - phi) / (c sin(theta3 - psi))
    robot.actuated["motor"].value = ms.profiles.ConstantSpeed(speed=2.0)
    mech.solve(t=0.3)
    psi, A, B = fourbar_rocker(0.6)
    th3 = np.arctan2(*(B - A)[::-1])
    omega4 = 2.0 * 1.0 * np.sin(th3 - (np.pi / 2 + 0.6)) / (5.0 * np.sin(th3 - psi))
    v = mech.point_velocity(rocker, (-3, 4, 0))
    expected = omega4 * np.array([-(B - [6, 1])[1], (B - [6, 1])[0], 0.0])
    np.testing.assert_allclose(v, expected, atol=1e-10)


def test_fivebar_leg_urdf_matches_the_circle_intersection():
    robot = load_urdf_mechanism(DATA / "fivebar_leg.urdf", ["hip_front", "hip_back"])
    mech = robot.mechanism
    rng = np.random.default_rng(17)
    for _ in range(20):
        q = rng.uniform(-0.4, 0.4, 2)
        robot.set_actuated({"hip_front": q[0], "hip_back": q[1]})
        mech.solve()
        knees = [0.1 * np.array([np.cos(a), np.sin(a)])
                 for a in (-np.pi / 4 + q[0], -3 * np.pi / 4 + q[1])]
        foot = circle_intersection(knees[0], knees[1], 0.2, 0.2)
        np.testing.assert_allclose(robot.links["foot"].position[:2], foot, atol=1e-10)
        assert abs(robot.links["foot"].position[2]) < 1e-12


def delta_robot():
    return load_urdf_mechanism(DATA / "delta.urdf", ["motor1", "motor2", "motor3"])


def test_delta_urdf_matches_the_closed_form_forward_kinematics():
    robot = delta_robot()
    mech = robot.mechanism
    report = mech.dof()
    assert report.free == 0
    rng = np.random.default_rng(4)
    platform = robot.links["platform"]
    for _ in range(10):
        theta = rng.uniform(-0.3, 0.5, 3)
        robot.set_actuated(dict(zip(["motor1", "motor2", "motor3"], theta)))
        mech.solve()
        np.testing.assert_allclose(platform.position, delta_platform(theta), atol=1e-10)
        # the platform only translates
        np.testing.assert_allclose(platform.orientation.as_matrix(), np.eye(3), atol=1e-10)


def test_delta_ik_puts_the_platform_on_a_target():
    robot = delta_robot()
    mech = robot.mechanism
    theta = np.array([0.2, -0.1, 0.35])
    target = delta_platform(theta)
    for d in robot.actuated.values():
        mech.remove(d)
    mech.add(joints.PointEndEffector(robot.links["platform"], target=target, name="goal"))
    assert mech.solve().success
    np.testing.assert_allclose(robot.links["platform"].position, target, atol=1e-10)
    values = urdf_joint_values(mech)
    np.testing.assert_allclose([values[f"motor{i}"] for i in (1, 2, 3)], theta, atol=1e-9)


def test_urdf_joint_values_by_name_round_trip_through_the_tree():
    """The values written back place the links where the solved mechanism has them (tree
    forward kinematics from the URDF alone)."""
    robot = load_urdf_mechanism(DATA / "fourbar_gripper.urdf", ["motor"])
    robot.actuated["motor"].value = 1.1
    robot.mechanism.solve()
    values = robot.joint_values()
    assert set(values) == {"motor", "knee", "pivot"}
    again = load_urdf_mechanism(DATA / "fourbar_gripper.urdf", values=values)
    for name in ("crank", "coupler", "rocker", "jaw"):
        np.testing.assert_allclose(again.links[name].position, robot.links[name].position,
                                   atol=1e-12)
    assert np.abs(again.mechanism.residuals()).max() < 1e-12


def test_loop_joint_types():
    base = ('<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
            '<joint name="j1" type="continuous"><parent link="a"/><child link="b"/>'
            '<axis xyz="0 0 1"/></joint>'
            '<joint name="j2" type="prismatic"><parent link="a"/><child link="c"/>'
            '<origin xyz="1 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1"/></joint>'
            '<loop_joint name="L" type="{}"><parent link="b" xyz="1 0 0"/>'
            '<child link="c"/><axis xyz="0 0 1"/></loop_joint></robot>')
    for kind, n in (("revolute", 5), ("continuous", 5), ("spherical", 3), ("fixed", 6),
                    ("prismatic", 5)):
        robot = load_urdf_mechanism(base.format(kind), ["j1"] if kind != "fixed" else ())
        assert robot.loop_joints["L"].n_equations == n
        assert robot.joints["j2"].limits == (-1.0, 1.0)


# -- faults of the <loop_joint> element ---------------------------------------------------------
GOOD = ('<robot name="r"><link name="a"/><link name="b"/>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>'
        '{}</robot>')
FAULTS = [
    ('<loop_joint type="revolute"><parent link="a"/><child link="b"/></loop_joint>',
     "<loop_joint> element 1 has no name"),
    ('<loop_joint name="j" type="revolute"><parent link="a"/><child link="b"/></loop_joint>',
     "<loop_joint> 'j' has the name of <joint> element 1"),
    ('<loop_joint name="L" type="revolute"><parent link="a"/><child link="b"/></loop_joint>'
     '<loop_joint name="L" type="fixed"><parent link="a"/><child link="b"/></loop_joint>',
     "<loop_joint> elements 1 and 2 are both named 'L'"),
    ('<loop_joint name="L" type="floating"><parent link="a"/><child link="b"/></loop_joint>',
     "<loop_joint> 'L' has type 'floating'"),
    ('<loop_joint name="L" type="revolute"><child link="b"/></loop_joint>',
     "<loop_joint> 'L' has no <parent> element"),
    ('<loop_joint name="L" type="revolute"><parent link="a"/><child/></loop_joint>',
     "the <child> element of <loop_joint> 'L' has no link"),
    ('<loop_joint name="L" type="revolute"><parent link="x"/><child link="b"/></loop_joint>',
     "<loop_joint> 'L' names parent link 'x'"),
    ('<loop_joint name="L" type="revolute"><parent link="b"/><child link="b"/></loop_joint>',
     "<loop_joint> 'L' joins link 'b' to itself"),
    ('<loop_joint name="L" type="revolute"><parent link="a" xyz="1 nan 0"/>'
     '<child link="b"/></loop_joint>', "xyz of the <parent> of loop joint 'L'"),
    ('<loop_joint name="L" type="revolute"><parent link="a"/><child link="b" rpy="1e9 0 0"/>'
     '</loop_joint>', "rpy of the <child> of loop joint 'L' is '1e9 0 0', beyond"),
    ('<loop_joint name="L" type="revolute"><parent link="a"/><child link="b"/>'
     '<axis xyz="0 0 0"/></loop_joint>', "<loop_joint> 'L' has a zero axis"),
    ('<loop_joint name="L" type="prismatic"><parent link="a"/><child link="b"/>'
     '<axis xyz="0 1"/></loop_joint>', "axis xyz of loop joint 'L' must be 3"),
]


@pytest.mark.parametrize("fragment, message", FAULTS)
def test_loop_joint_faults_name_the_file_and_the_element(tmp_path, fragment, message):
    text = GOOD.format(fragment)
    with pytest.raises(ValueError, match="^URDF: " + _escaped(message)):
        ms.io.urdf.read_urdf_graph(text)
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"^URDF file '{_escaped(str(path))}': "
                       + _escaped(message)):
        load_urdf_mechanism(path)


def _escaped(text):
    import re

    return re.escape(text)


def test_load_urdf_mechanism_rejects_unknown_names():
    text = GOOD.format("")
    with pytest.raises(ValueError, match="actuated names 'nope', which is no moving"):
        load_urdf_mechanism(text, ["nope"])
    with pytest.raises(ValueError, match="values names 'nope'"):
        load_urdf_mechanism(text, values={"nope": 1.0})


def test_serial_reader_ignores_loop_joints():
    arm = ms.robots.load_urdf(DATA / "fourbar_gripper.urdf", tip="coupler")
    assert arm.joint_names == ["motor", "knee"]
