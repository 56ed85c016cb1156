"""One builder for every robot description whose links may close loops.

The readers of URDF (with ``<loop_joint>``, URDF+ ``<loop>`` / ``<coupling>`` and the loop
sidecars), SDFormat and any later format turn their file into the plain records of this
module -- a :class:`KinematicGraph` of links, :class:`TreeJoint` records (the spanning tree),
:class:`LoopClosure` records (the joints that close loops) and :class:`JointCoupling` records
(one joint coordinate a multiple of another) -- and :func:`build_graph_model` builds the
mechanism from them, the same way for every format:

* every link is a body placed by the tree's forward kinematics at the joint ``values``
  (default 0), the root link the mechanism's ground;
* a revolute / continuous / prismatic tree joint is a :class:`~mechsolve.joints.RevoluteLink`
  / :class:`~mechsolve.joints.PrismaticLink` carrying its value (limits kept, not for
  continuous joints), a fixed one a :class:`~mechsolve.joints.Fixed`, a spherical one a
  :class:`~mechsolve.joints.Spherical`;
* a loop closure is a spatial :class:`~mechsolve.joints.Revolute`,
  :class:`~mechsolve.joints.Prismatic`, :class:`~mechsolve.joints.Planar` (the axis its
  plane's normal), :class:`~mechsolve.joints.Spherical` or :class:`~mechsolve.joints.Fixed`
  between its two frames, each frame's z axis turned onto the closure's axis;
* a coupling is a :class:`~mechsolve.joints.CoordinateCoupling` ``s = ratio * s_source``;
* the joints named ``actuated`` get drivers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import joints as _joints
from ..mechanism import Mechanism
from ..spatial import Frame, Orientation
from ..spatial._quat import quat_from_matrix

__all__ = ["KinematicGraph", "TreeJoint", "LoopClosure", "JointCoupling", "URDFModel",
           "build_graph_model", "TREE_KINDS", "LOOP_KINDS"]

#: Kinds of :class:`TreeJoint`.
TREE_KINDS = ("revolute", "continuous", "prismatic", "fixed", "spherical")
#: Kinds of :class:`LoopClosure`.
LOOP_KINDS = ("revolute", "continuous", "prismatic", "planar", "spherical", "fixed")
_MOVING = ("revolute", "continuous", "prismatic")


@dataclass(frozen=True)
class TreeJoint:
    """A joint of the spanning tree: ``child``'s frame is ``parent`` frame @ ``frame_parent``
    @ motion(value) @ inverse(``frame_child``) (4 x 4 transforms in the links' frames); the
    motion turns about / slides along the unit ``axis`` (in the joint frame). ``limits`` is
    ``(lower, upper)`` (either side ``None``) or ``None``."""

    name: str
    kind: str
    parent: str
    child: str
    frame_parent: np.ndarray
    frame_child: np.ndarray
    axis: np.ndarray
    limits: tuple | None = None


@dataclass(frozen=True)
class LoopClosure:
    """A joint that closes a loop between the frame ``frame_parent`` on link ``parent`` and
    ``frame_child`` on link ``child`` (4 x 4, in each link's frame); ``axis`` (unit, in the
    joint frames) is the revolute / prismatic axis or the planar joint's normal."""

    name: str
    kind: str
    parent: str
    child: str
    frame_parent: np.ndarray
    frame_child: np.ndarray
    axis: np.ndarray


@dataclass(frozen=True)
class JointCoupling:
    """``value(joint) = ratio * value(source)`` between two moving tree joints."""

    name: str
    joint: str
    source: str
    ratio: float


@dataclass
class KinematicGraph:
    """A robot description as plain records (see :mod:`mechsolve.robots._graph`).

    ``root_pose`` places the root link in the model frame (the ground's frame); ``where``
    starts the builder's messages (``"URDF robot 'leg'"``); ``units`` is set as the
    mechanism's units when given.
    """

    name: str | None
    root: str
    links: list
    joints: list
    loops: list = field(default_factory=list)
    couplings: list = field(default_factory=list)
    root_pose: np.ndarray = field(default_factory=lambda: np.eye(4))
    where: str = "robot"
    units: dict | None = None


@dataclass
class URDFModel:
    """A robot (with loops) as a mechanism (see :func:`~mechsolve.robots.load_urdf_mechanism`,
    :func:`~mechsolve.robots.load_sdf_mechanism`).

    Attributes
    ----------
    mechanism : Mechanism
    name : str or None
        The robot's name.
    links : dict
        Link name -> body (the root link -> ``mechanism.ground``).
    joints : dict
        Tree joint name -> its joint (link joints carry the joint value).
    loop_joints : dict
        Loop joint name -> its joint.
    actuated : dict
        Actuated joint name -> its driver (set ``driver.value``, or sweep it).
    couplings : dict
        Coupling name -> its :class:`~mechsolve.joints.CoordinateCoupling`.
    """

    mechanism: Mechanism
    name: str | None
    links: dict
    joints: dict
    loop_joints: dict
    actuated: dict = field(default_factory=dict)
    couplings: dict = field(default_factory=dict)

    def joint_values(self) -> dict:
        """The tree joints' values by name (:func:`~mechsolve.robots.urdf_joint_values`)."""
        return {j.name: j.value for j in self.joints.values()
                if isinstance(j, _joints.LinkJoint)}

    def set_actuated(self, values) -> None:
        """Set the drivers' values from ``{joint name: value}``."""
        for k, v in dict(values).items():
            if k not in self.actuated:
                raise KeyError(f"{k!r} is not an actuated joint of {self.name!r} (actuated: "
                               f"{sorted(self.actuated)})")
            self.actuated[k].value = float(v)


def _frame(M: np.ndarray) -> Frame:
    return Frame(M[:3, 3], Orientation(quat_from_matrix(M[:3, :3]), normalize=True))


def _inv(M: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = M[:3, :3].T
    out[:3, 3] = -M[:3, :3].T @ M[:3, 3]
    return out


def _motion(kind: str, axis: np.ndarray, value: float) -> np.ndarray:
    """The 4 x 4 motion of a tree joint at ``value``."""
    T = np.eye(4)
    if kind in ("revolute", "continuous"):
        T[:3, :3] = Orientation.from_angle_axis(value, axis).as_matrix()
    elif kind == "prismatic":
        T[:3, 3] = value * axis
    return T


def _limits(j: TreeJoint):
    if j.kind == "continuous" or j.limits is None:
        return None
    lo, hi = j.limits
    if lo is not None and hi is not None and not lo < hi:
        return None
    return tuple(j.limits)


def build_graph_model(graph: KinematicGraph, actuated=(), *, values=None,
                      name=None) -> URDFModel:
    """The mechanism of ``graph`` (see the module's description), as a :class:`URDFModel`.

    Raises
    ------
    ValueError
        For an ``actuated`` or ``values`` name that is no moving joint, or a coupling that
        names no moving tree joint; the message starts with ``graph.where``.
    """
    where = graph.where
    moving = {j.name: j for j in graph.joints if j.kind in _MOVING}
    loop_moving = {lp.name: lp for lp in graph.loops if lp.kind in _MOVING}
    values = {} if values is None else dict(values)
    for k in values:
        if k not in moving:
            raise ValueError(f"{where}: values names {k!r}, which is no moving tree joint "
                             f"(moving joints: {sorted(moving)})")
    if isinstance(actuated, str):
        actuated = [actuated]
    for k in actuated:
        if k not in moving and k not in loop_moving:
            raise ValueError(f"{where}: actuated names {k!r}, which is no moving joint "
                             "(a revolute, continuous or prismatic tree or loop joint; moving "
                             f"joints: {sorted(moving) + sorted(loop_moving)})")
    for c in graph.couplings:
        for k in (c.joint, c.source):
            if k not in moving:
                raise ValueError(f"{where}: coupling {c.name!r} names joint {k!r}, which is "
                                 f"no moving tree joint (moving joints: {sorted(moving)})")
    mech = Mechanism(dim=3, name=name or graph.name)
    if graph.units is not None:
        mech.units = dict(graph.units)
    root = graph.root
    poses = {root: np.asarray(graph.root_pose, dtype=float)}
    links = {root: mech.ground}

    def place(link, M):
        """A frame on ``link``: on the ground it is in the model frame."""
        return poses[root] @ M if link == root else M

    tree = {}
    for j in graph.joints:
        s = float(values.get(j.name, 0.0))
        poses[j.child] = poses[j.parent] @ j.frame_parent @ _motion(j.kind, j.axis, s) \
            @ _inv(j.frame_child)
        pose = _frame(poses[j.child])
        links[j.child] = mech.add_body(j.child, position=pose.translation,
                                       orientation=pose.orientation)
        b1, b2 = links[j.parent], links[j.child]
        F1, F2 = _frame(place(j.parent, j.frame_parent)), _frame(j.frame_child)
        if j.kind == "fixed":
            tree[j.name] = mech.add(_joints.Fixed(b1, b2, F1, F2, name=j.name))
        elif j.kind == "spherical":
            tree[j.name] = mech.add(_joints.Spherical(b1, b2, F1, F2, name=j.name))
        else:
            cls = _joints.PrismaticLink if j.kind == "prismatic" else _joints.RevoluteLink
            tree[j.name] = mech.add(cls(b1, b2, F1, F2, axis=j.axis, s0=s, limits=_limits(j),
                                        name=j.name))
    loops = {}
    for lp in graph.loops:
        b1, b2 = links[lp.parent], links[lp.child]
        F1, F2 = place(lp.parent, lp.frame_parent), place(lp.child, lp.frame_child)
        if lp.kind in ("revolute", "continuous", "prismatic", "planar"):
            turn = np.asarray(Orientation.identity().align_z(lp.axis).as_matrix())
            F1, F2 = F1.copy(), F2.copy()
            F1[:3, :3] = F1[:3, :3] @ turn
            F2[:3, :3] = F2[:3, :3] @ turn
            cls = {"prismatic": _joints.Prismatic, "planar": _joints.Planar}.get(
                lp.kind, _joints.Revolute)
        else:
            cls = _joints.Spherical if lp.kind == "spherical" else _joints.Fixed
        loops[lp.name] = mech.add(cls(b1, b2, _frame(F1), _frame(F2), name=lp.name))
    couplings = {}
    for c in graph.couplings:
        couplings[c.name] = mech.add(_joints.CoordinateCoupling(
            tree[c.joint], tree[c.source], (0.0, float(c.ratio)), name=c.name))
    drivers = {}
    for k in actuated:
        if k in tree:
            drivers[k] = mech.add(_joints.CoordinateDriver(tree[k], tree[k].value,
                                                           name=f"{k}_drive"))
        else:
            cls = _joints.SlideDriver if loop_moving[k].kind == "prismatic" else \
                _joints.AngleDriver
            drivers[k] = mech.add(cls(loops[k], 0.0, name=f"{k}_drive"))
    return URDFModel(mech, graph.name, links, tree, loops, drivers, couplings)
