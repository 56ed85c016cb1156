"""Reading SDFormat (``.sdf``) models into plain data: links, joints, and the joints that
close loops.

SDFormat (sdformat.org, the format of Gazebo) describes a ``<model>`` by its ``<link>``
elements, each placed by a ``<pose>`` in the model's frame (or ``relative_to`` another
frame), and its ``<joint>`` elements, each joining a ``<parent>`` link to a ``<child>`` link,
placed by a ``<pose>`` relative to the child link's frame (by default) and moving about or
along its ``<axis><xyz>`` (expressed in the joint's frame by default). Unlike URDF, the
joints need not form a tree: :func:`read_sdf_graph` walks them from the root link, parents to
children, and a joint whose child is already reached closes a loop.

What is read, per SDFormat 1.7 to 1.11 (``http://sdformat.org/spec``):

* one ``<model>``, directly in ``<sdf>`` or in a ``<world>``; its ``<link>``, ``<joint>``
  and ``<frame>`` elements (the links' inertia, visuals and collisions are not read, and no
  file is: ``<include>`` and nested models are refused);
* ``<pose>`` as ``x y z roll pitch yaw`` (``R = Rz(yaw) Ry(pitch) Rx(roll)``, as URDF's
  ``rpy``), with ``degrees="true"``, or ``rotation_format="quat_xyzw"`` (``x y z qx qy qz
  qw``); ``relative_to`` a link, joint or frame of the model or ``__model__``;
* joints of type ``revolute``, ``continuous``, ``prismatic``, ``fixed`` and ``ball``; the
  parent ``world`` makes the child link the root (fixed to the ground); ``<axis><xyz>`` with
  ``expressed_in``; ``<axis><limit><lower>``/``<upper>`` (magnitudes of ``1e15`` and more,
  such as SDFormat's default ``1e16``, mean no limit on that side).
* The root (fixed: the ground) is the child of a fixed joint to ``world`` if there is one,
  else the world itself if a moving joint joins a link to it, else the model's
  ``canonical_link`` if it names one, else its first link.

Every input is read or rejected with a :class:`ValueError` whose message starts with
``SDF:`` (text) or ``SDF file '<path>':`` and names the element at fault; XML is parsed by
expat (no external entities, no entity expansion bombs), at most :data:`MAX_CHARACTERS` of it;
every number is finite and at most :data:`MAX_MAGNITUDE` in magnitude (metres, radians).

Examples
--------
>>> from mechsolve.io.sdf import read_sdf_graph
>>> graph = read_sdf_graph('''<sdf version="1.7"><model name="pendulum">
...   <link name="base"/>
...   <link name="bob"><pose>0 0 -1 0 0 0</pose></link>
...   <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
...   <joint name="swing" type="revolute"><parent>base</parent><child>bob</child>
...     <pose>0 0 1 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>
... </model></sdf>''')
>>> graph.root, [j.name for j in graph.joints], graph.loops
('base', ['swing'], [])
>>> graph.poses["bob"][:3, 3].tolist(), graph.joints[0].frame_child[:3, 3].tolist()
([0.0, 0.0, -1.0], [0.0, 0.0, 1.0])
"""

from __future__ import annotations

import math
import os
import pathlib
import xml.etree.ElementTree as ET
from typing import NamedTuple

import numpy as np

from ._files import read_bytes

__all__ = ["read_sdf_graph", "SDFGraph", "SDFJoint", "MAX_CHARACTERS", "MAX_MAGNITUDE",
           "KINDS"]

#: Longest SDF read, in characters of text or bytes of a file (64 MiB, as URDF).
MAX_CHARACTERS = 64 * 2**20
#: Bound on the magnitude of every number of a pose or an axis (metres, radians), as URDF's.
MAX_MAGNITUDE = 1e6
#: Joint types read.
KINDS = ("revolute", "continuous", "prismatic", "fixed", "ball")
# a limit of this magnitude or more is no limit (SDFormat's default is 1e16)
_NO_LIMIT = 1e15


class SDFJoint(NamedTuple):
    """A joint of an SDF model: its ``name``, ``kind`` (one of :data:`KINDS`), ``parent`` and
    ``child`` links, its frame in the parent link's frame and in the child link's frame at
    the model's pose (4 x 4 each; equal in the model frame), its unit ``axis`` in the joint
    frame and its ``limits`` (``(lower, upper)`` with ``None`` for an open side, or
    ``None``)."""

    name: str
    kind: str
    parent: str
    child: str
    frame_parent: np.ndarray
    frame_child: np.ndarray
    axis: np.ndarray
    limits: tuple | None


class SDFGraph(NamedTuple):
    """An SDF model as plain data (see :func:`read_sdf_graph`).

    Attributes
    ----------
    name : str or None
        The model's name.
    root : str
        The root link (fixed to the ground), or ``"world"`` where a moving joint joins a link
        to the world.
    links : list of str
        Every link, in file order.
    poses : dict
        Link name (and the root) -> its pose in the model frame (4 x 4), as the file places
        it.
    joints : list of SDFJoint
        The tree joints, parents before children (each child reached once).
    loops : list of SDFJoint
        The joints whose child was already reached: they close loops.
    """

    name: str | None
    root: str
    links: list
    poses: dict
    joints: list
    loops: list


class _SDFError(ValueError):
    """A fault of the SDF, worded without the source."""


def _numbers(text, n, what: str) -> list:
    try:
        vals = [float(x) for x in (text or "").split()]
    except ValueError:
        vals = []
    if len(vals) not in ((n,) if isinstance(n, int) else n) or \
            not all(math.isfinite(v) for v in vals):
        count = n if isinstance(n, int) else " or ".join(map(str, n))
        raise _SDFError(f"{what} must be {count} finite numbers, got {(text or '')[:60]!r}")
    return vals


def _rpy(r: float, p: float, y: float) -> np.ndarray:
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p), math.sin(p),
                              math.cos(y), math.sin(y))
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _pose(el, what: str) -> tuple[np.ndarray, str | None]:
    """The transform of an element's ``<pose>`` and its ``relative_to`` (None: default)."""
    pose = el.find("pose")
    M = np.eye(4)
    if pose is None:
        return M, None
    where = f"the <pose> of {what}"
    fmt = pose.get("rotation_format", "euler_rpy")
    if fmt not in ("euler_rpy", "quat_xyzw"):
        raise _SDFError(f"{where} has rotation_format {fmt!r}; expected euler_rpy or "
                        "quat_xyzw")
    vals = _numbers(pose.text, 7 if fmt == "quat_xyzw" else 6, where)
    if max(abs(v) for v in vals) > MAX_MAGNITUDE:
        raise _SDFError(f"{where} is {pose.text.strip()[:60]!r}, beyond the bound of "
                        f"{MAX_MAGNITUDE:g} on the magnitude of SDF numbers (metres, radians)")
    M[:3, 3] = vals[:3]
    if fmt == "quat_xyzw":
        x, y, z, w = vals[3:]
        n = math.sqrt(w * w + x * x + y * y + z * z)
        if not n > 0:
            raise _SDFError(f"{where} has a zero quaternion")
        w, x, y, z = w / n, x / n, y / n, z / n
        M[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    else:
        degrees = pose.get("degrees", "false").strip().lower()
        if degrees not in ("true", "false", "1", "0"):
            raise _SDFError(f"{where} has degrees={degrees!r}; expected true or false")
        rpy = [math.radians(v) if degrees in ("true", "1") else v for v in vals[3:]]
        M[:3, :3] = _rpy(*rpy)
    rel = pose.get("relative_to")
    return M, (rel if rel else None)


def _text(el, tag: str, what: str) -> str:
    sub = el.find(tag)
    if sub is None or not (sub.text or "").strip():
        raise _SDFError(f"{what} has no <{tag}> (expected <{tag}>link name</{tag}>)")
    return sub.text.strip()


def _inv(M: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = M[:3, :3].T
    out[:3, 3] = -M[:3, :3].T @ M[:3, 3]
    return out


def _parse(source) -> tuple[ET.Element, str]:
    if isinstance(source, (bytes, bytearray)):
        where, data = "SDF", bytes(source)
    elif isinstance(source, str) and "<" in source:
        where, data = "SDF", source.lstrip("\ufeff")
    elif isinstance(source, str) and not source.strip():
        raise ValueError(f"SDF: the source is empty, got {source!r} (expected <sdf> XML text "
                         "or a file path)")
    elif isinstance(source, (str, os.PathLike)):
        path = pathlib.Path(source)
        where = f"SDF file {str(path)!r}"
        data = read_bytes(path, MAX_CHARACTERS)
    else:
        raise TypeError("SDF: source must be a file path (str or os.PathLike) or SDF XML "
                        f"(str or bytes), got {type(source).__name__}")
    if len(data) > MAX_CHARACTERS:
        raise ValueError(f"{where}: longer than {MAX_CHARACTERS} characters (the <sdf> is not "
                         "read)")
    try:
        return ET.fromstring(data), where
    except (ET.ParseError, ValueError) as err:
        raise ValueError(f"{where}: not well-formed XML: {err}") from None
    except RecursionError:
        raise ValueError(f"{where}: nested too deeply") from None


def read_sdf_graph(source) -> SDFGraph:
    """The links, tree joints and loop-closing joints of an SDF file path or XML text (see
    the module's description).

    Parameters
    ----------
    source : str, os.PathLike or bytes
        SDF XML text (a ``str`` containing ``<``, or ``bytes``), or the path of an SDF file.

    Returns
    -------
    SDFGraph

    Raises
    ------
    ValueError
        Starting with ``SDF:`` or ``SDF file '<path>':`` and naming the element: XML that is
        not well-formed; a root other than ``<sdf>``; no ``<model>`` or several;
        ``<include>`` or a nested ``<model>``; a link, joint or frame without a name or with
        the name of another; a joint type not in :data:`KINDS`; a parent or child that is no
        link of the model; a joint joining a link to itself; a ``relative_to`` or
        ``expressed_in`` that names no frame, or frames placed relative to each other in a
        cycle; a number that is not finite or beyond :data:`MAX_MAGNITUDE`; a zero axis;
        limits with lower above upper; a link that no joint reaches from the root, parents
        to children.
    TypeError
        Where ``source`` is neither text, bytes nor a path.
    OSError
        Where the file cannot be read.
    """
    root, where = _parse(source)
    try:
        return _read(root)
    except _SDFError as err:
        raise ValueError(f"{where}: {err}") from None


def _model(root: ET.Element) -> ET.Element:
    if root.tag != "sdf":
        raise _SDFError(f"the root element must be <sdf>, got <{root.tag}>")
    models = root.findall("model")
    for world in root.findall("world"):
        models += world.findall("model")
    if root.find("include") is not None or any(w.find("include") is not None
                                               for w in root.findall("world")):
        raise _SDFError("<include> is not read (no file an SDF names is opened); put the "
                        "model in the file")
    if len(models) != 1:
        raise _SDFError(f"expected one <model>, found {len(models)}")
    model = models[0]
    if model.find("model") is not None or model.find("include") is not None:
        raise _SDFError(f"<model> {model.get('name')!r} nests a <model> or <include>; only "
                        "flat models are read")
    return model


def _read(root: ET.Element) -> SDFGraph:
    model = _model(root)
    frames = {}          # name -> (kind, element, attached_to)
    links = []
    for kind in ("link", "joint", "frame"):
        for i, el in enumerate(model.findall(kind), 1):
            name = el.get("name")
            if not name:
                raise _SDFError(f"<{kind}> element {i} has no name attribute")
            if name in frames or name in ("world", "__model__"):
                raise _SDFError(f"<{kind}> {name!r}: the name of another link, joint or frame "
                                "(or a reserved one)")
            frames[name] = (kind, el)
            if kind == "link":
                links.append(name)
    if not links:
        raise _SDFError(f"<model> {model.get('name')!r} has no <link> elements")
    joints = {}
    for el in model.findall("joint"):
        name = el.get("name")
        what = f"joint {name!r}"
        kind = el.get("type")
        if kind not in KINDS:
            raise _SDFError(f"{what} has type {kind!r}; only {', '.join(KINDS)} joints are "
                            "read")
        parent, child = _text(el, "parent", what), _text(el, "child", what)
        for tag, link in (("parent", parent), ("child", child)):
            if link not in links and not (tag == "parent" and link == "world"):
                # (a child "world" is refused: the world moves nothing)
                raise _SDFError(f"{what} names {tag} {link!r}, which is not a <link> of the "
                                "model")
        if parent == child:
            raise _SDFError(f"{what} joins link {parent!r} to itself")
        joints[name] = (el, kind, parent, child)
    poses: dict = {"__model__": np.eye(4), "world": np.eye(4)}
    visiting: set = set()

    def pose_of(name: str, asked_by: str) -> np.ndarray:
        if name in poses:
            return poses[name]
        if name not in frames:
            raise _SDFError(f"{asked_by} names frame {name!r}, which is no link, joint or "
                            "frame of the model")
        if name in visiting:
            raise _SDFError(f"the poses of {sorted(visiting)} are relative to each other in a "
                            "cycle")
        visiting.add(name)
        kind, el = frames[name]
        what = f"{kind} {name!r}"
        M, rel = _pose(el, what)
        if rel is None:
            if kind == "joint":
                rel = joints[name][3]            # the child link
            elif kind == "frame":
                rel = el.get("attached_to") or "__model__"
            else:
                rel = "__model__"
        out = pose_of(rel, f"the <pose> of {what}") @ M
        visiting.discard(name)
        poses[name] = out
        return out

    for name in frames:
        pose_of(name, name)
    # the root
    to_world = [j for j, (_, _, parent, _) in joints.items() if parent == "world"]
    if len(to_world) > 1:
        raise _SDFError(f"joints {to_world[:4]} all join a link to the world; one root link "
                        "is read")
    if to_world and joints[to_world[0]][1] != "fixed":
        base = "world"                   # the world is the ground, the joint moves its child
    elif to_world:
        base = joints[to_world[0]][3]
    else:
        canonical = model.get("canonical_link")
        if canonical and canonical not in links:
            raise _SDFError(f"canonical_link {canonical!r} is not a <link> of the model")
        base = canonical or links[0]
    tree, loops = [], []
    reached = {base}
    queue = [base]
    parsed = {}
    for name, (el, kind, parent, child) in joints.items():
        if parent == "world" and base != "world":
            continue
        parsed[name] = _joint(name, el, kind, parent, child, poses, pose_of)
    by_parent: dict = {}
    for j in parsed.values():
        by_parent.setdefault(j.parent, []).append(j)
    while queue:
        link = queue.pop(0)
        for j in by_parent.get(link, []):
            if j.child in reached:
                loops.append(j)
            else:
                reached.add(j.child)
                tree.append(j)
                queue.append(j.child)
    for link in links:
        if link not in reached:
            raise _SDFError(f"link {link!r} is not reached from the root link {base!r} by "
                            "joints from parent to child")
    for name, j in parsed.items():
        if j.parent not in reached:       # pragma: no cover (every link is reached)
            raise _SDFError(f"joint {name!r}: its parent is not reached")
    return SDFGraph(model.get("name"), base, links,
                    {k: poses[k] for k in (*links, base)}, tree, loops)


def _joint(name, el, kind, parent, child, poses, pose_of) -> SDFJoint:
    what = f"joint {name!r}"
    J = poses[name]
    axis = np.array([0.0, 0.0, 1.0])
    limits = None
    ax = el.find("axis")
    if ax is not None:
        xyz = ax.find("xyz")
        if xyz is not None:
            vals = np.array(_numbers(xyz.text, 3, f"the <axis><xyz> of {what}"))
            if np.max(np.abs(vals)) > MAX_MAGNITUDE:
                raise _SDFError(f"the <axis><xyz> of {what} is beyond the bound of "
                                f"{MAX_MAGNITUDE:g}")
            scale = float(np.max(np.abs(vals)))
            if kind in ("revolute", "continuous", "prismatic") and not scale > 0:
                raise _SDFError(f"{what} has a zero axis {xyz.text.strip()!r}")
            if scale > 0:
                vals = vals / scale
                vals = vals / np.linalg.norm(vals)
                frame = xyz.get("expressed_in")
                if frame:
                    R = pose_of(frame, f"the <axis><xyz> of {what}")[:3, :3]
                    vals = J[:3, :3].T @ (R @ vals)
                axis = vals
        lim = ax.find("limit")
        if lim is not None and kind in ("revolute", "prismatic"):
            sides = []
            for tag in ("lower", "upper"):
                e = lim.find(tag)
                if e is None:
                    sides.append(None)
                    continue
                (v,) = _numbers(e.text, 1, f"the <limit><{tag}> of {what}")
                sides.append(None if abs(v) >= _NO_LIMIT else v)
            for v, tag in zip(sides, ("lower", "upper")):
                if v is not None and abs(v) > MAX_MAGNITUDE:
                    raise _SDFError(f"the <limit><{tag}> of {what} is beyond the bound of "
                                    f"{MAX_MAGNITUDE:g}")
            if sides[0] is not None and sides[1] is not None and sides[0] > sides[1]:
                raise _SDFError(f"the <limit> of {what} has lower {sides[0]!r} > upper "
                                f"{sides[1]!r} (expected lower <= upper)")
            if sides != [None, None]:
                limits = tuple(sides)
    return SDFJoint(name, kind, parent, child, _inv(poses[parent]) @ J,
                    _inv(poses[child]) @ J, axis, limits)
