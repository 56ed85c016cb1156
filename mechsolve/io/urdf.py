"""Reading the joint chain of a serial arm from a URDF (Unified Robot Description Format) file.

:func:`read_urdf_chain` follows the chain of joints from the root link to a tip link and returns
it as plain data: each moving joint's name, kind (``"revolute"`` or ``"prismatic"``; continuous
joints are revolute), origin transform from the previous moving joint (4 x 4; fixed joints are
folded in), axis and limits, then the tool transform after the last one. Malformed elements
are ValueErrors naming the joint. :func:`mechsolve.robots.load_urdf` (and
:meth:`SerialArm.from_urdf <mechsolve.robots.SerialArm.from_urdf>`) build the arm from it; this
module imports nothing of mechsolve, so the model classes may build on it.

Examples
--------
>>> from mechsolve.io.urdf import read_urdf_chain
>>> name, joints, tool = read_urdf_chain('''<robot name="pendulum">
...   <link name="base"/><link name="bob"/>
...   <joint name="swing" type="revolute">
...     <parent link="base"/><child link="bob"/>
...     <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>
...   </joint>
... </robot>''')
>>> name, [(j[0], j[1]) for j in joints], joints[0][2][:3, 3].tolist()
('pendulum', [('swing', 'revolute')], [0.0, 0.0, 1.0])
"""

from __future__ import annotations

import pathlib
import xml.etree.ElementTree as ET

import numpy as np

__all__ = ["read_urdf_chain"]


def _floats(text, n, what):
    try:
        vals = [float(x) for x in (text or "").split()]
    except ValueError:
        vals = []
    if len(vals) != n or not np.all(np.isfinite(vals)):
        raise ValueError(f"URDF: {what} must be {n} finite number{'s' if n > 1 else ''}, got "
                         f"{text!r}")
    return np.array(vals)


def _joint_link(joint: ET.Element, jname: str, tag: str, links: list[str]) -> str:
    """The ``link`` attribute of a joint's ``<parent>`` or ``<child>`` element, checked."""
    el = joint.find(tag)
    if el is None:
        raise ValueError(f"URDF: joint {jname!r} has no <{tag}> element (expected "
                         f"<{tag} link=\"...\"/>)")
    name = el.get("link")
    if not name:
        raise ValueError(f"URDF: the <{tag}> element of joint {jname!r} has no link attribute")
    if name not in links:
        raise ValueError(f"URDF: joint {jname!r} names {tag} link {name!r}, which is not a "
                         "<link> of the robot")
    return name


def _rpy_matrix(r, p, y):
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def read_urdf_chain(source, tip: str | None = None):
    """The joint chain from the root link to ``tip`` (default: the only leaf link) of a URDF
    file path or XML text: ``(robot name, [(name, kind, origin (4, 4), axis (3,), limits or
    None), ...], tool (4, 4))``.

    Joint ``origin`` ``xyz`` / ``rpy`` (fixed-axis roll, pitch, yaw: ``R = Rz(y) Ry(p) Rx(r)``)
    and ``axis`` (default ``1 0 0``) are read; ``limit`` lower / upper are kept. Floating and
    planar joints are rejected.
    """
    text = str(source)
    if text.lstrip().startswith("<"):
        root = ET.fromstring(text)
    else:
        root = ET.parse(pathlib.Path(source)).getroot()
    if root.tag != "robot":
        raise ValueError(f"URDF: the root element must be <robot>, got <{root.tag}>")
    links = []
    for i, ln in enumerate(root.findall("link")):
        if not ln.get("name"):
            raise ValueError(f"URDF: <link> element {i + 1} has no name attribute")
        links.append(ln.get("name"))
    by_child = {}
    children = {}
    for i, j in enumerate(root.findall("joint")):
        jname, jtype = j.get("name"), j.get("type")
        if not jname:
            raise ValueError(f"URDF: <joint> element {i + 1} has no name attribute")
        parent, child = (_joint_link(j, jname, tag, links) for tag in ("parent", "child"))
        if jtype not in ("revolute", "continuous", "prismatic", "fixed"):
            raise ValueError(f"URDF: joint {jname!r} has type {jtype!r}; only revolute, "
                             "continuous, prismatic and fixed joints are supported")
        org = j.find("origin")
        xyz = _floats(org.get("xyz", "0 0 0"), 3, f"origin xyz of joint {jname!r}") \
            if org is not None else np.zeros(3)
        rpy = _floats(org.get("rpy", "0 0 0"), 3, f"origin rpy of joint {jname!r}") \
            if org is not None else np.zeros(3)
        ax = j.find("axis")
        axis = _floats(ax.get("xyz"), 3, f"axis xyz of joint {jname!r}") if ax is not None \
            else np.array([1.0, 0.0, 0.0])
        if jtype != "fixed" and not np.linalg.norm(axis) > 0.0:
            raise ValueError(f"URDF: joint {jname!r} has a zero axis {ax.get('xyz')!r}")
        lim = j.find("limit")
        limits = None
        if lim is not None and jtype != "continuous" and lim.get("lower") is not None:
            lower, upper = (_floats(lim.get(k), 1, f"limit {k} of joint {jname!r}")[0]
                            for k in ("lower", "upper"))
            limits = (float(lower), float(upper))
        M = np.eye(4)
        M[:3, :3] = _rpy_matrix(*rpy)
        M[:3, 3] = xyz
        if child in by_child:
            raise ValueError(f"URDF: link {child!r} is the child of two joints")
        by_child[child] = (jname, jtype, parent, M, axis, limits)
        children.setdefault(parent, []).append(child)
    roots = [ln for ln in links if ln not in by_child]
    if len(roots) != 1:
        raise ValueError(f"URDF: expected one root link, found {roots}")
    if tip is None:
        leaves = [ln for ln in links if ln not in children]
        if len(leaves) != 1:
            raise ValueError(f"URDF: the robot branches (leaf links {leaves}); pass tip=")
        tip = leaves[0]
    if tip not in links:
        raise ValueError(f"URDF: no link named {tip!r}")
    chain = []
    link = tip
    while link in by_child:
        chain.append(by_child[link])
        link = by_child[link][2]
    chain.reverse()
    moving = []
    pending = np.eye(4)
    for jname, jtype, _parent, M, axis, limits in chain:
        pending = pending @ M
        if jtype == "fixed":
            continue
        kind = "prismatic" if jtype == "prismatic" else "revolute"
        moving.append((jname, kind, pending, axis, limits))
        pending = np.eye(4)
    return root.get("name"), moving, pending
