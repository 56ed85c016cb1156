"""Write the robot models with loops that tests/test_loops.py reads (run from anywhere).

Each model is described once, in its assembled home pose (every joint value 0): a tree of
links, each placed in its parent by a constant transform and moving about / along an axis of
its own frame, plus loop joints between two links' frames. From that description this script
writes the URDF (with mechsolve's ``<loop_joint>`` element) and the MJCF (loops closed by
``connect`` equalities). Numbers are written with 17
significant digits, so the home pose closes the loops to round-off.

* ``fourbar_gripper``: a crank-rocker four-bar (crank 1, coupler 5, rocker 5, ground 6) driving
  a jaw fixed to the rocker;
* ``fivebar_leg``: a planar parallel-link leg, two coaxial hip motors, thighs 0.1, shins 0.2
  meeting at the foot;
* ``delta``: a translational delta robot (3-RUU, the parallelogram of each forearm replaced
  by universal joints with parallel axes): base radius 0.15, arms 0.2, forearms 0.5, platform
  radius 0.05; in MJCF each hinge closing a loop is two ``connect`` equalities along its
  axis (MJCF has no hinge equality).
"""

from __future__ import annotations

import pathlib

import numpy as np
from scipy.spatial.transform import Rotation

HERE = pathlib.Path(__file__).parent


def T(xyz=(0, 0, 0), R=None):
    M = np.eye(4)
    M[:3, 3] = xyz
    if R is not None:
        M[:3, :3] = R
    return M


def Rz(a):
    return Rotation.from_rotvec([0, 0, a]).as_matrix()


def Ry(a):
    return Rotation.from_rotvec([0, a, 0]).as_matrix()


def num(v) -> str:
    return " ".join(repr(float(x) + 0.0) for x in v)


def rpy(M) -> str:
    return num(Rotation.from_matrix(M[:3, :3]).as_euler("xyz"))


def wxyz(M) -> str:
    x, y, z, w = Rotation.from_matrix(M[:3, :3]).as_quat()
    return num([w, x, y, z])


class Model:
    def __init__(self, name):
        self.name = name
        self.links = ["base"]
        self.world = {"base": np.eye(4)}
        self.joints = []      # (name, type, parent, child, origin, axis, actuated)
        self.loops = []       # (name, type, link1, F1, link2, F2, axis)
        # MJCF: a hinge closing a loop as two connects along its axis (else one connect)
        self.hinge_loops = False

    def add(self, jname, jtype, parent, child, origin, axis=(0, 0, 1), actuated=False):
        self.links.append(child)
        self.world[child] = self.world[parent] @ origin
        self.joints.append((jname, jtype, parent, child, origin, np.array(axis, float),
                            actuated))

    def loop(self, name, jtype, link1, link2, point_world, axis_world=(0, 0, 1)):
        """A loop joint at a global point (and axis) of the home pose."""
        F = T(point_world)
        ax = np.array(axis_world, float)
        F1 = np.linalg.inv(self.world[link1]) @ F
        F2 = np.linalg.inv(self.world[link2]) @ F
        axis1 = self.world[link1][:3, :3].T @ ax      # in the link-1 frame = the joint frame
        F1[:3, :3] = np.eye(3)                         # both frames with link 1's axes
        F2[:3, :3] = (np.linalg.inv(self.world[link2]) @ self.world[link1])[:3, :3]
        self.loops.append((name, jtype, link1, F1, link2, F2, axis1))

    def urdf(self) -> str:
        out = [f'<robot name="{self.name}">']
        out += [f'  <link name="{ln}"/>' for ln in self.links]
        for jname, jtype, parent, child, M, axis, _ in self.joints:
            out.append(f'  <joint name="{jname}" type="{jtype}">\n'
                       f'    <parent link="{parent}"/><child link="{child}"/>\n'
                       f'    <origin xyz="{num(M[:3, 3])}" rpy="{rpy(M)}"/>\n'
                       f'    <axis xyz="{num(axis)}"/>\n  </joint>')
        for name, jtype, l1, F1, l2, F2, axis in self.loops:
            out.append(f'  <loop_joint name="{name}" type="{jtype}">\n'
                       f'    <parent link="{l1}" xyz="{num(F1[:3, 3])}" rpy="{rpy(F1)}"/>\n'
                       f'    <child link="{l2}" xyz="{num(F2[:3, 3])}" rpy="{rpy(F2)}"/>\n'
                       f'    <axis xyz="{num(axis)}"/>\n  </loop_joint>')
        out.append("</robot>\n")
        return "\n".join(out)

    def mjcf(self) -> str:
        kids = {}
        for j in self.joints:
            kids.setdefault(j[2], []).append(j)

        def body(j, depth):
            jname, jtype, parent, child, M, axis, _ = j
            pad = "  " * depth
            lines = [f'{pad}<body name="{child}" pos="{num(M[:3, 3])}" quat="{wxyz(M)}">']
            if jtype != "fixed":
                kind = "slide" if jtype == "prismatic" else "hinge"
                lines.append(f'{pad}  <joint name="{jname}" type="{kind}" axis="{num(axis)}"/>')
            lines.append(f'{pad}  <geom type="sphere" size="0.01" mass="0.1"/>')
            for k in kids.get(child, []):
                lines += body(k, depth + 1)
            lines.append(f"{pad}</body>")
            return lines

        out = [f'<mujoco model="{self.name}">', '  <compiler angle="radian"/>',
               '  <option gravity="0 0 0"/>', "  <worldbody>"]
        for j in kids.get("base", []):
            out += body(j, 2)
        out.append("  </worldbody>\n  <equality>")
        for name, jtype, l1, F1, l2, _F2, axis in self.loops:
            assert jtype in ("revolute", "continuous", "spherical")
            if jtype == "spherical" or not self.hinge_loops:
                out.append(f'    <connect name="{name}" body1="{l1}" body2="{l2}" '
                           f'anchor="{num(F1[:3, 3])}"/>')
                continue
            # a hinge closing a loop: two connects at points apart along its axis (MJCF has no
            # hinge equality; the two hold the axis, one of their six equations redundant)
            u = axis / np.linalg.norm(axis)
            for tag, sign in (("a", -1.0), ("b", 1.0)):
                out.append(f'    <connect name="{name}_{tag}" body1="{l1}" body2="{l2}" '
                           f'anchor="{num(F1[:3, 3] + sign * 0.02 * u)}"/>')
        out.append("  </equality>\n  <actuator>")
        for jname, *_, act in self.joints:
            if act:
                out.append(f'    <position name="{jname}_servo" joint="{jname}" kp="100"/>')
        out.append("  </actuator>\n</mujoco>\n")
        return "\n".join(out)


def fourbar_gripper() -> Model:
    m = Model("fourbar_gripper")
    # home: crank pin A = (0, 1), coupler to B = (3, 5), rocker pivot O4 = (6, 1)
    m.add("motor", "continuous", "base", "crank", T(), actuated=True)
    m.add("knee", "continuous", "crank", "coupler", T((0, 1, 0)))
    m.add("pivot", "continuous", "base", "rocker", T((6, 1, 0)))
    m.add("jaw_mount", "fixed", "rocker", "jaw", T((-3, 4, 0), Rz(0.3)))
    m.loop("pin", "revolute", "coupler", "rocker", (3, 5, 0))
    return m


def fivebar_leg() -> Model:
    m = Model("fivebar_leg")
    l1, l2 = 0.1, 0.2
    k = l1 / np.sqrt(2.0)
    foot = -(k + np.sqrt(l2 ** 2 - k ** 2))
    m.add("hip_front", "continuous", "base", "thigh_front", T(R=Rz(-np.pi / 4)), actuated=True)
    m.add("hip_back", "continuous", "base", "thigh_back", T(R=Rz(-3 * np.pi / 4)),
          actuated=True)
    for side, knee in (("front", (k, -k)), ("back", (-k, -k))):
        thigh_world = m.world[f"thigh_{side}"]
        d = np.array([0.0, foot]) - np.array(knee)
        ang = np.arctan2(d[1], d[0])
        R = thigh_world[:3, :3].T @ Rz(ang)
        m.add(f"knee_{side}", "continuous", f"thigh_{side}", f"shin_{side}",
              T((l1, 0, 0), R))
    m.add("toe", "fixed", "shin_front", "foot", T((l2, 0, 0)))
    m.loop("ankle", "revolute", "shin_front", "shin_back", (0, foot, 0))
    return m


def delta() -> Model:
    m = Model("delta")
    R, La, Lb = 0.15, 0.2, 0.5            # platform radius 0.05: R + La - 0.05 = 0.3
    beta = np.arctan2(0.8, -0.6)           # the forearm's pitch at home (3-4-5 triangle)
    for i in range(3):
        a = 2 * np.pi * i / 3
        u = np.array([np.cos(a), np.sin(a), 0.0])
        m.add(f"motor{i + 1}", "revolute", "base", f"arm{i + 1}", T(R * u, Rz(a)),
              axis=(0, 1, 0), actuated=True)
        m.add(f"elbow{i + 1}a", "continuous", f"arm{i + 1}", f"elbow{i + 1}",
              T((La, 0, 0), Ry(beta)), axis=(0, 1, 0))
        m.add(f"elbow{i + 1}b", "continuous", f"elbow{i + 1}", f"forearm{i + 1}", T(),
              axis=(0, 0, 1))
        m.add(f"wrist{i + 1}a", "continuous", f"forearm{i + 1}", f"wrist{i + 1}",
              T((Lb, 0, 0)), axis=(0, 0, 1))
    # the platform hangs from leg 1's wrist (the hinge through the wrist point, then the
    # platform's centre offset by a fixed joint); legs 2 and 3 close on it
    P = T((0, 0, -0.4))
    W1 = m.world["wrist1"]
    mount = T(W1[:3, 3], P[:3, :3])
    m.add("wrist1b", "continuous", "wrist1", "platform_mount", np.linalg.inv(W1) @ mount,
          axis=mount[:3, :3].T @ W1[:3, :3] @ [0, 1, 0])     # in the child's frame
    m.add("platform_offset", "fixed", "platform_mount", "platform",
          np.linalg.inv(mount) @ P)
    for i in (1, 2):
        Wk = m.world[f"wrist{i + 1}"]
        m.loop(f"wrist{i + 1}b", "revolute", f"wrist{i + 1}", "platform", Wk[:3, 3],
               Wk[:3, :3] @ [0, 1, 0])
    return m


if __name__ == "__main__":
    for model in (fourbar_gripper(), fivebar_leg(), delta()):
        (HERE / f"{model.name}.urdf").write_text(model.urdf())
        if model.name == "delta":
            model.hinge_loops = True
        (HERE / f"{model.name}.xml").write_text(model.mjcf())
