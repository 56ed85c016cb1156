"""Loop-aware URDF (issue 31, item 3): URDF+ ``<loop>`` / ``<coupling>``, the Gepetto and
scikit-robot sidecars, MJCF equalities at the configuration the model was defined in, and a
Cassie-style leg (``tests/data/cassie_leg*``) checked against its loop equations solved in
closed form.
"""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.io.urdf_sidecars import read_sidecar
from mechsolve.robots import load_urdf_mechanism

DATA = pathlib.Path(__file__).parent / "data"
LEG = DATA / "cassie_leg.urdf"
GEPETTO = DATA / "cassie_leg_gepetto" / "cassie_leg.urdf"
SKROBOT = DATA / "cassie_leg_skrobot" / "cassie_leg.urdf"
TOL = 1e-12                     # of the leg's size (about 1 m)

# the numbers of tests/data/cassie_leg.urdf, read here by hand
KNEE_AT, KNEE_YAW = np.array([0.12, 0.0]), -np.pi / 4
TARSUS_AT, TARSUS_YAW = np.array([0.49544, 0.06741]), 1.0122909661567112
ROD = np.array([0.39705, -0.303722])                 # the rod's far end, rod frame (xy)
HEEL = np.array([-0.118083, 0.026175])               # the heel pin, tarsus frame (xy)
CRANK_AT, CRANK = np.array([0.058, -0.034]), np.array([0.055, 0.0])
PLANTAR = 0.35012
FOOT_AT, FOOT_PIN = np.array([0.408, -0.04]), np.array([0.05512, 0.006])


def rot(a):
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def ang(v):
    return np.arctan2(v[1], v[0])


def wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def circles(c1, r1, c2, r2):
    """Both intersections of the circles (c1, r1) and (c2, r2): the one left of c1 -> c2
    first."""
    d = np.linalg.norm(c2 - c1)
    a = (r1 ** 2 - r2 ** 2 + d ** 2) / (2 * d)
    h = np.sqrt(r1 ** 2 - a ** 2)
    e = (c2 - c1) / d
    n = np.array([-e[1], e[0]])
    return c1 + a * e + h * n, c1 + a * e - h * n


def knee_loop(knee, heel=HEEL, rod=ROD, branch=0):
    """Tarsus and Achilles values for a knee value: the heel pin is at |rod| from the rod's
    pivot (the thigh's origin in xy) and at |heel| from the tarsus joint."""
    T = KNEE_AT + rot(KNEE_YAW + knee) @ TARSUS_AT
    H = circles(T, np.linalg.norm(heel), np.zeros(2), np.linalg.norm(rod))[branch]
    tarsus = wrap(ang(H - T) - ang(heel) - KNEE_YAW - knee - TARSUS_YAW)
    achilles = wrap(ang(H) - ang(rod))
    return tarsus, achilles, H


def ankle_loop(crank, branch=0):
    """Foot and plantar values (tarsus frame) for a foot-crank value."""
    B = CRANK_AT + rot(crank) @ CRANK
    Q = circles(FOOT_AT, np.linalg.norm(FOOT_PIN), B, PLANTAR)[branch]
    foot = wrap(ang(Q - FOOT_AT) - ang(FOOT_PIN))
    plantar = wrap(ang(Q - B) - crank)
    return foot, plantar, Q


def branches():
    """The branches of the defined configuration (values 0): the one nearer the file's
    pins."""
    kb = min((0, 1), key=lambda b: abs(knee_loop(0.0, branch=b)[0]))
    ab = min((0, 1), key=lambda b: abs(ankle_loop(0.0, branch=b)[0]))
    return kb, ab


def walk(robot, knee, crank, steps=8):
    """Drive the leg to ``(knee, crank)`` in ``steps`` solves (along its branch)."""
    k0, c0 = robot.actuated["knee"].value, robot.actuated["foot_crank"].value
    for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
        robot.set_actuated({"knee": k0 + t * (knee - k0), "foot_crank": c0 + t * (crank - c0)})
        assert robot.mechanism.solve().success


def pin_gap(robot, loop):
    """Distance between the two frames' origins of a loop joint, from the bodies' poses."""
    j = robot.loop_joints[loop]
    return np.linalg.norm(j.bodies[0].to_global(j.point1)
                          - j.bodies[1].to_global(j.point2))


# -- the Cassie leg ----------------------------------------------------------------------------
def test_cassie_leg_urdf_plus_closes_as_its_loop_equations():
    robot = load_urdf_mechanism(LEG, ["knee", "foot_crank"])
    assert sorted(robot.loop_joints) == ["ankle", "heel"]
    assert robot.mechanism.dof().dof == 2
    kb, ab = branches()
    for knee, crank in [(0.0, 0.0), (-0.8, -1.0), (-1.6, -2.2), (0.1, -0.6)]:
        walk(robot, knee, crank)
        v = robot.joint_values()
        tarsus, achilles, _ = knee_loop(knee, branch=kb)
        foot, plantar, _ = ankle_loop(crank, branch=ab)
        assert abs(wrap(v["tarsus"] - tarsus)) < TOL
        assert abs(wrap(v["achilles"] - achilles)) < TOL
        assert abs(wrap(v["foot"] - foot)) < TOL
        assert abs(wrap(v["plantar"] - plantar)) < TOL
        for loop in ("heel", "ankle"):
            assert pin_gap(robot, loop) < TOL


def test_cassie_leg_keeps_its_branch_over_the_knee_range():
    robot = load_urdf_mechanism(LEG, ["knee", "foot_crank"])
    robot.mechanism.solve()
    kb, _ = branches()
    knees = np.linspace(0.0, -1.9, 96)              # within the knee's and tarsus's limits
    motion = robot.mechanism.sweep(robot.actuated["knee"], knees)
    tarsus = robot.links["tarsus"]
    heel = motion.point(tarsus, robot.loop_joints["heel"].point2)
    rod_end = motion.point(robot.links["achilles_rod"],
                           robot.loop_joints["heel"].point1)
    for k, h, e in zip(knees, heel, rod_end):
        H = knee_loop(k, branch=kb)[2]
        assert np.linalg.norm(h[:2] - H) < TOL      # the defined branch, every step
        assert np.linalg.norm(h - e) < TOL
    other = np.array([knee_loop(k, branch=1 - kb)[2] for k in knees])
    assert np.min(np.linalg.norm(heel[:, :2] - other, axis=1)) > 1e-3   # branches apart



def test_cassie_ankle_keeps_its_branch_over_the_crank_range():
    """The foot crank over cassie.xml's range (-140 to -30 degrees); at the defined
    configuration (crank 0) the ankle is 0.4 mm from its toggle, so the leg is walked into
    the range first."""
    robot = load_urdf_mechanism(LEG, ["knee", "foot_crank"])
    walk(robot, -0.5, np.radians(-30))
    _, ab = branches()
    cranks = np.radians(np.linspace(-30, -140, 56))
    motion = robot.mechanism.sweep(robot.actuated["foot_crank"], cranks)
    tarsus = robot.links["tarsus"]
    pin = motion.point(robot.links["foot"], robot.loop_joints["ankle"].point2)
    rod = motion.point(robot.links["plantar_rod"], robot.loop_joints["ankle"].point1)
    for i, c in enumerate(cranks):
        Q = ankle_loop(c, branch=ab)[2]
        # the pin in the tarsus's frame, from the poses of the sweep's step
        motion.apply(i)
        R = tarsus.orientation.as_matrix()
        local = R.T @ (pin[i] - tarsus.position)
        assert np.linalg.norm(local[:2] - Q) < TOL
        assert np.linalg.norm(pin[i] - rod[i]) < TOL


@pytest.mark.parametrize("path", [LEG, GEPETTO])
def test_cassie_leg_round_trips_through_a_model_file(tmp_path, path):
    if path == GEPETTO:
        pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    robot = load_urdf_mechanism(path, ["knee", "foot_crank"])
    walk(robot, -0.7, -1.2)                         # along the branch, not across it
    ms.save(robot.mechanism, tmp_path / "leg.toml")
    again = ms.load(tmp_path / "leg.toml")
    drives = {j.name: j for j in again.joints}
    drives["knee_drive"].value = -0.7
    drives["foot_crank_drive"].value = -1.2
    again.solve()
    for body in robot.mechanism.bodies:
        twin = again.body(body.name)
        assert np.linalg.norm(twin.position - body.position) < TOL
    kb, ab = branches()
    values = {j.name: j.value for j in again.joints if isinstance(j, ms.joints.LinkJoint)}
    assert abs(wrap(values["tarsus"] - knee_loop(-0.7, branch=kb)[0])) < TOL
    assert abs(wrap(values["foot"] - ankle_loop(-1.2, branch=ab)[0])) < TOL


@pytest.mark.parametrize("scale, shift", [(1e-6, 0.0), (1e3, 0.0), (1.0, 2e3)])
def test_cassie_leg_is_the_same_in_micrometres_kilometres_and_far_away(scale, shift):
    """Every length of the file scaled (metres read as micrometres or kilometres), or the
    leg moved far from the thigh's origin (the knee and the rod pivot shifted alike): the
    joint values do not change."""
    import re

    text = LEG.read_text()

    def scaled(match):
        nums = [float(x) * scale for x in match.group(1).split()]
        return 'xyz="' + " ".join(repr(x) for x in nums) + '"'

    text = re.sub(r'xyz="([^"]*)"', scaled, text).replace('<axis xyz="0.0 0.0 ' +
                                                           repr(scale) + '"/>',
                                                           '<axis xyz="0 0 1"/>')
    if shift:
        for old in ('xyz="0.12 0.0 0.0045"', 'xyz="0.0 0.0 0.045"'):
            assert old in text
            x, y, z = (float(v) for v in old[5:-1].split())
            text = text.replace(old, f'xyz="{x + shift} {y - shift} {z + shift}"')
    robot = load_urdf_mechanism(text, ["knee", "foot_crank"])
    base = load_urdf_mechanism(LEG, ["knee", "foot_crank"])
    for r in (robot, base):
        walk(r, -0.9, -1.3, steps=4)
    a, b = robot.joint_values(), base.joint_values()
    tol = 1e-12 if not shift else 1e-12 * shift / 0.5     # round-off of the far coordinates
    for k in b:
        assert abs(wrap(a[k] - b[k])) < tol, k
    for loop in ("heel", "ankle"):
        assert pin_gap(robot, loop) < 1e-12 * scale * (1 + shift)


# -- sidecars ----------------------------------------------------------------------------------
def test_gepetto_sidecar_closes_the_same_leg():
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    robot = load_urdf_mechanism(GEPETTO)            # robot.yaml found next to it
    assert sorted(robot.actuated) == ["foot_crank", "knee"]
    assert all(isinstance(j, ms.joints.Spherical) for j in robot.loop_joints.values())
    plus = load_urdf_mechanism(LEG, ["knee", "foot_crank"])
    for r in (robot, plus):
        walk(r, -1.1, -0.6)
    a, b = robot.joint_values(), plus.joint_values()
    for k in b:
        assert abs(wrap(a[k] - b[k])) < TOL


def test_skrobot_sidecar_closes_hinges_through_its_points():
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    card = read_sidecar(SKROBOT.parent / "loop_closures.yaml")
    assert card.format == "skrobot" and card.actuated == ["knee", "foot_crank"]
    robot = load_urdf_mechanism(SKROBOT)
    assert sorted(robot.loop_joints) == ["closure1", "closure2"]
    # the sidecar's heel point, carried into the rod's and the tarsus's frames at the zero pose
    P = np.array(card.closures[0][2])
    rod = P[:2]                                     # the rod's pivot is over the thigh origin
    T0 = KNEE_AT + rot(KNEE_YAW) @ TARSUS_AT
    heel = rot(-(KNEE_YAW + TARSUS_YAW)) @ (P[:2] - T0)
    kb = min((0, 1), key=lambda b: abs(knee_loop(0.0, heel, rod, b)[0]))
    for knee in (-0.3, -1.4):
        walk(robot, knee, -0.9)
        tarsus, achilles, _ = knee_loop(knee, heel, rod, kb)
        v = robot.joint_values()
        assert abs(wrap(v["tarsus"] - tarsus)) < TOL
        assert abs(wrap(v["achilles"] - achilles)) < TOL
        for loop in ("closure1", "closure2"):
            assert pin_gap(robot, loop) < TOL


def test_sidecar_choices_and_faults(tmp_path):
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    folder = tmp_path / "leg"
    shutil.copytree(DATA / "cassie_leg_gepetto", folder)
    urdf = folder / "cassie_leg.urdf"
    assert not load_urdf_mechanism(urdf, sidecar=None).loop_joints
    other = tmp_path / "other"                      # a YAML file of the same stem, no sidecar
    other.mkdir()
    shutil.copy(urdf, other)
    (other / "cassie_leg.yaml").write_text("joints: [knee]\n")
    assert not load_urdf_mechanism(other / "cassie_leg.urdf").loop_joints
    (other / "cassie_leg.yaml").write_text("{closed_loop : [[heel_rod_end, heel_pin]]}\n")
    assert len(load_urdf_mechanism(other / "cassie_leg.urdf").loop_joints) == 1
    (other / "cassie_leg.yaml").write_text("# closed_loop: none here\njoints: [knee]\n")
    with pytest.raises(ValueError, match="expected the key closed_loop"):
        load_urdf_mechanism(other / "cassie_leg.urdf")
    shutil.copy(DATA / "cassie_leg_skrobot" / "loop_closures.yaml", folder)
    with pytest.raises(ValueError, match="two loop sidecars next to it, 'loop_closures.yaml' "
                                         "and 'cassie_leg.yaml'; pass sidecar="):
        load_urdf_mechanism(urdf)
    robot = load_urdf_mechanism(urdf, sidecar=folder / "loop_closures.yaml")
    assert sorted(robot.loop_joints) == ["closure1", "closure2"]
    with pytest.raises(TypeError, match="sidecar must be 'auto', a path or None, got int 3"):
        load_urdf_mechanism(urdf, sidecar=3)
    bad = folder / "bad.yaml"
    cases = [
        ("closed_loop: [['heel_rod_end', 'nowhere']]\n",
         "closed_loop names frame 'nowhere', which is no link or joint of the URDF"),
        ("closed_loop: [['heel_rod_end', 'heel_pin']]\ntype: ['4d']\n",
         "type '4d' is no constraint type; expected 3d"),
        ("closed_loop: [['heel_rod_end', 'heel_pin']]\njoint_name: ['knee']\n"
         "joint_type: ['UJOINT_XY']\n", "only SPHERICAL and FIXED are read"),
        ("closed_loop: [['heel_rod_end', 'heel_pin']]\nname_mot: ['nope']\n",
         "name_mot names 'nope', which is no moving <joint> of the URDF"),
        ("closures:\n- {link_a: tarsus, link_b: ghost, point: [0, 0, 0], axis: [0, 0, 1]}\n",
         "closure 1 names link 'ghost', which is no <link> of the URDF"),
        ("closures:\n- {link_a: tarsus, link_b: foot, point: [0, .nan, 0], axis: [0, 0, 1]}\n",
         "closure 1: point is"),
        ("closures:\n- {link_a: tarsus, link_b: foot, point: [0, 0, 0], axis: [0, 0, 0]}\n",
         "closure 1: axis is zero"),
        ("robot: {}\n", "expected the key closed_loop"),
        ("[1, 2\n", "not YAML"),
        ("- 1\n", "expected a mapping"),
    ]
    for text, message in cases:
        bad.write_text(text)
        with pytest.raises(ValueError) as info:
            load_urdf_mechanism(urdf, sidecar=bad)
        assert str(info.value).startswith(f"sidecar '{bad}': ")
        assert message in str(info.value), (text, str(info.value))


def test_an_auto_sidecar_outside_the_folder_is_not_read(tmp_path):
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(GEPETTO, folder / "cassie_leg.urdf")
    (tmp_path / "elsewhere.yaml").write_text((GEPETTO.parent / "cassie_leg.yaml").read_text())
    (folder / "cassie_leg.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    assert not load_urdf_mechanism(folder / "cassie_leg.urdf").loop_joints


# -- URDF+ elements ----------------------------------------------------------------------------
PLUS = """<robot name="pair">
  <link name="base"/><link name="a"/><link name="b"/>
  <joint name="ja" type="continuous"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="jb" type="continuous"><parent link="base"/><child link="b"/>
    <origin xyz="{x} 0 0"/><axis xyz="0 0 1"/></joint>
  {extra}
</robot>"""


@pytest.mark.parametrize("scale", [1.0, 1e-6, 1e3])
def test_urdf_plus_coupling_is_a_ratio_of_joint_values(scale):
    text = PLUS.format(x=2 * scale, extra="""<coupling name="gear">
        <predecessor link="a"/><successor link="b"/><ratio value="-2.5"/></coupling>""")
    robot = load_urdf_mechanism(text, ["ja"])
    assert list(robot.couplings) == ["gear"]
    robot.actuated["ja"].value = 0.3
    robot.mechanism.solve()
    assert robot.joint_values()["jb"] == pytest.approx(-0.75, rel=1e-14)
    b = robot.links["b"]
    x = b.orientation.as_matrix()[:, 0]
    assert np.linalg.norm(x - [np.cos(-0.75), np.sin(-0.75), 0.0]) < 1e-14


def test_urdf_plus_loop_types_hold_their_frames():
    rng = np.random.default_rng(31)
    four = """<robot name="fourbar">
      <link name="base"/><link name="crank"/><link name="coupler"/><link name="rocker"/>
      <joint name="motor" type="continuous"><parent link="base"/><child link="crank"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="knee" type="continuous"><parent link="crank"/><child link="coupler"/>
        <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
      <joint name="pivot" type="continuous"><parent link="base"/><child link="rocker"/>
        <origin xyz="3 0 0"/><axis xyz="0 0 1"/></joint>
      <loop name="pin" type="{kind}">
        <predecessor link="coupler"><origin xyz="3 0 0"/></predecessor>
        <successor link="rocker"><origin xyz="2 0 0"/></successor>
        <axis xyz="0 0 1"/></loop>
    </robot>"""
    for kind in ("revolute", "continuous", "planar"):
        robot = load_urdf_mechanism(four.format(kind=kind), ["motor"],
                                    values={"knee": 1.0, "pivot": 1.5})
        robot.actuated["motor"].value = rng.uniform(0.5, 1.5)
        assert robot.mechanism.solve().success
        j = robot.loop_joints["pin"]
        z1, z2 = (b.orientation.as_matrix() @ ms.Orientation(q, normalize=True).as_matrix()[:, 2]
                  for b, q in zip(j.bodies, (j.frame1, j.frame2)))
        assert np.linalg.norm(np.cross(z1, z2)) < 1e-12
        if kind != "planar":
            assert pin_gap(robot, "pin") < 1e-12
        else:                                       # in the plane: z gap only is held
            d = j.bodies[1].to_global(j.point2) - \
                j.bodies[0].to_global(j.point1)
            assert abs(z1 @ d) < 1e-12


@pytest.mark.parametrize("extra, message", [
    ('<loop name="c" type="ball"><predecessor link="a"/><successor link="b"/></loop>',
     "<loop> 'c' has type 'ball'; expected one of revolute, continuous, prismatic, fixed, "
     "planar"),
    ('<loop name="c" type="fixed"><successor link="b"/></loop>',
     "<loop> 'c' has no <predecessor> element"),
    ('<loop name="c" type="fixed"><predecessor link="a"/><successor link="zz"/></loop>',
     "<loop> 'c' names successor link 'zz', which is not a <link> of the robot"),
    ('<loop name="ja" type="fixed"><predecessor link="a"/><successor link="b"/></loop>',
     "<loop> element 1 is named 'ja', as <joint> element 1"),
    ('<loop name="c" type="fixed"><predecessor link="a"><origin xyz="0 nan 0"/></predecessor>'
     '<successor link="b"/></loop>', "xyz of the <predecessor> origin of <loop> 'c' must be"),
    ('<loop name="c" type="revolute"><predecessor link="a"/><successor link="b"/>'
     '<axis xyz="0 0 0"/></loop>', "<loop> 'c' has a zero axis '0 0 0'"),
    ('<coupling name="g"><predecessor link="a"/><successor link="b"/></coupling>',
     "<coupling> 'g' has no <ratio value=\"...\"/> element"),
    ('<coupling name="g"><predecessor link="base"/><successor link="b"/><ratio value="1"/>'
     '</coupling>', "the predecessor link 'base' hangs from no moving <joint>"),
    ('<coupling name="g"><predecessor link="a"/><successor link="b"/><ratio value="inf"/>'
     '</coupling>', "the ratio value of <coupling> 'g' must be 1 finite number"),
    ('<coupling name="g"><predecessor link="a"/><successor link="a"/><ratio value="1"/>'
     '</coupling>', "<coupling> 'g' couples joint 'ja' to itself"),
])
def test_urdf_plus_faults_name_the_element(extra, message):
    with pytest.raises(ValueError) as info:
        load_urdf_mechanism(PLUS.format(x=2, extra=extra))
    assert str(info.value).startswith("URDF: ")
    assert message in str(info.value)


# -- MJCF: the configuration the model was defined in ------------------------------------------
KNEE_MJCF = """<mujoco><compiler angle="degree"/><worldbody>
  <body name="shin"><joint name="knee" type="hinge" axis="0 0 1" ref="-45"/>
    <geom type="capsule" size=".01" fromto="0 0 0 .5 0 0"/>
    <body name="tarsus" pos=".5 0 0" euler="0 0 58"><joint name="ankle" type="hinge"
        axis="0 0 1" ref="58"/><geom type="capsule" size=".01" fromto="0 0 0 -.12 .03 0"/>
    </body></body>
  <body name="rod" pos="-.1 .2 0" euler="0 0 -20"><joint name="rod" type="hinge" axis="0 0 1"/>
    <geom type="capsule" size=".01" fromto="0 0 0 .5 0 0"/></body>
</worldbody><equality><connect name="heel" body1="rod" body2="tarsus" anchor=".5 0 0"/>
</equality><actuator><motor joint="knee"/></actuator></mujoco>"""


def test_mjcf_connect_holds_where_the_model_is_defined_not_at_zero():
    """MuJoCo's compiler places a connect's second anchor where the first is in the
    configuration the model is defined in: the body poses as written, i.e. ``qpos0`` (the
    hinges' ``ref``), not the zero configuration ``qpos = 0`` (RobotLocomotion/drake#22462).
    The mechanism's bodies start there and its pins agree with ``mj_forward``."""
    mujoco = pytest.importorskip("mujoco", reason="MJCF is compiled by MuJoCo (mechsolve[mjcf])")
    robot = ms.robots.load_mjcf(KNEE_MJCF)
    m, d = robot.model, mujoco.MjData(robot.model)

    def gap(qpos):
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        rod, tarsus = m.body("rod").id, m.body("tarsus").id
        p1 = d.xpos[rod] + d.xmat[rod].reshape(3, 3) @ m.eq_data[0][:3]
        p2 = d.xpos[tarsus] + d.xmat[tarsus].reshape(3, 3) @ m.eq_data[0][3:6]
        return np.linalg.norm(p1 - p2)

    assert m.qpos0[0] == pytest.approx(np.radians(-45)) and gap(m.qpos0) < 1e-15
    assert gap(np.zeros(m.nq)) > 1e-2               # the zero configuration breaks the pin
    joint = robot.equalities["heel"]
    assert np.linalg.norm(joint.residual()) < 1e-15  # closed as built, before any solve
    driver = next(iter(robot.actuated.values()))
    for knee in np.radians([-45, -35, -20, -5]):
        driver.value = knee
        assert robot.mechanism.solve().success
        qpos = robot.qpos()
        assert qpos[0] == pytest.approx(knee, abs=1e-15)
        assert gap(qpos) < 1e-12


def test_a_sidecar_without_pyyaml_says_what_to_install(monkeypatch):
    """A sidecar next to the URDF is never skipped silently: without PyYAML, loading says
    what to install (or to pass sidecar=None)."""
    import sys

    monkeypatch.setitem(sys.modules, "yaml", None)          # import yaml fails
    with pytest.raises(ModuleNotFoundError, match=r"needs PyYAML: pip install "
                                                  r"'mechsolve\[yaml\]'"):
        load_urdf_mechanism(GEPETTO)
    assert not load_urdf_mechanism(GEPETTO, sidecar=None).loop_joints


# -- SDFormat through the shared builder -------------------------------------------------------
SDF_CLOSED_ON_BASE = """<sdf version="1.7"><model name="fourbar">
  <link name="base"><pose>{pose}</pose></link>
  <link name="crank"><pose relative_to="base">0 0 0 0 0 1.5707963267948966</pose></link>
  <link name="coupler"><pose relative_to="base">0 1 0 0 0 0</pose></link>
  <link name="rocker"><pose relative_to="base">6.4 -2.2 0 0 0 2.214297435588181</pose></link>
  <joint name="ground" type="fixed"><parent>world</parent><child>base</child></joint>
  <joint name="motor" type="continuous"><parent>base</parent><child>crank</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="knee" type="revolute"><parent>crank</parent><child>coupler</child>
    <axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="pin" type="revolute"><parent>coupler</parent><child>rocker</child>
    <pose relative_to="coupler">4 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis></joint>
  <joint name="pivot" type="revolute"><parent>rocker</parent><child>base</child>
    <pose relative_to="base">6.4 -2.2 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>"""


def test_sdf_loop_closing_on_the_posed_root_link():
    """A loop joint whose child is the root link: its frame there is in the root link's
    frame, wherever the model places the root (the shared builder carries it into the model
    frame; the loop is the same four-bar at every placement)."""
    values = []
    for pose in ("0 0 0 0 0 0", "1000 -2000 300 0.4 -0.2 1.1"):
        robot = ms.robots.load_sdf_mechanism(SDF_CLOSED_ON_BASE.format(pose=pose), ["motor"])
        assert robot.loop_joints["pivot"].residual() @ robot.loop_joints["pivot"].residual() \
            < 1e-20                                 # closed as drawn
        robot.actuated["motor"].value = 0.4
        assert robot.mechanism.solve().success
        values.append(robot.joint_values())
    for k in values[0]:
        assert abs(wrap(values[1][k] - values[0][k])) < 1e-9, k   # 1e-12 of the 1e3 offset
