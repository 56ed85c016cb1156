"""URDF robots whose joints close kinematic loops, built into a :class:`~mechsolve.Mechanism`.

:func:`load_urdf_mechanism` reads a URDF file or text with :func:`~mechsolve.io.urdf.
read_urdf_graph`: its ``<joint>`` elements form a tree (the spanning tree), and its
``<loop_joint>`` elements (a mechsolve extension of URDF, described there) close the loops.
Every link is a body (the root link is the mechanism's ground); every moving tree joint is a
:class:`~mechsolve.joints.RevoluteLink` or :class:`~mechsolve.joints.PrismaticLink` that
carries its joint value as a coordinate (``joint.value``, continuous over turns, with the
URDF limits as ``limits=``), a fixed one a :class:`~mechsolve.joints.Fixed`; each loop joint
is a spatial :class:`~mechsolve.joints.Revolute`, :class:`~mechsolve.joints.Prismatic`,
:class:`~mechsolve.joints.Spherical` or :class:`~mechsolve.joints.Fixed` between the two
links' joint frames. The joints named ``actuated`` get a
:class:`~mechsolve.joints.CoordinateDriver` (an actuated loop joint an
:class:`~mechsolve.joints.AngleDriver` or :class:`~mechsolve.joints.SlideDriver`); the other
joints are passive and solved. :func:`urdf_joint_values` writes the joint values back by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import joints as _joints
from ..io.urdf import read_urdf_graph
from ..mechanism import Mechanism
from ..spatial import Frame, Orientation
from ..spatial._quat import quat_from_matrix

__all__ = ["URDFModel", "load_urdf_mechanism", "urdf_joint_values"]


def _frame(M: np.ndarray) -> Frame:
    return Frame(M[:3, 3], Orientation(quat_from_matrix(M[:3, :3]), normalize=True))


def _motion(kind: str, axis: np.ndarray, value: float) -> np.ndarray:
    """The 4 x 4 motion of a tree joint at ``value``."""
    T = np.eye(4)
    if kind in ("revolute", "continuous"):
        T[:3, :3] = Orientation.from_angle_axis(value, axis).as_matrix()
    elif kind == "prismatic":
        T[:3, 3] = value * axis
    return T


@dataclass
class URDFModel:
    """A URDF robot (with loops) as a mechanism (see :func:`load_urdf_mechanism`).

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
    """

    mechanism: Mechanism
    name: str | None
    links: dict
    joints: dict
    loop_joints: dict
    actuated: dict = field(default_factory=dict)

    def joint_values(self) -> dict:
        """The tree joints' values by name (:func:`urdf_joint_values`)."""
        return urdf_joint_values(self)

    def set_actuated(self, values) -> None:
        """Set the drivers' values from ``{joint name: value}``."""
        for k, v in dict(values).items():
            if k not in self.actuated:
                raise KeyError(f"{k!r} is not an actuated joint of {self.name!r} (actuated: "
                               f"{sorted(self.actuated)})")
            self.actuated[k].value = float(v)


def load_urdf_mechanism(source, actuated=(), *, values=None, name=None) -> URDFModel:
    """A mechanism from a URDF file path or XML text whose ``<loop_joint>`` elements close
    loops (see :func:`~mechsolve.io.urdf.read_urdf_graph` for the element).

    The links are placed by the tree's forward kinematics at the joint ``values`` (default
    0); the loops are closed by the first ``mech.solve()``, which starts from that sketch, so
    choose values near the assembly wanted. The drivers start at those values.

    Parameters
    ----------
    source : str, os.PathLike or bytes
    actuated : sequence of str
        Names of the joints that get drivers: moving tree joints, or revolute / prismatic
        loop joints.
    values : dict, optional
        ``{tree joint name: value}`` for the sketch (radians, metres).
    name : str, optional
        The mechanism's name (default the robot's).

    Returns
    -------
    URDFModel

    Raises
    ------
    ValueError
        From the reader (naming the file and the element), or for an ``actuated`` or
        ``values`` name that is no moving joint.

    Examples
    --------
    A four-bar: crank and rocker hang from the base, the coupler from the crank; the loop
    joint pins the coupler's far end to the rocker.

    >>> import numpy as np
    >>> from mechsolve.robots import load_urdf_mechanism
    >>> text = '''<robot name="fourbar">
    ...   <link name="base"/><link name="crank"/><link name="coupler"/><link name="rocker"/>
    ...   <joint name="motor" type="continuous"><parent link="base"/><child link="crank"/>
    ...     <axis xyz="0 0 1"/></joint>
    ...   <joint name="knee" type="continuous"><parent link="crank"/><child link="coupler"/>
    ...     <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
    ...   <joint name="pivot" type="continuous"><parent link="base"/><child link="rocker"/>
    ...     <origin xyz="3 0 0"/><axis xyz="0 0 1"/></joint>
    ...   <loop_joint name="pin" type="revolute">
    ...     <parent link="coupler" xyz="3 0 0"/><child link="rocker" xyz="2 0 0"/>
    ...     <axis xyz="0 0 1"/></loop_joint>
    ... </robot>'''
    >>> robot = load_urdf_mechanism(text, ["motor"], values={"knee": 1.0, "pivot": 1.5})
    >>> robot.mechanism.dof().dof            # the loop's mobility (the pin is redundant in z)
    1
    >>> robot.actuated["motor"].value = np.pi / 2
    >>> robot.mechanism.solve().success
    True
    >>> sorted((k, round(v, 6)) for k, v in robot.joint_values().items())
    [('knee', -1.233489), ('motor', 1.570796), ('pivot', 1.655424)]
    """
    graph = read_urdf_graph(source)
    where = f"URDF robot {graph.name!r}"
    moving = {j[0]: j for j in graph.joints if j[1] != "fixed"}
    loop_moving = {lp[0]: lp for lp in graph.loops if lp[1] in ("revolute", "continuous",
                                                                 "prismatic")}
    values = {} if values is None else dict(values)
    for k in values:
        if k not in moving:
            raise ValueError(f"{where}: values names {k!r}, which is no moving <joint> "
                             f"(moving joints: {sorted(moving)})")
    if isinstance(actuated, str):
        actuated = [actuated]
    for k in actuated:
        if k not in moving and k not in loop_moving:
            raise ValueError(f"{where}: actuated names {k!r}, which is no moving <joint> or "
                             "revolute / prismatic <loop_joint> (moving joints: "
                             f"{sorted(moving) + sorted(loop_moving)})")
    mech = Mechanism(dim=3, name=name or graph.name)
    poses = {graph.root: np.eye(4)}
    links = {graph.root: mech.ground}
    tree = {}
    for jname, kind, parent, child, M, axis, limits in graph.joints:
        s = float(values.get(jname, 0.0))
        poses[child] = poses[parent] @ M @ _motion(kind, axis, s)
        pose = _frame(poses[child])
        links[child] = mech.add_body(child, position=pose.translation,
                                     orientation=pose.orientation)
        if kind == "fixed":
            tree[jname] = mech.add(_joints.Fixed(links[parent], links[child], _frame(M),
                                                 Frame(), name=jname))
            continue
        cls = _joints.PrismaticLink if kind == "prismatic" else _joints.RevoluteLink
        lim = limits if kind != "continuous" and limits is not None and \
            limits[0] < limits[1] else None
        tree[jname] = mech.add(cls(links[parent], links[child], _frame(M), axis=axis, s0=s,
                                   limits=lim, name=jname))
    for name_ in graph.links:       # links no joint reaches cannot exist (one root, a tree)
        assert name_ in links
    loops = {}
    for lname, kind, parent, child, F1, F2, axis in graph.loops:
        b1, b2 = links[parent], links[child]
        if kind in ("revolute", "continuous", "prismatic"):
            turn = np.asarray(Orientation.identity().align_z(axis).as_matrix())
            F1, F2 = F1.copy(), F2.copy()
            F1[:3, :3] = F1[:3, :3] @ turn
            F2[:3, :3] = F2[:3, :3] @ turn
            cls = _joints.Prismatic if kind == "prismatic" else _joints.Revolute
        else:
            cls = _joints.Spherical if kind == "spherical" else _joints.Fixed
        loops[lname] = mech.add(cls(b1, b2, _frame(F1), _frame(F2), name=lname))
    drivers = {}
    for k in actuated:
        if k in tree:
            drivers[k] = mech.add(_joints.CoordinateDriver(tree[k], tree[k].value,
                                                           name=f"{k}_drive"))
        else:
            joint = loops[k]
            cls = _joints.SlideDriver if loop_moving[k][1] == "prismatic" else \
                _joints.AngleDriver
            drivers[k] = mech.add(cls(joint, 0.0, name=f"{k}_drive"))
    return URDFModel(mech, graph.name, links, tree, loops, drivers)


def urdf_joint_values(model) -> dict:
    """The joint values of a solved URDF robot by joint name, in URDF's conventions (radians
    for revolute and continuous joints, metres for prismatic ones; fixed joints left out).

    ``model`` is a :class:`URDFModel` (its tree joints) or a :class:`~mechsolve.Mechanism`
    (every named :class:`~mechsolve.joints.RevoluteLink` / :class:`~mechsolve.joints.
    PrismaticLink`: the URDF models of :func:`load_urdf_mechanism` and
    :meth:`SerialArm.mechanism <mechsolve.robots.SerialArm.mechanism>` name them after the
    URDF joints). Continuous joints keep their value over several turns.
    """
    if isinstance(model, Mechanism):
        items = [j for j in model.joints
                 if isinstance(j, (_joints.RevoluteLink, _joints.PrismaticLink)) and j.name]
    elif isinstance(model, URDFModel):
        items = [j for j in model.joints.values() if isinstance(j, _joints.LinkJoint)]
    else:
        raise TypeError(f"urdf_joint_values: expected a URDFModel or a Mechanism, got "
                        f"{type(model).__name__}")
    return {j.name: j.value for j in items}
