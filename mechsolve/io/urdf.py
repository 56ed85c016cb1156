"""Reading the joint chain of a serial arm from a URDF (Unified Robot Description Format) file.

:func:`read_urdf_chain` follows the chain of joints from the root link to a tip link and returns
it as plain data: each moving joint's name, kind (``"revolute"`` or ``"prismatic"``; continuous
joints are revolute), origin transform from the previous moving joint (4 x 4; fixed joints are
folded in), unit axis and limits, then the tool transform after the last one.
:func:`mechsolve.robots.load_urdf` (and
:meth:`SerialArm.from_urdf <mechsolve.robots.SerialArm.from_urdf>`) build the arm from it; this
module imports nothing of mechsolve, so the model classes may build on it.

Every input is read or rejected with a :class:`ValueError` whose message starts with
``URDF:`` (XML text) or ``URDF file '<path>':`` (a file) and names the element at fault: not
well-formed XML (with its line and column), a missing or duplicated name, a joint cycle, a
number that is not finite or beyond :data:`MAX_MAGNITUDE`, limits in the wrong order. Reading
takes time and memory linear in the input, which is at most :data:`MAX_CHARACTERS` long. The
XML parser (expat) refuses external entities and entity expansion beyond a small amplification
factor ("billion laughs"); these are ValueErrors too.

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

import os
import pathlib
import xml.etree.ElementTree as ET
from typing import NamedTuple

import numpy as np

from ._files import read_bytes

__all__ = ["read_urdf_chain", "read_urdf_graph", "URDFGraph", "LOOP_KINDS",
           "URDF_PLUS_LOOP_KINDS", "MAX_MAGNITUDE", "MAX_CHARACTERS"]

#: Bound on the magnitude of every number of an ``origin`` (``xyz``, ``rpy``), ``axis`` or
#: ``limit`` (``lower``, ``upper``): URDF lengths are metres and angles radians (REP 103), so
#: a larger value is a mistake, and far larger ones (``1e308``) overflow in the forward
#: kinematics. Chains of such offsets keep every product and sum of the kinematics finite.
MAX_MAGNITUDE = 1e6

#: Longest URDF read, in characters of text or bytes of a file (64 MiB; robot descriptions
#: without inline meshes are a few hundred kB at most).
MAX_CHARACTERS = 64 * 2**20

_KINDS = ("revolute", "continuous", "prismatic", "fixed")

#: Types of the ``<loop_joint>`` element (a mechsolve extension of URDF, see
#: :func:`read_urdf_graph`).
LOOP_KINDS = ("revolute", "continuous", "prismatic", "spherical", "fixed")
#: Types of the URDF+ ``<loop>`` element (arXiv 2411.19753; as its reference parser reads
#: them).
URDF_PLUS_LOOP_KINDS = ("revolute", "continuous", "prismatic", "fixed", "planar")


class URDFGraph(NamedTuple):
    """A URDF robot whose joints may close loops, as plain data (see :func:`read_urdf_graph`).

    Attributes
    ----------
    name : str or None
        The ``<robot>``'s name.
    root : str
        The root link (the one link that is no tree joint's child).
    links : list of str
        Every link, in file order.
    joints : list of tuple
        The tree joints, parents before children: ``(name, kind, parent, child, origin (4,
        4), axis (3,), limits or None)``; ``kind`` is ``"revolute"``, ``"continuous"``,
        ``"prismatic"`` or ``"fixed"``; ``origin`` places the child link's frame (at joint
        value 0) in the parent link's frame.
    loops : list of tuple
        The loop joints (``<loop_joint>``, then URDF+ ``<loop>``): ``(name, kind, parent,
        child, frame on the parent (4, 4), frame on the child (4, 4), axis (3,))``; ``kind``
        is one of :data:`LOOP_KINDS` or ``"planar"`` (URDF+).
    couplings : tuple of tuple
        The URDF+ ``<coupling>`` elements: ``(name, dependent joint, independent joint,
        ratio)``, the joints being the tree joints whose child links the ``<successor>`` and
        ``<predecessor>`` name.
    """

    name: str | None
    root: str
    links: list
    joints: list
    loops: list
    couplings: tuple = ()


class _URDFError(ValueError):
    """A fault of the URDF, worded without the source: :func:`read_urdf_chain` prefixes it."""


def _names(names: list[str], most: int = 5) -> str:
    """``'a', 'b', 'c'`` (the first ``most`` of them, then the number of the others)."""
    shown = ", ".join(repr(n) for n in names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def _floats(text: str | None, n: int, what: str) -> np.ndarray:
    """``n`` finite numbers of magnitude at most :data:`MAX_MAGNITUDE` from an attribute's
    text; ``what`` names the attribute and its element in the messages."""
    try:
        vals = [float(x) for x in (text or "").split()]
    except ValueError:
        vals = []
    if len(vals) != n or not np.all(np.isfinite(vals)):
        raise _URDFError(f"{what} must be {n} finite number{'s' if n > 1 else ''}, got "
                         f"{text!r}")
    if max(abs(v) for v in vals) > MAX_MAGNITUDE:
        raise _URDFError(f"{what} is {text!r}, beyond the bound of {MAX_MAGNITUDE:g} on the "
                         "magnitude of URDF numbers (metres, radians)")
    return np.array(vals)


def _joint_link(joint: ET.Element, jname: str, tag: str, links: dict[str, int]) -> str:
    """The ``link`` attribute of a joint's ``<parent>`` or ``<child>`` element, checked."""
    el = joint.find(tag)
    if el is None:
        raise _URDFError(f"joint {jname!r} has no <{tag}> element (expected "
                         f"<{tag} link=\"...\"/>)")
    name = el.get("link")
    if not name:
        raise _URDFError(f"the <{tag}> element of joint {jname!r} has no link attribute")
    if name not in links:
        raise _URDFError(f"joint {jname!r} names {tag} link {name!r}, which is not a <link> of "
                         "the robot")
    return name


def _rpy_matrix(r: float, p: float, y: float) -> np.ndarray:
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def _parse(source) -> tuple[ET.Element, str]:
    """The root element of the URDF ``source`` and the prefix of its messages."""
    if isinstance(source, (bytes, bytearray)):
        where, data = "URDF", bytes(source)
    elif isinstance(source, str) and "<" in source:
        where, data = "URDF", source.lstrip("\ufeff")     # a byte order mark read as text
    elif isinstance(source, str) and not source.strip():
        raise ValueError(f"URDF: the source is empty, got {source!r} (expected <robot> XML "
                         "text or a file path)")
    elif isinstance(source, (str, os.PathLike)):
        path = pathlib.Path(source)
        where = f"URDF file {str(path)!r}"
        data = read_bytes(path, MAX_CHARACTERS)      # at most that, also from /dev/zero
    else:
        raise TypeError("URDF: source must be a file path (str or os.PathLike) or URDF XML "
                        f"(str or bytes), got {type(source).__name__}")
    if len(data) > MAX_CHARACTERS:
        raise ValueError(f"{where}: longer than {MAX_CHARACTERS} characters (the <robot> "
                         "is not read)")
    try:
        return ET.fromstring(data), where
    except (ET.ParseError, ValueError) as err:
        # ValueError: an encoding expat does not read, or text that is not Unicode
        raise ValueError(f"{where}: not well-formed XML: {err}") from None


def read_urdf_chain(source, tip: str | None = None):
    """The joint chain from the root link to ``tip`` (default: the only leaf link) of a URDF
    file path or XML text: ``(robot name, [(name, kind, origin (4, 4), axis (3,), limits or
    None), ...], tool (4, 4))``.

    Joint ``origin`` ``xyz`` / ``rpy`` (fixed-axis roll, pitch, yaw: ``R = Rz(y) Ry(p) Rx(r)``)
    and ``axis`` (default ``1 0 0``, returned as a unit vector) are read; ``limit`` lower /
    upper are kept. Floating and planar joints are rejected.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        URDF XML text (a ``str`` containing ``<``, or ``bytes``), or the path of a URDF file.
    tip : str, optional
        Name of the chain's last link.

    Returns
    -------
    tuple
        ``(robot name, joints, tool)`` as above.

    Raises
    ------
    ValueError
        Where ``source`` is not a URDF the chain can be read from; the message starts with
        ``URDF:`` (text) or ``URDF file '<path>':`` and names the element: XML that is not
        well-formed (or uses external entities, or expands entities beyond expat's limit); a
        root element other than ``<robot>``; a ``<link>`` or ``<joint>`` without a name, or
        two with the same name; a joint type other than revolute, continuous, prismatic and
        fixed; a missing parent or child link; a number that is not finite or has a magnitude
        above :data:`MAX_MAGNITUDE` (metres, radians); a zero axis; limits with ``lower >
        upper``; joints that form a cycle; more or fewer than one root link; a branching robot
        without ``tip``; no moving joint between the root and the tip; a source longer than
        :data:`MAX_CHARACTERS`.
    TypeError
        Where ``source`` is neither text, bytes nor a path, or ``tip`` is not a str.
    OSError
        Where the file cannot be read (``FileNotFoundError`` for a missing one).
    """
    if tip is not None and not isinstance(tip, str):
        raise TypeError(f"URDF: tip must be a link name (str) or None, got "
                        f"{type(tip).__name__} {tip!r}")
    root, where = _parse(source)
    try:
        return _read_chain(root, tip)
    except _URDFError as err:
        raise ValueError(f"{where}: {err}") from None


def _read_tree(root: ET.Element):
    """The links and tree joints of the parsed XML: ``(links, joint numbers, by_child,
    children, roots)``; faults are :class:`_URDFError`."""
    if root.tag != "robot":
        raise _URDFError(f"the root element must be <robot>, got <{root.tag}>")
    links: dict[str, int] = {}           # name: number of its <link> element
    for i, ln in enumerate(root.findall("link"), 1):
        lname = ln.get("name")
        if not lname:
            raise _URDFError(f"<link> element {i} has no name attribute")
        if lname in links:
            raise _URDFError(f"<link> elements {links[lname]} and {i} are both named "
                             f"{lname!r}")
        links[lname] = i
    if not links:
        raise _URDFError("the <robot> has no <link> elements")
    numbers: dict[str, int] = {}         # joint name: number of its <joint> element
    by_child = {}
    children: dict[str, list[str]] = {}
    for i, j in enumerate(root.findall("joint"), 1):
        jname, jtype = j.get("name"), j.get("type")
        if not jname:
            raise _URDFError(f"<joint> element {i} has no name attribute")
        if jname in numbers:
            raise _URDFError(f"<joint> elements {numbers[jname]} and {i} are both named "
                             f"{jname!r}")
        numbers[jname] = i
        parent, child = (_joint_link(j, jname, tag, links) for tag in ("parent", "child"))
        if jtype not in _KINDS:
            raise _URDFError(f"joint {jname!r} has type {jtype!r}; only revolute, "
                             "continuous, prismatic and fixed joints are supported")
        org = j.find("origin")
        xyz = _floats(org.get("xyz", "0 0 0"), 3, f"origin xyz of joint {jname!r}") \
            if org is not None else np.zeros(3)
        rpy = _floats(org.get("rpy", "0 0 0"), 3, f"origin rpy of joint {jname!r}") \
            if org is not None else np.zeros(3)
        ax = j.find("axis")
        axis = _floats(ax.get("xyz"), 3, f"axis xyz of joint {jname!r}") if ax is not None \
            else np.array([1.0, 0.0, 0.0])
        scale = np.max(np.abs(axis))
        if jtype != "fixed" and not scale > 0.0:
            raise _URDFError(f"joint {jname!r} has a zero axis {ax.get('xyz')!r}")
        if scale > 0.0:
            axis = axis / scale               # no underflow in the norm of a tiny axis
            axis = axis / np.linalg.norm(axis)
        lim = j.find("limit")
        limits = None
        if lim is not None and jtype != "continuous" and lim.get("lower") is not None:
            lower, upper = (_floats(lim.get(k), 1, f"limit {k} of joint {jname!r}")[0]
                            for k in ("lower", "upper"))
            if lower > upper:
                raise _URDFError(f"the <limit> of joint {jname!r} has lower "
                                 f"{lim.get('lower')!r} > upper {lim.get('upper')!r} "
                                 "(expected lower <= upper)")
            limits = (float(lower), float(upper))
        M = np.eye(4)
        M[:3, :3] = _rpy_matrix(*rpy)
        M[:3, 3] = xyz
        if child in by_child:
            raise _URDFError(f"link {child!r} is the child of two joints, "
                             f"{by_child[child][0]!r} and {jname!r} (a link has one parent)")
        by_child[child] = (jname, jtype, parent, M, axis, limits)
        children.setdefault(parent, []).append(child)
    _check_acyclic(links, by_child)
    roots = [ln for ln in links if ln not in by_child]
    if len(roots) != 1:
        raise _URDFError(f"expected one root link (a <link> that is no joint's child), found "
                         f"{len(roots)}: {_names(roots)}")
    return links, numbers, by_child, children, roots


def _read_chain(root: ET.Element, tip: str | None):
    """:func:`read_urdf_chain` on the parsed XML; faults are :class:`_URDFError`."""
    links, _numbers, by_child, children, roots = _read_tree(root)
    if tip is None:
        leaves = [ln for ln in links if ln not in children]
        if len(leaves) != 1:
            raise _URDFError(f"the robot branches (leaf links {_names(leaves)}); pass tip= "
                             "to choose the <link> the chain ends at")
        tip = leaves[0]
    if tip not in links:
        raise _URDFError(f"tip: no <link> named {tip!r}")
    chain = []
    link = tip
    while link in by_child:          # ends at the root: the joints form no cycle
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
    if not moving:
        raise _URDFError(f"no moving joint from the root link {roots[0]!r} to the tip link "
                         f"{tip!r} (a serial arm needs a revolute, continuous or prismatic "
                         "<joint>)")
    return root.get("name"), moving, pending


def _check_acyclic(links: dict[str, int], by_child: dict) -> None:
    """Raise where following the parent links of ``by_child`` (child: (joint, type, parent,
    ...)) comes back to a link: a cycle of joints. Linear in the number of links."""
    done: set[str] = set()
    for start in links:
        path: dict[str, None] = {}       # the links from start up, in order
        link = start
        while link in by_child and link not in done:
            if link in path:
                cycle = list(path)[list(path).index(link):]
                cycle.reverse()          # parent before child
                joints = [f"{by_child[c][0]!r} ({by_child[c][2]!r} -> {c!r})" for c in cycle]
                if len(joints) == 1:
                    what = f"the <joint> {joints[0]} makes a link its own parent"
                else:
                    shown = ", ".join(joints[:-1] if len(joints) <= 6 else joints[:5])
                    last = joints[-1] if len(joints) <= 6 else f"{len(joints) - 5} more"
                    what = f"the <joint> elements {shown} and {last} form a cycle"
                raise _URDFError(f"{what}; the links of a robot must form a tree")
            path[link] = None
            link = by_child[link][2]
        done.update(path)


def _pose(el: ET.Element, what: str) -> np.ndarray:
    """The 4 x 4 transform of an element's ``xyz`` / ``rpy`` attributes (default zero)."""
    xyz = _floats(el.get("xyz", "0 0 0"), 3, f"xyz of {what}")
    rpy = _floats(el.get("rpy", "0 0 0"), 3, f"rpy of {what}")
    M = np.eye(4)
    M[:3, :3] = _rpy_matrix(*rpy)
    M[:3, 3] = xyz
    return M


def read_urdf_graph(source) -> URDFGraph:
    """The links, tree joints and loop-closing joints of a URDF file path or XML text.

    URDF describes a tree of links; its kinematic loops are closed here by ``<loop_joint>``
    elements, a **mechsolve extension** of the format (other URDF readers ignore the unknown
    element, and see the tree alone)::

        <loop_joint name="close" type="revolute">
          <parent link="coupler" xyz="0.8 0 0" rpy="0 0 0"/>
          <child link="rocker" xyz="0.6 0 0" rpy="0 0 0"/>
          <axis xyz="0 0 1"/>
        </loop_joint>

    ``type`` is ``revolute`` (or ``continuous``, the same), ``prismatic``, ``spherical`` or
    ``fixed``. The ``xyz`` / ``rpy`` attributes of ``<parent>`` and ``<child>`` (default zero;
    ``rpy`` as in ``<origin>``) place the joint frame on each of the two links, in the link's
    frame; the loop joint holds the two frames together: their origins coincide (all types but
    prismatic), and their orientations are equal (fixed), turn about the ``axis`` (revolute;
    the axis is given in the joint frame, default ``1 0 0`` as URDF's) or are equal while the
    origins slide along the axis (prismatic). A spherical loop joint keeps the origins only.
    The ``<joint>`` elements still form a tree (the spanning tree), read as
    :func:`read_urdf_chain` reads them.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        URDF XML text, or the path of a URDF file.

    Returns
    -------
    URDFGraph

    Raises
    ------
    ValueError
        For every fault :func:`read_urdf_chain` names in a tree (except those of the chain to a
        tip), and for a ``<loop_joint>`` without a name or with a name another ``<joint>`` or
        ``<loop_joint>`` has, with a type not in :data:`LOOP_KINDS`, without a ``<parent>`` or
        ``<child>`` element or link, naming a link the robot has not, joining a link to
        itself, with a bad number or a zero axis; the message starts with ``URDF:`` or ``URDF
        file '<path>':`` and names the element.
    """
    root, where = _parse(source)
    try:
        return _read_graph(root)
    except _URDFError as err:
        raise ValueError(f"{where}: {err}") from None


def _read_graph(root: ET.Element) -> URDFGraph:
    links, numbers, by_child, children, roots = _read_tree(root)
    tree = []
    stack = [roots[0]]
    while stack:                               # parents before children
        link = stack.pop()
        for child in reversed(children.get(link, [])):
            jname, jtype, parent, M, axis, limits = by_child[child]
            tree.append((jname, jtype, parent, child, M, axis, limits))
            stack.append(child)
    loops = []
    seen: dict[str, int] = {}
    for i, el in enumerate(root.findall("loop_joint"), 1):
        lname, ltype = el.get("name"), el.get("type")
        if not lname:
            raise _URDFError(f"<loop_joint> element {i} has no name attribute")
        if lname in numbers:
            raise _URDFError(f"<loop_joint> {lname!r} has the name of <joint> element "
                             f"{numbers[lname]}")
        if lname in seen:
            raise _URDFError(f"<loop_joint> elements {seen[lname]} and {i} are both named "
                             f"{lname!r}")
        seen[lname] = i
        what = f"loop joint {lname!r}"
        if ltype not in LOOP_KINDS:
            raise _URDFError(f"<loop_joint> {lname!r} has type {ltype!r}; expected one of "
                             f"{', '.join(LOOP_KINDS)}")
        ends = []
        for tag in ("parent", "child"):
            end = el.find(tag)
            if end is None:
                raise _URDFError(f"<loop_joint> {lname!r} has no <{tag}> element (expected "
                                 f"<{tag} link=\"...\" xyz=\"...\" rpy=\"...\"/>)")
            link = end.get("link")
            if not link:
                raise _URDFError(f"the <{tag}> element of <loop_joint> {lname!r} has no link "
                                 "attribute")
            if link not in links:
                raise _URDFError(f"<loop_joint> {lname!r} names {tag} link {link!r}, which is "
                                 "not a <link> of the robot")
            ends.append((link, _pose(end, f"the <{tag}> of {what}")))
        if ends[0][0] == ends[1][0]:
            raise _URDFError(f"<loop_joint> {lname!r} joins link {ends[0][0]!r} to itself")
        axis = _loop_axis(el, lname, ltype, what, "<loop_joint>")
        loops.append((lname, ltype, ends[0][0], ends[1][0], ends[0][1], ends[1][1], axis))
    names = {**{k: ("<joint>", v) for k, v in numbers.items()},
             **{k: ("<loop_joint>", v) for k, v in seen.items()}}
    loops.extend(_read_plus_loops(root, links, names))
    couplings = _read_couplings(root, links, names, by_child)
    return URDFGraph(root.get("name"), roots[0], list(links), tree, loops, tuple(couplings))


def _loop_axis(el: ET.Element, lname: str, ltype: str, what: str, tag: str) -> np.ndarray:
    """The unit axis of a loop element (default ``1 0 0``), refused zero where it moves."""
    ax = el.find("axis")
    axis = _floats(ax.get("xyz"), 3, f"axis xyz of {what}") if ax is not None \
        else np.array([1.0, 0.0, 0.0])
    scale = np.max(np.abs(axis))
    if ltype in ("revolute", "continuous", "prismatic", "planar") and not scale > 0.0:
        raise _URDFError(f"{tag} {lname!r} has a zero axis {ax.get('xyz')!r}")
    if scale > 0.0:
        axis = axis / scale
        axis = axis / np.linalg.norm(axis)
    return axis


def _named(el: ET.Element, tag: str, i: int, names: dict) -> str:
    """The name of the ``i``-th ``<tag>`` element, checked unique among ``names`` (name:
    (tag, number)), which it joins."""
    name = el.get("name")
    if not name:
        raise _URDFError(f"<{tag}> element {i} has no name attribute")
    if name in names:
        other, k = names[name]
        raise _URDFError(f"<{tag}> element {i} is named {name!r}, as {other} element {k}")
    names[name] = (f"<{tag}>", i)
    return name


def _end_link(el: ET.Element, tag: str, owner: str, links) -> ET.Element:
    """The ``<predecessor>`` / ``<successor>`` child of a URDF+ element, its link checked."""
    end = el.find(tag)
    if end is None:
        raise _URDFError(f"{owner} has no <{tag}> element (expected <{tag} link=\"...\">)")
    link = end.get("link")
    if not link:
        raise _URDFError(f"the <{tag}> element of {owner} has no link attribute")
    if link not in links:
        raise _URDFError(f"{owner} names {tag} link {link!r}, which is not a <link> of the "
                         "robot")
    return end


def _read_plus_loops(root: ET.Element, links, names: dict) -> list:
    """The URDF+ ``<loop>`` elements (arXiv 2411.19753) as loop joint tuples."""
    loops = []
    for i, el in enumerate(root.findall("loop"), 1):
        lname = _named(el, "loop", i, names)
        owner = f"<loop> {lname!r}"
        ltype = el.get("type")
        if ltype not in URDF_PLUS_LOOP_KINDS:
            raise _URDFError(f"{owner} has type {ltype!r}; expected one of "
                             f"{', '.join(URDF_PLUS_LOOP_KINDS)}")
        ends = []
        for tag in ("predecessor", "successor"):
            end = _end_link(el, tag, owner, links)
            org = end.find("origin")
            M = _pose(org, f"the <{tag}> origin of {owner}") if org is not None else np.eye(4)
            ends.append((end.get("link"), M))
        if ends[0][0] == ends[1][0]:
            raise _URDFError(f"{owner} joins link {ends[0][0]!r} to itself")
        axis = _loop_axis(el, lname, ltype, f"<loop> {lname!r}", "<loop>")
        loops.append((lname, ltype, ends[0][0], ends[1][0], ends[0][1], ends[1][1], axis))
    return loops


def _read_couplings(root: ET.Element, links, names: dict, by_child: dict) -> list:
    """The URDF+ ``<coupling>`` elements as ``(name, dependent joint, independent joint,
    ratio)``: the joints whose child links the successor and the predecessor name."""
    out = []
    for i, el in enumerate(root.findall("coupling"), 1):
        cname = _named(el, "coupling", i, names)
        owner = f"<coupling> {cname!r}"
        joints = []
        for tag in ("predecessor", "successor"):
            link = _end_link(el, tag, owner, links).get("link")
            joint = by_child.get(link)
            if joint is None or joint[1] == "fixed":
                raise _URDFError(f"{owner}: the {tag} link {link!r} hangs from no moving "
                                 "<joint> (a coupling relates the joints that move the two "
                                 "links)")
            joints.append(joint[0])
        if joints[0] == joints[1]:
            raise _URDFError(f"{owner} couples joint {joints[0]!r} to itself")
        ratio_el = el.find("ratio")
        if ratio_el is None:
            raise _URDFError(f"{owner} has no <ratio value=\"...\"/> element")
        ratio = _floats(ratio_el.get("value"), 1, f"the ratio value of {owner}")[0]
        out.append((cname, joints[1], joints[0], float(ratio)))
    return out
